"""A copy of the course for students, without the teachers' solutions: ``python -m tools.student_copy OUTDIR``.

Copies the repository's files (those tracked by git; from a ZIP download without ``.git``, every file
except caches, build folders and virtual environments) but never a solution: no path with a component
``solutions`` and no notebook cell tagged ``solution``. Notebooks are copied without outputs (nbconvert's
``TagRemovePreprocessor`` and ``ClearOutputPreprocessor``). The copy is
written to a temporary folder beside ``OUTDIR`` and renamed at the end, so a failure leaves no half copy;
``OUTDIR`` must be new or empty and outside the repository. In the copy, the tests that compare the
reference answers with the exercise checks are skipped; everything else runs as usual.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root
from tools.staging import staged

__all__ = ["EXCLUDED", "NEVER", "course_files", "make_student_copy"]

ROOT = repo_root(Path(__file__).parent)
EXCLUDED = ("solutions",)  # a path with any of these components is never copied
# never copied, tracked or not: caches, build output, environments, artefacts of test and benchmark runs
NEVER = (
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".ipynb_checkpoints",
    ".venv",
    "venv",
    "site",
    "build",
    "dist",
    "test-artifacts",
    "bench-results",
    ".DS_Store",
)


def _excluded(name: str) -> bool:
    parts = name.split("/")
    return any(part in EXCLUDED or part in NEVER or part.endswith((".egg-info", ".pyc")) for part in parts)


def course_files(root: Path = ROOT) -> list:
    """Relative paths of the course's files, without solutions, caches or build folders.

    Git's tracked files when ``root`` is a git work tree (names read NUL-separated, so non-ASCII names come
    through as they are); otherwise (a ZIP download) every file under ``root``.
    """
    root = Path(root)
    try:
        listed = subprocess.run(
            ["git", "-c", "core.quotepath=off", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.decode("utf-8", "surrogateescape")
        files = [name for name in listed.split("\0") if name]
        if not (root / ".git").exists():  # inside another repository's tree: not this course's listing
            raise OSError
    except (OSError, subprocess.CalledProcessError):
        files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    return sorted(f for f in files if not _excluded(f) and (root / f).is_file())


def _preprocessors():
    """nbconvert's own: cells tagged ``solution`` removed, then every output and execution count cleared (the
    cells' metadata kept as it is: ``remove_metadata_fields`` would otherwise drop ``collapsed`` and ``scrolled``)."""
    from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

    return [TagRemovePreprocessor(remove_cell_tags={"solution"}), ClearOutputPreprocessor(remove_metadata_fields=set())]


def _clean_notebook(path: Path, preprocessors) -> None:
    nb = nbformat.read(path, as_version=4)
    for preprocessor in preprocessors:
        nb, _ = preprocessor.preprocess(nb, {})
    nbformat.write(nb, path)


def make_student_copy(outdir, root: Path = ROOT) -> list:
    """Write the student copy into ``outdir`` (new or empty, outside ``root``); return the files copied."""
    root, outdir = Path(root).resolve(), Path(outdir).resolve()
    if outdir.exists() and not outdir.is_dir():
        raise ValueError(f"outdir must be a folder, got {outdir}, which is a file")
    if outdir.exists() and any(outdir.iterdir()):
        raise ValueError(f"outdir must be a new or empty folder, got {outdir} which has files in it")
    if outdir == root or root in outdir.parents:
        raise ValueError(f"outdir must be outside the course folder {root}, got {outdir}")
    if not outdir.parent.exists():
        raise ValueError(f"the folder that would hold outdir does not exist: {outdir.parent}")
    copied, preprocessors = [], _preprocessors()
    with staged(outdir, "cannot write in") as staging:
        for name in course_files(root):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target)
            if name.endswith(".ipynb"):
                _clean_notebook(target, preprocessors)
            copied.append(name)
    return copied


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="a new folder for the student copy, outside the course")
    args = parser.parse_args(argv)
    try:
        copied = make_student_copy(args.outdir)
    except (ValueError, OSError) as error:
        parser.error(str(error))  # a one-line message and exit status 2, no traceback
    print(f"copied {len(copied)} files to {args.outdir}, without solutions")


if __name__ == "__main__":
    main(sys.argv[1:])
