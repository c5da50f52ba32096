"""Notebooks as committed: ``python -m tools.notebook_check [NOTEBOOK ...]`` (default: every course notebook).

Each must be a valid notebook with a python3 ``kernelspec`` and be committed stripped: no outputs, no
execution counts. Prints one line per problem and exits 1 if there is any (a pre-commit hook runs it; the test
harness, ``tests/nbcheck.py``, applies :func:`static_problems` to every notebook before it runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root

__all__ = ["static_problems", "main"]

ROOT = repo_root(Path(__file__).parent)


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="these notebooks (default: all in notebooks/)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    found = 0
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            parser.error(f"notebooks must be existing .ipynb files, got {path}")
        for problem in static_problems(nbformat.read(path, as_version=4)):
            print(f"{path.name}: {problem}", file=sys.stderr)
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
