"""Exercise check of the start page, notebook 00 (reference answer: ``solutions/notebook_00.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from .answers import read_number
from .feedback import Feedback, exercise

__all__ = ["check_uniform_temperature"]


@exercise("the temperature that makes every weight equal")
def check_uniform_temperature(name, temperature, scores=(1.2, 3.0, 0.5, 2.6, -0.8, 1.9)) -> Feedback:
    """Exercise: the T at which softmax(alpha / T) is exactly uniform for unequal scores (the limit T -> infinity);
    at every finite T > 0 the weight ratios exp((alpha_i - alpha_j) / T) differ from 1."""
    t, why = read_number(temperature, "Your temperature")
    if why is not None:
        return Feedback(name, False, _("{why} (np.inf is a number.)").format(why=why))
    alpha = np.asarray(scores, dtype=np.float64)
    if alpha.size == 0 or not np.all(np.isfinite(alpha)):
        return Feedback(name, False, "The scores must be finite numbers: run the cells above first.")
    if t == np.inf or alpha.max() == alpha.min():
        return Feedback(name, True, _("As T -> infinity every alpha_i / T -> 0 and every weight tends to 1/{n}: average pooling, which ignores the query.").format(n=alpha.size))  # fmt: skip
    excess = float(np.expm1(min((alpha.max() - alpha.min()) / t, 700.0))) if t > 0 else 0.0  # largest / smallest - 1
    if t < 0:
        says = _("A negative temperature flips the order: the lowest score would get the most weight. Which T, low or high, spreads the weights?")  # fmt: skip
    elif t == 0:
        says = _("T = 0 is the other end: all the weight goes to the largest score (a hard lookup). What happens at the opposite end?")  # fmt: skip
    elif excess < 0.1:
        says = _("At T = {t:g} the largest weight is (1 + {excess:.2g}) times the smallest: not exactly 1, however equal the weights look. Is there a finite T at which the scores stop mattering?")  # fmt: skip
    elif excess > 1e6:
        says = _("At T = {t:g} the largest weight is over a million times the smallest: the weights are not equal. Is there a finite T at which the scores stop mattering?")  # fmt: skip
    else:
        says = _("At T = {t:g} the largest weight is {ratio} times the smallest: the weights are not equal. Is there a finite T at which the scores stop mattering?")  # fmt: skip
    ratio = "{r:,.0f}".format(r=excess + 1) if excess >= 999 else "{r:.3g}".format(r=excess + 1)
    # fmt: off
    return Feedback(name, False, says.format(t=t, excess=excess, ratio=ratio), hint="The ratio of two weights is exp((alpha_i - alpha_j) / T). When is it exactly 1?",
        fix="T = np.inf: only in the limit does every alpha_i / T vanish.")
    # fmt: on
