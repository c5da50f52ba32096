"""The decks' lecture-mode figures, drawn in the page's own run: no second execution of the notebook.

Run in the notebook's kernel before its first cell (``build_site.execute_page`` passes :data:`BEFORE_NOTEBOOK`
to ``execute``). :func:`install` adds a display formatter for matplotlib figures: whenever the notebook shows a
figure, it also draws a copy of it in the projector style of lecture mode (``plots.lecture_mode``: fonts 1.35
times larger, thicker lines and markers, black text, bold titles) and hands it over as a :data:`MIME` entry
beside the page's ``image/png``. The pages drop that entry; the decks show it instead of the page's picture.
The figure itself is untouched (the copy is a pickled one), and a figure that cannot be copied keeps its
page picture in the deck.
"""

from __future__ import annotations

import base64
import io
import pickle

__all__ = ["MIME", "BEFORE_NOTEBOOK", "install", "lecture_png"]

MIME = "application/vnd.attention-lab.lecture-png"
SCALE = 1.35  # plots.use_course_style(lecture=True): course_style(scale=1.35)
LINE_WIDTH, MARKER_SIZE, AXES_WIDTH, DPI = 3.2, 9.0, 1.8, 110  # and its overrides, against course_style()'s


def lecture_png(fig) -> str | None:
    """A base64 PNG of a copy of ``fig`` in lecture style; None if the copy cannot be made or drawn."""
    try:
        from matplotlib import pyplot
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.text import Text

        from attention_lab.plots import course_style

        if not isinstance(fig, Figure):  # a SubFigure is drawn with its figure
            return None
        normal = course_style()
        copy = pickle.loads(pickle.dumps(fig))
        pyplot.close(copy)  # unpickling a pyplot figure registers the copy with pyplot: the page must not show it
        for text in copy.findobj(Text):
            text.set_fontsize(text.get_fontsize() * SCALE)
            if text.get_color() in ("black", "#212121", "0.15", "#262626", "#333333"):
                text.set_color("black")
        for ax in copy.axes:
            ax.title.set_fontweight("bold")
            for spine in ax.spines.values():
                spine.set_linewidth(spine.get_linewidth() * AXES_WIDTH / normal["axes.linewidth"])
            ax.tick_params(colors="black", labelcolor="black")
        for line in copy.findobj(Line2D):
            line.set_linewidth(line.get_linewidth() * LINE_WIDTH / normal["lines.linewidth"])
            line.set_markersize(line.get_markersize() * MARKER_SIZE / normal["lines.markersize"])
        buffer = io.BytesIO()
        copy.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
        return base64.b64encode(buffer.getvalue()).decode("ascii")
    except Exception:  # noqa: BLE001 - a deck keeps the page's picture rather than break the page's run
        return None


def install() -> bool:
    """In the kernel: every figure shown from now on also carries its lecture-style picture (:data:`MIME`)."""
    from IPython import get_ipython
    from IPython.core.formatters import BaseFormatter
    from matplotlib.figure import FigureBase
    from traitlets import ObjectName, Unicode

    shell = get_ipython()
    if shell is None:
        return False

    class LectureFormatter(BaseFormatter):
        format_type = Unicode(MIME)
        print_method = ObjectName("_repr_lecture_png_")
        _return_type = str

    formatters = shell.display_formatter.formatters
    if MIME not in formatters:
        formatters[MIME] = LectureFormatter(parent=shell.display_formatter)
        # registered for Figure's base class: ``%matplotlib inline`` takes every formatter's Figure entry away
        formatters[MIME].for_type(FigureBase, lecture_png)
    active = shell.display_formatter.active_types
    if MIME not in active:
        active.append(MIME)
    return True


# The code ``execute`` runs in the kernel before the notebook (started with ``tools.kernel_env()``).
BEFORE_NOTEBOOK = "from tools import lecture_figures as _lecture\n_lecture.install()\ndel _lecture\n"
