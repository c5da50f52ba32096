"""Notebook 09: temperature, top-k and top-p shape the next-token distribution, and what gets written.

The same softmax(alpha / T) as notebook 02's temperature explorer, now over a vocabulary: the scores are
a language model's logits for the token after a prompt. Top: the distribution a sampler draws from (bars,
tokens sorted by logit, so top-k and top-p keep a prefix of them), with the model's own distribution at
T = 1 as a grey outline. Bottom: the prompt and a continuation written with these settings and a fixed
seed. T = 0 is greedy decoding; T = inf with every token kept is uniform over the vocabulary.
"""

from __future__ import annotations

import textwrap

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import as_float_array, check_labels
from ..i18n import _
from ..normalisers import entropy, softmax
from ..plots import COLORS, FONT_FAMILY, in_language_fonts
from ..sampling import next_token_distribution
from .base import Explorer
from .controls import temperature_label, temperature_slider

__all__ = ["TOP_P_OPTIONS", "top_k_options", "token_label", "SamplingExplorer", "sampling_small_multiples"]

TOP_P_OPTIONS = [(f"{p:g}" if p < 1 else "1 (all)", p) for p in (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)]


def _top_p_options() -> list:
    """:data:`TOP_P_OPTIONS` labelled in the current language (the slider's, when it is built)."""
    return [(label if p < 1 else _("1 (all)"), p) for label, p in TOP_P_OPTIONS]


def top_k_options(vocabulary_size: int) -> list:
    """Slider positions for top-k: 1, 2, 3, 5, 10, 20, 40 (those below the vocabulary size), then all."""
    ks = [k for k in (1, 2, 3, 5, 10, 20, 40) if k < vocabulary_size]
    return [(str(k), k) for k in ks] + [(_("all ({n})").format(n=vocabulary_size), vocabulary_size)]


def token_label(token: str) -> str:
    """A visible label for a character: '⏎' for a newline, '␣' for a space."""
    return {"\n": "⏎", " ": "␣"}.get(token, token)


def _wrap(text: str, width: int = 70, lines: int = 4) -> str:
    """The text as at most ``lines`` lines of ``width`` characters, newlines shown as '⏎'."""
    flat = text.replace("\n", "⏎")
    return "\n".join(textwrap.wrap(flat, width, drop_whitespace=False)[:lines])


def _check(logits, tokens):
    alpha = as_float_array(logits, "logits", min_ndim=1)
    if alpha.ndim != 1 or alpha.size < 2:
        raise ValueError(f"logits must have shape (V,) with V >= 2 tokens, got {alpha.shape}")
    return alpha, check_labels(tokens, alpha.size, "tokens")


class SamplingExplorer(Explorer):
    """``logits`` (V,) for the token after ``prompt``; ``tokens`` their V labels; ``continuation(T, k, p)``.

    ``continuation`` is a function returning the text written after the prompt with temperature T, top-k k
    and top-p p (a fixed seed inside it, so that the same settings always write the same text); None
    shows the distribution only.

    Unlike the other temperature explorers, it computes its distribution at each step: a table over all
    43 x 8 x 9 positions of its three sliders would take about half a second to build. So a temperature is
    checked by the slider and again by :func:`next_token_distribution` (as top-k and top-p are).
    """

    figsize = (11.0, 3.9)

    notebook = "09"
    benched = "temperature"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 09's character model, untrained (the same work per step);
        ``arguments`` go to the constructor."""
        import torch

        from .. import nn as aln
        from ..text_data import load_text

        chars, prompt_text = sorted(set(load_text())), "MENENIUS:\n"
        torch.manual_seed(0)  # untrained: the same work per step as the notebook's trained model
        model = aln.CharTransformer(len(chars), 128, d_model=64, num_heads=4, num_layers=2, d_ff=128).eval()
        prompt = torch.tensor([[chars.index(c) for c in prompt_text]])
        with torch.no_grad():
            logits = model(prompt)[0, -1].double().numpy()

        def write(temperature, top_k, top_p):
            out = aln.generate(model, prompt, 40, temperature=temperature, top_k=top_k, top_p=top_p, rng=2)
            return "".join(chars[i] for i in out[0, prompt.shape[1] :].tolist())

        return cls(logits, chars, prompt=prompt_text, continuation=write, **arguments)

    def __init__(
        self,
        logits,
        tokens,
        *,
        prompt: str = "",
        continuation=None,
        temperature=1.0,
        top_k=None,
        top_p=1.0,
        interactive=True,
    ):
        self.alpha, tokens = _check(logits, tokens)
        if continuation is not None and not callable(continuation):
            raise ValueError(
                f"continuation must be a function (T, top_k, top_p) -> text, or None, got {type(continuation).__name__}"
            )
        if not isinstance(prompt, str):
            raise ValueError(f"prompt must be a string, got {type(prompt).__name__}")
        self.prompt, self.continuation = prompt, continuation
        self._written = {}  # (T, k, p) -> the continuation: a position visited again costs nothing
        self.order = np.argsort(-self.alpha, kind="stable")  # tokens by decreasing logit
        self.labels = [token_label(tokens[i]) for i in self.order]
        n = self.alpha.size
        slider = {"continuous_update": True, "layout": widgets.Layout(width="320px")}
        controls = {
            "temperature": temperature_slider(),
            "top_k": widgets.SelectionSlider(options=top_k_options(n), description="top-k", **slider),
            "top_p": widgets.SelectionSlider(options=_top_p_options(), description="top-p", **slider),
        }
        super().__init__(
            controls,
            interactive=interactive,
            values={"temperature": temperature, "top_k": n if top_k is None else top_k, "top_p": top_p},
        )

    def distribution(self, temperature, top_k, top_p) -> np.ndarray:
        """The sampler's distribution over the vocabulary, in the logits' own order: (V,)."""
        return next_token_distribution(self.alpha, temperature, top_k=top_k, top_p=top_p)

    def _build(self) -> list:
        self.ax_bars, self.ax_text = self.figure.subplots(2, 1, gridspec_kw={"height_ratios": [3.0, 0.55]})
        ax, n = self.ax_bars, self.alpha.size
        positions = np.arange(n)
        reference = softmax(self.alpha)[self.order]
        ax.step(positions, reference, where="mid", color=COLORS["grey"], lw=1.2, label=_("the model at T = 1"))
        self.bars = ax.bar(positions, np.zeros(n), width=0.8, color=COLORS["blue"], label=_("sampled from"))
        ax.set_xticks(positions, self.labels, fontsize=7.5, fontfamily=FONT_FAMILY)
        ax.set_xlim(-0.7, n - 0.3)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel(_(r"probability $p_i$"))
        ax.set_xlabel(_("next token (sorted by the model's logit; ⏎ newline, ␣ space)"))
        ax.grid(axis="x", visible=False)
        ax.legend(loc="upper right")
        self.title = ax.set_title("")
        self.ax_text.set_axis_off()
        self.text = self.ax_text.text(
            0.0, 1.0, "", va="top", ha="left", fontsize=10, family="monospace", transform=self.ax_text.transAxes
        )
        return [*self.bars, self.title, self.text]

    def update(self, temperature, top_k, top_p):
        k, p = top_k, top_p
        probs = self.distribution(temperature, k, p)
        for bar, height in zip(self.bars, probs[self.order], strict=True):
            bar.set_height(height)
        kept = int(np.count_nonzero(probs))
        self.title.set_text(
            _("T = {T}, top-k = {k}, top-p = {p:g}: {kept} token(s) kept, entropy {entropy:.2f} nats").format(
                T=temperature_label(temperature), k=k, p=p, kept=kept, entropy=entropy(probs)
            )
        )
        if self.continuation is not None:
            if (temperature, k, p) not in self._written:
                self._written[temperature, k, p] = str(self.continuation(temperature, k, p))
            written = self._written[temperature, k, p]
            self.text.set_text(_wrap(self.prompt + "▕" + written))
        else:
            self.text.set_text(_wrap(self.prompt))


@in_language_fonts
def sampling_small_multiples(
    logits,
    tokens,
    settings=(
        (0.0, None, 1.0),
        (0.5, None, 1.0),
        (1.0, None, 1.0),
        (1.0, 5, 1.0),
        (1.0, None, 0.8),
        (np.inf, None, 1.0),
    ),
    *,
    shown=20,
):
    """Static twin of :class:`SamplingExplorer`: the distribution for each (T, top-k, top-p) in ``settings``.

    Shows the ``shown`` tokens with the largest logits (the rest get little or nothing except at large T;
    each panel's title says how much probability they hold).
    """
    alpha, tokens = _check(logits, tokens)
    order = np.argsort(-alpha, kind="stable")[:shown]
    labels = [token_label(tokens[i]) for i in order]
    fig = Figure(figsize=(3.0 * len(settings), 3.0), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(settings), sharey=True))
    reference = softmax(alpha)[order]
    for ax, (t, k, p) in zip(axes, settings, strict=True):
        probs = next_token_distribution(alpha, t, top_k=k, top_p=p)
        ax.bar(np.arange(len(order)), probs[order], color=COLORS["blue"], width=0.8)
        ax.step(np.arange(len(order)), reference, where="mid", color=COLORS["grey"], lw=1)
        ax.set_xticks(np.arange(len(order)), labels, fontsize=7, fontfamily=FONT_FAMILY)
        ax.grid(axis="x", visible=False)
        rest = max(0.0, 1.0 - float(probs[order].sum()))
        ax.set_title(
            f"T = {temperature_label(t)}"
            + (f", k = {k}" if k else "")
            + (f", p = {p:g}" if p < 1 else "")
            + "\n"
            + _("(not shown: {rest:.2f})").format(rest=rest),
            fontsize=9,
        )
        ax.set_xlabel(_("next token"))
    axes[0].set_ylim(0, 1.02)
    axes[0].set_ylabel(_(r"probability $p_i$ (grey: T = 1)"))
    return fig
