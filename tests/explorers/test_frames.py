"""The explorers' frames: the fast path (kept in the browser, drawn by the kernel once) and its one front end."""

import io
import itertools
import json
import shutil
import subprocess
import threading
import time

import explorer_inputs as small
import ipywidgets as widgets
import numpy as np
import pytest
from helpers import pixels
from PIL import Image

from attention_lab.diagrams import encoder_decoder, multi_head, nadaraya_watson_pooling, transformer_block
from attention_lab.explorers import KernelExplorer, TemperatureExplorer
from attention_lab.explorers.base import NOTE_KERNEL
from attention_lab.explorers.controls import widget_bundle
from attention_lab.explorers.frames import SCRIPT, FrameCache, explorer_html


class Sent:
    """Stands in for the front end: records what the kernel sends to the frame view."""

    def __init__(self, view):
        self.messages = []
        view.send = lambda content, buffers=None: self.messages.append((content, buffers))


def fast_explorer():
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    sent = Sent(explorer.view)
    explorer.view.front_end = "browser"  # what frames.js sets when it runs
    return explorer, sent


def decoded(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_the_fast_path_hides_the_kernel_view_once_its_front_end_runs():
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    kernel = explorer.widget.children[1]
    assert kernel.layout.display != "none" and NOTE_KERNEL in kernel.children[-1].value  # says which path
    explorer.view.front_end = "browser"
    assert kernel.layout.display == "none"


def test_a_frame_is_the_picture_the_kernel_path_draws_at_that_position():
    explorer, sent = fast_explorer()
    here = explorer.index()
    there = [here[0] + 3, 1]
    explorer._on_frame_request(explorer.view, {"frame": ",".join(map(str, there))}, [])
    ((content, buffers),) = sent.messages[-1:]
    assert content == {"frame": ",".join(map(str, there))} and buffers[0][:8] == b"\x89PNG\r\n\x1a\n"
    headless = small.FACTORIES["temperature"]()  # the kernel path, moved by hand to the same position
    headless.set(temperature=explorer._positions["temperature"][there[0]][1], normaliser="sparsemax")
    kernel_path = pixels(headless)[..., :3].astype(int)
    assert np.abs(decoded(buffers[0]).astype(int) - kernel_path).mean() < 4  # the same picture, up to the palette
    assert explorer.index() == here  # drawing a frame does not move the reader's controls


def test_a_frame_drawn_once_is_kept_and_bad_requests_are_ignored():
    explorer, sent = fast_explorer()
    for _ in range(2):
        explorer._on_frame_request(explorer.view, {"frame": "5,0"}, [])
    assert sent.messages[0][1][0] is sent.messages[1][1][0]  # the kept frame, not drawn again
    for bad in ["99,0", "5", "a,b", None, "5,0,0", "-1,0"]:
        explorer._on_frame_request(explorer.view, {"frame": bad}, [])
    assert len(sent.messages) == 2


def _meanwhile(work, action):
    """Run ``action()`` while another thread calls ``work()`` every few ms (a widget message on the kernel's other
    thread); return the errors ``work`` raised and how many calls began while ``action`` ran."""
    errors, calls, done, started = [], [], threading.Event(), threading.Event()

    def other_thread():
        while not done.wait(0.002):  # a message every few ms, not a thread that never lets go
            calls.append(started.is_set())
            try:
                work()
            except Exception as error:  # noqa: BLE001 - any error is the finding
                errors.append(error)

    thread = threading.Thread(target=other_thread, daemon=True)
    started.set()  # before the thread starts: its first call counts
    thread.start()
    try:
        action()
    finally:
        started.clear()
        done.set()
        thread.join(timeout=60)
    assert not thread.is_alive(), "the other thread never finished: a deadlock"
    return errors, sum(calls)


def test_frames_asked_while_the_view_redraws_on_another_thread_stay_whole():
    """ipykernel 7 hands a widget message to the main thread or to a subshell's: frame requests can be handled
    while the ipympl view redraws. Each frame is still its position's picture, every request is answered, and
    nothing raises on either thread."""
    explorer = KernelExplorer.example()  # mathtext in its texts: matplotlib has one parser for every figure
    sent = Sent(explorer.view)
    explorer.view.front_end = "browser"
    here, bandwidth = explorer.index(), list(explorer.controls).index("bandwidth")
    keys = [",".join(str(j if i == bandwidth else k) for i, k in enumerate(here)) for j in range(0, 40, 7)]
    alone = {key: decoded(explorer.frame([int(k) for k in key.split(",")])) for key in keys}  # one thread
    explorer.frames = FrameCache()  # forget them: each is drawn again below

    def ask_every_frame():
        for key in keys:
            explorer._on_frame_request(explorer.view, {"frame": key}, [])

    errors, overlapping = _meanwhile(lambda: explorer.canvas.handle_event({"type": "draw"}), ask_every_frame)
    assert not errors, errors[:3]
    assert overlapping > 0, "the other thread began no drawing while the frames were asked for"
    assert [content["frame"] for content, _ in sent.messages] == keys  # every request answered
    for content, buffers in sent.messages:
        assert np.array_equal(decoded(buffers[0]), alone[content["frame"]]), content["frame"]


def test_a_cell_draws_diagrams_while_frames_are_drawn_on_another_thread():
    """The reader runs a cell with diagrams while the explorer above draws frames ahead: both draw whole."""
    explorer = KernelExplorer.example()
    sent = Sent(explorer.view)
    explorer.view.front_end = "browser"
    here, bandwidth = explorer.index(), list(explorer.controls).index("bandwidth")
    steps = itertools.count()

    def request():
        explorer.frames = FrameCache()
        j = next(steps) % len(explorer._positions["bandwidth"])
        explorer._on_frame_request(
            explorer.view, {"frame": ",".join(str(j if i == bandwidth else k) for i, k in enumerate(here))}, []
        )

    def cell():
        for make in (multi_head, transformer_block, encoder_decoder, nadaraya_watson_pooling):
            assert make().png()[:8] == b"\x89PNG\r\n\x1a\n"

    errors, overlapping = _meanwhile(request, cell)
    assert not errors and overlapping >= 1 and len(sent.messages) >= overlapping  # every request answered


def test_set_from_a_cell_while_frames_are_drawn_moves_the_real_control():
    """A frame is drawn with stand-ins for the controls; ``set`` on the main thread meanwhile reaches the real one."""
    explorer = KernelExplorer.example()
    Sent(explorer.view)
    explorer.view.front_end = "browser"
    here, bandwidth = explorer.index(), list(explorer.controls).index("bandwidth")
    real, positions = explorer.controls["bandwidth"], explorer._positions["bandwidth"]
    lost, drawn, calls = [], [], itertools.count()

    def request():
        explorer.frames = FrameCache()
        key = ",".join(str((k + 7) % len(positions) if i == bandwidth else k) for i, k in enumerate(here))
        explorer._on_frame_request(explorer.view, {"frame": key}, [])
        drawn.append(key)

    def cell():  # until ten frames were drawn meanwhile
        deadline = time.monotonic() + 30
        while len(drawn) < 10 and time.monotonic() < deadline:
            n = next(calls)
            value = positions[n % len(positions)][1]
            explorer.set(bandwidth=value)
            if real.value != value:
                lost.append(n)

    errors, overlapping = _meanwhile(request, cell)
    assert not errors and len(drawn) >= 10 and overlapping >= 1
    assert not lost, f"set() reached a stand-in, not the slider, {len(lost)} times of {next(calls)}"


def test_a_frame_is_right_after_the_view_redraws_at_another_static_position():
    """A frame at another number of points moves the static artists; a full redraw of the view then captures them
    as the background. The next frame at the reader's number of points is drawn on its own background."""
    explorer = KernelExplorer.example()
    here, n_train = explorer.index(), list(explorer.controls).index("n_train")
    other = [(k + 1) % len(explorer._positions["n_train"]) if i == n_train else k for i, k in enumerate(here)]
    fresh = decoded(explorer.frame(here))
    explorer.frames = FrameCache()
    explorer.frame(other)
    explorer.canvas.handle_event({"type": "draw"})  # the hidden ipympl view redraws (a 'draw' message)
    assert np.array_equal(decoded(explorer.frame(here)), fresh)


def test_in_the_fast_path_set_moves_the_browser_not_the_kernels_canvas():
    explorer, sent = fast_explorer()
    before = pixels(explorer)
    explorer.set(temperature=0.1)
    assert explorer.view.index == explorer.index() and explorer.index()[0] != 21
    assert np.array_equal(pixels(explorer), before)  # nothing drawn: the front end asks for the frame


def test_the_readers_position_reaches_the_controls_quietly():
    explorer, sent = fast_explorer()
    explorer.view.index = [0, 1]
    assert explorer.controls["temperature"].value == 0.0 and explorer.controls["normaliser"].value == "sparsemax"
    for stale in ([99, 0], [0], [0, 1, 2], [-1, 0]):  # not a position: ignored
        explorer.view.index = stale
        assert explorer.index() == [0, 1]
    assert not sent.messages


def test_the_frame_cache_drops_the_oldest_first_within_its_budget():
    cache = FrameCache(budget=25)
    for key in "abc":
        cache.put(key, b"x" * 10)
    assert cache.get("a") is None and cache.get("b") and cache.get("c") and cache.bytes == 20 and len(cache) == 2


def test_an_explorer_built_without_a_canvas_widget_has_the_kernel_path_only():
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    assert explorer.view is not None
    headless = small.shared("temperature")
    assert headless.view is None and headless.widget is headless._kernel_view


def test_without_anywidget_the_kernel_path_is_shown_and_says_so(monkeypatch):
    from attention_lab.explorers import base

    monkeypatch.setattr(base, "FrameView", None)
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    assert explorer.view is None and explorer.widget is explorer._kernel_view
    assert explorer.canvas in explorer.widget.children and NOTE_KERNEL in explorer.widget.children[-1].value
    explorer.set(temperature=0.1)  # the kernel path draws
    assert explorer.controls["temperature"].value == 0.1


def test_manifest_and_block_describe_every_position():
    explorer = small.shared("kernel")  # read only
    manifest = explorer.manifest()
    assert [c["name"] for c in manifest["controls"]] == list(explorer.controls)
    assert all(len(c["labels"]) == c["positions"] for c in manifest["controls"])
    block = explorer_html(manifest, "x", src="data:image/png;base64,AA==", note="note")
    data = json.loads(block.split('class="live-manifest">')[1].split("</script>")[0])
    assert data["controls"] == manifest["controls"] and data["budget"] == 20_000_000
    assert block.count("data-control=") >= len(explorer.controls)


class Seven(widgets.VBox):
    """An ipywidgets 7 widget as IPython sees it: no ``_repr_mimebundle_``."""

    def __getattribute__(self, name):
        if name == "_repr_mimebundle_":
            raise AttributeError(name)
        return super().__getattribute__(name)


@pytest.mark.parametrize("kind", [widgets.VBox, Seven], ids=["ipywidgets 8", "ipywidgets 7"])
def test_widget_bundle_names_the_widget_in_either_ipywidgets(kind):
    widget = kind()
    bundle = widget_bundle(widget)
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to parse the front end")
def test_the_front_end_parses_as_a_page_script_and_as_the_widgets_module(tmp_path):
    (tmp_path / "page.js").write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "widget.mjs").write_text(explorer_view_module(), encoding="utf-8")
    for name in ["page.js", "widget.mjs"]:
        subprocess.run(["node", "--check", str(tmp_path / name)], check=True)


def explorer_view_module() -> str:
    return TemperatureExplorer(small.ALPHA, small.VALUES).view._esm
