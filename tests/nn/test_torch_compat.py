"""nn/_torch_compat.py, the one place that reads PyTorch's own modules, on the installed torch.

It relies on public names only: ``MultiheadAttention``'s ``embed_dim``, ``kdim``, ``vdim``,
``in_proj_weight`` and ``in_proj_bias``. The ``oldest`` nox session runs this file on the lowest supported
torch (2.9.1, pyproject.toml), the default sessions on the newest.
"""

import pytest
import torch

from attention_lab.nn import MultiHeadAttention
from attention_lab.nn._torch_compat import packed_in_projection


@pytest.mark.parametrize("bias", [True, False])
def test_a_packed_projection_is_found_through_public_names(bias):
    module = torch.nn.MultiheadAttention(8, 2, bias=bias)
    weight, in_bias = packed_in_projection(module)
    assert weight is module.in_proj_weight and weight.shape == (24, 8)
    assert (in_bias is None) == (not bias)
    if hasattr(module, "_qkv_same_embed_dim"):  # where torch still has its private flag, the two agree
        assert module._qkv_same_embed_dim


def test_separate_projections_are_not_packed():
    module = torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=6)
    assert packed_in_projection(module) is None
    with pytest.raises(ValueError, match="kdim = vdim = embed_dim"):
        MultiHeadAttention.from_torch(module)


def test_the_copy_computes_what_torch_computes():
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(theirs).eval()
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        torch.testing.assert_close(ours(x, x, x), theirs(x, x, x, need_weights=False)[0])
