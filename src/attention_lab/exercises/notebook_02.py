"""Exercise checks of notebook 02, from hard to soft attention (reference answers: ``solutions/notebook_02.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import hard_attention, logsumexp, softmax
from .feedback import Feedback, as_numbers, close, exercise

__all__ = ["check_logsumexp", "check_top_k", "check_temperature_for_weight"]


@exercise("the smooth maximum T logsumexp(alpha / T)")
def check_logsumexp(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns T * log sum_i exp(alpha_i / T) for a 1-D alpha, stably."""
    cases = [(np.array([1.0, 2.0, 3.0]), 1.0), (np.array([0.0, 0.5]), 0.25), (np.array([800.0, 799.0]), 1.0)]
    for alpha, temperature in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), temperature)
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


@exercise("top-k hard attention")
def check_top_k(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, k)`` returns top-k hard attention weights (1/k on the k largest scores)."""
    cases = [(np.array([0.1, 0.9, 0.5, 0.3]), 1), (np.array([0.1, 0.9, 0.5, 0.3]), 2), (np.array([2.0, -1.0, 5.0]), 3)]
    for alpha, k in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), k)
        if problem is not None:
            return problem
        expected = hard_attention(alpha, k)
        if close(got, expected):
            continue
        hints = [f"For scores {alpha.tolist()} and k = {k} the weights are {expected.tolist()}, "
                 f"you returned {np.round(got, 4).tolist()}."]
        if got.shape != expected.shape:
            hints.append(f"Return one weight per score, shape {expected.shape}; got {got.shape}.")
        elif close(got, expected * k):
            hints.append("The chosen keys share the attention: each gets 1/k, so the weights still sum to 1.")
        elif close(got, hard_attention(-alpha, k)):
            hints.append("You picked the k smallest scores: sort in descending order (or use np.argsort(-alpha)).")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["1/k on each of the k largest scores, 0 elsewhere."])


@exercise(lambda temperature, scores, target=0.5, tolerance=0.01:
          f"the temperature at which the largest weight is {target:g}")
def check_temperature_for_weight(name, temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    try:
        top = float(softmax(scores, temperature).max())
    except ValueError as error:
        return Feedback(name, False, [str(error)])
    if abs(top - target) <= tolerance:
        return Feedback(name, True, [f"At T = {temperature:g} the largest weight is {top:.3f}."])
    direction = "raise T (more heat spreads the weights)" if top > target else "lower T (colder is more peaked)"
    return Feedback(name, False, [f"At T = {temperature:g} the largest weight is {top:.3f}, not {target:g}: "
                                  f"{direction}."])
