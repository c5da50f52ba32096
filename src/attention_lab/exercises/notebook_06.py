"""Exercise checks of notebook 06, Bahdanau attention in seq2seq (reference answers: ``solutions/notebook_06.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .feedback import Feedback, as_numbers, close, exercise

__all__ = ["check_context_vectors", "check_general_scores", "check_masked_context"]


@exercise("context vectors c_t")
def check_context_vectors(name, fn) -> Feedback:
    """Exercise: ``fn(weights, states)`` returns c_t = sum_j lambda_tj h_j per output step: (m, n), (n, d) -> (m, d)."""
    states = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [3.0, 1.0, 0.0], [1.0, 1.0, 1.0]])  # h_1..h_4, (4, 3)
    weights = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.8, 0.05, 0.05]])  # step 2 is the source post's example
    got, problem = as_numbers(name, fn, weights.copy(), states.copy())
    if problem is not None:
        return problem
    expected = weights @ states
    if close(got, expected):
        return Feedback(name, True, ["c_2 = 0.1 h_1 + 0.8 h_2 + 0.05 h_3 + 0.05 h_4, and likewise for every step: "
                                     "one weighted average of the encoder states per output step."])
    hints = [f"Expected {expected.tolist()}, got {np.round(got, 4).tolist()}."]
    if got.shape != expected.shape:
        hints.append(f"Weights (2 steps, 4 input tokens) and states (4 tokens, 3 features) give contexts of shape "
                     f"(2, 3); got {got.shape}.")
    elif close(got, np.broadcast_to(states.mean(axis=0), expected.shape)):
        hints.append("That is the plain average of the states: the fixed context c. Weight each h_j by lambda_tj.")
    elif close(got, np.broadcast_to(states.sum(axis=0), expected.shape)):
        hints.append("You summed the states without their weights.")
    return Feedback(name, False, hints)


@exercise("Luong's general score s^T W h_j")
def check_general_scores(name, fn) -> Feedback:
    """Exercise: ``fn(s, H, W)`` returns Luong's general scores s^T W h_j: (d_s,), (n, d_h), (d_s, d_h) -> (n,)."""
    rng = np.random.default_rng(11)
    s, H, W = rng.normal(size=3), rng.normal(size=(5, 4)), rng.normal(size=(3, 4))
    got, problem = as_numbers(name, fn, s.copy(), H.copy(), W.copy())
    if problem is not None:
        return problem
    expected = H @ W.T @ s
    if close(got, expected):
        return Feedback(name, True, ["One score per input token j: s^T W h_j = (W h_j) . s. W lets s and h_j differ "
                                     "in size and learns which directions to compare."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"With 5 encoder states the result is 5 scores, shape (5,); got {got.shape}. "
                                      "s has 3 entries, each h_j 4 and W is (3, 4): compute W h_j, then dot with s."])
    return Feedback(name, False, [f"Expected {np.round(expected, 4).tolist()}, got {np.round(got, 4).tolist()}.",
                                  "score_j = s @ W @ H[j]; for all j at once: H @ W.T @ s."])


@exercise("a batch of contexts with padding masked")
def check_masked_context(name, fn) -> Feedback:
    """Exercise: ``fn(scores, states, lengths)``: a masked softmax over the real tokens, then contexts (batch, d)."""
    rng = np.random.default_rng(12)
    scores = rng.normal(size=(2, 5))  # (batch, n): one decoder step
    scores[0, 3:] = 6.0  # padding with large scores: must still get no weight
    states = rng.normal(size=(2, 5, 3))  # (batch, n, d)
    lengths = np.array([3, 5])
    got, problem = as_numbers(name, fn, scores.copy(), states.copy(), lengths.copy())
    if problem is not None:
        return problem
    mask = np.arange(5)[None, :] < lengths[:, None]
    weights = softmax(scores, mask=mask)
    expected = np.einsum("bn,bnd->bd", weights, states)
    if close(got, expected):
        return Feedback(name, True, ["Padding positions get exactly zero weight, whatever their scores."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"One context per sequence in the batch: shape (2, 3); got {got.shape}."])
    unmasked = np.einsum("bn,bnd->bd", softmax(scores), states)
    if close(got, unmasked):
        return Feedback(name, False, ["Sequence 0 has only 3 real tokens, but your weights reach its padding "
                                      "(positions 3 and 4, with large scores there). Mask them before the softmax."])
    return Feedback(name, False, [f"Expected {np.round(expected, 4).tolist()}, got {np.round(got, 4).tolist()}."])
