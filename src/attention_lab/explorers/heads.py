"""Head explorer (notebook 08): the self-attention weights of every layer and head of a Transformer.

Choose a layer, a head and an example. Left: that head's weights on that example, queries (positions
that read) down, keys (positions that are read) across, each labelled with its token. Right: the same
head averaged over all examples given, labelled by position: what the head does typically, not just here.
Tokens are text artists, so switching examples updates them in place like every other artist.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import check_count
from ..i18n import _
from ..plots import CMAP, FONT_FAMILY, in_language_fonts, token_heatmap
from .base import Explorer

__all__ = ["HeadExplorer", "heads_small_multiples", "plot_head"]


def _check_weights(weights, tokens):
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 5 or weights.shape[-1] != weights.shape[-2] or weights.shape[0] == 0:
        raise ValueError(f"weights must have shape (examples, layers, heads, n, n), got {weights.shape}")
    n = weights.shape[-1]
    if len(tokens) != weights.shape[0] or any(len(t) != n for t in tokens):
        raise ValueError(
            f"tokens must hold one list of {n} tokens per example ({weights.shape[0]}), got "
            f"{len(tokens)} lists of lengths {sorted({len(t) for t in tokens})}"
        )
    return weights


def plot_head(ax, tokens, weights, *, colorbar=True, fontsize=9):
    """A static heatmap of one head on one example: queries down, keys across, both labelled with tokens."""
    tokens = [str(t) for t in tokens]
    return token_heatmap(
        ax,
        tokens,
        tokens,
        weights,
        xlabel=_("key (token read)"),
        ylabel=_("query (token reading)"),
        colorbar_label=_(r"weight $\lambda_{ij}$") if colorbar else None,
        aspect="equal",
        fontsize=fontsize,
    )


@in_language_fonts
def heads_small_multiples(weights, tokens, *, example=0):
    """Static twin of :class:`HeadExplorer`: every layer (rows) and head (columns) on one example."""
    weights = _check_weights(weights, tokens)
    n_layers, n_heads = weights.shape[1:3]
    example = check_count(example, "example", 0, weights.shape[0] - 1)
    fig = Figure(figsize=(2.5 * n_heads + 1.0, 2.5 * n_layers + 0.4), layout="constrained")
    axes = np.atleast_2d(fig.subplots(n_layers, n_heads, squeeze=False))
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer, head]
            image = plot_head(ax, tokens[example], weights[example, layer, head], colorbar=False, fontsize=7.5)
            ax.set_title(_("layer {layer}, head {head}").format(layer=layer + 1, head=head + 1), fontsize=9.5)
            if layer < n_layers - 1:
                ax.set_xlabel("")
            if head > 0:
                ax.set_ylabel("")
    fig.colorbar(image, ax=list(axes.ravel()), label=_(r"weight $\lambda_{ij}$"), shrink=0.85)
    return fig


def _numbered(count: int) -> list:
    """Slider options shown from 1 (as in the titles and the text) with values from 0 (as in the arrays)."""
    return [(str(i + 1), i) for i in range(count)]


class HeadExplorer(Explorer):
    """``weights`` (examples, layers, heads, n, n) and ``tokens[e]``, the n tokens of example e."""

    figsize = (10.5, 4.4)
    static_controls = ("example",)

    notebook = "08"
    benched = "head"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 08's 2 layers x 4 heads over three reversals, random weights;
        ``arguments`` go to the constructor."""
        tokens = [["<bos>", *"31415926"], ["<bos>", *"27182818"], ["<bos>", *"16180339"]]
        rng = np.random.default_rng(0)  # random weights: a trained model's draw the same
        return cls(rng.dirichlet(np.ones(9), size=(3, 2, 4, 9)), tokens, **arguments)

    def __init__(self, weights, tokens, *, labels=None, layer=0, head=0, example=0, interactive=True):
        self.weights = _check_weights(weights, tokens)
        self.tokens = [[str(t) for t in example_tokens] for example_tokens in tokens]
        self.mean = self.weights.mean(axis=0)  # (layers, heads, n, n)
        n_examples, n_layers, n_heads, self.n = self.weights.shape[:4]
        labels = labels or [" ".join(t) for t in self.tokens]
        slider = {"continuous_update": True, "layout": widgets.Layout(width="260px")}
        controls = {
            "layer": widgets.SelectionSlider(options=_numbered(n_layers), description=_("layer"), **slider),
            "head": widgets.SelectionSlider(options=_numbered(n_heads), description=_("head"), **slider),
            "example": widgets.Dropdown(
                options=[(label, i) for i, label in enumerate(labels)],
                description=_("example"),
                layout=widgets.Layout(width="300px"),
            ),
        }
        super().__init__(controls, interactive=interactive, values={"layer": layer, "head": head, "example": example})

    def _build(self) -> list:
        n = self.n
        self.ax_example, self.ax_mean = self.figure.subplots(1, 2)
        ax = self.ax_example
        self.image = ax.imshow(np.zeros((n, n)), cmap=CMAP, vmin=0, vmax=1, aspect="equal", interpolation="nearest")
        self.x_tokens = [
            ax.text(j, n - 0.35, "", ha="center", va="top", fontsize=10, fontfamily=FONT_FAMILY) for j in range(n)
        ]
        self.y_tokens = [
            ax.text(-0.75, i, "", ha="right", va="center", fontsize=10, fontfamily=FONT_FAMILY) for i in range(n)
        ]
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(_("key: the token read"), labelpad=18)
        ax.set_ylabel(_("query: the token reading"), labelpad=16)
        ax.grid(False)
        self.example_title = ax.set_title("")

        ax = self.ax_mean
        self.mean_image = ax.imshow(
            np.zeros((n, n)), cmap=CMAP, vmin=0, vmax=1, aspect="equal", interpolation="nearest"
        )
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xlabel(_("key position j"))
        ax.set_ylabel(_("query position i"))
        ax.grid(False)
        self.figure.colorbar(self.mean_image, ax=[self.ax_example, ax], label=_(r"weight $\lambda_{ij}$"), shrink=0.9)
        self.mean_title = ax.set_title("")
        # The tokens change only with the example (a static control: one full redraw); a layer or head step
        # redraws the two heatmaps and the titles.
        return [self.image, self.example_title, self.mean_image, self.mean_title]

    def update(self, layer, head, example):
        e = example
        weights = self.weights[e, layer, head]
        self.image.set_data(weights)
        self.mean_image.set_data(self.mean[layer, head])
        for j, token in enumerate(self.tokens[e]):
            self.x_tokens[j].set_text(token)
            self.y_tokens[j].set_text(token)
        top = weights.max(axis=1).mean()
        self.example_title.set_text(
            _("layer {layer}, head {head}: mean top weight {top:.2f}").format(layer=layer + 1, head=head + 1, top=top)
        )
        self.mean_title.set_text(_("the same head, mean over {n} examples").format(n=self.weights.shape[0]))
