"""The course in real JupyterLab and headless Chromium: what a student would actually see.

Skipped with a hint where Chromium is missing; under CI (CI=true) a missing browser is a failure.
Screenshots land in test-artifacts/.
"""

import os
import re
import uuid
from pathlib import Path

import nbformat
import pytest
from helpers import NOTEBOOKS, ROOT
from nbcheck import static_problems

from tools import browser

ARTIFACTS = ROOT / "test-artifacts"

# one JupyterLab server and one browser per pytest-xdist worker that runs these tests (module fixtures)
pytestmark = pytest.mark.browser

if not browser.chromium_available():
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI needs Chromium at {browser.CHROMIUM} for the UI tests: {browser.INSTALL_HINT}")
    pytest.skip(f"Chromium not found at {browser.CHROMIUM}; {browser.INSTALL_HINT}", allow_module_level=True)


# The notebook harness runs its kernels on PyTorch's own choice of CPU code path; this JupyterLab runs its
# kernels one step down (AVX-512 -> AVX2 -> default), so every test run executes each notebook on two paths.
CPU_CAPABILITY = browser.other_cpu_capability()


@pytest.fixture(scope="module")
def lab():
    with browser.jupyterlab(ROOT, cpu_capability=CPU_CAPABILITY) as server:
        yield server


@pytest.fixture(scope="module")
def page(chromium):
    """One page for the module's notebooks, in the worker's Chromium (pytest-playwright's, ``conftest.py``)."""
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    yield page
    page.close()


def explorer_classes() -> set:
    """Names of every Explorer subclass in the library (they are the interactive figures)."""
    import importlib
    import pkgutil

    import attention_lab
    from attention_lab.explorers import Explorer

    for module in pkgutil.iter_modules(attention_lab.__path__):  # importing a module registers its explorers
        importlib.import_module(f"attention_lab.{module.name}")

    found, todo = set(), [Explorer]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub.__name__)
            todo.append(sub)
    return found


def expected_figures(path: Path) -> int:
    """One interactive figure per explorer built in the notebook's code cells."""
    code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    return len(re.findall(r"\b(?:" + "|".join(sorted(explorer_classes())) + r")\(", code))


def test_expected_figures_counts_explorer_constructions():
    assert {"KernelExplorer", "TrainingScrubber", "DimensionExplorer", "AlignmentExplorer"} <= explorer_classes()
    assert expected_figures(ROOT / "notebooks" / "04_parametric_pooling.ipynb") == 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_in_jupyterlab(lab, page, path):
    page.goto("about:blank")  # leave the previous notebook first, so no open page sees its kernel go
    lab.shutdown_kernels()  # the previous notebook's kernel: free its memory before this one starts
    browser.open_notebook(page, lab, f"notebooks/{path.name}")
    assert page.locator(browser.DIALOG).count() == 0, "a dialog (e.g. 'Select Kernel') opened with the notebook"
    # the Colab set-up cell and the check cells are collapsed, each to the one line that says what it is
    placeholders = page.locator(browser.PLACEHOLDER)
    hidden = [c for c in nbformat.read(path, as_version=4).cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert placeholders.count() == len(hidden) and placeholders.first.inner_text().startswith("# Colab set-up (hidden)")
    assert all(placeholders.nth(i).inner_text().startswith("# Check:") for i in range(1, len(hidden)))
    browser.run_all(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{path.stem}.png"), full_page=True)
    problems = browser.page_problems(page)
    assert not problems, "\n".join(problems)
    if path.name.startswith("00") and CPU_CAPABILITY is not None:  # its set-up cell names the code path
        assert f"with its {CPU_CAPABILITY.upper()} kernels" in page.inner_text("body")

    # each explorer's figure is shown exactly once, through the fast path (frames kept in the browser); the
    # kernel path's view (its ipympl canvas) is there, hidden, for a front end that cannot load the fast one
    explorers = page.locator(f"{browser.OUTPUT} .live-explorer")
    assert explorers.count() == expected_figures(path) == page.locator(browser.FIGURE).count()
    outputs = page.locator(browser.OUTPUT)
    areas = [i for i in range(outputs.count()) if outputs.nth(i).locator(".live-explorer").count()]
    for k, i in enumerate(areas):
        root = outputs.nth(i).locator(".live-explorer")
        assert root.count() == 1, "a figure is displayed twice in one output"
        page.wait_for_function("r => r.dataset.path === 'browser'", arg=root.element_handle())
        assert not outputs.nth(i).locator(browser.FIGURE).is_visible(), "the kernel path's view is shown too"
        outputs.nth(i).scroll_into_view_if_needed()
        outputs.nth(i).screenshot(path=str(ARTIFACTS / f"{path.stem}-explorer-{k + 1}.png"))

    # every explorer's controls carry a description a screen reader can read (their label's title)
    described = page.locator(f'{browser.OUTPUT} .live-explorer [title*="the figure below follows"]').count()
    assert described >= len(areas), f"{described} described controls for {len(areas)} explorers"

    # every slider of every explorer moves its figure on screen
    moved = 0
    for i in areas:
        root = outputs.nth(i).locator(".live-explorer")
        sliders = root.locator("input[type=range]")
        for j in range(sliders.count()):
            slider = sliders.nth(j)
            slider.scroll_into_view_if_needed()
            before = root.get_attribute("data-shown")
            slider.press("ArrowRight" if slider.input_value() == "0" else "ArrowLeft")
            page.wait_for_function(
                "([r, b]) => r.dataset.shown === r.dataset.frame && r.dataset.shown !== b",
                arg=[root.element_handle(), before],
                timeout=30_000,
            )
            moved += 1
    assert moved >= len(areas)
    assert not browser.page_problems(page)
    # the notebook on disk is as committed: the browser run saved nothing into it
    assert not [p for p in static_problems(nbformat.read(path, as_version=4)) if "outputs" in p or "count" in p]


def test_run_all_that_stops_at_an_error_fails_at_once_with_the_error(lab, page):
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("assert x == 2, 'x is not 2'"),
        nbformat.v4.new_code_cell("print('never run')"),
    ]
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"run-all-stops-{uuid.uuid4().hex[:8]}.ipynb"  # inside what this worker's JupyterLab serves
    nbformat.write(nb, path)
    try:
        page.goto("about:blank")
        lab.shutdown_kernels()
        browser.open_notebook(page, lab, path.relative_to(ROOT).as_posix())
        with pytest.raises(AssertionError, match=r"(?s)stopped at an error.*x is not 2.*1 of 3 code cells") as failure:
            browser.run_all(page, timeout_ms=60_000)
        assert "code cell 3" in str(failure.value)
    finally:
        page.goto("about:blank")
        path.unlink()
