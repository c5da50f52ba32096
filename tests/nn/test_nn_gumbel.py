"""attention_lab.nn.gumbel: the relaxed and the straight-through Gumbel-softmax in torch."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attention_lab import nn


def test_gumbel_softmax_hard_is_one_hot_with_relaxed_gradient():
    scores = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
    weights = nn.gumbel_softmax(scores, 0.5, hard=True, generator=torch.Generator().manual_seed(0))
    assert sorted(weights.tolist()) == [0.0, 0.0, 1.0]
    (weights @ torch.tensor([1.0, 2.0, 3.0])).backward()
    assert torch.all(torch.isfinite(scores.grad)) and scores.grad.abs().sum() > 0


def test_gumbel_softmax_samples_follow_softmax_and_are_seeded():
    scores = torch.tensor([0.0, 1.0, 2.0]).repeat(20_000, 1)
    hard = nn.gumbel_softmax(scores, hard=True, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(hard.mean(0), torch.softmax(scores[0], 0), atol=0.015, rtol=0)
    a = nn.gumbel_softmax(scores[:5], 0.7, generator=torch.Generator().manual_seed(3))
    b = nn.gumbel_softmax(scores[:5], 0.7, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(a.sum(-1), torch.ones(5))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperature": 0.0}, "positive and finite"),
        ({"temperature": float("inf")}, "positive and finite"),
        ({"temperature": -1.0}, "temperature must be a number >= 0"),
    ],
)
def test_gumbel_softmax_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nn.gumbel_softmax(torch.zeros(3), **kwargs)
    with pytest.raises(ValueError, match="floating-point torch tensor"):
        nn.gumbel_softmax([0.0, 1.0])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nn.gumbel_softmax(torch.tensor([1.0, 2.0]), hard="no"), r"hard must be True or False"),
        (lambda: nn.gumbel_softmax(torch.tensor([1.0, 2.0]), 0.0), r"temperature must be positive"),
        (lambda: nn.gumbel_softmax(torch.tensor([1.0, float("nan")])), r"scores must not contain NaN"),
        (lambda: nn.gumbel_softmax(torch.tensor([float("-inf")] * 2)), r"-inf everywhere"),
        (lambda: nn.gumbel_softmax(torch.zeros(0)), r"at least one key"),
        (lambda: nn.gumbel_softmax(torch.zeros(3), dim=2), r"dim must be an integer in"),
        (lambda: nn.gumbel_softmax(torch.zeros(3), generator=0), r"generator must be a torch.Generator"),
    ],
)
def test_specific_bad_input_gets_a_specific_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@given(exponent=st.integers(-300, 2))
def test_gumbel_softmax_at_tiny_temperature_is_one_hot_not_nan(exponent):
    scores = torch.tensor([1.0, 2.0, 0.5, 2.0], requires_grad=True)
    generator = torch.Generator().manual_seed(exponent + 400)
    relaxed = nn.gumbel_softmax(scores, 10.0**exponent, generator=generator)
    assert torch.isfinite(relaxed).all() and torch.isclose(relaxed.sum(), torch.tensor(1.0))
    hard = nn.gumbel_softmax(scores, 10.0**exponent, hard=True, generator=generator)
    hard.sum().backward()
    assert torch.isfinite(scores.grad).all() and sorted(hard.detach().tolist()) == [0.0, 0.0, 0.0, 1.0]
    if exponent <= -10:
        assert sorted(relaxed.detach().tolist()) == [0.0, 0.0, 0.0, 1.0]
