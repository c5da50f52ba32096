"""Interactive explorers: a figure built once whose artists are updated in place when a widget moves.

Each explorer is an object: ``explorer.controls`` holds its widgets by name, ``explorer.figure`` its
matplotlib figure, and displaying the explorer shows the controls above the figure. Moving a widget
calls ``update()``, which changes the data of existing artists (``set_height``, ``set_data``, ...) and
asks the canvas to redraw once; nothing is rebuilt. ``explorer.set(temperature=0.5)`` moves a widget
from code (that is what the headless tests do).

Every explorer also has a static small-multiples twin (the ``*_small_multiples`` functions) so the idea
survives on a slide or in a page without a kernel.
"""

from __future__ import annotations

import itertools
import time
import weakref

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ..plots import COLORS, buffer_png, interactive_figure
from .controls import check_control_value

__all__ = ["Explorer", "live_explorers", "bar_chart", "set_heights", "widget_bundle"]

# The registry every explorer joins when it is built (weakly: a registered explorer is freed as usual), in the
# order they were built. The static site's frames (tools/explorer_frames.py) export the explorers a notebook
# built: ``live_explorers()``.
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_ORDER = itertools.count()


def live_explorers() -> list:
    """Every explorer built in this process and still alive, in the order they were built."""
    return [explorer for _, explorer in sorted(_LIVE.items())]


class Explorer:
    """Base class: the figure is built once (``_build``); ``update`` moves artists when a control changes.

    Speed (a slider step must reach the screen in well under 150 ms): the artists that change are
    *animated*. A full draw happens once, with the layout solved then and frozen; the static rest of the
    figure is kept as a background bitmap, and each step only restores that bitmap, draws the few changing
    artists and sends the changed pixels (blitting), instead of redrawing every tick label and line.
    """

    figsize = (10.0, 3.2)
    dpi = 80
    # Controls whose change moves artists that are *not* animated (part of the background bitmap): for them
    # one full redraw replaces the blit. For rarely used controls (an example, a data-set size) only.
    static_controls: tuple = ()

    def __init__(self, controls: dict, *, interactive: bool = True, values: dict | None = None):
        """``values``: the controls' first values (from the constructor's arguments), checked like :meth:`set`.

        Each goes through :func:`check_control_value` before anything is drawn, so a bad one is refused
        with a ValueError naming the control instead of being clamped by the widget.
        """
        self.controls = controls
        self._set_values(values or {})
        self.figure, self.canvas = interactive_figure(self.figsize, dpi=self.dpi, interactive=interactive)
        interactive = isinstance(self.canvas, widgets.DOMWidget)  # False without ipympl: the PNG fallback view
        self.animated = self._build()
        for artist in self.animated:
            artist.set_animated(True)
        self._background = None
        self.canvas.mpl_connect("draw_event", self._on_full_draw)
        self.update()
        # The one full draw: solves the constrained layout and captures the background. Agg only: nothing is
        # sent, because the browser view does not exist yet (it asks for a full frame when it connects).
        FigureCanvasAgg.draw(self.canvas)
        self.figure.set_layout_engine("none")  # freeze the layout: no layout solver on later draws
        if interactive:
            view, self._image = self.canvas, None
        else:  # no ipympl: show a PNG that is re-rendered on each change
            view = self._image = widgets.Image(value=buffer_png(self.canvas), format="png")
        for control in controls.values():
            control.observe(self._on_change, names="value")
            describe_control(control, type(self).__name__)
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))  # wraps if narrow
        self.widget = widgets.VBox([row, view])
        _LIVE[next(_ORDER)] = self

    # subclasses fill these in
    def _build(self) -> list:  # pragma: no cover - abstract
        """Create every artist once; return the ones that ``update`` changes."""
        raise NotImplementedError

    def update(self):  # pragma: no cover - abstract
        """Set the data of the changing artists from the controls' values."""
        raise NotImplementedError

    def set(self, **values):
        """Move controls from code, as a reader would by hand; the figure follows.

        Every value is checked (:func:`check_control_value`) before any is stored, so a bad one leaves the
        explorer as it was; a control may snap a valid value to its nearest position (the temperature).
        """
        self._set_values(values)

    def _set_values(self, values: dict):
        checked = {}
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(f"unknown control {name!r}; this explorer has {sorted(self.controls)}")
            checked[name] = check_control_value(name, self.controls[name], value)
        for name, value in checked.items():
            self.controls[name].value = value

    def timed_step(self, **values) -> dict[str, float]:
        """Move controls like :meth:`set` and time the step's stages, in ms; nothing is sent to a browser.

        ``compute_ms``: :meth:`update` (the artists' new data); ``draw_ms``: the background bitmap and the
        changing artists drawn on it (the blit); ``encode_ms``: the changed pixels as PNG, what the browser
        view receives (ipympl's diff image, or the fallback view's PNG). For ``tools/bench.py``.
        """
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
        try:
            self._set_values(values)
        finally:
            for control in self.controls.values():
                control.observe(self._on_change, names="value")
        start = time.perf_counter()
        self.update()
        computed = time.perf_counter()
        self.canvas.restore_region(self._background)
        self._draw_animated()
        drawn = time.perf_counter()
        if hasattr(self.canvas, "get_diff_image"):  # ipympl: the PNG of the pixels changed since the last frame
            self.canvas._png_is_old = True
            self.canvas.get_diff_image()
        else:
            buffer_png(self.canvas)
        done = time.perf_counter()
        return {
            "compute_ms": 1000 * (computed - start),
            "draw_ms": 1000 * (drawn - computed),
            "encode_ms": 1000 * (done - drawn),
        }

    def _draw_animated(self):
        for artist in self.animated:
            self.figure.draw_artist(artist)

    def _on_full_draw(self, event):
        """After any full draw (first show, resize): keep the background, add the moving artists.

        Not after ``savefig``: it draws the animated artists too, so its picture is no background.
        """
        if self.canvas.is_saving():
            return
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._draw_animated()

    def redraw(self):
        """Blit: background bitmap + changing artists, then send the changed pixels to the browser."""
        self.canvas.restore_region(self._background)
        self._draw_animated()
        if getattr(self.canvas, "syncing_data_url", False):
            return  # ipympl with no browser view connected yet: it will request a full frame when it connects
        self.canvas.blit(self.figure.bbox)
        if self._image is not None:  # the fallback view: encode the already-blitted pixels, no full redraw
            self._image.value = buffer_png(self.canvas)

    def _on_change(self, change):
        self.update()
        if any(change["owner"] is self.controls[name] for name in self.static_controls):
            self.full_redraw()
        else:
            self.redraw()

    def full_redraw(self):
        """Redraw everything and capture a new background: for changes to artists that are not animated."""
        self.canvas.draw()  # fires draw_event: new background, then the animated artists on top
        if self._image is not None:
            self._image.value = buffer_png(self.canvas)

    def _repr_mimebundle_(self, **kwargs):
        """The widget, plus a PNG of the figure as it is now: what a saved notebook or HTML page shows."""
        bundle = widget_bundle(self.widget, **kwargs)
        bundle["image/png"] = buffer_png(self.canvas)
        return bundle


def _how_to_use(control) -> str:
    if isinstance(control, widgets.ToggleButtons):
        return "buttons: Tab to one, Enter or Space chooses it"
    if isinstance(control, widgets.Dropdown):
        return "a list: the arrow keys choose"
    return "a slider: the arrow keys step it, Home and End go to its ends"


def describe_control(control, owner: str) -> str:
    """Give ``control`` a tooltip a screen reader can read (ipywidgets shows it as the label's title): what it
    sets, how to move it from the keyboard, that the figure follows. A tooltip already set is kept."""
    if not getattr(control, "tooltip", None):
        name = getattr(control, "description", "") or "control"
        control.tooltip = f"{owner}, {name}: {_how_to_use(control)}; the figure below follows"
    return control.tooltip


def widget_bundle(widget, **kwargs) -> dict:
    """The display bundle of an ipywidgets widget, in ipywidgets 8 (JupyterLab 4) and 7.7 (Colab's release).

    ipywidgets 8 builds it in ``_repr_mimebundle_``; ipywidgets 7 has no such method (it displays through
    ``_ipython_display_``), so the same bundle is written out here as ipywidgets 7 writes it, and the widget
    is told it was displayed (its ``_handle_displayed`` callbacks run, as they would there).
    """
    if hasattr(widget, "_repr_mimebundle_"):
        return widget._repr_mimebundle_(**kwargs)
    bundle = {"text/plain": repr(widget)}
    if widget._view_name is not None:
        bundle["application/vnd.jupyter.widget-view+json"] = {
            "version_major": 2,
            "version_minor": 0,
            "model_id": widget._model_id,
        }
        widget._handle_displayed()  # ipywidgets 7 passes no arguments here either
    return bundle


def bar_chart(ax, labels, heights, colors=None):
    positions = np.arange(len(labels))
    bars = ax.bar(positions, heights, color=colors or COLORS["blue"], width=0.7)
    ax.set_xticks(positions, labels)
    ax.grid(axis="x", visible=False)
    return bars


def set_heights(bars, heights):
    for bar, height in zip(bars, heights, strict=True):
        bar.set_height(height)
