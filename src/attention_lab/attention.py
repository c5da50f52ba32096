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
    if callable(score):
        score_fn = score
    elif isinstance(score, str) and score in SCORES:
        score_fn = SCORES[score]
    else:
        raise ValueError(f"score must be one of {sorted(SCORES)} or a callable, got {describe(score)}")
    takes = set(inspect.signature(score_fn).parameters) - {"queries", "keys"}
    unknown = sorted(set(score_kwargs) - takes) if not callable(score) else []
    if unknown:
        raise ValueError(f"the {score!r} score takes no argument {', '.join(unknown)}; it takes "
                         f"{sorted(takes) or 'none besides queries and keys'}")
    alpha = score_fn(queries, keys, **score_kwargs)  # (..., n_q, n_k)
    if not callable(score) and score == "gaussian" and np.isneginf(alpha).all(axis=-1).any():
        rows = int(np.isneginf(alpha).all(axis=-1).sum())
        raise ValueError(f"bandwidth is too small for these points: for {rows} quer(y/ies) every key is more than "
                         f"1.3e154 bandwidths away, so every score is below the float range. Use a larger "
                         f"bandwidth (kernels.nadaraya_watson handles this nearest-key limit)")
    v = as_float_array(values, "values", min_ndim=1)
    n_keys = alpha.shape[-1]
    v_rows = v.shape[0] if v.ndim == 1 else v.shape[-2]
    if v_rows != n_keys:
        raise ValueError(
            f"values must hold one row per key: expected {n_keys} value(s) along axis "
            f"{0 if v.ndim == 1 else -2}, got values of shape {v.shape}"
        )
    weights = softmax(alpha, temperature, axis=-1, mask=mask)  # (..., n_q, n_k)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        outputs = weights @ v  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    if not np.all(np.isfinite(outputs)):  # a weighted average of finite values can only overflow in rounding
        raise ValueError(f"values are too large: their weighted average overflowed (values up to "
                         f"{np.abs(v).max():.3g}; the float range ends near 1.8e308)")
    return outputs, weights
