"""Notebook 04's training displays: the live loss plot and the epoch scrubber (headless)."""

import numpy as np
import pytest
import torch

from attention_lab import make_regression_data
from attention_lab import nn as aln
from attention_lab.explorers import TrainingScrubber
from attention_lab.training import LiveLoss, snapshot

DATA = make_regression_data(50, seed=0)


@pytest.fixture(scope="module")
def snapshots():
    x, y = torch.tensor(DATA.x_train, dtype=torch.float32), torch.tensor(DATA.y_train, dtype=torch.float32)
    keys, values = aln.leave_one_out(x, y)
    model = aln.NWKernelRegression(1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.5)
    snaps = [snapshot(model, 0, float("nan"), DATA)]
    for epoch in range(12):
        optimizer.zero_grad()
        loss = torch.mean((model(x, keys, values) - y) ** 2)
        loss.backward()
        optimizer.step()
        snaps.append(snapshot(model, epoch + 1, loss.item(), DATA))
    return snaps


def test_snapshot_records_the_model_on_the_test_queries(snapshots):
    s = snapshots[-1]
    assert s["weights"].shape == (50, 50) and s["y_hat"].shape == (50,) and s["w"].shape == (50,)
    np.testing.assert_allclose(s["weights"].sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(s["weights"] @ DATA.y_train, s["y_hat"], rtol=1e-4)
    assert s["w"][0] > snapshots[0]["w"][0]  # training sharpened the attention


@pytest.mark.slow
def test_scrubber_replays_every_epoch_in_place(snapshots, interactive):
    scrubber = TrainingScrubber(snapshots, DATA, interactive=interactive)
    count = sum(len(ax.get_children()) for ax in scrubber.figure.axes)
    before = np.asarray(scrubber.canvas.buffer_rgba()).copy()
    for index in [*range(1, len(snapshots)), *range(len(snapshots) - 2, -1, -1)]:
        scrubber.set(epoch=index)
        s = snapshots[index]
        np.testing.assert_allclose(scrubber.curve.get_data()[1], s["y_hat"])
        np.testing.assert_allclose(np.asarray(scrubber.image.get_array()), s["weights"])
        assert scrubber.now.get_xdata()[0] == s["epoch"]
        assert f"epoch {s['epoch']}:" in scrubber.fit_title.get_text()
        now = np.asarray(scrubber.canvas.buffer_rgba()).copy()
        assert not np.array_equal(now, before), f"epoch {index} did not change the picture"
        before = now
    assert sum(len(ax.get_children()) for ax in scrubber.figure.axes) == count


def test_scrubber_input_error():
    with pytest.raises(ValueError, match="snapshots must be a non-empty list of dicts"):
        TrainingScrubber([], DATA, interactive=False)


def test_live_loss_keeps_every_point_and_redraws_at_the_end():
    live = LiveLoss(5, show=False, interval=10.0)
    for epoch in range(5):
        live.update(epoch, train=1.0 / (epoch + 1), test=torch.tensor(2.0))
    assert [v for _, v in live.history["train"]] == [1.0, 0.5, 1 / 3, 0.25, 0.2]
    np.testing.assert_allclose(live.lines["train"].get_xdata(), range(5))  # the last epoch forced a redraw
    assert "epoch 5/5" in live.ax.get_title()
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        LiveLoss(0, show=False)
