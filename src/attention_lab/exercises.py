"""Exercise checks: run a student's answer against the reference and say in words what is wrong.

Each ``check_*`` function returns a :class:`Feedback` that shows as a short report in the notebook. It
never raises on a wrong answer, so a notebook with unfinished exercises still runs top to bottom. An
exercise stub whose body is ``...`` returns None, which reads as "not attempted yet".
"""

from __future__ import annotations

import numpy as np

from .normalisers import hard_attention, logsumexp, softmax

__all__ = [
    "Feedback",
    "check_softmax",
    "check_weighted_average",
    "check_scores_for_weights",
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
]


class Feedback:
    """The verdict on one exercise: ``passed`` and the reasons, shown as Markdown in a notebook."""

    def __init__(self, exercise: str, passed: bool, messages: list[str], attempted: bool = True):
        self.exercise = exercise
        self.passed = passed
        self.attempted = attempted
        self.messages = messages

    def __bool__(self):
        return self.passed

    def _status(self):
        if not self.attempted:
            return "✏️ not attempted yet"
        return "✅ correct" if self.passed else "❌ not yet"

    def __repr__(self):
        return f"{self.exercise}: {self._status()}\n" + "\n".join(f"  - {m}" for m in self.messages)

    def _repr_markdown_(self):
        return f"**{self.exercise}: {self._status()}**\n\n" + "\n".join(f"- {m}" for m in self.messages)


def _not_attempted(exercise):
    return Feedback(exercise, False, ["Replace the `...` with your code, then run the cell again."], attempted=False)


def _call(exercise, fn, *args):
    """Run the student's function; a crash or a None result becomes feedback instead of an exception."""
    try:
        result = fn(*args)
    except Exception as error:  # noqa: BLE001 - any error in student code becomes feedback
        return None, Feedback(exercise, False, [f"Your function raised {type(error).__name__}: {error}"])
    if result is None or result is Ellipsis:
        return None, _not_attempted(exercise)
    try:
        return np.asarray(result, dtype=np.float64), None
    except (TypeError, ValueError):
        return None, Feedback(exercise, False, [f"Your function returned {type(result).__name__}, not numbers."])


def _close(a, b, atol=1e-6):
    return a.shape == np.shape(b) and np.allclose(a, b, atol=atol, equal_nan=False)


def check_softmax(fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns softmax(alpha / T) along the last axis, stably."""
    name = "softmax with temperature"
    cases = [
        (np.array([1.0, 2.0, 3.0]), 1.0),
        (np.array([0.5, -1.0, 2.0, 0.0]), 0.5),
        (np.array([[1.0, 2.0], [3.0, 3.0]]), 2.0),
        (np.array([1000.0, 1001.0, 999.0]), 1.0),
    ]
    for alpha, temperature in cases:
        got, problem = _call(name, fn, alpha.copy(), temperature)
        if problem is not None:
            return problem
        expected = softmax(alpha, temperature)
        if got.shape != expected.shape:
            return Feedback(name, False, [f"For scores of shape {alpha.shape} the weights must have the same shape "
                                          f"(one weight per score); got shape {got.shape}."])
        if not np.all(np.isfinite(got)):
            return Feedback(name, False, [
                f"For scores {alpha.tolist()} you returned {got.tolist()}.",
                "exp(1000) overflows to inf, and inf / inf is NaN. Subtract the largest score first: "
                "softmax(alpha) = softmax(alpha - max(alpha)), and then every exponent is <= 0."])
        if _close(got, expected):
            continue
        hints = [f"For scores {alpha.tolist()} at T = {temperature} the weights should be "
                 f"{np.round(expected, 4).tolist()}, you returned {np.round(got, 4).tolist()}."]
        if np.any(got < 0):
            hints.append("Some weights are negative; exp(.) is always positive.")
        elif alpha.ndim == 2 and np.isclose(got.sum(), 1.0):
            hints.append("All weights together sum to 1, but each row must: normalise along the last axis "
                         "(sum(..., axis=-1, keepdims=True)).")
        elif not np.allclose(got.sum(axis=-1), 1.0):
            hints.append(f"Each row of weights must sum to 1; yours sum to {np.round(got.sum(axis=-1), 4).tolist()}.")
        elif _close(got, softmax(alpha, 1.0)):
            hints.append("This is softmax(alpha) at T = 1: divide the scores by the temperature first.")
        elif _close(got, softmax(alpha * temperature, 1.0)):
            hints.append("You multiplied the scores by T; softmax(alpha / T) divides by it.")
        elif np.all(alpha > 0) and _close(got, alpha / alpha.sum(axis=-1, keepdims=True)):
            hints.append("This is alpha / sum(alpha), a plain normalisation: softmax exponentiates first.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Rows sum to 1, the temperature is used, and huge scores do not overflow."])


def check_weighted_average(fn) -> Feedback:
    """Exercise: ``fn(weights, values)`` returns sum_i lambda_i v_i for every query: (n_q, n) x (n, d) -> (n_q, d)."""
    name = "weighted average of the values"
    rng = np.random.default_rng(7)
    weights = softmax(rng.normal(size=(3, 4)))  # (n_q=3, n_keys=4)
    values = rng.normal(size=(4, 2))  # (n_keys=4, d_v=2)
    got, problem = _call(name, fn, weights.copy(), values.copy())
    if problem is not None:
        return problem
    expected = weights @ values
    if _close(got, expected):
        return Feedback(name, True, ["output[q] = sum_i weights[q, i] * values[i], for every query q."])
    hints = []
    if got.shape != expected.shape:
        hints.append(f"With weights of shape {weights.shape} (queries x keys) and values of shape {values.shape} "
                     f"(keys x value dimension) the output has shape {expected.shape}; yours has {got.shape}.")
    if got.shape == (values.shape[1],) or _close(got, np.broadcast_to(values.mean(axis=0), expected.shape)):
        hints.append("That looks like one plain average of the values; every query has its own weights.")
    if _close(got, np.broadcast_to(values.sum(axis=0), expected.shape)):
        hints.append("You summed the values without weighting them by lambda_i.")
    if not hints:
        hints.append(f"Expected {np.round(expected, 3).tolist()}, got {np.round(got, 3).tolist()}. "
                     "Multiply each value v_i by its weight lambda_i and add up over i (that is weights @ values).")
    return Feedback(name, False, hints)


def check_scores_for_weights(scores, target=(0.1, 0.8, 0.05, 0.05)) -> Feedback:
    """Exercise: give scores alpha whose softmax is ``target``."""
    name = "scores that give the weights " + " / ".join(f"{t:g}" for t in target)
    target = np.asarray(target, dtype=np.float64)
    if scores is None or scores is Ellipsis:
        return _not_attempted(name)
    alpha = np.asarray(scores, dtype=np.float64)
    if alpha.shape != target.shape:
        return Feedback(name, False, [f"Give one score per key: {target.size} numbers, got shape {alpha.shape}."])
    got = softmax(alpha)
    if _close(got, target, atol=1e-4):
        return Feedback(name, True, [f"softmax({np.round(alpha, 3).tolist()}) = {np.round(got, 4).tolist()}. "
                                     "Any constant added to every score gives the same weights."])
    hints = [f"softmax of your scores is {np.round(got, 4).tolist()}, not {target.tolist()}."]
    if _close(alpha, target, atol=1e-4):
        hints.append("You gave the weights themselves. softmax exponentiates: which scores have exp(alpha_i) "
                     "proportional to lambda_i? (Think log.)")
    elif np.all(np.argsort(alpha) == np.argsort(target)):
        hints.append("The order is right but the gaps are not: the ratio of two weights is exp(alpha_i - alpha_j).")
    return Feedback(name, False, hints)


def check_logsumexp(fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns T * log sum_i exp(alpha_i / T) for a 1-D alpha, stably."""
    name = "the smooth maximum T logsumexp(alpha / T)"
    cases = [(np.array([1.0, 2.0, 3.0]), 1.0), (np.array([0.0, 0.5]), 0.25), (np.array([800.0, 799.0]), 1.0)]
    for alpha, temperature in cases:
        got, problem = _call(name, fn, alpha.copy(), temperature)
        if problem is not None:
            return problem
        expected = float(logsumexp(alpha, temperature))
        if got.shape != ():
            return Feedback(name, False, [f"Return one number (the smooth max of the scores), got shape {got.shape}."])
        if not np.isfinite(got):
            return Feedback(name, False, [f"For scores {alpha.tolist()} you returned {float(got)}: exp(800) overflows.",
                                          "Pull the max out: logsumexp(alpha) = m + log sum exp(alpha - m), "
                                          "m = max(alpha)."])
        if abs(float(got) - expected) < 1e-6:
            continue
        hints = [f"For scores {alpha.tolist()} at T = {temperature} the answer is {expected:.6f}, "
                 f"you returned {float(got):.6f}."]
        if abs(float(got) - alpha.max()) < 1e-9:
            hints.append("That is the hard max, the T -> 0 limit; the smooth max is a little larger.")
        elif abs(float(got) - expected / temperature) < 1e-6:
            hints.append("You forgot the factor T in front of the log.")
        elif abs(float(got) - float(logsumexp(alpha, 1.0))) < 1e-6:
            hints.append("The temperature is ignored: divide the scores by T inside exp, multiply the log by T.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Correct, at every temperature, and stable for large scores."])


def check_top_k(fn) -> Feedback:
    """Exercise: ``fn(alpha, k)`` returns top-k hard attention weights (1/k on the k largest scores)."""
    name = "top-k hard attention"
    cases = [(np.array([0.1, 0.9, 0.5, 0.3]), 1), (np.array([0.1, 0.9, 0.5, 0.3]), 2), (np.array([2.0, -1.0, 5.0]), 3)]
    for alpha, k in cases:
        got, problem = _call(name, fn, alpha.copy(), k)
        if problem is not None:
            return problem
        expected = hard_attention(alpha, k)
        if _close(got, expected):
            continue
        hints = [f"For scores {alpha.tolist()} and k = {k} the weights are {expected.tolist()}, "
                 f"you returned {np.round(got, 4).tolist()}."]
        if got.shape != expected.shape:
            hints.append(f"Return one weight per score, shape {expected.shape}; got {got.shape}.")
        elif _close(got, expected * k):
            hints.append("The chosen keys share the attention: each gets 1/k, so the weights still sum to 1.")
        elif _close(got, hard_attention(-alpha, k)):
            hints.append("You picked the k smallest scores: sort in descending order (or use np.argsort(-alpha)).")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["1/k on each of the k largest scores, 0 elsewhere."])


def check_temperature_for_weight(temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    name = f"the temperature at which the largest weight is {target:g}"
    if temperature is None or temperature is Ellipsis:
        return _not_attempted(name)
    try:
        top = float(softmax(scores, temperature).max())
    except ValueError as error:
        return Feedback(name, False, [str(error)])
    if abs(top - target) <= tolerance:
        return Feedback(name, True, [f"At T = {temperature:g} the largest weight is {top:.3f}."])
    direction = "raise T (more heat spreads the weights)" if top > target else "lower T (colder is more peaked)"
    return Feedback(name, False, [f"At T = {temperature:g} the largest weight is {top:.3f}, not {target:g}: "
                                  f"{direction}."])
