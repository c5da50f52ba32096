"""The notebook harness: static checks, and a run in a fresh kernel (through ``tools/execute.py``).

Used by test_notebooks.py for every course notebook (each executed once per test run, shared with the static
site), and by its self-tests on deliberately broken notebooks (so the harness is known to fail when it should).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from tools.execute import execute
from tools.notebook_check import static_problems

__all__ = ["static_problems", "check_notebook"]


def check_notebook(path: Path) -> tuple[list[str], float]:
    """Static checks, then a run in a fresh kernel with the notebook's folder as working directory."""
    nb = nbformat.read(path, as_version=4)
    problems = static_problems(nb)
    run = execute(path, nb=nb)
    return problems + run.problems, run.seconds
