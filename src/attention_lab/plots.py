"""Figure plumbing: the course style, colour-blind-safe colours, and figures for explorers.

Static figures in the notebooks use plain matplotlib (the inline backend, so they survive as images in a
saved notebook or an HTML page). Explorers draw on a plain Agg canvas of their own (``explorers/base.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import re
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib import font_manager

from attention_lab.figure_text import describe_figures_in_ipython

from ._checks import check_flag
from .i18n import get_language

__all__ = [
    "COLORS",
    "CMAP",
    "course_style",
    "use_course_style",
    "lecture_mode",
    "token_heatmap",
    "buffer_png",
    "font_family",
    "in_language_fonts",
]

# Okabe-Ito: distinguishable with every common form of colour blindness.
COLORS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
    "grey": "#999999",
}
CYCLE = [COLORS[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow", "black")]
CMAP = "viridis"  # perceptually uniform and colour-blind safe, for every heatmap of the course

# The Chinese characters the course draws (data and glossary), subset from WenQuanYi Micro Hei
# (Apache-2.0, see fonts/README.md beside this file), shipped inside the package: figures show them on
# machines without a Chinese font, from any install.
CJK_FONT = Path(__file__).resolve().parent / "fonts" / "course-cjk.ttf"
font_manager.fontManager.addfont(str(CJK_FONT))
# The subset has one weight. Bold text (lecture mode's titles) looks the CJK face up in bold as well, and
# matplotlib writes a warning to stderr when it finds none: the same face also serves as the bold one
# (Chinese in bold text is drawn in the regular weight).
_CJK_REGULAR = next(f for f in font_manager.fontManager.ttflist if Path(f.fname) == CJK_FONT)
font_manager.fontManager.ttflist.append(dataclasses.replace(_CJK_REGULAR, weight=700))
FONT_FAMILY = ["DejaVu Sans", "WenQuanYi Micro Hei"]  # for text that may contain Chinese, in any style
# Chinese mixed with math ("权重 $\\lambda_i$"): mathtext draws the text outside $...$ in ONE font, the first of the
# family, with no fallback, so such text needs the CJK subset first (it has the Latin letters and digits too);
# the math itself keeps the mathtext fonts. The course style uses it for every text when Chinese is selected.
CJK_FIRST = ["WenQuanYi Micro Hei", "DejaVu Sans"]
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def font_family(label: str) -> str | list[str]:
    """The font family to draw ``label`` with: DejaVu Sans for ASCII, the CJK subset first for Chinese."""
    if label.isascii():
        return FONT_FAMILY[0]
    return CJK_FIRST if _CJK.search(label) else FONT_FAMILY


def in_language_fonts(draw):
    """Decorate a function that draws: while it runs, text defaults to the fonts of the selected language."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with mpl.rc_context({"font.family": CJK_FIRST if get_language() == "zh" else FONT_FAMILY}):
            return draw(*args, **kwargs)

    return wrapper


def course_style(scale: float = 1.0) -> dict:
    """rcParams of the course: readable fonts, the Okabe-Ito cycle, light grids. ``scale`` enlarges all."""
    return {
        "font.size": 11 * scale,
        "axes.titlesize": 12 * scale,
        "axes.labelsize": 11 * scale,
        "xtick.labelsize": 10 * scale,
        "ytick.labelsize": 10 * scale,
        "legend.fontsize": 9.5 * scale,
        "lines.linewidth": 2.0 * scale,
        "lines.markersize": 7 * scale,
        "axes.linewidth": 1.0 * scale,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": mpl.cycler(color=CYCLE),
        "image.cmap": CMAP,
        "figure.dpi": 100,
        "figure.constrained_layout.use": True,
        # DejaVu Sans first, glyphs it lacks (Chinese) from the course's CJK subset; in Chinese (al.set_language),
        # the subset first, so that labels mixing Chinese and math draw (CJK_FIRST)
        "font.family": CJK_FIRST if get_language() == "zh" else FONT_FAMILY,
    }


def use_course_style(*, lecture: bool = False) -> None:
    """Apply the course style to matplotlib for the rest of this notebook session (every notebook's first cell).

    ``lecture=True`` is the projector version (see :func:`lecture_mode`). In IPython it also gives every
    static figure an alt text built from its labels (:func:`attention_lab.figure_text.describe`).
    """
    describe_figures_in_ipython()
    style = course_style(scale=1.35 if lecture else 1.0)
    if lecture:
        style.update(
            {
                "lines.linewidth": 3.2,
                "lines.markersize": 9,
                "axes.linewidth": 1.8,
                "grid.alpha": 0.5,
                "grid.linewidth": 1.0,
                "text.color": "black",
                "axes.labelcolor": "black",
                "xtick.color": "black",
                "ytick.color": "black",
                "axes.titleweight": "bold",
                "figure.dpi": 110,
            }
        )
    mpl.rcParams.update(style)


def lecture_mode(on: bool = True) -> None:
    """Projector-friendly figures for the rest of the session: large fonts, thick lines, strong contrast.

    ``lecture_mode(False)`` goes back to the normal course style. Figures made afterwards follow it
    (explorers keep their pixel size, so they still fit the notebook column; zoom the browser to enlarge).
    """
    use_course_style(lecture=check_flag(on, "on"))


def token_heatmap(
    ax, x_tokens, y_tokens, weights, *, xlabel: str, ylabel: str, colorbar_label: str | None, aspect="auto", fontsize=9
):
    """Attention weights as a heatmap with a token on every column and row; ``colorbar_label=None``: no colour bar."""
    image = ax.imshow(weights, cmap=CMAP, vmin=0, vmax=1, aspect=aspect, interpolation="nearest")
    ax.set_xticks(range(len(x_tokens)), x_tokens, fontsize=fontsize, fontfamily=FONT_FAMILY)
    for label in ax.get_xticklabels():
        if len(label.get_text()) > 2:  # "<eos>", words: upright they would run into their neighbours
            label.set_rotation(90)
    ax.set_yticks(range(len(y_tokens)), y_tokens, fontsize=fontsize, fontfamily=FONT_FAMILY)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(False)
    if colorbar_label is not None:
        ax.figure.colorbar(image, ax=ax, label=colorbar_label)
    return image


def buffer_png(canvas, compress_level: int = 6) -> bytes:
    """The canvas' current pixels as PNG, without drawing anything again.

    ``compress_level`` is zlib's: 6 (the default) for a picture that is kept (a saved notebook, a page); 1 encodes
    faster, for a view redrawn while the reader moves a control."""
    from PIL import Image

    with io.BytesIO() as buffer:
        Image.fromarray(np.asarray(canvas.buffer_rgba())).save(buffer, format="png", compress_level=compress_level)
        return buffer.getvalue()
