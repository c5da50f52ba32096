"""The original post's pooling layer (nn/pooling.py) against a numpy transcription of the post's TensorFlow code."""

import doctest

import numpy as np
import pytest
import torch
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.nn import pooling
from attention_lab.nn.pooling import DotAttentionPooling


def post_attention(inputs, W, query):
    """The post's TensorFlow function, line by line in numpy: inputs (batch, time, hidden), W (hidden, hidden),
    query (hidden, 1); returns tanh(c_t) of shape (batch, hidden, 1)."""
    _, time_step, hidden_size = inputs.shape
    score = (inputs.reshape(-1, hidden_size) @ W) @ query  # (batch * time, 1)
    score = score.reshape(-1, time_step, 1)  # (batch, time, 1)
    e = np.exp(score - score.max(axis=1, keepdims=True))
    alpha = e / e.sum(axis=1, keepdims=True)  # tf.nn.softmax(score, axis=1)
    c_t = np.transpose(inputs, (0, 2, 1)) @ alpha  # (batch, hidden, 1)
    return np.tanh(c_t)


@settings(max_examples=examples(30))
@given(batch=st.integers(1, 3), n=st.integers(1, 7), d=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_matches_the_posts_code(batch, n, d, seed):
    torch.manual_seed(seed)
    layer = DotAttentionPooling(d).double()
    x = torch.randn(batch, n, d, dtype=torch.float64)
    out = layer(x)
    expected = post_attention(x.numpy(), layer.W.detach().numpy(), layer.query.detach().numpy()[:, None])[..., 0]
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert out.shape == (batch, d) and layer.attention_weights.shape == (batch, n)


def test_w_is_redundant_the_score_is_a_dot_product_with_one_vector():
    torch.manual_seed(1)
    layer = DotAttentionPooling(5).double()
    x = torch.randn(4, 9, 5, dtype=torch.float64)
    layer(x)
    u = layer.effective_query.detach()  # (d,)
    by_u = torch.softmax(x @ u, dim=-1)  # weights from a single learned vector
    torch.testing.assert_close(layer.attention_weights, by_u, rtol=1e-12, atol=1e-12)


def test_mask_gives_padding_zero_weight_and_its_content_does_not_leak():
    torch.manual_seed(2)
    layer = DotAttentionPooling(3)
    x = torch.randn(2, 6, 3)
    mask = torch.tensor([[True] * 4 + [False] * 2, [False] * 6])
    noisy = x.clone()
    noisy[0, 4:] = float("nan")  # garbage in the padding
    noisy[1] = 1e6
    out = layer(noisy, mask)
    assert torch.all(layer.attention_weights[0, 4:] == 0) and torch.all(layer.attention_weights[1] == 0)
    torch.testing.assert_close(out[0], layer(x[:1, :4])[0])  # same as the unpadded sequence
    assert torch.all(out[1] == 0)  # nothing to pool: tanh(0)


def test_gradients_reach_both_parameters():
    torch.manual_seed(3)
    layer = DotAttentionPooling(4)
    layer(torch.randn(3, 5, 4)).sum().backward()
    assert all(
        p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0 for p in (layer.W, layer.query)
    )


def test_initialisation_is_the_posts_truncated_normal():
    torch.manual_seed(4)
    layer = DotAttentionPooling(64)
    values = torch.cat([layer.W.detach().flatten(), layer.query.detach()])
    assert values.abs().max() <= 1.0  # truncated at two standard deviations of 0.5
    assert 0.4 < values.std().item() < 0.48  # a N(0, 0.5^2) truncated at +-2 sd has sd 0.5 * 0.880 = 0.44


@pytest.mark.parametrize("bad_d", [0, -1, 2.5, True, "4"])
def test_bad_size_is_named(bad_d):
    with pytest.raises(ValueError, match="d must be an integer >= 1"):
        DotAttentionPooling(bad_d)


def test_bad_inputs_are_named():
    layer = DotAttentionPooling(3)
    with pytest.raises(ValueError, match=r"x must have shape \(batch, n, 3\)"):
        layer(torch.randn(2, 5, 4))
    with pytest.raises(ValueError, match=r"x must have shape"):
        layer(torch.randn(5, 3))
    with pytest.raises(ValueError, match="x must be a floating-point torch tensor"):
        layer(np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match=r"mask must be a boolean torch tensor .*got a torch tensor of shape \(2, 5\)"):
        layer(torch.randn(2, 5, 3), torch.ones(2, 5))
    with pytest.raises(ValueError, match=r"mask must have shape \(batch, n\) = \(2, 5\) .*shape \(2, 4"):
        layer(torch.randn(2, 5, 3), torch.ones(2, 4, dtype=torch.bool))


def test_docstring_examples_run():
    assert doctest.testmod(pooling).failed == 0
