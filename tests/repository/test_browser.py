"""The course in real JupyterLab and headless Chromium: what a student would actually see.

What a kernel alone cannot show is tested here; that the notebooks run is the harness's (test_notebooks.py,
nbclient), so notebooks run in JupyterLab only where the real browser is what is tested:

- a tour notebook, written at test time, that builds every registered explorer as its notebook does
  (``explorer_classes()``, ``example()``), a live loss plot, a diagram and exercise feedback: Run All, then every
  figure shown once through the fast path, every slider moving it, feedback that unfolds, nothing on stderr;
- every course notebook opened as a student opens it (no dialog, the set-up and check cells collapsed, every
  Markdown cell and its maths rendered); notebook 00, the one a student runs first, also Run All;
- a notebook of the Chinese edition Run All: Chinese controls and Chinese exercise feedback.

The JupyterLab here runs its kernels one CPU code path down (``CPU_CAPABILITY``), so the tour and notebook 00
also run on a second code path. Skipped with a hint where Chromium is missing; under CI (CI=true) a missing
browser is a failure. Screenshots land in test-artifacts/.
"""

import json
import os
import re
import uuid
from pathlib import Path

import nbformat
import pytest
from helpers import NOTEBOOKS, ROOT, ZH_NOTEBOOKS
from nbcheck import static_problems
from playwright.sync_api import expect

from tools import browser

ARTIFACTS = ROOT / "test-artifacts"

# one JupyterLab server and one browser per pytest-xdist worker that runs these tests (module fixtures)
pytestmark = pytest.mark.browser

if not browser.chromium_available():
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"CI needs Chromium at {browser.CHROMIUM} for the UI tests: {browser.INSTALL_HINT}")
    pytest.skip(f"Chromium not found at {browser.CHROMIUM}; {browser.INSTALL_HINT}", allow_module_level=True)


# The notebook harness runs its kernels on PyTorch's own choice of CPU code path; this JupyterLab runs its
# kernels one step down (AVX-512 -> AVX2 -> default), so the tour and notebook 00 run on two paths per test run.
CPU_CAPABILITY = browser.other_cpu_capability()

# The course notebooks also run (Run All) in JupyterLab: the first one a student runs. The others are opened
# and checked as shown; their explorers run in the tour, and the notebooks themselves in the harness.
RUN_ALL = {"00_start_here.ipynb"}


@pytest.fixture(scope="module")
def lab():
    with browser.jupyterlab(ROOT, cpu_capability=CPU_CAPABILITY) as server:
        yield server


@pytest.fixture(scope="module")
def page(chromium):
    """One page for the module's notebooks, in the worker's Chromium (pytest-playwright's, ``conftest.py``)."""
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    # a guard against a hang, not a speed limit: a kernel drawing a frame on a loaded 2-core host took over 30 s
    page.set_default_timeout(120_000)
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


def built_explorers(path: Path) -> list[str]:
    """The explorer classes a notebook's code cells build, one entry per construction."""
    code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    return re.findall(r"\b(" + "|".join(sorted(explorer_classes())) + r")\(", code)


def expected_figures(path: Path) -> int:
    """One interactive figure per explorer built in the notebook's code cells."""
    return len(built_explorers(path))


def test_expected_figures_counts_explorer_constructions():
    assert {"KernelExplorer", "TrainingScrubber", "DimensionExplorer", "AlignmentExplorer"} <= explorer_classes()
    assert expected_figures(ROOT / "notebooks" / "04_parametric_pooling.ipynb") == 2


def write_notebook(cells: list[str]) -> Path:
    """A notebook of these code cells inside what this worker's JupyterLab serves (delete it after)."""
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"browser-{uuid.uuid4().hex[:8]}.ipynb"
    nbformat.write(nb, path)
    return path


# Close every open document without asking to save it (a notebook after Run All has unsaved outputs)
CLOSE_ALL = """() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) {
    if (w.context) w.context.model.dirty = false;
    w.close();
} }"""


def open_in_lab(page, lab, relative_path: str) -> None:
    """Open a notebook as a student opens one, alone in JupyterLab, with a kernel of its own.

    The JupyterLab page already loaded is reused (its documents closed, then this one opened, as from the
    file browser): loading the application again for each notebook took most of the time of opening one.
    """
    if page.url.startswith(lab.url) and page.evaluate("() => Boolean(window.jupyterapp)"):
        page.evaluate(CLOSE_ALL)
        page.wait_for_selector(".jp-NotebookPanel", state="detached")
        lab.shutdown_kernels()  # the previous notebook's kernel (closing a tab leaves it running): free its memory
        page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", relative_path)
        page.wait_for_selector(browser.SHOWN_PANEL, timeout=60_000)
        browser.wait_idle(page)
    else:
        page.goto("about:blank")
        lab.shutdown_kernels()
        browser.open_notebook(page, lab, relative_path)
    assert page.locator(browser.DIALOG).count() == 0, "a dialog (e.g. 'Select Kernel') opened with the notebook"


def check_explorers(page, stem: str, expected: int) -> None:
    """Each explorer's figure is shown exactly once, through the fast path (frames kept in the browser), with
    described controls; every slider of every explorer moves its figure on screen."""
    # the fallback (the kernel's picture) is there, hidden, for a front end that cannot load the frame view
    explorers = page.locator(f"{browser.OUTPUT} .live-explorer")
    assert explorers.count() == expected == page.locator(browser.FIGURE).count()
    outputs = page.locator(browser.OUTPUT)
    areas = [i for i in range(outputs.count()) if outputs.nth(i).locator(".live-explorer").count()]
    for k, i in enumerate(areas):
        root = outputs.nth(i).locator(".live-explorer")
        assert root.count() == 1, "a figure is displayed twice in one output"
        page.wait_for_function("r => r.dataset.path === 'browser'", arg=root.element_handle())
        # the kernel hides it once the fast path's front end tells it that it runs: a round trip, so wait for it
        expect(outputs.nth(i).locator(browser.FIGURE), "the fallback is shown too").to_be_hidden(timeout=30_000)
        outputs.nth(i).scroll_into_view_if_needed()
        outputs.nth(i).screenshot(path=str(ARTIFACTS / f"{stem}-explorer-{k + 1}.png"))

    # every explorer's controls carry a description a screen reader can read (their label's title)
    described = page.locator(f'{browser.OUTPUT} .live-explorer [title*="the figure below follows"]').count()
    assert described >= len(areas), f"{described} described controls for {len(areas)} explorers"

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
            )
            moved += 1
    assert moved >= len(areas)
    assert not browser.page_problems(page)


def check_images_drawn(page) -> int:
    """Every image in an output is loaded and drawn (not a broken image); how many there are."""
    sizes = page.evaluate(
        "(output) => [...document.querySelectorAll(`${output} img`)].map(i => i.complete ? i.naturalWidth : 0)",
        browser.OUTPUT,
    )
    assert all(width > 0 for width in sizes), f"broken or unloaded images in the outputs: {sizes}"
    return len(sizes)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_in_jupyterlab(lab, page, path):
    open_in_lab(page, lab, f"notebooks/{path.name}")
    nb = nbformat.read(path, as_version=4)
    # the Colab set-up cell and the check cells are collapsed, each to the one line that says what it is
    placeholders = page.locator(browser.PLACEHOLDER)
    hidden = [c for c in nb.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    assert placeholders.count() == len(hidden) and placeholders.first.inner_text().startswith("# Colab set-up (hidden)")
    assert all(placeholders.nth(i).inner_text().startswith("# Check:") for i in range(1, len(hidden)))
    # every Markdown cell is rendered, its maths typeset without an error
    markdown = sum(c.cell_type == "markdown" for c in nb.cells)
    assert page.locator(f"{browser.SHOWN_PANEL} .jp-MarkdownCell .jp-RenderedMarkdown").count() == markdown
    if any("$" in c.source for c in nb.cells if c.cell_type == "markdown"):
        page.wait_for_selector(f"{browser.SHOWN_PANEL} mjx-container")
    assert page.locator(f"{browser.SHOWN_PANEL} mjx-merror").count() == 0, "a formula failed to typeset"
    # every explorer it builds is one the tour runs in this JupyterLab (the registry's)
    from attention_lab.explorers import explorer_classes as registry

    assert set(built_explorers(path)) <= {cls.__name__ for cls in registry()}
    if path.name in RUN_ALL:
        browser.run_all(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{path.stem}.png"), full_page=True)
        problems = browser.page_problems(page)
        assert not problems, "\n".join(problems)
        if path.name.startswith("00") and CPU_CAPABILITY is not None:  # its set-up cell names the code path
            assert f"with its {CPU_CAPABILITY.upper()} kernels" in page.inner_text("body")
        check_explorers(page, path.stem, expected_figures(path))
        check_images_drawn(page)
    assert not browser.page_problems(page)
    # the notebook on disk is as committed: the browser saved nothing into it
    assert not [p for p in static_problems(nbformat.read(path, as_version=4)) if "outputs" in p or "count" in p]


def tour_cells() -> tuple[list[str], int]:
    """The tour's code cells and how many explorers they build: every registered explorer as its notebook
    builds it, a live loss plot, a diagram, and exercise feedback (a right and a wrong answer)."""
    from attention_lab.explorers import explorer_classes as registry

    classes = registry()
    cells = [
        "%matplotlib inline\nimport torch\nimport attention_lab as al\n"
        'print("ATen CPU capability:", torch.backends.cpu.get_cpu_capability())',
        *(f"from attention_lab.explorers import {c.__name__}\n{c.__name__}.example()" for c in classes),
        "from attention_lab.training import LiveLoss\nloss = LiveLoss(3)\n"
        "for epoch in range(1, 4):\n    loss.update(epoch, train=1 / epoch)",
        "al.diagrams.hard_vs_soft()",
        "from attention_lab.exercises import check_top_k\n"
        "check_top_k(lambda alpha, k_top: al.hard_attention(alpha, k_top))",
        "check_top_k(lambda alpha, k_top: k_top * al.hard_attention(alpha, k_top))",
    ]
    return cells, len(classes)


def test_every_explorer_and_feedback_in_jupyterlab(lab, page):
    cells, explorers = tour_cells()
    assert explorers >= 10  # every figure of the course (explorers/__init__.py's table)
    path = write_notebook(cells)
    try:
        open_in_lab(page, lab, path.relative_to(ROOT).as_posix())
        browser.run_all(page)
        page.screenshot(path=str(ARTIFACTS / "tour.png"), full_page=True)
        problems = browser.page_problems(page)
        assert not problems, "\n".join(problems)
        if CPU_CAPABILITY is not None:  # the kernels of this JupyterLab run one code path down
            assert f"ATen CPU capability: {CPU_CAPABILITY}".upper() in page.inner_text(browser.SHOWN_PANEL).upper()
        check_explorers(page, "tour", explorers)
        assert check_images_drawn(page) >= 2  # the loss plot and the diagram
        # exercise feedback: the verdicts, and the hint and fix folded behind a click that unfolds them
        right = page.locator(browser.OUTPUT).filter(has_text="top-k hard attention: ✅ correct")
        wrong = page.locator(browser.OUTPUT).filter(has_text="top-k hard attention: ❌ not yet")
        assert right.count() == 1 and wrong.count() == 1
        folded = wrong.locator("details")
        assert folded.count() >= 1 and not folded.first.locator("div").is_visible()
        folded.first.locator("summary").click()
        assert folded.first.locator("div").is_visible() and folded.first.locator("div").inner_text().strip()
    finally:
        path.unlink(missing_ok=True)


def test_a_chinese_notebook_shows_chinese_controls_and_feedback(lab, page):
    """Notebook 00 of the Chinese edition, Run All: its explorer's controls and its exercise feedback speak
    Chinese, each text the library's catalogue gives for the English one (attention_lab.i18n)."""
    from attention_lab import i18n
    from attention_lab.explorers import KernelExplorer

    (path,) = [p for p in ZH_NOTEBOOKS if p.name.startswith("00")]
    assert "KernelExplorer(" in path.read_text(encoding="utf-8") and "check_uniform_temperature(" in path.read_text(
        encoding="utf-8"
    )
    language = i18n.get_language()
    try:
        i18n.set_language("en")
        english = [c.description for c in KernelExplorer.example(interactive=False).controls.values()]
        i18n.set_language("zh")
        labels = [i18n._(label) for label in english]
        feedback = [i18n._("the temperature that makes every weight equal"), i18n._("not attempted yet")]
    finally:
        i18n.set_language(language)
    translated = [label for label, en in zip(labels, english, strict=True) if label != en]
    assert translated, f"the catalogue has no Chinese for any of the controls {english}"
    assert all(re.search("[\u4e00-\u9fff]", text) for text in feedback), feedback

    open_in_lab(page, lab, path.relative_to(ROOT).as_posix())
    browser.run_all(page)
    page.screenshot(path=str(ARTIFACTS / "zh-00.png"), full_page=True)
    problems = browser.page_problems(page)
    assert not problems, "\n".join(problems)
    root = page.locator(f"{browser.OUTPUT} .live-explorer")
    assert root.count() == 1
    page.wait_for_function("r => r.dataset.path === 'browser'", arg=root.element_handle())
    manifest = json.loads(root.locator("script.live-manifest").text_content())
    assert [c["label"] for c in manifest["controls"]] == labels
    shown = root.inner_text()
    assert all(label in shown for label in translated), (translated, shown[:300])
    verdict = page.locator(browser.OUTPUT).filter(has_text=feedback[0])
    assert verdict.count() == 1 and feedback[1] in verdict.inner_text()
    assert not [p for p in static_problems(nbformat.read(path, as_version=4)) if "outputs" in p or "count" in p]


def test_run_all_that_stops_at_an_error_fails_at_once_with_the_error(lab, page):
    path = write_notebook(["x = 1", "assert x == 2, 'x is not 2'", "print('never run')"])
    try:
        open_in_lab(page, lab, path.relative_to(ROOT).as_posix())
        with pytest.raises(AssertionError, match=r"(?s)stopped at an error.*x is not 2.*1 of 3 code cells") as failure:
            browser.run_all(page, timeout_ms=60_000)
        assert "code cell 3" in str(failure.value)
    finally:
        path.unlink()
