"""Notebooks 07 and 08's torch pieces: positional encoding, causal mask, MultiHeadAttention against PyTorch's own,
the Transformer block against torch.nn.TransformerEncoderLayer, and a short training run that learns."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attention_lab.nn import (
    MultiHeadAttention,
    TinyTransformer,
    TransformerBlock,
    causal_mask,
    masked_softmax,
    reversal_data,
    sinusoidal_positional_encoding,
)

# --- positional encoding ------------------------------------------------------------------------------


def reference_encoding(n, d):
    """The paper's formula, entry by entry in float64 (independent of the vectorised library code)."""
    pe = np.zeros((n, d))
    for p in range(n):
        for i in range(d):
            angle = p / 10000 ** (2 * (i // 2) / d)
            pe[p, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
    return pe


@pytest.mark.parametrize(("n", "d"), [(1, 2), (7, 6), (50, 32), (9, 5)])
def test_encoding_matches_the_formula_and_is_bounded(n, d):
    pe = sinusoidal_positional_encoding(n, d)
    assert pe.shape == (n, d) and pe.dtype == torch.float32
    np.testing.assert_allclose(pe.numpy(), reference_encoding(n, d), atol=1e-6)
    assert float(pe.abs().max()) <= 1.0


@given(n=st.integers(2, 120), half=st.integers(1, 32), data=st.data())
def test_dot_products_depend_on_the_offset_only(n, half, data):
    d = 2 * half
    pe = sinusoidal_positional_encoding(n, d).double()
    delta = data.draw(st.integers(0, n - 1))
    along = (pe[: n - delta] * pe[delta:]).sum(-1)  # PE(p) . PE(p + delta) for every p
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(along.numpy(), np.cos(delta * omega).sum(), atol=1e-4)


def test_every_position_is_distinct_and_bad_sizes_are_refused():
    pe = sinusoidal_positional_encoding(512, 32)
    distances = torch.cdist(pe, pe) + torch.eye(512) * 10
    assert float(distances.min()) > 0.1
    for bad in (0, -3, 2.5, True, "8"):
        with pytest.raises(ValueError, match="must be an integer >= 1"):
            sinusoidal_positional_encoding(bad, 8)


# --- causal mask ---------------------------------------------------------------------------------------


def test_causal_mask_is_the_lower_triangle():
    mask = causal_mask(5)
    assert mask.dtype == torch.bool
    assert torch.equal(mask, torch.tensor([[j <= i for j in range(5)] for i in range(5)]))
    weights = masked_softmax(torch.randn(5, 5), mask)
    assert torch.all(weights.triu(1) == 0) and torch.allclose(weights.sum(-1), torch.ones(5))
    with pytest.raises(ValueError, match="must be an integer >= 1"):
        causal_mask(0)


def test_with_the_causal_mask_the_past_never_sees_the_future():
    torch.manual_seed(0)
    model = TinyTransformer(10, 12, d_model=16, num_heads=2, num_layers=2, d_ff=32, causal=True)
    tokens = torch.randint(0, 10, (3, 12))
    changed = tokens.clone()
    changed[:, 7:] = (changed[:, 7:] + 1) % 10  # change the future from position 7 on
    with torch.no_grad():
        before, after = model(tokens), model(changed)
    torch.testing.assert_close(before[:, :7], after[:, :7])
    assert not torch.allclose(before[:, 7:], after[:, 7:])
    assert torch.all(model.attention_weights().triu(1) == 0)


# --- multi-head attention against PyTorch --------------------------------------------------------------


@given(
    batch=st.integers(1, 3),
    n_q=st.integers(1, 6),
    n_k=st.integers(1, 6),
    heads=st.integers(1, 4),
    d_k=st.integers(1, 5),
    bias=st.booleans(),
    masking=st.sampled_from(["none", "causal", "padding", "self"]),
    seed=st.integers(0, 2**16),
)
def test_multi_head_attention_agrees_with_torch(batch, n_q, n_k, heads, d_k, bias, masking, seed):
    """Cross-attention (three tensors) and self-attention (one tensor: the stacked projection) alike."""
    torch.manual_seed(seed)
    d_model = heads * d_k
    reference = torch.nn.MultiheadAttention(d_model, heads, bias=bias, batch_first=True).eval()
    ours = MultiHeadAttention.from_torch(reference)
    queries, keys, values = (
        torch.randn(batch, n_q, d_model),
        torch.randn(batch, n_k, d_model),
        torch.randn(batch, n_k, d_model),
    )
    kwargs, mask = {}, None
    if masking == "causal":
        n_k = n_q
        keys, values = torch.randn(batch, n_q, d_model), torch.randn(batch, n_q, d_model)  # self-attention sizes
        mask = causal_mask(n_q)  # (n_q, n_q), True = may attend
        kwargs["attn_mask"] = ~mask  # torch: True = forbidden
    elif masking == "padding":
        lengths = torch.randint(1, n_k + 1, (batch,))
        valid = torch.arange(n_k)[None, :] < lengths[:, None]  # (batch, n_k)
        mask = valid[:, None, :]  # (batch, 1, n_k): every query, every head
        kwargs["key_padding_mask"] = ~valid
    elif masking == "self":
        n_k = n_q
        keys = values = queries  # one tensor: the layer projects it with [W_q; W_k; W_v] in one product
    with torch.no_grad():
        theirs, their_weights = reference(queries, keys, values, average_attn_weights=False, **kwargs)
        got = ours(queries, keys, values, mask)
    torch.testing.assert_close(got, theirs, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(ours.attention_weights, their_weights, atol=1e-5, rtol=1e-4)
    assert got.shape == (batch, n_q, d_model) and ours.attention_weights.shape == (batch, heads, n_q, n_k)


def test_split_heads_takes_contiguous_blocks_and_inputs_are_checked():
    mha = MultiHeadAttention(8, 4)
    x = torch.arange(2 * 3 * 8, dtype=torch.float32).reshape(2, 3, 8)
    split = mha.split_heads(x)  # (2, 4, 3, 2)
    assert split.shape == (2, 4, 3, 2)
    torch.testing.assert_close(split[1, 2, 0], x[1, 0, 4:6])
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 4)
    with pytest.raises(ValueError, match="d_model=8"):
        mha(torch.randn(2, 3, 6), torch.randn(2, 3, 6), torch.randn(2, 3, 6))
    with pytest.raises(ValueError, match="floating-point"):
        mha(torch.ones(2, 3, 8, dtype=torch.long), x, x)
    with pytest.raises(ValueError, match="agree"):
        mha(x, x, x[:, :2])
    with pytest.raises(ValueError, match="MultiheadAttention"):
        MultiHeadAttention.from_torch(torch.nn.Linear(3, 3))


# --- the Transformer block ------------------------------------------------------------------------------


def copy_into_torch_layer(block, layer):
    with torch.no_grad():
        attention = block.attention
        layer.self_attn.in_proj_weight.copy_(
            torch.cat([attention.W_q.weight, attention.W_k.weight, attention.W_v.weight])
        )
        layer.self_attn.in_proj_bias.copy_(torch.cat([attention.W_q.bias, attention.W_k.bias, attention.W_v.bias]))
        layer.self_attn.out_proj.weight.copy_(attention.W_o.weight)
        layer.self_attn.out_proj.bias.copy_(attention.W_o.bias)
        for ours, theirs in (
            (block.ffn.net[0], layer.linear1),
            (block.ffn.net[2], layer.linear2),
            (block.norm1, layer.norm1),
            (block.norm2, layer.norm2),
        ):
            theirs.weight.copy_(ours.weight)
            theirs.bias.copy_(ours.bias)


@pytest.mark.parametrize("pre_norm", [True, False])
@pytest.mark.parametrize("masked", [False, True])
def test_block_agrees_with_torch_encoder_layer(pre_norm, masked):
    torch.manual_seed(3)
    block = TransformerBlock(16, 4, 32, pre_norm=pre_norm)
    for norm in (block.norm1, block.norm2):  # non-trivial gamma and beta
        torch.nn.init.normal_(norm.weight, 1.0, 0.3)
        torch.nn.init.normal_(norm.bias, 0.0, 0.3)
    layer = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=pre_norm)
    copy_into_torch_layer(block, layer)
    block.eval()
    layer.eval()
    x = torch.randn(2, 7, 16)
    mask = causal_mask(7) if masked else None
    with torch.no_grad():
        torch.testing.assert_close(
            block(x, mask), layer(x, src_mask=None if mask is None else ~mask), atol=1e-5, rtol=1e-4
        )


def test_block_keeps_shapes_and_every_parameter_gets_a_gradient():
    torch.manual_seed(0)
    block = TransformerBlock(12, 3, 24)
    x = torch.randn(4, 5, 12, requires_grad=True)
    y = block(x)
    assert y.shape == x.shape
    y.square().mean().backward()
    for name, parameter in block.named_parameters():
        assert parameter.grad is not None and torch.isfinite(parameter.grad).all(), name
        assert parameter.grad.abs().sum() > 0, name
    assert torch.isfinite(x.grad).all()


# --- the tiny Transformer -----------------------------------------------------------------------------


def test_reversal_data_is_seeded():
    a, b = reversal_data(5, 4, seed=3)
    torch.testing.assert_close(b, a.flip(1))
    torch.testing.assert_close(a, reversal_data(5, 4, seed=3)[0])
    assert not torch.equal(a, reversal_data(5, 4, seed=4)[0])


def test_without_positions_the_model_is_permutation_equivariant():
    torch.manual_seed(0)
    model = TinyTransformer(10, 8, d_model=16, num_heads=2, positional=False)
    tokens = torch.randint(0, 10, (4, 8))
    perm = torch.randperm(8)
    with torch.no_grad():
        torch.testing.assert_close(model(tokens[:, perm]), model(tokens)[:, perm])
    with pytest.raises(ValueError, match="2-D integer"):
        model(tokens.float())
    with pytest.raises(ValueError, match="max_len"):
        model(torch.zeros(1, 9, dtype=torch.long))


def test_a_short_seeded_run_learns_to_reverse():
    torch.manual_seed(0)
    train_x, train_y = reversal_data(4000, 6, seed=1)
    test_x, test_y = reversal_data(300, 6, seed=2)
    model = TinyTransformer(10, 6, d_model=32, num_heads=4, num_layers=1, d_ff=64)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)
    for _ in range(150):
        batch = torch.randint(0, len(train_x), (128,), generator=generator)
        loss = torch.nn.functional.cross_entropy(model(train_x[batch]).reshape(-1, 10), train_y[batch].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        exact = (model(test_x).argmax(-1) == test_y).all(1).float().mean().item()
    assert exact > 0.9
    weights = model.attention_weights()  # (300, 1, 4, 6, 6)
    assert weights.shape == (300, 1, 4, 6, 6)
    mirror = weights[..., torch.arange(6), torch.arange(6).flip(0)].mean()
    assert mirror > 0.5  # on average the heads read the mirror position


@given(seed=st.integers(0, 10_000), n_q=st.integers(1, 4), n_k=st.integers(1, 5))
def test_multi_head_attention_gives_a_query_with_no_allowed_key_nothing(seed, n_q, n_k):
    torch.manual_seed(seed)
    module = MultiHeadAttention(8, 2)
    q, kv = torch.randn(2, n_q, 8), torch.randn(2, n_k, 8)
    mask = torch.rand(2, n_q, n_k) < 0.5
    mask[:, 0] = False  # the first query of each sequence may attend to nothing
    out = module(q, kv, kv, mask)
    empty = ~mask.any(-1)  # (2, n_q)
    weights = module.attention_weights  # (2, heads, n_q, n_k)
    assert torch.all(weights.permute(0, 2, 1, 3)[empty] == 0)
    torch.testing.assert_close(out[empty], module.W_o.bias.expand(int(empty.sum()), 8))  # heads give 0; W_o 0 + b
