"""The torch half of the input checks (:mod:`attention_lab._checks` holds the rest, and :func:`describe`).

A wrong tensor is named, with what was expected and what was given. A layer checks its inputs at its door,
once: a model (:class:`~attention_lab.nn.TinyTransformer` and the others) checks its token ids and runs its
layers inside ``checks(False)``, so the layers inside trust what the model already checked. Code that
calls a layer many times on inputs it built itself may do the same (as scikit-learn's ``assume_finite``):

>>> from attention_lab import nn
>>> with nn.checks(False):  # doctest: +SKIP
...     out = layer(q, k, v)
"""

from __future__ import annotations

from contextvars import ContextVar

import torch

from .._checks import check_flag, describe

__all__ = [
    "checks",
    "checks_enabled",
    "describe",
    "as_float_tensor",
    "check_entries",
    "as_bool_mask",
    "check_mask",
    "check_ids",
    "check_dropout",
]

_CHECKS: ContextVar[bool] = ContextVar("attention_lab_nn_checks", default=True)


def checks_enabled() -> bool:
    """True (the default) where the torch layers check their inputs; False inside ``checks(False)``."""
    return _CHECKS.get()


class checks:  # lower case: used like a function, ``with nn.checks(False):``
    """A context manager: the torch layers check their inputs (``enabled=True``) or trust them (False).

    Scoped to the ``with`` block (and its thread or task), restored on exit even after an error.
    """

    def __init__(self, enabled: bool = True):
        self.enabled = check_flag(enabled, "enabled")
        self._tokens: list = []

    def __enter__(self) -> checks:
        self._tokens.append(_CHECKS.set(self.enabled))
        return self

    def __exit__(self, *exc_info) -> None:
        _CHECKS.reset(self._tokens.pop())


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


def check_mask(mask, shape) -> None:
    """None, or a boolean tensor (True = may attend) that broadcasts to ``shape`` (the scores'); else a ValueError."""
    if mask is None:
        return
    as_bool_mask(mask)
    try:
        fits = torch.broadcast_shapes(mask.shape, shape) == torch.Size(shape)
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape {tuple(shape)}"
        ) from None


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
