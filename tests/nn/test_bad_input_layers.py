"""Bad and extreme input to the torch layers: a ValueError naming the argument, or a finite answer."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attention_lab import nn as aln

B, NQ, NK, D = 2, 3, 4, 5


def qkv(d_q=D, d_k=D, d_v=D, n_k=NK, batch=(B, B, B)):
    torch.manual_seed(0)
    return torch.randn(batch[0], NQ, d_q), torch.randn(batch[1], n_k, d_k), torch.randn(batch[2], n_k, d_v)


LAYERS = {
    "dot": lambda: aln.DotProductAttention(),
    "additive": lambda: aln.AdditiveAttention(D, D, 8),
    "general": lambda: aln.GeneralAttention(D, D),
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


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: aln.masked_softmax(torch.tensor([1.0, float("nan")])), r"must not contain NaN where the mask allows"),
        (lambda: aln.masked_softmax(torch.tensor([1.0, float("inf")])), r"finite \(or -inf"),
        (lambda: aln.masked_softmax(torch.zeros(2, 0)), r"at least one key"),
        (lambda: aln.masked_softmax(torch.tensor(1.0)), r"at least one key"),
        (lambda: aln.masked_softmax([1.0, 2.0]), r"scores must be a floating-point torch tensor"),
        (lambda: aln.padding_mask(torch.tensor([2, -1]), 4), r"valid_lens must lie between 0 and n_keys = 4"),
        (lambda: aln.padding_mask(torch.tensor([2, 5]), 4), r"valid_lens must lie between 0 and n_keys = 4"),
        (lambda: aln.padding_mask(torch.tensor([1.5]), 4), r"whole numbers"),
        (lambda: aln.padding_mask(torch.tensor([True]), 4), r"whole numbers"),
        (lambda: aln.padding_mask(torch.tensor([[2]]), 4), r"valid_lens must be a 1-D torch tensor"),
        (lambda: aln.padding_mask([2, 3], 4), r"valid_lens must be a 1-D torch tensor of lengths, got \[2, 3\]"),
        (lambda: aln.padding_mask(torch.tensor([2]), 4.0), r"n_keys must be an integer"),
        (lambda: aln.padding_mask(torch.tensor([2]), -1), r"n_keys must be an integer >= 0"),
        (lambda: aln.AttentionPooling(D)(torch.randn(B, 4, D + 1)), r"states must have 5 features"),
        (lambda: aln.AttentionPooling(D)(torch.randn(B, 0, D)), r"at least one position"),
        (lambda: aln.AttentionPooling(D)(torch.randn(4, D)), r"states must be a 3-D tensor"),
        (lambda: aln.AttentionPooling(0), r"d must be an integer >= 1"),
        (lambda: aln.AttentionPooling(D, num_hiddens=0), r"num_hiddens must be an integer >= 1"),
        (lambda: aln.AdditiveAttention(D, D, 2.5), r"num_hiddens must be an integer"),
        (lambda: aln.GeneralAttention("5", D), r"query_size must be an integer"),
        (lambda: aln.DotProductAttention(dropout=1.5), r"dropout must be a probability"),
        (lambda: aln.DotProductAttention(dropout="0.1"), r"dropout must be a probability"),
        (lambda: aln.NWKernelRegression(float("nan")), r"w must be a positive finite number"),
        (lambda: aln.NWKernelRegression(float("inf")), r"w must be a positive finite number"),
        (lambda: aln.NWKernelRegression(-1.0), r"w must be a positive finite number"),
        (lambda: aln.NWKernelRegression(1e39), r"w must fit a float32"),
        (lambda: aln.NWKernelRegression("1"), r"w must be a positive finite number"),
        (lambda: aln.AdaptiveNWKernelRegression(1.0, hidden=0), r"hidden must be an integer >= 1"),
        (lambda: aln.NWKernelRegression()(torch.zeros(3, 1), torch.zeros(4), torch.zeros(4)), r"queries must have"),
        (lambda: aln.NWKernelRegression()(torch.zeros(3), torch.zeros(4), torch.zeros(5)), r"same shape"),
        (lambda: aln.NWKernelRegression()(torch.zeros(3), torch.zeros(0), torch.zeros(0)), r"at least one key"),
        (lambda: aln.NWKernelRegression()(torch.zeros(3), torch.zeros(2, 4), torch.zeros(2, 4)), r"\(n_q, n_k\)"),
        (
            lambda: aln.NWKernelRegression()(torch.tensor([float("nan")]), torch.zeros(4), torch.zeros(4)),
            r"queries must not contain NaN",
        ),
        (
            lambda: aln.NWKernelRegression()(torch.zeros(3), torch.zeros(4), torch.full((4,), float("inf"))),
            r"values must be finite",
        ),
        (lambda: aln.leave_one_out(torch.zeros(1), torch.zeros(1)), r"length >= 2"),
        (lambda: aln.leave_one_out(torch.zeros(3), torch.zeros(3, dtype=torch.float64)), r"same dtype"),
        (lambda: aln.gumbel_softmax(torch.tensor([1.0, 2.0]), hard="no"), r"hard must be True or False"),
        (lambda: aln.gumbel_softmax(torch.tensor([1.0, 2.0]), 0.0), r"temperature must be positive"),
        (lambda: aln.gumbel_softmax(torch.tensor([1.0, float("nan")])), r"scores must not contain NaN"),
        (lambda: aln.gumbel_softmax(torch.tensor([float("-inf")] * 2)), r"-inf everywhere"),
        (lambda: aln.gumbel_softmax(torch.zeros(0)), r"at least one key"),
        (lambda: aln.gumbel_softmax(torch.zeros(3), dim=2), r"dim must be an integer in"),
        (lambda: aln.gumbel_softmax(torch.zeros(3), generator=0), r"generator must be a torch.Generator"),
    ],
)
def test_specific_bad_input_gets_a_specific_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_masked_softmax_treats_minus_inf_rows_as_fully_masked():
    scores = torch.tensor([[1.0, 2.0, 3.0], [float("-inf")] * 3, [0.0, float("-inf"), 0.0]], requires_grad=True)
    weights = aln.masked_softmax(scores)
    masked = aln.masked_softmax(scores, torch.tensor([[True] * 3, [False] * 3, [True, False, True]]))
    assert torch.equal(weights, masked)
    assert torch.equal(weights[1], torch.zeros(3)) and torch.allclose(weights[2], torch.tensor([0.5, 0.0, 0.5]))
    (weights * torch.arange(3.0)).sum().backward()
    assert torch.isfinite(scores.grad).all() and torch.equal(scores.grad[1], torch.zeros(3))


def test_masked_softmax_ignores_garbage_under_the_mask():
    scores = torch.tensor([[1.0, float("nan"), float("inf")]])
    weights = aln.masked_softmax(scores, torch.tensor([[True, False, False]]))
    assert torch.equal(weights, torch.tensor([[1.0, 0.0, 0.0]]))


@given(exponent=st.integers(0, 38))
def test_kernel_regression_stays_finite_for_any_width(exponent):
    """Large w: the nearest-key limit, finite outputs and gradients (w >= 89 used to give NaN)."""
    x = torch.sort(torch.rand(12, generator=torch.Generator().manual_seed(1)) * 5).values  # no ties in distance
    keys, values = aln.leave_one_out(x, torch.sin(x))
    for model in (aln.NWKernelRegression(3.0 * 10.0**exponent), aln.AdaptiveNWKernelRegression(3.0 * 10.0**exponent)):
        out = model(x, keys, values)
        out.sum().backward()
        assert torch.isfinite(out).all()
        assert all(torch.isfinite(p.grad).all() for p in model.parameters())
    if exponent >= 3:  # far beyond the spacing: each point copies its nearest other key
        nearest = (x[:, None] - keys).abs().argmin(dim=1)
        assert torch.allclose(out.detach(), values[torch.arange(12), nearest])


def test_adaptive_width_starts_at_w_even_when_large():
    model = aln.AdaptiveNWKernelRegression(100.0)
    assert torch.allclose(model.inverse_width(torch.linspace(0, 5, 7)), torch.tensor(100.0), rtol=1e-3)


@given(exponent=st.integers(-300, 2))
def test_gumbel_softmax_at_tiny_temperature_is_one_hot_not_nan(exponent):
    scores = torch.tensor([1.0, 2.0, 0.5, 2.0], requires_grad=True)
    generator = torch.Generator().manual_seed(exponent + 400)
    relaxed = aln.gumbel_softmax(scores, 10.0**exponent, generator=generator)
    assert torch.isfinite(relaxed).all() and torch.isclose(relaxed.sum(), torch.tensor(1.0))
    hard = aln.gumbel_softmax(scores, 10.0**exponent, hard=True, generator=generator)
    hard.sum().backward()
    assert torch.isfinite(scores.grad).all() and sorted(hard.detach().tolist()) == [0.0, 0.0, 0.0, 1.0]
    if exponent <= -10:
        assert sorted(relaxed.detach().tolist()) == [0.0, 0.0, 0.0, 1.0]
