"""The live explorers of the static pages: each explorer's controls in HTML, its frames as files, one small script.

``tools/explorer_frames.py`` renders the frames in the notebook's kernel and hands over a manifest per
explorer; here each explorer's widget output becomes an HTML block (the same controls, a picture, the
manifest as JSON) and ``live_explorers.js`` (copied beside the pages) swaps the picture when a control
moves. Frames are files in ``frames/``, named by their content's hash (identical frames are stored once);
the page loads only the current frame of each explorer, the others when the explorer comes near the screen
or is first touched. Nothing comes from the network: the pages work from ``file://`` and any static host.
"""

from __future__ import annotations

import base64
import html
import json
import shutil
from pathlib import Path

from tools.explorer_frames import MIME

__all__ = ["SCRIPT", "STYLE", "frames_of", "write_frames", "explorer_html", "install", "copy_script"]

SCRIPT = Path(__file__).with_name("live_explorers.js")
FRAMES = "frames/"

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


def frames_of(after_outputs: list) -> tuple[list, dict, dict]:
    """(manifests, images by hash, measurements) from the outputs of ``explorer_frames.AFTER_NOTEBOOK``.

    The measurements: seconds and CPU seconds spent drawing, the kernel's peak memory in MB.
    """
    for output in after_outputs:
        payload = output.get("data", {}).get(MIME)
        if payload is not None:
            images = {key: base64.b64decode(value) for key, value in payload["images"].items()}
            measured = {k: payload.get(k) for k in ("seconds", "cpu_seconds", "kernel_peak_mb")}
            return payload["explorers"], images, measured
    return [], {}, {"seconds": 0.0, "cpu_seconds": 0.0, "kernel_peak_mb": None}


def write_frames(images: dict, outdir: Path) -> int:
    """Write each frame once into ``outdir/frames/``; return the bytes written (frames already there skipped)."""
    folder = Path(outdir) / FRAMES
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for key, png in images.items():
        path = folder / f"{key}.png"
        if not path.exists():
            path.write_bytes(png)
            written += len(png)
    return written


def _control_html(index: int, control: dict, uid: str) -> str:
    label, labels, current = html.escape(control["label"]), control["labels"], control["current"]
    if control["kind"] == "slider":
        return (
            f'<label>{label} <input type="range" min="0" max="{len(labels) - 1}" step="1" value="{current}" '
            f'data-control="{index}" aria-label="{label}"><output data-readout="{index}">'
            f"{html.escape(labels[current])}</output></label>"
        )
    if control["kind"] == "select":
        options = "".join(
            f'<option data-of="{index}" data-option="{j}"{" selected" if j == current else ""}>'
            f"{html.escape(text)}</option>"
            for j, text in enumerate(labels)
        )
        return f'<label>{label} <select data-control="{index}">{options}</select></label>'
    buttons = "".join(
        f'<label><input type="radio" name="{uid}-{index}" value="{j}" data-control="{index}" '
        f'data-of="{index}" data-option="{j}"{" checked" if j == current else ""}>'
        f"{html.escape(text)}</label>"
        for j, text in enumerate(labels)
    )
    return f'<span class="live-buttons" role="radiogroup" aria-label="{label}">{label} {buttons}</span>'


def _note(manifest: dict) -> str:
    thinned = [
        f"{c['label']}: {len(c['labels'])} of its {c['positions']} positions"
        for c in manifest["controls"]
        if len(c["labels"]) < c["positions"]
    ]
    text = (
        f"Live figure: {len(manifest['frames'])} frames drawn by the explorer in Python, one per position of "
        "its controls, shown without a kernel."
    )
    if thinned:
        text += " Here the slider" + ("s offer " if len(thinned) > 1 else " offers ") + "; ".join(thinned) + "."
    controls = manifest["controls"]
    options = [c for c in controls if c["kind"] != "slider"]
    combos = {
        tuple(key.split(",")[i] for i, c in enumerate(controls) if c["kind"] != "slider") for key in manifest["frames"]
    }
    full = 1
    for c in options:
        full *= len(c["labels"])
    if len(combos) < full:
        text += " Options are drawn one change at a time from the notebook's choice; the others are greyed out."
    return f'<p class="live-note">{html.escape(text)}</p>'


def explorer_html(manifest: dict, uid: str) -> str:
    """The explorer's block: its controls, the current frame, the manifest the script reads."""
    controls = manifest["controls"]
    current = manifest["frames"][",".join(str(c["current"]) for c in controls)]
    alt = manifest["class"] + ": " + ", ".join(f"{c['label']} = {c['labels'][c['current']]}" for c in controls)
    data = json.dumps(
        {k: manifest[k] for k in ("class", "width", "height", "controls", "frames")}, separators=(",", ":")
    ).replace("</", "<\\/")
    return (
        f'<div class="live-explorer" id="{uid}" data-frames="{FRAMES}" data-frame="{current}" '
        f'data-shown="{current}">\n'
        f'<script type="application/json" class="live-manifest">{data}</script>\n'
        f'<div class="live-controls">{"".join(_control_html(i, c, uid) for i, c in enumerate(controls))}</div>\n'
        f'<img class="live-figure" src="{FRAMES}{current}.png" width="{manifest["width"]}" '
        f'height="{manifest["height"]}" alt="{html.escape(alt)}">\n{_note(manifest)}\n</div>'
    )


def install(page: str) -> str:
    """Add the style and the script to a page that shows live explorers (unchanged otherwise)."""
    if 'class="live-explorer"' not in page:
        return page
    return page.replace("</head>", STYLE + '<script src="live_explorers.js" defer></script>\n</head>', 1)


def copy_script(outdir: Path):
    shutil.copyfile(SCRIPT, Path(outdir) / SCRIPT.name)
