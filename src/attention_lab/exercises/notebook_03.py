"""Exercise checks of notebook 03, Nadaraya-Watson kernel regression (answers: ``solutions/notebook_03.py``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..kernels import loo_bandwidth, nadaraya_watson
from ..normalisers import softmax
from .feedback import (
    Feedback,
    as_numbers,
    close,
    exercise,
    named_shift,
    not_attempted,
    to_float_array,
    unanswered,
)

__all__ = [
    "check_gaussian_weights",
    "check_bandwidth_choice",
    "check_small_h_limit",
    "check_bandwidth_rate",
    "check_noise_prediction",
]


_ORDINARY_NOT_FINITE = (
    "For these inputs every query has keys nearby, so every weight is an ordinary number between 0 "
    "and 1. Print your intermediate arrays (the scores, their exponentials, the row sums) to see "
    "where the NaN or inf first appears."
)


@exercise("Gaussian Nadaraya-Watson weights")
def check_gaussian_weights(name, fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, h)`` returns the (n_q, n_k) Gaussian Nadaraya-Watson weights, stably.

    The first two cases are ordinary (queries near the keys); the last puts a query far from every key, where the
    naive ratio underflows to 0/0, alone and then next to a query near the keys, so that a shift by the largest
    score of the whole array (not of each row) underflows too. A NaN or inf is blamed on the shift only there, after the
    ordinary cases passed, and the known wrong shifts are named (``feedback.shift_mistakes``).
    """
    cases = [
        (np.array([0.0, 1.0, 2.5]), np.array([0.0, 0.5, 2.0, 3.0]), 1.0, False),
        (np.array([1.0, 4.0]), np.array([0.2, 1.1, 1.3, 3.9, 4.4]), 0.3, False),
        (np.array([40.0, -40.0]), np.array([2.0, 0.0, 1.0]), 0.1, True),
        (np.array([0.5, 40.0]), np.array([2.0, 0.0, 1.0]), 0.1, True),
    ]
    for xq, xk, h, far in cases:
        got, problem = as_numbers(
            name, fn, xq.copy(), xk.copy(), h, finite_advice=None if far else _ORDINARY_NOT_FINITE
        )
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
        if close(got, expected):
            continue
        named = named_shift(got, -diff2 / (2 * h * h))
        if far and (named is not None or not np.all(np.isfinite(got))):  # the ordinary cases passed already
            return Feedback(
                name,
                False,
                [
                    f"{where} (far from every key) you returned {np.round(got, 4).tolist()}, although "
                    "your weights were right for the queries near the keys.",
                    named
                    or "Far from every key all the kernel values underflow to 0, and 0/0 is NaN. The weights "
                    "are a softmax of the scores -(x - x_i)^2 / (2 h^2): subtract each row's largest score "
                    "first.",
                ],
            )
        hints = [f"{where} you returned {np.round(got, 4).tolist()}: these are not the Gaussian weights."]
        if named is not None:
            hints.append(named)
        elif close(got, np.full(expected.shape, 1 / xk.size)):
            hints.append(
                "Every weight is 1/n: the denominator must sum kappa((x - x_j)/h) over all keys j. With "
                "x_i in the denominator (the slip in the original post) the denominator is "
                "n kappa((x - x_i)/h), n times the numerator, so every weight is 1/n."
            )
        elif close(got, expected.T) or close(got, softmax(-diff2 / (2 * h * h), axis=0)):
            hints.append("Your weights sum to 1 down each column (over queries); each query's row must sum to 1.")
        elif not np.allclose(got.sum(axis=-1), 1.0):
            hints.append("The rows do not sum to 1: divide each row by its sum over the keys.")
        elif close(got, softmax(-diff2 / (h * h))):
            hints.append("The factor 2 is missing: the Gaussian kernel is exp(-u^2 / 2) with u = (x - x_i)/h.")
        elif close(got, softmax(-diff2 / (2 * h))):
            hints.append("Divide by h^2, not h: u = (x - x_i)/h is squared.")
        elif close(got, softmax(diff2 / (2 * h * h))):
            hints.append(
                "The sign is flipped: nearby keys must get the largest weight, so the score is "
                "minus the squared distance."
            )
        elif far:
            hints.append(
                "Your weights were right for the queries near the keys but not for this far one: subtract "
                "each row's largest score, not a fixed number, before taking exponentials."
            )
        else:
            hints.append(
                "The rows sum to 1, but the weights are off: check the score -(x - x_i)^2 / (2 h^2) term by "
                "term (the square, the h, the sign), and that the nearest key gets the largest weight."
            )
        return Feedback(name, False, hints)
    return Feedback(
        name,
        True,
        [
            "Rows sum to 1, close keys weigh most, and a query far from every key gives no "
            "NaN, also next to a query near the keys."
        ],
    )


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
        return Feedback(
            name,
            True,
            [
                f"At h = {h:.3g} the held-out MSE is {mine:.4f}; the best on a fine grid is "
                f"{best:.4f} (at h = {best_h:.3g})."
            ],
        )
    if h < best_h:
        why = (
            "too small: each prediction averages only a few noisy neighbours, so the curve follows the noise "
            "(high variance). Try a larger h."
        )
    else:
        why = (
            "too large: the average reaches keys whose f(x_i) differ, so peaks are flattened (high bias). "
            "Try a smaller h."
        )
    return Feedback(
        name,
        False,
        [f"At h = {h:.3g} the held-out MSE is {mine:.4f}, the best is about {best:.4f}.", f"Your h is {why}"],
    )


@exercise("the limit h -> 0, ties included")
def check_small_h_limit(name, fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, y_values)`` returns the h -> 0 limit of Gaussian Nadaraya-Watson.

    As h -> 0 the weights go to the keys at the smallest distance |x - x_i|, in equal shares (their scores are equal
    at every h): one key, or several when a query lies midway between two keys or keys repeat. The first case has no
    ties, so the ordinary mistakes are named there; the next two have ties, where a plain argmin picks one key.
    """
    cases = [
        (np.array([0.1, 1.7, 2.9]), np.array([0.0, 1.0, 2.2, 3.1]), np.array([5.0, 6.0, 7.0, 8.0]), False),
        (np.array([1.5, 0.25, 4.2]), np.array([1.0, 2.0, 0.0, 4.0]), np.array([2.0, 6.0, -1.0, 0.5]), True),
        (np.array([3.0, 2.0, 3.3]), np.array([1.0, 3.2, 3.2, 3.0, 1.0]), np.array([-1.0, 2.0, 5.0, 0.0, 4.0]), True),
    ]
    advice = (
        "The limit needs only distances, a comparison and an average of a few values: nothing can overflow or "
        "divide by zero. A kernel or exponential left in your code underflows to 0 at a tiny h, and 0/0 is "
        "NaN."
    )
    for xq, xk, y, ties in cases:
        got, problem = as_numbers(name, fn, xq.copy(), xk.copy(), y.copy(), finite_advice=advice)
        if problem is not None:
            return problem
        distance = np.abs(xq[:, None] - xk[None, :])  # (n_q, n_k)
        tied = distance == distance.min(axis=1, keepdims=True)  # exact: equal distances are computed identically
        expected = (tied * y).sum(axis=1) / tied.sum(axis=1)
        if close(got, expected):
            continue
        where = f"For queries {xq.tolist()}, keys {xk.tolist()} and values {y.tolist()}"
        if got.shape != expected.shape:
            return Feedback(
                name, False, [f"{where} return one prediction per query, shape {expected.shape}; got {got.shape}."]
            )
        hints = [f"{where} you returned {np.round(got, 4).tolist()}: not the h -> 0 limit."]
        nearest = np.argmin(distance, axis=1)
        nearest_last = xk.size - 1 - np.argmin(distance[:, ::-1], axis=1)
        if close(got, nearest.astype(float)):
            hints.append("Those are the indices of the nearest keys; return their values y_i.")
        elif close(got, xk[nearest]):
            hints.append("Those are the nearest keys x_i themselves; return their values y_i.")
        elif close(got, np.full(expected.shape, y.mean())):
            hints.append(
                "That is the h -> infinity limit (average pooling). As h -> 0 all the weight goes to the "
                "keys with the largest score, the nearest."
            )
        elif ties and (
            close(got, y[nearest]) or close(got, y[nearest_last]) or np.all(np.isin(got[tied.sum(axis=1) > 1], y))
        ):
            at = xq[tied.sum(axis=1) > 1].tolist()
            first = " (np.argmin returns the first)" if close(got, y[nearest]) else ""
            hints.append(
                f"The queries {at} have two or more keys at the same smallest distance, and you gave the "
                f"value of one of them{first}. Tied keys have equal scores at every h, "
                "so equal weights, and they share the weight as h -> 0: the limit is the average of their "
                "values."
            )
        elif not ties and np.all(np.isin(got, y)):
            wrong = xq[got != expected].tolist()
            hints.append(
                f"Each answer is one of the values, but for the queries {wrong} not that of the key "
                "closest to the query: nearest means the smallest |x - x_i|, on either side."
            )
        elif not ties:
            hints.append(
                "Without ties each weight row becomes one-hot as h -> 0: each prediction is one of the "
                "values y_i, unchanged. Some of yours are not values at all."
            )
        else:
            hints.append(
                "Your predictions are right where one key is nearest; check the queries with several keys at "
                "the same smallest distance: they share the weight equally, and so their values."
            )
        return Feedback(name, False, hints)
    return Feedback(
        name,
        True,
        [
            "As h -> 0 the softmax goes to the keys with the largest score, the nearest, in equal "
            "shares: one-hot at a single nearest key, an average of the values where keys tie. A "
            "hard attention, just like T -> 0, which splits ties the same way."
        ],
    )


def _one_number(value, what):
    """``value`` as one float (numbers, 0-d arrays, tensors, or a string such as "-1/5"), or (None, why not)."""
    if isinstance(value, str):
        try:
            return float(Fraction(value.replace(" ", ""))), None
        except (ValueError, ZeroDivisionError):
            return None, f"{what} is the text {value!r}; write a number such as 0.5 or a fraction such as 1/2."
    array, why = to_float_array(value, what)
    if why is not None:
        return None, why
    if array.size != 1:
        return None, f"{what} should be one number, got {array.size} numbers (shape {array.shape})."
    number = float(array.reshape(()))
    if not np.isfinite(number):
        return None, f"{what} is {number}; give a finite number."
    return number, None


def _near(a, b, tol=0.01):
    return abs(a - b) <= tol


@exercise("how fast the best bandwidth shrinks with n")
def check_bandwidth_rate(name, h_exponent, error_exponent) -> Feedback:
    """Exercise: the exponents r_h and r_e in h* ~ n^r_h and error(h*) ~ n^r_e for error(h) = A h^4 + B / (n h)."""
    if unanswered(error_exponent):
        return not_attempted(name)
    a, why_a = _one_number(h_exponent, "The exponent of h*")
    b, why_b = _one_number(error_exponent, "The exponent of the error")
    if why_a or why_b:
        return Feedback(name, False, [why for why in (why_a, why_b) if why])
    hints = []
    if _near(a, -0.2):
        hints.append("The exponent of h* is right.")
    elif _near(a, 0.2):
        hints.append(
            "With a positive exponent h* would grow with n. With more data each query finds enough keys "
            "closer by, so the best h shrinks: check the sign."
        )
    elif _near(a, -1 / 3):
        hints.append(
            "That balances h^2 against 1/(n h). The bias is of order h^2, but the error adds its square, of order h^4."
        )
    elif _near(a, -0.25):
        hints.append(
            "That comes from h^4 ~ 1/n: one power of h too few. Set the derivative of A h^4 + B/(n h) to "
            "zero and count the powers of h on each side: B/(n h) = (B/n) h^(-1) has the derivative "
            "-(B/n) h^(-2), not -(B/n) h^(-1)."
        )
    elif _near(a, -5) or _near(a, 5):
        hints.append("That solves for n as a power of h; the question asks for h as a power of n.")
    elif _near(a, -1):
        hints.append(
            "h ~ 1/n would keep n h, proportional to the number of keys within one bandwidth, fixed: the "
            "variance B/(n h) would never shrink."
        )
    else:
        hints.append(
            f"h* ~ n^{a:g} is not what A h^4 + B/(n h) gives. Differentiate with respect to h, set the "
            "derivative to zero, and solve for h: h to some power equals a constant over n."
        )
    if _near(b, -0.8):
        hints.append("The exponent of the error is right.")
    elif _near(b, a) and not _near(b, -0.8):
        hints.append(
            "The error exponent equals your h* exponent: put h* back into A h^4 + B/(n h); both terms "
            "then scale with the same power of n, and it is not the power of h* itself."
        )
    elif _near(b, -1):
        hints.append(
            "1/n is the rate without any bias (the parametric rate). Here the bias term slows it down: put "
            "h* back into A h^4 + B/(n h)."
        )
    elif _near(b, 0.8):
        hints.append("A positive exponent would make the error grow with more data: check the sign.")
    elif _near(b, -0.4):
        hints.append("That is how the bias h*^2 shrinks; the error holds the squared bias, h*^4.")
    else:
        hints.append(f"error ~ n^{b:g} does not follow from putting h* back into A h^4 + B/(n h).")
    passed = _near(a, -0.2) and _near(b, -0.8)
    if passed:
        hints = [
            "h* ~ n^(-1/5) and the error ~ n^(-4/5): doubling the data shrinks h* by the factor 2^(-1/5) = "
            f"{2**-0.2:.3f} and the error by 2^(-4/5) = {2**-0.8:.3f}. Compare with the slopes measured "
            "below."
        ]
    return Feedback(name, passed, hints)


_CHOICES = {"larger": "larger", "smaller": "smaller", "same": "the same", "the same": "the same"}


@exercise("predict, then check: more noise, which bandwidth?")
def check_noise_prediction(name, prediction, h_noisy, x_train, y_noisy, h_calm) -> Feedback:
    """Exercise: predict how the leave-one-out h changes when the noise doubles, then measure it.

    ``prediction`` is "larger", "smaller" or "the same"; ``h_noisy`` the student's leave-one-out bandwidth on
    ``(x_train, y_noisy)``; ``h_calm`` the one on the same inputs with the original noise.
    """
    if not isinstance(prediction, str) or prediction.strip().lower() not in _CHOICES:
        return Feedback(
            name,
            False,
            [
                'Write your prediction as one of the words "larger", "smaller" or '
                f'"the same", in quotes; got {prediction!r}.'
            ],
        )
    said = _CHOICES[prediction.strip().lower()]
    if unanswered(h_noisy):
        return Feedback(
            name, False, [f"Prediction recorded: {said}. Now measure h_noisy and run the cell again."], attempted=False
        )
    h, why = _one_number(h_noisy, "h_noisy")
    if why is not None:
        return Feedback(name, False, [why])
    if h <= 0:
        return Feedback(name, False, [f"A bandwidth is positive; got h_noisy = {h:g}."])
    measured = loo_bandwidth(x_train, y_noisy)
    if abs(h - measured) > 0.03 * measured:
        hints = [f"h_noisy = {h:.3g} is not the leave-one-out choice on the noisy data set."]
        if abs(h - h_calm) <= 0.03 * h_calm:
            hints.append("It is the calm data set's bandwidth: use the noisy targets, noisy.y_train.")
        else:
            hints.append("Compute it as in section 4, with al.loo_bandwidth on noisy.x_train and noisy.y_train.")
        return Feedback(name, False, hints)
    ratio = measured / h_calm
    truth = "larger" if ratio > 1.05 else "smaller" if ratio < 1 / 1.05 else "the same"
    reason = (
        "Doubling the noise multiplies the variance term sigma^2 / (n h) by 4 and leaves the bias alone, so "
        "the balance moves to where averaging more keys pays: a wider kernel. The asymptotic formula "
        "h* ~ sigma^(2/5) n^(-1/5) says by 2^(2/5) = "
        f"{2**0.4:.2f}"
        "; one data set's leave-one-out "
        "choice scatters around that."
    )
    if said == truth:
        return Feedback(
            name,
            True,
            [f"Measured: h went from {h_calm:.3g} to {measured:.3g}, a factor {ratio:.2f}, as you predicted. {reason}"],
        )
    return Feedback(
        name,
        False,
        [
            f"You predicted {said}; the measurement says h went from {h_calm:.3g} to "
            f"{measured:.3g} (a factor {ratio:.2f}).",
            "Think it through with the bias-variance picture of section 4: which of the two "
            "terms does the noise level change, and which way does that move the best h?",
        ],
    )
