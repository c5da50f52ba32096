"""Frames of the explorers, rendered by the explorers themselves, for the live figures of the static pages.

Runs inside a notebook's kernel after its last cell (``build_site`` passes :data:`AFTER_NOTEBOOK` to
``execute``). For every explorer the notebook built and still holds (the registry each explorer joins when
built, ``attention_lab.explorers.live_explorers()``) it walks the explorer's own controls and keeps the
picture the explorer draws for each position (``explorer.frame``: the same frame the notebook's fast path
shows). The frames leave the kernel as one display output of type :data:`MIME` (a manifest and the
images), so the page builder needs no shared folder; the notebook's own outputs are untouched.

Which positions: every option of a dropdown or toggle, every position of a slider, as long as the
explorer stays within :data:`FRAME_BUDGET` frames. Beyond that the sliders are thinned evenly (their ends
and their current position always kept) until the grid fits: the page's slider then has fewer positions
than the notebook's. The frames are a full grid, so any combination the page offers has its picture.

Format: the explorer's own frames (``explorer.frame``, ``attention_lab/explorers/frames.py``): the RGB
canvas quantised to a 256-colour palette and saved as PNG (measured on the kernel explorer's 880x296
frames: 18 KB and no visible difference, against 62 KB for the full-colour PNG, 36 KB for lossless WebP at
its fastest setting and 55 KB for JPEG at quality 90, which blurs the text). The notebook's fast path
draws and shows the same frames with the same front end.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import math
import time

import numpy as np

from attention_lab.explorers.controls import SLIDERS, positions
from tools.peak_memory import peak_mb

__all__ = ["MIME", "FRAME_BUDGET", "AFTER_NOTEBOOK", "positions", "frame_plan", "export_explorer", "publish_frames"]

MIME = "application/vnd.attention-lab.frames+json"
MIN_POSITIONS = 9  # a slider thinned below this many positions (or all it has) feels like a slide show
FRAME_BUDGET = 300  # frames per explorer at most (time: ~15-40 ms each on a 2-core machine; size: ~10-20 KB each)


def _thin(sizes: list[int], room: int) -> list[int]:
    """How many positions each slider keeps so that their product fits ``room``: the longest is thinned first."""
    kept = list(sizes)
    while math.prod(kept) > max(room, 1) and max(kept, default=1) > 1:
        i = kept.index(max(kept))
        kept[i] = max(1, min(kept[i] - 1, int(kept[i] * 0.85)))
    return kept


def _spread(n: int, k: int, current: int) -> list[int]:
    """``k`` of the positions 0..n-1, evenly spread, ``current`` included, and both ends when ``k`` >= 3."""
    if k >= n:
        return list(range(n))
    if k == 1:
        return [current]
    chosen = sorted({int(round(x)) for x in np.linspace(0, n - 1, k)})
    if current not in chosen:
        inner = range(1, len(chosen) - 1) if len(chosen) >= 3 else range(len(chosen))
        chosen[min(inner, key=lambda j: abs(chosen[j] - current))] = current
    return sorted(set(chosen))


def frame_plan(sizes: list[int], sliders: list[bool], current: list[int], budget: int = FRAME_BUDGET):
    """Which frames to draw: (the positions each control offers in the page, the option combinations drawn).

    Options (dropdowns, toggles) keep every value; sliders are thinned evenly until the frames fit ``budget``.
    If drawing every combination of the options would leave the sliders fewer than :data:`MIN_POSITIONS`
    positions, only the combinations that change one option at a time from the current ones are drawn
    (the page then disables the options that have no frames from where the reader is).
    """
    slider_ids = [i for i, s in enumerate(sliders) if s]
    option_ids = [i for i, s in enumerate(sliders) if not s]
    combos = list(itertools.product(*(range(sizes[i]) for i in option_ids)))
    star = {tuple(current[i] for i in option_ids)}
    for a, i in enumerate(option_ids):
        for value in range(sizes[i]):
            star.add(tuple(value if b == a else current[j] for b, j in enumerate(option_ids)))
    slider_sizes = [sizes[i] for i in slider_ids]

    def short(kept):
        return any(k < min(n, MIN_POSITIONS) for k, n in zip(kept, slider_sizes, strict=True))

    kept = _thin(slider_sizes, budget // len(combos))
    if short(kept) and len(star) < len(combos):
        combos = sorted(star)
        kept = _thin(slider_sizes, budget // len(combos))
    offered = [list(range(n)) for n in sizes]
    for i, k in zip(slider_ids, kept, strict=True):
        offered[i] = _spread(sizes[i], k, current[i])
    return offered, option_ids, combos


def export_explorer(explorer, images: dict, budget: int = FRAME_BUDGET) -> dict:
    """Draw the explorer at every planned position; put the PNGs in ``images`` (by hash); return its manifest.

    The frames are the explorer's own (``explorer.frame``: the notebook's fast path draws the same ones). The
    manifest is ``explorer.manifest`` for the positions offered, plus ``frames``: each drawn combination
    (``"i,j,..."``: indices into the offered positions) mapped to its frame's hash, and the widget's model id.
    """
    names = list(explorer.controls)
    controls = [explorer.controls[name] for name in names]
    current = explorer.index()
    sliders = [isinstance(c, SLIDERS) for c in controls]
    offered, option_ids, combos = frame_plan([len(positions(c)) for c in controls], sliders, current, budget)
    # controls that force a full redraw (static_controls) vary slowest: each of their values is drawn in full once
    static = [
        option_ids.index(names.index(n))
        for n in getattr(explorer, "static_controls", ())
        if n in names and names.index(n) in option_ids
    ]
    combos = sorted(combos, key=lambda combo: [combo[a] for a in static])
    slider_ids = [i for i, s in enumerate(sliders) if s]
    frames = {}
    for combo in combos:
        for moved in itertools.product(*(offered[i] for i in slider_ids)):
            where = list(current)
            for i, j in zip(option_ids, combo, strict=True):
                where[i] = j
            for i, j in zip(slider_ids, moved, strict=True):
                where[i] = j
            png = explorer.frame(where, compress_level=6)  # built once and downloaded: smaller, not faster
            key = hashlib.sha256(png).hexdigest()[:20]
            images.setdefault(key, png)
            frames[",".join(str(offered[i].index(where[i])) for i in range(len(names)))] = key
    manifest = explorer.manifest({name: offered[i] for i, name in enumerate(names)})
    return {**manifest, "model_id": explorer.widget.model_id, "frames": frames}


def publish_frames(budget: int = FRAME_BUDGET):
    """In the kernel: export every explorer alive and display the result as one :data:`MIME` output."""
    from IPython.display import display

    from attention_lab.explorers import live_explorers

    start, cpu = time.perf_counter(), time.process_time()
    explorers = live_explorers()  # the registry every explorer joins when built
    images: dict = {}
    manifests = [export_explorer(explorer, images, budget) for explorer in explorers]
    payload = {
        "explorers": manifests,
        "images": {k: base64.b64encode(v).decode("ascii") for k, v in images.items()},
        "seconds": time.perf_counter() - start,
        "cpu_seconds": time.process_time() - cpu,
        "kernel_peak_mb": peak_mb(),
    }
    display({MIME: payload}, raw=True)


# The code ``execute`` runs in the kernel after the notebook (started with ``tools.kernel_env()``): publish the frames.
AFTER_NOTEBOOK = "from tools import explorer_frames as _frames\n_frames.publish_frames()\ndel _frames\n"
