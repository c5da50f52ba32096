"""Notebook 02: the temperature takes attention from hard (T = 0) through soft to uniform (T = inf)."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import as_float_array, check_count, check_labels, check_seed
from ..i18n import _
from ..normalisers import entropy, hard_attention, softmax, sparsemax
from ..plots import COLORS, in_language_fonts
from .base import Explorer
from .controls import (
    at_each_temperature,
    temperature_axis,
    temperature_axis_position,
    temperature_label,
    temperature_slider,
)
from .weights_figure import bar_chart, set_heights

__all__ = ["NORMALISERS", "TemperatureExplorer", "temperature_small_multiples"]

NORMALISERS = {"softmax": softmax, "sparsemax": sparsemax}


class TemperatureExplorer(Explorer):
    """The temperature T takes attention from hard (T = 0) through soft to uniform (T = inf).

    Panels: the scores; the weights under the chosen normaliser; their entropy against T; and the output
    point sum_i lambda_i v_i in a 2-D value space, travelling from the argmax value to the mean, with the
    hard variants (argmax, top-k mean, one sample, mean of several samples) marked for comparison.
    Samples use fixed uniform numbers (inverse-CDF sampling), so moving T moves them smoothly.
    """

    figsize = (11.0, 3.6)

    notebook = "02"
    benched = "temperature"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 02's six scores; ``arguments`` go to the constructor."""
        from ..examples import six_scores

        return cls(*six_scores(), **arguments)

    def __init__(
        self,
        scores,
        values,
        labels=None,
        *,
        k=2,
        n_samples=8,
        seed=0,
        temperature=1.0,
        normaliser="softmax",
        interactive=True,
    ):
        self.alpha = as_float_array(scores, "scores", min_ndim=1)
        self.values = as_float_array(values, "values", min_ndim=2)
        if self.alpha.ndim != 1 or self.values.shape != (self.alpha.size, 2):
            raise ValueError(
                f"scores must have shape (n,) and values shape (n, 2); got {self.alpha.shape} and {self.values.shape}"
            )
        n = self.alpha.size
        if n < 2:
            raise ValueError(f"scores must hold at least 2 keys for the temperature to matter, got {n}")
        self.labels = check_labels(labels, n) or [f"$k_{i + 1}$" for i in range(n)]
        self.k = check_count(k, "k", 1, n)
        n_samples = check_count(n_samples, "n_samples", 1)
        self.uniforms = np.random.default_rng(check_seed(seed)).random(n_samples)  # fixed randomness for the samples
        self.curve_t = 10.0 ** np.linspace(-2, 2, 161)
        # What a step shows at each position of the temperature slider, computed once: a step looks it up.
        self.weights_at = {
            name: at_each_temperature(lambda t, name=name: self.weights(t, name)) for name in NORMALISERS
        }
        self.samples_at = at_each_temperature(self.samples)
        controls = {
            "temperature": temperature_slider(),
            "normaliser": widgets.ToggleButtons(
                options=list(NORMALISERS), description=_("normaliser"), style={"button_width": "100px"}
            ),
        }
        super().__init__(
            controls, interactive=interactive, values={"temperature": temperature, "normaliser": normaliser}
        )

    def weights(self, temperature, normaliser="softmax"):
        return NORMALISERS[normaliser](self.alpha, temperature)

    def samples(self, temperature):
        """Indices of the n_samples draws from softmax(alpha / T), by inverse CDF with fixed uniforms."""
        cdf = np.cumsum(softmax(self.alpha, temperature))
        return np.minimum(np.searchsorted(cdf, self.uniforms * cdf[-1], side="right"), self.alpha.size - 1)

    def _build(self) -> list:
        self.ax_scores, self.ax_weights, self.ax_entropy, self.ax_values = self.figure.subplots(
            1, 4, gridspec_kw={"width_ratios": [0.8, 0.9, 1.0, 1.3]}
        )
        n = self.alpha.size
        top = int(np.argmax(self.alpha))
        colors = [COLORS["vermillion"] if i == top else COLORS["grey"] for i in range(n)]
        bar_chart(self.ax_scores, self.labels, self.alpha, colors)
        self.ax_scores.set_ylabel(_(r"score $\alpha_i$"))
        self.ax_scores.set_title(_("scores (argmax in red)"))

        self.weight_bars = bar_chart(self.ax_weights, self.labels, np.zeros(n))
        (self.topk_marks,) = self.ax_weights.plot(
            [], [], ls="none", marker="_", ms=18, mew=3, color=COLORS["vermillion"], label=_("top-{k}").format(k=self.k)
        )
        self.ax_weights.set_ylim(0, 1.05)
        self.ax_weights.set_ylabel(_(r"weight $\lambda_i$"))
        self.ax_weights.legend(loc="upper left")
        self.weights_title = self.ax_weights.set_title("")

        ax = self.ax_entropy
        (self.entropy_curve,) = ax.plot([], [], color=COLORS["blue"])
        (self.entropy_ends,) = ax.plot([], [], ls="none", marker="o", color=COLORS["blue"], mfc="white")
        (self.entropy_now,) = ax.plot([], [], ls="none", marker="o", ms=10, color=COLORS["vermillion"])
        ax.axhline(np.log(n), color=COLORS["grey"], ls="--", lw=1)
        ax.text(
            -2.9, np.log(n) * 0.93, _("log n = {log_n:.2f} (uniform)").format(log_n=np.log(n)), va="top", fontsize=9
        )
        ax.set_ylim(-0.05, np.log(n) * 1.08)
        ax.set_ylabel(_(r"entropy $H(\lambda)$ (nats)"))
        temperature_axis(ax)
        ax.set_title(_("how spread the weights are"))

        ax = self.ax_values
        v = self.values
        ax.scatter(v[:, 0], v[:, 1], s=50, color=COLORS["grey"], zorder=2)
        for label, (x, y) in zip(self.labels, v, strict=True):
            ax.annotate(label, (x, y), xytext=(5, 4), textcoords="offset points")
        (self.path,) = ax.plot([], [], color=COLORS["blue"], lw=1.5, alpha=0.6, label=_("output as T varies"))
        for point, marker, size, color, label in (  # the three limits of the output: T -> 0, top-k, T -> inf
            (v[top], "s", 11, "vermillion", _("argmax value")),
            (hard_attention(self.alpha, self.k) @ v, "^", 10, "orange", _("top-{k} mean").format(k=self.k)),
            (v.mean(axis=0), "D", 9, "green", _("mean (uniform)")),
        ):
            ax.plot(*point, ls="none", marker=marker, ms=size, mfc="none", mew=2, color=COLORS[color], label=label)
        (self.sample_one,) = ax.plot(
            [], [], ls="none", marker="x", ms=10, mew=2, color=COLORS["purple"], label=_("one sample")
        )
        (self.sample_mean,) = ax.plot(
            [],
            [],
            ls="none",
            marker="P",
            ms=10,
            color=COLORS["purple"],
            label=_("mean of {n} samples").format(n=self.uniforms.size),
        )
        (self.output,) = ax.plot(
            [], [], ls="none", marker="o", ms=12, color=COLORS["blue"], label=_(r"soft output $\sum_i\lambda_i v_i$")
        )
        pad = 0.12 * np.ptp(v, axis=0)
        ax.set_ylim(v[:, 1].min() - pad[1], v[:, 1].max() + pad[1])
        ax.set_xlabel(_("value coordinate 1"))
        ax.set_ylabel(_("value coordinate 2"))
        ax.set_title(_("the output in value space"))
        ax.set_xlim(v[:, 0].min() - pad[0], v[:, 0].max() + 3.2 * pad[0] + 0.4 * np.ptp(v[:, 0]))  # legend room
        ax.legend(loc="lower right", fontsize=7.5, framealpha=0.85, handlelength=1.2, borderpad=0.3, labelspacing=0.25)
        self._normaliser_drawn = None
        return [
            *self.weight_bars,
            self.weights_title,
            self.entropy_curve,
            self.entropy_ends,
            self.entropy_now,
            self.path,
            self.sample_one,
            self.sample_mean,
            self.output,
        ]

    def _draw_normaliser_curves(self, normaliser):
        """The entropy curve and the output path depend on the normaliser only, not on T: drawn once each."""
        weights = np.array([self.weights(t, normaliser) for t in self.curve_t])  # (n_t, n)
        self.entropy_curve.set_data(np.log10(self.curve_t), entropy(weights))
        ends = [self.weights(0.0, normaliser), self.weights(np.inf, normaliser)]
        self.entropy_ends.set_data([-2.8, 2.8], entropy(np.array(ends)))
        path = np.vstack([ends[0], weights, ends[1]]) @ self.values  # (n_t + 2, 2)
        self.path.set_data(path[:, 0], path[:, 1])
        self._normaliser_drawn = normaliser

    def update(self, temperature, normaliser):
        if normaliser != self._normaliser_drawn:
            self._draw_normaliser_curves(normaliser)
        lam = self.weights_at[normaliser][temperature]
        set_heights(self.weight_bars, lam)
        topk = hard_attention(self.alpha, self.k)
        chosen = np.flatnonzero(topk)
        self.topk_marks.set_data(chosen, topk[chosen])
        self.weights_title.set_text(
            _("{normaliser}, T = {T}").format(normaliser=normaliser, T=temperature_label(temperature))
        )
        self.entropy_now.set_data([temperature_axis_position(temperature)], [entropy(lam)])
        out = lam @ self.values
        self.output.set_data([out[0]], [out[1]])
        drawn = self.values[self.samples_at[temperature]]  # (n_samples, 2)
        self.sample_one.set_data([drawn[0, 0]], [drawn[0, 1]])
        self.sample_mean.set_data([drawn[:, 0].mean()], [drawn[:, 1].mean()])


@in_language_fonts
def temperature_small_multiples(
    scores, values, temperatures=(0.0, 0.3, 1.0, 3.0, np.inf), *, labels=None, normaliser="softmax"
):
    """Static twin of :class:`TemperatureExplorer`: weights (top row) and output point (bottom row) per T."""
    alpha = as_float_array(scores, "scores", min_ndim=1)
    v = as_float_array(values, "values", min_ndim=2)
    labels = list(labels or [f"$k_{i + 1}$" for i in range(alpha.size)])
    fig = Figure(figsize=(2.6 * len(temperatures), 5.2), layout="constrained")
    axes = fig.subplots(2, len(temperatures))
    for column, t in enumerate(temperatures):
        lam = NORMALISERS[normaliser](alpha, t)
        bar_chart(axes[0, column], labels, lam)
        axes[0, column].set_ylim(0, 1.05)
        axes[0, column].set_title("T = " + temperature_label(t))
        ax = axes[1, column]
        ax.scatter(v[:, 0], v[:, 1], s=30, color=COLORS["grey"])
        out = lam @ v
        ax.plot(*out, marker="o", ms=10, color=COLORS["blue"])
        ax.set_xlabel(_("value coordinate 1"))
    axes[0, 0].set_ylabel(_(r"{normaliser} weight $\lambda_i$").format(normaliser=normaliser))
    axes[1, 0].set_ylabel(_("value coordinate 2"))
    return fig
