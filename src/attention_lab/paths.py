"""Where the course's files are: the repository root and its ``data/`` folder, computed in this one place.

The library itself needs no repository (what it draws with, the CJK font subset, ships inside the
package). The notebooks' data files stay in the repository's top-level ``data/``; they are found from
``ATTENTION_LAB_ROOT`` if set, else by walking up from a start folder (the working directory: a notebook
runs in ``notebooks/``), else from where this package was installed in editable mode.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["repo_root", "data_path"]

_MARKERS = ("pyproject.toml", "notebooks", "data")


def _is_root(folder: Path) -> bool:
    return all((folder / marker).exists() for marker in _MARKERS)


def repo_root(start=None) -> Path:
    """The course repository's root folder: the first folder upwards of ``start`` that holds pyproject.toml,
    notebooks/ and data/ (``start`` defaults to the working directory; ``ATTENTION_LAB_ROOT`` overrides)."""
    override = os.environ.get("ATTENTION_LAB_ROOT")
    if override:
        root = Path(override).expanduser().resolve()
        if not _is_root(root):
            raise FileNotFoundError(
                f"ATTENTION_LAB_ROOT={override} is not the course repository (it lacks "
                f"{', '.join(m for m in _MARKERS if not (root / m).exists())})"
            )
        return root
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents, *Path(__file__).resolve().parents):
        if _is_root(folder):
            return folder
    raise FileNotFoundError(
        f"cannot find the course repository from {here}: run from inside a clone of the course "
        "(or set ATTENTION_LAB_ROOT to its folder)"
    )


def data_path(name: str, *, regenerate: str) -> Path:
    """``data/name`` in the repository, or a FileNotFoundError naming the path and the command ``regenerate``."""
    path = repo_root() / "data" / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; regenerate it with `{regenerate}` (run from the repository root)")
    return path
