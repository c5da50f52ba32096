"""A copy of the course for students, without the teachers' solutions: ``python tools/student_copy.py OUTDIR``.

Copies the repository's files (those tracked by git, or every file when there is no git) except
``solutions/``, and checks that no notebook carries outputs or cells tagged ``solution``. In the copy,
the tests that compare the reference answers with the exercise checks are skipped; everything else
runs as usual.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root

__all__ = ["EXCLUDED", "course_files", "make_student_copy"]

ROOT = repo_root(Path(__file__).parent)
EXCLUDED = ("solutions/",)
_NEVER = (".git/", "__pycache__/", ".pytest_cache/", ".hypothesis/", ".ruff_cache/", "test-artifacts/",
          "bench-results/")


def course_files(root: Path = ROOT) -> list:
    """Relative paths of the course's files: git's tracked files, or a walk that skips caches."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
        files = [line for line in listed.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
        files = [f for f in files if not any(f.startswith(n) or f"/{n}" in f for n in _NEVER)]
    return sorted(files)


def _clean_notebook(path: Path):
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if "solution" not in c.get("metadata", {}).get("tags", [])]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, path)


def make_student_copy(outdir, root: Path = ROOT) -> list:
    """Write the student copy into ``outdir`` (which must not exist or be empty); return the files copied."""
    outdir = Path(outdir)
    if outdir.exists() and any(outdir.iterdir()):
        raise ValueError(f"outdir must be a new or empty folder, got {outdir} which has files in it")
    copied = []
    for name in course_files(root):
        if name.startswith(EXCLUDED):
            continue
        target = outdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
        if name.endswith(".ipynb"):
            _clean_notebook(target)
        copied.append(name)
    return copied


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="a new folder for the student copy")
    args = parser.parse_args(argv)
    try:
        copied = make_student_copy(args.outdir)
    except ValueError as error:
        parser.error(str(error))  # a one-line message and exit status 2, no traceback
    print(f"copied {len(copied)} files to {args.outdir}, without {', '.join(EXCLUDED)}")


if __name__ == "__main__":
    main()
