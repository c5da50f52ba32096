"""Scoring functions alpha(q, k): how well a query q matches a key k.

Every function takes queries of shape ``(..., n_q, d)`` and keys of shape ``(..., n_k, d)`` and returns
scores of shape ``(..., n_q, n_k)``: queries on rows, keys on columns. A 1-D input of shape ``(n,)``
is read as n points in one dimension (d = 1), as in kernel regression.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import as_float_array, check_positive

__all__ = ["dot_score", "scaled_dot_score", "cosine_score", "gaussian_score", "SCORES"]


def _points(value, name: str) -> np.ndarray:
    """``(n,)`` -> ``(n, 1)``; ``(..., n, d)`` stays as it is."""
    array = as_float_array(value, name, min_ndim=1)
    return array[:, None] if array.ndim == 1 else array


def _pair(queries, keys):
    q = _points(queries, "queries")  # (..., n_q, d)
    k = _points(keys, "keys")  # (..., n_k, d)
    if k.shape[-2] == 0:
        raise ValueError(f"keys must hold at least one key, got shape {k.shape}")
    if q.shape[-1] == 0:
        raise ValueError(f"queries and keys need at least one feature (d >= 1), got shape {q.shape}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"queries and keys must have the same feature size d (last axis); got queries of shape "
            f"{q.shape} (d={q.shape[-1]}) and keys of shape {k.shape} (d={k.shape[-1]})"
        )
    try:
        if q.ndim > 2 or k.ndim > 2:
            np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch dimensions of queries {q.shape[:-2]} and keys {k.shape[:-2]} do not broadcast"
        ) from None
    return q, k


def _finite_scores(alpha, name: str, q, k):
    """The scores, or a ValueError when they overflowed although queries and keys are finite."""
    if not np.isfinite(alpha).all():
        raise ValueError(
            f"the {name} scores overflowed: queries up to {np.abs(q).max():.3g} and keys up to "
            f"{np.abs(k).max():.3g} in size give scores beyond the float range (about 1.8e308). Rescale the "
            f"queries or keys (the cosine score does not depend on their length)"
        )
    return alpha


def dot_score(queries, keys):
    """Dot-product score alpha(q, k) = q . k.

    Raises a ValueError if a score overflows the float range (|q . k| above about 1.8e308).
    """
    q, k = _pair(queries, keys)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        alpha = q @ k.swapaxes(-1, -2)  # (..., n_q, d) @ (..., d, n_k) -> (..., n_q, n_k)
    return _finite_scores(alpha, "dot-product", q, k)


def scaled_dot_score(queries, keys):
    """Scaled dot-product score alpha(q, k) = q . k / sqrt(d).

    For q and k with independent unit-variance entries, q . k has variance d; dividing by sqrt(d) keeps
    the scores at unit variance whatever the dimension, so the softmax does not saturate. Raises a
    ValueError if a score overflows the float range.
    """
    q, k = _pair(queries, keys)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        alpha = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])  # (..., n_q, n_k)
    return _finite_scores(alpha, "scaled dot-product", q, k)


def _unit_vectors(array, name: str):
    """Each vector divided by its length; a zero vector is refused (its direction is undefined).

    Each vector is first divided by its largest absolute entry, so its length is between 1 and sqrt(d) and
    neither overflows (entries near 1e200) nor underflows (entries near 1e-200) when squared.
    """
    scale = np.abs(array).max(axis=-1, keepdims=True)  # (..., n, 1)
    zero = scale[..., 0] == 0
    if np.any(zero):
        raise ValueError(
            f"{name} contains {int(np.sum(zero))} zero vector(s); the cosine score is undefined for a vector of "
            f"length 0"
        )
    scaled = array / scale  # entries in [-1, 1], the largest exactly +-1
    return scaled / np.linalg.norm(scaled, axis=-1, keepdims=True)


def cosine_score(queries, keys):
    """Cosine similarity alpha(q, k) = q . k / (||q|| ||k||), in [-1, 1]. Undefined for zero vectors.

    It depends on directions only: any vector lengths (1e-300 or 1e300) give the same scores.
    """
    q, k = _pair(queries, keys)
    q_hat, k_hat = _unit_vectors(q, "queries"), _unit_vectors(k, "keys")
    return np.clip(q_hat @ np.swapaxes(k_hat, -1, -2), -1.0, 1.0)


def gaussian_score(queries, keys, bandwidth=1.0):
    """Gaussian score alpha(q, k) = -||q - k||^2 / (2 h^2), h the bandwidth.

    softmax of these scores is the Nadaraya-Watson weight of the Gaussian kernel. Computed as
    -||(q - k) / h||^2 / 2, so any positive h works; a score below the float range (when ||q - k|| / h
    exceeds about 1.3e154) is -inf, the nearest float, which softmax gives weight exactly 0 as exp of the
    true score would.
    """
    h = check_positive(bandwidth, "bandwidth")
    q, k = _pair(queries, keys)
    with np.errstate(over="ignore", under="ignore"):
        diff = (q[..., :, None, :] - k[..., None, :, :]) / h  # (..., n_q, n_k, d), in bandwidths
        return -np.sum(diff * diff, axis=-1) / 2  # (..., n_q, n_k)


SCORES = {
    "dot": dot_score,
    "scaled_dot": scaled_dot_score,
    "cosine": cosine_score,
    "gaussian": gaussian_score,
}
