"""Notebook 04's training displays: snapshots and the live loss plot (the scrubber: tests/explorers)."""

import numpy as np
import pytest
import torch
from helpers import trained_snapshots

from attention_lab import make_regression_data
from attention_lab.training import LiveLoss

DATA = make_regression_data(50, seed=0)


@pytest.fixture(scope="module")
def snapshots():
    return trained_snapshots(DATA)


def test_snapshot_records_the_model_on_the_test_queries(snapshots):
    s = snapshots[-1]
    assert s["weights"].shape == (50, 50) and s["y_hat"].shape == (50,) and s["w"].shape == (50,)
    np.testing.assert_allclose(s["weights"].sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(s["weights"] @ DATA.y_train, s["y_hat"], rtol=1e-4)
    assert s["w"][0] > snapshots[0]["w"][0]  # training sharpened the attention


def test_live_loss_keeps_every_point_and_redraws_at_the_end():
    live = LiveLoss(5, show=False, interval=10.0)
    for epoch in range(5):
        live.update(epoch, train=1.0 / (epoch + 1), test=torch.tensor(2.0))
    assert [v for _, v in live.history["train"]] == [1.0, 0.5, 1 / 3, 0.25, 0.2]
    np.testing.assert_allclose(live.lines["train"].get_xdata(), range(5))  # the last epoch forced a redraw
    assert "epoch 5/5" in live.ax.get_title()
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        LiveLoss(0, show=False)


def test_train_step_is_one_update_of_the_mean_cross_entropy():
    from attention_lab.nn import TinyTransformer
    from attention_lab.training import train_step

    torch.manual_seed(0)
    model = TinyTransformer(6, 5, d_model=8, num_heads=2, num_layers=1, d_ff=16).double()
    inputs = torch.randint(0, 6, (4, 5), generator=torch.Generator().manual_seed(1))
    before = [p.detach().clone() for p in model.parameters()]
    expected = torch.nn.functional.cross_entropy(model(inputs).reshape(-1, 6), inputs.flip(-1).reshape(-1)).item()
    loss = train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), inputs, inputs.flip(-1))
    assert isinstance(loss, float) and loss == pytest.approx(expected, rel=1e-12)
    assert any(not torch.equal(b, p) for b, p in zip(before, model.parameters(), strict=True))
    with pytest.raises(ValueError, match=r"targets must have the shape of inputs.*\(4, 5\); got \(4, 4\)"):
        train_step(model, torch.optim.SGD(model.parameters(), lr=0.1), inputs, inputs[:, :4])
