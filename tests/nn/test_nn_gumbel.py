"""attention_lab.nn.gumbel: the relaxed and the straight-through Gumbel-softmax in torch."""

import pytest
import torch

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
