"""The live explorers of the static pages: frame plans, the built site's size, and real Chromium opening it from disk.

The site is built from the test session's notebook runs (the ``executed`` fixture), so nothing runs twice; the
Chinese edition (``zh/``) from the zh notebooks' runs, whose kernels draw its frames in Chinese.
In the browser every request is intercepted: only ``file://`` may load, anything else is aborted and fails
the test. Chromium missing: skipped with a hint; under CI (CI=true) that is a failure.
"""

import html
import json
import re
import statistics
from pathlib import Path

import ipywidgets as widgets
import pytest
from helpers import NOTEBOOKS, ZH_NOTEBOOKS, console_errors, files_only

from tools.explorer_frames import FRAME_BUDGET, MIN_POSITIONS, frame_plan, positions
from tools.live_pages import frames_of

# Budgets per edition: a reader downloads one edition (its pages, the frames its pages show, and the files the
# editions share: MathJax, the font, the script); the whole site, both editions, stays far below GitHub Pages'
# 1 GB (SITE_TOTAL_MB). Frames without words are stored once for both editions (named by their content).
SITE_BUDGET_MB, FIRST_LOAD_MB = 40, 5
DECKS_BUDGET_MB = 10  # each edition's slide decks and reveal.js, apart
SITE_TOTAL_MB = 120
EDITION_PAGES = [*NOTEBOOKS, *ZH_NOTEBOOKS]

# --- frame plans (no browser) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sizes, sliders, current",
    [
        ([43, 2], [True, False], [21, 0]),  # temperature explorer: everything fits
        ([45, 50, 3, 3], [True, True, False, False], [10, 25, 0, 0]),  # kernel explorer: thinned, options star
        ([6, 43], [False, True], [1, 21]),
        ([101], [True], [0]),
        ([500, 500], [True, True], [499, 3]),
    ],
)
def test_frame_plan_fits_the_budget_keeps_ends_and_current_and_every_option(sizes, sliders, current):
    offered, option_ids, combos = frame_plan(sizes, sliders, current)
    slider_frames = 1
    for i, (n, is_slider) in enumerate(zip(sizes, sliders, strict=True)):
        assert offered[i] == sorted(set(offered[i])) and current[i] in offered[i]
        if is_slider:
            slider_frames *= len(offered[i])
            assert {0, n - 1} <= set(offered[i]) or len(offered[i]) < 3
        else:
            assert offered[i] == list(range(n)), "options are never thinned"
            assert {combo[option_ids.index(i)] for combo in combos} == set(range(n)), "every option has frames"
    assert slider_frames * len(combos) <= FRAME_BUDGET
    assert tuple(current[i] for i in option_ids) in combos


def test_frame_plan_draws_every_position_when_it_fits():
    offered, _, combos = frame_plan([43, 3], [True, False], [5, 1])
    assert offered == [list(range(43)), [0, 1, 2]] and len(combos) == 3
    assert all(
        len(o) >= MIN_POSITIONS
        for o in frame_plan([45, 50, 3, 3], [True, True, False, False], [0, 0, 0, 0], 2000)[0][:2]
    )


def test_positions_follow_each_controls_own_grid():
    log = widgets.FloatLogSlider(value=0.3, base=10, min=-1.5, max=0.7, step=0.05, readout_format=".3g")
    values = [v for _, v in positions(log)]
    assert len(values) == 45 and values[0] == pytest.approx(10**-1.5) and values[-1] <= 10**0.7
    assert [v for _, v in positions(widgets.IntSlider(min=2, max=8, step=3))] == [2, 5, 8]
    assert positions(widgets.Dropdown(options=[("a", 1), ("b", 2)])) == [("a", 1), ("b", 2)]
    assert positions(widgets.Checkbox()) == [("off", False), ("on", True)]
    with pytest.raises(TypeError, match="Text"):
        positions(widgets.Text())


# --- the built site ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(built_site):
    return built_site[0]  # the one site of this test run (tests/conftest.py)


def _page_of(site, path):
    """The page of a course notebook: ``NAME.html``, or ``zh/NAME.html`` for a notebook of ``notebooks/zh/``."""
    return site / ("zh" if path.parent.name == "zh" else "") / f"{path.stem}.html"


def _ids(paths):
    return [("zh/" if p.parent.name == "zh" else "") + p.stem for p in paths]


@pytest.mark.parametrize("path", EDITION_PAGES, ids=_ids(EDITION_PAGES))
def test_every_explorer_displayed_is_live_in_its_page(site, executed, path):
    run = executed(path)
    assert run.after_outputs, "a run that builds the site draws the explorers' frames (the page's run)"
    manifests, images, _ = frames_of(run.after_outputs)
    view = "application/vnd.jupyter.widget-view+json"
    shown = {
        output["data"][view]["model_id"]
        for cell in run.nb.cells
        for output in cell.get("outputs", [])
        if view in output.get("data", {})
    }
    live = [m for m in manifests if m["model_id"] in shown]
    page = _page_of(site, path).read_text(encoding="utf-8")
    assert page.count('class="live-explorer"') == len(live)
    for manifest in live:
        assert all((site / "frames" / f"{key}.png").exists() for key in manifest["frames"].values())
        assert len(manifest["frames"]) <= FRAME_BUDGET


FRAME_NAME = re.compile(r'"([0-9a-f]{20})"')


def edition_sizes(site, folder: str) -> dict:
    """Bytes a reader of one edition downloads (``folder``: ``""`` or ``"zh"``): its pages, the frames they show
    and the shared files (``pages``, ``frames``), and apart its decks with reveal.js (``decks``)."""
    root = site / folder
    pages = [p for p in root.glob("*.html") if not p.name.endswith(".slides.html")]
    decks = [*root.glob("*.slides.html"), *(p for p in site.glob("reveal.js/**/*") if p.is_file())]
    shown = set()
    for page in [*pages, *root.glob("*.slides.html")]:
        shown |= set(FRAME_NAME.findall(page.read_text(encoding="utf-8")))
    frames = [site / "frames" / f"{key}.png" for key in shown if (site / "frames" / f"{key}.png").is_file()]
    shared = [p for p in site.rglob("*") if p.is_file() and p.parts[len(site.parts)] in ("mathjax", "fonts")]
    shared.append(site / "live_explorers.js")
    pages.append(site / "glossary.html")  # one bilingual glossary, linked from both editions
    size = lambda files: sum(p.stat().st_size for p in set(files))  # noqa: E731
    return {"pages": size([*pages, *shared]) + size(frames), "frames": size(frames), "decks": size(decks)}


@pytest.mark.parametrize("folder", ["", "zh"], ids=["en", "zh"])
def test_each_edition_fits_its_size_budget(site, folder, record_property):
    """Per edition: the pages, the frames they show and MathJax within one budget; the slide decks (another copy
    of every notebook) apart. A reader downloads one edition; the two together stay far below GitHub Pages' 1 GB."""
    sizes = edition_sizes(site, folder)
    for name, value in sizes.items():
        record_property(f"{name}_mb", round(value / 1e6, 1))
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    record_property("whole_site_mb", round(total / 1e6, 1))
    edition = folder or "en"
    assert sizes["pages"] <= SITE_BUDGET_MB * 1e6, (
        f"the {edition} edition takes {sizes['pages'] / 1e6:.1f} MB (frames {sizes['frames'] / 1e6:.1f} MB)"
    )
    assert sizes["decks"] <= DECKS_BUDGET_MB * 1e6, f"the {edition} slide decks take {sizes['decks'] / 1e6:.1f} MB"
    assert total <= SITE_TOTAL_MB * 1e6, f"the whole site takes {total / 1e6:.1f} MB"


def _explorers(page: str) -> list[tuple[dict, str]]:
    """(manifest, the block's HTML) of each live explorer of a page."""
    blocks = re.findall(r'<div class="live-explorer".*?<p class="live-note">.*?</p>', page, re.S)
    found = []
    for block in blocks:
        manifest = re.search(r'<script class="live-manifest" type="application/json">(.*?)</script>', block, re.S)
        found.append((json.loads(manifest.group(1)), block))
    return found


CJK = re.compile(r"[\u4e00-\u9fff]")


def _builds_an_explorer(path) -> bool:
    from attention_lab.explorers import explorer_classes

    code = path.read_text(encoding="utf-8")
    return any(f"{cls.__name__}(" in code for cls in explorer_classes())


# the zh notebooks that build an explorer (the same code as their English twins)
LIVE_ZH = [p for p in ZH_NOTEBOOKS if (p.parent.parent / p.name).is_file() and _builds_an_explorer(p)]


@pytest.mark.parametrize("path", LIVE_ZH, ids=_ids(LIVE_ZH))
def test_the_zh_pages_explorers_speak_chinese(site, path):
    """The zh page's explorers: Chinese controls (each control's description, every word label) and note, and
    frames drawn by the zh kernel (a figure's titles and legends are words: its picture is not the English one).

    Needs the explorers' translatable controls, notes and legends (attention_lab.explorers with the catalogue)."""
    zh = _explorers(_page_of(site, path).read_text(encoding="utf-8"))
    en = _explorers((site / f"{path.stem}.html").read_text(encoding="utf-8"))
    assert zh and len(zh) == len(en), "the zh page shows the English page's explorers"
    for (manifest, block), (english, _) in zip(zh, en, strict=True):
        name = manifest["class"]
        note = re.search(r'<p class="live-note">(.*?)</p>', block, re.S).group(1)
        assert CJK.search(html.unescape(note)), f"{name}: the note under the figure is not in Chinese: {note[:80]}"
        for control in manifest["controls"]:
            assert CJK.search(control["tooltip"]), f"{name}: {control['name']}'s description is not Chinese"
            if re.search(r"[A-Za-z]{4}", control["label"]):  # words, not a symbol such as T or h
                assert CJK.search(control["label"]), f"{name}: the control {control['label']!r} is not Chinese"
        current = lambda m: m["frames"][",".join(str(c["current"]) for c in m["controls"])]  # noqa: E731
        assert current(manifest) != current(english), f"{name}: the zh page shows the English frame"


# --- in real Chromium, from disk -----------------------------------------------------------------------------------


STEP_TIMER = """() => {
  // keydown/click/change -> the new frame in the page -> two animation frames (it has been painted)
  window.__steps = [];
  const start = () => { window.__t0 = performance.now(); };
  for (const type of ["keydown", "pointerdown", "change"]) document.addEventListener(type, start, true);
  new MutationObserver((records) => {
    const t0 = window.__t0;
    if (t0 === undefined) return;
    requestAnimationFrame(() => requestAnimationFrame(() => window.__steps.push(performance.now() - t0)));
    window.__t0 = undefined;
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["data-shown"]});
  // every frame an explorer is asked to show, as it happens (read once per control, not after every key)
  window.__frames = new Set();
  new MutationObserver((records) => {
    for (const record of records) window.__frames.add(record.target.dataset.frame);
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["data-frame"]});
}"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_live_explorers_move_offline_in_chromium(site, chromium, path, record_property):
    loaded = []
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        outside = files_only(page)
        errors = console_errors(page)  # none allowed: the pages log no error from file://
        page.on("requestfinished", lambda r: loaded.append(r.url))
        page.goto((site / f"{path.stem}.html").as_uri(), wait_until="load")
        first_load = sum(
            Path(url.removeprefix("file://")).stat().st_size
            for url in set(loaded)
            if url.startswith("file://") and Path(url.removeprefix("file://")).exists()
        )
        record_property("first_load_mb", round(first_load / 1e6, 2))
        assert first_load <= FIRST_LOAD_MB * 1e6, f"first load {first_load / 1e6:.1f} MB"
        page.evaluate(STEP_TIMER)
        roots = page.locator(".live-explorer")
        for k in range(roots.count()):
            root = roots.nth(k)
            manifest = json.loads(root.locator("script.live-manifest").text_content())
            root.scroll_into_view_if_needed()
            unique = len(set(manifest["frames"].values()))
            page.wait_for_function(
                "([r, n]) => +(r.dataset.loaded || 0) >= n", arg=[root.element_handle(), unique], timeout=60_000
            )
            for i, control in enumerate(manifest["controls"]):
                page.evaluate("() => window.__frames.clear()")
                before = root.get_attribute("data-shown")
                if control["kind"] == "slider":
                    handle = root.locator(f'input[type=range][data-control="{i}"]')
                    handle.focus()
                    for key in ["Home", *["ArrowRight"] * (len(control["labels"]) - 1), "End"]:
                        page.keyboard.press(key)  # to the focused slider, without a locator lookup per key
                elif control["kind"] == "select":
                    select = root.locator(f'select[data-control="{i}"]')
                    for j in [*range(len(control["labels"])), control["current"]]:
                        if select.locator("option").nth(j).is_enabled():
                            select.select_option(index=j)
                else:
                    for j in [*range(len(control["labels"])), control["current"]]:
                        button = f'input[data-control="{i}"][data-option="{j}"]'
                        if root.locator(button).is_enabled():
                            root.locator(f"label:has({button})").click()
                page.wait_for_function("r => r.dataset.shown === r.dataset.frame", arg=root.element_handle())
                seen = {before, *page.evaluate("() => [...window.__frames]")}  # the frames these moves asked for
                assert len(seen) > 1, f"{manifest['class']}: moving {control['name']} never changed the picture"
            shown = root.locator("img.live-figure")
            assert shown.evaluate("img => img.complete && img.naturalWidth > 0")
        steps = page.evaluate("window.__steps")
    finally:
        page.close()
    assert not outside, f"requests left the page: {outside[:5]}"
    assert not errors, f"console errors: {errors[:5]}"
    if steps:
        median, p95 = statistics.median(steps), sorted(steps)[int(0.95 * (len(steps) - 1))]
        record_property("step_ms_median", round(median, 1))
        record_property("step_ms_p95", round(p95, 1))  # a measurement, reported, not a limit (a loaded machine varies)
