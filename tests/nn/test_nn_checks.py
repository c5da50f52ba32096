"""nn/_checks.py: the switch that lets a model's layers trust what the model's door already checked."""

import pytest
import torch

from attention_lab import nn


def test_checks_are_on_by_default_and_scoped_to_the_block():
    assert nn.checks_enabled()
    with nn.checks(False):
        assert not nn.checks_enabled()
        with nn.checks(True):
            assert nn.checks_enabled()
        assert not nn.checks_enabled()
    assert nn.checks_enabled()


def test_checks_are_restored_after_an_error():
    with pytest.raises(RuntimeError), nn.checks(False):
        raise RuntimeError("inside")
    assert nn.checks_enabled()


def test_the_switch_is_a_flag():
    with pytest.raises(ValueError, match="enabled must be True or False"):
        nn.checks("no")


def test_a_layer_checks_its_door_unless_switched_off():
    layer = nn.MultiHeadAttention(4, 2)
    x = torch.randn(1, 3, 4)
    with pytest.raises(ValueError, match="must have shape"):
        layer(x, x, torch.randn(1, 3, 5))
    with nn.checks(False), pytest.raises(RuntimeError):  # trusted: torch's own error, from inside the formula
        layer(x, x, torch.randn(1, 3, 5))


def test_a_model_checks_its_tokens_and_lets_its_blocks_trust_them(monkeypatch):
    model = nn.TinyTransformer(5, 8, d_model=8, num_heads=2, num_layers=1, d_ff=8)
    seen = []
    monkeypatch.setattr(nn.MultiHeadAttention, "_check_inputs", lambda *args: seen.append(args))
    model(torch.randint(0, 5, (2, 6)))
    assert seen == []  # the block's attention ran inside checks(False)
    with pytest.raises(ValueError, match="tokens must be a 2-D integer tensor"):
        model(torch.randn(2, 6))
    assert nn.checks_enabled()
