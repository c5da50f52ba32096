"""Exercise checks of notebook 05, scoring functions and masking (reference answers: ``solutions/notebook_05.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .feedback import Feedback, as_numbers, close, exercise

__all__ = ["check_scaled_dot_weights", "check_masked_softmax", "check_score_spread"]


@exercise("scaled dot-product weights")
def check_scaled_dot_weights(name, fn) -> Feedback:
    """Exercise: ``fn(Q, K)`` returns softmax(Q K^T / sqrt(d)) over the keys: (n_q, d), (n_k, d) -> (n_q, n_k)."""
    rng = np.random.default_rng(5)
    Q, K = rng.normal(size=(3, 16)), rng.normal(size=(5, 16))
    got, problem = as_numbers(name, fn, Q.copy(), K.copy())
    if problem is not None:
        return problem
    expected = softmax(Q @ K.T / 4.0)
    if close(got, expected):
        return Feedback(name, True, ["softmax(Q K^T / sqrt(d)) along the keys, with d = 16."])
    if got.shape != expected.shape:
        hint = f"Queries (3, 16) and keys (5, 16) give weights of shape (3, 5); got {got.shape}."
        if got.shape == (5, 3):
            hint += " Put queries on the rows: Q @ K.T, not K @ Q.T."
        return Feedback(name, False, [hint])
    hints = [f"Expected (row 0) {np.round(expected[0], 3).tolist()}, got {np.round(got[0], 3).tolist()}."]
    if close(got, softmax(Q @ K.T)):
        hints.append("These are unscaled: divide the scores by sqrt(d) before the softmax.")
    elif close(got, softmax(Q @ K.T / 16)):
        hints.append("You divided by d; divide by sqrt(d), which keeps the scores' variance at 1.")
    elif close(got, softmax(Q @ K.T / 4.0, axis=0)):
        hints.append("Normalise over the keys (each row sums to 1), not over the queries.")
    return Feedback(name, False, hints)


@exercise("masked softmax")
def check_masked_softmax(name, fn) -> Feedback:
    """Exercise: ``fn(scores, mask)``: softmax over allowed entries; masked exactly 0; a fully masked row all 0."""
    scores = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 9.0, 1.0], [3.0, 1.0, 2.0, 0.0]])
    mask = np.array([[True, True, False, False], [True, True, True, True], [False, False, False, False]])
    got, problem = as_numbers(name, fn, scores.copy(), mask.copy())
    if problem is not None:
        return problem
    expected = softmax(scores, mask=mask)
    if close(got, expected):
        return Feedback(name, True, ["Masked keys get exactly 0, and the fully masked row is all zeros."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"Return one weight per score, shape {expected.shape}; got {got.shape}."])
    hints = []
    if not np.all(np.isfinite(got)):
        hints.append("The fully masked row (row 2) gives NaN: with every score at -inf, exp gives 0 and 0/0 = NaN. "
                     "Detect rows with nothing allowed and return zeros there.")
    elif np.allclose(got[2], 0.25):
        hints.append("Row 2 has nothing to attend to, yet you spread the weight uniformly (that is what filling "
                     "with a large negative number does). It must be all zeros: no key, no weight.")
    elif np.any(got[~mask] != 0):
        hints.append("Masked entries must be exactly 0; set the masked scores to -inf before exp (or zero them "
                     "and renormalise).")
    elif not np.allclose(got[:2].sum(axis=1), 1.0):
        hints.append("The allowed weights of a row must sum to 1: normalise after masking, not before.")
    hints.append(f"Expected {np.round(expected, 3).tolist()}, got {np.round(got, 3).tolist()}.")
    return Feedback(name, False, hints)


@exercise(lambda answer, d=256: f"the spread of unscaled scores at d = {d}")
def check_score_spread(name, answer, d=256) -> Feedback:
    """Exercise: the standard deviation of q . k for independent standard-normal q, k in d dimensions (sqrt(d))."""
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return Feedback(name, False, [f"Give one number, got {type(answer).__name__}."])
    expected = float(np.sqrt(d))
    if abs(value - expected) < 0.01 * expected:
        return Feedback(name, True, [f"Var(q . k) = sum of d variances of q_j k_j = d, so the std is sqrt({d}) = "
                                     f"{expected:g}. Dividing by sqrt(d) brings it back to 1."])
    if abs(value - d) < 1e-6:
        return Feedback(name, False, [f"{d} is the variance; the standard deviation is its square root."])
    if abs(value - 1.0) < 1e-6:
        return Feedback(name, False, ["1 is the spread after dividing by sqrt(d); the question is about q . k itself."])
    return Feedback(name, False, [f"Not {value:g}. Each product q_j k_j has mean 0 and variance 1, and the d "
                                  "products are independent: what is the variance of their sum?"])
