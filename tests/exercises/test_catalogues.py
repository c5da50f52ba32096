"""Catalogues of plausible wrong answers for every implement-check of notebooks 00-04, written as a student would.

Each entry: (a short name, the student's function, the words the first message must use, or None where the check
claims no name). Every entry must be rejected, and named where a phrase is given. Over every catalogue: the first
step of the feedback (``messages``) never contains the fix's code; the fix comes only at the third step.
"""

import re
from functools import cache

import numpy as np
import pytest
import torch
from helpers import load_solution, text

from attention_lab import exercises as ex
from attention_lab.exercises.feedback import Feedback

# --- 01 ex1: softmax with temperature ----------------------------------------------------------------------


def _sm(shift=lambda z: z.max(axis=-1, keepdims=True), pre=lambda a, t: a / t, axis=-1, keep=True):
    def softmax_with_temperature(alpha, temperature):
        z = pre(np.asarray(alpha, dtype=float), temperature)
        e = np.exp(z - shift(z))
        return e / e.sum(axis=axis, keepdims=keep) if axis is not None else e / e.sum()

    return softmax_with_temperature


def _max_before_t(alpha, temperature):
    e = np.exp(alpha / temperature - alpha.max(axis=-1, keepdims=True))  # "stable" at T = 1 only
    return e / e.sum(axis=-1, keepdims=True)


def _clip(alpha, temperature):
    e = np.exp(np.clip(alpha / temperature, -700, 700))
    return e / e.sum(axis=-1, keepdims=True)


SOFTMAX = [
    ("no shift", _sm(shift=lambda z: 0.0), "Without a shift"),
    ("whole-array max", _sm(shift=lambda z: z.max()), "largest score of the whole array"),
    ("row min", _sm(shift=lambda z: z.min(axis=-1, keepdims=True)), "each row's smallest score"),
    ("whole-array min", _sm(shift=lambda z: z.min()), "smallest score of the whole array"),
    ("row mean", _sm(shift=lambda z: z.mean(axis=-1, keepdims=True)), "each row's mean"),
    ("first score", _sm(shift=lambda z: z[..., :1]), "each row's first score"),
    ("column max", _sm(shift=lambda z: z.max(axis=0, keepdims=True)), "each column (axis 0)"),
    ("max before dividing by T", _max_before_t, "before dividing by T"),
    ("temperature ignored", _sm(pre=lambda a, t: a), "ignore the temperature"),
    ("multiplied by T", _sm(pre=lambda a, t: a * t), "softmax(alpha * T)"),
    ("sign flipped", _sm(pre=lambda a, t: -a / t), "smallest score"),
    ("columns sum to 1", _sm(axis=0), "each column sums to 1"),
    ("one sum for all", _sm(axis=None), "all of them together"),
    ("clipped exponent", _clip, None),
    ("no keepdims", lambda a, t: _sm()(a, t) if np.ndim(a) == 1 else np.exp(a / t) / np.exp(a / t).sum(axis=-1), None),
    ("max without keepdims", _sm(shift=lambda z: z.max(axis=-1)), "mix the rows"),
    ("sum without keepdims", _sm(keep=False), "each column sums to 1"),  # the same output on the 2 x 2 case
    ("both without keepdims", _sm(shift=lambda z: z.max(axis=-1), keep=False), "mix the rows"),
]

# --- 01 ex3: a key that appears m times ---------------------------------------------------------------------
COPIES = [
    ("unchanged", lambda lam, n_c: lam, "change nothing"),
    ("n_c times", lambda lam, n_c: n_c * lam, "n_c times the weight"),
    ("split", lambda lam, n_c: lam / n_c, "split"),
    ("independent chances", lambda lam, n_c: 1 - (1 - lam) ** n_c, "independent chance"),
    ("capped", lambda lam, n_c: min(n_c * lam, 1.0), "n_c times the weight"),
    ("one copy", lambda lam, n_c: lam / (1 + (n_c - 1) * lam), "one copy's weight"),
    ("everything copied", lambda lam, n_c: n_c * lam / (1 + n_c * lam), "counts the key n_c + 1 times"),
    ("no other keys", lambda lam, n_c: 1.0, "as if the denominator counted no other key"),
    ("square root", lambda lam, n_c: lam ** (1 / n_c), None),
    ("n_c over n_c + 1", lambda lam, n_c: lam * n_c / (n_c + 1), None),
]

# --- 02 ex1: the smooth maximum ------------------------------------------------------------------------------


def _lse(alpha, t):
    return t * np.log(np.sum(np.exp(alpha / t)))


SMOOTH_MAX = [
    ("naive", _lse, "overflows"),
    ("max before dividing by T", lambda a, t: a.max() + t * np.log(np.sum(np.exp(a / t - a.max()))), "only at T = 1"),
    ("hard max", lambda a, t: a.max(), "hard max"),
    ("no factor T", lambda a, t: a.max() / t + np.log(np.sum(np.exp((a - a.max()) / t))), "without the factor T"),
    ("log term without T", lambda a, t: a.max() + np.log(np.sum(np.exp((a - a.max()) / t))), "lacks its factor T"),
    ("T ignored", lambda a, t: a.max() + np.log(np.sum(np.exp(a - a.max()))), "temperature is ignored"),
    ("T outside only", lambda a, t: a.max() * t + t * np.log(np.sum(np.exp(a - a.max()))), "not divided by T"),
    ("max not added back", lambda a, t: t * np.log(np.sum(np.exp((a - a.max()) / t))), "did not add it back"),
    (
        "shifted, not divided by T",
        lambda a, t: a.max() + t * np.log(np.sum(np.exp(a - a.max()))),
        "right at T = 1 only",
    ),
    (
        "T times the max too",
        lambda a, t: t * (a.max() + np.log(np.sum(np.exp((a - a.max()) / t)))),
        "multiplies the max",
    ),
    ("mean instead of sum", lambda a, t: a.max() + t * np.log(np.mean(np.exp((a - a.max()) / t))), "below the max"),
    (
        "softmax-weighted mean",
        lambda a, t: float(np.exp(a / t - (a / t).max()) @ a / np.exp(a / t - (a / t).max()).sum()),
        None,
    ),
]

# --- 02 ex2: top-k --------------------------------------------------------------------------------------------


def _topk(pick):
    def top_k(alpha, k_top):
        w = np.zeros(len(alpha))
        w[pick(np.asarray(alpha), k_top)] = 1 / k_top
        return w

    return top_k


TOP_K = [
    ("k_top + 1 keys", _topk(lambda a, k_top: np.argsort(-a, kind="stable")[: k_top + 1]), "k_top + 1 keys"),
    ("threshold keeps ties", _topk(lambda a, k_top: a >= np.sort(a)[-k_top]), "more than k_top keys"),
    ("reversed argsort", _topk(lambda a, k_top: np.argsort(a, kind="stable")[::-1][:k_top]), "later key among tied"),
    ("last k_top of argsort", _topk(lambda a, k_top: np.argsort(a, kind="stable")[-k_top:]), "later key among tied"),
    ("k_top smallest", _topk(lambda a, k_top: np.argsort(a, kind="stable")[:k_top]), "k_top smallest"),
    (
        "weight 1",
        lambda a, k_top: k_top * _topk(lambda a, k_top: np.argsort(-a, kind="stable")[:k_top])(a, k_top),
        "sum to k_top",
    ),
    (
        "softmax of the chosen",
        lambda a, k_top: (
            np.where(
                _topk(lambda a, k_top: np.argsort(-a, kind="stable")[:k_top])(a, k_top) > 0, np.exp(a - a.max()), 0
            )
            / np.where(
                _topk(lambda a, k_top: np.argsort(-a, kind="stable")[:k_top])(a, k_top) > 0, np.exp(a - a.max()), 0
            ).sum()
        ),
        "softmax",
    ),
    (
        "weights 1/n",
        lambda a, k_top: np.where(
            _topk(lambda a, k_top: np.argsort(-a, kind="stable")[:k_top])(a, k_top) > 0, 1 / len(a), 0.0
        ),
        "do not sum to 1",
    ),
    ("largest by size", _topk(lambda a, k_top: np.argsort(-np.abs(a), kind="stable")[:k_top]), None),
    ("unstable argsort", _topk(lambda a, k_top: np.argsort(-a)[:k_top]), "not stable"),
    ("argpartition", _topk(lambda a, k_top: np.argpartition(-a, k_top - 1)[:k_top]), "not stable"),
    (
        "1/(k_top + 1) on k_top + 1 keys",
        lambda a, k_top: (
            (k_top / (k_top + 1)) * _topk(lambda a, k_top: np.argsort(-a, kind="stable")[: k_top + 1])(a, k_top)
        ),
        "1/(k_top + 1) each",
    ),
]

# --- 02 ex6: a position term ---------------------------------------------------------------------------------


def _softmax(s):
    e = np.exp(s - s.max())
    return e / e.sum()


POSITION = [
    ("no softmax", lambda a, v, b: (a + b * np.arange(len(a))) @ v, "raw scores as weights"),
    (
        "added to the output",
        lambda a, v, b: _softmax(a) @ v + b * (len(a) - 1) / 2,
        "added the position term to the output",
    ),
    ("added to the values", lambda a, v, b: _softmax(a) @ (v + b * np.arange(len(a))[:, None]), "to the values"),
    ("rank of the score", lambda a, v, b: _softmax(a + b * np.argsort(np.argsort(a))) @ v, "moves with the keys"),
    ("multiplied", lambda a, v, b: _softmax(a * b * np.arange(len(a))) @ v, "multiplied"),
    ("reversed slots", lambda a, v, b: _softmax(a + b * np.arange(len(a))[::-1]) @ v, "other end"),
    ("unstable exp", lambda a, v, b: (lambda e: e / e.sum())(np.exp(a + b * np.arange(len(a)))) @ v, "NaN or inf"),
    ("position ignored", lambda a, v, b: _softmax(a) @ v, None),
    ("beta divides", lambda a, v, b: _softmax(a + np.arange(len(a)) / b if b else a) @ v, None),
]

# --- 03 ex1: k nearest neighbours ----------------------------------------------------------------------------


def _knn(score=np.abs, k_of=lambda k_top: k_top, reverse=False, values=lambda xk, y: y, kind="stable"):
    def knn_regression(x_query, x_keys, y_values, k_top):
        order = np.argsort(score(x_query[:, None] - x_keys[None, :]), axis=1, kind=kind)
        chosen = order[:, ::-1][:, : k_of(k_top)] if reverse else order[:, : k_of(k_top)]
        return values(x_keys, y_values)[chosen].mean(axis=1)

    return knn_regression


def _knn_threshold(x_query, x_keys, y_values, k_top):
    d = np.abs(x_query[:, None] - x_keys[None, :])
    inside = d <= np.sort(d, axis=1)[:, k_top - 1 : k_top]
    return (inside * y_values).sum(axis=1) / inside.sum(axis=1)


KNN = [
    ("farthest", _knn(reverse=True), "farthest"),
    ("signed x_i - x", _knn(score=lambda d: -d), "with its sign"),
    ("signed x - x_i", _knn(score=lambda d: d), "with its sign"),
    ("k_top + 1", _knn(k_of=lambda k_top: k_top + 1), "k_top + 1 keys"),
    ("sum", lambda xq, xk, y, k_top: k_top * _knn()(xq, xk, y, k_top), "sum of the k_top nearest"),
    ("keys averaged", _knn(values=lambda xk, y: xk), "keys x_i themselves"),
    ("indices averaged", _knn(values=lambda xk, y: np.arange(len(xk), dtype=float)), "indices"),
    ("threshold keeps ties", _knn_threshold, "more than k_top"),
    (
        "gaussian instead",
        lambda xq, xk, y, k_top: (
            ex.runner.np.exp(-((xq[:, None] - xk) ** 2)) @ y / np.exp(-((xq[:, None] - xk) ** 2)).sum(1)
        ),
        None,
    ),
    ("sorted keys", lambda xq, xk, y, k_top: np.full(len(xq), y[np.argsort(xk)[:k_top]].mean()), "with its sign"),
    ("unstable argsort", _knn(kind=None), "not stable"),
    (
        "argpartition",
        lambda xq, xk, y, k_top: y[np.argpartition(np.abs(xq[:, None] - xk), k_top - 1, axis=1)[:, :k_top]].mean(1),
        "not stable",
    ),
]

# --- 03 ex2: the bandwidth search ----------------------------------------------------------------------------


def _errors(xt, yt, xv, yv, grid):
    from attention_lab import nadaraya_watson

    return [np.mean((nadaraya_watson(xv, xt, yt, bandwidth=h)[0] - yv) ** 2) for h in grid]


SEARCH = [
    ("copied 0.3", lambda xt, yt, xv, yv, g: 0.3, None),
    ("training error", lambda xt, yt, xv, yv, g: float(g[np.argmin(_errors(xt, yt, xt, yt, g))]), "its own training"),
    ("argmax", lambda xt, yt, xv, yv, g: float(g[np.argmax(_errors(xt, yt, xv, yv, g))]), "LARGEST"),
    ("index", lambda xt, yt, xv, yv, g: int(np.argmin(_errors(xt, yt, xv, yv, g))), "position in the grid"),
    ("min error", lambda xt, yt, xv, yv, g: float(np.min(_errors(xt, yt, xv, yv, g))), "smallest error"),
    (
        "validation as keys",
        lambda xt, yt, xv, yv, g: float(g[np.argmin(_errors(xv, yv, xt, yt, g))]),
        "validation points",
    ),
    ("leave-one-out", lambda xt, yt, xv, yv, g: ex.notebook_03.loo_bandwidth(xt, yt, bandwidths=g), "leave-one-out"),
    ("the middle of the grid", lambda xt, yt, xv, yv, g: float(g[len(g) // 2]), None),
    ("last of ties", lambda xt, yt, xv, yv, g: float(g[::-1][np.argmin(_errors(xt, yt, xv, yv, g)[::-1])]), None),
]

# --- 03 ex5: the limit h -> 0 --------------------------------------------------------------------------------


def _dist(xq, xk):
    return np.abs(xq[:, None] - xk[None, :])


SMALL_H = [
    ("argmin value", lambda xq, xk, y: y[np.argmin(_dist(xq, xk), axis=1)], "np.argmin takes the first"),
    (
        "last of ties",
        lambda xq, xk, y: y[len(xk) - 1 - np.argmin(_dist(xq, xk)[:, ::-1], axis=1)],
        "one of their values",
    ),
    ("indices", lambda xq, xk, y: np.argmin(_dist(xq, xk), axis=1).astype(float), "indices"),
    ("keys", lambda xq, xk, y: xk[np.argmin(_dist(xq, xk), axis=1)], "keys x_i themselves"),
    ("mean", lambda xq, xk, y: np.full(len(xq), y.mean()), "h -> infinity"),
    (
        "tiny h kernel",
        lambda xq, xk, y: np.exp(-(_dist(xq, xk) ** 2) / 2e-8) @ y / np.exp(-(_dist(xq, xk) ** 2) / 2e-8).sum(1),
        "NaN or inf",
    ),
    (
        "signed nearest",
        lambda xq, xk, y: y[np.argmin(np.where(xk[None, :] >= xq[:, None], xk - xq[:, None], np.inf), 1)],
        None,
    ),
    ("average of the two nearest", lambda xq, xk, y: y[np.argsort(_dist(xq, xk), 1)[:, :2]].mean(1), None),
    (
        "median of ties",
        lambda xq, xk, y: np.array([np.median(y[r == r.min()][:1]) for r in _dist(xq, xk)]),
        "np.argmin",
    ),
]

# --- 04 ex3: leave-one-out by a mask -------------------------------------------------------------------------


def _loo(fill=float("-inf"), mask=lambda n: torch.eye(n, dtype=torch.bool), dim=1, after=False):
    def loo_predictions(x, y, w):
        scores = -(((x[:, None] - x[None, :]) * w) ** 2) / 2
        if after:
            return torch.softmax(scores, dim=1).masked_fill(mask(len(x)), 0) @ y
        return torch.softmax(scores.masked_fill(mask(len(x)), fill), dim=dim) @ y

    return loo_predictions


LOO = [
    ("diagonal set to 0", _loo(fill=0.0), "as if there were no mask"),
    ("zeroed after softmax", _loo(after=True), "after the softmax"),
    ("mask inverted", _loo(mask=lambda n: ~torch.eye(n, dtype=torch.bool)), "own y_i"),
    ("softmax over dim 0", _loo(dim=0), "down the columns"),
    (
        "next to the diagonal",
        _loo(mask=lambda n: torch.eye(n, dtype=torch.bool).roll(1, dims=1)),
        "next to the diagonal",
    ),
    ("finite penalty -1e9", _loo(fill=-1e9), "single point"),
    (
        "mask times -inf",
        lambda x, y, w: (
            torch.softmax(-(((x[:, None] - x[None, :]) * w) ** 2) / 2 + torch.eye(len(x)) * float("-inf"), dim=1) @ y
        ),
        "NaN or inf",
    ),
    ("detached w", lambda x, y, w: _loo()(x, y, torch.tensor(float(w))), None),
    ("penalty -1", _loo(fill=-1.0), None),
]

# --- 04 ex4: dL/dw by hand -----------------------------------------------------------------------------------


def _grad(scale=1.0, numerator_only=False, d_alpha=lambda diff2, w: -diff2 * w):
    def gradient_w(queries, keys, values, targets, w):
        diff2 = (queries[:, None] - keys[None, :]) ** 2
        scores = -diff2 * w**2 / 2
        lam = np.exp(scores - scores.max(axis=1, keepdims=True))
        lam /= lam.sum(axis=1, keepdims=True)
        d_a = d_alpha(diff2, w)
        d_lam = lam * d_a if numerator_only else lam * (d_a - (lam * d_a).sum(axis=1, keepdims=True))
        return scale * float(np.mean(2 * (lam @ values - targets) * (d_lam @ values)))

    return gradient_w


def _grad_unstable(queries, keys, values, targets, w):
    diff2 = (queries[:, None] - keys[None, :]) ** 2
    e = np.exp(-diff2 * w**2 / 2)
    lam = e / e.sum(axis=1, keepdims=True)
    d_alpha = -diff2 * w
    d_lam = lam * (d_alpha - (lam * d_alpha).sum(axis=1, keepdims=True))
    return float(np.mean(2 * (lam @ values - targets) * (d_lam @ values)))


GRADIENT = [
    ("numerator only", _grad(numerator_only=True), "only the numerator"),
    ("sign", _grad(scale=-1.0), "wrong sign"),
    ("sum over queries", lambda q, *a: len(q) * _grad()(q, *a), "n_q times"),
    ("factor 2 missing", _grad(scale=0.5), "factor 2"),
    ("factor 2 twice", _grad(scale=2.0), "factor 2"),
    ("with respect to w^2 / 2", _grad(d_alpha=lambda d, w: -d / 2), "with respect to w^2"),
    ("d alpha / dw = -d^2 w^2", _grad(d_alpha=lambda d, w: -d * w**2), "a factor w too many"),
    ("alpha as its own derivative", _grad(d_alpha=lambda d, w: -d * w**2 / 2), "a factor w too many"),
    ("unstable softmax", _grad_unstable, "NaN or inf"),
    ("loss not averaged, sign", lambda q, *a: -len(q) * _grad()(q, *a), None),
    (
        "residual squared",
        lambda q, k, v, t, w: float(
            np.mean(
                (
                    np.exp(-((q[:, None] - k) ** 2) * w**2 / 2)
                    / np.exp(-((q[:, None] - k) ** 2) * w**2 / 2).sum(1, keepdims=True)
                    @ v
                    - t
                )
                ** 2
            )
        ),
        None,
    ),
]

# --- 04 ex7: one training step of the Laplace model ----------------------------------------------------------


def _step(score=lambda d, w: -w * d.abs(), loo=True, sign=-1, use_lr=True, total=False, dim=1, out="w"):
    def laplace_sgd_step(w, x, y, lr):
        w = torch.tensor(float(w), requires_grad=True)
        scores = score(x[:, None] - x[None, :], w)
        if loo:
            scores = scores.masked_fill(torch.eye(len(x), dtype=torch.bool), float("-inf"))
        weights = torch.softmax(scores, dim=dim)
        errors = (weights @ y - y) ** 2
        loss = errors.sum() if total else errors.mean()
        loss.backward()
        return w.grad.item() if out == "grad" else (w + sign * (lr if use_lr else 1) * w.grad).item()

    return laplace_sgd_step


STEP = [
    ("uphill", _step(sign=+1), "uphill"),
    ("returns the gradient", _step(out="grad"), "the gradient itself"),
    ("no learning rate", _step(use_lr=False), "ignores the learning rate"),
    ("no leave-one-out", _step(loo=False), "its own keys"),
    ("Gaussian score", _step(score=lambda d, w: -((d * w) ** 2) / 2), "Gaussian score"),
    ("squared distance", _step(score=lambda d, w: -w * d**2), "or its square"),
    ("sum loss", _step(total=True), "n times too large"),
    ("softmax over queries", _step(dim=0), "dim=0"),
    ("sign of the score", _step(score=lambda d, w: w * d.abs()), "far keys weigh most"),
    ("signed distance", _step(score=lambda d, w: -w * d), None),
]

# --- 02 ex5: REINFORCE ---------------------------------------------------------------------------------------


def _reinforce(term, draw=lambda p, n, rng: rng.choice(p.size, size=n, p=p), reduce=np.mean):
    def reinforce(alpha, losses, n_samples, rng):
        p = np.exp(alpha - alpha.max())
        p /= p.sum()
        drawn, onehots = draw(p, n_samples, rng), np.eye(p.size)
        return reduce(np.array([term(losses[i], onehots[i], p, i) for i in drawn]), axis=0)

    return reinforce


def _exact(alpha, losses, n_samples, rng):
    p = np.exp(alpha - alpha.max())
    p /= p.sum()
    return p * (losses - p @ losses)


REINFORCE = [
    ("an extra division by p_i", _reinforce(lambda L, onehot, p, i: L * (onehot - p) / p[i]), "divided each sample"),
    ("the sign flipped", _reinforce(lambda L, onehot, p, i: L * (p - onehot)), "wrong way"),
    ("the loss alone", _reinforce(lambda L, onehot, p, i: L * onehot), "sampled loss"),
    ("grad p_i", _reinforce(lambda L, onehot, p, i: L * p[i] * (onehot - p)), "gradient of p_i"),
    ("summed", _reinforce(lambda L, onehot, p, i: L * (onehot - p), reduce=np.sum), "n_samples times"),
    (
        "uniform draws",
        _reinforce(lambda L, onehot, p, i: L * (onehot - p), draw=lambda p, n, rng: rng.integers(0, p.size, n)),
        "uniformly",
    ),
    ("exact gradient", _exact, "from all keys"),
    ("baseline from the sample", _reinforce(lambda L, onehot, p, i: (L - L) * (onehot - p)), "about zero"),
    (
        "one sample only",
        _reinforce(lambda L, onehot, p, i: L * (onehot - p), draw=lambda p, n, rng: rng.choice(p.size, size=1, p=p)),
        None,
    ),
]

CATALOGUES = {
    "check_reinforce": REINFORCE,
    "check_softmax": SOFTMAX,
    "check_copies_weight": COPIES,
    "check_logsumexp": SMOOTH_MAX,
    "check_top_k": TOP_K,
    "check_positional_attention": POSITION,
    "check_knn_regression": KNN,
    "check_bandwidth_search": SEARCH,
    "check_small_h_limit": SMALL_H,
    "check_loo_predictions": LOO,
    "check_gradient_w": GRADIENT,
    "check_laplace_sgd_step": STEP,
}


def _catalogues_of(module: str) -> dict:
    """Notebooks 05-09 keep their catalogues, (the student's function, the words), next to their other tests."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(f"_catalogue_{module}", Path(__file__).with_name(f"{module}.py"))
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    named = lambda fn, i: getattr(fn, "__name__", "") if getattr(fn, "__name__", "<")[0] != "<" else f"entry {i}"  # noqa: E731
    return {
        check: [(named(fn, i), fn, words) for i, (fn, words) in enumerate(entries)]
        for check, entries in loaded.CATALOGUES.items()
    }


for _module in (
    "test_exercise_mistakes",
    "test_exercises_05",
    "test_exercises_06",
    "test_exercises_07",
    "test_exercises_08",
    "test_exercises_09",
):
    CATALOGUES.update(_catalogues_of(_module))
ENTRIES = [(check, *entry) for check, entries in CATALOGUES.items() for entry in entries]
BEFORE = {"check_unscaled_entropy": (1.0,)}  # a check that reads a prediction before the function


@cache
def _run(check, fn):
    """The check's feedback on ``fn``, computed once per test process: two tests read each entry's feedback."""
    return getattr(ex, check)(*BEFORE.get(check, ()), fn)


@pytest.mark.parametrize("check", sorted(CATALOGUES))
def test_each_catalogue_has_at_least_eight_wrong_implementations(check):
    assert len(CATALOGUES[check]) >= 8


@pytest.mark.parametrize(("check", "mistake", "fn", "phrase"), ENTRIES, ids=[f"{e[0]}-{e[1]}" for e in ENTRIES])
def test_every_wrong_implementation_is_rejected_and_named(check, mistake, fn, phrase):
    feedback = _run(check, fn)
    assert isinstance(feedback, Feedback) and not feedback.passed and feedback.attempted, (mistake, text(feedback))
    if phrase is not None:
        assert phrase in text(feedback), (mistake, text(feedback))


def _code_of(fix: str) -> list[str]:
    """The statements of the fix's code spans (`...`), each long enough to be a give-away."""
    spans = re.findall(r"`([^`]+)`", fix or "")
    return [s.strip() for span in spans for s in span.split(";") if len(s.strip()) >= 10]


@pytest.mark.parametrize(("check", "mistake", "fn", "phrase"), ENTRIES, ids=[f"{e[0]}-{e[1]}" for e in ENTRIES])
def test_no_first_message_contains_the_fix_code(check, mistake, fn, phrase):
    feedback = _run(check, fn)
    first = " ".join(feedback.messages)
    assert "`" not in first.replace("`...`", "") or not _code_of(feedback.fix()), first
    for statement in _code_of(feedback.fix()):
        assert statement not in first, (mistake, statement)
    assert feedback.steps, (mistake, "no further hint or fix")


SOLUTIONS = {
    "check_softmax": ("notebook_01", "softmax_with_temperature"),
    "check_copies_weight": ("notebook_01", "copies_weight"),
    "check_logsumexp": ("notebook_02", "smooth_max"),
    "check_top_k": ("notebook_02", "top_k"),
    "check_positional_attention": ("notebook_02", "attend_with_position"),
    "check_reinforce": ("notebook_02", "reinforce"),
    "check_knn_regression": ("notebook_03", "knn_regression"),
    "check_bandwidth_search": ("notebook_03", "best_bandwidth"),
    "check_small_h_limit": ("notebook_03", "small_h_limit"),
    "check_loo_predictions": ("notebook_04", "loo_predictions"),
    "check_gradient_w": ("notebook_04", "gradient_w"),
    "check_laplace_sgd_step": ("notebook_04", "laplace_sgd_step"),
}


@pytest.mark.parametrize("check", sorted(SOLUTIONS))
def test_every_reference_function_passes(check):
    module, function = SOLUTIONS[check]
    feedback = getattr(ex, check)(getattr(load_solution(module), function))
    assert feedback.passed, text(feedback)


def test_the_hint_ladder_folds_steps_two_and_three_in_html_and_calls_them_in_text():
    feedback = ex.check_softmax(SOFTMAX[0][1])
    html = feedback._repr_html_()
    assert html.count("<details>") == 2 and "The fix" in html
    assert ".hint()" in repr(feedback) and ".fix()" in feedback._repr_markdown_()
    assert feedback.fix() not in repr(feedback) and "every exponent is then" in html


def test_a_wrong_shape_or_an_exception_is_told_in_the_students_terms():
    shape = text(ex.check_softmax(lambda alpha, temperature: alpha[:, None]))
    assert "should have shape (3,)" in shape and "yours has shape (3, 1)" in shape
    crash = text(ex.check_top_k(lambda alpha, k_top: alpha[k_top + 10]))
    assert "Your function raised IndexError" in crash and "alpha=ndarray of shape (4,), k_top=1" in crash


def test_a_fenced_fix_is_a_pre_block_in_html_with_no_stray_backticks():
    fix = "Stack them:\n```\nalpha = E @ W.T @ s  # (n,): s < t\nreturn np.tanh(alpha)\n```\nthen `c`."
    html = Feedback("t", False, ["Which `axis`?"], hint="h", fix=fix)._repr_html_()
    assert "<pre><code>alpha = E @ W.T @ s  # (n,): s &lt; t\nreturn np.tanh(alpha)</code></pre>" in html
    assert "`" not in html and "<code>c</code>" in html and "<code>axis</code>" in html
    assert "<p><pre>" not in html  # a <pre> cannot sit inside a <p>


def test_the_case_and_the_diagnosis_are_joined_by_punctuation():
    tanh_each = lambda Q, K, W_q, W_k, w_v: (np.tanh(Q @ W_q.T) @ w_v)[:, None] + (np.tanh(K @ W_k.T) @ w_v)[None, :]  # noqa: E731
    raw = lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([(E @ W.T @ s) @ E, s]))  # noqa: E731
    flipped = lambda n, window: ~(np.tri(n, dtype=bool) & ~np.tri(n, k=-window, dtype=bool))  # noqa: E731
    assert "d_h = 4 hidden units: You took" in text(ex.check_additive_scores(tanh_each))
    assert "W_c (3, 7): The raw scores" in text(ex.check_luong_attentional_state(raw))
    assert "For n = 5 and a window of 2, yours marks" in text(ex.check_window_mask(flipped))


def test_a_wrong_shape_is_told_in_words_with_a_fix():
    feedback = ex.check_knn_regression(lambda x_query, x_keys, y_values, k_top: np.zeros((len(x_query), 1)))
    assert "one prediction per query: (n_q,)" in feedback.hint() and "comment" not in feedback.hint()
    assert "an axis too many" in feedback.fix() and "No fix" not in feedback.fix()
    assert feedback._repr_html_().count("<details>") == 2


def test_a_tie_is_told_at_the_query_where_the_answer_is_wrong():
    right = load_solution("notebook_03").knn_regression
    later_below_1 = lambda xq, xk, y, k_top: np.where(xq == 0.25, 0.5, right(xq, xk, y, k_top))  # noqa: E731
    said = text(ex.check_knn_regression(later_below_1))
    assert "the query 0.25" in said and "1.5" not in said, said
