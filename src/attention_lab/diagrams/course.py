"""The diagram of the course itself: the map of notebooks 01-09 (notebook 00)."""

from __future__ import annotations

from ..i18n import N_, _
from ._draw import Diagram, arrow, box, canvas, text

__all__ = ["ALT_TEXT", "course_map"]

# each notebook: its number, its title on the map, and one line in the course's notation
NOTEBOOKS = [
    ("01", N_("queries, keys, values"), "$q, k_i, v_i \\;\\to\\; \\sum_i \\lambda_i v_i$"),
    ("02", N_("hard to soft attention"), N_("one-hot $\\to$ softmax at $T$")),
    ("03", "Nadaraya-Watson", N_("$h$ picked by leave-one-out")),
    ("04", N_("parametric pooling"), N_("$w = 1/h$ learned by descent")),
    ("05", N_("scoring and masking"), N_("$a(q, k)$: dot, additive, ...")),
    ("06", N_("Bahdanau attention"), N_("query $s_{t-1}$; keys, values $e_j$")),
    ("07", N_("self-attention"), "$Q = XW_q$, $K = XW_k$, $V = XW_v$"),
    ("08", N_("Transformer block"), "$x + \\mathrm{FFN}(\\mathrm{LN}(x))$"),
    ("09", N_("read and write"), N_("cross-attention; KV cache")),
]
ROWS = [  # (height of the row, its heading): the last row continues the one above it
    (6.05, N_("attention as a lookup, then as regression")),
    (3.55, N_("attention inside neural networks")),
    (1.05, None),
]

ALT_TEXT = {
    "course_map": N_(
        "The map of the course: nine boxes, one per notebook, in rows of four joined by arrows in reading order. "
        "Top row, attention as a lookup, then as regression: 01, queries, keys and values (query q, keys k_i, values "
        "v_i to the output, the sum over i of lambda_i v_i); 02, from hard to soft attention (one-hot weights to a "
        "softmax at temperature T); 03, Nadaraya-Watson kernel regression, with a bandwidth h picked from a grid by "
        "leave-one-out; 04, parametric attention pooling, w = 1/h learned by gradient descent. An arrow leads from "
        "04 down to the second row, attention inside neural networks: 05, scoring functions, scaling and masking "
        "(the scoring function a(q, k): dot product, additive and others); 06, Bahdanau attention in a seq2seq "
        "model, whose query is the decoder state s_{t-1} and whose keys and values are the encoder states e_j; 07, "
        "self-attention (Q = X W_q, K = X W_k, V = X W_v); 08, the Transformer block (x + FFN(LN(x))) and its "
        "training; an arrow leads from 08 down to a third row that continues it: 09, Transformers that read and "
        "write: cross-attention and the KV cache."
    ),
}


def course_map() -> Diagram:
    """The course as a path through notebooks 01-09, each box naming its notebook (notebook 00)."""
    figure, ax = canvas(13.6, 7.5)
    width, height, gap = 3.05, 1.5, 0.35
    xs = [0.2 + width / 2 + i * (width + gap) for i in range(4)]
    for row, (y, heading) in enumerate(ROWS):
        if heading is not None:
            text(ax, (13.4, y + height / 2 + 0.3), _(heading), ha="right", fontweight="bold")
        for column, (x, (number, title, detail)) in enumerate(zip(xs, NOTEBOOKS[4 * row : 4 * row + 4], strict=False)):
            box(ax, (x, y), "", "plain", width=width, height=height)  # no role colour: a box is a notebook
            text(ax, (x, y + 0.47), number, fontweight="bold")
            text(ax, (x, y + 0.04), _(title))
            text(ax, (x, y - 0.4), _(detail))
            if column:
                arrow(ax, (x - width / 2 - gap, y), (x - width / 2, y))
        if row:  # from the end of the row above to the start of this one: down, left, down
            top, bottom = ROWS[row - 1][0] - height / 2, y + height / 2
            middle = top - 0.35
            ax.plot([xs[3], xs[3], xs[0]], [top, middle, middle], color="black", lw=2.0)
            arrow(ax, (xs[0], middle), (xs[0], bottom))
    return Diagram("course_map", figure, _(ALT_TEXT["course_map"]))
