"""Exercise checks of notebook 02, from hard to soft attention (reference answers: ``solutions/notebook_02.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import hard_attention, logsumexp, softmax
from .answers import read_number
from .feedback import Feedback, exercise, unanswered
from .runner import Case, Mistake, check_function, to_float_array

__all__ = [
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
    "check_smooth_max_gap",
    "check_reinforce",
    "check_positional_attention",
]

_A = np.array


def _smooth_max(alpha, temperature):
    return float(logsumexp(alpha, temperature))


def _lse(alpha, t):  # T log sum exp(alpha / T), written naively (wrong implementations build on it)
    return t * np.log(np.sum(np.exp(alpha / t)))


# fmt: off
LSE_CASES = [
    Case((_A([1.0, 2.0, 3.0]), 1.0),
        "For scores [1, 2, 3] at T = 1"),
    Case((_A([0.0, 0.5]), 0.25),
        "For scores [0, 0.5] at T = 0.25"),
    Case((_A([1.0, -2.0, 0.5]), 2.0),
        "For scores [1, -2, 0.5] at T = 2"),
    Case((_A([3.0, 3.0, 3.0]), 0.5),
        "For the tied scores [3, 3, 3] at T = 0.5"),
    Case((_A([800.0, 799.0]), 1.0),
        "For the huge scores [800, 799] at T = 1"),
    Case((_A([800.0, 799.5, 790.0]), 0.5),
        "For the huge scores [800, 799.5, 790] at T = 0.5"),
    Case((_A([-900.0, -901.0]), 4.0),
        "For the very negative scores [-900, -901] at T = 4"),
    Case((_A([2.0, 2.0 + 1e-9, -1e3]), 0.01),
        "For the near-tie [2, 2 + 1e-9, -1000] at T = 0.01"),
]
# fmt: on
_PULL = "log sum_i exp(a_i) = c + log sum_i exp(a_i - c) for any constant c: which c keeps every exponent <= 0?"
_LSE_FIX = "With m = alpha.max(): `m + temperature * np.log(np.sum(np.exp((alpha - m) / temperature)))`."
# fmt: off
LSE_MISTAKES = [
    Mistake(wrong=lambda a, t: a.max() + t * np.log(np.sum(np.exp(a / t - a.max()))),
        says="{where} you returned {got}: you subtract max(alpha) from alpha / T, so the exponents are <= 0 only at T = 1. Of which numbers must the subtracted maximum be the largest?",
        hint="The numbers inside exp are alpha_i / T; their largest is max(alpha) / T."),
    Mistake(wrong=_lse,
        says="{where} you returned {got}: exp of these scores overflows (above 709.8) or underflows to 0 (below -745). What could you pull out of the sum before taking exp?",
        hint=_PULL),
    Mistake(wrong=lambda a, t: a.max(),
        says="{where} you returned {got}, the hard max: the T -> 0 limit. Is the smooth max above or below the max, and by how much at most?",
        hint="The gap is between 0 and T log n."),
    Mistake(wrong=lambda a, t: _lse(a, t) / t,
        says="{where} you returned {got}: logsumexp(alpha / T) without the factor T in front. What are the units of the smooth max as T grows?",
        hint="T logsumexp(alpha / T) -> max(alpha) as T -> 0."),
    Mistake(wrong=lambda a, t: a.max() + (_lse(a, t) - a.max()) / t,
        says="{where} you returned {got}: the max is pulled out, but the log term lacks its factor T. Which terms does the T in front multiply?",
        hint="T log sum exp(...) multiplies the whole log."),
    Mistake(wrong=lambda a, t: _lse(a, 1.0),
        says="{where} you returned {got}: the temperature is ignored. Where does T enter, inside and outside?",
        hint="Divide inside exp, multiply the log."),
    Mistake(wrong=lambda a, t: a.max() + t * np.log(np.sum(np.exp(a - a.max()))),
        says="{where} you returned {got}: the shift by the max is there, but the shifted scores inside exp are not divided by T, so yours is right at T = 1 only. Which numbers go into exp?",
        hint="Inside exp are the scores divided by T: shifted by the max, that is every alpha_i - m, divided by T."),
    Mistake(wrong=lambda a, t: t * (a.max() + np.log(np.sum(np.exp((a - a.max()) / t)))),
        says="{where} you returned {got}: T multiplies the max as well as the log. When the max is pulled out of T log sum_i exp(alpha_i / T), is what comes out m or T m?",
        hint="exp(alpha_i / T) = exp(m / T) exp((alpha_i - m) / T): take the log of the first factor, times T."),
    Mistake(wrong=lambda a, t: t * _lse(a, 1.0),
        says="{where} you returned {got}: the log is multiplied by T, but the scores inside exp are not divided by T. What goes into exp?",
        hint="exp(alpha_i / T)."),
    Mistake(wrong=lambda a, t: _lse(a, t) - a.max(),
        says="{where} you returned {got}: you subtracted the max and did not add it back. What does pulling a constant out of a log-sum-exp leave outside?",
        hint=_PULL),
    Mistake(when=lambda got, a, t: float(got.reshape(-1)[0]) < a.max() - 1e-9,
        says="{where} you returned {got}, below the max. Can a sum of positive terms, one of them exp(max / T), have a log below max / T?",
        hint="Each term of the sum is positive."),
]
# fmt: on


@exercise("the smooth maximum T logsumexp(alpha / T)")
def check_logsumexp(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns T log sum_i exp(alpha_i / T) for a 1-D alpha, stably."""
    return check_function(
        name,
        fn,
        LSE_CASES,
        _smooth_max,
        LSE_MISTAKES,
        shape="one number",
        compare=lambda got, expected, a, t: got.size == 1 and abs(float(got.reshape(-1)[0]) - expected) < 1e-6,
        otherwise=Mistake(
            "{where} you returned {got}, not T log sum_i exp(alpha_i / T). Compute it for two scores by hand: which step differs?",
            hint="For alpha = [0, 0] at T = 0.5 it is 0.5 log 2: which of your steps (divide by T, shift, exp, sum, log, times T) gives another number?",
        ),
        success="Right at T = 0.01, 0.25, 0.5, 1, 2 and 4, on ties and near-ties, and stable for huge and very negative scores.",
        fix=_LSE_FIX,
    )


def _top_k(alpha, k):
    return hard_attention(alpha, k)  # 1/k on the first k of np.argsort(-alpha, kind="stable")


def _keep(alpha, idx, k):
    w = np.zeros(alpha.size)
    w[idx] = 1 / k
    return w


# fmt: off
TOP_K_CASES = [
    Case((_A([0.1, 0.9, 0.5, 0.3]), 1),
        "For scores [0.1, 0.9, 0.5, 0.3] and k = 1"),
    Case((_A([0.1, 0.9, 0.5, 0.3]), 2),
        "For scores [0.1, 0.9, 0.5, 0.3] and k = 2"),
    Case((_A([2.0, -1.0, 5.0]), 3),
        "For scores [2, -1, 5] and k = 3"),
    Case((_A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), 3),
        "For scores [1.2, 3, 0.5, 2.6, -0.8, 1.9] and k = 3"),
    Case((_A([1.0, 3.0, 2.0, 3.0]), 1),
        "For the tied scores [1, 3, 2, 3] and k = 1"),
    Case((_A([2.0, 5.0, 2.0, 2.0, 0.0]), 2),
        "For the tied scores [2, 5, 2, 2, 0] and k = 2"),
    Case((_A([1.0, 1.0 + 1e-12, 0.0]), 1),
        "For the near-tie [1, 1 + 1e-12, 0] and k = 1"),
    Case((_A([-1e300, 1e300, 0.0, 1e-300]), 2),
        "For the huge and tiny scores [-1e300, 1e300, 0, 1e-300] and k = 2"),
]
# fmt: on
_TOP_K_FIX = '`weights = np.zeros(len(alpha)); weights[np.argsort(-alpha, kind="stable")[:k]] = 1 / k`.'
# fmt: off
TOP_K_MISTAKES = [
    Mistake(when=lambda got, a, k: np.count_nonzero(got) > k and np.sum(a == np.sort(a)[-k]) > 1,
        says="{where} your weights {got} put weight on more than k keys: every key that ties with the k-th largest score is kept. The tie rule (among tied scores, the key with the lower index is chosen first) keeps exactly k: which ones?",
        hint="A threshold `alpha >= kth largest` cannot break ties; an ordering of the indices can."),
    Mistake(wrong=lambda a, k: _keep(a, np.argsort(-a, kind="stable")[: k + 1], k),
        says="{where} your weights {got} keep k + 1 keys: one more than asked. Where does your count of keys stop?",
        hint="Slicing [:k] keeps k entries; a comparison with the (k+1)-th largest keeps one more."),
    Mistake(when=lambda got, a, k: np.count_nonzero(got) == k and len(set(a.tolist())) < a.size,
        says="{where} your weights {got} choose a later key among tied scores. Tie rule: among tied scores, the key with the lower index is chosen first. Which order of the indices does your sort give to equal scores?",
        hint="np.argsort(alpha)[::-1] reverses the order of ties as well; sort -alpha instead, stably."),
    Mistake(wrong=lambda a, k: hard_attention(-a, k),
        says="{where} your weights {got} sit on the k smallest scores. Which end of the sorted order holds the largest?",
        hint="np.argsort sorts in ascending order."),
    Mistake(wrong=lambda a, k: k * _top_k(a, k),
        says="{where} your weights {got} are 1 on each chosen key: they sum to k. How do k keys share the attention?",
        hint="The weights still sum to 1."),
    Mistake(when=lambda got, a, k: np.count_nonzero(got) == k and len(set(np.round(got[got > 0], 9))) > 1,
        says="{where} your weights {got} follow a softmax of the chosen scores. Does a score change a chosen key's weight in hard top-k attention?",
        hint="Each chosen key gets the same weight."),
    Mistake(when=lambda got, a, k: abs(got.sum() - 1) > 1e-6,
        says="{where} your weights {got} do not sum to 1. What does each chosen key get?",
        hint="k keys, equal shares."),
]
# fmt: on


@exercise("top-k hard attention")
def check_top_k(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, k)``: 1/k on the k largest scores, 0 elsewhere; ties go to the lower index."""
    return check_function(
        name,
        fn,
        TOP_K_CASES,
        _top_k,
        TOP_K_MISTAKES,
        shape="one weight per score",
        otherwise=Mistake(
            "{where} your weights {got} are 1/k on k keys, but not on the k largest scores. Which keys did you choose, and what are their scores?",
            hint="Sort the indices by score, largest first, ties by index.",
        ),
        success="1/k on exactly k keys, the largest scores, ties to the lower index, also for huge and tiny scores.",
        fix=_TOP_K_FIX,
    )


@exercise(
    lambda temperature, scores, target=0.5, tolerance=0.01: f"the temperature at which the largest weight is {target:g}"
)
def check_temperature_for_weight(name, temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    value, why = read_number(temperature, "Your temperature")
    if why is not None or not np.isfinite(value) or value <= 0:
        return Feedback(
            name,
            False,
            [why or f"Give a positive finite temperature; got {value:g}. (At T = 0 the largest weight is 1.)"],
        )
    top = float(softmax(scores, value).max())
    if abs(top - target) <= tolerance:
        return Feedback(name, True, [f"At T = {value:g} the largest weight is {top:.3f}."])
    way = "spread the weights more: raise or lower T?" if top > target else "make them more peaked: raise or lower T?"
    return Feedback(
        name,
        False,
        [f"At T = {value:g} the largest weight is {top:.3f}, not {target:g}. You need to {way}"],
        hint="The largest weight falls steadily as T grows: bisect on log T.",
    )


@exercise(
    lambda bound, scores, n=6, temperature=0.5: (
        f"the largest gap between the smooth max and the max (n = {n}, T = {temperature:g})"
    )
)
def check_smooth_max_gap(name, bound, scores, n=6, temperature=0.5) -> Feedback:
    """Predict-then-check: ``bound`` = max over n scores of T logsumexp(alpha / T) - max(alpha); ``scores`` reach it."""
    value, why = read_number(bound, "Your bound")
    if why is not None:
        return Feedback(name, False, [why])
    truth, hints = temperature * np.log(n), []
    if abs(value - truth) > 1e-6:
        known = {
            np.log(n): "That is the largest gap at T = 1. How does the gap scale with T?",
            temperature * np.log(n - 1): "Does the sum count the winner's own term?",
            np.log(n - 1): "Does the sum count the winner's own term, and how does the gap scale with T?",
            np.log(n) / temperature: "Must the gap grow or shrink as T -> 0?",
        }
        hints.append(
            next((v for k, v in known.items() if abs(value - k) < 1e-6), None)
            or (
                "Some scores give a larger gap. How large can each term exp((alpha_i - max) / T) be?"
                if value < truth
                else "No scores reach that gap: how large can each term exp((alpha_i - max) / T) be?"
            )
        )
    if unanswered(scores):
        return Feedback(name, False, [*hints, "Now give n scores that reach your bound (replace the `...`)."])
    array, why = to_float_array(scores, "Your scores")
    if why is None and (array.shape != (n,) or not np.all(np.isfinite(array))):
        why = f"Give {n} finite scores (shape ({n},)); got shape {array.shape}."
    if why is not None:
        return Feedback(name, False, [*hints, why])
    gap = float(logsumexp(array, temperature)) - float(array.max())
    if abs(gap - truth) > 1e-6:
        hints.append(f"Your scores give a gap of {gap:.4f}. Which scores make every term as large as it can be?")
    if hints:
        return Feedback(
            name, False, hints, hint="Each term exp((alpha_i - max) / T) is at most 1, the winner's exactly 1."
        )
    return Feedback(
        name,
        True,
        [
            f"The gap is at most T log n = {truth:.4f}, reached exactly when all scores are equal: the smooth max overshoots most when there is no clear winner."
        ],
    )


def _reinforce_truth(alpha, losses):
    """The exact gradient of sum_i p_i L_i, the variance of one sample per coordinate, p, and the per-key terms."""
    p = softmax(alpha)
    per_key = losses[:, None] * (np.eye(alpha.size) - p)  # row i: the estimate when key i is drawn, (n, n)
    mean = p @ per_key
    return mean, p @ per_key**2 - mean**2, p, per_key


def _reinforce_exact(alpha, losses, n_samples, rng):
    return _reinforce_truth(alpha, losses)[0]


def _near(got, target, alpha, losses, m):
    se = float(np.sqrt(_reinforce_truth(alpha, losses)[1].sum() / m))
    return np.linalg.norm(got - target) <= 0.1 * np.linalg.norm(target) + 5 * se


def _reinforce_ok(got, exact, alpha, losses, m, rng):
    se = float(np.sqrt(_reinforce_truth(alpha, losses)[1].sum() / m))  # the typical ||mean of m samples - exact||
    return got.shape == exact.shape and np.linalg.norm(got - exact) <= 5 * se and not np.allclose(got, exact, atol=1e-9)


_RF_FIX = "`p = softmax(alpha); i = rng.choice(len(alpha), size=n_samples, p=p); return np.mean(losses[i][:, None] * (np.eye(len(alpha))[i] - p), axis=0)`"


def _rf(says, hint, target=None, when=None):
    test = when or (lambda got, a, L, m, rng: _near(got, target(a, L, m), a, L, m))
    return Mistake(says, hint=hint, fix=_RF_FIX, when=test)


# fmt: off
REINFORCE_MISTAKES = [
    _rf("{where} your estimate is the exact gradient p_j (L_j - sum_i p_i L_i), from all keys. What does the exercise ask you to use instead?",
        "Draw keys with rng; a model often cannot look at every key.",
        when=lambda got, a, L, m, rng: np.allclose(got, _reinforce_truth(a, L)[0], atol=1e-9)),
    _rf("{where} your estimate points the wrong way. What is the gradient of log p_i with respect to alpha?",
        "d log p_i / d alpha = one_hot(i) - p.",
        lambda a, L, m: -_reinforce_truth(a, L)[0]),
    _rf("{where} your estimate is about n_samples times too large. Sum or average?",
        "Divide by the number of samples.",
        lambda a, L, m: m * _reinforce_truth(a, L)[0]),
    _rf("{where} you averaged the sampled loss L_i one_hot(i), which does not depend on alpha. What must multiply each sampled loss?",
        "The score function: the gradient of log p_i.",
        lambda a, L, m: _reinforce_truth(a, L)[2] * L),
    _rf("{where} you used the gradient of p_i, not of log p_i. Which one makes the estimate unbiased?",
        "grad log p_i = (grad p_i) / p_i.",
        lambda a, L, m: (lambda t: t[2] @ (t[2][:, None] * t[3]))(_reinforce_truth(a, L))),
    _rf("{where} you divided each sample's term by p_i once more. Is L_i (one_hot(i) - p) already the score function's estimate?",
        "The division by p_i happened inside the derivative of the log.",
        lambda a, L, m: L - L.sum() * _reinforce_truth(a, L)[2]),
    _rf("{where} your keys seem drawn uniformly. From which distribution must they come?",
        "rng.choice takes the probabilities p.",
        lambda a, L, m: np.mean(_reinforce_truth(a, L)[3], axis=0)),
    _rf("{where} your estimate is about zero. Did the baseline you subtracted depend on the sampled key itself?",
        "A baseline must be fixed before sampling.",
        lambda a, L, m: np.zeros(a.size)),
]
# fmt: on


@exercise("a REINFORCE (score-function) gradient estimate")
def check_reinforce(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, losses, n_samples, rng)`` estimates d/dalpha sum_i softmax(alpha)_i losses_i from
    sampled keys; passes within 5 standard errors (in norm), so an estimate with a baseline passes too."""
    cases = [
        Case(
            (
                _A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]),
                _A([5.0, 26.0, 5.0, 18.25, 0.0, 18.0]),
                20_000,
                np.random.default_rng(0),
            ),
            "For the running example's scores and losses with 20000 samples",
        ),
        Case(
            (_A([0.0, -1.0, 1.0]), _A([1.0, -2.0, 3.0]), 20_000, np.random.default_rng(1)),
            "For scores [0, -1, 1], losses [1, -2, 3] and 20000 samples",
        ),
    ]
    return check_function(
        name,
        fn,
        cases,
        _reinforce_exact,
        REINFORCE_MISTAKES,
        compare=_reinforce_ok,
        shape="one entry per score",
        otherwise=Mistake(
            "{where} your estimate {got} is further from the exact gradient than sampling noise explains (5 standard errors). What is one sample's estimate?",
            hint="One sample: L_i (one_hot(i) - p) with i drawn from p; then average.",
        ),
        success="Within sampling error of the exact gradient: the score-function estimator is unbiased, and its error shrinks like 1/sqrt(number of samples).",
        fix=_RF_FIX,
    )


def _positional(alpha, values, b):
    return softmax(alpha + b * np.arange(alpha.size)) @ values


_POS_FIX = (
    "`scores = alpha + b * np.arange(len(alpha)); w = np.exp(scores - scores.max()); return (w / w.sum()) @ values`"
)
_rng = np.random.default_rng(5)
_V6, _V6b, _V5 = _rng.normal(size=(6, 2)), _rng.normal(size=(6, 2)), _rng.normal(size=(5, 3))
_ALPHA = _A([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])
# fmt: off
POSITION_CASES = [
    Case((_ALPHA, _V6, 0.0),
        "With b = 0"),
    Case((_ALPHA, _V6b, 0.5),
        "With b = 0.5"),
    Case((_rng.normal(size=5), _V5, -1.0),
        "With b = -1"),
    Case((_A([1000.0, 1001.0, 998.0, 1000.5, 999.0]), _V5, 2.0),
        "For the huge scores [1000, 1001, 998, 1000.5, 999] with b = 2"),
    Case((_ALPHA, _V6, 300.0),
        "With the large slope b = 300"),
    Case((_A([2.0, 2.0, 2.0, 2.0, 2.0]), _V5, 1e-3),
        "For tied scores with the tiny slope b = 0.001"),
]
# fmt: on
# fmt: off
POSITION_MISTAKES = [
    Mistake(wrong=lambda a, v, b: (a + b * np.arange(a.size)) @ v,
        says="{where} your output {got} is a weighted sum of the values with the raw scores as weights. What turns scores into weights?",
        hint="Weights are >= 0 and sum to 1."),
    Mistake(wrong=lambda a, v, b: softmax(a) @ (v + b * np.arange(a.size)[:, None]),
        says="{where} you added the position to the values. Should order change the values, or which keys are attended to?",
        hint="The slot's term belongs to the scores alpha_i."),
    Mistake(
        "{where} you added the position term to the output: every coordinate moved by the same amount, but the weights are still softmax(alpha). Should order change where the output lies, or which keys are attended to?",
        hint="The slot's term belongs inside the softmax.",
        when=lambda got, a, v, b: (
            b != 0 and np.ptp(got - softmax(a) @ v) < 1e-9 and abs(float((got - softmax(a) @ v).reshape(-1)[0])) > 1e-9
        ),
    ),
    Mistake(wrong=lambda a, v, b: softmax(a + b * np.argsort(np.argsort(a))) @ v,
        says="{where} your position term moves with the keys (it depends on the key, e.g. on its score's rank). What must it depend on instead?",
        hint="Slot i = 0, 1, ..., n - 1, whatever key sits there."),
    Mistake(wrong=lambda a, v, b: softmax(a * b * np.arange(a.size)) @ v,
        says="{where} your output {got}: you multiplied the score by the position. Add or multiply?",
        hint="The model's score is alpha_i + b i."),
    Mistake(wrong=lambda a, v, b: _positional(a, v, -b),
        says="{where} your output {got} favours the other end: later slots should gain for b > 0. Which way does your position count?",
        hint="Slot i counts from 0 at the first key."),
    Mistake(when=lambda got, a, v, b: not np.isfinite(got).all(),
        says="{where} you returned {got}: NaN or inf. Which exponent overflows, and what can a softmax subtract without changing its weights?",
        hint="Subtract the largest of the shifted scores alpha_i + b i."),
]
# fmt: on


@exercise("attention that notices order: a position term in the scores")
def check_positional_attention(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, values, b)`` returns softmax(alpha_i + b * i) @ values, i = slot 0..n-1."""
    moved = float(np.linalg.norm(_positional(_ALPHA[::-1], _V6b[::-1], 0.5) - _positional(_ALPHA, _V6b, 0.5)))
    return check_function(
        name,
        fn,
        POSITION_CASES,
        _positional,
        POSITION_MISTAKES,
        shape="one output vector, as wide as a value",
        otherwise=Mistake(
            "{where} your output {got} is not the attention output with the position term. Which step differs: the scores alpha_i + b i, the softmax, or the weighted average?",
            hint="Print the weights: do they sum to 1, and does b tilt them towards later slots?",
        ),
        success=f"Reversing the keys and values together now moves the output by {moved:.3f} (at b = 0.5); at b = 0 it would not move at all. The slot matters now: that is what positional encodings give attention.",
        fix=_POS_FIX,
    )
