"""Exercise checks of notebook 02, from hard to soft attention (reference answers: ``solutions/notebook_02.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from ..normalisers import hard_attention, logsumexp, softmax
from .answers import read_number
from .feedback import Feedback, exercise, unanswered
from .runner import Case, Mistake, implement, to_float_array

__all__ = [
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
    "check_smooth_max_gap",
    "check_reinforce",
    "check_positional_attention",
]
_A = np.array


def _lse(alpha, t):  # T log sum exp(alpha / T), written naively (wrong implementations build on it)
    return t * np.log(np.sum(np.exp(alpha / t)))


_PULL = "log sum_i exp(a_i) = c + log sum_i exp(a_i - c) for any constant c: which c keeps every exponent <= 0?"
# fmt: off
check_logsumexp = implement("the smooth maximum T logsumexp(alpha / T)", [
    Case((_A([1.0, 2.0, 3.0]), 1.0), "For scores [1, 2, 3] at T = 1"),
    Case((_A([0.0, 0.5]), 0.25), "For scores [0, 0.5] at T = 0.25"),
    Case((_A([1.0, -2.0, 0.5]), 2.0), "For scores [1, -2, 0.5] at T = 2"),
    Case((_A([3.0, 3.0, 3.0]), 0.5), "For the tied scores [3, 3, 3] at T = 0.5"),
    Case((_A([800.0, 799.0]), 1.0), "For the huge scores [800, 799] at T = 1"),
    Case((_A([800.0, 799.5, 790.0]), 0.5), "For the huge scores [800, 799.5, 790] at T = 0.5"),
    Case((_A([-900.0, -901.0]), 4.0), "For the very negative scores [-900, -901] at T = 4"),
    Case((_A([2.0, 2.0 + 1e-9, -1e3]), 0.01), "For the near-tie [2, 2 + 1e-9, -1000] at T = 0.01"),
], lambda alpha, temperature: float(logsumexp(alpha, temperature)), [
    Mistake.of(lambda a, t: a.max() + t * np.log(np.sum(np.exp(a / t - a.max()))), "{where} you returned {got}: you subtract max(alpha) from alpha / T, so the exponents are <= 0 only at T = 1. Of which numbers must the subtracted maximum be the largest?", "The numbers inside exp are alpha_i / T; their largest is max(alpha) / T."),
    Mistake.of(_lse, "{where} you returned {got}: exp of these scores overflows (above 709.8) or underflows to 0 (below -745). What could you pull out of the sum before taking exp?", _PULL),
    Mistake.of(lambda a, t: a.max(), "{where} you returned {got}, the hard max: the T -> 0 limit. Is the smooth max above or below the max, and by how much at most?", "The gap is between 0 and T log n_k."),
    Mistake.of(lambda a, t: _lse(a, t) / t, "{where} you returned {got}: logsumexp(alpha / T) without the factor T in front. What are the units of the smooth max as T grows?", "T logsumexp(alpha / T) -> max(alpha) as T -> 0."),
    Mistake.of(lambda a, t: a.max() + (_lse(a, t) - a.max()) / t, "{where} you returned {got}: the max is pulled out, but the log term lacks its factor T. Which terms does the T in front multiply?", "T log sum exp(...) multiplies the whole log."),
    Mistake.of(lambda a, t: _lse(a, 1.0), "{where} you returned {got}: the temperature is ignored. Where does T enter, inside and outside?", "Divide inside exp, multiply the log."),
    Mistake.of(lambda a, t: a.max() + t * np.log(np.sum(np.exp(a - a.max()))), "{where} you returned {got}: the shift by the max is there, but the shifted scores inside exp are not divided by T, so yours is right at T = 1 only. Which numbers go into exp?", "Inside exp are the scores divided by T: shifted by the max, that is every alpha_i - m, divided by T."),
    Mistake.of(lambda a, t: t * (a.max() + np.log(np.sum(np.exp((a - a.max()) / t)))), "{where} you returned {got}: T multiplies the max as well as the log. When the max is pulled out of T log sum_i exp(alpha_i / T), is what comes out m or T m?", "exp(alpha_i / T) = exp(m / T) exp((alpha_i - m) / T): take the log of the first factor, times T."),
    Mistake.of(lambda a, t: t * _lse(a, 1.0), "{where} you returned {got}: the log is multiplied by T, but the scores inside exp are not divided by T. What goes into exp?", "exp(alpha_i / T)."),
    Mistake.of(lambda a, t: _lse(a, t) - a.max(), "{where} you returned {got}: you subtracted the max and did not add it back. What does pulling a constant out of a log-sum-exp leave outside?", _PULL),
    Mistake(when=lambda got, a, t: float(got.reshape(-1)[0]) < a.max() - 1e-9, says="{where} you returned {got}, below the max. Can a sum of positive terms, one of them exp(max / T), have a log below max / T?", hint="Each term of the sum is positive."),
], shape="one number", compare=lambda got, expected, a, t: got.size == 1 and abs(float(got.reshape(-1)[0]) - expected) < 1e-6,
    otherwise=Mistake("{where} you returned {got}, not T log sum_i exp(alpha_i / T). Compute it for two scores by hand: which step differs?", "For alpha = [0, 0] at T = 0.5 it is 0.5 log 2: which of your steps (divide by T, shift, exp, sum, log, times T) gives another number?"),
    success="Right at T = 0.01, 0.25, 0.5, 1, 2 and 4, on ties and near-ties, and stable for huge and very negative scores.",
    fix="With m = alpha.max(): `m + temperature * np.log(np.sum(np.exp((alpha - m) / temperature)))`.",
    doc="Exercise: ``fn(alpha, temperature)`` returns T log sum_i exp(alpha_i / T) for a 1-D alpha, stably.")
# fmt: on


def _keep(alpha, idx, k_top):
    w = np.zeros(alpha.size)
    w[idx] = 1 / k_top
    return w


def _other_tied_keys(got, alpha, k_top, reversed_order):
    """1/k_top on k_top keys holding the k_top largest scores, but not the tie rule's keys: tied keys taken from the end
    (``reversed_order``, an ascending sort read backwards) or in another order (an unstable sort)."""
    chosen = np.flatnonzero(got)
    if chosen.size != k_top or not np.allclose(got[chosen], 1 / k_top):
        return False
    if not np.array_equal(np.sort(alpha[chosen]), np.sort(alpha)[alpha.size - k_top :]):
        return False
    from_the_end = set(np.argsort(alpha, kind="stable")[::-1][:k_top].tolist())
    return set(chosen.tolist()) != set(np.argsort(-alpha, kind="stable")[:k_top].tolist()) and (
        (set(chosen.tolist()) == from_the_end) == reversed_order
    )


def _equal_shares(got, count):
    chosen = got[got != 0]
    return chosen.size == count and np.allclose(chosen, 1 / count)


# fmt: off
check_top_k = implement("top-k hard attention", [
    Case((_A([0.1, 0.9, 0.5, 0.3]), 1), "For scores [0.1, 0.9, 0.5, 0.3] and k_top = 1"),
    Case((_A([0.1, 0.9, 0.5, 0.3]), 2), "For scores [0.1, 0.9, 0.5, 0.3] and k_top = 2"),
    Case((_A([2.0, -1.0, 5.0]), 3), "For scores [2, -1, 5] and k_top = 3"),
    Case((_A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), 3), "For scores [1.2, 3, 0.5, 2.6, -0.8, 1.9] and k_top = 3"),
    Case((np.tile(_A([0.0, 1.0, 2.0, 2.0, 1.0]), 40), 30), "For 200 scores [0, 1, 2, 2, 1] repeated 40 times (80 keys tied at the largest score 2) and k_top = 30"),
    Case((_A([1.0, 3.0, 2.0, 3.0]), 1), "For the tied scores [1, 3, 2, 3] and k_top = 1"),
    Case((_A([2.0, 5.0, 2.0, 2.0, 0.0]), 2), "For the tied scores [2, 5, 2, 2, 0] and k_top = 2"),
    Case((_A([1.0, 1.0 + 1e-12, 0.0]), 1), "For the near-tie [1, 1 + 1e-12, 0] and k_top = 1"),
    Case((_A([-1e300, 1e300, 0.0, 1e-300]), 2), "For the huge and tiny scores [-1e300, 1e300, 0, 1e-300] and k_top = 2"),
], lambda alpha, k_top: hard_attention(alpha, k_top), [  # 1/k_top on the first k_top of np.argsort(-alpha, kind="stable")
    Mistake(when=lambda got, a, k_top: np.count_nonzero(got) > k_top and np.sum(a == np.sort(a)[-k_top]) > 1, says="{where} your weights {got} put weight on more than k_top keys: every key that ties with the k_top-th largest score is kept. The tie rule (among tied scores, the key with the lower index is chosen first) keeps exactly k_top: which ones?", hint="A threshold `alpha >= kth largest` cannot break ties; an ordering of the indices can."),
    Mistake.of(lambda a, k_top: _keep(a, np.argsort(-a, kind="stable")[: k_top + 1], k_top), "{where} your weights {got} keep k_top + 1 keys: one more than asked. Where does your count of keys stop?", "Slicing [:k_top] keeps k_top entries; a comparison with the (k_top+1)-th largest keeps one more."),
    Mistake(when=lambda got, a, k_top: _equal_shares(got, k_top + 1), says="{where} your weights {got} give k_top + 1 keys an equal share, 1/(k_top + 1) each: one key more than asked. Where does your count of keys stop?", hint="Slicing [:k_top] keeps k_top entries; a comparison with the (k_top+1)-th largest keeps one more."),
    Mistake(when=lambda got, a, k_top: _other_tied_keys(got, a, k_top, reversed_order=True), says="{where} your weights {got} choose a later key among tied scores: an ascending sort read backwards puts equal scores in reverse index order. Tie rule: among tied scores, the key with the lower index is chosen first. Which order of the indices does your sort give to equal scores?", hint="np.argsort(alpha)[::-1] reverses the order of ties as well; sort -alpha instead, stably."),
    Mistake(when=lambda got, a, k_top: _other_tied_keys(got, a, k_top, reversed_order=False), says="{where} your weights {got} are 1/k_top on keys with the k_top largest scores, but among the tied keys not the ones with the lowest indices: your sort does not keep equal scores in index order. np.argsort's default sort is not stable: on longer arrays it may put tied keys in any order, and another order on another machine. Which kind of sort keeps ties in index order?", hint="A stable sort keeps equal scores in the order of their indices (np.argsort's kind argument chooses the sort)."),
    Mistake.of(lambda a, k_top: hard_attention(-a, k_top), "{where} your weights {got} sit on the k_top smallest scores. Which end of the sorted order holds the largest?", "np.argsort sorts in ascending order."),
    Mistake.of(lambda a, k_top: k_top * hard_attention(a, k_top), "{where} your weights {got} are 1 on each chosen key: they sum to k_top. How do k_top keys share the attention?", "The weights still sum to 1."),
    Mistake(when=lambda got, a, k_top: np.count_nonzero(got) == k_top and len(set(np.round(got[got > 0], 9))) > 1, says="{where} your weights {got} follow a softmax of the chosen scores. Does a score change a chosen key's weight in hard top-k attention?", hint="Each chosen key gets the same weight."),
    Mistake(when=lambda got, a, k_top: abs(got.sum() - 1) > 1e-6, says="{where} your weights {got} do not sum to 1. What does each chosen key get?", hint="k_top keys, equal shares."),
], shape="one weight per score",
    otherwise=Mistake("{where} your weights {got} are not 1/k_top on the k_top keys with the largest scores. How many keys did you choose, which ones, and what are their scores?", "Sort the indices by score, largest first, ties by index."),
    success="1/k_top on exactly k_top keys, the largest scores, ties to the lower index (also among 80 tied keys), and for huge and tiny scores.",
    fix='`weights = np.zeros(len(alpha)); weights[np.argsort(-alpha, kind="stable")[:k_top]] = 1 / k_top`.',
    doc="Exercise: ``fn(alpha, k_top)``: 1/k_top on the k_top largest scores, 0 elsewhere; ties go to the lower index.")
# fmt: on


@exercise(lambda temperature, scores, target=0.5, tolerance=0.01: _("the temperature at which the largest weight is {target:g}").format(target=target))  # fmt: skip
def check_temperature_for_weight(name, temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    value, why = read_number(temperature, "Your temperature")
    if why is not None or not np.isfinite(value) or value <= 0:
        return Feedback(name, False, why or _("Give a positive finite temperature; got {value:g}. (At T = 0 the largest weight is 1.)").format(value=value))  # fmt: skip
    top = float(softmax(scores, value).max())
    if abs(top - target) <= tolerance:
        return Feedback(name, True, _("At T = {value:g} the largest weight is {top:.3f}.").format(value=value, top=top))
    if top > target:
        says = _("At T = {value:g} the largest weight is {top:.3f}, not {target:g}. You need to spread the weights more: raise or lower T?")  # fmt: skip
    else:
        says = _("At T = {value:g} the largest weight is {top:.3f}, not {target:g}. You need to make them more peaked: raise or lower T?")  # fmt: skip
    # fmt: off
    return Feedback(name, False, says.format(value=value, top=top, target=target), hint="The largest weight falls steadily as T grows: bisect on log T.")
    # fmt: on


@exercise(lambda bound, scores, n_k=6, temperature=0.5: _("the largest gap between the smooth max and the max (n_k = {n_k}, T = {t:g})").format(n_k=n_k, t=temperature))  # fmt: skip
def check_smooth_max_gap(name, bound, scores, n_k=6, temperature=0.5) -> Feedback:
    """Predict-then-check: ``bound`` = max over n_k scores of T logsumexp(alpha / T) - max(alpha); ``scores`` reach it."""
    value, why = read_number(bound, "Your bound")
    if why is not None:
        return Feedback(name, False, why)
    truth, hints = temperature * np.log(n_k), []
    if abs(value - truth) > 1e-6:
        known = {
            np.log(n_k): "That is the largest gap at T = 1. How does the gap scale with T?",
            temperature * np.log(n_k - 1): "Does the sum count the winner's own term?",
            np.log(n_k - 1): "Does the sum count the winner's own term, and how does the gap scale with T?",
            np.log(n_k) / temperature: "Must the gap grow or shrink as T -> 0?",
            -np.inf: "Some scores give a larger gap. How large can each term exp((alpha_i - max) / T) be?",
            np.inf: "No scores reach that gap: how large can each term exp((alpha_i - max) / T) be?",
        }
        hints.append(
            next((v for k, v in known.items() if abs(value - k) < 1e-6), known[np.sign(value - truth) * np.inf])
        )
    if unanswered(scores):
        return Feedback(name, False, [*hints, "Now give n_k scores that reach your bound (replace the `...`)."])
    array, why = to_float_array(scores, "Your scores")
    if why is None and (array.shape != (n_k,) or not np.all(np.isfinite(array))):
        why = _("Give {n_k} finite scores (shape ({n_k},)); got shape {shape}.").format(n_k=n_k, shape=array.shape)
    if why is not None:
        return Feedback(name, False, [*hints, why])
    gap = float(logsumexp(array, temperature)) - float(array.max())
    if abs(gap - truth) > 1e-6:
        hints.append(_("Your scores give a gap of {gap:.4f}. Which scores make every term as large as it can be?").format(gap=gap))  # fmt: skip
    if hints:
        return Feedback(name, False, hints, hint="Each term exp((alpha_i - max) / T) is at most 1, the winner's exactly 1.")  # fmt: skip
    return Feedback(name, True, _("The gap is at most T log n_k = {truth:.4f}, reached exactly when all scores are equal: the smooth max overshoots most when there is no clear winner.").format(truth=truth))  # fmt: skip


def _reinforce_truth(alpha, losses):
    """The exact gradient of sum_i p_i L_i, the variance of one sample per coordinate, p, and the per-key terms."""
    p = softmax(alpha)
    per_key = losses[:, None] * (np.eye(alpha.size) - p)  # row i: the estimate when key i is drawn, (n, n)
    mean = p @ per_key
    return mean, p @ per_key**2 - mean**2, p, per_key


def _se(alpha, losses, m):  # the typical ||mean of m samples - exact||
    return float(np.sqrt(_reinforce_truth(alpha, losses)[1].sum() / m))


def _rf(target, says, hint):  # an estimate within sampling error of a wrong target's
    def near(got, a, L, m, rng):
        wrong = target(a, L, m)
        return np.linalg.norm(got - wrong) <= 0.1 * np.linalg.norm(wrong) + 5 * _se(a, L, m)

    return Mistake(says, hint, when=near)


def _within_noise(got, exact, a, L, m, rng):  # right within 5 standard errors, and not the exact gradient itself
    return (
        got.shape == exact.shape
        and np.linalg.norm(got - exact) <= 5 * _se(a, L, m)
        and not np.allclose(got, exact, atol=1e-9)
    )


# fmt: off
check_reinforce = implement("a REINFORCE (score-function) gradient estimate", lambda: [
    Case((_A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), _A([5.0, 26.0, 5.0, 18.25, 0.0, 18.0]), 20_000, np.random.default_rng(0)), "For the running example's scores and losses with 20000 samples"),
    Case((_A([0.0, -1.0, 1.0]), _A([1.0, -2.0, 3.0]), 20_000, np.random.default_rng(1)), "For scores [0, -1, 1], losses [1, -2, 3] and 20000 samples"),
], lambda alpha, losses, n_samples, rng: _reinforce_truth(alpha, losses)[0], [
    Mistake(when=lambda got, a, L, m, rng: np.allclose(got, _reinforce_truth(a, L)[0], atol=1e-9), says="{where} your estimate is the exact gradient p_j (L_j - sum_i p_i L_i), from all keys. What does the exercise ask you to use instead?", hint="Draw keys with rng; a model often cannot look at every key."),
    _rf(lambda a, L, m: -_reinforce_truth(a, L)[0], "{where} your estimate points the wrong way. What is the gradient of log p_i with respect to alpha?", "d log p_i / d alpha = one_hot(i) - p."),
    _rf(lambda a, L, m: m * _reinforce_truth(a, L)[0], "{where} your estimate is about n_samples times too large. Sum or average?", "Divide by the number of samples."),
    _rf(lambda a, L, m: _reinforce_truth(a, L)[2] * L, "{where} you averaged the sampled loss L_i one_hot(i), which does not depend on alpha. What must multiply each sampled loss?", "The score function: the gradient of log p_i."),
    _rf(lambda a, L, m: (lambda t: t[2] @ (t[2][:, None] * t[3]))(_reinforce_truth(a, L)), "{where} you used the gradient of p_i, not of log p_i. Which one makes the estimate unbiased?", "grad log p_i = (grad p_i) / p_i."),
    _rf(lambda a, L, m: L - L.sum() * _reinforce_truth(a, L)[2], "{where} you divided each sample's term by p_i once more. Is L_i (one_hot(i) - p) already the score function's estimate?", "The division by p_i happened inside the derivative of the log."),
    _rf(lambda a, L, m: np.mean(_reinforce_truth(a, L)[3], axis=0), "{where} your keys seem drawn uniformly. From which distribution must they come?", "rng.choice takes the probabilities p."),
    _rf(lambda a, L, m: np.zeros(a.size), "{where} your estimate is about zero. Did the baseline you subtracted depend on the sampled key itself?", "A baseline must be fixed before sampling."),
], shape="one entry per score",
    compare=_within_noise,
    otherwise=Mistake("{where} your estimate {got} is further from the exact gradient than sampling noise explains (5 standard errors). What is one sample's estimate?", "One sample: L_i (one_hot(i) - p) with i drawn from p; then average."),
    success="Within sampling error of the exact gradient: the score-function estimator is unbiased, and its error shrinks like 1/sqrt(number of samples).",
    fix="`p = softmax(alpha); i = rng.choice(len(alpha), size=n_samples, p=p); return np.mean(losses[i][:, None] * (np.eye(len(alpha))[i] - p), axis=0)`",
    doc="Exercise: ``fn(alpha, losses, n_samples, rng)`` estimates d/dalpha sum_i softmax(alpha)_i losses_i from sampled keys; passes within 5 standard errors (in norm), so an estimate with a baseline passes too.")
# fmt: on


def _positional(alpha, values, b):
    return softmax(alpha + b * np.arange(alpha.size)) @ values


_rng = np.random.default_rng(5)
_V6, _V6b, _V5 = _rng.normal(size=(6, 2)), _rng.normal(size=(6, 2)), _rng.normal(size=(5, 3))
_ALPHA = _A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])
_MOVED = float(np.linalg.norm(_positional(_ALPHA[::-1], _V6b[::-1], 0.5) - _positional(_ALPHA, _V6b, 0.5)))
# fmt: off
check_positional_attention = implement("attention that notices order: a position term in the scores", [
    Case((_ALPHA, _V6, 0.0), "With b = 0"),
    Case((_ALPHA, _V6b, 0.5), "With b = 0.5"),
    Case((_rng.normal(size=5), _V5, -1.0), "With b = -1"),
    Case((_A([1000.0, 1001.0, 998.0, 1000.5, 999.0]), _V5, 2.0), "For the huge scores [1000, 1001, 998, 1000.5, 999] with b = 2"),
    Case((_ALPHA, _V6, 300.0), "With the large slope b = 300"),
    Case((_A([2.0, 2.0, 2.0, 2.0, 2.0]), _V5, 1e-3), "For tied scores with the tiny slope b = 0.001"),
], _positional, [
    Mistake.of(lambda a, v, b: (a + b * np.arange(a.size)) @ v, "{where} your output {got} is a weighted sum of the values with the raw scores as weights. What turns scores into weights?", "Weights are >= 0 and sum to 1."),
    Mistake.of(lambda a, v, b: softmax(a) @ (v + b * np.arange(a.size)[:, None]), "{where} you added the position to the values. Should order change the values, or which keys are attended to?", "The slot's term belongs to the scores alpha_i."),
    Mistake(when=lambda got, a, v, b: b != 0 and np.ptp(got - softmax(a) @ v) < 1e-9 and abs(float((got - softmax(a) @ v).reshape(-1)[0])) > 1e-9, says="{where} you added the position term to the output: every coordinate moved by the same amount, but the weights are still softmax(alpha). Should order change where the output lies, or which keys are attended to?", hint="The slot's term belongs inside the softmax."),
    Mistake.of(lambda a, v, b: softmax(a + b * np.argsort(np.argsort(a))) @ v, "{where} your position term moves with the keys (it depends on the key, e.g. on its score's rank). What must it depend on instead?", "Slot i = 0, 1, ..., n - 1, whatever key sits there."),
    Mistake.of(lambda a, v, b: softmax(a * b * np.arange(a.size)) @ v, "{where} your output {got}: you multiplied the score by the position. Add or multiply?", "The model's score is alpha_i + b i."),
    Mistake.of(lambda a, v, b: _positional(a, v, -b), "{where} your output {got} favours the other end: later slots should gain for b > 0. Which way does your position count?", "Slot i counts from 0 at the first key."),
    Mistake(when=lambda got, a, v, b: not np.isfinite(got).all(), says="{where} you returned {got}: NaN or inf. Which exponent overflows, and what can a softmax subtract without changing its weights?", hint="Subtract the largest of the shifted scores alpha_i + b i."),
], shape="one output vector, as wide as a value",
    otherwise=Mistake("{where} your output {got} is not the attention output with the position term. Which step differs: the scores alpha_i + b i, the softmax, or the weighted average?", "Print the weights: do they sum to 1, and does b tilt them towards later slots?"),
    success=_("Reversing the keys and values together now moves the output by {moved:.3f} (at b = 0.5); at b = 0 it would not move at all. The slot matters now: that is what positional encodings give attention.").format(moved=_MOVED),
    fix="`scores = alpha + b * np.arange(len(alpha)); w = np.exp(scores - scores.max()); return (w / w.sum()) @ values`",
    doc="Exercise: ``fn(alpha, values, b)`` returns softmax(alpha_i + b * i) @ values, i = slot 0..n-1.")
# fmt: on
