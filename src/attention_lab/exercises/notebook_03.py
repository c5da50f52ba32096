"""Exercise checks of notebook 03, Nadaraya-Watson kernel regression (answers: ``solutions/notebook_03.py``)."""

from __future__ import annotations

import numpy as np

from ..kernels import nadaraya_watson
from ..normalisers import softmax
from .feedback import Feedback, as_numbers, close, exercise

__all__ = ["check_gaussian_weights", "check_bandwidth_choice", "check_nearest_neighbour"]


@exercise("Gaussian Nadaraya-Watson weights")
def check_gaussian_weights(name, fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, h)`` returns the (n_q, n_k) Gaussian Nadaraya-Watson weights, stably."""
    cases = [(np.array([0.0, 1.0, 2.5]), np.array([0.0, 0.5, 2.0, 3.0]), 1.0),
             (np.array([1.0, 4.0]), np.array([0.2, 1.1, 1.3, 3.9, 4.4]), 0.3),
             (np.array([40.0]), np.array([0.0, 1.0, 2.0]), 0.1)]
    for xq, xk, h in cases:
        got, problem = as_numbers(name, fn, xq.copy(), xk.copy(), h)
        if problem is not None:
            return problem
        diff2 = (xq[:, None] - xk[None, :]) ** 2
        expected = softmax(-diff2 / (2 * h * h))
        where = f"For queries {xq.tolist()}, keys {xk.tolist()} and h = {h}"
        if got.shape != expected.shape:
            hint = f"{where} the weights have shape (n_queries, n_keys) = {expected.shape}; yours {got.shape}."
            if got.shape == expected.shape[::-1]:
                hint += " You have keys on the rows: queries go on the rows, keys on the columns."
            return Feedback(name, False, [hint])
        if not np.all(np.isfinite(got)):
            return Feedback(name, False, [
                f"{where} you returned {np.round(got, 4).tolist()}.",
                "Far from every key all the kernel values underflow to 0, and 0/0 is NaN. The weights are a "
                "softmax of the scores -(x - x_i)^2 / (2 h^2): subtract each row's largest score first."])
        if close(got, expected):
            continue
        hints = [f"{where} the weights are {np.round(expected, 4).tolist()}, you returned "
                 f"{np.round(got, 4).tolist()}."]
        if close(got, np.full(expected.shape, 1 / xk.size)):
            hints.append("Every weight is 1/n: the denominator must sum K((x - x_j)/h) over all keys j. With x_i "
                         "in the denominator (the slip in the source post) each term cancels itself.")
        elif close(got, expected.T) or close(got, softmax(-diff2 / (2 * h * h), axis=0)):
            hints.append("Your weights sum to 1 down each column (over queries); each query's row must sum to 1.")
        elif not np.allclose(got.sum(axis=-1), 1.0):
            hints.append("The rows do not sum to 1: divide each row by its sum over the keys.")
        elif close(got, softmax(-diff2 / (h * h))):
            hints.append("The factor 2 is missing: the Gaussian kernel is exp(-u^2 / 2) with u = (x - x_i)/h.")
        elif close(got, softmax(-diff2 / (2 * h))):
            hints.append("Divide by h^2, not h: u = (x - x_i)/h is squared.")
        elif close(got, softmax(diff2 / (2 * h * h))):
            hints.append("The sign is flipped: nearby keys must get the largest weight, so the score is "
                         "minus the squared distance.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Rows sum to 1, close keys weigh most, and far queries do not give NaN."])


def _validation_mse(h, x_train, y_train, x_val, y_val, kernel="gaussian"):
    y_hat, _ = nadaraya_watson(x_val, x_train, y_train, bandwidth=h, kernel=kernel)
    return float(np.mean((y_hat - y_val) ** 2))


@exercise("the bandwidth with the smallest held-out error")
def check_bandwidth_choice(name, bandwidth, x_train, y_train, x_val, y_val, tolerance=0.02) -> Feedback:
    """Exercise: a bandwidth whose held-out MSE is within ``tolerance`` (relative) of the best on a fine grid."""
    try:
        h = float(bandwidth)
    except (TypeError, ValueError):
        return Feedback(name, False, [f"Give one number h > 0, got {type(bandwidth).__name__}."])
    if not np.isfinite(h) or h <= 0:
        return Feedback(name, False, [f"h must be a positive number, got {bandwidth!r}."])
    grid = np.geomspace(0.01, 5, 400)
    errors = np.array([_validation_mse(g, x_train, y_train, x_val, y_val) for g in grid])
    best_h, best = float(grid[np.argmin(errors)]), float(errors.min())
    mine = _validation_mse(h, x_train, y_train, x_val, y_val)
    if mine <= best * (1 + tolerance):
        return Feedback(name, True, [f"At h = {h:.3g} the held-out MSE is {mine:.4f}; the best on a fine grid is "
                                     f"{best:.4f} (at h = {best_h:.3g})."])
    if h < best_h:
        why = ("too small: each prediction averages only a few noisy neighbours, so the curve follows the noise "
               "(high variance). Try a larger h.")
    else:
        why = ("too large: the average reaches keys whose f(x_i) differ, so peaks are flattened (high bias). "
               "Try a smaller h.")
    return Feedback(name, False, [f"At h = {h:.3g} the held-out MSE is {mine:.4f}, the best is about {best:.4f}.",
                                  f"Your h is {why}"])


@exercise("the h -> 0 limit: nearest-neighbour regression")
def check_nearest_neighbour(name, fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, y_values)`` returns the h -> 0 limit of Nadaraya-Watson (nearest key's value)."""
    cases = [(np.array([0.1, 1.7, 2.9]), np.array([0.0, 1.0, 2.2, 3.1]), np.array([5.0, 6.0, 7.0, 8.0])),
             (np.array([4.2, 0.0]), np.array([0.4, 3.0, 4.0]), np.array([-1.0, 2.0, 0.5]))]
    for xq, xk, y in cases:
        got, problem = as_numbers(name, fn, xq.copy(), xk.copy(), y.copy())
        if problem is not None:
            return problem
        nearest = np.argmin(np.abs(xq[:, None] - xk[None, :]), axis=1)
        expected = y[nearest]
        if close(got, expected):
            continue
        hints = [f"For queries {xq.tolist()}, keys {xk.tolist()} and values {y.tolist()} the limit is "
                 f"{expected.tolist()}, you returned {np.round(got, 4).tolist()}."]
        if got.shape != expected.shape:
            hints.append(f"Return one prediction per query, shape {expected.shape}; got {got.shape}.")
        elif close(got, nearest.astype(float)):
            hints.append("Those are the indices of the nearest keys; return their values y_i.")
        elif close(got, xk[nearest]):
            hints.append("Those are the nearest keys x_i themselves; return their values y_i.")
        elif close(got, np.full(expected.shape, y.mean())):
            hints.append("That is the h -> infinity limit (average pooling). As h -> 0 all the weight goes to the "
                         "key with the largest score, the nearest one.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["As h -> 0 the softmax becomes one-hot(argmax): each query copies its nearest "
                                 "key's value. A hard attention, just like T -> 0."])
