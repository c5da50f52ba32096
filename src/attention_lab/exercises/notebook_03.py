"""Exercise checks of notebook 03, Nadaraya-Watson kernel regression (answers: ``solutions/notebook_03.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from ..kernels import loo_bandwidth, nadaraya_watson
from ..regression_data import make_regression_data
from .answers import read_number
from .feedback import Feedback, exercise, unanswered
from .runner import Case, Mistake, implement

__all__ = [
    "check_knn_regression",
    "check_bandwidth_search",
    "check_small_h_limit",
    "check_bandwidth_rate",
    "check_noise_prediction",
]
_A = np.array


def _knn(x_query, x_keys, y_values, k_top):
    order = np.argsort(np.abs(x_query[:, None] - x_keys[None, :]), axis=1, kind="stable")[:, :k_top]  # (n_q, k_top)
    return y_values[order].mean(axis=1)  # (n_q,)


def _knn_by(score, k_of=lambda k_top: k_top, pick=lambda order, k_top: order[:, :k_top]):
    def wrong(xq, xk, y, k_top):
        order = np.argsort(score(xq[:, None] - xk[None, :]), axis=1, kind="stable")
        return y[pick(order, k_of(k_top))].mean(axis=1)

    return wrong


def _tie_at_k(
    xq, xk, k_top
):  # (n_q,): keys tie at the k_top-th smallest distance, more of them than the k_top places left
    d = np.abs(xq[:, None] - xk[None, :])  # (n_q, n_k)
    return np.sum(d <= np.sort(d, axis=1)[:, k_top - 1 : k_top], axis=1) > k_top


def _other_tied_keys(got, xq, xk, y, k_top):  # right wherever no tie decides, wrong where one does: not reversed
    reversed_sort = y[xk.size - 1 - np.argsort(np.abs(xq[:, None] - xk[None, :])[:, ::-1], axis=1, kind="stable")[:, :k_top]].mean(axis=1)  # fmt: skip
    wrong = ~np.isclose(got, _knn(xq, xk, y, k_top))
    return wrong.any() and not wrong[~_tie_at_k(xq, xk, k_top)].any() and not np.allclose(got, reversed_sort)


def _knn_threshold(xq, xk, y, k_top):  # every key within the k_top-th smallest distance
    inside = (lambda d: d <= np.sort(d, axis=1)[:, k_top - 1 : k_top])(np.abs(xq[:, None] - xk))
    return (inside * y).sum(1) / inside.sum(1)


_COURSE = make_regression_data(50, seed=0)
_REACH = np.sort(np.abs(_COURSE.x_test[:, None] - _COURSE.x_train[None, :]), axis=1)[:, 4]  # the 5th nearest key
_DIST = "The distance from a query to a key is |x - x_i|, one row per query: (n_q, n_k)."
# fmt: off
check_knn_regression = implement("k-nearest-neighbour pooling (a model change)", [
    Case((_A([0.1, 1.7, 2.9]), _A([0.0, 1.0, 2.2, 3.1, 4.0]), _A([5.0, 6.0, 7.0, 8.0, 9.0]), 1), "For queries [0.1, 1.7, 2.9], keys [0, 1, 2.2, 3.1, 4] and k_top = 1"),
    Case((_A([0.4, 2.5, 3.9]), _A([3.0, 0.0, 4.0, 1.0, 2.0, 0.5]), _A([1.0, -2.0, 3.0, 0.5, 2.0, -1.0]), 2), "For queries [0.4, 2.5, 3.9], the unsorted keys [3, 0, 4, 1, 2, 0.5] and k_top = 2"),
    Case((_A([1.0, -50.0]), _A([0.0, 2.0, 0.5, 3.0]), _A([1.0, 2.0, 3.0, 4.0]), 4), "For queries [1, -50], four keys and k_top = 4 (every key)"),
    Case((_A([0.0, 0.1]), np.tile(_A([1.0, -1.0, 2.0, -2.0]), 50), np.arange(200.0), 60), "For the queries [0, 0.1], 200 keys [1, -1, 2, -2] repeated 50 times (100 keys tied at distance 1 from the query 0), values 0, 1, ..., 199, and k_top = 60"),
    Case((_A([1.5]), _A([1.0, 2.0, 0.0, 0.5]), _A([2.0, 6.0, -1.0, 0.5]), 1), "For the query 1.5, midway between the keys 1 and 2, and k_top = 1 (a tie)"),
    Case((_A([0.25]), _A([1.0, 2.0, 0.0, 0.5]), _A([2.0, 6.0, -1.0, 0.5]), 1), "For the query 0.25, midway between the keys 0 and 0.5, and k_top = 1 (a tie)"),
    Case((_A([3.0]), _A([1.0, 3.5, 2.5, 3.0, 3.5]), _A([-1.0, 2.0, 5.0, 0.0, 4.0]), 2), "For the query 3 with keys 2.5 and 3.5 (twice) tied at distance 0.5, and k_top = 2"),
    Case((_A([1e8, -1e-9]), _A([0.0, 1e-12, 2.0]), _A([1.0, 3.0, 5.0]), 2), "For a query far from every key (1e8), one at -1e-9 next to the near-tie 0 and 1e-12, and k_top = 2"),
], _knn, [
    Mistake.of(_knn_by(np.abs, pick=lambda o, k_top: o[:, o.shape[1] - k_top :]), "{where} you returned {got}: the average of the k_top farthest keys. Which end of the sorted distances holds the nearest?", "np.argsort sorts in ascending order."),
    Mistake.of(_knn_by(lambda d: -d), "{where} you returned {got}: you sort x_i - x with its sign, so keys far to the left count as near. What is the distance between two points on a line?", _DIST),
    Mistake.of(_knn_by(lambda d: d), "{where} you returned {got}: you sort x - x_i with its sign, so keys far to the right count as near. What is the distance between two points on a line?", _DIST),
    Mistake.of(_knn_threshold, "{where} you returned {got}: you average every key within the k_top-th smallest distance, so tied keys are all kept, more than k_top. The tie rule (among keys tied at the k_top-th smallest distance, the one with the lower index is chosen first) keeps exactly k_top: which ones?", "A threshold cannot break ties; a stable ordering of the indices can."),
    Mistake.of(_knn_by(np.abs, k_of=lambda k_top: k_top + 1), "{where} you returned {got}: the average of k_top + 1 keys. Where does your count stop?", "Slicing [:, :k_top] keeps k_top columns."),
    Mistake.of(lambda xq, xk, y, k_top: k_top * _knn(xq, xk, y, k_top), "{where} you returned {got}: the sum of the k_top nearest values. A sum or an average?", "Each of the k_top nearest keys gets the weight 1/k_top."),
    Mistake.of(lambda xq, xk, y, k_top: _knn(xq, xk, xk, k_top), "{where} you returned {got}: averages of the nearest keys x_i themselves. What should be averaged?", "Keys decide who is near; values are averaged."),
    Mistake.of(lambda xq, xk, y, k_top: _knn(xq, xk, np.arange(xk.size, dtype=float), k_top), "{where} you returned {got}: averages of the nearest keys' indices. What should the indices select?", "Index the values with them."),
    Mistake.of(lambda xq, xk, y, k_top: np.full(xq.size, y[np.argsort(xk, kind="stable")[:k_top]].mean()), "{where} you returned {got}: the first k_top values, whatever the query. Did you sort the keys by position instead of by distance to each query?", _DIST),
    Mistake.of(lambda xq, xk, y, k_top: y[xk.size - 1 - np.argsort(np.abs(xq[:, None] - xk[None, :])[:, ::-1], axis=1, kind="stable")[:, :k_top]].mean(axis=1), "{where} you returned {got}: among tied keys you chose a later one. Tie rule: among keys tied at the k_top-th smallest distance, the one with the lower index is chosen first. What order does your sort give equal distances?", "A reversed sort reorders ties too."),
    Mistake(when=_other_tied_keys, says="{where} you returned {got}: right wherever no tie decides, but where keys tie at the k_top-th smallest distance you did not take the tied keys with the lowest indices. Your sort does not keep equal distances in index order: np.argsort's default sort (and np.argpartition) is not stable, so on longer rows it may put tied keys in any order, and another order on another machine. Which kind of sort keeps ties in index order?", hint="A stable sort keeps equal distances in the order of their indices (np.argsort's kind argument chooses the sort)."),
], shape="one prediction per query: (n_q,)",
    otherwise=Mistake("{where} you returned {got}: not the average of the k_top nearest values. For one query, which keys did you pick, and in what order are tied ones taken (among keys tied at the k_top-th smallest distance, the one with the lower index is chosen first)?", _DIST),
    success=_("Your k-nearest-neighbour pooling is top-k hard attention on the score -|x - x_i| (notebook 02). Its window adapts: on the course data with k_top = 5 the fifth nearest key lies {near:.2f} from a query where keys are dense and {far:.2f} where they are sparse, where a Gaussian uses one h everywhere; and, unlike the compact kernels of section 6, it never leaves a query without keys.").format(near=_REACH.min(), far=_REACH.max()),
    fix='`order = np.argsort(np.abs(x_query[:, None] - x_keys[None, :]), axis=1, kind="stable")[:, :k_top]; return y_values[order].mean(axis=1)`',
    doc="Exercise: ``fn(x_query, x_keys, y_values, k_top)``: each query averages the values of its k_top nearest keys.")
# fmt: on


def _errors(x_train, y_train, x_val, y_val, grid):
    return [np.mean((nadaraya_watson(x_val, x_train, y_train, bandwidth=h)[0] - y_val) ** 2) for h in grid]


def _search(x_train, y_train, x_val, y_val, grid):
    return float(grid[int(np.argmin(_errors(x_train, y_train, x_val, y_val, grid)))])


def _search_cases():
    grid, line, rng = np.geomspace(0.02, 5, 25), np.linspace(0, 5, 40), np.random.default_rng(2)
    cases = []
    for n, seed, noise, what in ((50, 3, 0.5, "For 50 noisy points"), (30, 4, 0.1, "For 30 nearly noise-free points")):
        d, v = make_regression_data(n, noise=noise, seed=seed), make_regression_data(100, noise=noise, seed=seed + 10)
        cases.append(Case((d.x_train, d.y_train, v.x_train, v.y_train, grid), what))
    noisy_line = (
        line,
        2 * line + rng.normal(0, 1.0, 40),
        line + 0.06,
        2 * (line + 0.06) + rng.normal(0, 1.0, 40),
        grid,
    )
    constant = (line[:4], _A([1.0, 1.0, 1.0, 1.0]), line[:4] + 0.01, _A([1.0, 1.0, 1.0, 1.0]), grid)
    return [*cases, Case(noisy_line, "For a noisy straight line (where a wide kernel wins)"),
            Case(constant, "For constant targets (every h ties: the smallest wins)")]  # fmt: skip


# fmt: off
check_bandwidth_search = implement("the bandwidth with the smallest held-out error", _search_cases, _search, [
    Mistake.of(lambda xt, yt, xv, yv, g: _search(xt, yt, xt, yt, g), "{where} you returned {got}, the smallest bandwidth: a fit judged on its own training points copies their targets. On which points must the error be measured?", "Fit on the training set; predict at x_val; compare with y_val."),
    Mistake.of(lambda xt, yt, xv, yv, g: float(g[int(np.argmax(_errors(xt, yt, xv, yv, g)))]), "{where} you returned {got}: the bandwidth with the LARGEST held-out error. Which one do we want?", "np.argmin, not np.argmax."),
    Mistake.of(lambda xt, yt, xv, yv, g: float(np.argmin(_errors(xt, yt, xv, yv, g))), "{where} you returned {got}: a position in the grid, not a bandwidth. What does the index select?", "Return the grid's entry at that index."),
    Mistake.of(lambda xt, yt, xv, yv, g: float(np.min(_errors(xt, yt, xv, yv, g))), "{where} you returned {got}: the smallest error, not the bandwidth that reaches it. Which of the two is the answer?", "argmin gives where, min gives how much."),
    Mistake.of(lambda xt, yt, xv, yv, g: _search(xv, yv, xt, yt, g), "{where} you returned {got}: the fit used the validation points as keys. Which set supplies the keys and values, and which one judges?", "Keys and values: the training set."),
    Mistake.of(lambda xt, yt, xv, yv, g: loo_bandwidth(xt, yt, bandwidths=g), "{where} you returned {got}: the leave-one-out choice on the training set. That is a good method, but this exercise scores each h on the held-out set: which points does yours use?", "Predict at x_val, compare with y_val."),
], shape="one number, the bandwidth",
    otherwise=Mistake("{where} you returned {got}, not the grid's bandwidth with the smallest held-out error. Does your value come from the data passed in, and from which set's error?", "For each h of the grid: fit on the training set, predict at x_val, mean squared error against y_val; keep the h with the smallest."),
    success="Your search finds each data set's own best h: small for nearly noise-free data, large for a noisy straight line. No h is right for every data set; a held-out set (or leave-one-out) chooses it.",
    fix="`errors = [np.mean((al.nadaraya_watson(x_val, x_train, y_train, bandwidth=h)[0] - y_val) ** 2) for h in grid]; return grid[int(np.argmin(errors))]`",
    doc="Exercise: ``fn(x_train, y_train, x_val, y_val, grid)``: the grid h with the smallest held-out MSE (ties: the smaller h), checked on data sets whose best h differ (so no number copied from above passes).")
# fmt: on


def _small_h(x_query, x_keys, y_values):
    distance = np.abs(x_query[:, None] - x_keys[None, :])  # (n_q, n_k)
    tied = distance == distance.min(axis=1, keepdims=True)
    return (tied * y_values).sum(axis=1) / tied.sum(axis=1)


def _argmin_value(xq, xk, y, last=False):
    d = np.abs(xq[:, None] - xk[None, :])
    return y[xk.size - 1 - np.argmin(d[:, ::-1], axis=1)] if last else y[np.argmin(d, axis=1)]


# fmt: off
check_small_h_limit = implement("the limit h -> 0, ties included", [
    Case((_A([0.1, 1.7, 2.9]), _A([0.0, 1.0, 2.2, 3.1]), _A([5.0, 6.0, 7.0, 8.0])), "For queries [0.1, 1.7, 2.9], keys [0, 1, 2.2, 3.1] and values [5, 6, 7, 8]"),
    Case((_A([1.5, 0.25, 4.2]), _A([1.0, 2.0, 0.0, 4.0]), _A([2.0, 6.0, -1.0, 0.5])), "For queries [1.5, 0.25, 4.2] (1.5 midway between keys 1 and 2), keys [1, 2, 0, 4]"),
    Case((_A([3.0, 2.0, 3.3]), _A([1.0, 3.2, 3.2, 3.0, 1.0]), _A([-1.0, 2.0, 5.0, 0.0, 4.0])), "For queries [3, 2, 3.3], keys [1, 3.2, 3.2, 3, 1] (3.2 twice) and values [-1, 2, 5, 0, 4]"),
    Case((_A([1e6, 1.0 + 2e-12]), _A([0.0, 1.0, 1.0 + 1e-12]), _A([3.0, 4.0, 8.0])), "For a query far from every key (1e6) and one next to the near-tie 1 and 1 + 1e-12"),
], _small_h, [
    Mistake.of(lambda xq, xk, y: np.argmin(np.abs(xq[:, None] - xk), 1) * 1.0, "{where} you returned {got}: the indices of the nearest keys. What should they select?", "Return values y_i."),
    Mistake.of(lambda xq, xk, y: _argmin_value(xq, xk, xk), "{where} you returned {got}: the nearest keys x_i themselves. Keys decide, but what is returned?", "Return values y_i."),
    Mistake.of(lambda xq, xk, y: np.full(xq.size, y.mean()), "{where} you returned {got}: the mean of all values, the h -> infinity limit. Where does the weight go as h -> 0?", "To the keys with the largest score, the nearest."),
    Mistake(when=lambda got, xq, xk, y: np.allclose(got, _argmin_value(xq, xk, y)) or np.allclose(got, _argmin_value(xq, xk, y, last=True)), says="{where} you returned {got}: for a query with several keys at the same smallest distance you gave one of their values (np.argmin takes the first). Tied keys have equal scores at every h, so equal weights: what do they share in the limit?", hint="The limit averages the tied keys' values."),
    Mistake(when=lambda got, xq, xk, y: not np.isfinite(got).all(), says="{where} you returned {got}: NaN or inf. Is there a kernel or exponential left in your code, which underflows to 0 at a tiny h?", hint="The limit needs only distances, a comparison and an average."),
    Mistake(when=lambda got, xq, xk, y: np.all(np.isin(got, y)), says="{where} you returned {got}: each is one of the values, but not that of the key closest to the query. Nearest on which side?", hint="Nearest means the smallest |x - x_i|, on either side."),
], shape="one prediction per query: (n_q,)",
    otherwise=Mistake("{where} you returned {got}: not the h -> 0 limit. Where one key is nearest the limit is its value; where several tie? Tied keys have equal scores at every h, so equal weights: what do they share in the limit?", "Average the tied keys' values."),
    success="As h -> 0 the softmax goes to the keys with the largest score, the nearest, in equal shares: one-hot at a single nearest key, an average where keys tie. A hard attention, like T -> 0, splitting ties the same way.",
    fix="`d = np.abs(x_query[:, None] - x_keys[None, :]); tied = d == d.min(axis=1, keepdims=True); return (tied * y_values).sum(axis=1) / tied.sum(axis=1)`",
    doc="Exercise: ``fn(x_query, x_keys, y_values)``: the h -> 0 limit of Gaussian Nadaraya-Watson (tied nearest keys share the weight equally).")
# fmt: on


def _near(a, b, tol=0.01):
    return a is not None and abs(a - b) <= tol


_RATE_H = {
    -0.2: "The exponent of h* is right.",
    0.2: "With a positive exponent h* would grow with n. Does a query with more data need a wider window?",
    -1 / 3: "That balances h^2 against 1/(n h). Does the error hold the bias, or its square?",
    -0.25: "That comes from h^4 ~ 1/n. What is the derivative of B/(n h) with respect to h?",
    -1: "h ~ 1/n keeps n h fixed: would the variance B/(n h) ever shrink?",
    5: "That solves for n as a power of h; the question asks for h as a power of n.",
    -5: "That solves for n as a power of h; the question asks for h as a power of n.",
}
_RATE_ERROR = {
    -0.8: "The exponent of the error is right.",
    -1: "1/n is the rate without bias. What does the bias term do when you put h* back?",
    0.8: "A positive exponent would make the error grow with more data: which sign?",
    -0.4: "That is how the bias h*^2 shrinks. Does the error hold the bias or its square?",
}


@exercise("how fast the best bandwidth shrinks with n")
def check_bandwidth_rate(name, h_exponent, error_exponent) -> Feedback:
    """Exercise: the exponents r_h, r_e in h* ~ n^r_h and error(h*) ~ n^r_e for error(h) = A h^4 + B / (n h)."""
    if unanswered(error_exponent):
        return Feedback(name, False, "Replace the `...` with your code, then run the cell again.", attempted=False)
    (a, why_a), (b, why_b) = read_number(h_exponent, "The exponent of h*"), read_number(error_exponent, "The exponent of the error")  # fmt: skip
    if why_a or why_b:
        return Feedback(name, False, [w for w in (why_a, why_b) if w])
    if _near(a, -0.2) and _near(b, -0.8):
        return Feedback(name, True, _("h* ~ n^(-1/5) and the error ~ n^(-4/5): doubling the data shrinks h* by 2^(-1/5) = {h:.3f} and the error by 2^(-4/5) = {e:.3f}. Compare with the slopes measured below.").format(h=2**-0.2, e=2**-0.8))  # fmt: skip
    hints = [next((v for k, v in _RATE_H.items() if _near(a, k)), None) or _("h* ~ n^{a:g} does not minimise A h^4 + B/(n h). What does setting the derivative to zero give?").format(a=a)]  # fmt: skip
    if _near(b, a) and not _near(b, -0.8):
        hints.append("Your error exponent equals your h* exponent: put h* back into A h^4 + B/(n h); what power of n does each term get?")  # fmt: skip
    else:
        hints.append(next((v for k, v in _RATE_ERROR.items() if _near(b, k)), None) or _error_exponent_says(b))
    # fmt: off
    return Feedback(name, False, hints, hint="Put h* back into both terms: with h* ~ n^(-1/5), which power of n does A h*^4 get, and which B / (n h*)?" if _near(a, -0.2) else "4 A h^3 = B / (n h^2) at the minimum: solve for h.", fix="h*^5 = B / (4 A n), so r_h = -1/5; both terms then scale as n^(-4/5), r_e = -4/5.")
    # fmt: on


def _error_exponent_says(b):
    """What an error exponent the table does not name implies, and a question."""
    if b >= 0:
        return _("error ~ n^{b:g} would not shrink as the data grow, yet both terms, A h*^4 and B/(n h*), fall once h* shrinks more slowly than 1/n. Which sign must the exponent have?").format(b=b)  # fmt: skip
    if b < -1:
        return _("error ~ n^{b:g} falls faster than 1/n: faster than the variance of the mean of n noisy points, which has no bias at all. Can averaging fewer, nearer points do better than that? Put h* back into A h^4 + B/(n h): which power of n does each term get?").format(b=b)  # fmt: skip
    return _("error ~ n^{b:g} means that doubling the data multiplies the error by 2^{b:g} = {factor:.2f}. Put h* back into A h^4 + B/(n h): which power of n does each term get, and is either {b:g}?").format(b=b, factor=2**b)  # fmt: skip


@exercise("predict, then check: more noise, which bandwidth?")
def check_noise_prediction(name, prediction, h_noisy, x_train, y_noisy, h_calm) -> Feedback:
    """Exercise: predict how the leave-one-out h changes when the noise doubles ("larger", "smaller" or "the
    same"), then measure it (``h_noisy``); ``h_calm`` is the bandwidth with the original noise."""
    words = {"larger": "A", "smaller": "B", "same": "C", "the same": "C"}
    said = words.get(prediction.strip().lower()) if isinstance(prediction, str) else None
    if said is None:
        return Feedback(name, False, _('Write your prediction as one of "larger", "smaller" or "the same", in quotes; got {answer}.').format(answer=repr(prediction)[:40]))  # fmt: skip
    measured = loo_bandwidth(x_train, y_noisy)
    ratio = measured / h_calm
    truth = "A" if ratio > 1.05 else "B" if ratio < 1 / 1.05 else "C"
    if said != truth:  # the words the student wrote, never option letters they were not shown
        says = _("You predicted {word}. Which term of the error does the noise level change, the bias or the variance sigma^2 / (n h), and which way does that move the best h?")  # fmt: skip
        return Feedback(name, False, says.format(word=repr(prediction.strip())), hint="Doubling sigma multiplies sigma^2 / (n h) by 4.")  # fmt: skip
    if unanswered(h_noisy):
        return Feedback(name, False, "Your prediction is right. Now measure h_noisy and run the cell again.", attempted=False)  # fmt: skip
    h, why_h = read_number(h_noisy, "h_noisy")
    if why_h or h <= 0 or abs(h - measured) > 0.03 * measured:
        if why_h is None and abs(h - h_calm) <= 0.03 * h_calm:
            why_h = _("h_noisy = {h:.3g} is the calm data set's bandwidth: which targets did you use?").format(h=h)
        elif why_h is None:
            why_h = _("h_noisy = {h:.3g} is not the leave-one-out choice on the noisy data set. Which function and which data did section 4 use?").format(h=h)  # fmt: skip
        return Feedback(name, False, ["Your prediction is right.", why_h], fix="`h_noisy = al.loo_bandwidth(noisy.x_train, noisy.y_train)`")  # fmt: skip
    return Feedback(name, True, _("Measured: h went from {calm:.3g} to {noisy:.3g}, a factor {ratio:.2f}, as you predicted. Doubling the noise multiplies the variance term sigma^2 / (n h) by 4 and leaves the bias alone, so the balance moves to a wider kernel; the asymptotic h* ~ sigma^(2/5) n^(-1/5) says by 2^(2/5) = {rate:.2f}.").format(calm=h_calm, noisy=measured, ratio=ratio, rate=2**0.4))  # fmt: skip
