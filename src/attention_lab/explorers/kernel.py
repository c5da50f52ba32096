"""The kernel-width explorer of notebook 03: Nadaraya-Watson regression seen as attention pooling.

Queries are the test inputs x, keys the training inputs x_i, values the training targets y_i. Moving the
bandwidth h, the kernel or the number of training points updates, in place:

- the regression curve f_hat(x) = sum_i lambda_i(x) y_i against the truth and the training points;
- the weight matrix lambda_i(x), queries on rows and keys on columns, both in x units, log colour scale;
- the weight profile of one chosen query over the keys, with how many keys it effectively averages.

``kernel_small_multiples`` draws the same panels for a few bandwidths as one static figure.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._checks import check_count, check_seed
from ..i18n import N_, _
from ..kernels import KERNELS, nadaraya_watson
from ..normalisers import effective_keys
from ..plots import COLORS, in_language_fonts
from ..regression_data import RegressionData, make_regression_data, true_function
from .base import Explorer
from .weights_figure import fit_and_weights_columns, weight_image

__all__ = [
    "BANDWIDTH_RANGE",
    "TRAIN_SIZES",
    "KernelExplorer",
    "kernel_small_multiples",
]

BANDWIDTH_RANGE = (0.03, 5.0)  # the slider's ends, log scale
TRAIN_SIZES = (50, 500, 1000)  # the experiment of the original post on Nadaraya-Watson
# The kernels' buttons, in the reader's language (translated where shown); the code keeps KERNELS' names.
KERNEL_LABELS = {"gaussian": N_("gaussian"), "boxcar": N_("boxcar"), "epanechnikov": N_("epanechnikov")}


class KernelExplorer(Explorer):
    """Bandwidth h (log slider), kernel, number of training points and one query: watch attention pooling.

    ``datasets`` maps a training-set size to its :class:`RegressionData` (default: ``make_regression_data``
    with ``seed`` for 50, 500 and 1000 points); all must share the same queries ``x_test``. ``query`` is one
    of those x_test (default: the middle one); every starting value is checked like :meth:`set` checks it.
    """

    figsize = (11.0, 3.7)
    static_controls = ("n_train",)

    notebook = "03"
    benched = "bandwidth"

    @classmethod
    def example(cls, **arguments):
        """As its notebook builds it: notebook 03's 1000 training points; ``arguments`` go to the constructor."""
        return cls(**{"n_train": 1000, **arguments})

    def __init__(
        self,
        datasets: dict | None = None,
        *,
        bandwidth=0.3,
        kernel="gaussian",
        n_train=50,
        query=None,
        seed=0,
        interactive=True,
    ):
        if datasets is None:
            datasets = {n: make_regression_data(n, seed=check_seed(seed)) for n in TRAIN_SIZES}
        if (
            not isinstance(datasets, dict)
            or not datasets
            or not all(isinstance(d, RegressionData) for d in datasets.values())
        ):
            raise ValueError(f"datasets must map sizes to RegressionData, got {type(datasets).__name__}")
        for n in datasets:
            check_count(n, "each size in datasets (its keys)", 1)
        self.datasets = {int(n): d for n, d in datasets.items()}
        for n, d in self.datasets.items():
            if d.x_train.ndim != 1 or d.x_train.shape != d.y_train.shape or d.x_train.size == 0:
                raise ValueError(
                    f"datasets[{n}] must have 1-D x_train and y_train of one length >= 1, got shapes "
                    f"{d.x_train.shape} and {d.y_train.shape}"
                )
            if not all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in d):
                raise ValueError(f"datasets[{n}] must hold finite numbers only")
        first = next(iter(self.datasets.values()))
        self.x_test, self.y_truth = first.x_test, first.y_truth
        if any(not np.array_equal(d.x_test, self.x_test) for d in self.datasets.values()):
            raise ValueError("every data set in datasets must have the same queries x_test")
        low, high = BANDWIDTH_RANGE
        controls = {
            "bandwidth": widgets.FloatLogSlider(
                value=1.0,
                base=10,
                min=np.log10(low),
                max=np.log10(high),
                step=0.05,
                description="h",
                readout_format=".3g",
                continuous_update=True,
                layout=widgets.Layout(width="380px"),
            ),
            "query": widgets.SelectionSlider(
                options=[(f"{x:.1f}", float(x)) for x in self.x_test],
                description=_("query x"),
                continuous_update=True,
                layout=widgets.Layout(width="330px"),
            ),
            "kernel": widgets.ToggleButtons(
                options=[(_(KERNEL_LABELS.get(name, name)), name) for name in KERNELS],
                description=_("kernel"),
                style={"button_width": "124px"},  # "Epanechnikov 核"
            ),
            "n_train": widgets.ToggleButtons(
                options=[(str(n), n) for n in self.datasets], description=_("points"), style={"button_width": "56px"}
            ),
        }
        if query is None:  # the middle query (2.5 for the course's data)
            query = float(self.x_test[len(self.x_test) // 2])
        values = {"bandwidth": bandwidth, "query": query, "kernel": kernel, "n_train": n_train}
        super().__init__(controls, interactive=interactive, values=values)

    def compute(self, bandwidth, kernel, n_train):
        """(predictions at x_test (50,), weights (50, n_train), test MSE over the defined predictions)."""
        data = self.datasets[n_train]
        # Two rules, not one checked twice: the slider took h only inside its range (0.03 to 5, what it can
        # show); nadaraya_watson checks h > 0, its formula's domain, for every caller. h is any number in that
        # range (not one of a few positions, as T is), so there is no table to compute ahead.
        y_hat, weights = nadaraya_watson(self.x_test, data.x_train, data.y_train, bandwidth=bandwidth, kernel=kernel)
        defined = np.isfinite(y_hat)
        mse = float(np.mean((y_hat[defined] - self.y_truth[defined]) ** 2)) if defined.any() else np.nan
        return y_hat, weights, mse

    def _build(self) -> list:
        self.ax_fit, self.ax_heat, self.ax_profile = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.15, 1.0, 1.0]}
        )
        ax = self.ax_fit
        dense = np.linspace(0, 5, 201)
        ax.plot(dense, true_function(dense), color=COLORS["black"], lw=1.5, label=_("truth f(x)"))
        (self.points,) = ax.plot(
            [], [], ls="none", marker="o", ms=3, alpha=0.5, color=COLORS["grey"], label=_(r"training $(x_i, y_i)$")
        )
        (self.curve,) = ax.plot(
            [], [], color=COLORS["vermillion"], lw=2.2, marker="o", ms=2.5, label=_(r"prediction $\hat f(x)$")
        )
        self.fit_query = ax.axvline(0, color=COLORS["orange"], lw=1, ls="--")
        all_y = np.concatenate([d.y_train for d in self.datasets.values()])
        ax.set_ylim(min(all_y.min(), -1.0) - 0.3, all_y.max() + 1.2)
        ax.set_xlim(-0.1, 5.1)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.legend(loc="upper right", fontsize=8.5, ncols=1, framealpha=0.85)
        self.fit_title = ax.set_title("")

        data = self.datasets[self.controls["n_train"].value]
        empty = np.zeros((self.x_test.size, data.x_train.size))
        self.image = weight_image(self.ax_heat, data.x_train, self.x_test, empty)
        self.figure.colorbar(self.image, ax=self.ax_heat, label=_(r"weight $\lambda_i(x)$ (log)"), extend="min")
        self.heat_query = self.ax_heat.axhline(0, color=COLORS["orange"], lw=1.2, ls="--")
        self.ax_heat.set_title(_("weights: queries x keys"))

        ax = self.ax_profile
        (self.profile,) = ax.plot([], [], color=COLORS["blue"], marker="o", ms=2.5, lw=1.2)
        self.profile_query = ax.axvline(0, color=COLORS["orange"], lw=1.2, ls="--")
        self.profile_text = ax.text(0.03, 0.97, "", transform=ax.transAxes, va="top", fontsize=9.5)
        ax.set_xlim(-0.1, 5.1)
        ax.set_ylim(0, 1.45)
        ax.set_xlabel(_(r"key $x_i$"))
        ax.set_ylabel(_(r"relative weight $\lambda_i(x) / \max_j \lambda_j(x)$"), fontsize=9.5)
        self.profile_title = ax.set_title("")
        # The training points are not animated: they change only with their number (a static control, one
        # full redraw), so a bandwidth or query step does not redraw up to 1000 markers.
        return [
            self.curve,
            self.fit_query,
            self.fit_title,
            self.image,
            self.heat_query,
            self.profile,
            self.profile_query,
            self.profile_text,
            self.profile_title,
        ]

    def update(self, bandwidth, kernel, n_train, query):
        h, n, x = bandwidth, n_train, query
        data = self.datasets[n]
        y_hat, weights, mse = self.compute(h, kernel, n)
        self.points.set_data(data.x_train, data.y_train)
        self.profile.set_marker("o" if n <= 100 else "")  # 1000 markers would cost more than they show
        self.curve.set_data(self.x_test, y_hat)
        gaps = int(np.sum(~np.isfinite(y_hat)))
        if gaps:
            self.fit_title.set_text(_("test MSE {mse:.3f}, gaps: {gaps}").format(mse=mse, gaps=gaps))
        else:
            self.fit_title.set_text(_("test MSE {mse:.3f}").format(mse=mse))
        self.image.set_data(data.x_train, self.x_test, weights)
        row = int(np.argmin(np.abs(self.x_test - x)))
        for line in (self.fit_query, self.profile_query):
            line.set_xdata([x, x])
        self.heat_query.set_ydata([x, x])
        lam = weights[row]
        top = lam.max()
        self.profile_title.set_text(_("weights of query x = {x:.1f}").format(x=x))
        if top > 0:
            self.profile.set_data(data.x_train, lam / top)
            self.profile_text.set_text(
                _("max $\\lambda_i$ = {top:.3g}\neffective keys $1/\\sum\\lambda_i^2$ = {effective:.1f} of {n}").format(
                    top=top, effective=effective_keys(lam), n=n
                )
            )
        else:
            self.profile.set_data([], [])
            self.profile_text.set_text(
                _("no key within h = {h:.3g} of x = {x:.1f}:\n0/0, no prediction here").format(h=h, x=x)
            )


@in_language_fonts
def kernel_small_multiples(data: RegressionData, bandwidths=(0.1, 0.3, 1.0, 3.0), *, kernel="gaussian"):
    """Static twin of :class:`KernelExplorer`: fit (top) and weight matrix (bottom) for several bandwidths."""
    if not isinstance(data, RegressionData):
        raise ValueError(f"data must be RegressionData (from make_regression_data), got {type(data).__name__}")
    columns = []
    for h in bandwidths:
        y_hat, weights = nadaraya_watson(data.x_test, data.x_train, data.y_train, bandwidth=h, kernel=kernel)
        columns.append((f"h = {h:g}", y_hat, weights))
    return fit_and_weights_columns(data, columns)
