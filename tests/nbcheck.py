"""The notebook harness: static checks, and a run in a fresh kernel (through ``tools/execute.py``).

Used by test_notebooks.py for every course notebook (each executed once per test run, shared with the static
site), and by its self-tests on deliberately broken notebooks (so the harness is known to fail when it should).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from tools.execute import execute


def static_problems(nb) -> list[str]:
    """What is wrong with a notebook as committed: outputs, execution counts, missing kernelspec."""
    problems = []
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as error:
        problems.append(f"not a valid notebook for its nbformat version: {error.message}")
    spec = nb.metadata.get("kernelspec")
    if not spec or spec.get("name") != "python3":
        problems.append("metadata.kernelspec is missing or not python3: JupyterLab would ask for a kernel")
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"cell {index} was committed with outputs")
        if cell.get("execution_count") is not None:
            problems.append(f"cell {index} was committed with an execution count")
    return problems


def check_notebook(path: Path) -> tuple[list[str], float]:
    """Static checks, then a run in a fresh kernel with the notebook's folder as working directory."""
    nb = nbformat.read(path, as_version=4)
    problems = static_problems(nb)
    run = execute(path, nb=nb)
    return problems + run.problems, run.seconds
