"""Notebook 04: an epoch slider over training snapshots (``attention_lab.training.snapshot``) of a kernel regression."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..i18n import _, pgettext
from ..plots import COLORS, in_language_fonts
from ..regression_data import RegressionData
from .base import Explorer
from .weights_figure import fit_and_weights_columns, weight_image

__all__ = ["TrainingScrubber", "training_small_multiples"]


SNAPSHOT_KEYS = ("epoch", "loss", "test_mse", "w", "y_hat", "weights")


def _check_snapshots(snapshots, data):
    """Snapshots as ``attention_lab.training.snapshot`` makes them, of the model trained on ``data``."""
    if not isinstance(data, RegressionData):
        raise ValueError(f"data must be RegressionData (from make_regression_data), got {type(data).__name__}")
    if isinstance(snapshots, dict) or not hasattr(snapshots, "__len__") or not snapshots:
        raise ValueError("snapshots must be a non-empty list of dicts from attention_lab.training.snapshot")
    expected = (len(data.x_test), len(data.x_train))
    for i, s in enumerate(snapshots):
        if not isinstance(s, dict) or any(key not in s for key in SNAPSHOT_KEYS):
            raise ValueError(
                f"snapshots[{i}] must be a dict from attention_lab.training.snapshot with keys "
                f"{list(SNAPSHOT_KEYS)}, got {type(s).__name__}"
            )
        if np.shape(s["weights"]) != expected or np.shape(s["y_hat"]) != expected[:1]:
            raise ValueError(
                f"snapshots[{i}] does not match data: weights must have shape (queries, keys) = "
                f"{expected}, got {np.shape(s['weights'])}"
            )


class TrainingScrubber(Explorer):
    """An epoch slider over training snapshots: the curve, the attention heatmap and w as they were then.

    ``epoch`` is the position of the first snapshot shown (0 = the first snapshot).
    """

    figsize = (11.0, 3.5)

    notebook = "04"
    benched = "epoch"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 04's 100 epochs of training; ``arguments`` go to the constructor."""
        import torch

        from .. import nn as aln
        from ..regression_data import make_regression_data
        from ..training import snapshot

        data = make_regression_data(50, seed=0)  # 100 epochs of Adam on the course data, one snapshot each
        x, y = torch.tensor(data.x_train, dtype=torch.float32), torch.tensor(data.y_train, dtype=torch.float32)
        keys, values = aln.leave_one_out(x, y)
        model = aln.NWKernelRegression(1.0)
        optimiser = torch.optim.Adam(model.parameters(), lr=0.5)
        snapshots = [snapshot(model, 0, 1.0, data)]
        for epoch in range(100):
            optimiser.zero_grad()
            loss = torch.mean((model(x, keys, values) - y) ** 2)
            loss.backward()
            optimiser.step()
            snapshots.append(snapshot(model, epoch + 1, loss.item(), data))
        return cls(snapshots, data, **arguments)

    def __init__(self, snapshots: list, data: RegressionData, *, epoch=0, title="", interactive=True):
        _check_snapshots(snapshots, data)
        if not isinstance(title, str):
            raise ValueError(f"title must be a string, got {type(title).__name__}")
        self.snapshots, self.data, self.title = list(snapshots), data, title
        controls = {
            "epoch": widgets.SelectionSlider(
                options=[(str(s["epoch"]), i) for i, s in enumerate(snapshots)],
                description=_("epoch"),
                continuous_update=True,
                layout=widgets.Layout(width="520px"),
            )
        }
        super().__init__(controls, interactive=interactive, values={"epoch": epoch})

    def _build(self) -> list:
        self.ax_fit, self.ax_heat, self.ax_curve = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.1, 1.0, 1.0]}
        )
        d = self.data
        ax = self.ax_fit
        ax.plot(
            d.x_train,
            d.y_train,
            "o",
            ms=3.5,
            alpha=0.5,
            color=COLORS["grey"],
            label=pgettext("training points", "training"),
        )
        ax.plot(d.x_test, d.y_truth, color=COLORS["black"], lw=1.5, label=_("truth"))
        (self.curve,) = ax.plot([], [], color=COLORS["vermillion"], lw=2.2, label=_("model"))
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.legend(loc="lower left", fontsize=8.5)
        self.fit_title = ax.set_title("")
        self.image = weight_image(self.ax_heat, d.x_train, d.x_test, self.snapshots[0]["weights"])
        self.figure.colorbar(self.image, ax=self.ax_heat, label=_(r"weight $\lambda_i(x)$ (log)"), extend="min")
        self.ax_heat.set_title(_("attention weights"))
        ax = self.ax_curve
        epochs = [s["epoch"] for s in self.snapshots]
        ax.plot(epochs, [s["loss"] for s in self.snapshots], color=COLORS["blue"], label=_("training loss"))
        ax.plot(epochs, [s["test_mse"] for s in self.snapshots], color=COLORS["green"], label=_("test MSE"))
        ax.set_yscale("log")
        ax.set_xlabel(_("epoch"))
        ax.set_ylabel(_("squared error (log)"))
        ax.legend(loc="upper right", fontsize=8.5)
        self.now = ax.axvline(0, color=COLORS["orange"], lw=1.5, ls="--")
        self.curve_title = ax.set_title("")
        return [self.curve, self.fit_title, self.image, self.now, self.curve_title]

    def update(self, epoch):
        s = self.snapshots[epoch]
        d = self.data
        self.curve.set_data(d.x_test, s["y_hat"])
        w = s["w"]
        width = (
            f"w = {w[0]:.2f}, h = 1/w = {1 / w[0]:.3f}"
            if np.ptp(w) < 1e-9
            else _("w(x) from {low:.2f} to {high:.2f}").format(low=w.min(), high=w.max())
        )
        self.fit_title.set_text(
            self.title + _("epoch {epoch}:\n{width}").format(epoch=s["epoch"], width=width)
        )  # two lines: fits the panel
        self.image.set_data(d.x_train, d.x_test, s["weights"])
        self.now.set_xdata([s["epoch"], s["epoch"]])
        self.curve_title.set_text(_("loss {loss:.3f}, test MSE {mse:.3f}").format(loss=s["loss"], mse=s["test_mse"]))


@in_language_fonts
def training_small_multiples(snapshots: list, data: RegressionData, epochs=None):
    """Static twin of :class:`TrainingScrubber`: the fit (top) and the attention weights (bottom) at a few epochs."""
    _check_snapshots(snapshots, data)
    by_epoch = {s["epoch"]: s for s in snapshots}
    if epochs is None:
        last = snapshots[-1]["epoch"]
        epochs = sorted({0, max(1, last // 20), max(2, last // 5), last} & set(by_epoch))
    missing = [e for e in epochs if e not in by_epoch]
    if missing:
        raise ValueError(f"epochs {missing} have no snapshot; available: {sorted(by_epoch)[:5]} ... {max(by_epoch)}")
    columns = [
        (
            _("epoch {epoch}: w = {w:.2f}").format(epoch=e, w=by_epoch[e]["w"].mean()),
            by_epoch[e]["y_hat"],
            by_epoch[e]["weights"],
        )
        for e in epochs
    ]
    return fit_and_weights_columns(data, columns)
