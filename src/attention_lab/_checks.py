"""Input checks shared by the library: each failure names the argument, what was expected and what was given.

Every public function converts its inputs with these helpers, which copy rather than modify, so the
caller's arrays are never mutated.
"""

from __future__ import annotations

import numbers

import numpy as np


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(value, name: str, *, min_ndim: int = 0, allow_neg_inf: bool = False) -> np.ndarray:
    """Return ``value`` as a new float64 array; reject NaN (and infinities unless allowed)."""
    try:
        array = np.array(value, dtype=np.float64)  # np.array copies: inputs are never mutated
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {_describe(value)}") from None
    if array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {array.shape}")
    if np.isnan(array).any():
        raise ValueError(f"{name} must not contain NaN, got {int(np.isnan(array).sum())} NaN value(s)")
    bad = np.isposinf(array) | (np.isneginf(array) if not allow_neg_inf else False)
    if np.any(bad):
        allowed = "finite (or -inf, meaning 'never attend')" if allow_neg_inf else "finite"
        raise ValueError(f"{name} must be {allowed}, got {int(np.sum(bad))} infinite value(s)")
    return array


def check_axis(axis, ndim: int, name: str = "axis") -> int:
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise ValueError(f"{name} must be an integer, got {_describe(axis)}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name} must be in [{-ndim}, {ndim - 1}] for an array with {ndim} dimension(s), got {axis}")
    return int(axis) % ndim


def check_temperature(temperature, name: str = "temperature") -> float:
    """A temperature T is a number with 0 <= T <= inf (0 = hard limit, inf = uniform)."""
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise ValueError(f"{name} must be a number >= 0 (0 = hard, np.inf = uniform), got {_describe(temperature)}")
    value = float(temperature)
    if np.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a number >= 0 (0 = hard, np.inf = uniform), got {value}")
    return value


def check_positive(value, name: str) -> float:
    """A strictly positive, finite scalar such as a bandwidth h."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive finite number, got {_describe(value)}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value}")
    return value


def check_count(value, name: str, low: int, high: int | None = None) -> int:
    """An integer in [low, high] such as k in top-k."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {_describe(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f" and <= {high}"
        raise ValueError(f"{name} must be >= {low}{upper}, got {value}")
    return value


def as_mask(mask, shape: tuple[int, ...], name: str = "mask") -> np.ndarray:
    """Broadcast a boolean mask (True = may be attended) to ``shape``; None means 'attend everywhere'."""
    if mask is None:
        return np.ones(shape, dtype=bool)
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise ValueError(f"{name} must be a boolean array (True = may be attended), got dtype {array.dtype}")
    try:
        return np.broadcast_to(array, shape).copy()
    except ValueError:
        raise ValueError(
            f"{name} must be broadcastable to the scores' shape {shape}, got shape {array.shape}"
        ) from None


def as_rng(rng, name: str = "rng") -> np.random.Generator:
    """A seed (int), a numpy Generator, or None (fresh, unseeded randomness)."""
    if rng is None or isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    raise ValueError(f"{name} must be None, an integer seed or a numpy.random.Generator, got {_describe(rng)}")
