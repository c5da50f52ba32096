"""Cross-attention and the encoder-decoder Transformer (nn/encoder_decoder.py) against PyTorch's own layers."""

import pytest
import torch
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.nn import DecoderBlock, MultiHeadAttention, TransformerSeq2Seq, causal_mask, padding_mask


@settings(max_examples=examples(15))
@given(
    st.integers(1, 3),
    st.integers(1, 5),
    st.integers(1, 6),
    st.sampled_from([(8, 2), (12, 3), (16, 4)]),
    st.integers(0, 2**16),
)
def test_multi_head_attention_as_cross_attention_agrees_with_torch(b, m, n, sizes, seed):
    d_model, heads = sizes
    torch.manual_seed(seed)
    reference = torch.nn.MultiheadAttention(d_model, heads, batch_first=True)
    ours = MultiHeadAttention.from_torch(reference)
    x, memory = torch.randn(b, m, d_model), torch.randn(b, n, d_model)  # queries from x, keys and values from memory
    lens = torch.randint(1, n + 1, (b,))
    allowed = padding_mask(lens, n)  # (b, 1, n), True = real
    with torch.no_grad():
        theirs, weights = reference(x, memory, memory, key_padding_mask=~allowed[:, 0], average_attn_weights=False)
        torch.testing.assert_close(ours(x, memory, memory, allowed), theirs, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(ours.attention_weights, weights, atol=1e-6, rtol=1e-5)


@settings(max_examples=examples(10))
@given(st.integers(1, 3), st.integers(1, 6), st.integers(1, 7), st.integers(0, 2**16))
def test_decoder_block_agrees_with_torchs_pre_ln_decoder_layer(b, m, n, seed):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerDecoderLayer(
        16, 4, dim_feedforward=24, dropout=0.0, batch_first=True, norm_first=True
    ).eval()
    block = DecoderBlock.from_torch(layer)
    x, memory = torch.randn(b, m, 16), torch.randn(b, n, 16)
    allowed = padding_mask(torch.randint(1, n + 1, (b,)), n)
    with torch.no_grad():
        theirs = layer(x, memory, tgt_mask=~causal_mask(m), memory_key_padding_mask=~allowed[:, 0])
        torch.testing.assert_close(block(x, memory, causal_mask(m), allowed), theirs, atol=1e-5, rtol=1e-4)


def test_from_torch_refuses_a_post_ln_layer():
    with pytest.raises(ValueError, match="norm_first=True"):
        DecoderBlock.from_torch(torch.nn.TransformerDecoderLayer(8, 2, norm_first=False))


def small_model():
    torch.manual_seed(0)
    return TransformerSeq2Seq(9, 7, d_model=16, num_heads=2, num_layers=2, d_ff=32, max_len=16).eval()


def test_padding_and_the_future_change_nothing():
    model = small_model()
    src = torch.tensor([[4, 5, 6, 0, 0], [4, 5, 6, 7, 8]])
    lens = torch.tensor([3, 5])
    tgt = torch.tensor([[3, 4, 5, 6], [3, 4, 5, 6]])
    with torch.no_grad():
        logits = model(src, lens, tgt)  # (2, 4, 7)
        changed = src.clone()
        changed[0, 3:] = 8  # garbage in the padding
        assert torch.allclose(model(changed, lens, tgt)[0], logits[0], atol=1e-6)
        later = tgt.clone()
        later[:, 2:] = 1  # the targets fed in after step 2: steps 0..2 cannot see them
        assert torch.allclose(model(src, lens, later)[:, :3], logits[:, :3], atol=1e-6)
        weights = model.cross_attention_weights()  # (2, layers, heads, 4, 5)
    assert weights.shape == (2, 2, 2, 4, 5)
    assert torch.all(weights[0, ..., 3:] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 2, 2, 4))


def test_greedy_feeds_its_own_output_back():
    model = small_model()
    src, lens = torch.tensor([[4, 5, 6, 7]]), torch.tensor([4])
    ids = model.greedy(src, lens, max_len=5)  # (1, 5)
    with torch.no_grad():
        logits = model(src, lens, ids)  # teacher forcing with its own output = what greedy saw
    assert torch.equal(logits.argmax(-1), ids)


def test_training_lowers_the_loss():
    model = small_model().train()
    src = torch.randint(4, 9, (32, 6))
    lens = torch.full((32,), 6)
    tgt = src[:, :4].clone() % 7  # copy (part of) the input
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = model.loss(src, lens, tgt).item()
    for _ in range(60):
        optimizer.zero_grad()
        loss = model.loss(src, lens, tgt)
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.5 * first


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.encode(torch.tensor([[1.0, 2.0]]), torch.tensor([2])), "src must be a 2-D integer tensor"),
        (lambda m: m.encode(torch.tensor([[1, 20]]), torch.tensor([2])), r"src must hold ids in 0..8"),
        (lambda m: m.encode(torch.tensor([[1, 2]]), torch.tensor([3])), "valid_lens must lie between 0 and n_keys"),
        (
            lambda m: m.greedy(torch.tensor([[4, 5]]), torch.tensor([2]), max_len=0),
            r"max_len must be an int in \[1, 15\]",
        ),
        (lambda m: m.encode(torch.zeros(1, 20, dtype=torch.long), torch.tensor([20])), "longer than max_len=16"),
    ],
)
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call(small_model())


def test_a_stack_of_decoder_blocks_agrees_with_torchs_transformer_decoder():
    """torch.nn.TransformerDecoder (two pre-LN layers and a final LayerNorm), as TransformerSeq2Seq's decoder runs."""
    torch.manual_seed(4)
    layer = torch.nn.TransformerDecoderLayer(16, 4, dim_feedforward=24, dropout=0.0, batch_first=True, norm_first=True)
    decoder = torch.nn.TransformerDecoder(layer, num_layers=2, norm=torch.nn.LayerNorm(16)).eval()
    with torch.no_grad():
        for p in decoder.norm.parameters():
            p.uniform_(-1, 1)  # not the identity: the final norm is compared too
        for p in decoder.layers[1].parameters():
            p.add_(0.1 * torch.randn_like(p))  # TransformerDecoder clones its layer: make the two differ
    blocks = [DecoderBlock.from_torch(each) for each in decoder.layers]
    x, memory = torch.randn(3, 5, 16), torch.randn(3, 7, 16)
    allowed = padding_mask(torch.tensor([7, 4, 1]), 7)
    with torch.no_grad():
        theirs = decoder(x, memory, tgt_mask=~causal_mask(5), memory_key_padding_mask=~allowed[:, 0])
        ours = x
        for block in blocks:
            ours = block(ours, memory, causal_mask(5), allowed)
        ours = torch.nn.functional.layer_norm(ours, (16,), decoder.norm.weight, decoder.norm.bias)
    torch.testing.assert_close(ours, theirs, atol=1e-5, rtol=1e-4)
