"""The first code cell of every notebook: on Google Colab it sets the course up; anywhere else it does nothing.

``python -m tools.colab_cell [NOTEBOOK ...]`` inserts that cell (tagged ``colab-setup``) before the first
code cell of each notebook, or updates it if it is there already: running it twice changes nothing.
Notebooks stay stripped (no outputs, no execution counts).

On Colab (``google.colab`` importable) the cell clones the course (code and ``data/``) from the repository
in ``pyproject.toml`` (``ATTENTION_LAB_REPOSITORY`` overrides it, for the tests), installs only what Colab
lacks (the course itself with ``--no-deps``, and anywidget with psygnal where they are missing: the
explorers' front end; Colab's own torch, numpy and
matplotlib are kept, so nothing multi-GB is downloaded and the runtime needs no restart), changes into the
clone's ``notebooks/``, turns on Colab's widget manager for ipywidgets and prints the versions it found
(:func:`attention_lab.versions.report`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root
from tools.launch_buttons import REPOSITORY, numbered_notebooks

__all__ = ["TAG", "REPOSITORY", "HIDDEN", "cell_source", "add_colab_cell"]

ROOT = repo_root(Path(__file__).parent)
TAG = "colab-setup"
# JupyterLab shows the cell collapsed to its first line (the comment saying what it is); a click opens it
HIDDEN = {"jupyter": {"source_hidden": True}}

SOURCE = """# Colab set-up (hidden): on Google Colab it fetches the course and installs what Colab lacks; else nothing.
import importlib
import importlib.util
import os
import subprocess
import sys

try:
    on_colab = importlib.util.find_spec("google.colab") is not None
except ModuleNotFoundError:  # no "google" package at all
    on_colab = False
if on_colab:
    course = os.path.join("/content" if os.path.isdir("/content") else os.getcwd(), "{name}")
    if not os.path.isdir(course):
        repository = os.environ.get("ATTENTION_LAB_REPOSITORY", "{repository}")
        subprocess.run(["git", "clone", "--depth", "1", "--quiet", repository, course], check=True)
    if importlib.util.find_spec("attention_lab") is None:  # Colab's own torch, numpy, matplotlib are kept
        extra = [p for p in ("anywidget", "psygnal") if importlib.util.find_spec(p) is None]
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", course, *extra],
                       check=True)
        sys.path.insert(0, os.path.join(course, "src"))  # importable now, without restarting the runtime
        importlib.invalidate_caches()
    os.chdir(os.path.join(course, "notebooks"))
    from google.colab import output
    output.enable_custom_widget_manager()
    from attention_lab.versions import report
    report()  # Colab brings its own releases: say which, and name any outside the course's ranges
"""


def cell_source(repository: str = REPOSITORY) -> str:
    name = repository.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    return SOURCE.format(repository=repository, name=name).rstrip("\n")


def add_colab_cell(path: Path, repository: str = REPOSITORY) -> bool:
    """Insert or update the tagged set-up cell before the first code cell; return True if the file changed.

    The cell is collapsed (``jupyter.source_hidden``): JupyterLab shows only its first line.
    """
    nb = nbformat.read(path, as_version=4)
    source = cell_source(repository)
    tagged = [cell for cell in nb.cells if TAG in cell.get("metadata", {}).get("tags", [])]
    if tagged:
        hidden = tagged[0].metadata.get("jupyter", {}).get("source_hidden") is True
        if tagged[0].source == source and hidden:
            return False
        tagged[0].source = source
        tagged[0].metadata.setdefault("jupyter", {})["source_hidden"] = True
    else:
        cell = nbformat.v4.new_code_cell(source, metadata={"tags": [TAG], **HIDDEN})
        first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
        nb.cells.insert(first_code, cell)
    nbformat.write(nb, path)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to update (default: notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = args.notebooks or numbered_notebooks()
    for path in paths:
        if not path.exists():
            print(f"colab_cell: no notebook at {path}", file=sys.stderr)
            return 2
        print(f"{path.name}: {'updated' if add_colab_cell(path) else 'already up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
