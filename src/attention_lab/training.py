"""Watching a model learn (notebook 04): a loss curve that draws itself, snapshots, and an epoch scrubber.

- :class:`LiveLoss` is a progress display: show it before the training loop, call ``live.update(epoch,
  train=..., test=...)`` inside it, and the curve grows in place (at most a few redraws a second).
- :func:`snapshot` records what a Nadaraya-Watson model does at one epoch: w, predictions and weights.
- :class:`TrainingScrubber` replays the snapshots with an epoch slider: the curve and the attention
  heatmap as they were at that epoch.
"""

from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np
import torch
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .data import RegressionData
from .explorers import Explorer
from .kernel_explorer import _weight_image, fit_and_weights_columns
from .plots import COLORS, CYCLE, buffer_png

__all__ = ["LiveLoss", "snapshot", "TrainingScrubber", "training_small_multiples"]


class LiveLoss:
    """A loss plot updated in place while a training loop runs (one output, no new figure per epoch).

    ``epochs`` fixes the x axis; every keyword of :meth:`update` is one curve. The picture is re-sent at
    most every ``interval`` seconds, and always at the last epoch, so it costs little even for fast loops.
    """

    def __init__(self, epochs: int, *, title: str = "training", ylabel: str = "mean squared error", logy=True,
                 xlabel: str = "epoch", interval: float = 0.2, show: bool = True):
        if not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"epochs must be a positive int (the length of the x axis), got {epochs!r}")
        self.epochs, self.interval = epochs, interval
        self.history: dict[str, list] = {}
        self.figure = Figure(figsize=(6.4, 3.0), dpi=80, layout="constrained")
        FigureCanvasAgg(self.figure)
        self.ax = self.figure.subplots()
        self.ax.set_xlim(0, epochs)
        self.ax.set_xlabel(xlabel)
        self.xlabel = xlabel
        self.ax.set_ylabel(ylabel)
        if logy:
            self.ax.set_yscale("log")
        self.title = title
        self.ax.set_title(title)
        self.lines: dict = {}
        self._last = 0.0
        self.handle = display(Image(data=self._png()), display_id=True) if show else None

    def _png(self) -> bytes:
        self.figure.canvas.draw()
        return buffer_png(self.figure.canvas)

    def update(self, epoch: int, **losses: float) -> None:
        """Add one point per named curve at ``epoch``; redraw if enough time has passed or training ended."""
        for name, value in losses.items():
            value = float(value.detach()) if torch.is_tensor(value) else float(value)
            self.history.setdefault(name, []).append((epoch, value))
            if name not in self.lines:
                color = CYCLE[len(self.lines) % len(CYCLE)]
                (self.lines[name],) = self.ax.plot([], [], color=color, lw=2, label=name)
        now = time.perf_counter()
        if now - self._last < self.interval and epoch < self.epochs - 1:
            return
        self._last = now
        for name, line in self.lines.items():
            line.set_data(*np.array(self.history[name]).T)
        self.ax.relim()
        self.ax.autoscale_view(scalex=False)
        for name, line in self.lines.items():
            line.set_label(f"{name}: {self.history[name][-1][1]:.4g}")
        self.ax.legend(loc="upper right")
        self.ax.set_title(f"{self.title}, {self.xlabel} {epoch + 1}/{self.epochs}")
        if self.handle is not None:
            self.handle.update(Image(data=self._png()))


@torch.no_grad()
def snapshot(model, epoch: int, loss: float, data: RegressionData) -> dict:
    """What ``model`` does at this epoch on the test queries, with all training points as keys (numpy)."""
    x_train = torch.as_tensor(data.x_train, dtype=torch.float32)
    y_train = torch.as_tensor(data.y_train, dtype=torch.float32)
    queries = torch.as_tensor(data.x_test, dtype=torch.float32)
    y_hat = model(queries, x_train, y_train).numpy().astype(np.float64)  # (n_test,)
    w = model.inverse_width(queries).squeeze(1).numpy().astype(np.float64)  # (n_test,)
    return {"epoch": int(epoch), "loss": float(loss), "w": w, "y_hat": y_hat,
            "test_mse": float(np.mean((y_hat - data.y_truth) ** 2)),
            "weights": model.attention_weights.numpy().astype(np.float64)}  # (n_test, n_train)


class TrainingScrubber(Explorer):
    """An epoch slider over training snapshots: the curve, the attention heatmap and w as they were then."""

    figsize = (11.0, 3.5)

    def __init__(self, snapshots: list, data: RegressionData, *, epoch=0, title="", interactive=True):
        if not snapshots or not all(isinstance(s, dict) and "weights" in s for s in snapshots):
            raise ValueError("snapshots must be a non-empty list of dicts from attention_lab.training.snapshot")
        self.snapshots, self.data, self.title = snapshots, data, title
        controls = {"epoch": widgets.SelectionSlider(options=[(str(s["epoch"]), i) for i, s in enumerate(snapshots)],
                                                     value=epoch, description="epoch", continuous_update=True,
                                                     layout=widgets.Layout(width="520px"))}
        super().__init__(controls, interactive=interactive)

    def _build(self) -> list:
        self.ax_fit, self.ax_heat, self.ax_curve = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.1, 1.0, 1.0]})
        d = self.data
        ax = self.ax_fit
        ax.plot(d.x_train, d.y_train, "o", ms=3.5, alpha=0.5, color=COLORS["grey"], label="training")
        ax.plot(d.x_test, d.y_truth, color=COLORS["black"], lw=1.5, label="truth")
        (self.curve,) = ax.plot([], [], color=COLORS["vermillion"], lw=2.2, label="model")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.legend(loc="lower left", fontsize=8.5)
        self.fit_title = ax.set_title("")
        self.image = _weight_image(self.ax_heat, d.x_train, d.x_test, self.snapshots[0]["weights"])
        self.figure.colorbar(self.image, ax=self.ax_heat, label=r"weight $\lambda_i(x)$ (log)", extend="min")
        self.ax_heat.set_title("attention weights")
        ax = self.ax_curve
        epochs = [s["epoch"] for s in self.snapshots]
        ax.plot(epochs, [s["loss"] for s in self.snapshots], color=COLORS["blue"], label="training loss")
        ax.plot(epochs, [s["test_mse"] for s in self.snapshots], color=COLORS["green"], label="test MSE")
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_ylabel("squared error (log)")
        ax.legend(loc="upper right", fontsize=8.5)
        self.now = ax.axvline(0, color=COLORS["orange"], lw=1.5, ls="--")
        self.curve_title = ax.set_title("")
        return [self.curve, self.fit_title, self.image, self.now, self.curve_title]

    def update(self):
        s = self.snapshots[self.controls["epoch"].value]
        d = self.data
        self.curve.set_data(d.x_test, s["y_hat"])
        w = s["w"]
        width = f"w = {w[0]:.2f}, h = 1/w = {1 / w[0]:.3f}" if np.ptp(w) < 1e-9 else \
            f"w(x) from {w.min():.2f} to {w.max():.2f}"
        self.fit_title.set_text(f"{self.title}epoch {s['epoch']}:\n{width}")  # two lines: fits the panel
        self.image.set_data(d.x_train, d.x_test, s["weights"])
        self.now.set_xdata([s["epoch"], s["epoch"]])
        self.curve_title.set_text(f"loss {s['loss']:.3f}, test MSE {s['test_mse']:.3f}")


def training_small_multiples(snapshots: list, data: RegressionData, epochs=None):
    """Static twin of :class:`TrainingScrubber`: the fit (top) and the attention weights (bottom) at a few epochs."""
    if not snapshots:
        raise ValueError("snapshots must be a non-empty list of dicts from attention_lab.training.snapshot")
    by_epoch = {s["epoch"]: s for s in snapshots}
    if epochs is None:
        last = snapshots[-1]["epoch"]
        epochs = sorted({0, max(1, last // 20), max(2, last // 5), last} & set(by_epoch))
    missing = [e for e in epochs if e not in by_epoch]
    if missing:
        raise ValueError(f"epochs {missing} have no snapshot; available: {sorted(by_epoch)[:5]} ... {max(by_epoch)}")
    columns = [(f"epoch {e}: w = {by_epoch[e]['w'].mean():.2f}", by_epoch[e]["y_hat"], by_epoch[e]["weights"])
               for e in epochs]
    return fit_and_weights_columns(data, columns)
