"""Gumbel-softmax in PyTorch (notebook 02): a differentiable relaxed sample, and its straight-through variant."""

from __future__ import annotations

import torch

from .._checks import check_temperature

__all__ = ["gumbel_softmax"]


def gumbel_softmax(scores: torch.Tensor, temperature: float = 1.0, *, hard: bool = False,
                   generator: torch.Generator | None = None, dim: int = -1) -> torch.Tensor:
    """Differentiable relaxed sample: lambda = softmax((alpha + g) / T), g_i ~ Gumbel(0, 1).

    With ``hard=True`` the forward value is the one-hot argmax(alpha + g), an exact sample from
    softmax(alpha), while the gradient is that of the relaxed weights: the straight-through estimator,
    ``one_hot - relaxed.detach() + relaxed``.
    """
    temperature = check_temperature(temperature)
    if not 0 < temperature < float("inf"):
        raise ValueError(f"temperature must be positive and finite for a differentiable sample, got {temperature}")
    if not torch.is_tensor(scores) or not scores.is_floating_point():
        raise ValueError(f"scores must be a floating-point torch tensor, got {type(scores).__name__}")
    uniform = torch.rand(scores.shape, generator=generator, dtype=scores.dtype).clamp_(1e-12, 1 - 1e-12)
    gumbel = -torch.log(-torch.log(uniform))  # same shape as scores
    relaxed = torch.softmax((scores + gumbel) / temperature, dim=dim)
    if not hard:
        return relaxed
    index = relaxed.argmax(dim=dim, keepdim=True)
    one_hot = torch.zeros_like(relaxed).scatter_(dim, index, 1.0)
    return one_hot - relaxed.detach() + relaxed  # value: one_hot; gradient: d relaxed
