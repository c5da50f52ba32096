"""Fixtures and settings shared by every test (plain helper functions are in ``helpers.py``).

- The repository's tools are the package ``tools`` (``from tools import build_site``): pytest's ``pythonpath``
  setting (``pyproject.toml``) puts the repository root on the path, nothing here edits it.
- ``OMP_NUM_THREADS=1`` for this process and the kernels it starts (two workers share two cores).
- Hypothesis: no per-example deadline anywhere (a loaded 2-core machine is slow at random moments), and a
  ``ci`` profile, chosen when ``CI`` is set, that also prints the statistics of each run.
- ``executed`` and ``built_site``: each course notebook is executed once per test run (for the harness, its
  page, its frames and its deck), and the static site built once from those runs, whichever of the two workers
  asks first; a worker that asks for the site while the other builds it runs the notebooks not yet started
  (from the last one back) instead of waiting idle. The cross-worker "run once, share the result" machinery
  is ``run_once.py``.
- ``interactive``: an explorer test run with the ipympl canvas and with the PNG fallback view.
- ``chromium`` (one launched Chromium per module) and ``chromium_available`` (skip, or fail under CI, without one).
- Markers from fixtures: a test that uses ``executed`` or ``built_site`` (directly or through another fixture)
  is marked ``notebook``, one that uses a browser fixture ``browser``; so the fast loop,
  ``-m "not notebook and not browser and not slow"``, needs no list of folders.
- Workers where they pay: ``-n auto`` (``addopts``) starts one per core for a folder or the whole suite, and
  none when the command names test files or single tests (``pytest tests/core/test_kernels_and_data.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import NOTEBOOKS, chromium_or_skip
from hypothesis import settings
from run_once import once, shared_dir

# One thread per torch process (this one and the notebook kernels it starts, which inherit it): two pytest
# workers, each starting kernels, would otherwise oversubscribe two cores, and small models gain nothing.
os.environ.setdefault("OMP_NUM_THREADS", "1")

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, print_blob=True)
# The fast loop (CONTRIBUTING.md, --hypothesis-profile=fast): a quarter of the examples per property.
settings.register_profile("fast", deadline=None, max_examples=25)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def executed(tmp_path_factory):
    """``executed(path)``: the notebook run once per test run in a fresh kernel (harness, page and deck share it).

    With several pytest-xdist workers the runs are shared on disk: the first worker to claim a run does
    it, the others wait for its result, so no notebook runs twice whichever worker asks first.
    """
    from tools.build_site import execute_page

    shared = shared_dir(tmp_path_factory, "executed-notebooks")

    def key(path: Path) -> str:  # a zh twin (notebooks/zh/) has its English notebook's stem: "zh-" tells them apart
        return f"zh-{path.stem}" if path.parent.name == "zh" else path.stem

    def run(path: Path):
        path = Path(path).resolve()
        return once(shared, key(path), lambda: execute_page(path))

    def help_with(paths) -> None:
        """Run those of ``paths`` no worker has claimed yet, in order, as ``run`` would; skip the claimed ones."""
        for path in paths:
            path = Path(path).resolve()
            once(shared, key(path), lambda path=path: execute_page(path), wait=False)

    run.help_with = help_with
    return run


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, executed):
    """(folder, pages written): the static site built once per test run from the shared notebook runs."""
    from tools.build_site import build_site

    shared = shared_dir(tmp_path_factory, "built-site")
    # The site needs every notebook, executed in page order by the worker that builds it. Any worker that asks
    # meanwhile runs the runs nobody has started, from the last one back, instead of waiting idle.
    if (shared / "site.claim").exists():
        executed.help_with(reversed(NOTEBOOKS))
    return once(
        shared,
        "site",
        lambda: (shared / "site", build_site(shared / "site", log=lambda m: None, executed=executed)),
    )


@pytest.fixture(params=[True, False], ids=["ipympl", "png-fallback"])
def interactive(request):
    """Run an explorer test with the ipympl canvas and with the PNG fallback view."""
    return request.param


@pytest.fixture
def chromium_available():
    """Skip where Chromium is missing (fail under CI, which installs it)."""
    chromium_or_skip()


@pytest.fixture(scope="module")
def chromium():
    """One Chromium per worker for the pages of a module; each test opens its own page (a fresh context)."""
    from tools import browser

    chromium_or_skip()
    with browser.chromium_browser() as launched:
        yield launched


# The fixtures that make a test a notebook test or a browser test (whatever other fixture brings them in).
NOTEBOOK_FIXTURES = {"executed", "built_site"}
BROWSER_FIXTURES = {"chromium", "chromium_available", "lab", "page"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & NOTEBOOK_FIXTURES:
            item.add_marker(pytest.mark.notebook)
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core, except when the command names only test files or single tests."""
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        targets = [arg.split("::")[0] for arg in config.args]
        if targets and all(Path(config.invocation_params.dir, target).is_file() for target in targets):
            return 0
    return None  # pytest-xdist's own count
