"""Kernels and Nadaraya-Watson regression: attention pooling without learned parameters.

Queries are the x where we predict, keys the training inputs x_i, values the training targets y_i:

    f(x) = sum_i lambda_i(x) y_i,   lambda_i(x) = kappa((x - x_i) / h) / sum_j kappa((x - x_j) / h).
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_choice, check_positive, describe
from .normalisers import normalise_rows, stable_softmax

__all__ = [
    "KERNELS",
    "gaussian_kernel",
    "boxcar_kernel",
    "epanechnikov_kernel",
    "nadaraya_watson",
    "loo_errors",
    "loo_bandwidth",
]


def gaussian_kernel(u):
    """kappa(u) = exp(-u^2 / 2) / sqrt(2 pi): the standard normal density."""
    u = as_float_array(u, "u")
    with np.errstate(over="ignore", under="ignore"):  # |u| > 1.3e154: u^2 overflows, kappa(u) = 0, the nearest float
        return np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)


def boxcar_kernel(u):
    """kappa(u) = 1/2 on |u| <= 1, 0 elsewhere: every key within one bandwidth counts equally."""
    u = as_float_array(u, "u")
    return np.where(np.abs(u) <= 1, 0.5, 0.0)


def epanechnikov_kernel(u):
    """kappa(u) = 3/4 (1 - u^2) on |u| <= 1, 0 elsewhere (a parabola, not a triangle)."""
    u = as_float_array(u, "u")
    inside = np.abs(u) <= 1
    return np.where(inside, 0.75 * (1 - np.where(inside, u, 0.0) ** 2), 0.0)


KERNELS = {"gaussian": gaussian_kernel, "boxcar": boxcar_kernel, "epanechnikov": epanechnikov_kernel}


def _check_kernel(kernel):
    return check_choice(kernel, sorted(KERNELS), "kernel")


def _points_1d(value, name):
    array = np.atleast_1d(as_float_array(value, name))
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of x values, got shape {array.shape}")
    return array


def _differences(x_query, x_keys, query_name, key_name):
    """x - x_i of shape (n_q, n_k); a ValueError if some difference is beyond the float range."""
    with np.errstate(over="ignore", invalid="ignore"):
        diff = x_query[:, None] - x_keys[None, :]  # (n_q, n_k)
    if not np.isfinite(diff).all():
        raise ValueError(
            f"{query_name} and {key_name} are too far apart: some x - x_i is beyond the float range (about 1.8e308)"
        )
    return diff


def _weights(diff, bandwidth, kernel, allowed=None):
    """lambda_i(x) = kappa((x - x_i)/h) / sum_j kappa((x - x_j)/h), shape (n_q, n_k); ``diff`` = x - x_i.

    ``allowed`` (n_q, n_k), if given, marks the keys each query may use (leave-one-out). A row with no key
    in reach (compact kernels) is all 0.
    """
    if kernel == "gaussian":  # kappa(u_i) / sum_j kappa(u_j) = softmax_i(-u_i^2 / 2): 1/sqrt(2 pi) cancels
        with np.errstate(over="ignore", under="ignore"):
            u = diff / bandwidth  # (n_q, n_k), in bandwidths
            scores = -(u * u) / 2  # gaussian_score(x_query, x_keys, h): -inf beyond the float range
        weights = stable_softmax(scores if allowed is None else np.where(allowed, scores, -np.inf), 1.0)  # (n_q, n_k)
        return _nearest_key_limit(weights, diff, allowed)
    kappa = KERNELS[kernel](_in_bandwidths(diff, bandwidth))  # kappa((x - x_i)/h): (n_q, n_k)
    if allowed is not None:
        kappa = np.where(allowed, kappa, 0.0)
    return normalise_rows(kappa)  # kappa_i / sum_j kappa_j


# The limits beside the formula above.


def _in_bandwidths(diff, bandwidth):
    """u = (x - x_i)/h clipped to [-2, 2]: |u| > 1 is outside a compact kernel's support either way, and no
    division overflows."""
    with np.errstate(over="ignore"):
        return np.clip(diff / bandwidth, -2.0, 2.0)


def _nearest_key_limit(weights, diff, allowed):
    """Gaussian weights with the rows that the softmax lost replaced by their exact limit.

    A row is lost when every score is below the float range (-inf): the nearest key is more than 1.3e154
    bandwidths away. Then exp(score_i - max score) is 0 in float64 for every other key, so the exact
    weights are one-hot on the nearest key (ties share): the softmax of -|x - x_i| at T = 0.
    """
    lost = weights.sum(axis=-1) == 0  # (n_q,)
    if allowed is not None:
        lost &= allowed.any(axis=-1)  # a query with no allowed key stays all 0
    if lost.any():
        nearness = -np.abs(diff[lost])  # (n_lost, n_k): the largest is the nearest key
        weights[lost] = stable_softmax(nearness if allowed is None else np.where(allowed[lost], nearness, -np.inf), 0.0)
    return weights


def nadaraya_watson(x_query, x_keys, y_values, *, bandwidth=1.0, kernel="gaussian"):
    """Nadaraya-Watson kernel regression (nonparametric attention pooling), for one-dimensional keys.

    The keys and queries are numbers (notebook 03's x). For d-dimensional keys with the isotropic Gaussian
    kernel (one bandwidth h for every coordinate), the weights are ``softmax(gaussian_score(queries, keys,
    h))`` (notebooks 01 and 05); a bandwidth per coordinate is another kernel, not covered here.

    Parameters
    ----------
    x_query : array_like, shape (n_query,)
        The queries x.
    x_keys : array_like, shape (n_keys,)
        The keys x_i (training inputs), at least one.
    y_values : array_like, shape (n_keys,) or (n_keys, d_v)
        The values y_i (training targets).
    bandwidth : float, default 1.0
        h > 0, the kernel width. Any positive float works: as h -> 0 the Gaussian weights become one-hot on
        the nearest key (nearest-neighbour regression), as h -> inf uniform (the mean of the values).
    kernel : {"gaussian", "boxcar", "epanechnikov"}

    Returns
    -------
    y_hat : numpy.ndarray, shape (n_query,) or (n_query, d_v)
        sum_i lambda_i(x) y_i. NaN for a query with no key inside a compact kernel's support: the
        estimate is 0/0 there, undefined, and plots show a gap.
    weights : numpy.ndarray, shape (n_query, n_keys)
        lambda_i(x) = kappa((x - x_i)/h) / sum_j kappa((x - x_j)/h); rows sum to 1, or are all 0 where undefined.
        With the Gaussian kernel this is ``softmax(gaussian_score(x_query, x_keys, h))``.
    """
    xq, xk, y, h, kernel = _nw_inputs(x_query, x_keys, y_values, bandwidth, kernel)
    weights = _weights(_differences(xq, xk, "x_query", "x_keys"), h, kernel)  # (n_query, n_keys)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        y_hat = weights @ y  # sum_i lambda_i(x) y_i: (n_query,) or (n_query, d_v)
    _check_finite_average(y_hat, y)
    y_hat[weights.sum(axis=-1) == 0] = np.nan  # no key in reach: 0/0, undefined
    return y_hat, weights


def _nw_inputs(x_query, x_keys, y_values, bandwidth, kernel):
    h = check_positive(bandwidth, "bandwidth")
    kernel = _check_kernel(kernel)
    xq = _points_1d(x_query, "x_query")
    xk = _points_1d(x_keys, "x_keys")
    if xk.size == 0:
        raise ValueError("x_keys must hold at least one key, got an empty array")
    y = as_float_array(y_values, "y_values", min_ndim=1)
    if y.shape[0] != xk.shape[0]:
        raise ValueError(
            f"x_keys and y_values must have the same length (one value per key), got {xk.shape[0]} keys "
            f"and {y.shape[0]} values"
        )
    return xq, xk, y, h, kernel


def _check_finite_average(y_hat, y):
    if not np.isfinite(y_hat).all():  # a weighted average of finite values can only overflow in rounding
        raise ValueError(
            f"y_values are too large: a weighted average overflowed (values up to {np.abs(y).max():.3g};"
            f" the float range ends near 1.8e308)"
        )


def _loo_inputs(x, y, bandwidths):
    x = _points_1d(x, "x")
    y = _points_1d(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"leave-one-out needs at least 2 points, got {x.shape[0]}")
    hs = np.atleast_1d(as_float_array(bandwidths, "bandwidths"))
    if hs.ndim != 1 or hs.size == 0 or np.any(hs <= 0):
        raise ValueError(f"bandwidths must be a non-empty 1-D array of positive numbers, got {describe(bandwidths)}")
    return x, y, hs


def _loo_scaled_errors(x, y, hs, kernel):
    """Leave-one-out mean squared errors of y / max|y| (so they neither overflow nor underflow), inf where undefined."""
    scale = float(np.abs(y).max()) or 1.0
    y = y / scale  # |y| <= 1
    diff = _differences(x, x, "x", "x")  # (n, n)
    others = ~np.eye(x.shape[0], dtype=bool)  # leave the point itself out
    errors = np.empty(hs.shape)
    for j, h in enumerate(hs):
        w = _weights(diff, h, kernel, allowed=others)
        defined = w.sum(axis=-1) > 0
        errors[j] = np.mean((w @ y - y) ** 2) if defined.all() else np.inf
    return errors, scale


def loo_errors(x, y, bandwidths, *, kernel="gaussian"):
    """Leave-one-out mean squared error of Nadaraya-Watson for each bandwidth.

    Each training point x_i is predicted from the other n - 1 points only. A bandwidth that leaves some
    point with no other key in reach (compact kernels) gets +inf: its prediction is undefined. (An error
    beyond the float range, possible only for |y| near 1e154 or more, is +inf too.)
    """
    kernel = _check_kernel(kernel)
    x, y, hs = _loo_inputs(x, y, bandwidths)
    errors, scale = _loo_scaled_errors(x, y, hs, kernel)
    with np.errstate(over="ignore", under="ignore"):
        return errors * scale * scale


def loo_bandwidth(x, y, *, kernel="gaussian", bandwidths=None):
    """The bandwidth h that minimises the leave-one-out squared error (see :func:`loo_errors`).

    By default h is searched on 121 log-spaced values from 1/1000 of the data's range to the range,
    then refined on a finer grid around the best one. The search compares the errors of y / max|y|, the
    same order as the errors themselves, so it also works where those would overflow or underflow.
    """
    kernel = _check_kernel(kernel)
    x, y, grid = _loo_inputs(x, y, 1.0 if bandwidths is None else bandwidths)  # checked once
    if bandwidths is None:
        coarse_grid = _search_grid(x)
        coarse = coarse_grid[np.argmin(_loo_scaled_errors(x, y, coarse_grid, kernel)[0])]
        step = coarse_grid[1] / coarse_grid[0]
        grid = np.geomspace(coarse / step, min(coarse * step, np.finfo(float).max), 21)
    errors = _loo_scaled_errors(x, y, grid, kernel)[0]
    if not np.isfinite(errors).any():
        raise ValueError("no bandwidth in bandwidths leaves every point a neighbour; try larger bandwidths")
    return float(grid[np.argmin(errors)])


def _search_grid(x):
    """121 log-spaced bandwidths from 1/1000 of the range of (checked) ``x`` to the range."""
    with np.errstate(over="ignore"):
        span = float(np.ptp(x))
    if not np.isfinite(span):
        raise ValueError("x spans more than the float range (about 1.8e308): rescale x")
    span = span or 1.0
    if 1e-3 * span < np.finfo(float).tiny:
        raise ValueError(f"x values are too close together (spread {span:.3g}) for a bandwidth search; rescale x")
    return np.geomspace(1e-3 * span, span, 121)
