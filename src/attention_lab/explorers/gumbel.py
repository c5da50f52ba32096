"""Notebook 02: the Gumbel-max trick and its soft relaxation, Gumbel-softmax, at any temperature."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .._checks import as_float_array, check_count, check_labels, check_seed
from ..i18n import _
from ..normalisers import gumbel_softmax, softmax
from ..plots import CMAP, COLORS, in_language_fonts
from .base import Explorer
from .controls import at_each_temperature, temperature_label, temperature_slider

__all__ = ["GumbelExplorer", "gumbel_small_multiples"]


class GumbelExplorer(Explorer):
    """Gumbel-softmax samples softmax((alpha + g) / T): one-hot as T -> 0, uniform as T -> inf.

    Left: a fixed set of Gumbel draws g (one per row), relaxed at the current T. Right: softmax(alpha),
    the frequency with which argmax(alpha + g) picks each key over many draws (the Gumbel-max trick:
    it matches softmax at every T), and the mean of the relaxed samples (which drifts to uniform as T grows).
    """

    figsize = (11.0, 3.4)

    notebook = "02"
    benched = "temperature"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 02's six scores; ``arguments`` go to the constructor."""
        from ..examples import six_scores

        return cls(six_scores()[0], **arguments)

    def __init__(self, scores, labels=None, *, n_rows=10, n_draws=4000, seed=0, temperature=1.0, interactive=True):
        self.alpha = as_float_array(scores, "scores", min_ndim=1)
        if self.alpha.ndim != 1 or self.alpha.size < 2:
            raise ValueError(f"scores must have shape (n,) with at least 2 keys, got shape {self.alpha.shape}")
        n = self.alpha.size
        self.labels = check_labels(labels, n) or [f"$k_{i + 1}$" for i in range(n)]
        self.seed = check_seed(seed)
        self.rows = np.broadcast_to(self.alpha, (check_count(n_rows, "n_rows", 1), n))
        self.many = np.broadcast_to(self.alpha, (check_count(n_draws, "n_draws", 1), n))
        self.argmax_frequency = gumbel_softmax(self.many, hard=True, rng=self.seed).mean(axis=0)
        # What a step shows at each position of the temperature slider, computed once: a step looks it up.
        self.relaxed_at = at_each_temperature(self.relaxed)
        self.mean_relaxed_at = at_each_temperature(self.mean_relaxed)
        controls = {"temperature": temperature_slider()}
        super().__init__(controls, interactive=interactive, values={"temperature": temperature})

    def relaxed(self, temperature):
        """(n_rows, n) relaxed samples; the same Gumbel noise at every T (same seed), so rows slide smoothly."""
        return gumbel_softmax(self.rows, temperature, rng=self.seed)

    def mean_relaxed(self, temperature):
        """(n,) the mean of the n_draws relaxed samples at T: it drifts from softmax(alpha) to uniform as T grows."""
        return gumbel_softmax(self.many, temperature, rng=self.seed).mean(axis=0)

    def _build(self) -> list:
        self.ax_samples, self.ax_freq = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
        n = self.alpha.size
        ax = self.ax_samples
        self.image = ax.imshow(np.zeros(self.rows.shape), vmin=0, vmax=1, cmap=CMAP, aspect="auto")
        ax.set_xticks(np.arange(n), self.labels)
        ax.set_ylabel(_("Gumbel draw"))
        ax.set_xlabel(_("key"))
        ax.grid(False)
        self.figure.colorbar(self.image, ax=ax, label=_(r"weight $\lambda_i$"))
        self.samples_title = ax.set_title("")
        ax = self.ax_freq
        positions = np.arange(n)
        ax.bar(positions, softmax(self.alpha), width=0.7, color=COLORS["sky"], label=r"softmax($\alpha$)")
        ax.plot(
            positions,
            self.argmax_frequency,
            ls="none",
            marker="_",
            ms=22,
            mew=3,
            color=COLORS["black"],
            label=_("argmax frequency ({n} draws)").format(n=self.many.shape[0]),
        )
        (self.mean_marks,) = ax.plot(
            [], [], ls="none", marker="o", color=COLORS["vermillion"], label=_("mean relaxed sample at T")
        )
        ax.set_xticks(positions, self.labels)
        ax.set_ylim(0, 1.0)
        ax.set_ylabel(_("probability / weight"))
        ax.legend(loc="upper left", fontsize=8.5)
        ax.set_title(_("hard samples follow softmax"))
        return [self.image, self.samples_title, self.mean_marks]

    def update(self, temperature):
        self.image.set_data(self.relaxed_at[temperature])
        self.samples_title.set_text(_("relaxed samples, T = {T}").format(T=temperature_label(temperature)))
        self.mean_marks.set_data(np.arange(self.alpha.size), self.mean_relaxed_at[temperature])


@in_language_fonts
def gumbel_small_multiples(scores, temperatures=(0.0, 0.1, 0.5, 2.0, 10.0), *, labels=None, n_rows=10, seed=0):
    """Static twin of :class:`GumbelExplorer`: the same Gumbel draws relaxed at several temperatures."""
    alpha = as_float_array(scores, "scores", min_ndim=1)
    labels = list(labels or [f"$k_{i + 1}$" for i in range(alpha.size)])
    rows = np.broadcast_to(alpha, (n_rows, alpha.size))
    fig = Figure(figsize=(2.4 * len(temperatures) + 0.8, 3.0), layout="constrained")
    axes = fig.subplots(1, len(temperatures))
    for ax, t in zip(axes, temperatures, strict=True):
        image = ax.imshow(gumbel_softmax(rows, t, rng=seed), vmin=0, vmax=1, cmap=CMAP, aspect="auto")
        ax.set_xticks(np.arange(alpha.size), labels)
        ax.set_title("T = " + temperature_label(t))
        ax.grid(False)
    axes[0].set_ylabel(_("Gumbel draw"))
    fig.colorbar(image, ax=list(axes), label=_(r"weight $\lambda_i$"))
    return fig
