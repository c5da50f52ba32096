"""Positional-encoding explorer (notebook 07): the sinusoidal encoding by dimension and by position.

Choose a dimension and a position. Left: the whole encoding PE (positions down, dimensions across) with
the chosen row and column marked. Middle: the chosen dimension as a function of position, a sine or
cosine whose wavelength grows with the dimension. Right: the dot products PE(pos) . PE(pos') of the chosen
position with every other one, plotted against the offset pos' - pos, on top of sum_r cos(offset omega_r): they
coincide for every pos, because the dot product depends on the offset only.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from .._checks import check_count
from ..i18n import _
from ..plots import CMAP, COLORS, in_language_fonts
from ..positional import frequencies, offset_dot_products, sinusoidal_encoding
from .base import Explorer

__all__ = ["PositionalEncodingExplorer", "positional_small_multiples", "offset_dot_products"]


def _encoding(n_positions: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """(PE (n, d) float64, angular frequencies omega_r (d/2,)) after checking the sizes."""
    n_positions, d_model = check_count(n_positions, "n_positions", 2), check_count(d_model, "d_model", 2)
    if d_model % 2:
        raise ValueError(f"d_model must be even (sine and cosine columns come in pairs), got {d_model}")
    return sinusoidal_encoding(n_positions, d_model), frequencies(d_model)


class PositionalEncodingExplorer(Explorer):
    """Slide the dimension (which sinusoid) and the position (which row, whose dot products are shown)."""

    figsize = (11.5, 3.6)

    notebook = "07"
    benched = "position"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 07's 64 positions of width 32; ``arguments`` go to the constructor."""
        return cls(64, 32, **{"dimension": 6, **arguments})

    def __init__(
        self, n_positions: int = 64, d_model: int = 32, *, dimension: int = 0, position=None, interactive: bool = True
    ):
        self.pe, self.frequencies = _encoding(n_positions, d_model)
        self.n_positions, self.d_model = self.pe.shape
        slider = {
            "continuous_update": True,
            "style": {"description_width": "initial"},
            "layout": widgets.Layout(width="400px"),
        }
        controls = {
            "dimension": widgets.IntSlider(min=0, max=d_model - 1, description=_("dimension"), **slider),
            "position": widgets.IntSlider(min=0, max=n_positions - 1, description=_("position pos"), **slider),
        }
        position = min(20, n_positions - 1) if position is None else position  # default: position 20 where it exists
        super().__init__(controls, interactive=interactive, values={"dimension": dimension, "position": position})

    def _build(self) -> list:
        n, d = self.n_positions, self.d_model
        self.ax_map, self.ax_curve, self.ax_dot = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.0, 1.1, 1.1]}
        )
        ax = self.ax_map
        image = ax.imshow(self.pe, cmap=CMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        self.figure.colorbar(image, ax=ax, label=_("PE value"))
        ax.set_xlabel(_("dimension"))
        ax.set_ylabel(_("position pos"))
        ax.grid(False)
        ax.set_title(_("the encoding PE"))
        self.column = ax.axvline(0, color=COLORS["vermillion"], lw=1.5)
        self.row = ax.axhline(0, color=COLORS["orange"], lw=1.5)

        ax = self.ax_curve
        positions = np.arange(n)
        (self.curve,) = ax.plot(positions, self.pe[:, 0], color=COLORS["vermillion"], lw=2, marker=".", ms=4)
        (self.dot,) = ax.plot([0], [0], "o", color=COLORS["orange"], ms=9)
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(-1.15, 1.15)
        ax.set_xlabel(_("position pos"))
        ax.set_ylabel(_("PE[pos, dimension]"))
        self.curve_title = ax.set_title("")

        ax = self.ax_dot
        offsets = np.arange(-(n - 1), n)
        ax.plot(
            offsets,
            offset_dot_products(self.frequencies, offsets, d),
            color=COLORS["grey"],
            lw=5,
            alpha=0.5,
            label=r"$\sum_r \cos(\delta\,\omega_r)$",
        )
        (self.dots,) = ax.plot(
            offsets[:n], np.zeros(n), color=COLORS["blue"], lw=1.5, label=r"PE(pos)$\cdot$PE(pos$'$)"
        )
        ax.axvline(0, color=COLORS["grey"], lw=0.8, ls="--")
        ax.set_xlim(-(n - 1), n - 1)
        reference = offset_dot_products(self.frequencies, offsets, d)
        ax.set_ylim(reference.min() - 0.08 * d, d * 1.1)
        ax.set_xlabel(_(r"offset $\delta$ = pos$'$ - pos"))
        ax.set_ylabel(_("dot product"))
        ax.legend(loc="upper right", fontsize=8.5)
        self.dot_title = ax.set_title("")
        return [self.column, self.row, self.curve, self.dot, self.curve_title, self.dots, self.dot_title]

    def update(self, dimension, position):
        i, p = dimension, position
        r = i // 2  # the pair of dimension i: its angular frequency is omega_r
        wavelength = 2 * np.pi / self.frequencies[r]
        self.column.set_xdata([i, i])
        self.row.set_ydata([p, p])
        self.curve.set_ydata(self.pe[:, i])
        self.dot.set_data([p], [self.pe[p, i]])
        kind = "sin" if i % 2 == 0 else "cos"
        self.curve_title.set_text(
            _("dimension {i}: {kind}(pos ω_{r}), wavelength {wavelength:,.1f}").format(
                i=i, kind=kind, r=r, wavelength=wavelength
            )
        )
        self.dots.set_data(np.arange(self.n_positions) - p, self.pe @ self.pe[p])
        self.dot_title.set_text(_("pos = {p}: dot products vs offset").format(p=p))


@in_language_fonts
def positional_small_multiples(
    n_positions: int = 64, d_model: int = 32, dimensions=(0, 6, 14, 30), positions=(0, 20, 50)
):
    """Static twin: a few dimensions as functions of position (top); dot products vs offset for a few pos (bottom)."""
    pe, omega = _encoding(n_positions, d_model)
    fig = Figure(figsize=(2.8 * len(dimensions), 5.2), layout="constrained")
    grid = fig.add_gridspec(2, len(dimensions))
    for column, i in enumerate(dimensions):
        i = check_count(i, "dimensions", 0, d_model - 1)
        ax = fig.add_subplot(grid[0, column])
        ax.plot(np.arange(n_positions), pe[:, i], color=COLORS["vermillion"], lw=1.8)
        ax.set_ylim(-1.15, 1.15)
        ax.set_title(
            _("dimension {i}: wavelength {wavelength:,.1f}").format(i=i, wavelength=2 * np.pi / omega[i // 2]),
            fontsize=9.5,
        )
        ax.set_xlabel(_("position pos"))
        if column == 0:
            ax.set_ylabel(_("PE[pos, dimension]"))
    ax = fig.add_subplot(grid[1, :])
    offsets = np.arange(-(n_positions - 1), n_positions)
    ax.plot(
        offsets,
        offset_dot_products(omega, offsets, d_model),
        color=COLORS["grey"],
        lw=6,
        alpha=0.5,
        label=r"$\sum_r \cos(\delta\,\omega_r)$",
    )
    for p, color in zip(positions, (COLORS["blue"], COLORS["orange"], COLORS["green"], COLORS["purple"]), strict=False):
        p = check_count(p, "positions", 0, n_positions - 1)
        ax.plot(np.arange(n_positions) - p, pe @ pe[p], color=color, lw=1.5, label=f"PE({p}) · PE(pos')")
    ax.set_xlabel(_(r"offset $\delta$ = pos$'$ - pos"))
    ax.set_ylabel(_("dot product"))
    ax.legend(loc="upper right", fontsize=8.5, ncol=2)
    ax.set_title(_("the dot product of two positions depends only on their offset"))
    return fig
