"""The library's one vocabulary of input checks: each failure names the argument, what was expected and what was given.

Every public function checks its inputs at the door with these helpers (numbers, counts, flags, choices,
arrays, masks, seeds, labels; :mod:`attention_lab.nn._checks` adds the torch tensors), and each value is
checked once on its way in. Arrays are converted by copying, so the caller's arrays are never mutated.
:func:`describe` is the one way a message shows what was given.
"""

from __future__ import annotations

import numbers

import numpy as np


def describe(value) -> str:
    """A short description of a value for an error message: shape and dtype of an array, else its repr."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if type(value).__module__ == "torch" and hasattr(value, "shape"):
        return f"a torch tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an object whose repr fails is still described
        return f"an object of type {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _numeric(value, name: str) -> np.ndarray:
    """``value`` as an array of real numbers (not yet float): refuse what numpy would silently misread.

    Refused, each with its own message: masked arrays (numpy would drop the mask), strings ("1.5" is text,
    not a number), True/False, complex numbers (the imaginary part would be dropped), torch tensors that
    require grad, and anything else that is not numbers.
    """
    if isinstance(value, np.ma.MaskedArray):
        raise ValueError(
            f"{name} is a masked array (numpy.ma); its mask would be ignored here. Fill the masked "
            f"entries (np.ma.filled) or pass the mask separately (mask=, True = may be attended)"
        )
    if isinstance(value, str | bytes):
        raise ValueError(f"{name} must be an array of numbers, got the text {describe(value)}")
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - ragged lists, tensors that require grad, odd objects
        hint = ""
        if "requires grad" in str(error):
            hint = " (a torch tensor that requires grad: pass tensor.detach())"
        raise ValueError(f"{name} must be an array of numbers, got {describe(value)}{hint}") from None
    if array.dtype.kind == "O":  # a list mixing numbers and other objects: look at the elements
        flat = array.ravel()
        if any(isinstance(x, str | bytes | bool | np.bool_ | complex | np.complexfloating) or x is None for x in flat):
            raise ValueError(f"{name} must be an array of real numbers, got {describe(value)}")
    kind = array.dtype.kind
    if kind == "b":
        raise ValueError(
            f"{name} must be an array of numbers, got True/False values (dtype bool); use 0.0 and "
            f"1.0 if you mean numbers"
        )
    if kind == "c":
        raise ValueError(f"{name} must be an array of real numbers, got complex numbers (dtype {array.dtype})")
    if kind in "USVMm":
        raise ValueError(f"{name} must be an array of numbers, got {describe(value)} (dtype {array.dtype})")
    return array


def as_float_array(value, name: str, *, min_ndim: int = 0, allow_neg_inf: bool = False) -> np.ndarray:
    """Return ``value`` as a new float64 array; reject NaN (and infinities unless allowed).

    Numbers only: strings, booleans, complex numbers and masked arrays are refused rather than converted.
    """
    if type(value) is np.ndarray and value.dtype == np.float64:  # the common case: nothing to convert
        array = value.copy()  # inputs are never mutated
    else:
        raw = _numeric(value, name)
        try:
            array = np.array(raw, dtype=np.float64)  # np.array copies: inputs are never mutated
        except (TypeError, ValueError, OverflowError):
            raise ValueError(
                f"{name} must be an array of real numbers within the float range (about 1.8e308), got {describe(value)}"
            ) from None
    if array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {array.shape}")
    if np.isfinite(array).all():  # the common case: one scan
        return array
    if np.isnan(array).any():
        raise ValueError(f"{name} must not contain NaN, got {int(np.isnan(array).sum())} NaN value(s)")
    bad = np.isposinf(array) | (np.isneginf(array) if not allow_neg_inf else False)
    if np.any(bad):
        allowed = "finite (or -inf, meaning 'never attend')" if allow_neg_inf else "finite"
        raise ValueError(f"{name} must be {allowed}, got {int(np.sum(bad))} infinite value(s)")
    return array


def check_axis(axis, ndim: int, name: str = "axis") -> int:
    """An axis of an array with ``ndim`` dimensions (negative counts from the end), as a non-negative int."""
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, checked without isinstance
        return axis % ndim
    expected = f"an integer in [{-ndim}, {ndim - 1}] for an array with {ndim} dimension(s)"
    if isinstance(axis, bool | np.bool_) or not isinstance(axis, numbers.Integral) or not -ndim <= int(axis) < ndim:
        raise ValueError(f"{name} must be {expected}, got {describe(axis)}")
    return int(axis) % ndim


def check_temperature(temperature, name: str = "temperature") -> float:
    """A temperature T is a number with 0 <= T <= inf (0 = hard limit, inf = uniform)."""
    if type(temperature) is float and temperature >= 0:  # the common case (NaN fails the comparison)
        return temperature
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise ValueError(f"{name} must be a number >= 0 (0 = hard, np.inf = uniform), got {describe(temperature)}")
    value = float(temperature)
    if np.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a number >= 0 (0 = hard, np.inf = uniform), got {value}")
    return value


def check_positive(value, name: str) -> float:
    """A strictly positive, finite scalar such as a bandwidth h."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive finite number, got {describe(value)}")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value}")
    return value


def check_real(value, name: str, *, finite: bool = False) -> float:
    """A real number (not a bool, a string or a complex) as a float; with ``finite``, not inf or NaN either."""
    kind = "a finite number" if finite else "a real number"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {kind}, got {describe(value)}")
    number = float(value)
    if finite and not np.isfinite(number):
        raise ValueError(f"{name} must be {kind}, got {number}")
    return number


def check_count(value, name: str, low: int, high: int | None = None, *, what: str = "") -> int:
    """An integer in [low, high] such as k in top-k; ``what`` says what it counts, for the message."""
    expected = f"an integer >= {low}" + ("" if high is None else f" and <= {high}")
    if what:
        expected += f" ({what})"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be {expected}, got {describe(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {expected}, got {value}")
    return value


def check_seed(seed, name: str = "seed") -> int:
    """A whole-number seed >= 0 (numpy's rule)."""
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {describe(seed)}")
    return int(seed)


def check_choice(value, options, name: str):
    """One of ``options`` (compared by type and value: ``True`` is not ``1``, ``"1"`` is not ``1``)."""
    for option in options:
        if type(value) is type(option) and value == option:
            return option
    raise ValueError(f"{name} must be one of {list(options)}, got {describe(value)}")


def check_labels(labels, n: int, name: str = "labels") -> list | None:
    """``n`` labels as a list of strings (None: none given)."""
    if labels is None:
        return None
    if isinstance(labels, str | bytes) or not hasattr(labels, "__len__"):
        raise ValueError(f"{name} must be a list of {n} strings, got {describe(labels)}")
    labels = list(labels)
    if len(labels) != n or not all(isinstance(label, str) for label in labels):
        raise ValueError(f"{name} must be a list of {n} strings (one per entry), got {describe(labels)}")
    return labels


def check_flag(value, name: str) -> bool:
    """A real bool (``True``/``False``, or numpy's): the string "no" or the number 2 are not flags."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def as_mask(mask, shape: tuple[int, ...], name: str = "mask") -> np.ndarray:
    """Broadcast a boolean mask (True = may be attended) to ``shape``; None means 'attend everywhere'."""
    if mask is None:
        return np.ones(shape, dtype=bool)
    if isinstance(mask, np.ma.MaskedArray):
        raise ValueError(f"{name} must be a plain boolean array, got a masked array (numpy.ma)")
    try:
        array = np.asarray(mask)
    except Exception:  # noqa: BLE001 - ragged lists, tensors that require grad, odd objects
        raise ValueError(f"{name} must be a boolean array (True = may be attended), got {describe(mask)}") from None
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
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} must be a seed >= 0, got {rng}")
        return np.random.default_rng(int(rng))
    raise ValueError(f"{name} must be None, an integer seed or a numpy.random.Generator, got {describe(rng)}")
