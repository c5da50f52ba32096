"""Exercise checks of notebook 07, self-attention and the Transformer (reference answers: ``solutions/notebook_07.py``).

As everywhere, a check explains a wrong answer in words and never prints the expected numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..normalisers import softmax
from .feedback import (
    Feedback,
    as_numbers,
    close,
    exercise,
    known_mistake,
    not_attempted,
    not_finite,
    one_number_per_case,
    to_float_array,
    unanswered,
)

__all__ = [
    "check_self_attention",
    "check_causal_influence",
    "check_head_score_variance",
    "check_split_heads",
    "check_tempting_reshape",
    "check_no_position_prediction",
]


def _rows_sum_to_one(weights):
    return bool(np.allclose(weights.sum(axis=-1), 1.0, atol=1e-6))


@exercise("self-attention in numpy")
def check_self_attention(name, fn) -> Feedback:
    """Exercise: ``fn(X, W_q, W_k, W_v)`` returns softmax(Q K^T / sqrt(d_k)) V with Q = X W_q, ...: (n, d_v)."""
    rng = np.random.default_rng(70)
    X = rng.normal(size=(5, 4))  # (n, d_model)
    W_q, W_k, W_v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    got, problem = as_numbers(name, fn, X.copy(), W_q.copy(), W_k.copy(), W_v.copy())
    if problem is not None:
        return problem
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (5, 3), (5, 3), (5, 2)
    expected = softmax(Q @ K.T / math.sqrt(3)) @ V  # (5, 2)
    if close(got, expected):
        return Feedback(
            name,
            True,
            [
                "Every position is a query, a key and a value: the weight matrix is (n, n), "
                "and each output row is a weighted average of the rows of V."
            ],
        )
    if got.shape != expected.shape:
        if got.shape == (5, 5):
            return Feedback(
                name,
                False,
                [
                    "Your result is (n, n) = (5, 5): that is the weight matrix. Multiply it "
                    "by V = X W_v to get one output vector per position."
                ],
            )
        if got.shape == (5, 4):
            return Feedback(
                name,
                False,
                [
                    "Your result has d_model = 4 columns, so it averages X itself. The "
                    "values are V = X W_v, with W_v of shape (4, 2)."
                ],
            )
        return Feedback(
            name, False, [f"With n = 5 positions and W_v of shape (4, 2) the output is (5, 2); got {got.shape}."]
        )
    bad = not_finite(name, got, "Subtract each row's maximum before exp, or use a stable softmax.")
    if bad is not None:
        return bad
    variants = [
        (
            softmax(Q @ K.T) @ V,
            "Scale the scores: divide Q K^T by sqrt(d_k), where d_k = 3 is the width of the queries and keys.",
        ),
        (
            softmax(Q @ K.T / 2.0) @ V,
            "You divided by sqrt(d_model) = sqrt(4); the dot products are between "
            "queries and keys of width d_k = W_q.shape[1] = 3, so divide by sqrt(3).",
        ),
        (
            softmax(Q @ K.T / math.sqrt(3), axis=0) @ V,
            "Your softmax normalised the columns. Each query (a row of "
            "the score matrix) needs weights summing to 1 over the keys: "
            "softmax over the last axis.",
        ),
        (softmax(K @ Q.T / math.sqrt(3)) @ V, "Rows are queries and columns keys: the scores are Q K^T, not K Q^T."),
        (
            softmax(Q @ K.T / math.sqrt(2)) @ V,
            "You divided by sqrt(d_v) = sqrt(2), the width of the values. The "
            "scale belongs to the dot products q . k, whose width is d_k = "
            "W_q.shape[1] = 3: divide by sqrt(3).",
        ),
        (
            softmax(Q @ K.T / 3) @ V,
            "You divided by d_k = 3 itself; divide by its square root. A dot product of two "
            "d_k-wide vectors with independent zero-mean, unit-variance entries has "
            "variance d_k, so sqrt(d_k) is its standard deviation.",
        ),
        (
            softmax(Q @ K.T * math.sqrt(3)) @ V,
            "You multiplied the scores by sqrt(d_k); divide them by it, which "
            "keeps the softmax out of its flat, saturated region.",
        ),
        (
            softmax(Q @ K.T) @ V / math.sqrt(3),
            "You scaled after the softmax: the weights then sum to 1/sqrt(3), not "
            "1, and their relative sizes are unchanged. Divide the scores Q K^T "
            "by sqrt(d_k) before the softmax.",
        ),
        (
            Q @ K.T / math.sqrt(3) @ V,
            "No softmax: the scaled scores themselves weigh the values. Turn each row of "
            "scores into weights with a softmax over the keys first.",
        ),
    ]
    hint = known_mistake(got, variants)
    if hint is not None:
        return Feedback(name, False, [hint])
    return Feedback(
        name,
        False,
        [
            "The shape is right but the numbers are not. Compute Q = X W_q, K = X W_k, "
            "V = X W_v, the scores Q K^T / sqrt(d_k), a softmax over each row, then "
            "weights @ V."
        ],
    )


def _positions(value, what, n):
    """``value`` as a set of positions 0..n-1 (a list, tuple, set, range or integer array), or (None, why not)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        return None, f"{what}: answer with a list of positions such as [3, 5]; got {type(value).__name__}."
    items = list(value)
    positions = set()
    for item in items:
        if (
            isinstance(item, bool)
            or not isinstance(item, (int, np.integer))
            and not (isinstance(item, (float, np.floating)) and float(item).is_integer())
        ):
            return None, f"{what}: positions are whole numbers from 0 to {n - 1}; got {item!r}."
        if not 0 <= int(item) < n:
            return None, f"{what}: positions count from 0 to {n - 1}; got {int(item)}."
        positions.add(int(item))
    return positions, None


def _layer(X, W, mask):
    """One self-attention layer with a residual connection: X + softmax(Q K^T / sqrt(d) masked) V. (n, d)."""
    Q, K, V = X @ W[0], X @ W[1], X @ W[2]  # (n, d) each
    scores = Q @ K.T / math.sqrt(X.shape[1])  # (n, n)
    return X + softmax(scores, mask=mask) @ V


def _changed_outputs(n, changed, layers, window, seed):
    """The output positions that move when token ``changed`` moves, computed with random weights: ``layers``
    residual self-attention layers whose mask lets position i attend to positions i - window + 1, ..., i."""
    rng = np.random.default_rng(seed)
    d = 4
    X = rng.normal(size=(n, d))
    weights = [rng.normal(size=(3, d, d)) / math.sqrt(d) for _ in range(layers)]
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j, (n, n)
    mask = (offset >= 0) & (offset < window)
    X2 = X.copy()
    X2[changed] += rng.normal(size=d)
    out, out2 = X, X2
    for W in weights:
        out, out2 = _layer(out, W, mask), _layer(out2, W, mask)
    moved = np.abs(out - out2).max(axis=1)  # (n,)
    return {i for i in range(n) if moved[i] > 1e-9}


_INFLUENCE_N, _INFLUENCE_CHANGED = 6, 2


@exercise("predict: how far does a change travel?")
def check_causal_influence(name, two_causal_layers, one_window_layer, two_window_layers) -> Feedback:
    """Exercise (predict, then check): the output positions that change when token 2 of 6 changes, after two stacked
    causal self-attention layers, one layer whose mask allows positions i - 1 and i, and two such layers (each layer
    x + Attention(x)). The answer is computed, not stored: each model runs on random weights before and after."""
    n, j = _INFLUENCE_N, _INFLUENCE_CHANGED
    answers = {
        "two_causal_layers": two_causal_layers,
        "one_window_layer": one_window_layer,
        "two_window_layers": two_window_layers,
    }
    if any(unanswered(value) for value in answers.values()):
        return not_attempted(name)
    got = {}
    for what, value in answers.items():
        positions, why = _positions(value, what, n)
        if why is not None:
            return Feedback(name, False, [why])
        got[what] = positions
    truth = {
        "two_causal_layers": _changed_outputs(n, j, 2, n, 0),
        "one_window_layer": _changed_outputs(n, j, 1, 2, 1),
        "two_window_layers": _changed_outputs(n, j, 2, 2, 2),
    }
    if got == truth:
        return Feedback(
            name,
            True,
            [
                f"Two causal layers: {sorted(truth['two_causal_layers'])}; one window layer: "
                f"{sorted(truth['one_window_layer'])}; two: {sorted(truth['two_window_layers'])}. A change travels "
                "forward only, and each layer carries it at most as far as its mask reaches: the causal mask reaches "
                "every later position at once; a window of two, one more position per layer. Stacking never sends it "
                "backwards, so under the causal mask appending a token never changes an earlier position's outputs."
            ],
        )
    hints = []
    for what in answers:
        before = sorted(p for p in got[what] - truth[what] if p < j)
        if before:
            hints.append(
                f"{what}: you included {before}, before position {j}. Query i < {j} attends only to keys "
                f"at positions <= i, none of which is {j}; stacking does not send information backwards: "
                "in the next layer position i again reads only positions <= i, none of which saw the change."
            )
        if j in truth[what] - got[what]:
            hints.append(
                f"{what}: position {j} itself changes: its query may attend to its own key (the mask allows "
                "j = i), and the residual connection carries its own token forward."
            )
        beyond = sorted(p for p in got[what] - truth[what] if p > j)
        if beyond:
            hints.append(
                f"{what}: {beyond} do not change: each layer moves the change at most as far as its mask "
                "reaches, here one position per window layer."
            )
        after = sorted(truth[what] - got[what] - {j})
        if after:
            hints.append(
                f"{what}: {after} change too: each attends, directly or through an earlier layer's output, "
                f"to position {j} with a positive weight (an allowed key's softmax weight is never exactly "
                "0), so the change reaches it."
            )
    return Feedback(name, False, hints)


@exercise("the variance of one head's score q . k")
def check_head_score_variance(name, fn) -> Feedback:
    """Exercise: ``fn(d_model, num_heads, sigma)`` returns Var(q . k) for one head: d_k sigma^4, d_k = d_model/heads."""
    cases = [(64, 8, 1.0), (512, 8, 1.0), (64, 4, 0.5), (96, 3, 2.0)]
    got, problem = one_number_per_case(name, fn, cases, "a variance")
    if problem is not None:
        return problem
    bad = not_finite(name, got, "A variance here is a finite positive number.")
    if bad is not None:
        return bad
    d_model, heads, sigma = (np.array(column, dtype=np.float64) for column in zip(*cases, strict=True))
    d_k = d_model / heads
    expected = d_k * sigma**4
    if np.allclose(got, expected):
        return Feedback(
            name,
            True,
            [
                "Each of the d_k products q_r k_r has mean 0 and variance E[q_r^2] E[k_r^2] = "
                "sigma^4, and they are independent: the variances add up to d_k sigma^4. "
                "So each head divides by sqrt(d_k), not sqrt(d_model)."
            ],
        )
    variants = [
        (
            d_model * sigma**4,
            "A head only sees its own d_k = d_model / num_heads features: its dot product has d_k terms, not d_model.",
        ),
        (
            d_k * sigma**2,
            "Each term q_r k_r is a product of two independent variables of variance sigma^2: its "
            "variance is E[q_r^2] E[k_r^2], a product of the two variances.",
        ),
        (np.sqrt(d_k) * sigma**2, "That is the standard deviation; the question asks for the variance."),
        (d_k, "Right for sigma = 1; now let the components have variance sigma^2."),
        (
            d_model * sigma**2,
            "Two things: a head sees d_k = d_model / num_heads features, and each term is a product "
            "of two independent variables of variance sigma^2.",
        ),
    ]
    for variant, hint in variants:
        if np.allclose(got, variant):
            return Feedback(name, False, [hint])
    return Feedback(
        name,
        False,
        [
            "Write q . k = sum over the head's d_k features of q_r k_r. Find the mean and "
            "variance of one term, then add the variances of independent terms."
        ],
    )


def _as_array(value):
    return to_float_array(value, "Your function's result")


@exercise("split into heads")
def check_split_heads(name, fn) -> Feedback:
    """Exercise: ``fn(x, num_heads)``: (b, n, d_model) -> (b, num_heads, n, d_k), head m gets features m*d_k..."""
    b, n, d_model, heads = 2, 3, 8, 4
    x = np.arange(b * n * d_model, dtype=np.float64).reshape(b, n, d_model)  # every entry distinct
    got, problem = as_numbers(name, fn, x.copy(), heads)
    if problem is not None:
        return problem
    d_k = d_model // heads
    expected = x.reshape(b, n, heads, d_k).transpose(0, 2, 1, 3)  # (b, heads, n, d_k)
    if close(got, expected):
        return Feedback(
            name,
            True,
            [
                "Head m sees features m*d_k ... (m+1)*d_k - 1 of every position: the same "
                "split as torch.nn.MultiheadAttention and the course's MultiHeadAttention."
            ],
        )
    if got.shape == (b, n, heads, d_k):
        return Feedback(
            name,
            False,
            [
                "The features are split correctly, but the head axis must come before the "
                "positions: (b, num_heads, n, d_k). Swap axes 1 and 2."
            ],
        )
    if got.shape != expected.shape:
        return Feedback(
            name,
            False,
            [
                f"x is (b, n, d_model) = {x.shape} and there are {heads} heads: the result "
                f"is (b, num_heads, n, d_k) with d_k = d_model / num_heads; got {got.shape}."
            ],
        )
    if close(got, x.reshape(b, heads, n, d_k)):
        return Feedback(
            name,
            False,
            [
                "A plain reshape to (b, num_heads, n, d_k) mixes positions: a 'head' then "
                "holds pieces of different positions. Reshape to (b, n, num_heads, d_k) "
                "first, then move the head axis forward."
            ],
        )
    if close(got, x.reshape(b, n, d_k, heads).transpose(0, 3, 1, 2)):
        return Feedback(
            name,
            False,
            [
                "Your heads take every num_heads-th feature (strided). That is a split too, "
                "but not the convention: head m gets the contiguous block m*d_k ... "
                "(m+1)*d_k - 1, which is what lets the weights be compared with PyTorch's."
            ],
        )
    return Feedback(
        name,
        False,
        ["Right shape, wrong entries. Reshape (b, n, d_model) to (b, n, num_heads, d_k), then transpose axes 1 and 2."],
    )


@exercise("predict: the tempting reshape")
def check_tempting_reshape(name, positions_in_head_0) -> Feedback:
    """Exercise (predict, then check): which positions' features ``x.reshape(b, num_heads, n, d_k)`` puts in head 0,
    for b = 1, n = 4, d_model = 6 and 2 heads. Computed by labelling every feature with its position."""
    b, n, d_model, num_heads = 1, 4, 6, 2
    positions, why = _positions(positions_in_head_0, "positions_in_head_0", n)
    if why is not None:
        return Feedback(name, False, [why])
    labelled = np.broadcast_to(np.arange(n)[None, :, None], (b, n, d_model))  # each feature holds its position
    head_0 = labelled.reshape(b, num_heads, n, d_model // num_heads)[:, 0]
    truth = {int(p) for p in np.unique(head_0)}
    if positions == truth:
        return Feedback(
            name,
            True,
            [
                f"Positions {sorted(truth)} only. reshape keeps the numbers in memory order: head 0 receives the first "
                f"n d_k = {n * d_model // num_heads} numbers, whole rows of positions {sorted(truth)}, cut into {n} "
                "'positions' of d_k features each. Head 0 never sees the other positions; no error warns you, because "
                "the shape is right. Splitting the last axis (reshape to (b, n, heads, d_k)) and then moving the heads "
                "axis forward keeps every position in every head."
            ],
        )
    if positions == set(range(n)):
        return Feedback(
            name,
            False,
            [
                "Every position in head 0 is what the right split gives (reshape to (b, n, "
                "heads, d_k), then transpose). "
                "This reshape ignores which axis is which: it refills the new shape with the numbers in memory order, "
                "position after position. Count how many numbers head 0 takes, and whose they are."
            ],
        )
    return Feedback(
        name,
        False,
        [
            f"Not {sorted(positions)}. reshape refills the new shape in memory order: write x for b = 1 as the 6 "
            "numbers of position 0, then the 6 of position 1, and so on; reshape to (1, 2, 4, 3) fills head 0 with the "
            "first 4 x 3 numbers in that order. Whose are they?"
        ],
    )


@exercise("predict: reversal without positional encoding")
def check_no_position_prediction(name, prediction) -> Feedback:
    """Exercise: a prediction (0..1) of the exact-match accuracy of the reversal model without positions."""
    if unanswered(prediction):  # pragma: no cover - the decorator already answers this
        return Feedback(name, False, [])
    if callable(prediction):
        return Feedback(name, False, ["Write your prediction as a number between 0 and 1, not a function."])
    array, why = _as_array(prediction)
    if why is not None:
        return Feedback(name, False, [why.replace("Your function's result", "Your prediction")])
    if array.size != 1:
        return Feedback(name, False, [f"Write one number between 0 and 1; got an array of shape {array.shape}."])
    value = float(array.reshape(()))
    if not np.isfinite(value):
        return Feedback(name, False, [f"Your prediction is {value}; write a finite number between 0 and 1."])
    if 1 < value <= 100:
        return Feedback(name, False, ["An accuracy here is a fraction between 0 and 1 (write 0.3 for 30%)."])
    if not 0 <= value <= 1:
        return Feedback(name, False, ["An accuracy lies between 0 and 1."])
    if value <= 0.05:
        return Feedback(
            name,
            True,
            [
                "Without positions the model is permutation-equivariant: the output at a position depends only on "
                "its own digit and on the multiset of digits (which digits, how often each), never on where it stands. "
                "For 8 distinct digits, one answer per digit reverses at most 4! * 2^4 = 384 of the 8! = 40320 orders "
                "of those digits, under 1% of them. Run the next cell to measure it."
            ],
        )
    return Feedback(
        name,
        False,
        [
            "Too optimistic. Permute the input digits: without positional encoding, what happens to the outputs? "
            "Could the model then know which digit belongs first? (Section 2 of this notebook has the test.)"
        ],
    )
