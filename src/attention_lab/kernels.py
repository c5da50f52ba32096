"""Kernels and Nadaraya-Watson regression: attention pooling without learned parameters.

Queries are the x where we predict, keys the training inputs x_i, values the training targets y_i:

    f(x) = sum_i lambda_i(x) y_i,   lambda_i(x) = K((x - x_i) / h) / sum_j K((x - x_j) / h).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_positive
from .normalisers import normalise_rows, softmax

__all__ = ["KERNELS", "gaussian_kernel", "boxcar_kernel", "epanechnikov_kernel", "nadaraya_watson",
           "loo_errors", "loo_bandwidth"]


def gaussian_kernel(u):
    """K(u) = exp(-u^2 / 2) / sqrt(2 pi): the standard normal density."""
    u = np.asarray(u, dtype=np.float64)
    return np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)


def boxcar_kernel(u):
    """K(u) = 1/2 on |u| <= 1, 0 elsewhere: every key within one bandwidth counts equally."""
    u = np.asarray(u, dtype=np.float64)
    return np.where(np.abs(u) <= 1, 0.5, 0.0)


def epanechnikov_kernel(u):
    """K(u) = 3/4 (1 - u^2) on |u| <= 1, 0 elsewhere (a parabola, not a triangle)."""
    u = np.asarray(u, dtype=np.float64)
    return np.where(np.abs(u) <= 1, 0.75 * (1 - u * u), 0.0)


KERNELS = {"gaussian": gaussian_kernel, "boxcar": boxcar_kernel, "epanechnikov": epanechnikov_kernel}


def _check_kernel(kernel):
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
    return kernel


def _points_1d(value, name):
    array = np.atleast_1d(as_float_array(value, name))
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of x values, got shape {array.shape}")
    return array


def _weights(diff, bandwidth, kernel, allowed=None):
    """Nadaraya-Watson weights from differences x - x_i of shape (n_q, n_k); rows without support are 0."""
    if kernel == "gaussian":
        # K((x - x_i)/h) / sum_j K((x - x_j)/h) == softmax_i(-(x - x_i)^2 / (2 h^2)): the constant cancels,
        # and the softmax form cannot underflow to 0/0 for queries far from every key.
        return softmax(-(diff * diff) / (2 * bandwidth * bandwidth), mask=allowed)
    k = KERNELS[kernel](diff / bandwidth)
    if allowed is not None:
        k = np.where(allowed, k, 0.0)
    return normalise_rows(k)


def nadaraya_watson(x_query, x_keys, y_values, *, bandwidth=1.0, kernel="gaussian"):
    """Nadaraya-Watson kernel regression (nonparametric attention pooling).

    Parameters
    ----------
    x_query : array_like, shape (n_query,)
        The queries x.
    x_keys : array_like, shape (n_keys,)
        The keys x_i (training inputs).
    y_values : array_like, shape (n_keys,) or (n_keys, d_v)
        The values y_i (training targets).
    bandwidth : float, default 1.0
        h > 0, the kernel width.
    kernel : {"gaussian", "boxcar", "epanechnikov"}

    Returns
    -------
    y_hat : numpy.ndarray, shape (n_query,) or (n_query, d_v)
        sum_i lambda_i(x) y_i. NaN for a query with no key inside a compact kernel's support: the
        estimate is 0/0 there, undefined, and plots show a gap.
    weights : numpy.ndarray, shape (n_query, n_keys)
        lambda_i(x) = K((x - x_i)/h) / sum_j K((x - x_j)/h); rows sum to 1, or are all 0 where undefined.
        With the Gaussian kernel this is ``softmax(gaussian_score(x_query, x_keys, h))``.
    """
    h = check_positive(bandwidth, "bandwidth")
    kernel = _check_kernel(kernel)
    xq = _points_1d(x_query, "x_query")
    xk = _points_1d(x_keys, "x_keys")
    y = as_float_array(y_values, "y_values", min_ndim=1)
    if y.shape[0] != xk.shape[0]:
        raise ValueError(
            f"x_keys and y_values must have the same length (one value per key), got {xk.shape[0]} keys "
            f"and {y.shape[0]} values"
        )
    weights = _weights(xq[:, None] - xk[None, :], h, kernel)  # (n_query, n_keys)
    y_hat = weights @ y  # (n_query,) or (n_query, d_v)
    defined = weights.sum(axis=-1) > 0
    if not defined.all():
        y_hat[~defined] = np.nan
    return y_hat, weights


def loo_errors(x, y, bandwidths, *, kernel="gaussian"):
    """Leave-one-out mean squared error of Nadaraya-Watson for each bandwidth.

    Each training point x_i is predicted from the other n - 1 points only. A bandwidth that leaves some
    point with no other key in reach (compact kernels) gets +inf: its prediction is undefined.
    """
    kernel = _check_kernel(kernel)
    x = _points_1d(x, "x")
    y = _points_1d(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"leave-one-out needs at least 2 points, got {x.shape[0]}")
    hs = np.atleast_1d(as_float_array(bandwidths, "bandwidths"))
    if hs.ndim != 1 or np.any(hs <= 0):
        raise ValueError(f"bandwidths must be a 1-D array of positive numbers, got {hs!r}")
    diff = x[:, None] - x[None, :]  # (n, n)
    others = ~np.eye(x.shape[0], dtype=bool)  # leave the point itself out
    errors = np.empty(hs.shape)
    for j, h in enumerate(hs):
        w = _weights(diff, h, kernel, allowed=others)
        defined = w.sum(axis=-1) > 0
        errors[j] = np.mean((w @ y - y) ** 2) if defined.all() else np.inf
    return errors


def loo_bandwidth(x, y, *, kernel="gaussian", bandwidths=None):
    """The bandwidth h that minimises the leave-one-out squared error (see :func:`loo_errors`).

    By default h is searched on 121 log-spaced values from 1/1000 of the data's range to the range,
    then refined on a finer grid around the best one.
    """
    x_arr = _points_1d(x, "x")
    if bandwidths is None:
        span = float(np.ptp(x_arr)) or 1.0
        grid = np.geomspace(1e-3 * span, span, 121)
        coarse = grid[np.argmin(loo_errors(x, y, grid, kernel=kernel))]
        step = grid[1] / grid[0]
        bandwidths = np.geomspace(coarse / step, coarse * step, 21)
    grid = np.atleast_1d(as_float_array(bandwidths, "bandwidths"))
    errors = loo_errors(x, y, grid, kernel=kernel)
    if not np.isfinite(errors).any():
        raise ValueError("no bandwidth in bandwidths leaves every point a neighbour; try larger bandwidths")
    return float(grid[np.argmin(errors)])
