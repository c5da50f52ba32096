"""Fixtures and settings shared by every test (plain helper functions are in ``helpers.py``).

- The repository's tools are the package ``tools`` (``from tools import build_site``): pytest's ``pythonpath``
  setting (``pyproject.toml``) puts the repository root on the path, nothing here edits it.
- ``OMP_NUM_THREADS=1`` for this process and the kernels it starts (two workers share two cores).
- Hypothesis: no per-example deadline anywhere (a loaded 2-core machine is slow at random moments), and a
  ``ci`` profile, chosen when ``CI`` is set, that also prints the statistics of each run.
- ``executed`` and ``built_site``: each course notebook, English or zh, is executed once per test run (for the
  harness, its page, its frames and its deck; without the frames and lecture figures when no selected test needs
  the site),
  and the static site built once from those runs, whichever of the two workers asks first; a worker that would
  wait for a run or the site another worker is making runs the notebooks not yet started (from the last one
  back) instead of waiting idle. Runs are shared under their path in the repository (a second folder of
  notebooks gets its own). The cross-worker "run once, share the result" machinery is ``run_once.py``
  (pytest-xdist's filelock recipe).
- ``--durations-file PATH``: the time per test file and the slowest tests, written at the end (CI publishes it).
- ``interactive``: an explorer test run built for the notebook and built headless.
- ``chromium``: pytest-playwright's ``browser`` fixture, launching Debian's Chromium once per worker (skipped
  without one, a failure under CI).
- Markers from fixtures: a test that uses ``executed`` or ``built_site`` (directly or through another fixture)
  is marked ``notebook``, one that uses a browser fixture ``browser``; so the fast loop,
  ``-m "not notebook and not browser and not slow"``, needs no list of folders.
- Workers where they pay: ``-n auto`` (``addopts``) starts one per core for a folder or the whole suite, and
  none when the command names test files or single tests (``pytest tests/core/test_kernels_and_data.py``).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

# jsonschema (which nbformat imports) checks the "iri" format with rfc3987_syntax when it is installed
# (jupyter-events asks for it); importing it builds dozens of lark grammars, seconds of CPU in every test process.
# No test here validates an IRI: the tests' own process does without it (the kernels, JupyterLab and the tools'
# commands are untouched).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "import" raises ImportError

from helpers import NOTEBOOKS, ROOT, ZH_NOTEBOOKS, chromium_or_skip  # noqa: E402
from hypothesis import settings  # noqa: E402
from run_once import once, requested, run_key, shared_dir  # noqa: E402

# One thread per torch process (this one and the notebook kernels it starts, which inherit it): two pytest
# workers, each starting kernels, would otherwise oversubscribe two cores, and small models gain nothing.
os.environ.setdefault("OMP_NUM_THREADS", "1")

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, print_blob=True)
# The fast loop (CONTRIBUTING.md, --hypothesis-profile=fast): a quarter of the examples per property.
settings.register_profile("fast", deadline=None, max_examples=25)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# the site's pages in the order build_site runs them: the English notebooks, then their zh twins (site/zh/)
SITE_NOTEBOOKS = [*NOTEBOOKS, *ZH_NOTEBOOKS]
SITE_BUILT = pytest.StashKey[bool]()  # set once the tests are collected: does this run build the site?


@pytest.fixture(scope="session")
def executed(tmp_path_factory, pytestconfig):
    """``executed(path)``: the notebook run once per test run in a fresh kernel (harness, page and deck share it).

    A run that builds the site (a selected test uses ``built_site``) runs each notebook of the site, English
    and zh (``notebooks/zh/``, pages in the site's ``zh/``), for its page: lecture figures beside its own, its
    explorers' frames after its last cell (``build_site.execute_page``), drawn by its own kernel (so a zh
    notebook's frames are drawn in Chinese). Otherwise, and for a notebook that is no page of the site, the
    notebook runs as the harness needs it and no more (``execute.execute``), as in
    ``pytest tests/repository/test_notebooks.py -k 03``.

    With several pytest-xdist workers the runs are shared on disk: the first worker to claim a run does
    it, so no notebook runs twice whichever worker asks first. When the site is built, a worker that finds the
    run it needs claimed and not yet finished first runs the course's runs nobody has started (from the last
    one back): the site needs them all.
    """
    from tools.build_site import execute_page
    from tools.execute import execute

    shared = shared_dir(tmp_path_factory, "executed-notebooks")
    for_pages = pytestconfig.stash.get(SITE_BUILT, True)
    pages = {Path(path).resolve() for path in SITE_NOTEBOOKS}  # the site's pages, as build_site builds them

    def make(path: Path):
        return execute_page(path) if for_pages and path in pages else execute(path)

    def help_with(paths) -> None:
        """Run those of ``paths`` no worker has claimed yet, in order, as ``run`` would; skip the claimed ones."""
        for path in paths:
            path = Path(path).resolve()
            once(shared, run_key(path, ROOT), lambda path=path: make(path), wait=False)

    def run(path: Path):
        path = Path(path).resolve()
        meanwhile = (lambda: help_with(reversed(SITE_NOTEBOOKS))) if for_pages else None
        return once(shared, run_key(path, ROOT), lambda: make(path), meanwhile=meanwhile)

    run.help_with = help_with
    return run


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, executed):
    """(folder, pages written): the static site built once per test run from the shared notebook runs."""
    from tools.build_site import build_site

    shared = shared_dir(tmp_path_factory, "built-site")
    # The site needs every notebook, executed in page order by the worker that builds it. Any worker that asks
    # meanwhile runs the runs nobody has started, from the last one back, instead of waiting idle.
    return once(
        shared,
        "site",
        lambda: (shared / "site", build_site(shared / "site", log=lambda m: None, executed=executed)),
        meanwhile=lambda: executed.help_with(reversed(SITE_NOTEBOOKS)),
    )


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """The course built as a wheel once per test run (per worker), as ``pip wheel .`` builds it: the packaging
    tests read what it holds and install it apart from the source tree."""
    import shutil

    folder, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("wheel-source")
    # built from a copy: setuptools writes its build/ folder beside the sources, and a build/ in the repository
    # (a second copy of the package in the folder JupyterLab serves) breaks the fast path's browser test
    for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSES"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder)]
    built = subprocess.run([*command, str(source)], capture_output=True, encoding="utf-8")
    assert built.returncode == 0, built.stderr
    (path,) = folder.glob("attention_lab-*.whl")
    return path


@pytest.fixture(params=[True, False], ids=["interactive", "headless"])
def interactive(request):
    """Run an explorer test built for the notebook (its front end and fallback) and built headless."""
    return request.param


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's browser is Debian's Chromium with the flags of ``tools/browser.py`` (never a browser
    Playwright downloads); skipped where it is missing (a failure under CI, which installs it)."""
    from tools import browser

    chromium_or_skip()
    return {**browser_type_launch_args, "executable_path": browser.CHROMIUM, "args": browser.CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def chromium(browser):
    """pytest-playwright's ``browser``: one Chromium per worker for the whole run, launched when a test first
    needs it; each test opens its own page (``chromium.new_page``, a fresh context) and closes it."""
    return browser


# The fixtures that make a test a notebook test or a browser test (whatever other fixture brings them in).
NOTEBOOK_FIXTURES = {"executed", "built_site"}
BROWSER_FIXTURES = {"browser", "chromium", "lab", "page"}


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """No garbage collection while the tests are collected: the modules imported and the tests made live to the
    end, so the collector's passes over them during collection would find little to free."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()


def pytest_collection_finish(session):
    """Whether this run builds the site: a test left after ``-m``/``-k`` uses ``built_site`` (``executed``).

    Then the objects collection made (the imported modules, the tests and their parameters), which
    live to the end, go to the garbage collector's permanent generation: its full collections during the run no
    longer scan them again."""
    session.config.stash[SITE_BUILT] = requested(session.items, "built_site")
    gc.collect()  # not the garbage of collection itself
    gc.freeze()


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & NOTEBOOK_FIXTURES:
            item.add_marker(pytest.mark.notebook)
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


def pytest_addoption(parser):
    parser.addoption(
        "--durations-file",
        metavar="PATH",
        help="also write where the time went to PATH: time per test file, the slowest tests (CI publishes it)",
    )


STARTED = pytest.StashKey[float]()


def pytest_sessionstart(session):
    session.config.stash[STARTED] = time.monotonic()


def pytest_terminal_summary(terminalreporter, config):
    """``--durations-file``: each test file's and the 30 slowest tests' time (setup + call + teardown, summed
    over xdist workers, so the files add up to more than the run's wall-clock time), and the counts."""
    target = config.getoption("durations_file")
    if not target or hasattr(config, "workerinput"):  # written once, by the process that reports
        return
    tests, outcomes = {}, {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                tests[report.nodeid] = tests.get(report.nodeid, 0.0) + report.duration
                if report.when == "call" or report.outcome != "passed":
                    outcomes[report.outcome] = outcomes.get(report.outcome, 0) + 1
    files = {}
    for nodeid, seconds in tests.items():
        files[nodeid.split("::")[0]] = files.get(nodeid.split("::")[0], 0.0) + seconds
    lines = [
        f"{len(tests)} tests ({', '.join(f'{n} {o}' for o, n in sorted(outcomes.items()))}); "
        f"{sum(tests.values()):.0f} s of test time over all workers, "
        f"{time.monotonic() - config.stash[STARTED]:.0f} s from start to end",
        "",
        "seconds  test file",
        *(f"{s:7.1f}  {name}" for name, s in sorted(files.items(), key=lambda item: -item[1])),
        "",
        "seconds  slowest tests",
        *(f"{s:7.1f}  {name}" for name, s in sorted(tests.items(), key=lambda item: -item[1])[:30]),
    ]
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core, except when the command names only test files or single tests."""
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        targets = [arg.split("::")[0] for arg in config.args]
        if targets and all(Path(config.invocation_params.dir, target).is_file() for target in targets):
            return 0
    return None  # pytest-xdist's own count
