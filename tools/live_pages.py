"""The live explorers of the static pages: each explorer's controls in HTML, its frames as files, one small script.

``tools/explorer_frames.py`` renders the frames in the notebook's kernel and hands over a manifest per
explorer; here each explorer's widget output becomes an HTML block (the same controls, a picture, the
manifest as JSON: ``attention_lab.explorers.frames.explorer_html``, the block the notebook's fast path
shows too) and the same front end (``attention_lab/explorers/frames.js``, copied beside the pages as
``live_explorers.js``) swaps the picture when a control moves. Frames are files in ``frames/``, named by
their content's hash (identical frames are stored once); the page loads only the current frame of each
explorer, the others when the explorer comes near the screen or is first touched. Nothing comes from the
network: the pages work from ``file://`` and any static host.
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

from attention_lab.explorers import frames
from tools.explorer_frames import MIME

__all__ = ["SCRIPT", "STYLE", "frames_of", "write_frames", "explorer_html", "install", "copy_script"]

SCRIPT = frames.SCRIPT  # the explorers' one front end, inside the package (the notebook's widget runs it too)
SCRIPT_NAME = "live_explorers.js"  # its name beside the pages
FRAMES = "frames/"
STYLE = frames.STYLE


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


def explorer_html(manifest: dict, uid: str) -> str:
    """The explorer's block (controls, current frame, manifest): the notebook's fast path shows the same one."""
    return frames.explorer_html(manifest, uid)


def install(page: str) -> str:
    """Add the style and the script to a page that shows live explorers (unchanged otherwise)."""
    if 'class="live-explorer"' not in page:
        return page
    return page.replace("</head>", STYLE + '<script src="live_explorers.js" defer></script>\n</head>', 1)


def copy_script(outdir: Path):
    shutil.copyfile(SCRIPT, Path(outdir) / SCRIPT_NAME)
