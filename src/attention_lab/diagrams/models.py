"""Diagrams of models: the encoder-decoder with attention (notebook 06); multi-head attention, the Transformer
block (08), and self- vs cross-attention (07)."""

from __future__ import annotations

from ..i18n import N_, _
from ._draw import ROLE, Diagram, arrow, box, canvas, text

__all__ = ["ALT_TEXT", "encoder_decoder", "multi_head", "transformer_block", "self_vs_cross"]

ALT_TEXT = {
    "encoder_decoder": N_(
        "An encoder-decoder with Bahdanau attention, for one output step t. Bottom: the input tokens I, am, a, "
        "student are read by a bidirectional GRU encoder into states e_1 to e_4, which serve as the keys and the "
        "values. Top: the decoder. Its previous state s_{t-1} is the query: it is scored against every e_j, "
        "alpha_tj = a(s_{t-1}, e_j), and a softmax over j gives the weights lambda_tj. The context "
        "c_t = sum over j of lambda_tj e_j goes, with the previous output y_{t-1}, into the GRU step that makes "
        "the new state s_t. The read-out W_out [s_t; c_t] predicts the output y_t from s_t and c_t together, here "
        "the Chinese word for am."
    ),
    "multi_head": N_(
        "Multi-head attention, left to right, in five steps: project, split, attend, concatenate, project. "
        "Project: the sequence X is projected to Q = X W_q, K = X W_k and V = X W_v. Split: each is cut into "
        "n_heads slices of width d_k = d_model / n_heads (three heads drawn). Attend: each head m computes "
        "softmax(Q_m K_m transposed / sqrt(d_k)) V_m on its own. Concatenate: the heads' outputs are put side by "
        "side, width d_model again. Project: W_o maps the concatenation to the output MultiHead(X)."
    ),
    "transformer_block": N_(
        "A pre-LN Transformer block, read from bottom to top. The input x goes through layer normalisation and "
        "multi-head self-attention, and the result is added back to x (a residual connection drawn as a path "
        "around the layer norm and the sub-layer). The sum goes through a second layer normalisation and the "
        "position-wise feed-forward network, and the FFN's output is added to that sum (a second residual path "
        "around the second layer norm and the FFN). The output has the shape of the input, "
        "(n, d_model), so blocks stack."
    ),
    "self_vs_cross": N_(
        "Self-attention and cross-attention side by side. Left, self-attention: the queries Q = X W_q, keys "
        "K = X W_k and values V = X W_v all come from one sequence X, and the weights form an n-by-n matrix. "
        "Right, cross-attention (the Transformer's encoder-decoder attention): the queries Q = X W_q come from the "
        "decoder's sequence X, the keys K = E W_k and values V = E W_v from the encoder's outputs E (rows e_j), "
        "and the weights have shape (n_queries, n_keys), a row per decoder position and a column per encoder "
        "position. Both panels compute softmax(Q K transposed / sqrt(d_k)) V. Notebook 06's Bahdanau decoder "
        "gives the same roles to the decoder and the encoder, but differs in more than its additive score: it "
        "has one head, uses the encoder states e_j themselves as keys and values (no W_v, no W_o; the additive "
        "score carries its own W_q and W_k), and asks one query, the previous state s_{t-1}, at a time."
    ),
}


def encoder_decoder() -> Diagram:
    """One decoder step of Bahdanau attention: the query is the previous decoder state (notebook 06)."""
    figure, ax = canvas(13.6, 5.8)
    xs, words = [2.6, 4.0, 5.4, 6.8], ["I", "am", "a", "student"]
    top = 4.55  # the decoder's row
    text(ax, (0.1, 0.45), _("input $x_j$"), ha="left")
    text(ax, (0.1, 1.45), _("encoder"), ha="left")
    text(ax, (0.1, top), _("decoder"), ha="left")
    for j, (x, word) in enumerate(zip(xs, words, strict=True)):
        text(ax, (x, 0.45), word)
        box(ax, (x, 1.45), f"$e_{j + 1}$", "key", width=0.9, height=0.6)
        arrow(ax, (x, 0.65), (x, 1.15))
        arrow(ax, (x, 1.75), (x, 2.55), color="black")
        if j:
            arrow(ax, (xs[j - 1] + 0.45, 1.45), (x - 0.45, 1.45), style="<|-|>", width=1.5)
    text(ax, (10.3, 1.45), _("keys and values:\nthe encoder states $e_j$"))
    box(
        ax,
        (4.7, 3.05),
        _("score $\\alpha_{tj} = a(s_{t-1}, e_j)$\nweights $\\lambda_{tj} = \\mathrm{softmax}_j(\\alpha_{tj})$"),
        "weight",
        width=4.6,
        height=1.0,
    )
    box(ax, (8.6, 3.05), "$c_t = \\sum_j \\lambda_{tj}\\, e_j$", "output", width=2.2, height=0.7)
    arrow(ax, (7.0, 3.05), (7.5, 3.05))
    # the decoder step: s_{t-1} (the query) -> GRU, fed y_{t-1} and c_t -> s_t -> read-out of [s_t; c_t] -> y_t
    box(ax, (6.3, top), "$s_{t-1}$", "query", width=1.1, height=0.65)
    arrow(ax, (6.05, top - 0.33), (5.6, 3.55), width=2.5)  # the query: solid, as every arrow that carries a value
    text(ax, (2.9, 4.05), _("query: the previous decoder state $s_{t-1}$"))
    box(ax, (8.15, top), "GRU", "plain", width=1.0, height=0.65)
    text(ax, (8.15, 5.5), "$y_{t-1}$")
    arrow(ax, (8.15, 5.3), (8.15, top + 0.33))
    arrow(ax, (6.85, top), (7.65, top))
    arrow(ax, (8.3, 3.4), (8.3, top - 0.33))  # c_t into the GRU step
    box(ax, (9.8, top), "$s_t$", "plain", width=0.9, height=0.65)
    arrow(ax, (8.65, top), (9.35, top))
    box(ax, (11.55, top), _("read-out\n$W_{\\mathrm{out}}[s_t; c_t]$"), "plain", width=1.9, height=0.95)
    arrow(ax, (10.25, top), (10.6, top))
    arrow(ax, (9.7, 3.05), (11.3, top - 0.48), gid="c_t to read-out")  # the output reads c_t too
    arrow(ax, (12.5, top), (12.85, top))
    text(ax, (13.2, top + 0.3), "$y_t$")
    text(ax, (13.2, top - 0.15), "是")
    return Diagram("encoder_decoder", figure, _(ALT_TEXT["encoder_decoder"]))


def multi_head() -> Diagram:
    """Multi-head attention: project, split, attend, concatenate, project (notebook 07)."""
    figure, ax = canvas(13.0, 5.0)
    rows, centre = [3.6, 2.6, 1.6], 2.6
    box(ax, (0.5, centre), "$X$", "plain", width=0.7, height=0.8)
    projections = [(3.25, "$XW_q$", "query"), (2.6, "$XW_k$", "key"), (1.95, "$XW_v$", "value")]
    for y, label, role in projections:
        box(ax, (2.0, y), label, role, width=1.1, height=0.5)
        arrow(ax, (0.85, centre), (1.45, y))
        ax.plot([2.55, 2.8], [y, y], color="black", lw=2)
    ax.plot([2.8, 2.8], [1.95, 3.25], color="black", lw=2)  # Q, K and V go on together
    box(ax, (8.5, centre), _("concatenate"), "plain", width=0.75, height=2.9)
    ax.texts[-1].set_rotation(90)
    box(ax, (10.0, centre), "$W_o$", "plain", width=0.9, height=0.8)
    box(ax, (11.95, centre), "$\\mathrm{MultiHead}(X)$", "output", width=1.9, height=0.8)
    arrow(ax, (8.87, centre), (9.55, centre))
    arrow(ax, (10.45, centre), (11.0, centre))
    for m, y in enumerate(rows, start=1):
        for dx, letter, role in ((-0.62, "Q", "query"), (0.0, "K", "key"), (0.62, "V", "value")):
            box(ax, (4.5 + dx, y), f"${letter}_{m}$", role, width=0.56, height=0.56)
        box(ax, (6.9, y), f"$\\mathrm{{head}}_{m}$", "output", width=1.3, height=0.6)
        arrow(ax, (2.8, centre), (3.58, y))
        arrow(ax, (5.42, y), (6.25, y))
        arrow(ax, (7.55, y), (8.12, centre))
    for x, label in (
        (2.0, _("project")),
        (4.5, _("split")),
        (6.9, _("attend")),
        (8.5, _("concatenate")),
        (10.25, _("project ($W_o$)")),
    ):
        text(ax, (x, 4.55), label, fontweight="bold")
    text(
        ax,
        (6.5, 0.75),
        _(
            "$\\mathrm{head}_m = \\mathrm{softmax}(Q_m K_m^\\top / \\sqrt{d_k})\\, V_m$, with "
            "$d_k = d_{\\mathrm{model}} / n_{\\mathrm{heads}}$ ($n_{\\mathrm{heads}} = 3$ drawn)"
        ),
    )
    return Diagram("multi_head", figure, _(ALT_TEXT["multi_head"]))


def transformer_block() -> Diagram:
    """The course's pre-LN Transformer block, with its two residual connections (notebook 08)."""
    figure, ax = canvas(10.6, 7.4)
    x = 2.6
    text(ax, (x, 0.35), _("input $x$: $(n, d_{\\mathrm{model}})$"))
    stages = [
        (1.35, _("layer norm"), "plain"),
        (2.35, _("multi-head self-attention"), "weight"),
        (4.25, _("layer norm"), "plain"),
        (5.25, _("feed-forward network"), "plain"),
    ]
    for y, label, role in stages:
        box(ax, (x, y), label, role, width=3.6, height=0.6)
    adds = [3.3, 6.2]
    for y in adds:
        box(ax, (x, y), "$+$", "plain", width=0.5, height=0.5)
    for start, end in [
        (0.55, 1.05),
        (1.65, 2.05),
        (2.65, 3.05),
        (3.55, 3.95),
        (4.55, 4.95),
        (5.55, 5.95),
        (6.45, 6.85),
    ]:
        arrow(ax, (x, start), (x, end))
    for branch, add in [(0.8, adds[0]), (3.7, adds[1])]:  # the residual connections: around LN and sub-layer
        ax.plot([x, x + 2.3, x + 2.3], [branch, branch, add], color="black", lw=2)
        arrow(ax, (x + 2.3, add), (x + 0.25, add))
    text(ax, (x, 7.15), _("output: $(n, d_{\\mathrm{model}})$, to the next block"))
    text(ax, (x + 2.45, 1.25), _("residual"), ha="left")
    text(ax, (x + 2.45, 4.15), _("residual"), ha="left")
    text(
        ax,
        (6.2, 2.35),
        "$x \\leftarrow x + \\mathrm{Attention}(\\mathrm{LN}(x))$\n"
        + _("$Q$, $K$, $V$ all from $\\mathrm{LN}(x)$, $n_{\\mathrm{heads}}$ heads"),
        ha="left",
    )
    text(
        ax,
        (6.2, 5.25),
        "$x \\leftarrow x + \\mathrm{FFN}(\\mathrm{LN}(x))$\n"
        + _("the same network at every position,\nwidth $d_{\\mathrm{ff}}$"),
        ha="left",
    )
    return Diagram("transformer_block", figure, _(ALT_TEXT["transformer_block"]))


def self_vs_cross() -> Diagram:
    """Where the queries, keys and values come from: one sequence (self) or two (cross) (notebook 07)."""
    figure, ax = canvas(13.9, 5.6)
    formula = "$\\mathrm{softmax}(QK^\\top / \\sqrt{d_k})\\, V$"
    text(ax, (3.3, 5.3), _("self-attention"), fontweight="bold")
    text(ax, (3.3, 4.8), _("$Q$, $K$, $V$ all from one sequence $X$"))
    box(ax, (3.3, 0.6), _("sequence $X$"), "plain", width=3.8, height=0.6)
    for x, label, role in ((1.9, "$Q = XW_q$", "query"), (3.3, "$K = XW_k$", "key"), (4.7, "$V = XW_v$", "value")):
        box(ax, (x, 2.3), label, role, width=1.3, height=0.6)
        arrow(ax, (x, 0.9), (x, 2.0))
        arrow(ax, (x, 2.6), (x, 3.1))
    box(ax, (3.3, 3.6), formula + "\n" + _("weights: (n, n)"), "output", width=4.1, height=1.0)
    x0 = 6.9
    text(ax, (x0 + 3.5, 5.3), _("cross-attention (encoder-decoder)"), fontweight="bold")
    text(ax, (x0 + 3.5, 4.8), _("$Q$ from the decoder; $K$, $V$ from the encoder's outputs"))
    box(ax, (x0 + 1.4, 0.6), _("decoder's sequence $X$"), "plain", width=2.7, height=0.6)
    box(ax, (x0 + 4.95, 0.6), _("encoder's outputs $E$ (rows $e_j$)"), "plain", width=3.8, height=0.6)
    for x, label, role in (
        (x0 + 1.4, "$Q = XW_q$", "query"),
        (x0 + 4.2, "$K = EW_k$", "key"),
        (x0 + 5.7, "$V = EW_v$", "value"),
    ):
        box(ax, (x, 2.3), label, role, width=1.3, height=0.6)
        arrow(ax, (x, 0.9), (x, 2.0))
        arrow(ax, (x, 2.6), (x, 3.1))
    box(ax, (x0 + 3.5, 3.6), formula + "\n" + _("weights: (n_queries, n_keys)"), "output", width=4.9, height=1.0)
    ax.plot([6.7, 6.7], [0.2, 5.5], color=ROLE["plain"], lw=1.5)
    return Diagram("self_vs_cross", figure, _(ALT_TEXT["self_vs_cross"]))
