"""Interactive explorers: an explorer declares its controls and draws its figure for one position of them.

A subclass gives its controls (ipywidgets, by name) to ``Explorer.__init__``, builds its artists once in
``_build`` and sets their data from the controls' values in ``update``; it names its notebook
(``notebook``, which registers the class: ``explorer_classes()``), the control the benchmark steps
(``benched``), and builds itself as that notebook does (``example()``). That is all. The base class does
the rest:

- *the fast path* (the notebook, any front end that loads anywidget: JupyterLab, Colab, VS Code): the
  figure at each position is a frame drawn by the kernel the first time it is wanted and kept in the
  browser, the neighbours of the control being moved drawn ahead (``frames.py``, ``frames.js``: the same
  frames and front end as the static pages; at most 20 MB of frames per explorer in the browser and in the
  kernel, the oldest dropped first);
- *the kernel path* (where that front end cannot load): the controls as ipywidgets and the figure as an
  ipympl canvas (or PNGs without ipympl), redrawn by blitting at each step; a line under it says so;
- ``explorer.set(temperature=0.5)`` moves controls from code, in either path (what the headless tests do).

Every explorer also has a static small-multiples twin (the ``*_small_multiples`` functions) so the idea
survives on a slide or in a page without a kernel.
"""

from __future__ import annotations

import itertools
import time
import weakref
from types import SimpleNamespace

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .._drawing import DRAWING
from ..i18n import N_, _, get_language, speaking
from ..plots import buffer_png, in_language_fonts, interactive_figure
from .controls import check_control_value, describe_control, index_of, positions_or_none, tooltip_trait, widget_bundle
from .frames import FastPath, FrameCache, FrameView, frame_png

# The words the reader sees, in one place (translated where they are shown: attention_lab.i18n).
NOTE_KERNEL = N_("Kernel path: the kernel draws every step (the fast path's front end, anywidget, did not load here).")
KINDS = {widgets.Dropdown: "select"}
SLIDERS = (widgets.SelectionSlider, widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)

__all__ = ["Explorer", "explorer_classes", "live_explorers"]

# zlib's level for the PNG fallback view (no ipympl), encoded again at each change: zlib's best speed
LIVE_PNG = 1

# The registry every explorer joins when it is built (weakly: a registered explorer is freed as usual), in the
# order they were built. The static site's frames (tools/explorer_frames.py) export the explorers a notebook
# built: ``live_explorers()``.
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_ORDER = itertools.count()


# Every explorer class that names its notebook, by name: what the benchmark, the tests' generic inputs and the
# README's checks take the explorers from (``explorer_classes()``).
_CLASSES: dict = {}


def explorer_classes() -> list:
    """Every explorer class (one per figure of the course), in the order of their notebooks."""
    return sorted(_CLASSES.values(), key=lambda cls: cls.notebook)


def live_explorers() -> list:
    """Every explorer built in this process and still alive, in the order they were built."""
    return [explorer for _, explorer in sorted(_LIVE.items())]


class Explorer(FastPath):
    """Base class: the figure is built once (``_build``); ``update`` sets the changing artists' data.

    Drawing a position: the artists that change are *animated*. A full draw happens once, with the layout
    solved then and frozen; the static rest of the figure is kept as a background bitmap, and each position
    only restores that bitmap and draws the few changing artists on it (blitting).
    """

    figsize = (10.0, 3.2)
    dpi = 80
    # Controls whose change moves artists that are *not* animated (part of the background bitmap): for them
    # one full redraw replaces the blit. For rarely used controls (an example, a data-set size) only.
    static_controls: tuple = ()
    notebook = ""  # the notebook that shows it ("02"): a class that names one joins explorer_classes()
    benched = ""  # the control the benchmark steps

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.notebook:
            _CLASSES[cls.__name__] = cls

    @classmethod
    def example(cls, **arguments):  # pragma: no cover - abstract
        """The explorer as its notebook builds it (the course's data); ``arguments`` go to the constructor."""
        raise NotImplementedError

    @in_language_fonts  # the figure's words in the language's fonts; built holding _drawing.DRAWING, as it draws
    def __init__(self, controls: dict, *, interactive: bool = True, values: dict | None = None):
        """``values``: the controls' first values (from the constructor's arguments), checked like :meth:`set`.

        Each goes through :func:`check_control_value` before anything is drawn, so a bad one is refused
        with a ValueError naming the control instead of being clamped by the widget.
        """
        self.language = get_language()  # its words, now and in every frame it draws later
        self.controls = controls
        self._set_values(values or {})
        self.figure, self.canvas = interactive_figure(self.figsize, dpi=self.dpi, interactive=interactive)
        canvas_widget = isinstance(self.canvas, widgets.DOMWidget)  # False without ipympl: the PNG fallback view
        self.animated = self._build()
        for artist in self.animated:
            artist.set_animated(True)
        self._background, self._background_for = None, None
        self.canvas.mpl_connect("draw_event", self._on_full_draw)
        self._update()
        # The one full draw: solves the constrained layout and captures the background. Agg only: nothing is
        # sent, because the browser view does not exist yet (it asks for a full frame when it connects).
        FigureCanvasAgg.draw(self.canvas)
        self.figure.set_layout_engine("none")  # freeze the layout: no layout solver on later draws
        if canvas_widget:
            view, self._image = self.canvas, None
        else:  # no ipympl: show a PNG that is re-rendered on each change
            view = self._image = widgets.Image(value=buffer_png(self.canvas, LIVE_PNG), format="png")
        for control in controls.values():
            control.observe(self._on_change, names="value")
            describe_control(control, type(self).__name__)
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))  # wraps if narrow
        self._positions = {name: positions_or_none(control) for name, control in controls.items()}
        self.frames = FrameCache()
        self.view = None  # the fast path's FrameView, where every control can be enumerated
        self._kernel_view = widgets.VBox([row, view])
        if interactive:  # say which path is shown: this one is hidden once the fast path's front end runs
            self._kernel_view.children += (widgets.HTML(f"<small>{_(NOTE_KERNEL)}</small>"),)
        self.widget = self._kernel_view
        if interactive and FrameView is not None and all(p is not None for p in self._positions.values()):
            self.view = self._frame_view()
            self.widget = widgets.VBox([self.view, self._kernel_view])
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
        with DRAWING:  # the real controls, not a frame's stand-ins (_frame_at) on another thread
            checked = {}
            for name, value in values.items():
                if name not in self.controls:
                    raise ValueError(f"unknown control {name!r}; this explorer has {sorted(self.controls)}")
                checked[name] = check_control_value(name, self.controls[name], value)
            for name, value in checked.items():
                self.controls[name].value = value

    # -- positions and frames ------------------------------------------------------------------------
    def index(self) -> list[int]:
        """Where the controls are: each value's index among its control's positions (the nearest for a float)."""
        with DRAWING:  # the real controls, not a frame's stand-ins (_frame_at) on another thread
            return [index_of(self._positions[name], control.value) for name, control in self.controls.items()]

    def manifest(self, offered: dict | None = None) -> dict:
        """The controls as the front end shows them: name, label, kind, the labels of the positions offered
        (``offered[name]``: indices into every position; default all), the current one, how many there are;
        and ``language``, the one its labels and frames speak (the page's notes follow it)."""
        with DRAWING:  # the real controls, not a frame's stand-ins (_frame_at) on another thread
            controls, entries = dict(self.controls), []
        for name, control in controls.items():
            every = self._positions[name]
            chosen = (offered or {}).get(name, range(len(every)))
            here = index_of(every, control.value)
            entries.append(
                {
                    "name": name,
                    "label": control.description or name,
                    "kind": "slider" if isinstance(control, SLIDERS) else KINDS.get(type(control), "buttons"),
                    "labels": [every[j][0] for j in chosen],
                    "current": list(chosen).index(here) if here in chosen else 0,
                    "positions": len(every),
                    "tooltip": getattr(control, tooltip_trait(control), None) or "",
                }
            )
        return {
            "class": type(self).__name__,
            "width": int(round(self.figure.bbox.width)),
            "height": int(round(self.figure.bbox.height)),
            "controls": entries,
            "language": self.language,
        }

    def frame(self, index, *, compress_level: int = 1) -> bytes:
        """The PNG of the figure at position ``index`` (one index per control into its positions), kept.

        The controls are not moved: the position is drawn with stand-ins for them, so neither the kernel
        path's view nor the reader's controls change. Frames already drawn come from :attr:`frames`.
        ``compress_level``: :func:`~.frames.frame_png`'s, for a frame drawn now.
        """
        key = ",".join(str(int(i)) for i in index)
        with DRAWING:  # a frame request and the ipympl view's redraw may come on two threads (_drawing.DRAWING)
            png = self.frames.get(key)
            if png is None:
                values = {name: self._positions[name][i][1] for name, i in zip(self.controls, index, strict=True)}
                png = self._frame_at(values, compress_level=compress_level)
                self.frames.put(key, png)
        return png

    def _frame_at(self, values: dict, timings: dict | None = None, compress_level: int = 1) -> bytes:
        """The frame at ``values``, drawn with stand-ins for the controls: the caller holds DRAWING."""
        controls = self.controls
        self.controls = {name: SimpleNamespace(value=value) for name, value in values.items()}
        try:
            with speaking(self.language):
                start = time.perf_counter()
                self._update()
                computed = time.perf_counter()
                self._draw_position()
                drawn = time.perf_counter()
        finally:
            self.controls = controls
        png = frame_png(self.canvas, compress_level)
        if timings is not None:
            done = time.perf_counter()
            timings.update(
                compute_ms=1000 * (computed - start), draw_ms=1000 * (drawn - computed), encode_ms=1000 * (done - drawn)
            )
        return png

    def timed_step(self, **values) -> dict[str, float]:
        """The cost of drawing one new position (nothing kept, nothing sent), in ms, for ``tools/bench.py``.

        ``compute_ms``: :meth:`update` (the artists' new data); ``draw_ms``: the background bitmap and the
        changing artists drawn on it; ``encode_ms``: the frame's PNG, what the browser receives.
        """
        timings: dict = {}
        with DRAWING:
            current = {name: control.value for name, control in self.controls.items()}
            checked = {name: check_control_value(name, self.controls[name], v) for name, v in values.items()}
            self._frame_at({**current, **checked}, timings)
        return timings

    def _update(self):
        """:meth:`update`, noting the static controls' values the artists now show (``_on_full_draw``'s label)."""
        self.update()
        self._artists_for = self._static_values()

    def _static_values(self) -> tuple:
        return tuple(self.controls[name].value for name in self.static_controls)

    def _draw_position(self):
        """Draw the figure for the controls' values: a blit, or a full draw when a static control differs."""
        if self._background_for != self._static_values():
            FigureCanvasAgg.draw(self.canvas)  # fires draw_event: a new background, the animated artists on top
        else:
            self.canvas.restore_region(self._background)
            self._draw_animated()

    def _draw_animated(self):
        for artist in self.animated:
            self.figure.draw_artist(artist)

    def _on_full_draw(self, event):
        """After any full draw but savefig's (which draws the animated artists too): keep the background, add them."""
        if self.canvas.is_saving():
            return
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background_for = self._artists_for  # what the static artists show (a frame's, maybe not the reader's)
        self._draw_animated()

    # -- the kernel path -----------------------------------------------------------------------------
    def redraw(self):
        """Blit: background bitmap + changing artists, then send the changed pixels to the browser."""
        with DRAWING:
            if self._background_for != self._static_values():
                self.full_redraw()
                return
            self.canvas.restore_region(self._background)
            self._draw_animated()
            if getattr(self.canvas, "syncing_data_url", False):
                return  # ipympl with no browser view connected yet: it will request a full frame when it connects
            self.canvas.blit(self.figure.bbox)
            if self._image is not None:  # the fallback view: encode the already-blitted pixels, no full redraw
                self._image.value = buffer_png(self.canvas, LIVE_PNG)

    def _on_change(self, change):
        if self._fast():  # the browser shows the frame; the kernel draws only what it is asked for
            self.view.index = self.index()
            return
        with DRAWING, speaking(self.language):
            self._update()
            if any(change["owner"] is self.controls[name] for name in self.static_controls):
                self.full_redraw()
            else:
                self.redraw()

    def full_redraw(self):
        """Redraw everything and capture a new background: for changes to artists that are not animated."""
        with DRAWING:
            self.canvas.draw()  # fires draw_event: new background, then the animated artists on top
            if self._image is not None:
                self._image.value = buffer_png(self.canvas, LIVE_PNG)

    def _repr_mimebundle_(self, **kwargs):
        """The widget, plus a PNG of the figure as it is now: what a saved notebook or HTML page shows."""
        bundle = widget_bundle(self.widget, **kwargs)
        with DRAWING:  # the pixels as they are, not half-way through a draw on another thread
            bundle["image/png"] = buffer_png(self.canvas)
        return bundle
