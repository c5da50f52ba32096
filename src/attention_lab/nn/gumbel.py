"""Gumbel-softmax in PyTorch (notebook 02): a differentiable relaxed sample, and its straight-through variant."""

from __future__ import annotations

import torch

from .._checks import check_axis, check_flag, check_temperature, describe
from ._checks import as_float_tensor

__all__ = ["gumbel_softmax"]


def gumbel_softmax(
    scores: torch.Tensor,
    temperature: float = 1.0,
    *,
    hard: bool = False,
    generator: torch.Generator | None = None,
    dim: int = -1,
) -> torch.Tensor:
    """Differentiable relaxed sample: lambda = softmax((alpha + g) / T), g_i ~ Gumbel(0, 1).

    With ``hard=True`` the forward value is the one-hot argmax(alpha + g), an exact sample from
    softmax(alpha), while the gradient is that of the relaxed weights: the straight-through estimator,
    ``one_hot - relaxed.detach() + relaxed``.

    Any positive finite T works: the perturbed scores are shifted by their maximum before dividing by T,
    so a tiny T gives the one-hot limit rather than inf / inf. A T below the dtype's smallest normal
    number (1.2e-38 in float32) acts as that number; the relaxed sample is then one-hot except between
    perturbed scores closer than about 1e-36.
    """
    temperature = check_temperature(temperature)
    if not 0 < temperature < float("inf"):
        raise ValueError(f"temperature must be positive and finite for a differentiable sample, got {temperature}")
    hard = check_flag(hard, "hard")
    scores = as_float_tensor(scores, "scores", check_values=True, allow_neg_inf=True)
    if scores.dim() == 0:
        raise ValueError("scores must have at least one dimension (the keys), got a 0-d tensor")
    dim = check_axis(dim, scores.dim(), "dim")
    if scores.shape[dim] == 0:
        raise ValueError(f"scores must have at least one key along dim {dim}, got shape {tuple(scores.shape)}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator or None, got {describe(generator)}")
    if (scores == float("-inf")).all(dim=dim).any():
        raise ValueError("scores must allow at least one key per row: a row is -inf everywhere")
    uniform = torch.rand(scores.shape, generator=generator, dtype=scores.dtype).clamp_(1e-12, 1 - 1e-12)
    gumbel = -torch.log(-torch.log(uniform))  # same shape as scores
    perturbed = scores + gumbel
    shifted = perturbed - perturbed.amax(dim=dim, keepdim=True).detach()  # <= 0, exactly 0 at the argmax
    t = max(temperature, torch.finfo(scores.dtype).tiny)  # 1/t stays finite in the tensor's dtype
    relaxed = torch.softmax(shifted / t, dim=dim)  # same as softmax((alpha + g) / T): a shift per row cancels
    if not hard:
        return relaxed
    index = relaxed.argmax(dim=dim, keepdim=True)
    one_hot = torch.zeros_like(relaxed).scatter_(dim, index, 1.0)
    return one_hot - relaxed.detach() + relaxed  # value: one_hot; gradient: d relaxed
