"""The test matrix: ``python -m nox`` runs every session; ``python -m nox -s oldest`` one of them.

- ``locked``: exactly the tested set (``requirements/test.txt``), what the README's commands install.
- ``oldest``: the lower bound of every range in ``pyproject.toml`` (``requirements/oldest.txt``), then the
  course with ``--no-deps``, as the Colab cell installs it into Colab's own packages.
- ``newest``: the latest release of every dependency that pip finds for the ranges, on Python 3.12 (the
  Python that Colab ran in 2025).

Each session runs the unit, property and exercise tests and executes every notebook in a fresh kernel
(``pytest -m "not browser"``: everything but the real-browser tests, which the README's test command
runs). Each session builds its own virtual environment under ``.nox/`` (add ``-r`` to reuse it).
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["locked", "oldest", "newest"]

PYTHON = "3.11"
CPU_TORCH = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU build on Linux (see requirements/course.txt)
PYTEST = ("python", "-m", "pytest", "-m", "not browser", "-p", "no:cacheprovider")


def _versions(session) -> None:
    session.run("python", "-c", "from attention_lab.versions import report; report()")


@nox.session(python=PYTHON)
def locked(session):
    """The README's install: every package at its tested version."""
    session.install("-r", "requirements/test.txt")
    _versions(session)
    session.run(*PYTEST, *session.posargs)


@nox.session(python=PYTHON)
def oldest(session):
    """The lower bounds, the course installed with --no-deps (the Colab route)."""
    session.install("-r", "requirements/oldest.txt")
    session.install("--no-deps", "-e", ".")
    _versions(session)
    session.run(*PYTEST, *session.posargs)


@nox.session(python="3.12")
def newest(session):
    """The latest releases in range (torch from PyTorch's CPU index on Linux, where it is reachable)."""
    session.install("--upgrade", "--upgrade-strategy", "eager", "--extra-index-url", CPU_TORCH, "-e", ".[test]")
    _versions(session)
    session.run(*PYTEST, *session.posargs)
