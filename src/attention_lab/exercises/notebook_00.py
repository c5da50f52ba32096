"""Exercise check of the start page, notebook 00 (reference answer: ``solutions/notebook_00.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .feedback import Feedback, exercise, to_float_array

__all__ = ["check_uniform_temperature"]


@exercise("the temperature that makes every weight equal")
def check_uniform_temperature(name, temperature, scores=(1.2, 3.0, 0.5, 2.6, -0.8, 1.9)) -> Feedback:
    """Exercise: the temperature T at which softmax(alpha / T) is exactly uniform, whatever the scores (T = inf)."""
    value, why = to_float_array(temperature, "Your temperature")
    if why is not None:
        return Feedback(name, False, [why + " Give one number (np.inf is a number)."])
    if value.shape != ():
        return Feedback(name, False, [f"Give one number, not {value.size} of them."])
    t = float(value)
    alpha = np.asarray(scores, dtype=np.float64)
    n = alpha.size
    if np.isnan(t):
        return Feedback(name, False, ["NaN is not a temperature: give a number >= 0 (np.inf is allowed)."])
    if t == np.inf:
        return Feedback(name, True, [f"As T -> infinity every alpha_i / T -> 0, so every weight tends to 1/{n}: "
                                     "average pooling, which ignores the query."])
    if t < 0:
        return Feedback(name, False, ["A negative temperature flips the order: the lowest score would get the most "
                                      "weight. Temperatures are >= 0."])
    if t == 0:
        return Feedback(name, False, ["T = 0 is the other end: all the weight goes to the largest score (a hard "
                                      "lookup). Move the slider to the opposite end."])
    top = float(softmax(alpha, t).max())
    return Feedback(name, False, [f"At T = {t:g} the largest weight is {top:.4f}, not exactly 1/{n} = {1 / n:.4f}: "
                                  "at any finite T the scores still matter a little. Which limit removes them?"])
