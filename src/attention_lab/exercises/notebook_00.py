"""Exercise check of the start page, notebook 00 (reference answer: ``solutions/notebook_00.py``)."""

from __future__ import annotations

import numpy as np

from .feedback import Feedback, exercise, to_float_array

__all__ = ["check_uniform_temperature"]


@exercise("the temperature that makes every weight equal")
def check_uniform_temperature(name, temperature, scores=(1.2, 3.0, 0.5, 2.6, -0.8, 1.9)) -> Feedback:
    """Exercise: the temperature T at which softmax(alpha / T) is exactly uniform for scores that are not all equal
    (the limit T -> infinity); at every finite T > 0 the weight ratios exp((alpha_i - alpha_j) / T) differ from 1."""
    value, why = to_float_array(temperature, "Your temperature")
    if why is not None:
        return Feedback(name, False, [why + " Give one number (np.inf is a number)."])
    if value.shape != ():
        return Feedback(name, False, [f"Give one number, not {value.size} of them."])
    t = float(value)
    alpha = np.asarray(scores, dtype=np.float64)
    n = alpha.size
    if n == 0 or not np.all(np.isfinite(alpha)):
        return Feedback(name, False, ["The scores must be finite numbers: run the cells above first."])
    if np.isnan(t):
        return Feedback(name, False, ["NaN is not a temperature: give a number >= 0 (np.inf is allowed)."])
    if t == np.inf:
        return Feedback(
            name,
            True,
            [
                f"As T -> infinity every alpha_i / T -> 0, so every weight tends to 1/{n}: "
                "average pooling, which ignores the query."
            ],
        )
    if t < 0:
        return Feedback(
            name,
            False,
            [
                "A negative temperature flips the order: the lowest score would get the most "
                "weight. Temperatures are >= 0."
            ],
        )
    if t == 0:
        return Feedback(
            name,
            False,
            [
                "T = 0 is the other end: all the weight goes to the largest score (a hard "
                "lookup). Move the slider to the opposite end."
            ],
        )
    if alpha.max() == alpha.min():
        return Feedback(name, True, ["These scores are all equal, so every temperature gives equal weights."])
    # largest weight / smallest weight = exp((max alpha - min alpha) / T): > 1 at every finite T
    excess = float(np.expm1((alpha.max() - alpha.min()) / t))
    if not np.isfinite(excess) or excess > 1e6:
        return Feedback(
            name,
            False,
            [
                f"At T = {t:g} the largest weight is over a million times the smallest: that "
                "is towards the hard end, the opposite of equal weights. At any finite T the "
                "scores still matter; which limit removes them?"
            ],
        )
    factor = f"{excess + 1:.3g}" if excess >= 1 else f"(1 + {excess:.2g})"
    return Feedback(
        name,
        False,
        [
            f"At T = {t:g} the largest weight is {factor} times the smallest: the ratio of two "
            "weights, exp((alpha_i - alpha_j) / T), is not exactly 1 at any finite T, however "
            "equal the weights look. Which limit removes the scores?"
        ],
    )
