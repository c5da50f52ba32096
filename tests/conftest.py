"""Fixtures and settings shared by every test (plain helper functions are in ``helpers.py``).

- The repository's tools are the package ``tools`` (``from tools import build_site``): pytest's ``pythonpath``
  setting (``pyproject.toml``) puts the repository root on the path, nothing here edits it.
- ``OMP_NUM_THREADS=1`` for this process and the kernels it starts (two workers share two cores).
- Hypothesis: no per-example deadline anywhere (a loaded 2-core machine is slow at random moments), and a
  ``ci`` profile, chosen when ``CI`` is set, that also prints the statistics of each run.
- ``executed`` and ``built_site``: each course notebook is executed once per test run, and the static site
  built once from those runs, whichever of the two workers asks first; a worker that asks for the site while
  the other builds it runs the notebooks not yet started (from the last one back) instead of waiting idle.
  The cross-worker "run once, share the result" machinery is ``run_once.py``.
- ``interactive``: an explorer test run with the ipympl canvas and with the PNG fallback view.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import NOTEBOOKS
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
    """``executed(path)``: the notebook run once per test run in a fresh kernel (harness and site share it).

    ``executed.lecture(path)``: its run in lecture mode, for its slide deck, likewise once per test run.
    With several pytest-xdist workers the runs are shared on disk: the first worker to claim a run does
    it, the others wait for its result, so no notebook runs twice whichever worker asks first.
    """
    from tools.build_site import execute_page
    from tools.decks import execute_deck

    shared = shared_dir(tmp_path_factory, "executed-notebooks")
    kinds = {"page": execute_page, "lecture": execute_deck}

    def run(path: Path, kind: str = "page"):
        path = Path(path).resolve()
        return once(shared, f"{path.stem}-{kind}", lambda: kinds[kind](path))

    def help_with(paths, kind: str = "page") -> None:
        """Run those of ``paths`` no worker has claimed yet, in order, as ``run`` would; skip the claimed ones."""
        for path in paths:
            path = Path(path).resolve()
            once(shared, f"{path.stem}-{kind}", lambda path=path: kinds[kind](path), wait=False)

    run.lecture = lambda path: run(path, "lecture")
    run.help_with = help_with
    return run


@pytest.fixture(scope="session")
def built_site(tmp_path_factory, executed):
    """(folder, pages written): the static site built once per test run from the shared notebook runs."""
    from tools.build_site import build_site

    shared = shared_dir(tmp_path_factory, "built-site")
    # The site needs every notebook, executed in page order and then in lecture mode by the worker that
    # builds it. Any worker that asks meanwhile runs the runs nobody has started, from the last one back,
    # instead of waiting idle.
    if (shared / "site.claim").exists():
        executed.help_with(reversed(NOTEBOOKS))
        executed.help_with(reversed(NOTEBOOKS), "lecture")
    return once(
        shared,
        "site",
        lambda: (
            shared / "site",
            build_site(shared / "site", log=lambda m: None, executed=executed, executed_decks=executed.lecture),
        ),
    )


@pytest.fixture(params=[True, False], ids=["ipympl", "png-fallback"])
def interactive(request):
    """Run an explorer test with the ipympl canvas and with the PNG fallback view."""
    return request.param
