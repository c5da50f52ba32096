"""The torch attention layers of notebooks 05-06 against references: PyTorch's attention, hand-computed scores."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab import nn
from attention_lab import softmax as np_softmax


@settings(max_examples=examples(40), deadline=None)
@given(
    batch=st.integers(1, 3),
    n_q=st.integers(1, 5),
    n_k=st.integers(1, 6),
    d=st.integers(1, 8),
    d_v=st.integers(1, 5),
    seed=st.integers(0, 10_000),
    data=st.data(),
)
def test_dot_product_attention_agrees_with_pytorch(batch, n_q, n_k, d, d_v, seed, data):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(batch, n, m, generator=g, dtype=torch.float64) for n, m in ((n_q, d), (n_k, d), (n_k, d_v)))
    lens = torch.tensor(data.draw(st.lists(st.integers(1, n_k), min_size=batch, max_size=batch)))
    mask = nn.padding_mask(lens, n_k)
    module = nn.DotProductAttention()
    out = module(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), rtol=1e-12, atol=1e-12)
    assert out.shape == (batch, n_q, d_v) and module.attention_weights.shape == (batch, n_q, n_k)
    for b in range(batch):
        assert torch.all(module.attention_weights[b, :, lens[b] :] == 0)


def test_additive_attention_against_hand_computed_scores():
    torch.manual_seed(0)
    module = nn.AdditiveAttention(query_size=3, key_size=2, num_hiddens=4).double()
    q, k, v = torch.randn(1, 2, 3).double(), torch.randn(1, 4, 2).double(), torch.randn(1, 4, 5).double()
    out = module(q, k, v)
    Wq, Wk, wv = (p.detach().numpy() for p in (module.W_q.weight, module.W_k.weight, module.w_v.weight))
    qn, kn, vn = q[0].numpy(), k[0].numpy(), v[0].numpy()
    scores = np.array([[wv[0] @ np.tanh(Wq @ qi + Wk @ kj) for kj in kn] for qi in qn])  # (2, 4)
    np.testing.assert_allclose(module.attention_weights[0].numpy(), np_softmax(scores), rtol=1e-12)
    np.testing.assert_allclose(out[0].detach().numpy(), np_softmax(scores) @ vn, rtol=1e-12)


def test_masked_softmax_zeros_masked_entries_and_fully_masked_rows_with_finite_gradients():
    scores = torch.tensor([[1.0, 2.0, 3.0], [1e4, -1e4, 0.0], [5.0, 6.0, 7.0]], requires_grad=True)
    mask = torch.tensor([[True, False, True], [True, True, True], [False, False, False]])
    weights = nn.masked_softmax(scores, mask)
    assert weights[0, 1] == 0 and torch.all(weights[2] == 0)
    torch.testing.assert_close(
        weights[0], torch.tensor([np.exp(-2) / (1 + np.exp(-2)), 0, 1 / (1 + np.exp(-2))], dtype=torch.float32)
    )
    torch.testing.assert_close(weights[1], torch.tensor([1.0, 0.0, 0.0]))  # huge logits: no overflow
    (weights * torch.arange(3.0)).sum().backward()
    assert torch.isfinite(scores.grad).all() and torch.all(scores.grad[2] == 0)
    torch.testing.assert_close(nn.masked_softmax(scores.detach()), torch.softmax(scores.detach(), -1))


def test_fully_masked_query_gives_a_zero_output():
    q, k, v = torch.randn(1, 1, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 2)
    out = nn.DotProductAttention()(q, k, v, torch.zeros(1, 1, 3, dtype=torch.bool))
    assert torch.all(out == 0)


def test_attention_pooling_weights_and_output():
    torch.manual_seed(0)
    pool = nn.AttentionPooling(3, num_hiddens=5)
    states = torch.randn(2, 4, 3, requires_grad=True)
    mask = nn.padding_mask(torch.tensor([4, 2]), 4)[:, 0]
    out = pool(states, mask)
    w = pool.attention_weights
    assert out.shape == (2, 3) and w.shape == (2, 4) and torch.all(w[1, 2:] == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(2))
    torch.testing.assert_close(out, torch.einsum("bt,btd->bd", w, states))
    scores = torch.tanh(pool.proj(states[0])) @ pool.query
    torch.testing.assert_close(w[0], torch.softmax(scores, 0).detach())
    out.sum().backward()
    assert torch.isfinite(states.grad).all() and torch.isfinite(pool.query.grad).all()


# --- bad input: each layer names the bad argument -------------------------------------------------------------

B, NQ, NK, D = 2, 3, 4, 5


def qkv(d_q=D, d_k=D, d_v=D, n_k=NK, batch=(B, B, B)):
    torch.manual_seed(0)
    return torch.randn(batch[0], NQ, d_q), torch.randn(batch[1], n_k, d_k), torch.randn(batch[2], n_k, d_v)


LAYERS = {
    "dot": lambda: nn.DotProductAttention(),
    "additive": lambda: nn.AdditiveAttention(D, D, 8),
    "general": lambda: nn.GeneralAttention(D, D),
}

BAD_CALLS = [
    # (layer, arguments, message)
    ("dot", lambda: (torch.randn(NQ, D), *qkv()[1:]), r"queries must be a 3-D tensor"),
    ("dot", lambda: (*qkv()[:2], [[1.0]]), r"values must be a 3-D tensor \(batch, n, d\), got \[\[1.0\]\]"),
    ("dot", lambda: qkv(batch=(B, B + 1, B)), r"one batch size"),
    ("dot", lambda: (*qkv()[:2], torch.randn(B, NK + 1, D)), r"one value per key"),
    ("dot", lambda: qkv(n_k=0), r"keys must hold at least one key"),
    ("dot", lambda: qkv(d_k=D + 1), r"same size d for a dot product"),
    ("dot", lambda: tuple(t.long() for t in qkv()), r"queries must be a floating-point torch tensor"),
    ("additive", lambda: qkv(d_q=D + 2), r"queries must have 5 features"),
    ("additive", lambda: qkv(d_k=3), r"keys must have 5 features"),
    ("additive", lambda: qkv(n_k=0), r"at least one key"),
    ("general", lambda: qkv(d_q=2), r"queries must have 5 features"),
    ("general", lambda: qkv(d_k=7), r"keys must have 5 features"),
    ("general", lambda: (torch.randn(NQ, D), *qkv()[1:]), r"queries must be a 3-D tensor"),
]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nn.masked_softmax(torch.zeros(2, 3), torch.ones(2, 3)), "mask must be a boolean torch tensor"),
        (lambda: nn.masked_softmax(torch.zeros(2, 3), torch.ones(4, dtype=torch.bool)), r"does not broadcast"),
        (
            lambda: nn.DotProductAttention()(torch.zeros(2, 3), torch.zeros(2, 3, 1), torch.zeros(2, 3, 1)),
            r"queries must be a 3-D tensor \(batch, n, d\), got a torch tensor of shape \(2, 3\)",
        ),
        (
            lambda: nn.DotProductAttention()(torch.zeros(1, 2, 3), torch.zeros(1, 4, 5), torch.zeros(1, 4, 1)),
            "same size d for a dot product, got 3 and 5",
        ),
        (
            lambda: nn.AdditiveAttention(2, 2, 3)(torch.zeros(1, 2, 2), torch.zeros(1, 4, 2), torch.zeros(1, 3, 1)),
            r"shapes must be \(batch, n_q, d_q\)",
        ),
        (lambda: nn.padding_mask([1, 2], 3), "valid_lens must be a 1-D torch tensor"),
        (lambda: nn.masked_softmax(torch.tensor([1.0, float("nan")])), r"must not contain NaN where the mask allows"),
        (lambda: nn.masked_softmax(torch.tensor([1.0, float("inf")])), r"finite \(or -inf"),
        (lambda: nn.masked_softmax(torch.zeros(2, 0)), r"at least one key"),
        (lambda: nn.masked_softmax(torch.tensor(1.0)), r"at least one key"),
        (lambda: nn.masked_softmax([1.0, 2.0]), r"scores must be a floating-point torch tensor"),
        (lambda: nn.padding_mask(torch.tensor([2, -1]), 4), r"valid_lens must lie between 0 and n_keys = 4"),
        (lambda: nn.padding_mask(torch.tensor([2, 5]), 4), r"valid_lens must lie between 0 and n_keys = 4"),
        (lambda: nn.padding_mask(torch.tensor([1.5]), 4), r"whole numbers"),
        (lambda: nn.padding_mask(torch.tensor([True]), 4), r"whole numbers"),
        (lambda: nn.padding_mask(torch.tensor([[2]]), 4), r"valid_lens must be a 1-D torch tensor"),
        (lambda: nn.padding_mask([2, 3], 4), r"valid_lens must be a 1-D torch tensor of lengths, got \[2, 3\]"),
        (lambda: nn.padding_mask(torch.tensor([2]), 4.0), r"n_keys must be an integer"),
        (lambda: nn.padding_mask(torch.tensor([2]), -1), r"n_keys must be an integer >= 0"),
        (lambda: nn.AttentionPooling(D)(torch.randn(B, 4, D + 1)), r"states must have 5 features"),
        (lambda: nn.AttentionPooling(D)(torch.randn(B, 0, D)), r"at least one position"),
        (lambda: nn.AttentionPooling(D)(torch.randn(4, D)), r"states must be a 3-D tensor"),
        (lambda: nn.AttentionPooling(0), r"d must be an integer >= 1"),
        (lambda: nn.AttentionPooling(D, num_hiddens=0), r"num_hiddens must be an integer >= 1"),
        (lambda: nn.AdditiveAttention(D, D, 2.5), r"num_hiddens must be an integer"),
        (lambda: nn.GeneralAttention("5", D), r"query_size must be an integer"),
        (lambda: nn.DotProductAttention(dropout=1.5), r"dropout must be a probability"),
        (lambda: nn.DotProductAttention(dropout="0.1"), r"dropout must be a probability"),
    ],
)
def test_input_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(("layer", "arguments", "message"), BAD_CALLS)
def test_layers_name_the_bad_argument(layer, arguments, message):
    with pytest.raises(ValueError, match=message):
        LAYERS[layer]()(*arguments())


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (torch.ones(B, 1, NK, dtype=torch.long), r"mask must be a boolean torch tensor"),
        ([[True] * NK], r"mask must be a boolean torch tensor"),
        (torch.ones(B, 1, NK + 1, dtype=torch.bool), r"does not broadcast"),
    ],
)
@pytest.mark.parametrize("layer", list(LAYERS))
def test_bad_masks_are_named(layer, mask, message):
    with pytest.raises(ValueError, match=message):
        LAYERS[layer]()(*qkv(), mask=mask)


def test_masked_softmax_treats_minus_inf_rows_as_fully_masked():
    scores = torch.tensor([[1.0, 2.0, 3.0], [float("-inf")] * 3, [0.0, float("-inf"), 0.0]], requires_grad=True)
    weights = nn.masked_softmax(scores)
    masked = nn.masked_softmax(scores, torch.tensor([[True] * 3, [False] * 3, [True, False, True]]))
    assert torch.equal(weights, masked)
    assert torch.equal(weights[1], torch.zeros(3)) and torch.allclose(weights[2], torch.tensor([0.5, 0.0, 0.5]))
    (weights * torch.arange(3.0)).sum().backward()
    assert torch.isfinite(scores.grad).all() and torch.equal(scores.grad[1], torch.zeros(3))


def test_masked_softmax_ignores_garbage_under_the_mask():
    scores = torch.tensor([[1.0, float("nan"), float("inf")]])
    weights = nn.masked_softmax(scores, torch.tensor([[True, False, False]]))
    assert torch.equal(weights, torch.tensor([[1.0, 0.0, 0.0]]))


# --- one contract: a query with no allowed key gets weights 0 and output 0 (and gradient 0) ------------------


@settings(max_examples=examples(40), deadline=None)
@given(
    batch=st.integers(1, 3),
    n_q=st.integers(1, 4),
    n_k=st.integers(1, 5),
    seed=st.integers(0, 10_000),
    layer=st.sampled_from(["dot", "additive", "general"]),
)
def test_no_allowed_key_gives_zero_weights_output_and_gradient(batch, n_q, n_k, seed, layer):
    g = torch.Generator().manual_seed(seed)
    mask = torch.rand(batch, n_q, n_k, generator=g) < 0.5
    mask[:, 0] = False  # the first query of every sequence may attend to nothing
    torch.manual_seed(seed)
    module = {"dot": nn.DotProductAttention(), "additive": nn.AdditiveAttention(3, 3, 4), "general": None}[layer]
    module = module or nn.GeneralAttention(3, 3)
    q = torch.randn(batch, n_q, 3, generator=g, requires_grad=True)
    k, v = torch.randn(batch, n_k, 3, generator=g), torch.randn(batch, n_k, 2, generator=g)
    out = module(q, k, v, mask)
    empty = ~mask.any(-1)  # (batch, n_q)
    assert torch.all(module.attention_weights[empty] == 0) and torch.all(out[empty] == 0)
    assert torch.all(module.attention_weights[~mask] == 0)
    torch.testing.assert_close(module.attention_weights.sum(-1)[~empty], torch.ones(int((~empty).sum())))
    out.sum().backward()
    assert torch.isfinite(q.grad).all() and torch.all(q.grad[empty] == 0)


@settings(max_examples=examples(40), deadline=None)
@given(n_q=st.integers(1, 4), n_k=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_masked_softmax_a_mask_and_minus_inf_scores_agree(n_q, n_k, seed):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(n_q, n_k, generator=g, dtype=torch.float64)
    mask = torch.rand(n_q, n_k, generator=g) < 0.5
    through_mask = nn.masked_softmax(scores, mask)
    through_minus_inf = nn.masked_softmax(scores.masked_fill(~mask, float("-inf")))
    torch.testing.assert_close(through_mask, through_minus_inf, rtol=0, atol=0)
    reference = torch.tensor(np_softmax(scores.numpy(), mask=mask.numpy()))  # the numpy library: the same contract
    torch.testing.assert_close(through_mask, reference, rtol=1e-12, atol=1e-15)
    with nn.checks(False):  # the unchecked path gives the same weights
        torch.testing.assert_close(nn.masked_softmax(scores, mask), through_mask, rtol=0, atol=0)
