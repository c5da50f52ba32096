"""Input checks shared by the torch layers: a wrong tensor is named, with what was expected and given."""

from __future__ import annotations

import torch


def as_float_tensor(value, name: str) -> torch.Tensor:
    """``value`` if it is a floating-point torch tensor, else a ValueError naming ``name``."""
    if not torch.is_tensor(value) or not value.is_floating_point():
        raise ValueError(f"{name} must be a floating-point torch tensor, got {type(value).__name__}"
                         + (f" of dtype {value.dtype}" if torch.is_tensor(value) else ""))
    return value
