"""Exercise checks of notebook 07, self-attention (reference answers: ``solutions/notebook_07.py``).

As everywhere, a check explains a wrong answer in words and never prints the expected numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..i18n import _
from ..normalisers import softmax
from .answers import check_positions
from .feedback import Feedback, exercise
from .runner import Case, Mistake, implement

__all__ = [
    "check_self_attention",
    "check_causal_influence",
    "check_head_score_variance",
    "check_split_heads",
    "check_tempting_reshape",
]


def self_attention_reference(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
    return softmax(Q @ K.T / math.sqrt(K.shape[1])) @ V  # (n, d_v)


def _attn(scores_to_out):
    return lambda X, W_q, W_k, W_v: scores_to_out(X @ W_q, X @ W_k, X @ W_v, W_q.shape[1])


_SA_FIX = "```\nQ, K, V = X @ W_q, X @ W_k, X @ W_v\nreturn softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V\n```"


def _sa_cases():
    rng, cases = np.random.default_rng(70), []
    for n, d_model, d_k, d_v, scale, where in (
        (5, 4, 3, 2, 1.0, "For X (5, 4), W_q and W_k (4, 3), W_v (4, 2)"),
        (3, 6, 16, 2, 1.0, "For d_k = 16 (the scale 1/sqrt(d_k) = 1/4)"),
        (5, 4, 3, 2, 30.0, "For huge scores (X 30 times as large)"),
        (5, 4, 3, 2, 1e-3, "For tiny scores (X 1000 times smaller)"),
    ):
        X = scale * rng.normal(size=(n, d_model))
        W = rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))
        cases.append(Case((X, *W), where))
    return cases


# fmt: off
check_self_attention = implement("self-attention in numpy", _sa_cases(), self_attention_reference, [
    Mistake.of(_attn(lambda Q, K, V, d: softmax(Q @ K.T / math.sqrt(d))), "{where} your result is (n, n): that is the weight matrix. What does each position output?", "Each output row is a weighted average of the rows of V."),
    Mistake.of(lambda X, W_q, W_k, W_v: softmax(X @ W_q @ (X @ W_k).T / math.sqrt(W_q.shape[1])) @ X, "{where} your result has d_model columns, so it averages X itself. What are the values?", "V = X W_v."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T) @ V), says="{where} the scores are not scaled. By what does scaled dot-product attention divide Q K^T?", hint="Notebook 05, section 2: the variance of q . k grows with the width d_k."),
    Mistake(wrong=lambda X, Wq, Wk, Wv: softmax(X @ Wq @ (X @ Wk).T / math.sqrt(X.shape[1])) @ X @ Wv, says="{where} you divided by sqrt(d_model); the dot products are between queries and keys of another width. Which?", hint="d_k = W_q.shape[1]."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T / math.sqrt(V.shape[1])) @ V), says="{where} you divided by sqrt(d_v), the width of the values. Whose width sets the scale of q . k?", hint="d_k = W_q.shape[1]."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T / d) @ V), says="{where} you divided by d_k = 3 itself. Which number is the standard deviation of q . k?", hint="The variance of q . k is d_k for unit-variance entries."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T * math.sqrt(d)) @ V), says="{where} you multiplied the scores by sqrt(d_k). Does the scaling widen or narrow the scores?", hint="It keeps the softmax out of its saturated region."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T) @ V / math.sqrt(d)), says="{where} you scaled after the softmax: the weights then sum to less than 1. Where must the scale act?", hint="On the scores, before the softmax."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(Q @ K.T / math.sqrt(d), axis=0) @ V), says="{where} your softmax normalised the columns. Over what should each query's weights sum to 1?", hint="A row of the score matrix is one query."),
    Mistake(wrong=_attn(lambda Q, K, V, d: softmax(K @ Q.T / math.sqrt(d)) @ V), says="{where} rows and columns are swapped: the scores are not K Q^T. Which go on the rows?", hint="Rows are queries, columns keys."),
    Mistake(wrong=_attn(lambda Q, K, V, d: Q @ K.T / math.sqrt(d) @ V), says="{where} No softmax: the scaled scores themselves weigh the values. What turns scores into weights?", hint="Weights are non-negative and sum to 1."),
],
    shape="one output per position: (n, d_v)",
    not_finite=Mistake("{where} your result has NaN or inf: do the scores overflow exp?", "Subtract each row's maximum before exp (notebook 01)."),
    otherwise=Mistake("{where} the shape is right but the numbers are not, and not one of the usual slips. Which of Q, K, V, the scores, the weights is the first to differ from the formula?", "Compute Q = X W_q, K = X W_k, V = X W_v, the scores Q K^T / sqrt(d_k), a softmax over each row, then weights @ V."),
    success="Every position is a query, a key and a value: the weight matrix is (n, n), and each output row is a weighted average of the rows of V (checked at two widths d_k and at huge and tiny scores).",
    fix=_SA_FIX,
    doc="Exercise: ``fn(X, W_q, W_k, W_v)`` returns softmax(Q K^T / sqrt(d_k)) V with Q = X W_q, ...: (n, d_v).")
# fmt: on


def _layer(X, W, mask):
    """One self-attention layer with a residual connection: X + softmax(Q K^T / sqrt(d) masked) V. (n, d)."""
    Q, K, V = X @ W[0], X @ W[1], X @ W[2]  # (n, d) each
    scores = Q @ K.T / math.sqrt(X.shape[1])  # (n, n)
    return X + softmax(scores, mask=mask) @ V


def _changed_outputs(n, changed, layers, window, seed):
    """The output positions that move when token ``changed`` moves, computed with random weights: ``layers``
    residual self-attention layers whose mask lets position i attend to positions i - window + 1, ..., i."""
    rng, d = np.random.default_rng(seed), 4
    X = rng.normal(size=(n, d))
    weights = [rng.normal(size=(3, d, d)) / math.sqrt(d) for _ in range(layers)]
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j, (n, n)
    mask, out, out2 = (offset >= 0) & (offset < window), X, X.copy()
    out2[changed] += rng.normal(size=d)
    for W in weights:
        out, out2 = _layer(out, W, mask), _layer(out2, W, mask)
    moved = np.abs(out - out2).max(axis=1)  # (n,)
    return {i for i in range(n) if moved[i] > 1e-9}


# fmt: off
_INFLUENCE_MISTAKES = [  # (n = 6, token 2 changed); every row that holds is said
    Mistake(when=lambda got, right: any(p < 2 for p in got - right), says="{where}: you included positions before 2. Query i < 2 attends only to keys at positions <= i, none of which is 2; stacking does not send information backwards: in the next layer position i again reads only positions <= i, none of which saw the change."),
    Mistake(when=lambda got, right: 2 in right - got, says="{where}: you left out a position that does change. May a query attend to its own key, and what does the residual connection carry forward?"),
    Mistake(when=lambda got, right: any(p > 2 for p in got - right), says="{where}: some positions you included do not change: each layer moves the change at most as far as its mask reaches. How far is that for this mask?"),
    Mistake(when=lambda got, right: bool(right - got - {2}), says="{where}: some later positions you left out change too. Which positions read position 2, directly or through an earlier layer's output, with a positive weight (an allowed key's softmax weight is never exactly 0)?"),
]
# fmt: on


@exercise("predict: how far does a change travel?")
def check_causal_influence(title, two_causal_layers, one_window_layer, two_window_layers) -> Feedback:
    """Exercise (predict, then check): the output positions that change when token 2 of 6 changes, after two stacked
    causal self-attention layers, one layer whose mask allows positions i - 1 and i, and two such layers (each layer
    x + Attention(x)). The answer is computed, not stored: each model runs on random weights before and after."""
    # fmt: off
    truth = {  # n = 6, token 2 changed; (layers, window, seed)
        "two_causal_layers": _changed_outputs(6, 2, 2, 6, 0),
        "one_window_layer": _changed_outputs(6, 2, 1, 2, 1),
        "two_window_layers": _changed_outputs(6, 2, 2, 2, 2),
    }
    answers = dict(zip(truth, (two_causal_layers, one_window_layer, two_window_layers), strict=True))
    causal, one, two = (sorted(t) for t in truth.values())
    return check_positions(title, answers, truth, 6, _INFLUENCE_MISTAKES,
        success=_("Two causal layers: {causal}; one window layer: {one}; two: {two}. A change travels forward only, and each layer carries it at most as far as its mask reaches: the causal mask reaches every later position at once; a window of two, one more position per layer. Stacking never sends it backwards, so under the causal mask appending a token never changes an earlier position's outputs.").format(causal=causal, one=one, two=two),
        hint="Follow the change layer by layer: after each layer, which positions have read a changed position?",
        fix=_("two_causal_layers = {causal}; one_window_layer = {one}; two_window_layers = {two}").format(causal=causal, one=one, two=two))
    # fmt: on


def head_score_variance_reference(d_model, num_heads, sigma):
    return d_model / num_heads * sigma**4


_VAR_FIX = "```\nreturn d_model / num_heads * sigma**4\n```"


# fmt: off
check_head_score_variance = implement("the variance of one head's score q . k", lambda: [  # named when checked
    Case((d, h, s), _("For d_model = {d_model}, {heads} heads, sigma = {sigma}").format(d_model=d, heads=h, sigma=s))
    for d, h, s in ((96, 3, 2.0), (64, 8, 1.0), (512, 8, 1.0), (64, 4, 0.5))
], head_score_variance_reference, [
    Mistake(wrong=lambda d, h, s: d * s**4, says="{where} your variance grows with d_model. How many features does one head's dot product add up? A head only sees its own d_k = d_model / num_heads features.", hint="Count the terms q_r k_r of one head."),
    Mistake(wrong=lambda d, h, s: d / h * s**2, says="{where} each term q_r k_r is a product of two independent variables of variance sigma^2: what is the variance of such a product, in terms of the two variances?", hint="E[(q k)^2] = E[q^2] E[k^2] when the means are 0."),
    Mistake(wrong=lambda d, h, s: math.sqrt(d / h) * s**2, says="{where} that is the standard deviation; the question asks for the variance. What is its square?", hint="Variance = standard deviation squared."),
    Mistake(wrong=lambda d, h, s: d / h, says="{where} Right for sigma = 1; now let the components have variance sigma^2. How does sigma enter?", hint="Each term's variance is E[q_r^2] E[k_r^2]."),
    Mistake(wrong=lambda d, h, s: d * s**2, says="{where} Two things: does a head see all d_model features, and what is the variance of a product of two independent variables of variance sigma^2?", hint="A head sees d_k = d_model / num_heads features."),
], shape="one number, a variance",
    not_finite=Mistake("{where} your variance is NaN or inf; a variance here is a finite positive number. Which operation gives it?"),
    otherwise=Mistake("{where} your formula gives {got}. What are the mean and variance of one term q_r k_r, and how do the variances of independent terms add up?", "Write q . k = sum over the head's d_k features of q_r k_r."),
    success="Each of the d_k products q_r k_r has mean 0 and variance E[q_r^2] E[k_r^2] = sigma^4, and they are independent: the variances add up to d_k sigma^4. So each head divides by sqrt(d_k), not sqrt(d_model).",
    fix=_VAR_FIX,
    doc="Exercise: ``fn(d_model, num_heads, sigma)`` returns Var(q . k) for one head: d_k sigma^4, d_k = d_model/heads.")
# fmt: on


def split_heads_reference(x, num_heads):
    b, n, d_model = x.shape
    return x.reshape(b, n, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)  # (b, heads, n, d_k)


_SPLIT_FIX = (
    "```\nb, n, d_model = x.shape\nreturn x.reshape(b, n, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)\n```"
)


def _labelled(*shape):  # every entry distinct
    return np.arange(np.prod(shape), dtype=np.float64).reshape(shape)


# fmt: off
check_split_heads = implement("split into heads", [
    Case((_labelled(2, 3, 8), 4), "For x of shape (2, 3, 8) and 4 heads"),
    Case((_labelled(1, 4, 6), 2), "For x of shape (1, 4, 6) and 2 heads"),
    Case((_labelled(2, 2, 6), 6), "For 6 heads of width 1"),
], split_heads_reference, [
    Mistake(wrong=lambda x, h: x.reshape(*x.shape[:2], h, -1), says="{where} your result is (b, n, num_heads, d_k): the features are split right, but the axes are in another order. Which axis comes second in (b, num_heads, n, d_k)?", hint="Move the heads axis before the positions."),
    Mistake(wrong=lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), says="{where} a plain reshape to (b, num_heads, n, d_k) mixes positions: a 'head' then holds pieces of different positions. Which axis of x holds the features that are to be split?", hint="Split the last axis only, then move the new heads axis forward."),
    Mistake(wrong=lambda x, h: x.reshape(*x.shape[:2], -1, h).transpose(0, 3, 1, 2), says="{where} your heads take every num_heads-th feature (strided). That is a split too, but not the convention: which features does head m hold?", hint="Head m gets the contiguous block m d_k, ..., (m+1) d_k - 1, as in PyTorch."),
], shape="one d_k-wide slice per sequence, head and position: (b, num_heads, n, d_k)",
    otherwise=Mistake("{where} Right shape, wrong entries. Which features of which position land in head 0?", "Label every feature with its index and print head 0."),
    success="Head m sees features m*d_k ... (m+1)*d_k - 1 of every position: the same split as torch.nn.MultiheadAttention and the course's MultiHeadAttention.",
    fix=_SPLIT_FIX,
    doc="Exercise: ``fn(x, num_heads)``: (b, n, d_model) -> (b, num_heads, n, d_k), head m gets features m*d_k...")

_RESHAPE_MISTAKES = [
    Mistake(when=lambda got, right: got == {0, 1, 2, 3}, says="All four positions in head 0: that is what the right split gives (reshape to (b, n, heads, d_k), then transpose), not this reshape. This one ignores which axis is which: it refills the new shape with the numbers in memory order, position after position. Count how many numbers head 0 takes, and whose they are."),
    Mistake(when=lambda got, right: got != {0, 1, 2, 3}, says="Not {got}. reshape refills the new shape in memory order: write x for b = 1 as the 6 numbers of position 0, then the 6 of position 1, and so on; reshape to (1, 2, 4, 3) fills head 0 with the first 4 x 3 numbers in that order. Whose are they?"),
]
# fmt: on


@exercise("predict: the tempting reshape")
def check_tempting_reshape(title, positions_in_head_0) -> Feedback:
    """Exercise (predict, then check): which positions' features ``x.reshape(b, num_heads, n, d_k)`` puts in head 0,
    for b = 1, n = 4, d_model = 6 and 2 heads. Computed by labelling every feature with its position."""
    b, n, d_model, num_heads = 1, 4, 6, 2
    labelled = np.broadcast_to(np.arange(n)[None, :, None], (b, n, d_model))  # each feature holds its position
    truth = {int(p) for p in np.unique(labelled.reshape(b, num_heads, n, d_model // num_heads)[:, 0])}
    # fmt: off
    return check_positions(title, {"positions_in_head_0": positions_in_head_0}, {"positions_in_head_0": truth}, n, _RESHAPE_MISTAKES,
        success=_("Positions {truth} only. reshape keeps the numbers in memory order: head 0 receives the first n d_k = {count} numbers, whole rows of positions {truth}, cut into {n} 'positions' of d_k features each. Head 0 never sees the other positions; no error warns you, because the shape is right. Splitting the last axis (reshape to (b, n, heads, d_k)) and then moving the heads axis forward keeps every position in every head.").format(truth=sorted(truth), count=n * d_model // num_heads, n=n),
        hint="Label each feature of x with its position, do the reshape, and print head 0.",
        fix=_("positions_in_head_0 = {truth}").format(truth=sorted(truth)))
    # fmt: on
