"""Why divide by sqrt(d) (notebook 05): the dimension explorer and its static twin.

Queries and keys have independent standard-normal components. Then q . k is a sum of d products with
mean 0 and variance 1, so Var(q . k) = d: the scores spread out like sqrt(d), and softmax saturates
to one-hot. Dividing by sqrt(d) keeps the variance at 1 for every d.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import check_count, check_flag, check_seed
from ..i18n import _
from ..normalisers import entropy, softmax
from ..plots import COLORS, in_language_fonts
from .base import Explorer

__all__ = ["DIMENSIONS", "DimensionExplorer", "ScoreSample", "scaling_small_multiples"]

DIMENSIONS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
BINS = np.linspace(-40, 40, 81)


class ScoreSample:
    """Fixed random queries and keys (seeded) whose first d components give the scores for dimension d."""

    def __init__(self, n_queries=400, n_keys=8, max_d=512, seed=0):
        n_queries, n_keys = check_count(n_queries, "n_queries", 1), check_count(n_keys, "n_keys", 1)
        max_d = check_count(max_d, "max_d", 1)
        rng = np.random.default_rng(check_seed(seed))
        self.queries = rng.standard_normal((n_queries, max_d))  # (n_q, D)
        self.keys = rng.standard_normal((n_keys, max_d))  # (n_k, D)
        # running sums over the components: scores for the first d components in O(1) per d
        self._cumulative = np.cumsum(self.queries[:, None, :] * self.keys[None, :, :], axis=-1)  # (n_q, n_k, D)

    def scores(self, d: int, scaled: bool) -> np.ndarray:
        """(n_q, n_k) dot products of the first d components, divided by sqrt(d) if ``scaled``."""
        d = check_count(d, "d", 1, self._cumulative.shape[-1])
        scaled = check_flag(scaled, "scaled")
        raw = self._cumulative[:, :, d - 1]
        return raw / np.sqrt(d) if scaled else raw


class DimensionExplorer(Explorer):
    """Slide d: the distribution of scores, one query's weights and the weights' entropy, unscaled vs scaled."""

    figsize = (11.0, 3.5)

    notebook = "05"
    benched = "d"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 05's score sample; ``arguments`` go to the constructor."""
        return cls(**arguments)

    def __init__(self, sample: ScoreSample | None = None, *, d=16, interactive=True):
        self.sample = ScoreSample() if sample is None else sample
        if not isinstance(self.sample, ScoreSample):
            raise ValueError(f"sample must be a ScoreSample, got {type(sample).__name__}")
        if self.sample.queries.shape[1] < max(DIMENSIONS):
            raise ValueError(
                f"sample must have max_d >= {max(DIMENSIONS)} (the slider's largest d), got "
                f"{self.sample.queries.shape[1]}"
            )
        n_keys = self.sample.keys.shape[0]
        self.mean_entropy = {
            scaled: [entropy(softmax(self.sample.scores(k, scaled))).mean() for k in DIMENSIONS]
            for scaled in (False, True)
        }
        self.max_entropy = np.log(n_keys)
        controls = {
            "d": widgets.SelectionSlider(
                options=DIMENSIONS,
                description=_("dimension d"),
                continuous_update=True,
                layout=widgets.Layout(width="460px"),
            )
        }
        super().__init__(controls, interactive=interactive, values={"d": d})

    def _build(self) -> list:
        self.ax_hist, self.ax_weights, self.ax_entropy = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.1, 1.0, 1.0]}
        )
        ax = self.ax_hist
        centres = (BINS[:-1] + BINS[1:]) / 2
        (self.hist_raw,) = ax.step(
            centres, np.zeros_like(centres), where="mid", color=COLORS["vermillion"], lw=2, label=r"$q \cdot k$"
        )
        (self.hist_scaled,) = ax.step(
            centres, np.zeros_like(centres), where="mid", color=COLORS["blue"], lw=2, label=r"$q \cdot k / \sqrt{d}$"
        )
        ax.set_xlim(BINS[0], BINS[-1])
        ax.set_ylim(0, 0.45)
        ax.set_xlabel(_("score"))
        ax.set_ylabel(_("density"))
        ax.legend(loc="upper right")
        self.hist_title = ax.set_title("")

        ax = self.ax_weights
        n_keys = self.sample.keys.shape[0]
        positions = np.arange(n_keys)
        self.bars_raw = ax.bar(
            positions - 0.2, np.zeros(n_keys), width=0.4, color=COLORS["vermillion"], label=_("unscaled")
        )
        self.bars_scaled = ax.bar(positions + 0.2, np.zeros(n_keys), width=0.4, color=COLORS["blue"], label=_("scaled"))
        ax.set_xticks(positions, [f"$k_{i + 1}$" for i in positions])
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(_(r"weight $\lambda_i$ (one query)"))
        ax.legend(loc="upper left")
        ax.grid(axis="x", visible=False)
        ax.set_title(_("softmax weights of query 1"))

        ax = self.ax_entropy
        logd = np.log2(DIMENSIONS)
        ax.plot(logd, self.mean_entropy[False], "o-", color=COLORS["vermillion"], label=_("unscaled"))
        ax.plot(logd, self.mean_entropy[True], "o-", color=COLORS["blue"], label=_("scaled"))
        ax.axhline(self.max_entropy, color=COLORS["grey"], ls="--", lw=1)
        ax.text(0, self.max_entropy * 0.95, _("uniform"), va="top", fontsize=9)
        ax.set_xticks(logd, [str(d) for d in DIMENSIONS], fontsize=8.5)
        ax.set_xlabel(_("dimension d (log scale)"))
        ax.set_ylabel(_("mean entropy of the weights (nats)"))
        ax.set_ylim(0, self.max_entropy * 1.1)
        ax.legend(loc="lower left")
        self.now = ax.axvline(0, color=COLORS["orange"], lw=1.5, ls="--")
        ax.set_title(_("how spread the weights are"))
        return [self.hist_raw, self.hist_scaled, self.hist_title, *self.bars_raw, *self.bars_scaled, self.now]

    def update(self, d):
        raw, scaled = self.sample.scores(d, False), self.sample.scores(d, True)
        self.hist_raw.set_ydata(np.histogram(raw, BINS, density=True)[0])
        self.hist_scaled.set_ydata(np.histogram(scaled, BINS, density=True)[0])
        self.hist_title.set_text(
            _("d = {d}: std {unscaled:.1f} unscaled, {scaled:.2f} scaled").format(
                d=d, unscaled=raw.std(), scaled=scaled.std()
            )
        )
        for bars, scores in ((self.bars_raw, raw), (self.bars_scaled, scaled)):
            for bar, height in zip(bars, softmax(scores[0]), strict=True):
                bar.set_height(height)
        self.now.set_xdata([np.log2(d)] * 2)


@in_language_fonts
def scaling_small_multiples(sample: ScoreSample | None = None, dimensions=(4, 64, 512)):
    """Static twin: one query's weights, unscaled (top) and scaled (bottom), for a few d."""
    sample = ScoreSample() if sample is None else sample
    if not isinstance(sample, ScoreSample):
        raise ValueError(f"sample must be a ScoreSample, got {type(sample).__name__}")
    fig = Figure(figsize=(2.9 * len(dimensions), 4.6), layout="constrained")
    axes = fig.subplots(2, len(dimensions), sharey=True, squeeze=False)
    n_keys = sample.keys.shape[0]
    for column, d in enumerate(dimensions):
        for row, scaled in enumerate((False, True)):
            ax = axes[row, column]
            ax.bar(
                np.arange(n_keys),
                softmax(sample.scores(d, scaled)[0]),
                color=COLORS["blue"] if scaled else COLORS["vermillion"],
            )
            ax.set_xticks(np.arange(n_keys), [f"$k_{i + 1}$" for i in range(n_keys)], fontsize=8)
            ax.set_title((_("d = {d}, scaled") if scaled else _("d = {d}, unscaled")).format(d=d))
            ax.set_ylim(0, 1.05)
    for row in range(2):
        axes[row, 0].set_ylabel(_(r"weight $\lambda_i$"))
    return fig
