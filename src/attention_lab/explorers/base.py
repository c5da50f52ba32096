"""Interactive explorers: an explorer declares its controls and draws its figure for one position of them.

A subclass gives its controls (ipywidgets, by name) to ``Explorer.__init__``, builds its artists once in
``_build`` and sets their data from the values it is given in ``update(**values)``; it names its notebook
(``notebook``, which registers the class: ``explorer_classes()``), the control the benchmark steps
(``benched``), and builds itself as that notebook does (``example()``). That is all. The base class does
the rest, with one front end and one fallback:

- *the front end* (any that loads anywidget: JupyterLab, Colab, VS Code): the figure at each position is a
  frame drawn by the kernel the first time it is wanted and kept in the browser, the neighbours of the control
  being moved drawn ahead (``frames.py``, ``frames.js``: the same frames and script as the static pages; at
  most 20 MB of frames per explorer in the browser and in the kernel, the oldest dropped first);
- *the fallback* (where that front end cannot load): the controls as ipywidgets and a picture the kernel
  draws again at each change; a line under it says so;
- ``explorer.set(temperature=0.5)`` moves controls from code, in either (what the headless tests do).

Drawing happens on one thread, the one that runs the cells. A widget message that ipykernel hands to another
thread (a subshell's) schedules its drawing on that thread's event loop (:meth:`Explorer.in_turn`), so a frame
is never drawn while a cell draws its own figure, and no caller has to hold a lock.

Every explorer also has a static small-multiples twin (the ``*_small_multiples`` functions) so the idea
survives on a slide or in a page without a kernel.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import threading
import time
import warnings
import weakref

import ipywidgets as widgets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..i18n import N_, _, get_language, speaking
from ..plots import in_language_fonts
from .controls import (
    check_control_value,
    control_entries,
    describe_control,
    index_of,
    positions_or_none,
    widget_bundle,
)
from .frames import NOTE_BROWSER, FrameCache, FrameView, explorer_html, frame_png

# The words the reader sees, in one place (translated where they are shown: attention_lab.i18n).
NOTE_KERNEL = N_("Kernel path: the kernel draws every step (the fast path's front end, anywidget, did not load here).")

__all__ = ["Explorer", "explorer_classes", "live_explorers"]

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


def _cells_loop():
    """The event loop of the thread running this code (a cell's: the kernel's), or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Explorer:
    """Base class: the figure is built once (``_build``); ``update(**values)`` sets the changing artists' data.

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

    @in_language_fonts  # the figure's words in the language's fonts
    def __init__(self, controls: dict, *, interactive: bool = True, values: dict | None = None):
        """``values``: the controls' first values (from the constructor's arguments), checked like :meth:`set`.

        Each goes through :func:`check_control_value` before anything is drawn, so a bad one is refused
        with a ValueError naming the control instead of being clamped by the widget.
        """
        self.language = get_language()  # its words, now and in every frame it draws later
        self.controls = controls
        self.set(**(values or {}))
        self.figure = Figure(figsize=self.figsize, dpi=self.dpi, layout="constrained")
        self.canvas = FigureCanvasAgg(self.figure)
        self.animated = self._build()
        for artist in self.animated:
            artist.set_animated(True)
        self._background, self._background_for = None, None
        self.draw(self.control_values())  # the one full draw: solves the constrained layout, keeps the background
        self.figure.set_layout_engine("none")  # freeze the layout: no layout solver on later draws
        self._positions = {name: positions_or_none(control) for name, control in controls.items()}
        self.frames = FrameCache()
        self._loop = _cells_loop()  # where every later drawing happens (in_turn)
        self.picture = widgets.Image(value=frame_png(self.canvas), format="png")  # the fallback's
        for control in controls.values():
            control.observe(self._on_change, names="value")
            describe_control(control, type(self).__name__)
        row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))  # wraps if narrow
        self.fallback = widgets.VBox([row, self.picture])
        if interactive:  # say which is shown: the fallback is hidden once the front end runs
            self.fallback.children += (widgets.HTML(f"<small>{_(NOTE_KERNEL)}</small>"),)
        self.view = None  # the front end's FrameView, where anywidget is installed and every control enumerated
        self.widget = self.fallback
        if interactive and FrameView is not None and all(p is not None for p in self._positions.values()):
            self.view = self._frame_view()
            self.widget = widgets.VBox([self.view, self.fallback])
        _LIVE[next(_ORDER)] = self

    # subclasses fill these in
    def _build(self) -> list:  # pragma: no cover - abstract
        """Create every artist once; return the ones that ``update`` changes."""
        raise NotImplementedError

    def update(self, **values):  # pragma: no cover - abstract
        """Set the data of the changing artists for ``values``, one per control, by name."""
        raise NotImplementedError

    def set(self, **values):
        """Move controls from code, as a reader would by hand; the figure follows.

        Every value is checked (:func:`check_control_value`) before any is stored, so a bad one leaves the
        explorer as it was; a control may snap a valid value to its nearest position (the temperature).
        """
        checked = {}
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(f"unknown control {name!r}; this explorer has {sorted(self.controls)}")
            checked[name] = check_control_value(name, self.controls[name], value)
        for name, value in checked.items():
            self.controls[name].value = value

    def control_values(self) -> dict:
        """The controls' values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    # -- drawing -------------------------------------------------------------------------------------
    def draw(self, values: dict, timings: dict | None = None):
        """Draw the figure at ``values`` (one per control): a blit, or a full draw when a static control differs.

        The controls are not moved. ``timings``, when given, receives ``compute_ms`` (:meth:`update`) and
        ``draw_ms`` (the background and the changing artists on it).
        """
        start = time.perf_counter()
        with speaking(self.language):
            self.update(**values)
        computed = time.perf_counter()
        static = tuple(values[name] for name in self.static_controls)
        if static != self._background_for:
            self.canvas.draw()  # a full draw leaves the animated artists out: the background
            self._background, self._background_for = self.canvas.copy_from_bbox(self.figure.bbox), static
        else:
            self.canvas.restore_region(self._background)
        for artist in self.animated:
            self.figure.draw_artist(artist)
        if timings is not None:
            timings.update(compute_ms=1000 * (computed - start), draw_ms=1000 * (time.perf_counter() - computed))

    def in_turn(self, draw, *args):
        """Call ``draw(*args)`` on the thread that runs the cells: now if this is it (or there is no kernel),
        else as soon as the cell running there ends. Every drawing a widget message asks for goes through here."""
        loop = self._loop
        if loop is None or loop.is_closed() or threading.current_thread() is threading.main_thread():
            draw(*args)
        else:
            loop.call_soon_threadsafe(draw, *args)

    def timed_step(self, **values) -> dict[str, float]:
        """The cost of drawing one new position (nothing kept, nothing sent), in ms, for ``tools/bench.py``.

        ``compute_ms``: :meth:`update` (the artists' new data); ``draw_ms``: the background bitmap and the
        changing artists drawn on it; ``encode_ms``: the frame's PNG, what the browser receives.
        """
        timings: dict = {}
        checked = {name: check_control_value(name, self.controls[name], v) for name, v in values.items()}
        self.draw({**self.control_values(), **checked}, timings)
        start = time.perf_counter()
        frame_png(self.canvas)
        timings["encode_ms"] = 1000 * (time.perf_counter() - start)
        return timings

    # -- positions and frames ------------------------------------------------------------------------
    def index(self) -> list[int]:
        """Where the controls are: each value's index among its control's positions (the nearest for a float)."""
        return [index_of(self._positions[name], control.value) for name, control in self.controls.items()]

    def manifest(self, offered: dict | None = None) -> dict:
        """The controls as the front end shows them (:func:`~.controls.control_entries`; ``offered[name]``: the
        indices of the positions offered, default all) and ``language``, the one its labels and frames speak."""
        return {
            "class": type(self).__name__,
            "width": int(round(self.figure.bbox.width)),
            "height": int(round(self.figure.bbox.height)),
            "controls": control_entries(self.controls, self._positions, offered),
            "language": self.language,
        }

    def frame(self, index, *, compress_level: int = 1) -> bytes:
        """The PNG of the figure at position ``index`` (one index per control into its positions), kept.

        The controls are not moved. Frames already drawn come from :attr:`frames`. ``compress_level``:
        :func:`~.frames.frame_png`'s, for a frame drawn now.
        """
        key = ",".join(str(int(i)) for i in index)
        png = self.frames.get(key)
        if png is None:
            self.draw({name: self._positions[name][i][1] for name, i in zip(self.controls, index, strict=True)})
            png = frame_png(self.canvas, compress_level)
            self.frames.put(key, png)
        return png

    def is_position(self, index) -> bool:
        """Whether ``index`` names a position of these controls (one index per control, each in range)."""
        sizes = [len(p) for p in self._positions.values()]
        return len(index) == len(sizes) and all(0 <= i < n for i, n in zip(index, sizes, strict=True))

    # -- the front end and the fallback --------------------------------------------------------------
    def _frame_view(self):
        first = base64.b64encode(self.frame(self.index())).decode("ascii")
        block = explorer_html(
            self.manifest(), f"explorer-{id(self):x}", src=f"data:image/png;base64,{first}", note=_(NOTE_BROWSER)
        )
        with warnings.catch_warnings():  # anywidget on ipywidgets 7 trips a traitlets DeprecationWarning (not ours)
            warnings.simplefilter("ignore", DeprecationWarning)
            view = FrameView(html=block, index=self.index())
        view.on_msg(self._on_frame_request)
        view.observe(self._on_front_end, names="front_end")
        view.observe(self._on_index, names="index")
        return view

    def _fast(self) -> bool:
        return self.view is not None and self.view.front_end == "browser"

    def _on_frame_request(self, view, content, buffers):
        """The front end wants the frame ``content["frame"]`` ("i,j,..."): draw it (or take it as kept) and send it."""
        key = content.get("frame") if isinstance(content, dict) else None
        try:
            index = [int(part) for part in str(key).split(",")]
        except ValueError:
            return
        if self.is_position(index):  # else not a position of these controls: nothing to draw
            self.in_turn(lambda: view.send({"frame": key}, buffers=[self.frame(index)]))

    def _on_front_end(self, change):
        """The front end runs: hide the fallback."""
        self.fallback.layout.display = "none" if change["new"] == "browser" else None

    def _on_index(self, change):
        """The reader's hand rests at a position: the controls follow, quietly (the browser has its frame)."""
        if not self.is_position(change["new"]):
            return  # not a position of these controls (a stale front end): nothing to follow
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
        try:
            for (name, control), i in zip(self.controls.items(), change["new"], strict=True):
                control.value = self._positions[name][i][1]
        finally:
            for control in self.controls.values():
                control.observe(self._on_change, names="value")

    def _on_change(self, change):
        if self._fast():  # the browser shows the frame; the kernel draws only what it is asked for
            self.view.index = self.index()
        else:
            self.in_turn(self._show)

    def _show(self):
        """The fallback's picture at the controls' values, drawn now."""
        self.draw(self.control_values())
        self.picture.value = frame_png(self.canvas)

    def _repr_mimebundle_(self, **kwargs):
        """The widget, plus a PNG of the figure at the controls' values: what a saved notebook or page shows."""
        bundle = widget_bundle(self.widget, **kwargs)
        bundle["image/png"] = self.picture.value if None in self._positions.values() else self.frame(self.index())
        return bundle
