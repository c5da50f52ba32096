"""The regression figure two explorers share: the fit above, the weight matrix lambda_i(x) below.

Drawn by the kernel explorer of notebook 03 (one column per bandwidth) and by the training scrubber of
notebook 04 (one column per epoch); a shared module beside :mod:`.base`, so neither explorer imports the other.
"""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.image import NonUniformImage

from ..i18n import _
from ..plots import CMAP, COLORS
from ..regression_data import RegressionData

__all__ = ["WEIGHT_FLOOR", "weight_image", "fit_and_weights_columns", "bar_chart", "set_heights"]

WEIGHT_FLOOR = 1e-4  # weights below this are drawn white (the colour scale is logarithmic)
_WEIGHT_CMAP = matplotlib.colormaps[CMAP].with_extremes(under="white", bad="white")


def weight_image(ax, x_keys, x_query, weights):
    """lambda_i(x) as an image with keys along x and queries down y, both in x units (keys are not evenly spaced)."""
    image = NonUniformImage(
        ax, interpolation="nearest", cmap=_WEIGHT_CMAP, norm=LogNorm(WEIGHT_FLOOR, 1.0), extent=(0, 5, 5, 0)
    )
    image.set_data(x_keys, x_query, np.maximum(weights, 0.0))
    ax.add_image(image)
    ax.set_xlim(0, 5)
    ax.set_ylim(x_query[-1] + 0.05, x_query[0] - 0.05)  # first query at the top, like a matrix
    ax.set_xlabel(_(r"key $x_i$"))
    ax.set_ylabel(_(r"query $x$"))
    ax.grid(False)
    return image


def fit_and_weights_columns(data: RegressionData, columns) -> Figure:
    """Static small multiples: for each (title, y_hat, weights), the fit on top and the weight matrix below.

    Shared by the static twins of the kernel explorer (one column per bandwidth) and of the training
    scrubber (one column per epoch). Predictions are drawn with markers, so a lone defined point between
    compact-kernel gaps stays visible.
    """
    fig = Figure(figsize=(2.75 * len(columns) + 0.6, 5.6), layout="constrained")
    axes = fig.subplots(2, len(columns), squeeze=False)
    for column, (title, y_hat, weights) in enumerate(columns):
        ax = axes[0, column]
        ax.plot(data.x_train, data.y_train, ls="none", marker="o", ms=3, alpha=0.5, color=COLORS["grey"])
        ax.plot(data.x_test, data.y_truth, color=COLORS["black"], lw=1.2)
        ax.plot(data.x_test, y_hat, color=COLORS["vermillion"], lw=2, marker="o", ms=2)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("x")
        image = weight_image(axes[1, column], data.x_train, data.x_test, weights)
        if column:
            axes[1, column].set_ylabel("")
    axes[0, 0].set_ylabel("y")
    fig.colorbar(image, ax=list(axes[1]), label=_(r"weight $\lambda_i(x)$ (log)"), extend="min")
    return fig


def bar_chart(ax, labels, heights, colors=None):
    """Bars of ``heights`` over ``labels`` (the lookup and temperature explorers' scores and weights)."""
    positions = np.arange(len(labels))
    bars = ax.bar(positions, heights, color=colors or COLORS["blue"], width=0.7)
    ax.set_xticks(positions, labels)
    ax.grid(axis="x", visible=False)
    return bars


def set_heights(bars, heights):
    """Move the bars of :func:`bar_chart` to new heights, in place."""
    for bar, height in zip(bars, heights, strict=True):
        bar.set_height(height)
