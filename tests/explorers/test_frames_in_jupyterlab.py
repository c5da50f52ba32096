"""The fast path in real JupyterLab and headless Chromium: a position shown once comes back without the kernel.

Skipped with a hint where Chromium is missing (under CI, CI=true, a missing browser is a failure).
"""

import json
import os
import uuid

import nbformat
import pytest
from helpers import ROOT
from playwright.sync_api import expect

from tools import browser

pytestmark = pytest.mark.browser

if not browser.chromium_available():
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI needs Chromium at {browser.CHROMIUM} for the UI tests: {browser.INSTALL_HINT}")
    pytest.skip(f"Chromium not found at {browser.CHROMIUM}; {browser.INSTALL_HINT}", allow_module_level=True)

ARTIFACTS = ROOT / "test-artifacts"

# In one task of the page: move the slider to ``index`` and read which frame is on screen right after the input
# event, before the page could have received any message (from the kernel or anything else).
MOVE_AND_READ = """([root, control, index]) => {
    const slider = root.querySelector(`input[type=range][data-control="${control}"]`);
    slider.value = index;
    slider.dispatchEvent(new Event("input", {bubbles: true}));
    return [root.dataset.frame, root.dataset.shown];
}"""


@pytest.fixture(scope="module")
def lab():
    with browser.jupyterlab(ROOT) as server:
        yield server


@pytest.fixture(scope="module")
def page(chromium):
    """One page for the module, in the worker's Chromium (pytest-playwright's, ``conftest.py``), not one more."""
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    # a guard against a hang, not a speed limit: a kernel drawing a frame on a loaded 2-core host took over 30 s
    page.set_default_timeout(120_000)
    yield page
    page.close()


def open_explorer(lab, page, code: str):
    """A notebook of one cell, ``code``, run in JupyterLab: its path (delete it after) and the explorer's block."""
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [nbformat.v4.new_code_cell(code)]
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"frames-{uuid.uuid4().hex[:8]}.ipynb"  # inside what this JupyterLab serves
    nbformat.write(nb, path)
    page.goto("about:blank")
    lab.shutdown_kernels()
    browser.open_notebook(page, lab, str(path.relative_to(ROOT)))
    browser.run_all(page)
    root = page.locator(".live-explorer")
    root.wait_for()
    page.wait_for_function("r => r.dataset.path === 'browser'", arg=root.element_handle())
    return path, root


def test_the_browser_keeps_frames_within_the_budget_dropping_the_oldest(lab, page):
    code = (
        "from attention_lab.explorers import TemperatureExplorer, frames\n"
        "frames.BUDGET_BYTES = 80_000  # a few frames only\n"
        "explorer = TemperatureExplorer.example()\nexplorer"
    )
    path, root = open_explorer(lab, page, code)
    try:
        manifest = json.loads(root.locator("script.live-manifest").text_content())
        assert manifest["budget"] == 80_000
        start = manifest["controls"][0]["current"]
        handle = root.locator('input[type=range][data-control="0"]')
        handle.focus()
        for _ in range(12):  # twelve positions, far more than 80 KB of frames hold
            page.keyboard.press("ArrowLeft")
            page.wait_for_function("r => r.dataset.shown === r.dataset.frame", arg=root.element_handle())
        arrived, kept = int(root.get_attribute("data-arrived")), int(root.get_attribute("data-kept"))
        assert arrived >= 12 and kept <= 8, (arrived, kept)
        # the first position visited was dropped (the oldest first): it is asked of the kernel again
        frame, shown = page.evaluate(MOVE_AND_READ, [root.element_handle(), 0, start - 1])
        assert frame != shown
        page.wait_for_function("r => r.dataset.shown === r.dataset.frame", arg=root.element_handle())
        # the last one is still kept: on screen within the event
        frame, shown = page.evaluate(MOVE_AND_READ, [root.element_handle(), 0, start - 12])
        assert frame == shown
    finally:
        page.goto("about:blank")
        path.unlink(missing_ok=True)


def test_a_position_shown_once_comes_back_without_the_kernel(lab, page):
    code = "from attention_lab.explorers import KernelExplorer\nexplorer = KernelExplorer.example()\nexplorer"
    path, root = open_explorer(lab, page, code)
    try:
        # the fast path is the one shown, and says so; the fallback is there, hidden
        assert "Fast path" in root.inner_text()
        expect(page.locator(browser.FIGURE).first).to_be_hidden(timeout=30_000)  # hidden by the kernel: a round trip
        manifest = json.loads(root.locator("script.live-manifest").text_content())
        control = [c["name"] for c in manifest["controls"]].index("bandwidth")
        start = manifest["controls"][control]["current"]
        handle = root.locator(f'input[type=range][data-control="{control}"]')
        handle.focus()
        visited = []
        for _ in range(4):  # the reader's first pass: frames drawn by the kernel (or already drawn ahead)
            page.keyboard.press("ArrowLeft")
            page.wait_for_function("r => r.dataset.shown === r.dataset.frame", arg=root.element_handle())
            visited.append(root.get_attribute("data-shown"))
        assert len(set(visited)) == 4
        kept = int(root.get_attribute("data-kept"))
        assert kept >= 5
        # the second pass: each position is on screen within the input event itself, so no message was awaited
        for index in [start - 3, start - 2, start - 1, start]:
            frame, shown = page.evaluate(MOVE_AND_READ, [root.element_handle(), control, index])
            assert frame == shown, f"position {frame} was not shown at once (on screen: {shown})"
        # and with no kernel at all: every kept position still comes back
        lab.shutdown_kernels()
        for index in [start - 4, start - 1]:
            frame, shown = page.evaluate(MOVE_AND_READ, [root.element_handle(), control, index])
            assert frame == shown
        problems = browser.page_problems(page)
        assert not problems, "\n".join(problems)
    finally:
        page.goto("about:blank")
        path.unlink(missing_ok=True)
