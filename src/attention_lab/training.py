"""Watching a model learn (notebooks 04, 06 and 08): a loss curve that draws itself, snapshots, a training step.

- :class:`LiveLoss` is a progress display: show it before the training loop, call ``live.update(epoch,
  train=..., test=...)`` inside it, and the curve grows in place (at most a few redraws a second).
- :func:`snapshot` records what a Nadaraya-Watson model does at one epoch: w, predictions and weights.
- :func:`train_step` is one step of training a token model (notebook 08 has the student write it first).

The epoch scrubber that replays the snapshots is :class:`attention_lab.explorers.TrainingScrubber`.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._checks import check_count
from .figure_text import describe
from .i18n import N_, _
from .plots import CYCLE, buffer_png
from .regression_data import RegressionData

__all__ = ["LiveLoss", "snapshot", "train_step"]


class LiveLoss:
    """A loss plot updated in place while a training loop runs (one output, no new figure per epoch).

    ``epochs`` fixes the x axis; every keyword of :meth:`update` is one curve. The picture is re-sent at
    most every ``interval`` seconds (and at most a fifth of the time when drawing is slow), and always at the
    last epoch, so it costs little even for fast loops.
    """

    def __init__(
        self,
        epochs: int,
        *,
        title: str = N_("training"),
        ylabel: str = N_("mean squared error"),
        logy=True,
        xlabel: str = N_("epoch"),
        interval: float = 0.2,
        show: bool = True,
    ):
        epochs = check_count(epochs, "epochs", 1, what="the length of the x axis")
        self.epochs, self.interval = epochs, interval
        self.history: dict[str, list] = {}
        self.figure = Figure(figsize=(6.4, 3.0), dpi=80, layout="constrained")
        FigureCanvasAgg(self.figure)
        self.ax = self.figure.subplots()
        self.ax.set_xlim(0, epochs)
        # the labels a notebook passes are its own text; the defaults are the library's, looked up in its catalogue
        title, xlabel, ylabel = _(title), _(xlabel), _(ylabel)
        self.ax.set_xlabel(xlabel)
        self.xlabel = xlabel
        self.ax.set_ylabel(ylabel)
        if logy:
            self.ax.set_yscale("log")
        self.title = title
        self.ax.set_title(title)
        self.lines: dict = {}
        self._last, self._cost = 0.0, 0.0
        self.handle = display(self._image(), display_id=True) if show else None

    def _png(self) -> bytes:
        self.figure.canvas.draw()
        return buffer_png(self.figure.canvas)

    def _image(self) -> Image:
        """The current picture, with an alt text from the figure's labels (the static pages show it)."""
        png = self._png()
        return Image(data=png, metadata={"alt": describe(self.figure)})

    def update(self, epoch: int, **losses: float) -> None:
        """Add one point per named curve at ``epoch``; redraw if enough time has passed or training ended."""
        for name, value in losses.items():
            value = float(value.detach()) if torch.is_tensor(value) else float(value)
            self.history.setdefault(name, []).append((epoch, value))
            if name not in self.lines:
                color = CYCLE[len(self.lines) % len(CYCLE)]
                (self.lines[name],) = self.ax.plot([], [], color=color, lw=2, label=name)
        # Redraw at most every ``interval`` seconds, and never more than a fifth of the time: the wait counts from
        # the end of the last redraw and is at least four redraws long (a loaded machine draws slowly).
        if time.perf_counter() - self._last < max(self.interval, 4 * self._cost) and epoch < self.epochs - 1:
            return
        start = time.perf_counter()
        for name, line in self.lines.items():
            line.set_data(*np.array(self.history[name]).T)
        self.ax.relim()
        self.ax.autoscale_view(scalex=False)
        for name, line in self.lines.items():
            line.set_label(f"{name}: {self.history[name][-1][1]:.4g}")
        self.ax.legend(loc="upper right")
        self.ax.set_title(
            _("{title}, {xlabel} {epoch}/{epochs}").format(
                title=self.title, xlabel=self.xlabel, epoch=epoch + 1, epochs=self.epochs
            )
        )
        if self.handle is not None:
            self.handle.update(self._image())
        self._last = time.perf_counter()
        self._cost = self._last - start


@torch.no_grad()
def snapshot(model, epoch: int, loss: float, data: RegressionData) -> dict:
    """What ``model`` does at this epoch on the test queries, with all training points as keys (numpy)."""
    x_train = torch.as_tensor(data.x_train, dtype=torch.float32)
    y_train = torch.as_tensor(data.y_train, dtype=torch.float32)
    queries = torch.as_tensor(data.x_test, dtype=torch.float32)
    y_hat = model(queries, x_train, y_train).numpy().astype(np.float64)  # (n_test,)
    w = model.inverse_width(queries).squeeze(1).numpy().astype(np.float64)  # (n_test,)
    return {
        "epoch": int(epoch),
        "loss": float(loss),
        "w": w,
        "y_hat": y_hat,
        "test_mse": float(np.mean((y_hat - data.y_truth) ** 2)),
        "weights": model.attention_weights.numpy().astype(np.float64),
    }  # (n_test, n_train)


def train_step(model, optimizer, inputs, targets) -> float:
    """One step of training: the mean cross-entropy over every position of every sequence, one update; the loss.

    ``model`` maps ``inputs`` (batch, n) tokens to (batch, n, vocab) logits; ``targets`` are (batch, n) tokens.
    """
    if tuple(targets.shape) != tuple(inputs.shape):
        raise ValueError(
            f"targets must have the shape of inputs, one target token per input position {tuple(inputs.shape)}; "
            f"got {tuple(targets.shape)}"
        )
    logits = model(inputs)  # (batch, n, vocab)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
