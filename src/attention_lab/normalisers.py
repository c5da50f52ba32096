"""Normalisers: turn scores alpha_i into attention weights lambda_i.

Hard ones pick (argmax, top-k, sampling), soft ones blend (softmax, sparsemax, Gumbel-softmax).
All of them work along one ``axis`` of an array of any shape, accept an optional boolean ``mask``
(True = may be attended; masked entries get exactly 0) and give a row with nothing to attend to
all-zero weights rather than NaN. A score of ``-inf`` is treated like a masked entry. Scores must be
real numbers (not text, booleans, complex numbers or masked arrays: pass a mask as ``mask=``), and the
axis over the keys must hold at least one key.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, as_mask, as_rng, check_axis, check_count, check_flag, check_temperature

__all__ = [
    "softmax",
    "logsumexp",
    "hard_attention",
    "sample_attention",
    "sparsemax",
    "gumbel_softmax",
    "entropy",
    "effective_keys",
    "normalise_rows",
]


def _prepare(scores, axis, mask):
    """Validated scores and allowed-mask, with ``axis`` moved last. Returns (alpha, allowed, axis)."""
    alpha = as_float_array(scores, "scores", min_ndim=1, allow_neg_inf=True)
    axis = check_axis(axis, alpha.ndim)
    if alpha.shape[axis] == 0:
        raise ValueError(
            f"scores must have at least one key along axis {axis} (the keys' axis), got shape {alpha.shape}"
        )
    allowed = as_mask(mask, alpha.shape) & (alpha > -np.inf)
    return np.moveaxis(alpha, axis, -1), np.moveaxis(allowed, axis, -1), axis


def normalise_rows(w):
    """Divide each row by its sum; a row summing to 0 stays all zeros (nothing to attend to)."""
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def _shift_by_max(alpha, allowed):
    """alpha - max(alpha) over the allowed entries: 0 at the maximum, < 0 elsewhere, -inf where masked."""
    masked = np.where(allowed, alpha, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # fully masked rows: any shift will do
    with np.errstate(over="ignore", invalid="ignore"):
        return masked - top, top


def _softmax_last(alpha, allowed, temperature):
    if temperature == np.inf:
        return normalise_rows(allowed.astype(np.float64))
    shifted, _ = _shift_by_max(alpha, allowed)
    if temperature == 0:
        return normalise_rows(((shifted == 0) & allowed).astype(np.float64))
    with np.errstate(over="ignore", under="ignore"):
        w = np.exp(shifted / temperature)  # every exponent <= 0: no overflow, the maximum gives exp(0) = 1
    return normalise_rows(np.where(allowed, w, 0.0))


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
    temperature = check_temperature(temperature)
    alpha, allowed, axis = _prepare(scores, axis, mask)
    return np.moveaxis(_softmax_last(alpha, allowed, temperature), -1, axis)


def logsumexp(scores, temperature=1.0, *, axis=-1, mask=None):
    r"""The smooth maximum: T * log sum_i exp(alpha_i / T).

    It lies between max(alpha) and max(alpha) + T log n, and tends to max(alpha) as T -> 0
    (``temperature=0`` returns the max exactly). ``temperature=np.inf`` gives +inf for rows with two or
    more allowed entries. A row with nothing allowed gives -inf (the log of an empty sum).
    Computed as max + T * log sum exp((alpha_i - max) / T), stable for any finite scores.

    Returns an array with ``axis`` removed.
    """
    temperature = check_temperature(temperature)
    alpha, allowed, _ = _prepare(scores, axis, mask)
    shifted, top = _shift_by_max(alpha, allowed)
    top = top[..., 0]
    count = allowed.sum(axis=-1)
    if temperature == 0:
        result = top.copy()
    elif temperature == np.inf:
        result = np.where(count > 1, np.inf, top)
    else:
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            total = np.where(allowed, np.exp(shifted / temperature), 0.0).sum(axis=-1)  # >= 1 if count > 0
            result = top + temperature * np.log(np.maximum(total, 1.0))
    return np.where(count > 0, result, -np.inf)


def hard_attention(scores, k=1, *, axis=-1, mask=None):
    """Hard (top-k) attention: lambda_i = 1/k on the k largest scores, 0 elsewhere.

    ``k=1`` is one-hot(argmax alpha). Ties are broken in favour of the earlier index. A row with fewer
    than k allowed entries spreads its weight equally over the ones it has; a row with none gets zeros.
    """
    alpha, allowed, axis = _prepare(scores, axis, mask)
    n = alpha.shape[-1]
    k = check_count(k, "k", 1, n)
    order = np.argsort(np.where(allowed, -alpha, np.inf), axis=-1, kind="stable")  # best first
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n), axis=-1)  # rank[..., i] = position of key i in that order
    chosen = (rank < k) & allowed
    return np.moveaxis(normalise_rows(chosen.astype(np.float64)), -1, axis)


def sample_attention(scores, k=1, *, temperature=1.0, rng=None, axis=-1, mask=None):
    """Stochastic hard attention: k draws i ~ softmax(alpha / T) with replacement, lambda_i = count_i / k.

    Its expectation is the soft attention softmax(alpha / T); the error shrinks like 1 / sqrt(k).
    ``rng`` is a seed or a ``numpy.random.Generator``, so results are reproducible.
    """
    temperature = check_temperature(temperature)
    k = check_count(k, "k", 1)
    generator = as_rng(rng)
    alpha, allowed, axis = _prepare(scores, axis, mask)
    p = _softmax_last(alpha, allowed, temperature)
    rows = p.reshape(-1, p.shape[-1])
    counts = np.zeros_like(rows)
    for r, row in enumerate(rows):
        if row.sum() > 0:  # a fully masked row has nothing to draw from
            counts[r] = generator.multinomial(k, row / row.sum())
    return np.moveaxis((counts / k).reshape(p.shape), -1, axis)


def sparsemax(scores, temperature=1.0, *, axis=-1, mask=None):
    """Sparsemax: the Euclidean projection of alpha / T onto the probability simplex.

    lambda_i = max(alpha_i / T - tau, 0), with the threshold tau chosen so that the weights sum to 1.
    Scores far enough below the maximum get exactly 0: sparse like hard attention, yet continuous like
    softmax. ``T = 0`` gives the hard limit (ties share) and ``T = inf`` the uniform weights.
    """
    temperature = check_temperature(temperature)
    alpha, allowed, axis = _prepare(scores, axis, mask)
    if temperature in (0.0, np.inf):
        return np.moveaxis(_softmax_last(alpha, allowed, temperature), -1, axis)
    shifted, _ = _shift_by_max(alpha, allowed)
    with np.errstate(over="ignore", invalid="ignore"):
        z = shifted / temperature  # (..., n), <= 0, -inf where masked
    z_sorted = -np.sort(-z, axis=-1)  # descending
    ks = np.arange(1, z.shape[-1] + 1)
    with np.errstate(invalid="ignore", over="ignore"):
        cumulative = np.cumsum(z_sorted, axis=-1)
        in_support = (1 + ks * z_sorted > cumulative) & np.isfinite(z_sorted)
    support = in_support.sum(axis=-1, keepdims=True)  # size of the support, >= 1 unless fully masked
    safe = np.maximum(support, 1)
    tau = (np.take_along_axis(cumulative, safe - 1, axis=-1) - 1) / safe
    with np.errstate(invalid="ignore"):
        w = np.where(allowed & (support > 0), np.maximum(z - tau, 0.0), 0.0)
    return np.moveaxis(normalise_rows(w), -1, axis)


def gumbel_softmax(scores, temperature=1.0, *, hard=False, rng=None, axis=-1):
    """A relaxed sample of hard attention: lambda = softmax((alpha + g) / T), g_i ~ Gumbel(0, 1).

    argmax(alpha + g) is an exact sample from softmax(alpha) (the Gumbel-max trick); the softmax at
    temperature T relaxes that one-hot sample: one-hot as T -> 0, uniform as T -> inf. With
    ``hard=True`` the one-hot sample itself is returned (in torch, the straight-through estimator
    uses it forward and the relaxed weights backward).
    """
    temperature = check_temperature(temperature)
    hard = check_flag(hard, "hard")
    generator = as_rng(rng)
    alpha, allowed, axis = _prepare(scores, axis, None)
    perturbed = np.where(allowed, alpha + generator.gumbel(size=alpha.shape), -np.inf)
    if hard:
        w = hard_attention(perturbed, 1, axis=-1)
    else:
        w = _softmax_last(perturbed, allowed, temperature)
    return np.moveaxis(w, -1, axis)


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
