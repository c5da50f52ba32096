"""The drawing kit of the diagrams: a figure measured in inches, labelled boxes, arrows, and the Diagram result.

Every diagram is drawn on one axis-less Axes whose data units are inches of the figure, so positions and
sizes read directly as layout. Text is never smaller than :data:`FONT_SIZE` points, which is at least the
base font of the course's lecture mode (``plots.use_course_style(lecture=True)``): the diagrams are
projector-sized in either style. Roles have fixed colours (Okabe-Ito, ``plots.COLORS``): the query
vermillion, keys blue, values green, scores and weights orange, outputs purple; boxes are light tints
with a coloured edge and black text, so the text keeps its contrast.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from PIL import Image

from ..plots import COLORS, font_family

FONT_SIZE = 15.0  # points; the course's lecture mode draws its base text at 14.85 (11 x 1.35)
DPI = 150  # pixels per inch of the PNG: sharp on a projector; shown at 100 pixels per inch
ROLE = {
    "query": COLORS["vermillion"],
    "key": COLORS["blue"],
    "value": COLORS["green"],
    "weight": COLORS["orange"],
    "output": COLORS["purple"],
    "plain": COLORS["grey"],
}


@dataclass(frozen=True)
class Diagram:
    """A drawn diagram: its matplotlib ``figure`` and the ``alt`` text that says what it shows.

    In a notebook it displays once, as a PNG whose HTML carries the alt text (screen readers, static pages,
    slides); where no picture can show, its text form is the alt text.
    """

    name: str
    figure: Figure
    alt: str

    def png(self) -> bytes:
        # savefig puts the figure's layout engine back through rcParams: under the course style (constrained
        # layout on) a figure without one would come back with one, and warn at its next drawing
        with (
            io.BytesIO() as buffer,
            mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}),
        ):
            self.figure.savefig(buffer, format="png", dpi=DPI, facecolor="white")
            buffer.seek(0)
            image = Image.open(buffer).convert("RGB")
        # flat colours and their anti-aliased edges: a 256-colour palette looks the same at a third of the bytes
        with io.BytesIO() as buffer:
            image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(buffer, format="png", optimize=True)
            return buffer.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        encoded = base64.b64encode(self.png()).decode("ascii")
        width, height = (round(v * 100) for v in self.figure.get_size_inches())
        img = (
            f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(self.alt)}" width="{width}" '
            f'height="{height}" class="course-diagram" style="max-width:100%;height:auto">'
        )
        data = {"image/png": encoded, "text/html": img, "text/plain": self.alt}
        return data, {"image/png": {"width": width, "height": height, "alt": self.alt}}


def canvas(width: float, height: float):
    """(figure, axes): a white figure of ``width`` x ``height`` inches whose Axes counts in inches."""
    figure = Figure(figsize=(width, height), dpi=100, layout="none", facecolor="white")
    FigureCanvasAgg(figure)
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return figure, ax


def text(ax, xy, label: str, *, size: float = FONT_SIZE, color="black", **kwargs):
    """Centred text at ``xy`` (inches); Chinese in the course's CJK font (plain text only: not inside $...$)."""
    kwargs.setdefault("ha", "center")
    kwargs.setdefault("va", "center")
    # DejaVu Sans whatever the style; the CJK subset (no bold) only for text that needs it
    kwargs.setdefault("fontfamily", font_family(label))
    return ax.text(*xy, label, fontsize=size, color=color, **kwargs)


def box(
    ax,
    xy,
    label: str,
    role: str = "plain",
    *,
    width: float = 1.2,
    height: float = 0.6,
    size=FONT_SIZE,
    bold: bool = False,
):
    """A rounded box centred at ``xy`` (inches), tinted by ``role``, with ``label`` in it; returns the box patch."""
    color = ROLE[role]
    x, y = xy
    patch = FancyBboxPatch(
        (x - width / 2, y - height / 2),
        width,
        height,
        boxstyle="round,pad=0,rounding_size=0.1",
        facecolor=to_rgba(color, 0.16),
        edgecolor=color,
        linewidth=2.2,
    )
    ax.add_patch(patch)
    text(ax, xy, label, size=size, fontweight="bold" if bold else "normal")
    return patch


def arrow(
    ax,
    start,
    end,
    *,
    color="black",
    width: float = 2.0,
    style: str = "-|>",
    dashed: bool = False,
    shrink: float = 0.0,
    connection: str = "arc3",
    gid: str | None = None,
):
    """An arrow from ``start`` to ``end`` (inches); ``width`` is its line width in points; ``gid`` names it.

    ``dashed`` has one meaning for arrows in every diagram: the arrow carries nothing (a key with weight 0).
    A dashed box joined by a dashed line without a head (``generation_loop``'s KV-cache note) is a side note.
    """
    patch = FancyArrowPatch(
        start,
        end,
        arrowstyle=style,
        mutation_scale=18,
        color=color,
        linewidth=width,
        linestyle=(0, (4, 3)) if dashed else "-",
        shrinkA=shrink,
        shrinkB=shrink,
        connectionstyle=connection,
        gid=gid,
    )
    ax.add_patch(patch)
    return patch
