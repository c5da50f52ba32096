"""The sinusoidal positional encoding of Vaswani et al. (2017), in numpy (notebook 07).

PE[pos, 2r] = sin(pos omega_r), PE[pos, 2r+1] = cos(pos omega_r), with angular frequencies
omega_r = base^(-2r/d_model). Since sin a sin b + cos a cos b = cos(a - b), PE(pos) . PE(pos + delta) =
sum_r cos(delta omega_r) depends on
the offset delta only (:func:`offset_dot_products`). The torch layer
:func:`attention_lab.nn.sinusoidal_positional_encoding` wraps :func:`sinusoidal_encoding`.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_count, check_positive

__all__ = ["frequencies", "sinusoidal_encoding", "offset_dot_products"]


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """The angular frequencies omega_r = base^(-2r/d_model), r = 0 .. ceil(d_model/2) - 1, float64."""
    d_model = check_count(d_model, "d_model", 1)
    base = check_positive(base, "base")
    return base ** (-np.arange(0, d_model, 2) / d_model)  # (ceil(d/2),)


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The (n_positions, d_model) sinusoidal encoding, float64; an odd d_model drops the last cosine column.

    Examples
    --------
    >>> pe = sinusoidal_encoding(4, 6)
    >>> pe.shape, float(pe[0, 0]), float(pe[0, 1])
    ((4, 6), 0.0, 1.0)
    """
    n_positions = check_count(n_positions, "n_positions", 1)
    angles = np.arange(n_positions)[:, None] * frequencies(d_model, base)[None, :]  # (n, ceil(d/2))
    pe = np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n_positions, -1)  # interleave sin, cos
    return pe[:, :d_model]  # (n, d_model)


def offset_dot_products(frequencies: np.ndarray, offsets: np.ndarray, d_model: int) -> np.ndarray:
    """sum_r cos(offset omega_r) = PE(pos) . PE(pos + offset) for every pos (sin a sin b + cos a cos b = cos(a - b)).

    Needs an even ``d_model``: with an odd one the last sine column has no cosine partner.
    """
    if check_count(d_model, "d_model", 1) % 2:
        raise ValueError(f"offset-only dot products need an even d_model, got {d_model}")
    offsets = np.asarray(offsets, dtype=np.float64)
    return np.cos(offsets[:, None] * np.asarray(frequencies)[None, :]).sum(axis=1)  # (n_offsets,)
