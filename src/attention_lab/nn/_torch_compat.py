"""What the course reads from PyTorch's own modules, in one place, through public names only.

:meth:`~attention_lab.nn.MultiHeadAttention.from_torch` copies the weights of a ``torch.nn.MultiheadAttention``.
Torch keeps a private flag for "q, k and v have the model's width, so their projections are packed into
one matrix" (``_qkv_same_embed_dim``); the same fact is public: the attributes ``embed_dim``, ``kdim`` and
``vdim`` (the constructor's arguments) and the parameters ``in_proj_weight`` (None when the projections are
separate) and ``in_proj_bias``. These names are part of the module's state dict, which torch keeps stable;
``tests/nn/test_torch_compat.py`` checks them on the installed torch (the ``oldest`` nox session runs it on
the lowest supported one, 2.9.1).
"""

from __future__ import annotations

import torch

__all__ = ["packed_in_projection"]


def packed_in_projection(module: torch.nn.MultiheadAttention) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    """The packed projection ``(in_proj_weight (3 d, d), in_proj_bias (3 d,) or None)`` of ``module``, the rows
    of [W_q; W_k; W_v]; None if its keys or values have another width (separate projections)."""
    d = module.embed_dim
    if module.kdim != d or module.vdim != d or module.in_proj_weight is None:
        return None
    return module.in_proj_weight, module.in_proj_bias
