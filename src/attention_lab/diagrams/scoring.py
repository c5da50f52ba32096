"""Diagrams of scoring: the additive score against the scaled dot product (notebook 05)."""

from __future__ import annotations

from ..i18n import N_, _
from ._draw import ROLE, Diagram, arrow, box, canvas, text

__all__ = ["ALT_TEXT", "scoring_functions"]

ALT_TEXT = {
    "scoring_functions": N_(
        "Two scoring functions a(q, k_i), one above the other, each turning a query q and a key k_i into one score "
        "alpha_i. Top, the additive (MLP) score: the query is projected to W_q q and the key to W_k k_i, both "
        "vectors of d_h numbers; they are added, passed through tanh, and the learned vector w_v turns the result "
        "into the number alpha_i = w_v transposed tanh(W_q q + W_k k_i). W_q, W_k and w_v are learnable (trained "
        "with the model), and q and k_i may differ in size (d_q and d_k). Bottom, the scaled dot product: q "
        "transposed k_i divided by the square root of d, with nothing learnable in the score itself, and q and k_i "
        "of one size d (d = d_q = d_k). On the right of each row, that row's scores of all the keys go into a "
        "softmax over the keys, which gives the weights lambda_i."
    ),
}


def scoring_functions() -> Diagram:
    """The additive score and the scaled dot product, step by step, each into a softmax over the keys (notebook 05)."""
    figure, ax = canvas(13.2, 6.1)
    rows = [  # (y of the title, y of the query, y of the key, y of the score): additive on top, scaled dot below
        (5.75, 4.45, 3.55, 4.0),
        (2.45, 1.3, 0.4, 0.85),
    ]
    titles = [
        (
            _("additive (MLP): $\\alpha_i = w_v^\\top \\tanh(W_q q + W_k k_i)$"),
            _(
                "learnable: $W_q$ $(d_h, d_q)$ and $W_k$ $(d_h, d_k)$, a vector $w_v$ of size $d_h$; "
                "$d_q \\neq d_k$ allowed"
            ),
        ),
        (
            _("scaled dot product: $\\alpha_i = q^\\top k_i / \\sqrt{d}$"),
            _("nothing learnable in the score; $q$ and $k_i$ of one size $d = d_q = d_k$"),
        ),
    ]
    for (y_title, y_q, y_k, y_score), (name, note) in zip(rows, titles, strict=True):
        text(ax, (0.15, y_title), name, ha="left", fontweight="bold")
        text(ax, (0.15, y_title - 0.48), note, ha="left")
        box(ax, (0.8, y_q), _("query $q$"), "query", width=1.3, height=0.6)
        box(ax, (0.8, y_k), _("key $k_i$"), "key", width=1.3, height=0.6)
        box(ax, (8.85, y_score), "$\\alpha_i = a(q, k_i)$", "weight", width=2.3, height=0.6)
        arrow(ax, (10.0, y_score), (10.95, y_score))
        # each row's own softmax, over the scores of all the keys
        box(
            ax,
            (12.05, y_score),
            _("softmax over all\nkeys' $\\alpha_i$: $\\lambda_i$"),
            "weight",
            width=2.1,
            height=1.0,
        )
    # additive: project each, add, tanh, w_v^T
    y_q, y_k, y = rows[0][1:]
    box(ax, (2.75, y_q), "$W_q q$", "query", width=1.3, height=0.6)
    box(ax, (2.75, y_k), "$W_k k_i$", "key", width=1.3, height=0.6)
    box(ax, (4.3, y), "$+$", "plain", width=0.6, height=0.6)
    box(ax, (5.55, y), "$\\tanh$", "plain", width=1.1, height=0.6)
    box(ax, (6.95, y), "$w_v^\\top$", "plain", width=0.9, height=0.6)
    for yy in (y_q, y_k):
        arrow(ax, (1.45, yy), (2.1, yy))
        arrow(ax, (3.4, yy), (4.0, y))
    for start, end in ((4.6, 5.0), (6.1, 6.5), (7.4, 7.7)):
        arrow(ax, (start, y), (end, y))
    # scaled dot product: one product, one division
    y_q, y_k, y = rows[1][1:]
    box(ax, (4.3, y), "$q^\\top k_i$", "plain", width=1.2, height=0.6)
    box(ax, (6.35, y), "$/ \\sqrt{d}$", "plain", width=1.1, height=0.6)
    for yy in (y_q, y_k):
        arrow(ax, (1.45, yy), (3.7, y))
    arrow(ax, (4.9, y), (5.8, y))
    arrow(ax, (6.9, y), (7.7, y))
    ax.plot([0.15, 10.6], [2.95, 2.95], color=ROLE["plain"], lw=1.5)
    return Diagram("scoring_functions", figure, _(ALT_TEXT["scoring_functions"]))
