"""The explorers' frames: the fast path (kept in the browser, drawn by the kernel once) and its one front end."""

import asyncio
import io
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
from attention_lab.explorers.controls import positions, widget_bundle
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


def test_the_front_end_hides_the_fallback_once_it_runs():
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
    headless.set(temperature=positions(explorer.controls["temperature"])[there[0]][1], normaliser="sparsemax")
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


def live_views(explorer) -> list:
    """Every widget of the explorer's display that the kernel draws for on its own: neither a box, nor one of
    its controls, nor words, nor the fallback's picture (which the kernel sets, never the other way round)."""
    passive = {"VBoxModel", "HBoxModel", "HTMLModel", "ImageModel"}
    found, todo = [], [explorer.widget]
    while todo:
        widget = todo.pop()
        todo += getattr(widget, "children", ())
        if widget._model_name not in passive and all(widget is not c for c in explorer.controls.values()):
            found.append(widget)
    return found


@pytest.mark.parametrize("name", small.FACTORIES)
def test_an_explorer_shows_one_live_view_its_front_end(name):
    """One front end (the frame view) and one fallback (a picture): a second live view (ipympl's canvas, say)
    would draw on the kernel's other thread while the front end asks for frames."""
    explorer = small.FACTORIES[name](interactive=True)
    assert live_views(explorer) == [explorer.view]


def test_a_frame_asked_on_another_thread_waits_for_the_cell_and_both_draw_whole():
    """ipykernel 7 may hand a widget message to a subshell's thread while a cell draws its own figure: the
    frame is drawn on the cells' thread once the cell ends, so the frames and the cell's figure are whole."""
    makers = (multi_head, transformer_block, encoder_decoder, nadaraya_watson_pooling)
    drawn_alone = [decoded(make().png()) for make in makers]

    async def kernel():  # the kernel's main thread: its event loop runs the cells
        explorer = KernelExplorer.example()  # built in a cell (mathtext in its texts: one parser for every figure)
        sent, threads = Sent(explorer.view), []
        send = explorer.view.send
        explorer.view.send = lambda *a, **k: (threads.append(threading.current_thread()), send(*a, **k))
        explorer.view.front_end = "browser"
        here, bandwidth = explorer.index(), list(explorer.controls).index("bandwidth")
        keys = [",".join(str(j if i == bandwidth else k) for i, k in enumerate(here)) for j in range(0, 40, 7)]
        alone = {key: decoded(explorer.frame([int(k) for k in key.split(",")])) for key in keys}
        explorer.frames = FrameCache()  # forget them: each is drawn again below

        def ask_every_frame():  # widget messages on another thread, while the cell below draws
            for key in keys:
                explorer._on_frame_request(explorer.view, {"frame": key}, [])

        asker = threading.Thread(target=ask_every_frame)
        asker.start()
        drawn_meanwhile = [decoded(make().png()) for make in makers]  # the cell
        asker.join(timeout=60)
        assert not sent.messages, "a frame was drawn while the cell ran"
        deadline = time.monotonic() + 60
        while len(sent.messages) < len(keys) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # the cell has ended: the loop draws the frames asked meanwhile
        return alone, sent.messages, threads, drawn_meanwhile

    alone, messages, threads, drawn_meanwhile = asyncio.run(kernel())
    assert [content["frame"] for content, _ in messages] == list(alone)  # every request answered, in order
    assert all(thread is threading.main_thread() for thread in threads)
    for content, buffers in messages:
        assert np.array_equal(decoded(buffers[0]), alone[content["frame"]]), content["frame"]
    for meanwhile, before in zip(drawn_meanwhile, drawn_alone, strict=True):
        assert np.array_equal(meanwhile, before)


def test_a_frame_is_right_after_a_frame_at_another_static_position():
    """A frame at another number of points moves the static artists and draws a new background; the next frame
    at the reader's number of points is drawn on its own background again."""
    explorer = KernelExplorer.example()
    here, n_train = explorer.index(), list(explorer.controls).index("n_train")
    other = [(k + 1) % len(positions(explorer.controls["n_train"])) if i == n_train else k for i, k in enumerate(here)]
    fresh = decoded(explorer.frame(here))
    explorer.frames = FrameCache()
    explorer.frame(other)
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


def test_an_explorer_built_headless_has_the_fallback_only():
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    assert explorer.view is not None
    headless = small.shared("temperature")
    assert headless.view is None and headless.widget is headless.fallback


def test_without_anywidget_the_fallback_is_shown_and_says_so(monkeypatch):
    from attention_lab.explorers import base

    monkeypatch.setattr(base, "FrameView", None)
    explorer = TemperatureExplorer(small.ALPHA, small.VALUES)
    assert explorer.view is None and explorer.widget is explorer.fallback
    assert explorer.picture in explorer.widget.children and NOTE_KERNEL in explorer.widget.children[-1].value
    before = explorer.picture.value
    explorer.set(temperature=0.1)  # the kernel draws the picture again
    assert explorer.controls["temperature"].value == 0.1 and explorer.picture.value != before


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
