"""Attention in three steps: score, normalise, take the weighted average of the values."""

from __future__ import annotations

import inspect

import numpy as np

from ._checks import as_float_array, describe
from .normalisers import softmax
from .scores import SCORES

__all__ = ["attention"]


def attention(queries, keys, values, *, score="scaled_dot", temperature=1.0, mask=None, **score_kwargs):
    r"""Soft attention: output(q) = sum_i lambda_i v_i with lambda = softmax(alpha(q, k_.) / T).

    Parameters
    ----------
    queries : array_like, shape (..., n_q, d) or (n_q,)
    keys : array_like, shape (..., n_k, d) or (n_k,)
    values : array_like, shape (..., n_k, d_v) or (n_k,)
        One value v_i per key k_i.
    score : str or callable, default "scaled_dot"
        One of "dot", "scaled_dot", "cosine", "gaussian", or a function ``score(queries, keys, **kw)``
        returning ``(..., n_q, n_k)`` scores.
    temperature, mask
        Passed to :func:`softmax` (mask broadcastable to ``(..., n_q, n_k)``, True = may be attended).
    **score_kwargs
        Extra arguments for the score, e.g. ``bandwidth=0.5`` for "gaussian".

    Returns
    -------
    outputs : numpy.ndarray, shape (..., n_q, d_v) (or (..., n_q) for 1-D values)
    weights : numpy.ndarray, shape (..., n_q, n_k)
    """
    score_fn = _score_function(score, score_kwargs)
    v = as_float_array(values, "values", min_ndim=1)  # (..., n_k, d_v) or (n_k,)

    alpha = score_fn(queries, keys, **score_kwargs)  # (..., n_q, n_k)
    _check_scores_fit_values(alpha, v)
    weights = softmax(alpha, temperature, axis=-1, mask=mask)  # (..., n_q, n_k)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        outputs = weights @ v  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    return _finite_average(outputs, v), weights


# The checks and limits beside the formula above.


def _score_function(score, score_kwargs):
    """The score function named by ``score`` (or ``score`` itself if callable), after checking its arguments."""
    if callable(score):
        return score
    if not isinstance(score, str) or score not in SCORES:
        raise ValueError(f"score must be one of {sorted(SCORES)} or a callable, got {describe(score)}")
    takes = set(inspect.signature(SCORES[score]).parameters) - {"queries", "keys"}
    unknown = sorted(set(score_kwargs) - takes)
    if unknown:
        raise ValueError(
            f"the {score!r} score takes no argument {', '.join(unknown)}; it takes "
            f"{sorted(takes) or 'none besides queries and keys'}"
        )
    return SCORES[score]


def _check_scores_fit_values(alpha, v):
    """v must hold one row per key, and every query must have a score above -inf (else its weights are undefined)."""
    n_keys = alpha.shape[-1]
    v_rows = v.shape[0] if v.ndim == 1 else v.shape[-2]
    if v_rows != n_keys:
        raise ValueError(
            f"values must hold one row per key: expected {n_keys} value(s) along axis "
            f"{0 if v.ndim == 1 else -2}, got values of shape {v.shape}"
        )
    underflowed = np.isneginf(alpha).all(axis=-1)  # (..., n_q): every score below the float range
    if underflowed.any():
        raise ValueError(
            f"for {int(underflowed.sum())} quer(y/ies) every score is -inf (below the float range), so the weights "
            f"are undefined. With score='gaussian' the bandwidth is too small for these points: every key is more "
            f"than 1.3e154 bandwidths away; use a larger bandwidth (kernels.nadaraya_watson handles this "
            f"nearest-key limit). To leave a query with no key on purpose, pass mask="
        )


def _finite_average(outputs, v):
    """The weighted average, or a ValueError if it overflowed (a weighted average of finite values can only
    overflow in rounding)."""
    if not np.all(np.isfinite(outputs)):
        raise ValueError(
            f"values are too large: their weighted average overflowed (values up to "
            f"{np.abs(v).max():.3g}; the float range ends near 1.8e308)"
        )
    return outputs
