"""Scoring functions alpha(q, k): how well a query q matches a key k.

Every function takes queries of shape ``(..., n_q, d)`` and keys of shape ``(..., n_k, d)`` and returns
scores of shape ``(..., n_q, n_k)``: queries on rows, keys on columns. A 1-D input of shape ``(n,)``
is read as n points in one dimension (d = 1), as in kernel regression.
"""

from __future__ import annotations

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
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"queries and keys must have the same feature size d (last axis); got queries of shape "
            f"{q.shape} (d={q.shape[-1]}) and keys of shape {k.shape} (d={k.shape[-1]})"
        )
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch dimensions of queries {q.shape[:-2]} and keys {k.shape[:-2]} do not broadcast"
        ) from None
    return q, k


def dot_score(queries, keys):
    """Dot-product score alpha(q, k) = q . k."""
    q, k = _pair(queries, keys)
    return q @ np.swapaxes(k, -1, -2)  # (..., n_q, d) @ (..., d, n_k) -> (..., n_q, n_k)


def scaled_dot_score(queries, keys):
    """Scaled dot-product score alpha(q, k) = q . k / sqrt(d).

    For q and k with independent unit-variance entries, q . k has variance d; dividing by sqrt(d) keeps
    the scores at unit variance whatever the dimension, so the softmax does not saturate.
    """
    q, k = _pair(queries, keys)
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def cosine_score(queries, keys):
    """Cosine similarity alpha(q, k) = q . k / (||q|| ||k||), in [-1, 1]. Undefined for zero vectors."""
    q, k = _pair(queries, keys)
    for name, array in (("queries", q), ("keys", k)):
        norms = np.linalg.norm(array, axis=-1)
        if np.any(norms == 0):
            raise ValueError(
                f"{name} contains {int(np.sum(norms == 0))} zero vector(s); the cosine score is undefined "
                f"for a vector of length 0"
            )
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    return np.clip(q @ np.swapaxes(k, -1, -2), -1.0, 1.0)


def gaussian_score(queries, keys, bandwidth=1.0):
    """Gaussian score alpha(q, k) = -||q - k||^2 / (2 h^2), h the bandwidth.

    softmax of these scores is the Nadaraya-Watson weight of the Gaussian kernel.
    """
    h = check_positive(bandwidth, "bandwidth")
    q, k = _pair(queries, keys)
    diff = q[..., :, None, :] - k[..., None, :, :]  # (..., n_q, n_k, d)
    return -np.sum(diff * diff, axis=-1) / (2 * h * h)


SCORES = {
    "dot": dot_score,
    "scaled_dot": scaled_dot_score,
    "cosine": cosine_score,
    "gaussian": gaussian_score,
}
