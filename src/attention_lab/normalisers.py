"""Normalisers: turn scores alpha_i into attention weights lambda_i.

Hard ones pick (argmax, top-k, sampling), soft ones blend (softmax, sparsemax, Gumbel-softmax).
All of them work along one ``axis`` of an array of any shape and accept an optional boolean ``mask``
(True = may be attended; masked entries get exactly 0). Scores must be real numbers (not text, booleans,
complex numbers or masked arrays: pass a mask as ``mask=``), and the axis over the keys must hold at least
one key.

**A query with no allowed key gets no weight.** A score of ``-inf`` means "never attend", exactly like a
masked key, so a query whose every key is masked or scored ``-inf`` gets all-zero weights (not uniform,
not NaN) and, in :func:`~attention_lab.attention`, the output 0 (the empty weighted sum). The same holds
for the kernels' weights and the torch layers (:func:`attention_lab.nn.masked_softmax`).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_mask, as_rng, check_axis, check_count, check_flag, check_temperature

__all__ = [
    "softmax",
    "stable_softmax",
    "checked_scores",
    "logsumexp",
    "hard_attention",
    "sample_attention",
    "sparsemax",
    "gumbel_softmax",
    "entropy",
    "effective_keys",
    "normalise_rows",
]


def softmax(scores, temperature=1.0, *, axis=-1, mask=None):
    r"""Soft attention weights: lambda_i = exp(alpha_i / T) / sum_j exp(alpha_j / T).

    Computed as exp((alpha_i - max alpha) / T) / sum_j exp((alpha_j - max alpha) / T), which is the same
    number but never overflows, so any finite scores work.

    Parameters
    ----------
    scores : array_like
        The scores alpha; ``-inf`` means "never attend".
    temperature : float, default 1.0
        T >= 0. ``T = 0`` is the hard limit: equal weight on the maximal entries (ties share), 0
        elsewhere. ``T = np.inf`` is uniform over the allowed entries.
    axis : int, default -1
        The axis over the keys i.
    mask : array_like of bool, optional
        Broadcastable to ``scores``; True = may be attended. Masked entries get exactly 0, and a row
        with nothing allowed gets all zeros (not uniform, not NaN).

    Returns
    -------
    numpy.ndarray
        Weights lambda of the same shape as ``scores``: non-negative, each row summing to 1 (or 0).

    Examples
    --------
    >>> softmax([1.0, 2.0, 3.0], temperature=0)
    array([0., 0., 1.])
    """
    T = check_temperature(temperature)
    alpha, axis = checked_scores(scores, axis, mask)  # a float copy, -inf where the mask forbids
    return stable_softmax(alpha, T, axis)


def stable_softmax(alpha, T, axis=-1):
    """The formula of :func:`softmax` for scores already checked (a float array, -inf = never attend; T a checked
    temperature): what the library's own functions call once their door has checked their inputs."""
    top = alpha.max(axis=axis, keepdims=True, initial=_LOWEST)  # max_j alpha_j (a row of -inf: the lowest float)
    with np.errstate(over="ignore"):  # a shifted score may round to -inf; its exp, 0, is the right weight
        shifted = alpha - top  # alpha_i - max_j alpha_j <= 0: exp never overflows, the maximum gets exp(0) = 1
        w = np.exp(shifted / T) if 0 < T < np.inf else _limit(shifted, T)
    return w / np.maximum(w.sum(axis=axis, keepdims=True), 1.0)  # sum >= 1; a row with nothing allowed stays 0


# The checks and the limits beside the formula above.


def checked_scores(scores, axis, mask):
    """Checked scores: a float64 copy with -inf where ``mask`` forbids attention, and ``axis`` as an int."""
    alpha = as_float_array(scores, "scores", min_ndim=1, allow_neg_inf=True)
    axis = check_axis(axis, alpha.ndim)
    if alpha.shape[axis] == 0:
        raise ValueError(
            f"scores must have at least one key along axis {axis} (the keys' axis), got shape {alpha.shape}"
        )
    if mask is not None:
        alpha[~as_mask(mask, alpha.shape)] = -np.inf  # a masked key is a key scored -inf
    return alpha, axis


def _row_max(alpha, axis):
    """max_j alpha_j of each row (keepdims), as in softmax: the lowest float for a row with nothing allowed
    (all -inf), so that its entries stay -inf after the shift instead of becoming -inf - (-inf) = NaN."""
    return alpha.max(axis=axis, keepdims=True, initial=_LOWEST)


def _limit(shifted, T):
    """The weights before normalising at T = 0 (1 on the row's maxima: ties share) and T = inf (1 on every
    allowed key): the limits of exp(shifted / T) / its largest entry."""
    return ((shifted == 0) if T == 0 else (shifted > -np.inf)).astype(np.float64)


_LOWEST = np.finfo(np.float64).min


def normalise_rows(w):
    """Divide each row by its sum; a row summing to 0 stays all zeros (nothing to attend to)."""
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def logsumexp(scores, temperature=1.0, *, axis=-1, mask=None):
    r"""The smooth maximum: T * log sum_i exp(alpha_i / T).

    It lies between max(alpha) and max(alpha) + T log n, and tends to max(alpha) as T -> 0
    (``temperature=0`` returns the max exactly). ``temperature=np.inf`` gives +inf for rows with two or
    more allowed entries. A row with nothing allowed gives -inf (the log of an empty sum).
    Computed as max + T * log sum exp((alpha_i - max) / T), stable for any finite scores.

    Returns an array with ``axis`` removed.
    """
    T = check_temperature(temperature)
    alpha, axis = checked_scores(scores, axis, mask)
    top = _row_max(alpha, axis)  # (..., 1, ...)
    count = (alpha > -np.inf).sum(axis=axis)  # allowed keys per row
    if T == 0:
        result = np.squeeze(top, axis)
    elif T == np.inf:
        result = np.where(count > 1, np.inf, np.squeeze(top, axis))
    else:
        with np.errstate(over="ignore", under="ignore"):
            total = np.exp((alpha - top) / T).sum(axis=axis)  # >= 1 where count > 0
        result = np.squeeze(top, axis) + T * np.log(np.maximum(total, 1.0))
    return np.where(count > 0, result, -np.inf)


def hard_attention(scores, k_top=1, *, axis=-1, mask=None):
    """Hard (top-k) attention: lambda_i = 1/k_top on the k_top largest scores, 0 elsewhere.

    ``k_top=1`` is one-hot(argmax alpha). Ties are broken in favour of the earlier index. A row with fewer
    than k_top allowed entries spreads its weight equally over the ones it has; a row with none gets zeros.
    """
    alpha, axis = checked_scores(scores, axis, mask)
    k_top = check_count(k_top, "k_top", 1, alpha.shape[axis])
    return np.moveaxis(_top_k_weights(np.moveaxis(alpha, axis, -1), k_top), -1, axis)


def _top_k_weights(alpha, k):
    """hard_attention without its checks, along the last axis of checked scores (-inf = never attend)."""
    n = alpha.shape[-1]
    order = np.argsort(-alpha, axis=-1, kind="stable")  # best first (-alpha = +inf where never attended)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n), axis=-1)  # rank[..., i] = position of key i in that order
    chosen = (rank < k) & (alpha > -np.inf)
    return normalise_rows(chosen.astype(np.float64))


def sample_attention(scores, n_samples=1, *, temperature=1.0, rng=None, axis=-1, mask=None):
    """Stochastic hard attention: n_samples draws i ~ softmax(alpha / T), lambda_i = count_i / n_samples.

    The draws are with replacement.

    Its expectation is the soft attention softmax(alpha / T); the error shrinks like 1 / sqrt(n_samples).
    ``rng`` is a seed or a ``numpy.random.Generator``, so results are reproducible.
    """
    T = check_temperature(temperature)
    n_samples = check_count(n_samples, "n_samples", 1)
    generator = as_rng(rng)
    alpha, axis = checked_scores(scores, axis, mask)
    p = np.moveaxis(stable_softmax(alpha, T, axis), axis, -1)  # (..., n)
    rows = p.reshape(-1, p.shape[-1])
    counts = np.zeros_like(rows)
    for r, row in enumerate(rows):
        if row.sum() > 0:  # a fully masked row has nothing to draw from
            counts[r] = generator.multinomial(n_samples, row / row.sum())
    return np.moveaxis((counts / n_samples).reshape(p.shape), -1, axis)


def sparsemax(scores, temperature=1.0, *, axis=-1, mask=None):
    """Sparsemax: the Euclidean projection of alpha / T onto the probability simplex.

    lambda_i = max(alpha_i / T - tau, 0), with the threshold tau chosen so that the weights sum to 1.
    Scores far enough below the maximum get exactly 0: sparse like hard attention, yet continuous like
    softmax. ``T = 0`` gives the hard limit (ties share) and ``T = inf`` the uniform weights.
    """
    T = check_temperature(temperature)
    alpha, axis = checked_scores(scores, axis, mask)
    if T in (0.0, np.inf):
        return stable_softmax(alpha, T, axis)
    with np.errstate(over="ignore"):
        z = np.moveaxis((alpha - _row_max(alpha, axis)) / T, axis, -1)  # (..., n), <= 0, -inf where masked
    z_sorted = -np.sort(-z, axis=-1)  # descending
    ks = np.arange(1, z.shape[-1] + 1)
    with np.errstate(invalid="ignore", over="ignore"):
        cumulative = np.cumsum(z_sorted, axis=-1)
        in_support = (1 + ks * z_sorted > cumulative) & np.isfinite(z_sorted)
    support = in_support.sum(axis=-1, keepdims=True)  # size of the support, >= 1 unless fully masked
    safe = np.maximum(support, 1)
    tau = (np.take_along_axis(cumulative, safe - 1, axis=-1) - 1) / safe
    with np.errstate(invalid="ignore"):
        w = np.where((z > -np.inf) & (support > 0), np.maximum(z - tau, 0.0), 0.0)
    return np.moveaxis(normalise_rows(w), -1, axis)


def gumbel_softmax(scores, temperature=1.0, *, hard=False, rng=None, axis=-1):
    """A relaxed sample of hard attention: lambda = softmax((alpha + g) / T), g_i ~ Gumbel(0, 1).

    argmax(alpha + g) is an exact sample from softmax(alpha) (the Gumbel-max trick); the softmax at
    temperature T relaxes that one-hot sample: one-hot as T -> 0, uniform as T -> inf. With
    ``hard=True`` the one-hot sample itself is returned (in torch, the straight-through estimator
    uses it forward and the relaxed weights backward).
    """
    T = check_temperature(temperature)
    hard = check_flag(hard, "hard")
    generator = as_rng(rng)
    alpha, axis = checked_scores(scores, axis, None)
    perturbed = alpha + generator.gumbel(size=alpha.shape)  # -inf stays -inf: never attended
    if hard:
        return np.moveaxis(_top_k_weights(np.moveaxis(perturbed, axis, -1), 1), -1, axis)
    return stable_softmax(perturbed, T, axis)


def entropy(weights, *, axis=-1, atol=1e-6):
    """Shannon entropy H = -sum_i lambda_i log lambda_i (nats), with 0 log 0 = 0.

    0 for one-hot weights, log n for uniform weights over n keys. ``weights`` must be distributions along
    ``axis``: non-negative, each row summing to 1 within ``atol``; a row of zeros (what the normalisers
    give a row with nothing to attend to) has entropy 0.
    """
    lam = as_float_array(weights, "weights", min_ndim=1)
    axis = check_axis(axis, lam.ndim)
    if np.any(lam < 0):
        raise ValueError(f"weights must be non-negative (a distribution), got a minimum of {lam.min()}")
    totals = lam.sum(axis=axis)
    bad = ~(np.isclose(totals, 1.0, rtol=0.0, atol=atol) | (totals == 0))
    if np.any(bad):
        raise ValueError(
            f"weights must sum to 1 along axis {axis} (a distribution per row), got {int(bad.sum())} "
            f"row(s) summing to e.g. {float(np.ravel(totals[bad])[0]):.6g}"
        )
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        terms = np.where(lam > 0, -lam * np.log(np.where(lam > 0, lam, 1.0)), 0.0)
    return terms.sum(axis=axis)


def effective_keys(weights):
    """1 / sum_i lambda_i^2 per row: n for uniform weights, 1 for one-hot; NaN for an all-zero row."""
    weights = as_float_array(weights, "weights", min_ndim=1)
    if np.any(weights < 0):
        raise ValueError(f"weights must be non-negative, got a minimum of {weights.min()}")
    with np.errstate(under="ignore"):
        squares = np.sum(weights * weights, axis=-1)
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(squares > 0, 1.0 / np.where(squares > 0, squares, 1.0), np.nan)
