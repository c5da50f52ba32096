"""Attention in three steps: score, normalise, take the weighted average of the values."""

from __future__ import annotations

import inspect

import numpy as np

from ._checks import as_float_array, as_mask, check_temperature, describe
from .normalisers import checked_scores, stable_softmax
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
        As in :func:`softmax` (mask broadcastable to ``(..., n_q, n_k)``, True = may be attended). A query
        with no allowed key (all masked, or all scored -inf by a callable) gets weights 0 and output 0.
    **score_kwargs
        Extra arguments for the score, e.g. ``bandwidth=0.5`` for "gaussian".

    Returns
    -------
    outputs : numpy.ndarray, shape (..., n_q, d_v) (or (..., n_q) for 1-D values)
    weights : numpy.ndarray, shape (..., n_q, n_k)
    """
    score_fn, T = _score_function(score, score_kwargs), check_temperature(temperature)
    v = as_float_array(values, "values", min_ndim=1)  # (..., n_k, d_v) or (n_k,)

    alpha = _checked_scores(score_fn(queries, keys, **score_kwargs), score, mask, v)  # (..., n_q, n_k)
    weights = stable_softmax(alpha, T)  # (..., n_q, n_k); all 0 for a query with no allowed key
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        outputs = weights @ v  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    return _finite_average(outputs, v), weights


# The checks and limits beside the formula above.


_SCORE_ARGUMENTS = {name: set(inspect.signature(fn).parameters) - {"queries", "keys"} for name, fn in SCORES.items()}


def _score_function(score, score_kwargs):
    """The score function named by ``score`` (or ``score`` itself if callable), after checking its arguments."""
    if callable(score):
        return score
    if isinstance(score, str) and score in SCORES and not score_kwargs:
        return SCORES[score]
    if not isinstance(score, str) or score not in SCORES:
        raise ValueError(f"score must be one of {sorted(SCORES)} or a callable, got {describe(score)}")
    takes = _SCORE_ARGUMENTS[score]
    unknown = sorted(set(score_kwargs) - takes)
    if unknown:
        raise ValueError(
            f"the {score!r} score takes no argument {', '.join(unknown)}; it takes "
            f"{sorted(takes) or 'none besides queries and keys'}"
        )
    return SCORES[score]


def _checked_scores(alpha, score, mask, v):
    """The scores (..., n_q, n_k) with -inf where ``mask`` forbids; a ValueError if they do not fit ``v``.

    A callable's scores are checked as :func:`softmax` checks its input. The built-in scores are finite,
    except the Gaussian one, whose score is -inf when a key is beyond the float range in bandwidths: a whole
    row of those is refused (its true weights are one-hot on the nearest key, not "no allowed key").
    """
    if callable(score):
        alpha, _ = checked_scores(alpha, -1, None)  # a float copy: -inf allowed, NaN and +inf refused
    n_keys = alpha.shape[-1]
    v_rows = v.shape[0] if v.ndim == 1 else v.shape[-2]
    if v_rows != n_keys:
        raise ValueError(
            f"values must hold one row per key: expected {n_keys} value(s) along axis "
            f"{0 if v.ndim == 1 else -2}, got values of shape {v.shape}"
        )
    if score == "gaussian" and np.isneginf(alpha).all(axis=-1).any():
        underflowed = np.isneginf(alpha).all(axis=-1)  # (..., n_q): every score below the float range
        raise ValueError(
            f"for {int(underflowed.sum())} quer(y/ies) every score is -inf (below the float range), so the weights "
            f"are undefined. With score='gaussian' the bandwidth is too small for these points: every key is more "
            f"than 1.3e154 bandwidths away; use a larger bandwidth (kernels.nadaraya_watson handles this "
            f"nearest-key limit). To leave a query with no key on purpose, pass mask="
        )
    if mask is not None:
        alpha[~as_mask(mask, alpha.shape)] = -np.inf  # a masked key is a key scored -inf
    return alpha


def _finite_average(outputs, v):
    """The weighted average, or a ValueError if it overflowed (a weighted average of finite values can only
    overflow in rounding)."""
    if not np.isfinite(outputs).all():
        raise ValueError(
            f"values are too large: their weighted average overflowed (values up to "
            f"{np.abs(v).max():.3g}; the float range ends near 1.8e308)"
        )
    return outputs
