"""Diagrams of generation: the loop that writes one token at a time (notebook 09)."""

from __future__ import annotations

from ..i18n import N_, _
from ._draw import Diagram, arrow, box, canvas, text

__all__ = ["ALT_TEXT", "generation_loop"]

ALT_TEXT = {
    "generation_loop": N_(
        "The loop that generates text, one token per turn. Left, the tokens y_1 to y_t: the prompt, then each token "
        "written so far. They go into the decoder-only Transformer, which reads them with its causal mask and gives "
        "the logits alpha at the last position t, one score for each of the n_vocab tokens. A sampler turns the "
        "logits into a distribution p = softmax(alpha / T), keeps, if they are set, only the top k_top tokens and "
        "then the smallest set of most likely tokens whose probabilities, renormalised over those kept so far, add "
        "up to at least p_top (top-p), "
        "renormalises, and draws one token, y_{t+1}; at T = 0 it takes the largest logit instead (greedy "
        "decoding). An arrow along the bottom appends y_{t+1} to the tokens, t becomes t + 1, and the loop runs "
        "again, until n_new tokens are written. A dashed note under the Transformer says that with a KV cache "
        "(explained in section 5) every layer and head keeps the keys and values K_{1:t} and V_{1:t} of the "
        "positions so far, so after the first turn, which runs the whole prompt, each turn runs only the newest "
        "position, the token just appended."
    ),
}


def generation_loop() -> Diagram:
    """Autoregressive generation: read the tokens, score the next one, sample it, append it (notebook 09)."""
    figure, ax = canvas(13.5, 4.5)
    y = 3.35
    box(ax, (1.55, y), _("$y_1, \\dots, y_t$:\nthe prompt, then\neach token written"), "plain", width=2.9, height=1.35)
    box(ax, (5.0, y), _("decoder-only\nTransformer,\ncausal mask"), "plain", width=2.6, height=1.35)
    box(
        ax,
        (8.2, y),
        _("logits $\\alpha$ at\nposition $t$:\n$n_{\\mathrm{vocab}}$ scores"),
        "weight",
        width=2.5,
        height=1.35,
    )
    box(
        ax,
        (11.65, y),
        _(
            "sampler\n$p = \\mathrm{softmax}(\\alpha / T)$\ntop-k ($k_{\\mathrm{top}}$), then top-p\n"
            "($p_{\\mathrm{top}}$), if set; draw one\n($T = 0$: greedy)"
        ),
        "weight",
        width=3.3,
        height=1.9,
    )
    for start, end in ((3.0, 3.7), (6.3, 6.95), (9.45, 10.0)):
        arrow(ax, (start, y), (end, y))
    box(ax, (11.65, 0.75), _("next token $y_{t+1}$"), "output", width=2.6, height=0.6)
    arrow(ax, (11.65, y - 0.95), (11.65, 1.05))
    # appended and fed back: left along the bottom, up into the tokens
    ax.plot([10.35, 1.55], [0.75, 0.75], color="black", lw=2.0)
    arrow(ax, (1.55, 0.75), (1.55, y - 0.675))
    text(
        ax,
        (6.0, 0.45),
        _("append $y_{t+1}$; $t \\leftarrow t + 1$; again, until $n_{\\mathrm{new}}$ tokens are written"),
    )
    note = box(ax, (5.0, 1.7), "", "plain", width=5.6, height=1.3)
    note.set_linestyle((0, (4, 3)))
    text(
        ax,
        (5.0, 1.7),
        _(
            "KV cache (section 5): every layer and head\n"
            "keeps $K_{1:t}$ and $V_{1:t}$, so the next\nturn runs position $t + 1$ alone"
        ),
    )
    ax.plot([5.0, 5.0], [2.35, y - 0.675], color="black", lw=1.5, ls=(0, (4, 3)))
    return Diagram("generation_loop", figure, _(ALT_TEXT["generation_loop"]))
