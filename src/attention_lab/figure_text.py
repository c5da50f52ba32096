"""A figure in words: the alt text of the notebooks' static figures, built from the figure's own labels.

:func:`describe` reads what the code wrote on the figure (the title, each panel's title, axis labels and
legend entries) and says it in one plain sentence, with TeX marks removed (``$\\lambda_i$`` reads
``lambda_i``). :func:`describe_figures_in_ipython` makes every figure that the inline backend shows carry that
sentence as its ``alt`` metadata, which the static pages turn into the image's alt text (a screen reader
reads it); ``use_course_style`` turns it on.
"""

from __future__ import annotations

import re

from matplotlib.figure import Figure

from .i18n import _

__all__ = ["describe", "describe_figures_in_ipython"]

MAX_CHARS = 600
_FORMATTING = re.compile(r"\\(?:mathrm|mathbf|mathit|operatorname|text)\s*")
_COMMAND = re.compile(r"\\([A-Za-z]+)(?=[\\{])")  # \partial\lambda -> "partial lambda", \sqrt{d} -> "sqrt d"


def _plain(text: str) -> str:
    text = _COMMAND.sub(r"\1 ", _FORMATTING.sub("", text))
    return re.sub(r"\s+", " ", re.sub(r"\\|[${}]", "", text)).strip()


def _panel(ax) -> str:
    parts = []
    title = " ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t)
    if title:
        parts.append(_('"{title}"').format(title=_plain(title)))
    for axis, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
        if label:
            parts.append(_('{axis}: "{label}"').format(axis=axis, label=_plain(label)))
    legend = ax.get_legend()
    entries = [t.get_text() for t in legend.get_texts()] if legend is not None else []
    if entries:
        quoted = _(", ").join(_('"{title}"').format(title=_plain(e)) for e in entries if e)
        parts.append(_("legend: {entries}").format(entries=quoted))
    return _("; ").join(parts)


def describe(fig: Figure) -> str:
    """One sentence saying what ``fig`` shows, from its title, panel titles, axis labels and legends."""
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    suptitle = fig.get_suptitle()  # "" when there is none (public since matplotlib 3.8)
    head = _('Figure "{title}"').format(title=_plain(suptitle)) if suptitle else _("Figure")
    panels = [(i + 1, _panel(ax)) for i, ax in enumerate(axes)]
    described = [_("panel {i}: {text}").format(i=i, text=text) if len(axes) > 1 else text for i, text in panels if text]
    if len(axes) > 1:
        head = _("{head} with {n} panels").format(head=head, n=len(axes))
    if described:
        text = _("{head}: {panels}.").format(head=head, panels=_("; ").join(described))
    else:
        text = _("{head} (no titles or axis labels).").format(head=head)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1].rstrip() + "…"


def describe_figures_in_ipython() -> bool:
    """Give every figure the inline backend shows an ``alt`` text (:func:`describe`); False outside IPython.

    Wraps the PNG formatter registered for ``Figure`` (``%matplotlib inline`` registers it) so that it returns
    ``(png, {"alt": describe(fig)})``; IPython puts the second part into the output's metadata.
    Safe to call again: a wrapped formatter is not wrapped twice.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["image/png"]
    try:
        png = formatter.lookup_by_type(Figure)
    except KeyError:  # no inline backend: nothing to describe
        return False
    if getattr(png, "_describes_figures", False):
        return True

    def png_with_alt(fig, *args, **kwargs):
        data = png(fig, *args, **kwargs)
        if data is None or isinstance(data, tuple):
            return data
        return data, {"alt": describe(fig)}

    png_with_alt._describes_figures = True
    formatter.for_type(Figure, png_with_alt)
    return True
