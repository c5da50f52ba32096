"""The explorers' frames: one picture per position of the controls, and the one front end that shows them.

A *frame* is the explorer's figure at one position of its controls, as a palette PNG (:func:`frame_png`),
named by its *key*: the index of each control's value among its positions, ``"i,j,..."``
(:func:`~attention_lab.explorers.controls.positions`). The *block* (:func:`explorer_html`) is the
controls as plain HTML, the current frame and a manifest (the controls' labels and positions, the frame
budget); ``frames.js`` wires it up. The same block and the same script serve:

- the notebook: :class:`FrameView`, an anywidget whose front end asks the kernel for a frame the first time
  a position is wanted (and for its neighbours ahead, one at a time), keeps every frame it received and
  shows a position seen before without any message to the kernel;
- the static pages: ``tools/explorer_frames.py`` draws the frames in the notebook's kernel ahead of time,
  ``tools/live_pages.py`` writes them as files and puts the same block in the page.

Memory: at most :data:`BUDGET_BYTES` of frames per explorer in the browser and again in the kernel, the
oldest dropped first (a frame is 10-30 KB: about a thousand positions fit).
"""

from __future__ import annotations

import html
import io
import json
from collections import OrderedDict
from pathlib import Path

import numpy as np
import traitlets

from ..i18n import N_, catalogue

__all__ = ["BUDGET_BYTES", "SCRIPT", "STYLE", "frame_png", "FrameCache", "explorer_html", "FrameView", "NOTE_BROWSER"]

BUDGET_BYTES = 20_000_000  # frames kept per explorer, in the browser and in the kernel
SCRIPT = Path(__file__).with_name("frames.js")

# The words the reader sees, in one place (translated where they are shown, in the language of the kernel that
# drew the frames: the manifest's ``language``; attention_lab.i18n).
NOTE_PAGE = N_(
    "Live figure: {count} frames drawn by the explorer in Python, one per position of its controls, "
    "shown without a kernel."
)
NOTE_THINNED_ONE = N_(" Here the slider offers {which}.")
NOTE_THINNED_MANY = N_(" Here the sliders offer {which}.")
NOTE_THINNED_ITEM = N_("{label}: {shown} of its {positions} positions")
NOTE_THINNED_JOIN = N_("; ")
NOTE_OPTIONS = N_(" Options are drawn one change at a time from the notebook's choice; the others are greyed out.")
NOTE_BROWSER = N_(
    "Fast path: each position is drawn once by the kernel and kept in this browser; neighbours are drawn ahead."
)

STYLE = """<style>
.live-explorer{margin:.4rem 0 .2rem}
.live-controls{display:flex;flex-wrap:wrap;gap:.35rem 1.4rem;align-items:center;margin-bottom:.35rem;font-size:14px}
.live-controls label{display:inline-flex;align-items:center;gap:.4rem}
.live-controls input[type=range]{width:16rem}
.live-controls output{min-width:4.5em;font-variant-numeric:tabular-nums}
.live-buttons{display:inline-flex;align-items:center;gap:.3rem}
.live-buttons label{border:1px solid #bbb;border-radius:3px;padding:.1rem .5rem;cursor:pointer}
.live-buttons label:has(input:checked){background:#0072B2;color:#fff;border-color:#0072B2}
.live-buttons label:has(input:disabled){opacity:.45;cursor:not-allowed}
.live-buttons input{position:absolute;opacity:0;width:1px;height:1px}
.live-buttons label:has(input:focus-visible){outline:2px solid #E69F00}
.live-figure{max-width:100%;height:auto;display:block}
.live-note{color:#666;font-size:12.5px;margin:.2rem 0 0}
</style>
"""


def frame_png(canvas, compress_level: int = 1) -> bytes:
    """The canvas's pixels as a 256-colour palette PNG (about 20 KB for an 880x296 figure, no visible loss).

    ``compress_level`` is zlib's: 1 (the default) encodes fastest, for a frame the reader waits for; the static
    pages, built once, use 6 (a quarter smaller, three times the encoding time)."""
    from PIL import Image

    rgb = Image.fromarray(np.asarray(canvas.buffer_rgba())[..., :3])
    with io.BytesIO() as buffer:
        rgb.quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="png", compress_level=compress_level)
        return buffer.getvalue()


class FrameCache:
    """Frames by key, at most ``budget`` bytes, the oldest dropped first."""

    def __init__(self, budget: int = BUDGET_BYTES):
        self.budget, self.bytes, self._frames = budget, 0, OrderedDict()

    def get(self, key: str) -> bytes | None:
        return self._frames.get(key)

    def put(self, key: str, png: bytes):
        if key in self._frames:
            return
        self._frames[key] = png
        self.bytes += len(png)
        while self.bytes > self.budget and len(self._frames) > 1:
            self.bytes -= len(self._frames.popitem(last=False)[1])

    def __len__(self) -> int:
        return len(self._frames)


def _control_html(index: int, control: dict, uid: str) -> str:
    label, labels, current = html.escape(control["label"]), control["labels"], control["current"]
    tooltip = f' title="{html.escape(control["tooltip"])}"' if control.get("tooltip") else ""
    if control["kind"] == "slider":
        return (
            f'<label{tooltip}>{label} <input type="range" min="0" max="{len(labels) - 1}" step="1" '
            f'value="{current}" data-control="{index}" aria-label="{label}"><output data-readout="{index}">'
            f"{html.escape(labels[current])}</output></label>"
        )
    if control["kind"] == "select":
        options = "".join(
            f'<option data-of="{index}" data-option="{j}"{" selected" if j == current else ""}>'
            f"{html.escape(text)}</option>"
            for j, text in enumerate(labels)
        )
        return f'<label{tooltip}>{label} <select data-control="{index}">{options}</select></label>'
    buttons = "".join(
        f'<label><input type="radio" name="{uid}-{index}" value="{j}" data-control="{index}" '
        f'data-of="{index}" data-option="{j}"{" checked" if j == current else ""}>'
        f"{html.escape(text)}</label>"
        for j, text in enumerate(labels)
    )
    return f'<span class="live-buttons" role="radiogroup" aria-label="{label}"{tooltip}>{label} {buttons}</span>'


def _page_note(manifest: dict) -> str:
    """The line under a page's figure, in the language the explorer spoke (``manifest["language"]``)."""
    _ = catalogue(manifest.get("language", "en")).gettext
    controls = manifest["controls"]
    text = _(NOTE_PAGE).format(count=len(manifest["frames"]))
    thinned = [
        _(NOTE_THINNED_ITEM).format(label=c["label"], shown=len(c["labels"]), positions=c["positions"])
        for c in controls
        if len(c["labels"]) < c["positions"]
    ]
    if thinned:
        note = NOTE_THINNED_MANY if len(thinned) > 1 else NOTE_THINNED_ONE
        text += _(note).format(which=_(NOTE_THINNED_JOIN).join(thinned))
    option_ids = [i for i, c in enumerate(controls) if c["kind"] != "slider"]
    combos = {tuple(key.split(",")[i] for i in option_ids) for key in manifest["frames"]}
    if len(combos) < int(np.prod([len(controls[i]["labels"]) for i in option_ids])):
        text += _(NOTE_OPTIONS)
    return text


def explorer_html(manifest: dict, uid: str, src: str | None = None, note: str | None = None) -> str:
    """The explorer's block: its controls, the current frame (``src``, default the page's frame file), the manifest.

    ``manifest``: ``class``, ``width``, ``height``, ``controls`` (each ``name``, ``label``, ``kind``, the
    ``labels`` of the positions offered, the ``current`` one, ``positions``) and, in a page, ``frames``
    (key -> the frame file's hash). ``note``: the line under the figure (default: the page's).
    """
    controls = manifest["controls"]
    key = ",".join(str(c["current"]) for c in controls)
    frames = manifest.get("frames", {})
    if src is None:
        src = f"frames/{frames[key]}.png"
    alt = manifest["class"] + ": " + ", ".join(f"{c['label']} = {c['labels'][c['current']]}" for c in controls)
    data = json.dumps(
        {
            "budget": BUDGET_BYTES,
            "frames": frames,
            **{k: manifest[k] for k in ("class", "width", "height", "controls")},
        },
        separators=(",", ":"),
    ).replace("</", "<\\/")
    return (
        f'<div class="live-explorer" id="{uid}" data-frames="frames/" data-frame="{key}">\n'
        f'<script type="application/json" class="live-manifest">{data}</script>\n'
        f'<div class="live-controls">{"".join(_control_html(i, c, uid) for i, c in enumerate(controls))}</div>\n'
        f'<img class="live-figure" src="{src}" width="{manifest["width"]}" '
        f'height="{manifest["height"]}" alt="{html.escape(alt)}">\n'
        f'<p class="live-note">{html.escape(_page_note(manifest) if note is None else note)}</p>\n</div>'
    )


try:  # a runtime that installed the course without its dependencies (Colab's --no-deps) may lack anywidget
    import anywidget
except ImportError:  # then every explorer shows its fallback
    FrameView = None
else:

    class _FrameView(anywidget.AnyWidget):
        """The notebook's fast path: the block above, its frames asked of the kernel and kept in the browser.

        ``html``: the block; ``index``: the controls' position (set by the front end once the hand rests, and by
        the kernel when ``explorer.set`` moves a control); ``front_end``: "browser" once the front end runs (until
        then, and where it cannot load, the explorer's fallback is the one shown).
        """

        _esm = SCRIPT.read_text(encoding="utf-8") + "\nexport default { render };\n"
        _css = STYLE.removeprefix("<style>").removesuffix("</style>\n")
        html = traitlets.Unicode("").tag(sync=True)
        index = traitlets.List(traitlets.Int()).tag(sync=True)
        front_end = traitlets.Unicode("kernel").tag(sync=True)

    FrameView = _FrameView
