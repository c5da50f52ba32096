"""Interactive explorers: a figure built once whose artists are updated in place when a widget moves.

Each explorer is an object: ``explorer.controls`` holds its widgets by name, ``explorer.figure`` its
matplotlib figure, and displaying the explorer shows the controls above the figure. Moving a widget
calls ``update()``, which changes the data of existing artists (``set_height``, ``set_data``, ...) and
asks the canvas to redraw once; nothing is rebuilt. ``explorer.set(temperature=0.5)`` moves a widget
from code (that is what the headless tests do).

Every explorer also has a static small-multiples twin (the ``*_small_multiples`` functions) so the idea
survives on a slide or in a page without a kernel.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._checks import as_float_array
from .normalisers import entropy, gumbel_softmax, hard_attention, softmax, sparsemax
from .plots import CMAP, COLORS, CYCLE, buffer_png, interactive_figure
from .scores import gaussian_score

__all__ = [
    "TEMPERATURE_OPTIONS",
    "nearest_temperature",
    "temperature_slider",
    "Explorer",
    "LookupExplorer",
    "TemperatureExplorer",
    "GumbelExplorer",
    "lookup_small_multiples",
    "temperature_small_multiples",
    "gumbel_small_multiples",
]

NORMALISERS = {"softmax": softmax, "sparsemax": sparsemax}


def _temperature_label(t: float) -> str:
    if t == 0:
        return "0 (hard)"
    if t == np.inf:
        return "∞ (uniform)"
    return f"{t:.3g}"


# T = 0, then 41 log-spaced values from 0.01 to 100, then T = inf: the slider reaches both limits exactly.
TEMPERATURE_OPTIONS = [(_temperature_label(t), float(t)) for t in
                       [0.0, *np.round(10.0 ** np.linspace(-2, 2, 41), 6), np.inf]]


def nearest_temperature(value: float) -> float:
    """The slider position closest to temperature ``value`` (on the log scale; 0 and inf exactly)."""
    values = [v for _, v in TEMPERATURE_OPTIONS]
    wanted = _temperature_axis_position(value)
    return values[int(np.argmin([abs(_temperature_axis_position(v) - wanted) for v in values]))]


def temperature_slider(value: float = 1.0, description: str = "T") -> widgets.SelectionSlider:
    """A log-scale temperature slider from 0 (hard) through 0.01 ... 100 to inf (uniform)."""
    return widgets.SelectionSlider(options=TEMPERATURE_OPTIONS, value=nearest_temperature(value),
                                   description=description, continuous_update=True,
                                   layout=widgets.Layout(width="460px"))


def _temperature_axis_position(t: float) -> float:
    """Where temperature T sits on a log10 axis that also shows T = 0 (at -2.8) and T = inf (at 2.8)."""
    if t == 0:
        return -2.8
    if t == np.inf:
        return 2.8
    return float(np.log10(t))


def _temperature_axis(ax, label="temperature T (log scale)"):
    ticks = [-2.8, -2, -1, 0, 1, 2, 2.8]
    ax.set_xticks(ticks, ["0", "0.01", "0.1", "1", "10", "100", "∞"])
    ax.set_xlim(-3.05, 3.05)
    ax.set_xlabel(label)


class Explorer:
    """Base class: the figure is built once (``_build``); ``update`` moves artists when a control changes.

    Speed (a slider step must reach the screen in well under 150 ms): the artists that change are
    *animated*. A full draw happens once, with the layout solved then and frozen; the static rest of the
    figure is kept as a background bitmap, and each step only restores that bitmap, draws the few changing
    artists and sends the changed pixels (blitting), instead of redrawing every tick label and line.
    """

    figsize = (10.0, 3.2)
    dpi = 80
    # Controls whose change moves artists that are *not* animated (part of the background bitmap): for them
    # one full redraw replaces the blit. For rarely used controls (an example, a data-set size) only.
    static_controls: tuple = ()

    def __init__(self, controls: dict, *, interactive: bool = True):
        self.controls = controls
        self.figure, self.canvas = interactive_figure(self.figsize, dpi=self.dpi, interactive=interactive)
        self.animated = self._build()
        for artist in self.animated:
            artist.set_animated(True)
        self._background = None
        self.canvas.mpl_connect("draw_event", self._on_full_draw)
        self.update()
        # The one full draw: solves the constrained layout and captures the background. Agg only: nothing is
        # sent, because the browser view does not exist yet (it asks for a full frame when it connects).
        FigureCanvasAgg.draw(self.canvas)
        self.figure.set_layout_engine("none")  # freeze the layout: no layout solver on later draws
        if interactive:
            view, self._image = self.canvas, None
        else:  # no ipympl: show a PNG that is re-rendered on each change
            view = self._image = widgets.Image(value=buffer_png(self.canvas), format="png")
        for control in controls.values():
            control.observe(self._on_change, names="value")
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))  # wraps if narrow
        self.widget = widgets.VBox([row, view])

    # subclasses fill these in
    def _build(self) -> list:  # pragma: no cover - abstract
        """Create every artist once; return the ones that ``update`` changes."""
        raise NotImplementedError

    def update(self):  # pragma: no cover - abstract
        """Set the data of the changing artists from the controls' values."""
        raise NotImplementedError

    @property
    def values(self) -> dict:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def set(self, **values):
        """Move controls from code, as a reader would by hand; the figure follows.

        A temperature snaps to the nearest slider position.
        """
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(f"unknown control {name!r}; this explorer has {sorted(self.controls)}")
            self.controls[name].value = nearest_temperature(value) if name == "temperature" else value

    def _draw_animated(self):
        for artist in self.animated:
            self.figure.draw_artist(artist)

    def _on_full_draw(self, event):
        """After any full draw (first show, resize): keep the background, add the moving artists.

        Not after ``savefig``: it draws the animated artists too, so its picture is no background.
        """
        if self.canvas.is_saving():
            return
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._draw_animated()

    def redraw(self):
        """Blit: background bitmap + changing artists, then send the changed pixels to the browser."""
        self.canvas.restore_region(self._background)
        self._draw_animated()
        if getattr(self.canvas, "syncing_data_url", False):
            return  # ipympl with no browser view connected yet: it will request a full frame when it connects
        self.canvas.blit(self.figure.bbox)
        if self._image is not None:  # the fallback view: encode the already-blitted pixels, no full redraw
            self._image.value = buffer_png(self.canvas)

    def _on_change(self, change):
        self.update()
        if any(change["owner"] is self.controls[name] for name in self.static_controls):
            self.full_redraw()
        else:
            self.redraw()

    def full_redraw(self):
        """Redraw everything and capture a new background: for changes to artists that are not animated."""
        self.canvas.draw()  # fires draw_event: new background, then the animated artists on top
        if self._image is not None:
            self._image.value = buffer_png(self.canvas)

    def _repr_mimebundle_(self, **kwargs):
        """The widget, plus a PNG of the figure as it is now: what a saved notebook or HTML page shows."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["image/png"] = buffer_png(self.canvas)
        return bundle


def _bars(ax, labels, heights, colors=None):
    positions = np.arange(len(labels))
    bars = ax.bar(positions, heights, color=colors or COLORS["blue"], width=0.7)
    ax.set_xticks(positions, labels)
    ax.grid(axis="x", visible=False)
    return bars


def _set_heights(bars, heights):
    for bar, height in zip(bars, heights, strict=True):
        bar.set_height(height)


# --- notebook 01: attention as a soft lookup --------------------------------------------------------------

class LookupExplorer(Explorer):
    """Choose a query and a temperature; see scores, weights and the output sum_i lambda_i v_i.

    Scores are alpha_i = -||q - k_i||^2 / (2 h^2): the closer a key to the query, the higher its score.
    """

    figsize = (11.0, 3.3)

    def __init__(self, keys, values, labels, queries: dict, *, feature_names=("feature 1", "feature 2"),
                 value_names=None, bandwidth=1.0, temperature=1.0, interactive=True):
        self.keys = as_float_array(keys, "keys", min_ndim=2)  # (n, 2)
        self.values_ = as_float_array(values, "values", min_ndim=2)  # (n, d_v)
        if self.keys.shape[1] != 2:
            raise ValueError(f"keys must be 2-D points of shape (n, 2) to be drawn, got shape {self.keys.shape}")
        if len(labels) != len(self.keys) or len(self.values_) != len(self.keys):
            raise ValueError(f"keys, values and labels must have one entry per key; got {len(self.keys)} keys, "
                             f"{len(self.values_)} values and {len(labels)} labels")
        self.labels = list(labels)
        self.queries = {name: as_float_array(q, f"queries[{name!r}]") for name, q in queries.items()}
        self.feature_names = feature_names
        self.value_names = list(value_names or [f"v[{j}]" for j in range(self.values_.shape[1])])
        self.bandwidth = bandwidth
        controls = {
            "query": widgets.Dropdown(options=list(self.queries), description="query q"),
            "temperature": temperature_slider(temperature),
        }
        super().__init__(controls, interactive=interactive)

    def compute(self, query: str, temperature: float):
        """(scores alpha, weights lambda, output sum_i lambda_i v_i) for a named query."""
        alpha = gaussian_score(self.queries[query][None, :], self.keys, self.bandwidth)[0]  # (n,)
        lam = softmax(alpha, temperature)  # (n,)
        return alpha, lam, lam @ self.values_  # (n,) @ (n, d_v) -> (d_v,)

    def _build(self) -> list:
        fig = self.figure
        self.ax_keys, self.ax_scores, self.ax_weights, self.ax_out = fig.subplots(
            1, 4, gridspec_kw={"width_ratios": [1.1, 1, 1, 1.1]})
        colors = [CYCLE[i % len(CYCLE)] for i in range(len(self.labels))]
        ax = self.ax_keys
        ax.scatter(self.keys[:, 0], self.keys[:, 1], s=90, c=colors, zorder=3)
        for label, (x, y) in zip(self.labels, self.keys, strict=True):
            ax.annotate(label, (x, y), xytext=(6, 4), textcoords="offset points")
        (self.query_marker,) = ax.plot([], [], marker="*", ms=16, color=COLORS["black"], ls="none", label="query q")
        everything = np.vstack([self.keys, *self.queries.values()])
        pad = 0.15 * np.ptp(everything, axis=0) + 0.5
        ax.set_xlim(everything[:, 0].min() - pad[0], everything[:, 0].max() + 2 * pad[0])
        ax.set_ylim(everything[:, 1].min() - pad[1], everything[:, 1].max() + pad[1])
        ax.set_xlabel(self.feature_names[0])
        ax.set_ylabel(self.feature_names[1])
        ax.set_title("keys $k_i$ and query $q$")
        ax.legend(loc="lower right")

        all_scores = np.concatenate([self.compute(name, 1.0)[0] for name in self.queries])
        self.score_bars = _bars(self.ax_scores, self.labels, np.zeros(len(self.labels)), colors)
        self.ax_scores.set_ylim(all_scores.min() * 1.1 - 0.1, 0.5)
        self.ax_scores.set_ylabel(r"score $\alpha_i = -\|q-k_i\|^2/2h^2$")
        self.ax_scores.set_title("1. score")

        self.weight_bars = _bars(self.ax_weights, self.labels, np.zeros(len(self.labels)), colors)
        self.weight_texts = [self.ax_weights.text(i, 0, "", ha="center", va="bottom") for i in range(len(self.labels))]
        self.ax_weights.set_ylim(0, 1.15)
        self.ax_weights.set_ylabel(r"weight $\lambda_i$")
        self.weights_title = self.ax_weights.set_title("")

        self.out_bars = _bars(self.ax_out, self.value_names, np.zeros(len(self.value_names)), [COLORS["green"]])
        (self.lookup_marks,) = self.ax_out.plot([], [], ls="none", marker="_", ms=28, mew=3, color=COLORS["black"],
                                                label="value of the nearest key")
        self.ax_out.set_ylim(0, self.values_.max() * 1.15)
        self.ax_out.set_ylabel(r"output $\sum_i \lambda_i v_i$")
        self.ax_out.set_title("3. weighted average of values")
        self.ax_out.legend(loc="upper right")
        return [self.query_marker, *self.score_bars, *self.weight_bars, *self.weight_texts, self.weights_title,
                *self.out_bars, self.lookup_marks]

    def update(self):
        query, temperature = self.controls["query"].value, self.controls["temperature"].value
        alpha, lam, out = self.compute(query, temperature)
        q = self.queries[query]
        self.query_marker.set_data([q[0]], [q[1]])
        _set_heights(self.score_bars, alpha)
        _set_heights(self.weight_bars, lam)
        for text, weight, i in zip(self.weight_texts, lam, range(len(lam)), strict=True):
            text.set_position((i, weight + 0.02))
            text.set_text(f"{weight:.2f}")
        self.weights_title.set_text(f"2. normalise: softmax at T = {_temperature_label(temperature)}")
        _set_heights(self.out_bars, out)
        nearest = int(np.argmax(alpha))
        self.lookup_marks.set_data(np.arange(len(out)), self.values_[nearest])


def lookup_small_multiples(keys, values, labels, query, temperatures=(0.0, 0.3, 1.0, 3.0, np.inf), *, bandwidth=1.0):
    """Static twin of :class:`LookupExplorer`: the weights for one query at several temperatures."""
    keys = as_float_array(keys, "keys", min_ndim=2)
    alpha = gaussian_score(as_float_array(query, "query")[None, :], keys, bandwidth)[0]
    fig = Figure(figsize=(2.6 * len(temperatures), 2.8), layout="constrained")
    axes = fig.subplots(1, len(temperatures), sharey=True)
    colors = [CYCLE[i % len(CYCLE)] for i in range(len(labels))]
    for ax, t in zip(axes, temperatures, strict=True):
        _bars(ax, labels, softmax(alpha, t), colors)
        ax.set_title(f"T = {_temperature_label(t)}")
        ax.set_ylim(0, 1.05)
    axes[0].set_ylabel(r"weight $\lambda_i$")
    return fig


# --- notebook 02: from hard to soft --------------------------------------------------------------------

class TemperatureExplorer(Explorer):
    """The temperature T takes attention from hard (T = 0) through soft to uniform (T = inf).

    Panels: the scores; the weights under the chosen normaliser; their entropy against T; and the output
    point sum_i lambda_i v_i in a 2-D value space, travelling from the argmax value to the mean, with the
    hard variants (argmax, top-k mean, one sample, mean of several samples) marked for comparison.
    Samples use fixed uniform numbers (inverse-CDF sampling), so moving T moves them smoothly.
    """

    figsize = (11.0, 3.6)

    def __init__(self, scores, values, labels=None, *, k=2, n_samples=8, seed=0, temperature=1.0,
                 normaliser="softmax", interactive=True):
        self.alpha = as_float_array(scores, "scores", min_ndim=1)
        self.values_ = as_float_array(values, "values", min_ndim=2)
        if self.alpha.ndim != 1 or self.values_.shape != (self.alpha.size, 2):
            raise ValueError(f"scores must have shape (n,) and values shape (n, 2); got {self.alpha.shape} and "
                             f"{self.values_.shape}")
        if normaliser not in NORMALISERS:
            raise ValueError(f"normaliser must be one of {sorted(NORMALISERS)}, got {normaliser!r}")
        n = self.alpha.size
        self.labels = list(labels or [f"$k_{i + 1}$" for i in range(n)])
        self.k = k
        self.uniforms = np.random.default_rng(seed).random(n_samples)  # fixed randomness for the samples
        self.curve_t = 10.0 ** np.linspace(-2, 2, 161)
        controls = {
            "temperature": temperature_slider(temperature),
            "normaliser": widgets.ToggleButtons(options=list(NORMALISERS), value=normaliser,
                                                description="normaliser", style={"button_width": "100px"}),
        }
        super().__init__(controls, interactive=interactive)

    def weights(self, temperature, normaliser="softmax"):
        return NORMALISERS[normaliser](self.alpha, temperature)

    def samples(self, temperature):
        """Indices of the n_samples draws from softmax(alpha / T), by inverse CDF with fixed uniforms."""
        cdf = np.cumsum(softmax(self.alpha, temperature))
        return np.minimum(np.searchsorted(cdf, self.uniforms * cdf[-1], side="right"), self.alpha.size - 1)

    def _build(self) -> list:
        self.ax_scores, self.ax_weights, self.ax_entropy, self.ax_values = self.figure.subplots(
            1, 4, gridspec_kw={"width_ratios": [0.8, 0.9, 1.0, 1.3]})
        n = self.alpha.size
        top = int(np.argmax(self.alpha))
        colors = [COLORS["vermillion"] if i == top else COLORS["grey"] for i in range(n)]
        _bars(self.ax_scores, self.labels, self.alpha, colors)
        self.ax_scores.set_ylabel(r"score $\alpha_i$")
        self.ax_scores.set_title("scores (argmax in red)")

        self.weight_bars = _bars(self.ax_weights, self.labels, np.zeros(n))
        (self.topk_marks,) = self.ax_weights.plot([], [], ls="none", marker="_", ms=18, mew=3,
                                                  color=COLORS["vermillion"], label=f"top-{self.k}")
        self.ax_weights.set_ylim(0, 1.05)
        self.ax_weights.set_ylabel(r"weight $\lambda_i$")
        self.ax_weights.legend(loc="upper left")
        self.weights_title = self.ax_weights.set_title("")

        ax = self.ax_entropy
        (self.entropy_curve,) = ax.plot([], [], color=COLORS["blue"])
        (self.entropy_ends,) = ax.plot([], [], ls="none", marker="o", color=COLORS["blue"], mfc="white")
        (self.entropy_now,) = ax.plot([], [], ls="none", marker="o", ms=10, color=COLORS["vermillion"])
        ax.axhline(np.log(n), color=COLORS["grey"], ls="--", lw=1)
        ax.text(-2.9, np.log(n) * 0.93, f"log n = {np.log(n):.2f} (uniform)", va="top", fontsize=9)
        ax.set_ylim(-0.05, np.log(n) * 1.08)
        ax.set_ylabel(r"entropy $H(\lambda)$ (nats)")
        _temperature_axis(ax)
        ax.set_title("how spread the weights are")

        ax = self.ax_values
        v = self.values_
        ax.scatter(v[:, 0], v[:, 1], s=50, color=COLORS["grey"], zorder=2)
        for label, (x, y) in zip(self.labels, v, strict=True):
            ax.annotate(label, (x, y), xytext=(5, 4), textcoords="offset points")
        (self.path,) = ax.plot([], [], color=COLORS["blue"], lw=1.5, alpha=0.6, label="output as T varies")
        ax.plot(*v[top], ls="none", marker="s", ms=11, mfc="none", mew=2, color=COLORS["vermillion"],
                label="argmax value")
        topk_mean = hard_attention(self.alpha, self.k) @ v
        ax.plot(*topk_mean, ls="none", marker="^", ms=10, mfc="none", mew=2, color=COLORS["orange"],
                label=f"top-{self.k} mean")
        ax.plot(*v.mean(axis=0), ls="none", marker="D", ms=9, mfc="none", mew=2, color=COLORS["green"],
                label="mean (uniform)")
        (self.sample_one,) = ax.plot([], [], ls="none", marker="x", ms=10, mew=2, color=COLORS["purple"],
                                     label="one sample")
        (self.sample_mean,) = ax.plot([], [], ls="none", marker="P", ms=10, color=COLORS["purple"],
                                      label=f"mean of {self.uniforms.size} samples")
        (self.output,) = ax.plot([], [], ls="none", marker="o", ms=12, color=COLORS["blue"],
                                 label=r"soft output $\sum_i\lambda_i v_i$")
        pad = 0.12 * np.ptp(v, axis=0)
        ax.set_ylim(v[:, 1].min() - pad[1], v[:, 1].max() + pad[1])
        ax.set_xlabel("value coordinate 1")
        ax.set_ylabel("value coordinate 2")
        ax.set_title("the output in value space")
        ax.set_xlim(v[:, 0].min() - pad[0], v[:, 0].max() + 3.2 * pad[0] + 0.4 * np.ptp(v[:, 0]))  # legend room
        ax.legend(loc="lower right", fontsize=7.5, framealpha=0.85, handlelength=1.2, borderpad=0.3,
                  labelspacing=0.25)
        self._normaliser_drawn = None
        return [*self.weight_bars, self.weights_title, self.entropy_curve, self.entropy_ends, self.entropy_now,
                self.path, self.sample_one, self.sample_mean, self.output]

    def _draw_normaliser_curves(self, normaliser):
        """The entropy curve and the output path depend on the normaliser only, not on T: drawn once each."""
        weights = np.array([self.weights(t, normaliser) for t in self.curve_t])  # (n_t, n)
        self.entropy_curve.set_data(np.log10(self.curve_t), entropy(weights))
        ends = [self.weights(0.0, normaliser), self.weights(np.inf, normaliser)]
        self.entropy_ends.set_data([-2.8, 2.8], entropy(np.array(ends)))
        path = np.vstack([ends[0], weights, ends[1]]) @ self.values_  # (n_t + 2, 2)
        self.path.set_data(path[:, 0], path[:, 1])
        self._normaliser_drawn = normaliser

    def update(self):
        temperature, normaliser = self.controls["temperature"].value, self.controls["normaliser"].value
        if normaliser != self._normaliser_drawn:
            self._draw_normaliser_curves(normaliser)
        lam = self.weights(temperature, normaliser)
        _set_heights(self.weight_bars, lam)
        topk = hard_attention(self.alpha, self.k)
        chosen = np.flatnonzero(topk)
        self.topk_marks.set_data(chosen, topk[chosen])
        self.weights_title.set_text(f"{normaliser}, T = {_temperature_label(temperature)}")
        self.entropy_now.set_data([_temperature_axis_position(temperature)], [entropy(lam)])
        out = lam @ self.values_
        self.output.set_data([out[0]], [out[1]])
        drawn = self.values_[self.samples(temperature)]  # (n_samples, 2)
        self.sample_one.set_data([drawn[0, 0]], [drawn[0, 1]])
        self.sample_mean.set_data([drawn[:, 0].mean()], [drawn[:, 1].mean()])


def temperature_small_multiples(scores, values, temperatures=(0.0, 0.3, 1.0, 3.0, np.inf), *, labels=None,
                                normaliser="softmax"):
    """Static twin of :class:`TemperatureExplorer`: weights (top row) and output point (bottom row) per T."""
    alpha = as_float_array(scores, "scores", min_ndim=1)
    v = as_float_array(values, "values", min_ndim=2)
    labels = list(labels or [f"$k_{i + 1}$" for i in range(alpha.size)])
    fig = Figure(figsize=(2.6 * len(temperatures), 5.2), layout="constrained")
    axes = fig.subplots(2, len(temperatures))
    for column, t in enumerate(temperatures):
        lam = NORMALISERS[normaliser](alpha, t)
        _bars(axes[0, column], labels, lam)
        axes[0, column].set_ylim(0, 1.05)
        axes[0, column].set_title(f"T = {_temperature_label(t)}")
        ax = axes[1, column]
        ax.scatter(v[:, 0], v[:, 1], s=30, color=COLORS["grey"])
        out = lam @ v
        ax.plot(*out, marker="o", ms=10, color=COLORS["blue"])
        ax.set_xlabel("value coordinate 1")
    axes[0, 0].set_ylabel(rf"{normaliser} weight $\lambda_i$")
    axes[1, 0].set_ylabel("value coordinate 2")
    return fig


class GumbelExplorer(Explorer):
    """Gumbel-softmax samples softmax((alpha + g) / T): one-hot as T -> 0, uniform as T -> inf.

    Left: a fixed set of Gumbel draws g (one per row), relaxed at the current T. Right: softmax(alpha),
    the frequency with which argmax(alpha + g) picks each key over many draws (the Gumbel-max trick:
    it matches softmax at every T), and the mean of the relaxed samples (which drifts to uniform as T grows).
    """

    figsize = (11.0, 3.4)

    def __init__(self, scores, labels=None, *, n_rows=10, n_draws=4000, seed=0, temperature=1.0, interactive=True):
        self.alpha = as_float_array(scores, "scores", min_ndim=1)
        n = self.alpha.size
        self.labels = list(labels or [f"$k_{i + 1}$" for i in range(n)])
        self.seed = seed
        self.rows = np.broadcast_to(self.alpha, (n_rows, n))
        self.many = np.broadcast_to(self.alpha, (n_draws, n))
        self.argmax_frequency = gumbel_softmax(self.many, hard=True, rng=seed).mean(axis=0)
        controls = {"temperature": temperature_slider(temperature)}
        super().__init__(controls, interactive=interactive)

    def relaxed(self, temperature):
        """(n_rows, n) relaxed samples; the same Gumbel noise at every T (same seed), so rows slide smoothly."""
        return gumbel_softmax(self.rows, temperature, rng=self.seed)

    def _build(self) -> list:
        self.ax_samples, self.ax_freq = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
        n = self.alpha.size
        ax = self.ax_samples
        self.image = ax.imshow(np.zeros(self.rows.shape), vmin=0, vmax=1, cmap=CMAP, aspect="auto")
        ax.set_xticks(np.arange(n), self.labels)
        ax.set_ylabel("Gumbel draw")
        ax.set_xlabel("key")
        ax.grid(False)
        self.figure.colorbar(self.image, ax=ax, label=r"weight $\lambda_i$")
        self.samples_title = ax.set_title("")
        ax = self.ax_freq
        positions = np.arange(n)
        ax.bar(positions, softmax(self.alpha), width=0.7, color=COLORS["sky"], label=r"softmax($\alpha$)")
        ax.plot(positions, self.argmax_frequency, ls="none", marker="_", ms=22, mew=3, color=COLORS["black"],
                label=f"argmax frequency ({self.many.shape[0]} draws)")
        (self.mean_marks,) = ax.plot([], [], ls="none", marker="o", color=COLORS["vermillion"],
                                     label="mean relaxed sample at T")
        ax.set_xticks(positions, self.labels)
        ax.set_ylim(0, 1.0)
        ax.set_ylabel("probability / weight")
        ax.legend(loc="upper left", fontsize=8.5)
        ax.set_title("hard samples follow softmax")
        return [self.image, self.samples_title, self.mean_marks]

    def update(self):
        temperature = self.controls["temperature"].value
        self.image.set_data(self.relaxed(temperature))
        self.samples_title.set_text(f"relaxed samples, T = {_temperature_label(temperature)}")
        mean = gumbel_softmax(self.many, temperature, rng=self.seed).mean(axis=0)
        self.mean_marks.set_data(np.arange(self.alpha.size), mean)


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
        ax.set_title(f"T = {_temperature_label(t)}")
        ax.grid(False)
    axes[0].set_ylabel("Gumbel draw")
    fig.colorbar(image, ax=list(axes), label=r"weight $\lambda_i$")
    return fig
