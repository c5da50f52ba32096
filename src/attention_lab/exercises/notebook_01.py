"""Exercise checks of notebook 01, queries, keys and values (reference answers: ``solutions/notebook_01.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from ..normalisers import softmax
from .answers import check_choice
from .feedback import Feedback, exercise, not_attempted, unanswered
from .runner import Case, Mistake, implement, to_float_array

__all__ = ["check_softmax", "check_reachable_outputs", "check_copies_weight", "check_dot_product_winner"]
_A = np.array


def _exp_norm(z):
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _shift(shift, says):  # a softmax that subtracts shift(alpha / T) instead of each row's maximum
    return Mistake(says, hint=_ROW, wrong=lambda a, t: _exp_norm(a / t - shift(a / t)))


def _flat(z, keep_max, keep_sum):  # a stable softmax with keepdims forgotten in the max, the sum, or both
    e = np.exp(z - z.max(axis=-1, keepdims=keep_max))
    return e / e.sum(axis=-1, keepdims=keep_sum)


_ROW = "Subtract each row's own largest value of alpha / T: every exponent is then <= 0 and the largest is 0."
_NO_KEEPDIMS = ((False, True), (True, False), (False, False))
# small scores at T below, at and above 1; ties; huge scores at T = 1, below 1 and above 1; rows far apart
# fmt: off
check_softmax = implement("softmax with temperature", [
    Case((_A([1.0, 2.0, 3.0]), 1.0), "For scores [1, 2, 3] at T = 1"),
    Case((_A([0.5, -1.0, 2.0, 0.0]), 0.5), "For scores [0.5, -1, 2, 0] at T = 0.5"),
    Case((_A([[1.0, 2.0], [3.0, 3.0]]), 2.0), "For the rows [[1, 2], [3, 3]] at T = 2"),
    Case((_A([1000.0, 1001.0, 999.0]), 1.0), "For the huge scores [1000, 1001, 999] at T = 1"),
    Case((_A([1000.0, 1001.0, 999.0]), 0.25), "For the huge scores [1000, 1001, 999] at T = 0.25"),
    Case((_A([-2000.0, -2001.0]), 4.0), "For the very negative scores [-2000, -2001] at T = 4"),
    Case((_A([[0.0, 1000.0], [1000.0, 1001.0], [0.0, 2000.0], [1500.0, 0.0]]), 1.0), "For the rows [[0, 1000], [1000, 1001], [0, 2000], [1500, 0]] at T = 1"),
    Case((_A([[-3000.0, 0.0, -1000.0], [5.0, 4.0, 3.0]]), 0.5), "For the rows [[-3000, 0, -1000], [5, 4, 3]] at T = 0.5"),
], softmax, [
    Mistake.of(lambda a, t: _exp_norm(a / t - a.max(axis=-1, keepdims=True)), "{where} you returned {got}. You subtract the largest score before dividing by T: the exponents alpha / T - max(alpha) are <= 0 only at T = 1, and overflow (T < 1) or underflow (T > 1) elsewhere. Of which numbers must the subtracted maximum be the largest?", "The numbers that go into exp are alpha / T."),
    _shift(lambda z: z.max(), "{where} you returned {got}. You subtract the largest score of the whole array: a row far below it underflows to 0 / 0. Whose maximum should each row subtract?"),
    _shift(lambda z: z.min(axis=-1, keepdims=True), "{where} you returned {got}. You subtract each row's smallest score: the largest exponent is then the row's range, which overflows. Which value of a row makes every exponent <= 0?"),
    _shift(lambda z: z.min(), "{where} you returned {got}. You subtract the smallest score of the whole array: a row far above it still overflows. Which value makes every exponent <= 0?"),
    _shift(lambda z: 0.0, "{where} you returned {got}. Without a shift, exp overflows to inf above 709.8 (inf / inf is NaN) and underflows to 0 below -745 (0 / 0). What could you subtract from every score of a row without changing its weights?"),
    _shift(lambda z: z.mean(axis=-1, keepdims=True), "{where} you returned {got}. You subtract each row's mean: the largest exponent is max - mean, which overflows on a row spread wide. Which value makes every exponent <= 0?"),
    _shift(lambda z: z[..., :1], "{where} you returned {got}. You subtract each row's first score: when it is not the row's largest, the others can overflow. Which score of the row is safe to subtract?"),
    _shift(lambda z: z.max(axis=0, keepdims=True), "{where} you returned {got}. You subtract the largest score of each column (axis 0): that shifts each key by a different amount and changes the weights. Along which axis is the maximum taken?"),
    Mistake.of(lambda a, t: softmax(a, 1.0), "{where} your weights {got} ignore the temperature: they are softmax(alpha) at T = 1. Where does T enter the formula?", "softmax(alpha / T): T divides every score."),
    Mistake.of(lambda a, t: softmax(a * t, 1.0), "{where} your weights {got} are softmax(alpha * T). Does a higher temperature sharpen or flatten?", "A higher T must flatten: the scores are divided by T."),
    Mistake.of(lambda a, t: softmax(-a, t), "{where} your weights {got} give the largest weight to the smallest score. What sign must the exponent have?", "The weight grows with exp(+alpha_i / T)."),
    Mistake(when=lambda got, a, t: a.ndim == 2 and np.allclose(got.sum(axis=0), 1.0), says="{where} your weights {got}: each column sums to 1, not each row. Which axis holds one query's keys?", hint="The last axis, axis=-1, holds the keys of a row."),
    Mistake(when=lambda got, a, t: a.ndim == 2 and any(np.allclose(got, _flat(a / t, *keep)) for keep in _NO_KEEPDIMS), says="{where} your weights {got} mix the rows: you combined (n, m) scores with a (n,) array of row maxima or sums, which broadcasts along the last axis, so entry (i, j) meets row j's value. Along which axis does a (n,) array broadcast against (n, m)?", hint="One value per row, kept as a column of shape (n, 1), broadcasts along the keys of its own row."),
    Mistake(when=lambda got, a, t: a.ndim == 2 and np.isclose(got.sum(), 1.0), says="{where} your weights {got}: all of them together sum to 1, but each row must. Over what does each sum run?", hint="One sum per row, kept as a column so that it broadcasts."),
    Mistake(when=lambda got, a, t: (got < 0).any(), says="{where} your weights {got} are negative somewhere. Can exp(.) be negative?", hint="Weights are exp of something, divided by a positive sum."),
    Mistake(when=lambda got, a, t: np.isfinite(got).all() and not np.allclose(got.sum(axis=-1), 1.0), says="{where} your weights {got} do not sum to 1 along the rows. What is missing?", hint="Divide by the row sum of the exponentials."),
], shape="one weight per score",
    otherwise=Mistake("{where} your weights {got} are >= 0 and sum to 1 per row, but they are not softmax(alpha / T). What must the ratio of two weights be?", "The ratio of two weights is exp((alpha_i - alpha_j) / T)."),
    success="Rows sum to 1, the temperature divides the scores, and nothing overflows or underflows to 0 / 0: not for huge scores at T = 0.25, 1 or 4, nor for rows far apart or whose first score is not the largest.",
    fix="`z = alpha / temperature; z = z - z.max(axis=-1, keepdims=True); e = np.exp(z); return e / e.sum(axis=-1, keepdims=True)`",
    doc="Exercise: ``fn(alpha, temperature)`` returns softmax(alpha / T) along the last axis, stably at every T.")
# fmt: on

_BOUNDARY = 1e-9  # far below the candidates' two decimals, far above the rounding error of a 4 x 4 solve


@exercise("which outputs can attention produce?")
def check_reachable_outputs(name, reachable, values, candidates) -> Feedback:
    """Exercise (think, then check): the candidates that softmax attention over ``values`` outputs for finite scores.

    With n = d_v + 1 affinely independent values each candidate has exactly one set of weights summing to 1
    (barycentric coordinates); a softmax gives it only if every weight is > 0.
    """
    V, why = to_float_array(values, "values")
    if why is not None or V.ndim != 2 or V.shape[0] != V.shape[1] + 1:
        return Feedback(name, False, "Run the cells above first: `V` must hold the four boxes' values, shape (4, 3).")
    if not isinstance(candidates, dict) or not candidates:
        return Feedback(name, False, "Run the cell above first: `candidates` maps letters to candidate outputs.")
    if unanswered(reachable):
        return not_attempted(name)
    system = np.vstack([V.T, np.ones(len(V))])  # (d_v + 1, n): sum_i lambda_i v_i = p and sum_i lambda_i = 1
    options, right = {}, ""
    for letter, point in candidates.items():
        point = np.asarray(point, dtype=float)
        lam = np.linalg.solve(system, np.append(point, 1.0))
        if lam.min() > _BOUNDARY:
            right, options[letter] = right + letter, ""
        elif np.any(point > V.max(axis=0) + _BOUNDARY) or np.any(point < V.min(axis=0) - _BOUNDARY):
            options[letter] = "it lies outside the range of the values in at least one coordinate. Can an average with weights >= 0 exceed the largest value?"  # fmt: skip
        elif lam.min() < -_BOUNDARY:
            options[letter] = "it is within every coordinate's range, yet the only weights summing to 1 that give it have a negative one. Is checking each coordinate's range enough?"  # fmt: skip
        else:
            options[letter] = "the only weights that give it include a weight of exactly 0. Can exp(alpha_i) / sum_j exp(alpha_j) be 0 for a finite score?"  # fmt: skip
    # fmt: off
    return check_choice(name, reachable, options, right, several=True,
        success=_("{right}: the outputs whose weights are all positive. A softmax gives any positive weights summing to 1 (from the scores T log lambda_i, plus any constant), and only those: attention outputs exactly the points strictly inside the tetrahedron of the four values.").format(right=_(" and ").join(right)),
        hint="For each candidate solve the four equations for its weights (np.linalg.solve); then ask which weights a softmax can produce: all > 0, summing to 1.", fix=_("The reachable candidates are {right}: their weights are all positive.").format(right=right))
    # fmt: on


_SAME_SCORE = "An exact copy has the same score, so the same exp(alpha_i / T) as the original."
# fmt: off
check_copies_weight = implement("a key that appears n_c times", [
    Case((0.25, 2), "For a key of weight 0.25 that appears twice"),
    Case((0.5, 1), "For a key of weight 0.5 that appears once"),
    Case((0.1, 10), "For a key of weight 0.1 that appears 10 times"),
    Case((0.8, 3), "For a key of weight 0.8 that appears 3 times"),
    Case((1e-12, 4), "For a key of the tiny weight 1e-12 that appears 4 times"),
    Case((1 - 1e-9, 5), "For a key of weight 1 - 1e-9 that appears 5 times"),
], lambda lam, n_c: n_c * lam / (1 + (n_c - 1) * lam), [
    Mistake.of(lambda lam, n_c: lam, "{where} you returned {got}: the copies change nothing. Do the copies take part in the softmax?", _SAME_SCORE),
    Mistake.of(lambda lam, n_c: n_c * lam, "{where} you returned {got}, n_c times the weight: the weights then no longer sum to 1 (with lambda = 0.8 and 3 copies, 2.4). What happens to the denominator when keys are added?", "An exact copy has the same score, so the same exp(alpha_i / T) as the original. The sum in the denominator grows too."),
    Mistake.of(lambda lam, n_c: lam / n_c, "{where} you returned {got}: the copies split the key's weight. Does adding a key take weight away from the original only, or from every key?", _SAME_SCORE),
    Mistake.of(lambda lam, n_c: 1 - (1 - lam) ** n_c, "{where} you returned {got}, as if each copy were an independent chance 1 - (1 - lambda)^n_c. Is a softmax weight a probability of a separate draw, or a share of one sum?", _SAME_SCORE),
    Mistake.of(lambda lam, n_c: min(n_c * lam, 1.0), "{where} you returned {got}, capped at 1. Before capping it is n_c lambda: what happens to the denominator when keys are added?", _SAME_SCORE),
    Mistake.of(lambda lam, n_c: lam / (1 + (n_c - 1) * lam), "{where} you returned {got}: one copy's weight, not the n_c copies' total. The question asks for all of them together: how many equal shares are there?", _SAME_SCORE),
    Mistake.of(lambda lam, n_c: n_c * lam / (1 + n_c * lam), "{where} you returned {got}: your denominator counts the key n_c + 1 times (its n_c copies on top of the original's 1) and the other keys once. How many times does the key appear among the keys after the copies are added?", "The n_c copies include the original: n_c - 1 copies are added, not n_c."),
    Mistake(when=lambda got, lam, n_c: n_c > 1 and np.isclose(got, 1.0), says="{where} you returned {got}: all the weight on the copies, as if the denominator counted no other key. Do the other keys leave the softmax when a key is copied?", hint=_SAME_SCORE),
], shape="one number",
    otherwise=Mistake("{where} you returned {got}. Write the key's weight as e / S (its exp(alpha / T) over the sum over all keys): what do the copies add to S, and to the key's share?", _SAME_SCORE),
    success="n_c lambda / (1 + (n_c - 1) lambda): copies pull the output towards their value, although they add no information. Attention weighs a multiset of keys: a token repeated in a context gains weight.",
    fix="With e = exp(alpha / T) of the key and S the sum over all keys, lambda = e / S. With n_c copies the sum is S + (n_c - 1) e, so the copies weigh n_c e / (S + (n_c - 1) e) = `n_c * lam / (1 + (n_c - 1) * lam)`.",
    doc="Exercise: ``fn(lam, n_c)``: a key of weight ``lam`` gets n_c - 1 exact copies; the n_c copies' total weight.")
# fmt: on


@exercise("which box wins under the dot-product score")
def check_dot_product_winner(name, label, keys, labels, query) -> Feedback:
    """Exercise (predict, then check): the label whose key has the largest dot product q . k_i with ``query``."""
    keys_, why = to_float_array(keys, "keys")
    query_, why_q = to_float_array(query, "query")
    if why or why_q:
        return Feedback(name, False, _("Run the cells above first (keys and query must be numbers): {why}").format(why=why or why_q))  # fmt: skip
    labels = [str(x) for x in labels]
    if unanswered(label):
        return not_attempted(name)
    if not isinstance(label, str) or label.strip().lower() not in labels:
        return Feedback(name, False, _("Answer with one box's label in quotes, one of {labels}; got {label}.").format(labels=labels, label=repr(label)[:40]))  # fmt: skip
    dot = keys_ @ query_  # (n_keys,)
    winner = labels[int(np.argmax(dot))]
    nearest = labels[int(np.argmin(np.sum((keys_ - query_) ** 2, axis=1)))]
    answer = label.strip().lower()
    if answer == winner:
        return Feedback(name, True, _("q . k_i = |q| |k_i| cos(angle) grows with the length of the key, so '{winner}' wins although '{nearest}' is the nearest key. A dot product measures direction only when the keys have equal lengths (notebook 05).").format(winner=winner, nearest=nearest))  # fmt: skip
    if answer == nearest:
        says = _("'{answer}' is the nearest key: it wins under the Gaussian score. Is the dot product a distance? Expand q . k = |q| |k| cos(angle).")  # fmt: skip
    else:
        says = _("Not '{answer}'. Did you compute the four dot products K @ q, or judge by the picture?")
    # fmt: off
    return Feedback(name, False, says.format(answer=answer), hint="Compute K @ q: which factor of |q| |k_i| cos(angle) makes one large?",
        fix=_("K @ q = {dot} for {labels}: '{winner}' wins.").format(dot=np.round(dot, 2).tolist(), labels=labels, winner=winner))
    # fmt: on
