"""The course's regression data set: f(x) = 2 sin(x) + x^0.8 observed with Gaussian noise."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_float_array, as_rng, check_count

__all__ = ["RegressionData", "true_function", "make_regression_data"]


class RegressionData(NamedTuple):
    """Keys, values, queries and truth for kernel regression."""

    x_train: np.ndarray  # (n_train,) sorted keys x_i in [0, 5)
    y_train: np.ndarray  # (n_train,) values y_i = f(x_i) + noise
    x_test: np.ndarray  # (50,) queries 0, 0.1, ..., 4.9
    y_truth: np.ndarray  # (50,) f(x_test), the noise-free truth


def true_function(x):
    """f(x) = 2 sin(x) + x^0.8, for x >= 0."""
    x = as_float_array(x, "x")
    if np.any(x < 0):
        raise ValueError(f"x must be >= 0 (x^0.8 is not real for x < 0), got a minimum of {x.min()}")
    return 2 * np.sin(x) + x**0.8


def make_regression_data(n_train=50, *, noise=0.5, seed=0):
    """Draw the course data set.

    x_train: n_train points uniform in [0, 5), sorted; y_train = f(x_train) + N(0, noise^2);
    x_test = 0, 0.1, ..., 4.9; y_truth = f(x_test). The same ``seed`` always gives the same data.
    """
    n_train = check_count(n_train, "n_train", 1)
    noise_arr = as_float_array(noise, "noise")
    if noise_arr.ndim != 0 or noise_arr < 0:
        raise ValueError(f"noise must be a number >= 0 (a standard deviation), got {noise!r}")
    rng = as_rng(seed, "seed")
    x_train = np.sort(rng.uniform(0.0, 5.0, n_train))
    with np.errstate(over="ignore"):
        y_train = true_function(x_train) + rng.normal(0.0, float(noise_arr), n_train)
    if not np.all(np.isfinite(y_train)):
        raise ValueError(f"noise must be small enough for y to stay in the float range, got {noise!r}")
    x_test = np.arange(50) / 10  # exactly 0.0, 0.1, ..., 4.9
    return RegressionData(x_train, y_train, x_test, true_function(x_test))
