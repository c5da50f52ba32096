"""The torch half of the input checks (:mod:`attention_lab._checks` holds the rest, and :func:`describe`).

A wrong tensor is named, with what was expected and what was given.
"""

from __future__ import annotations

import torch

from .._checks import describe

__all__ = ["describe", "as_float_tensor", "check_entries", "as_bool_mask", "check_ids", "check_dropout"]


def as_float_tensor(value, name: str, *, check_values: bool = False, allow_neg_inf: bool = False) -> torch.Tensor:
    """``value`` if it is a floating-point torch tensor, else a ValueError naming ``name``.

    With ``check_values`` NaN and +inf are refused too, and -inf unless ``allow_neg_inf`` (for scores,
    -inf means "never attend"). Without it the entries are not looked at: a layer may hold garbage in
    padding that its mask hides.
    """
    if not torch.is_tensor(value) or not value.is_floating_point():
        raise ValueError(f"{name} must be a floating-point torch tensor, got {describe(value)}")
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
        raise ValueError(f"{name} must be a boolean torch tensor (True = may attend), got {describe(mask)}")
    return mask


def check_ids(ids, name: str, vocab_size: int, what: str):
    """``ids`` must be a 2-D integer tensor (batch, length) with ids in 0..vocab_size-1 and length >= 1."""
    if not torch.is_tensor(ids) or ids.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor of token ids (batch, {what}), got {describe(ids)}")
    if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer token ids, got dtype {ids.dtype}")
    if ids.shape[0] == 0 or ids.shape[1] == 0:
        raise ValueError(
            f"{name} of shape {tuple(ids.shape)} is empty: it needs at least one sequence with at least one token"
        )
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= vocab_size:
        raise ValueError(
            f"{name} holds token ids from {low} to {high}, but the vocabulary has {vocab_size} tokens "
            f"(ids 0..{vocab_size - 1})"
        )
    return ids


def check_dropout(p, name: str = "dropout") -> float:
    """A dropout probability in [0, 1)."""
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p < 1:
        raise ValueError(f"{name} must be a probability in [0, 1), got {describe(p)}")
    return float(p)
