"""Diagrams of attention as a lookup: the three steps (notebook 01), hard vs soft (02), Nadaraya-Watson (03),
and the keys a training point sees when its width w = 1/h is learned (04).

Numbers a diagram shows (weights, a prediction) are computed here by the library from the example it
states, never typed in.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..i18n import N_, _, pgettext
from ..kernels import KERNELS, nadaraya_watson
from ..normalisers import hard_attention, softmax
from ..plots import in_language_fonts
from ..regression_data import true_function
from ._draw import FONT_SIZE, ROLE, Diagram, arrow, box, canvas, text

__all__ = ["ALT_TEXT", "three_steps", "hard_vs_soft", "nadaraya_watson_pooling", "leave_one_out"]

# the examples the diagrams draw
LOOKUP_SCORES = np.array([1.0, 2.5, 0.5, 1.5])  # hard_vs_soft: scores alpha_i of four keys, (4,)
NW_KEYS = np.array([0.3, 0.8, 1.3, 1.9, 2.2, 2.6, 3.3, 3.9, 4.6])  # nadaraya_watson_pooling: keys x_i, (9,)
NW_QUERY, NW_BANDWIDTH = 2.4, 0.4
LOO_POINT, LOO_W = 4, 2.5  # leave_one_out: the training point x_i = NW_KEYS[4] as the query; w = 1/h


def _nw_example():
    """The regression example of ``nadaraya_watson_pooling``: values, prediction and weights at the query."""
    y_values = true_function(NW_KEYS) + np.random.default_rng(0).normal(0, 0.4, NW_KEYS.shape)  # values y_i, (9,)
    y_hat, weights = nadaraya_watson(np.array([NW_QUERY]), NW_KEYS, y_values, bandwidth=NW_BANDWIDTH)  # (1,), (1, 9)
    return y_values, y_hat[0], weights[0]


def _loo_example():
    """The weights of ``leave_one_out``: query x_i over all n keys (n,), and over the other n - 1 keys (n - 1,)."""
    x_i, others = NW_KEYS[LOO_POINT], np.delete(NW_KEYS, LOO_POINT)  # (), (n - 1,)
    lam_all = nadaraya_watson(np.array([x_i]), NW_KEYS, NW_KEYS, bandwidth=1 / LOO_W)[1][0]  # (n,)
    lam_loo = nadaraya_watson(np.array([x_i]), others, others, bandwidth=1 / LOO_W)[1][0]  # (n - 1,)
    return lam_all, lam_loo


def _numbers(values, style: str = ".2f", *, separator: str = ", ", last: str = " and ") -> str:
    return separator.join(f"{v:{style}}" for v in values[:-1]) + last + f"{values[-1]:{style}}"


# The alt texts that carry computed numbers: templates (translated where they are shown) and their values.
ALT_TEMPLATES = {
    "hard_vs_soft": N_(
        "Hard and soft lookup side by side, for one query q and four key-value pairs with scores "
        "{scores}, written in the key boxes. Left, hard lookup by argmax: the key with the "
        "largest score, k_{top}, gets weight 1 and the others 0 (dashed grey arrows), "
        "so the output is its value v_{top}. Right, soft lookup: every key gets a "
        "softmax weight at temperature T = 1 ({weights}; arrow widths follow the "
        "weights), and the output is the weighted average of all the values."
    ),
    "nadaraya_watson_pooling": N_(
        "Nadaraya-Watson regression as attention pooling over keys on the x-axis. Top: {n} training "
        "points, keys x_i on the horizontal axis and values y_i on the vertical one, drawn larger the more weight "
        "they get; a dashed vertical line marks the query x = {query}, and a star on it marks the prediction, "
        "the weighted average of the values ({prediction:.2f}). Bottom: the weights lambda_i(x) of the keys "
        "as stems whose tips lie on a curve, the Gaussian kernel of bandwidth h = {h} centred on the "
        "query divided by its sum over the keys, so lambda_i(x) = kappa((x - x_i)/h) / sum over j of "
        "kappa((x - x_j)/h): the keys within h "
        "of the query carry {near:.0%} of the weight."
    ),
    "leave_one_out": N_(
        "Which keys a training point sees, in two panels with the keys x_j on the horizontal axis and their weights "
        "lambda_j(x_i) as stems, for the training point x_i = {x_i} as the query, marked by a dashed "
        "vertical line, and a Gaussian kernel of width h = 1/w with w = {w}. Left, all n = {n} keys: "
        "x_i is one of its own keys, at distance 0, and takes the largest weight, {own:.2f}; "
        "as w grows it tends to 1, so the point copies its own value y_i. Right, leave-one-out: the same query sees "
        "the other n - 1 = {others} keys only; its own key is crossed out with weight 0, and the "
        "other weights are divided by what remains, one minus its weight: each grows by the same factor, their "
        "ratios stay the same, and its neighbours, already the heaviest, gain the most in absolute terms "
        "(the largest, {largest:.2f}, becomes {largest_loo:.2f}); "
        "the prediction "
        "f-hat_{{-i}}(x_i) comes from the other points. In each panel a grey curve, the Gaussian kernel centred on "
        "x_i divided by that panel's sum over its keys, passes through the tips of the stems; it peaks at x_i, "
        "where the right panel has no key."
    ),
}


def _alt_values(name: str, separator: str = ", ", last: str = " and ") -> dict:
    """The numbers :data:`ALT_TEMPLATES` ``[name]`` says, from the library (a list: ``separator`` between its
    numbers, ``last`` before the last one)."""
    if name == "hard_vs_soft":
        return {
            "scores": _numbers(LOOKUP_SCORES, "g", separator=separator, last=last),
            "top": int(np.argmax(LOOKUP_SCORES)) + 1,
            "weights": _numbers(softmax(LOOKUP_SCORES), separator=separator, last=last),
        }
    if name == "nadaraya_watson_pooling":
        _values, prediction, weights = _nw_example()
        near = weights[np.abs(NW_KEYS - NW_QUERY) <= NW_BANDWIDTH].sum()
        return {"n": len(NW_KEYS), "query": NW_QUERY, "prediction": prediction, "h": NW_BANDWIDTH, "near": near}
    lam_all, lam_loo = _loo_example()
    return {
        "x_i": NW_KEYS[LOO_POINT],
        "w": LOO_W,
        "n": len(NW_KEYS),
        "own": lam_all[LOO_POINT],
        "others": len(NW_KEYS) - 1,
        "largest": np.delete(lam_all, LOO_POINT).max(),
        "largest_loo": lam_loo.max(),
    }


def _alt(name: str) -> str:
    """The alt text of diagram ``name`` with its numbers, in the current language."""
    separator, last = pgettext("list of numbers", ", "), pgettext("list of numbers", " and ")
    return _(ALT_TEMPLATES[name]).format(**_alt_values(name, separator, last))


ALT_TEXT = {
    "three_steps": N_(
        "Attention in three steps, left to right. The query q is compared with every key: step 1, score, gives "
        "alpha_i = a(q, k_i) for keys 1 to n. Step 2, normalise: a softmax at temperature T turns the scores into "
        "weights lambda_i, non-negative and summing to 1. Step 3, weighted average: each value v_i is multiplied "
        "by its weight and the products are summed into the output, the sum over i of lambda_i v_i."
    ),
    **{name: ALT_TEMPLATES[name].format(**_alt_values(name)) for name in ALT_TEMPLATES},  # English
}


def three_steps() -> Diagram:
    """Score, normalise, weighted average: attention as three steps (notebook 01)."""
    figure, ax = canvas(12.6, 4.6)
    rows = [(3.3, "1"), (2.5, "2"), (1.7, None), (0.9, "n")]
    centre = 2.1
    box(ax, (0.7, centre), _("query\n$q$"), "query", width=1.1, height=1.0)
    box(ax, (5.4, centre), _("softmax\nat $T$"), "plain", width=1.4, height=3.0)
    box(ax, (11.35, centre), _("output\n$\\sum_i \\lambda_i v_i$"), "output", width=2.1, height=1.1)
    for y, i in rows:
        if i is None:
            for x in (3.0, 7.1, 9.0):
                text(ax, (x, y), "$\\vdots$")
            continue
        box(ax, (3.0, y), f"$\\alpha_{i} = a(q, k_{i})$", "weight", width=2.3, height=0.56)
        box(ax, (7.1, y), f"$\\lambda_{i}$", "weight", width=0.9, height=0.56)
        box(ax, (9.0, y), f"$\\lambda_{i} v_{i}$", "value", width=1.3, height=0.56)
        arrow(ax, (1.25, centre), (1.85, y))
        arrow(ax, (4.15, y), (4.7, y))
        arrow(ax, (6.1, y), (6.65, y))
        arrow(ax, (7.55, y), (8.35, y))
        arrow(ax, (9.65, y), (10.3, centre))
    for x, label in ((3.0, _("1. score")), (6.25, _("2. normalise")), (9.0, _("3. weighted average"))):
        text(ax, (x, 4.25), label, fontweight="bold")
    text(ax, (7.1, 0.3), "$\\lambda_i \\geq 0$, $\\sum_i \\lambda_i = 1$")
    return Diagram("three_steps", figure, _(ALT_TEXT["three_steps"]))


def hard_vs_soft() -> Diagram:
    """One query, four keys: hard attention picks one value, soft attention blends them all (notebook 02)."""
    alpha = LOOKUP_SCORES
    best = int(np.argmax(alpha)) + 1
    figure, ax = canvas(14.0, 5.6)
    panels = [
        (
            0.0,
            _("hard lookup (argmax): pick one key"),
            _("$\\lambda_{i^*} = 1$ for $i^* = \\mathrm{argmax}_i\\, \\alpha_i$, the others 0"),
            hard_attention(alpha),
            _("output\n$v_{{i^*}} = v_{best}$").format(best=best),
        ),
        (
            7.1,
            _("soft lookup: blend every key"),
            _("$\\lambda_i = \\mathrm{softmax}(\\alpha / T)_i$ at $T = 1$, all above 0"),
            softmax(alpha),
            _("output\n$\\sum_i \\lambda_i v_i$"),
        ),
    ]
    rows = [3.65, 2.7, 1.75, 0.8]
    centre = 2.225
    for x0, title, rule, lam, output in panels:
        text(ax, (x0 + 3.45, 5.3), title, fontweight="bold")
        text(ax, (x0 + 3.45, 4.8), rule)
        text(ax, (x0 + 2.1, 4.3), _("weights $\\lambda_i$"))
        box(ax, (x0 + 0.5, centre), _("query\n$q$"), "query", width=0.9, height=1.0)
        box(ax, (x0 + 6.1, centre), output, "output", width=1.5, height=1.1)
        for i, (y, score, weight) in enumerate(zip(rows, alpha, lam, strict=True)):
            used = weight > 0
            color = ROLE["weight"] if used else ROLE["plain"]
            label = f"$k_{i + 1}, v_{i + 1}$: $\\alpha_{i + 1} = {score:g}$"
            box(ax, (x0 + 3.75, y), label, "key" if used else "plain", width=2.1, height=0.56)
            arrow(ax, (x0 + 0.95, centre), (x0 + 2.7, y), color=color, width=0.8 + 7 * weight, dashed=not used)
            arrow(ax, (x0 + 4.8, y), (x0 + 5.35, centre), color=color, width=0.8 + 7 * weight, dashed=not used)
            t = 0.8  # the weight's label sits above its arrow, near the key
            text(ax, (x0 + 0.95 + t * 1.75, centre + t * (y - centre) + 0.22), f"{weight:.2f}", color="black")
    ax.plot([7.0, 7.0], [0.3, 5.5], color=ROLE["plain"], lw=1.5)
    return Diagram("hard_vs_soft", figure, _alt("hard_vs_soft"))


@in_language_fonts  # Chinese labels mixed with math draw in the CJK subset
def nadaraya_watson_pooling() -> Diagram:
    """Nadaraya-Watson as attention pooling: the keys on the x-axis, their weights for one query (notebook 03)."""
    x_keys, x_query, h = NW_KEYS, NW_QUERY, NW_BANDWIDTH
    y_values, y_hat, lam = _nw_example()
    figure = Figure(figsize=(11.5, 5.6), dpi=100, layout="constrained", facecolor="white")
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1.25, 1]})
    grid = np.union1d(np.linspace(0, 5, 401), x_keys)  # the keys are on the grid: the curve meets each stem tip
    kernel = KERNELS["gaussian"]
    for ax in (top, bottom):
        ax.axvline(x_query, color=ROLE["query"], lw=2.5, ls="--")
        ax.tick_params(labelsize=FONT_SIZE)
        ax.grid(alpha=0.3)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    top.scatter(x_keys, y_values, s=60 + 900 * lam, color=ROLE["value"], zorder=3, edgecolor="black", linewidth=0.8)
    top.plot([x_query], [y_hat], marker="*", ms=26, color=ROLE["output"], markeredgecolor="black", zorder=4)
    top.annotate(
        "$\\hat f(x) = \\sum_i \\lambda_i(x)\\, y_i$",
        (x_query, y_hat),
        xytext=(3.25, 0.3),
        fontsize=FONT_SIZE,
        arrowprops={"arrowstyle": "->", "lw": 1.5},
    )
    top.text(x_query - 0.07, 3.9, _("query $x$"), fontsize=FONT_SIZE, color="black", ha="right", va="center")
    top.set_ylabel(_("values $y_i$"), fontsize=FONT_SIZE)
    top.set_ylim(-0.6, 4.4)
    # the kernel divided by its sum over the keys: the weights lie on it
    curve = kernel((x_query - grid) / h) / kernel((x_query - x_keys) / h).sum()  # (len(grid),)
    bottom.plot(grid, curve, color=ROLE["plain"], lw=2.5, gid="normalised kernel")
    bottom.vlines(x_keys, 0, lam, color=ROLE["weight"], lw=5, gid="weights")
    bottom.plot(x_keys, lam, "o", color=ROLE["weight"], ms=9)
    bottom.text(
        0.05,
        0.47,
        _(
            "every weight lies on the normalised kernel:\n"
            "$\\lambda_i(x) = \\kappa((x - x_i)/h) \\,/\\, \\sum_j \\kappa((x - x_j)/h)$"
        ),
        fontsize=FONT_SIZE,
        va="center",
    )
    bottom.annotate("", (x_query - h, 0.2), (x_query + h, 0.2), arrowprops={"arrowstyle": "<->", "lw": 2})
    bottom.text(x_query + h + 0.08, 0.2, "$2h$", fontsize=FONT_SIZE, va="center")
    bottom.set_ylabel(_("weights $\\lambda_i(x)$"), fontsize=FONT_SIZE)
    bottom.set_xlabel(_("keys $x_i$ and the query $x$, on one axis"), fontsize=FONT_SIZE)
    bottom.set_ylim(0, 0.58)
    bottom.set_xlim(0, 5.15)  # room for the last tick label
    return Diagram("nadaraya_watson_pooling", figure, _alt("nadaraya_watson_pooling"))


@in_language_fonts  # Chinese labels mixed with math draw in the CJK subset
def leave_one_out() -> Diagram:
    """The keys a training point x_i sees: all n, itself included, or the other n - 1 (notebook 04)."""
    x_i, w = NW_KEYS[LOO_POINT], LOO_W
    lam_all, lam_loo = _loo_example()
    others = np.delete(NW_KEYS, LOO_POINT)
    figure = Figure(figsize=(12.6, 4.9), dpi=100, layout="constrained", facecolor="white")
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2, sharey=True)
    grid = np.linspace(0, 5, 401)
    kernel = KERNELS["gaussian"]
    panels = [
        (left, _("all $n$ keys: $x_i$ is one of them"), NW_KEYS, lam_all),
        (right, _("leave-one-out: the other $n - 1$"), others, lam_loo),
    ]
    for ax, title, keys, lam in panels:
        ax.axvline(x_i, color=ROLE["query"], lw=2.5, ls="--")
        # the kernel divided by this panel's normaliser: the weights lie on it
        curve = kernel((x_i - grid) * w) / kernel((x_i - keys) * w).sum()
        ax.plot(grid, curve, color=ROLE["plain"], lw=2.5, label=_("kernel / the panel's sum:\nthe stems end on it"))
        ax.vlines(keys, 0, lam, color=ROLE["weight"], lw=5)
        ax.plot(keys, lam, "o", color=ROLE["weight"], ms=9)
        ax.set_title(title, fontsize=FONT_SIZE, fontweight="bold")
        ax.set_xlabel(_("keys $x_j$"), fontsize=FONT_SIZE)
        ax.tick_params(labelsize=FONT_SIZE)
        ax.grid(alpha=0.3)
        ax.set_xlim(0, 5.15)
        ax.set_ylim(0, 0.8)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.text(x_i - 0.08, 0.74, _("query $x_i$"), fontsize=FONT_SIZE, ha="right", va="center")
        ax.annotate("", (x_i - 1 / w, 0.1), (x_i + 1 / w, 0.1), arrowprops={"arrowstyle": "<->", "lw": 2})
        ax.text(x_i + 1 / w + 0.1, 0.1, "$2h = 2/w$", fontsize=FONT_SIZE, va="center")
    left.set_ylabel(_("weights $\\lambda_j(x_i)$"), fontsize=FONT_SIZE)
    own = _("its own key: weight\n$\\to 1$ as $w \\to \\infty$")
    left.plot([x_i], [lam_all[LOO_POINT]], "o", color=ROLE["query"], ms=13, mec="black", label=own)
    right.plot(
        [x_i], [0], "X", color=ROLE["query"], ms=16, mec="black", clip_on=False, label=_("its own key:\nleft out")
    )
    for ax in (left, right):
        ax.legend(loc="upper left", bbox_to_anchor=(0.53, 0.82), fontsize=FONT_SIZE, frameon=False, handletextpad=0.3)
    return Diagram("leave_one_out", figure, _alt("leave_one_out"))
