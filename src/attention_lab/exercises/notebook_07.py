"""Exercise checks of notebook 07, self-attention and the Transformer (reference answers: ``solutions/notebook_07.py``).

As everywhere, a check explains a wrong answer in words and never prints the expected numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..normalisers import softmax
from .feedback import Feedback, as_numbers, close, exercise, known_mistake, not_finite, to_float_array, unanswered

__all__ = ["check_self_attention", "check_causal_weights", "check_head_score_variance", "check_split_heads",
           "check_no_position_prediction"]


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
        return Feedback(name, True, ["Every position is a query, a key and a value: the weight matrix is (n, n), "
                                     "and each output row is a weighted average of the rows of V."])
    if got.shape != expected.shape:
        if got.shape == (5, 5):
            return Feedback(name, False, ["Your result is (n, n) = (5, 5): that is the weight matrix. Multiply it "
                                          "by V = X W_v to get one output vector per position."])
        if got.shape == (5, 4):
            return Feedback(name, False, ["Your result has d_model = 4 columns, so it averages X itself. The "
                                          "values are V = X W_v, with W_v of shape (4, 2)."])
        return Feedback(name, False, [f"With n = 5 positions and W_v of shape (4, 2) the output is (5, 2); got "
                                      f"{got.shape}."])
    bad = not_finite(name, got, "Subtract each row's maximum before exp, or use a stable softmax.")
    if bad is not None:
        return bad
    variants = [
        (softmax(Q @ K.T) @ V, "Scale the scores: divide Q K^T by sqrt(d_k), where d_k = 3 is the width of the "
                               "queries and keys."),
        (softmax(Q @ K.T / 2.0) @ V, "You divided by sqrt(d_model) = sqrt(4); the dot products are between "
                                     "queries and keys of width d_k = W_q.shape[1] = 3, so divide by sqrt(3)."),
        (softmax(Q @ K.T / math.sqrt(3), axis=0) @ V, "Your softmax normalised the columns. Each query (a row of "
                                                       "the score matrix) needs weights summing to 1 over the keys: "
                                                       "softmax over the last axis."),
        (softmax(K @ Q.T / math.sqrt(3)) @ V, "Rows are queries and columns keys: the scores are Q K^T, not K Q^T."),
        (softmax(Q @ K.T / math.sqrt(2)) @ V, "You divided by sqrt(d_v) = sqrt(2), the width of the values. The "
                                              "scale belongs to the dot products q . k, whose width is d_k = "
                                              "W_q.shape[1] = 3: divide by sqrt(3)."),
        (softmax(Q @ K.T / 3) @ V, "You divided by d_k = 3 itself; divide by its square root. A dot product of two "
                                   "d_k-wide vectors with independent zero-mean, unit-variance entries has "
                                   "variance d_k, so sqrt(d_k) is its standard deviation."),
        (softmax(Q @ K.T * math.sqrt(3)) @ V, "You multiplied the scores by sqrt(d_k); divide them by it, which "
                                              "keeps the softmax out of its flat, saturated region."),
        (softmax(Q @ K.T) @ V / math.sqrt(3), "You scaled after the softmax: the weights then sum to 1/sqrt(3), not "
                                              "1, and their relative sizes are unchanged. Divide the scores Q K^T "
                                              "by sqrt(d_k) before the softmax."),
        (Q @ K.T / math.sqrt(3) @ V, "No softmax: the scaled scores themselves weigh the values. Turn each row of "
                                     "scores into weights with a softmax over the keys first."),
    ]
    hint = known_mistake(got, variants)
    if hint is not None:
        return Feedback(name, False, [hint])
    return Feedback(name, False, ["The shape is right but the numbers are not. Compute Q = X W_q, K = X W_k, "
                                  "V = X W_v, the scores Q K^T / sqrt(d_k), a softmax over each row, then "
                                  "weights @ V."])


@exercise("causal weights")
def check_causal_weights(name, fn) -> Feedback:
    """Exercise: ``fn(scores)`` turns (n, n) scores into weights where query i reads only keys j <= i."""
    rng = np.random.default_rng(71)
    scores = rng.normal(size=(6, 6)) * 2.0  # (n, n)
    scores[np.triu_indices(6, k=1)] += 5.0  # the future scores high: reading it would be tempting
    got, problem = as_numbers(name, fn, scores.copy())
    if problem is not None:
        return problem
    allowed = np.tril(np.ones((6, 6), dtype=bool))
    expected = softmax(scores, mask=allowed)
    if close(got, expected):
        return Feedback(name, True, ["Row i spreads its weight over keys 0..i only; the first position can read "
                                     "nothing but itself, and nothing ever reads the future."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"Return one weight per (query, key) pair: shape (6, 6), got {got.shape}."])
    bad = not_finite(name, got, "Fill masked scores with -inf (or a very negative number) *before* the softmax and "
                                "keep the diagonal allowed, so that every row has at least one key; exp(-inf) = 0 "
                                "then, with no NaN.")
    if bad is not None:
        return bad
    if close(got, softmax(scores)):
        return Feedback(name, False, ["No mask: every query also reads the keys after it, the tokens it is meant "
                                      "to predict. Keep only j <= i (np.tril)."])
    if close(got, softmax(scores, mask=allowed.T)):
        return Feedback(name, False, ["Your mask is transposed: query i reads keys j >= i, the future. Allowed "
                                      "is the lower triangle, j <= i."])
    if np.allclose(got[0], 0.0) or np.allclose(np.diag(got), 0.0):
        return Feedback(name, False, ["The diagonal must stay allowed: position i may read itself (j <= i, not "
                                      "j < i). Without it the first row has nothing to attend to."])
    if close(got, softmax(scores * allowed)):
        return Feedback(name, False, ["You multiplied the scores by the mask: a masked score becomes 0, not -inf, "
                                      "and exp(0) = 1, so query i still gives the future keys as much weight as a "
                                      "key scored 0. Set the masked scores to -inf before the softmax: "
                                      "np.where(mask, scores, -np.inf)."])
    if close(got, softmax(scores + allowed)):
        return Feedback(name, False, ["You added the mask (1 where allowed, 0 elsewhere) to the scores: that only "
                                      "raises the allowed scores by 1, and the future keys keep a weight. Masked "
                                      "scores must become -inf before the softmax."])
    if close(got, np.where(allowed, softmax(scores), 0.0)):
        return Feedback(name, False, ["You zeroed the future after the softmax, so the rows no longer sum to 1. "
                                      "Mask the scores before the softmax (or renormalise each row)."])
    if np.any(got[~allowed] != 0):
        return Feedback(name, False, ["Some weights above the diagonal are not zero: query i must give exactly "
                                      "no weight to keys j > i."])
    if not _rows_sum_to_one(got):
        return Feedback(name, False, ["Each row must sum to 1 over the keys it may read."])
    return Feedback(name, False, ["The mask looks right but the weights are not a softmax of the allowed "
                                  "scores. Use the scores themselves, unscaled here."])


@exercise("the variance of one head's score q . k")
def check_head_score_variance(name, fn) -> Feedback:
    """Exercise: ``fn(d_model, num_heads, sigma)`` returns Var(q . k) for one head: d_k sigma^4, d_k = d_model/heads."""
    cases = [(64, 8, 1.0), (512, 8, 1.0), (64, 4, 0.5), (96, 3, 2.0)]
    answers = []
    for case in cases:
        got, problem = as_numbers(name, fn, *case)
        if problem is not None:
            return problem
        if got.size != 1:
            return Feedback(name, False, [f"Return one number (a variance), got an array of shape {got.shape}."])
        answers.append(float(got.reshape(())))
    got = np.array(answers)
    bad = not_finite(name, got, "A variance here is a finite positive number.")
    if bad is not None:
        return bad
    d_model, heads, sigma = (np.array(column, dtype=np.float64) for column in zip(*cases, strict=True))
    d_k = d_model / heads
    expected = d_k * sigma**4
    if np.allclose(got, expected):
        return Feedback(name, True, ["Each of the d_k products q_r k_r has mean 0 and variance E[q_r^2] E[k_r^2] = "
                                     "sigma^4, and they are independent: the variances add up to d_k sigma^4. "
                                     "So each head divides by sqrt(d_k), not sqrt(d_model)."])
    variants = [
        (d_model * sigma**4, "A head only sees its own d_k = d_model / num_heads features: its dot product has "
                             "d_k terms, not d_model."),
        (d_k * sigma**2, "Each term q_r k_r is a product of two independent variables of variance sigma^2: its "
                         "variance is E[q_r^2] E[k_r^2], a product of the two variances."),
        (np.sqrt(d_k) * sigma**2, "That is the standard deviation; the question asks for the variance."),
        (d_k, "Right for sigma = 1; now let the components have variance sigma^2."),
        (d_model * sigma**2, "Two things: a head sees d_k = d_model / num_heads features, and each term is a product "
                             "of two independent variables of variance sigma^2."),
    ]
    for variant, hint in variants:
        if np.allclose(got, variant):
            return Feedback(name, False, [hint])
    return Feedback(name, False, ["Write q . k = sum over the head's d_k features of q_r k_r. Find the mean and "
                                  "variance of one term, then add the variances of independent terms."])


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
        return Feedback(name, True, ["Head m sees features m*d_k ... (m+1)*d_k - 1 of every position: the same "
                                     "split as torch.nn.MultiheadAttention and the course's MultiHeadAttention."])
    if got.shape == (b, n, heads, d_k):
        return Feedback(name, False, ["The features are split correctly, but the head axis must come before the "
                                      "positions: (b, num_heads, n, d_k). Swap axes 1 and 2."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"x is (b, n, d_model) = {x.shape} and there are {heads} heads: the result "
                                      f"is (b, num_heads, n, d_k) with d_k = d_model / num_heads; got {got.shape}."])
    if close(got, x.reshape(b, heads, n, d_k)):
        return Feedback(name, False, ["A plain reshape to (b, num_heads, n, d_k) mixes positions: a 'head' then "
                                      "holds pieces of different positions. Reshape to (b, n, num_heads, d_k) "
                                      "first, then move the head axis forward."])
    if close(got, x.reshape(b, n, d_k, heads).transpose(0, 3, 1, 2)):
        return Feedback(name, False, ["Your heads take every num_heads-th feature (strided). That is a split too, "
                                      "but not the convention: head m gets the contiguous block m*d_k ... "
                                      "(m+1)*d_k - 1, which is what lets the weights be compared with PyTorch's."])
    return Feedback(name, False, ["Right shape, wrong entries. Reshape (b, n, d_model) to (b, n, num_heads, d_k), "
                                  "then transpose axes 1 and 2."])


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
        return Feedback(name, True, [
            "Without positions the model is permutation-equivariant: the output at a position depends only on "
            "its own digit and on the multiset of digits (which digits, how often each), never on where it stands. "
            "For 8 distinct digits, one answer per digit reverses at most 4! * 2^4 = 384 of the 8! = 40320 orders "
            "of those digits, under 1% of them. Run the next cell to measure it."])
    return Feedback(name, False, [
        "Too optimistic. Permute the input digits: without positional encoding, what happens to the outputs? "
        "Could the model then know which digit belongs first? (Section 2 of this notebook has the test.)"])
