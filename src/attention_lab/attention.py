"""Attention in three steps: score, normalise, take the weighted average of the values."""

from __future__ import annotations

from ._checks import as_float_array
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
    elif score in SCORES:
        score_fn = SCORES[score]
    else:
        raise ValueError(f"score must be one of {sorted(SCORES)} or a callable, got {score!r}")
    alpha = score_fn(queries, keys, **score_kwargs)  # (..., n_q, n_k)
    v = as_float_array(values, "values", min_ndim=1)
    n_keys = alpha.shape[-1]
    v_rows = v.shape[0] if v.ndim == 1 else v.shape[-2]
    if v_rows != n_keys:
        raise ValueError(
            f"values must hold one row per key: expected {n_keys} value(s) along axis "
            f"{0 if v.ndim == 1 else -2}, got values of shape {v.shape}"
        )
    weights = softmax(alpha, temperature, axis=-1, mask=mask)  # (..., n_q, n_k)
    return weights @ v, weights  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
