"""Alignment explorer (notebook 06): which input tokens each output step of a seq2seq model attends to.

Choose an example and an output step: the left panel shows that step's attention over the input tokens,
the right panel the whole alignment (output steps x input tokens) with the chosen step outlined. Tokens
are drawn as text artists, so switching examples updates them in place like every other artist.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .._checks import as_float_array, check_labels
from ..i18n import _
from ..plots import CMAP, COLORS, FONT_FAMILY, in_language_fonts, token_heatmap
from .base import Explorer

__all__ = ["AlignmentExplorer", "plot_alignment", "alignment_small_multiples"]


def _tokens(value, name: str) -> list:
    if (
        isinstance(value, str | bytes)
        or not hasattr(value, "__len__")
        or not all(isinstance(t, str) for t in value)
        or len(value) == 0
    ):
        raise ValueError(f"{name} must be a non-empty list of token strings, got {value!r:.60}")
    return list(value)


def _check_examples(sources, outputs, alignments):
    """Lists of token lists and weight arrays; return the alignments as float arrays."""
    for name, value in (("sources", sources), ("outputs", outputs), ("alignments", alignments)):
        if isinstance(value, str | bytes | dict) or not hasattr(value, "__len__"):
            raise ValueError(f"{name} must be a list with one entry per example, got {type(value).__name__}")
    if not (len(sources) == len(outputs) == len(alignments)) or not len(sources):
        raise ValueError(
            f"sources, outputs and alignments need one entry per example, got {len(sources)}, "
            f"{len(outputs)} and {len(alignments)}"
        )
    checked = []
    for i, (src, out, a) in enumerate(zip(sources, outputs, alignments, strict=True)):
        src, out = _tokens(src, f"sources[{i}]"), _tokens(out, f"outputs[{i}]")
        a = as_float_array(a, f"alignments[{i}]")
        if a.shape != (len(out), len(src)):
            raise ValueError(
                f"alignments[{i}] must have shape (output tokens, input tokens) = ({len(out)}, "
                f"{len(src)}), got {a.shape}"
            )
        if np.any(a < 0) or np.any(a > 1):
            raise ValueError(
                f"alignments[{i}] must hold attention weights in [0, 1], got values from {a.min():.3g} to {a.max():.3g}"
            )
        checked.append(a)
    return checked


def _visible(token):
    return "␣" if token == " " else token


def plot_alignment(ax, source_tokens, output_tokens, alignment, *, colorbar=True):
    """A static alignment heatmap: output tokens down, input tokens across, weight as colour."""
    return token_heatmap(
        ax,
        [_visible(t) for t in source_tokens],
        output_tokens,
        alignment,
        xlabel=_("input token"),
        ylabel=_("output token"),
        colorbar_label=_(r"weight $\lambda_{tj}$") if colorbar else None,
    )


@in_language_fonts
def alignment_small_multiples(sources, outputs, alignments, *, columns=2):
    """Static twin of :class:`AlignmentExplorer`: the alignment heatmaps of several examples."""
    _check_examples(sources, outputs, alignments)
    rows = int(np.ceil(len(sources) / columns))
    fig = Figure(figsize=(5.4 * columns, 2.9 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, columns)).ravel()
    for ax, src, out, a in zip(axes, sources, outputs, alignments, strict=False):
        image = plot_alignment(ax, src, out, a, colorbar=False)
    for ax in axes[len(sources) :]:
        ax.set_visible(False)
    fig.colorbar(image, ax=list(axes), label=_(r"weight $\lambda_{tj}$"), shrink=0.8)
    return fig


class AlignmentExplorer(Explorer):
    """``sources[i]`` and ``outputs[i]`` are token lists, ``alignments[i]`` an array (len(output), len(source))."""

    figsize = (11.0, 3.9)
    static_controls = ("example",)

    notebook = "06"
    benched = "step"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 06's two dates (29 input and 11 output tokens), random alignments;
        ``arguments`` go to the constructor."""
        sources = [list("Saturday, 20 September 1958") + ["<eos>"], list("1964年6月20日") + ["<eos>"]]
        outputs = [list("1958-09-20") + ["<eos>"], list("1964-06-20") + ["<eos>"]]
        rng = np.random.default_rng(0)  # random alignments: a trained model's draw the same
        alignments = [rng.dirichlet(np.ones(len(s)), size=11) for s in sources]
        return cls(sources, outputs, alignments, **arguments)

    def __init__(self, sources, outputs, alignments, *, labels=None, example=0, step=0, interactive=True):
        self.alignments = _check_examples(sources, outputs, alignments)
        self.sources = [list(s) for s in sources]
        self.outputs = [list(o) for o in outputs]
        self.n_in = max(len(s) for s in self.sources)
        self.n_out = max(len(o) for o in self.outputs)
        labels = check_labels(labels, len(self.sources)) or ["".join(s) for s in self.sources]
        controls = {
            "example": widgets.Dropdown(
                options=[(label, i) for i, label in enumerate(labels)],
                description=_("example"),
                layout=widgets.Layout(width="380px"),
            ),
            "step": widgets.IntSlider(
                min=0,
                max=self.n_out - 1,
                description=_("output step t"),
                continuous_update=True,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="420px"),
            ),
        }
        super().__init__(controls, interactive=interactive, values={"example": example, "step": step})

    def _build(self) -> list:
        self.ax_step, self.ax_map = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.1]})
        ax = self.ax_step
        self.bars = ax.bar(np.arange(self.n_in), np.zeros(self.n_in), width=0.8, color=COLORS["blue"])
        below = ax.get_xaxis_transform()  # x in data units, y in axes units: just under the axis
        self.step_tokens = [
            ax.text(j, -0.03, "", ha="center", va="top", fontsize=10, transform=below, fontfamily=FONT_FAMILY)
            for j in range(self.n_in)
        ]
        ax.set_xlim(-0.7, self.n_in - 0.3)
        ax.set_ylim(0, 1.05)
        ax.set_xticks([])
        ax.set_ylabel(_(r"weight $\lambda_{tj}$ on input token $j$"))
        ax.set_xlabel(_("input tokens"), labelpad=20)
        ax.grid(axis="x", visible=False)
        self.step_title = ax.set_title("", fontfamily=FONT_FAMILY)

        ax = self.ax_map
        self.image = ax.imshow(np.zeros((self.n_out, self.n_in)), cmap=CMAP, vmin=0, vmax=1, aspect="auto")
        self.figure.colorbar(self.image, ax=ax, label=_(r"weight $\lambda_{tj}$"))
        self.map_x = [
            ax.text(j, self.n_out - 0.3, "", ha="center", va="top", fontsize=8.5, fontfamily=FONT_FAMILY)
            for j in range(self.n_in)
        ]
        self.map_y = [
            ax.text(-0.8, t, "", ha="right", va="center", fontsize=9, fontfamily=FONT_FAMILY) for t in range(self.n_out)
        ]
        ax.set_xlim(-0.5, self.n_in - 0.5)
        ax.set_ylim(self.n_out - 0.5, -0.5)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(_("input token j"), labelpad=20)
        ax.set_ylabel(_("output step t"), labelpad=18)
        ax.grid(False)
        self.row_box = Rectangle((-0.5, -0.5), self.n_in, 1, fill=False, ec=COLORS["vermillion"], lw=2.5)
        ax.add_patch(self.row_box)
        self.map_title = ax.set_title("")
        # The tokens and the heatmap are not animated: they change only with the example (a static control,
        # one full redraw); a step of the slider redraws just the bars, the outline and the title.
        return [*self.bars, self.step_title, self.row_box]

    def update(self, example, step):
        i = example
        source, output, alignment = self.sources[i], self.outputs[i], self.alignments[i]
        t = min(step, len(output) - 1)
        padded = np.full((self.n_out, self.n_in), np.nan)
        padded[: alignment.shape[0], : alignment.shape[1]] = alignment
        self.image.set_data(np.ma.masked_invalid(padded))
        row = np.zeros(self.n_in)
        row[: alignment.shape[1]] = alignment[t]
        top = int(np.argmax(row))
        for j, (bar, height) in enumerate(zip(self.bars, row, strict=True)):
            bar.set_height(height)
            bar.set_color(COLORS["vermillion"] if j == top else COLORS["blue"])
        for j in range(self.n_in):
            token = _visible(source[j]) if j < len(source) else ""
            for text, size in ((self.step_tokens[j], 10), (self.map_x[j], 8.5)):
                text.set_text(token)
                text.set_fontsize(size if len(token) <= 1 else 6.5)
                text.set_rotation(0 if len(token) <= 1 else 90)  # "<eos>" upright fits one column
        for k in range(self.n_out):
            self.map_y[k].set_text(_visible(output[k]) if k < len(output) else "")
        self.row_box.set_y(t - 0.5)
        self.row_box.set_width(len(source))  # the example's own input tokens, not the longest example's padding
        self.step_title.set_text(
            _("step t = {t}: output '{output}' looks at '{source}'").format(
                t=t, output=_visible(output[t]), source=_visible(source[top])
            )
        )
        self.map_title.set_text(_("alignment: {output}").format(output="".join(output).replace("<eos>", "")))
