"""Input checks shared by the torch layers: a wrong tensor is named, with what was expected and given."""

from __future__ import annotations

import torch


def describe_tensor(value) -> str:
    """'a tensor of shape (2, 3)' for a tensor, else the type's name: for error messages."""
    if torch.is_tensor(value):
        return f"a tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    return f"{type(value).__name__}"


def as_float_tensor(value, name: str, *, check_values: bool = False, allow_neg_inf: bool = False) -> torch.Tensor:
    """``value`` if it is a floating-point torch tensor, else a ValueError naming ``name``.

    With ``check_values`` NaN and +inf are refused too, and -inf unless ``allow_neg_inf`` (for scores,
    -inf means "never attend"). Without it the entries are not looked at: a layer may hold garbage in
    padding that its mask hides.
    """
    if not torch.is_tensor(value) or not value.is_floating_point():
        raise ValueError(f"{name} must be a floating-point torch tensor, got {type(value).__name__}"
                         + (f" of dtype {value.dtype}" if torch.is_tensor(value) else ""))
    if check_values:
        check_entries(value, name, allow_neg_inf=allow_neg_inf)
    return value


def check_entries(value: torch.Tensor, name: str, *, allow_neg_inf: bool = False, where: str = ""):
    """A ValueError if ``value`` holds NaN or +inf (or -inf unless allowed); ``where`` qualifies the message."""
    with torch.no_grad():
        nan = torch.isnan(value)
        if nan.any():
            raise ValueError(f"{name} must not contain NaN{where}, got {int(nan.sum())} NaN value(s)")
        bad = torch.isposinf(value) if allow_neg_inf else torch.isinf(value)
        if bad.any():
            allowed = "finite (or -inf, meaning 'never attend')" if allow_neg_inf else "finite"
            raise ValueError(f"{name} must be {allowed}{where}, got {int(bad.sum())} infinite value(s)")


def as_bool_mask(mask, name: str = "mask") -> torch.Tensor:
    """A boolean torch tensor (True = may attend), else a ValueError naming ``name``."""
    if not torch.is_tensor(mask) or mask.dtype != torch.bool:
        raise ValueError(f"{name} must be a boolean torch tensor (True = may attend), got "
                         f"{mask.dtype if torch.is_tensor(mask) else type(mask).__name__}")
    return mask
