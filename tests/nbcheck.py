"""The notebook harness: static checks and execution of a notebook in a fresh kernel.

Used by test_notebooks.py for every course notebook, and by its self-tests on deliberately broken
notebooks (so that the harness itself is known to fail when it should).
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOK_TIMEOUT_PER_CELL = 180  # seconds; a guard against hangs, not a performance target


def static_problems(nb) -> list[str]:
    """What is wrong with a notebook as committed: outputs, execution counts, missing kernelspec."""
    problems = []
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


def run_problems(nb, workdir: Path) -> tuple[list[str], float]:
    """Execute ``nb`` in a fresh python3 kernel in ``workdir``; return (problems, seconds)."""
    client = NotebookClient(nb, timeout=NOTEBOOK_TIMEOUT_PER_CELL, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}})
    start = time.perf_counter()
    problems = []
    try:
        client.execute()
    except CellExecutionError as error:
        problems.append(f"a cell raised an error:\n{str(error)[-2000:]}")
    seconds = time.perf_counter() - start
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                problems.append(f"cell {index} wrote to stderr (a warning?):\n{output.get('text', '')[:1000]}")
            if output.get("output_type") == "error" and not problems:
                problems.append(f"cell {index} raised {output.get('ename')}: {output.get('evalue')}")
    return problems, seconds


def check_notebook(path: Path) -> tuple[list[str], float]:
    """Static checks, then a run in a fresh kernel with the notebook's folder as working directory."""
    nb = nbformat.read(path, as_version=4)
    problems = static_problems(nb)
    run, seconds = run_problems(nb, path.parent)
    return problems + run, seconds
