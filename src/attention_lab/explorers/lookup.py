"""Notebook 01: attention as a soft lookup: choose a query and a temperature, watch score, weight, output."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import as_float_array, check_labels
from ..examples import display_name, fruit_boxes
from ..i18n import _
from ..normalisers import softmax
from ..plots import COLORS, CYCLE, in_language_fonts
from ..scores import gaussian_score
from .base import Explorer
from .controls import at_each_temperature, temperature_label, temperature_slider
from .weights_figure import bar_chart, set_heights

__all__ = ["LookupExplorer", "lookup_small_multiples"]


class LookupExplorer(Explorer):
    """Choose a query and a temperature; see scores, weights and the output sum_i lambda_i v_i.

    Scores are alpha_i = -||q - k_i||^2 / (2 h^2): the closer a key to the query, the higher its score.
    """

    figsize = (11.0, 3.3)

    notebook = "01"
    benched = "temperature"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 01's fruit boxes; ``arguments`` go to the constructor."""
        boxes = fruit_boxes()
        arguments = {"feature_names": boxes.feature_names, "value_names": boxes.value_names, **arguments}
        return cls(boxes.keys, boxes.values, boxes.labels, boxes.queries, **arguments)

    def __init__(
        self,
        keys,
        values,
        labels,
        queries: dict,
        *,
        feature_names=None,
        value_names=None,
        bandwidth=1.0,
        temperature=1.0,
        interactive=True,
    ):
        self.keys = as_float_array(keys, "keys", min_ndim=2)  # (n, 2)
        self.values = as_float_array(values, "values", min_ndim=2)  # (n, d_v)
        if self.keys.ndim != 2 or self.keys.shape[1] != 2 or len(self.keys) == 0:
            raise ValueError(f"keys must be 2-D points of shape (n, 2) to be drawn, got shape {self.keys.shape}")
        if self.values.ndim != 2 or self.values.shape[1] == 0:
            raise ValueError(f"values must have shape (n, d_v) with d_v >= 1, got shape {self.values.shape}")
        if (
            isinstance(labels, str)
            or not hasattr(labels, "__len__")
            or len(labels) != len(self.keys)
            or len(self.values) != len(self.keys)
        ):
            raise ValueError(
                f"keys, values and labels must have one entry per key; got {len(self.keys)} keys, "
                f"{len(self.values)} values and labels {labels!r:.60}"
            )
        self.labels = check_labels(labels, len(self.keys))
        if not isinstance(queries, dict) or not queries:
            raise ValueError(f"queries must be a non-empty dict from names to points (x, y), got {queries!r:.60}")
        self.queries = {}
        for name, q in queries.items():
            if not isinstance(name, str):
                raise ValueError(f"queries must be named by strings, got the name {name!r}")
            self.queries[name] = as_float_array(q, f"queries[{name!r}]")
            if self.queries[name].shape != (2,):
                raise ValueError(f"queries[{name!r}] must be one point (x, y), got shape {self.queries[name].shape}")
        self.feature_names = check_labels(feature_names, 2, "feature_names") or [_("feature 1"), _("feature 2")]
        self.value_names = check_labels(value_names, self.values.shape[1], "value_names") or [
            f"v[{j}]" for j in range(self.values.shape[1])
        ]
        # Everything a step shows, computed once: the scores of each query (gaussian_score checks h), and
        # its weights at each position of the temperature slider (a step looks them up).
        points = np.stack(list(self.queries.values()))  # (n_queries, 2)
        scores = gaussian_score(points, self.keys, bandwidth)  # (n_queries, n)
        self.bandwidth = float(bandwidth)
        self.scores = dict(zip(self.queries, scores, strict=True))
        self.weights_at = {
            name: at_each_temperature(lambda t, alpha=alpha: softmax(alpha, t)) for name, alpha in self.scores.items()
        }
        controls = {
            "query": widgets.Dropdown(  # shown in the reader's language, stored by its name ("cherry")
                options=[(display_name(name), name) for name in self.queries], description=_("query q")
            ),
            "temperature": temperature_slider(),
        }
        super().__init__(controls, interactive=interactive, values={"temperature": temperature})

    def compute(self, query: str, temperature: float):
        """(scores alpha, weights lambda, output sum_i lambda_i v_i) for a named query and a slider position."""
        alpha, lam = self.scores[query], self.weights_at[query][temperature]  # (n,), (n,)
        return alpha, lam, lam @ self.values  # (n,) @ (n, d_v) -> (d_v,)

    def _build(self) -> list:
        fig = self.figure
        self.ax_keys, self.ax_scores, self.ax_weights, self.ax_out = fig.subplots(
            1, 4, gridspec_kw={"width_ratios": [1.1, 1, 1, 1.1]}
        )
        colors = [CYCLE[i % len(CYCLE)] for i in range(len(self.labels))]
        ax = self.ax_keys
        ax.scatter(self.keys[:, 0], self.keys[:, 1], s=90, c=colors, zorder=3)
        shown = [display_name(label) for label in self.labels]
        for label, (x, y) in zip(shown, self.keys, strict=True):
            ax.annotate(label, (x, y), xytext=(6, 4), textcoords="offset points")
        (self.query_marker,) = ax.plot([], [], marker="*", ms=16, color=COLORS["black"], ls="none", label=_("query q"))
        everything = np.vstack([self.keys, *self.queries.values()])
        pad = 0.15 * np.ptp(everything, axis=0) + 0.5
        ax.set_xlim(everything[:, 0].min() - pad[0], everything[:, 0].max() + 2 * pad[0])
        ax.set_ylim(everything[:, 1].min() - pad[1], everything[:, 1].max() + pad[1])
        ax.set_xlabel(display_name(self.feature_names[0]))
        ax.set_ylabel(display_name(self.feature_names[1]))
        ax.set_title(_("keys $k_i$ and query $q$"))
        ax.legend(loc="lower right")

        all_scores = np.concatenate([self.compute(name, 1.0)[0] for name in self.queries])
        self.score_bars = bar_chart(self.ax_scores, shown, np.zeros(len(self.labels)), colors)
        self.ax_scores.set_ylim(all_scores.min() * 1.1 - 0.1, 0.5)
        self.ax_scores.set_ylabel(_(r"score $\alpha_i = -\|q-k_i\|^2/2h^2$"))
        self.ax_scores.set_title(_("1. score"))

        self.weight_bars = bar_chart(self.ax_weights, shown, np.zeros(len(self.labels)), colors)
        self.weight_texts = [self.ax_weights.text(i, 0, "", ha="center", va="bottom") for i in range(len(self.labels))]
        self.ax_weights.set_ylim(0, 1.15)
        self.ax_weights.set_ylabel(_(r"weight $\lambda_i$"))
        self.weights_title = self.ax_weights.set_title("")

        self.out_bars = bar_chart(
            self.ax_out,
            [_unit_below(display_name(name)) for name in self.value_names],  # side by side: each in its width
            np.zeros(len(self.value_names)),
            [COLORS["green"]],
        )
        (self.lookup_marks,) = self.ax_out.plot(
            [], [], ls="none", marker="_", ms=28, mew=3, color=COLORS["black"], label=_("value of the nearest key")
        )
        low, high = min(0.0, self.values.min()), max(0.0, self.values.max())
        pad = 0.15 * (high - low) or 1.0
        self.ax_out.set_ylim(low - (pad if low < 0 else 0), high + pad)
        self.ax_out.set_ylabel(_(r"output $\sum_i \lambda_i v_i$"))
        self.ax_out.set_title(_("3. average of the values"))
        self.ax_out.legend(loc="upper right")
        return [
            self.query_marker,
            *self.score_bars,
            *self.weight_bars,
            *self.weight_texts,
            self.weights_title,
            *self.out_bars,
            self.lookup_marks,
        ]

    def update(self, query, temperature):
        alpha, lam, out = self.compute(query, temperature)
        q = self.queries[query]
        self.query_marker.set_data([q[0]], [q[1]])
        set_heights(self.score_bars, alpha)
        set_heights(self.weight_bars, lam)
        for text, weight, i in zip(self.weight_texts, lam, range(len(lam)), strict=True):
            text.set_position((i, weight + 0.02))
            text.set_text(f"{weight:.2f}")
        self.weights_title.set_text(_("2. normalise: softmax at T = {T}").format(T=temperature_label(temperature)))
        set_heights(self.out_bars, out)
        nearest = int(np.argmax(alpha))
        self.lookup_marks.set_data(np.arange(len(out)), self.values[nearest])


@in_language_fonts
def lookup_small_multiples(keys, values, labels, query, temperatures=(0.0, 0.3, 1.0, 3.0, np.inf), *, bandwidth=1.0):
    """Static twin of :class:`LookupExplorer`: the weights for one query at several temperatures."""
    keys = as_float_array(keys, "keys", min_ndim=2)
    alpha = gaussian_score(as_float_array(query, "query")[None, :], keys, bandwidth)[0]
    fig = Figure(figsize=(2.6 * len(temperatures), 2.8), layout="constrained")
    axes = fig.subplots(1, len(temperatures), sharey=True)
    colors = [CYCLE[i % len(CYCLE)] for i in range(len(labels))]
    for ax, t in zip(axes, temperatures, strict=True):
        bar_chart(ax, [display_name(label) for label in labels], softmax(alpha, t), colors)
        ax.set_title(f"T = {temperature_label(t)}")
        ax.set_ylim(0, 1.05)
    axes[0].set_ylabel(_(r"weight $\lambda_i$"))
    return fig


def _unit_below(name: str) -> str:
    """``"vitamin C (mg)"`` -> ``"vitamin C\n(mg)"``: a value's unit on a line of its own, so that long names
    (in Chinese, the notebook's "维生素 C (mg)" beside "膳食纤维 (g)") fit under their bars without touching."""
    head, bracket, unit = name.rpartition(" (")
    return f"{head}\n({unit}" if bracket and head else name
