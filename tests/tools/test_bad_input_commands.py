"""The command-line tools at bad input: one line on stderr and exit status 2, never a traceback or a half output.

The student copy works from a clone and from a ZIP download without ``.git``; it never copies solutions
(wherever they lie), caches, build folders or environments, and it copies non-ASCII names as they are.
"""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT

from tools import build_site, student_copy
from tools.student_copy import course_files, make_student_copy

TOOLS = ROOT / "tools"

# files of a small course tree: (path, copied?)
TREE = {
    "README.md": True,
    "notebooks/01_intro.ipynb": True,
    "notebooks/données_é.md": True,
    "notebooks/注意力.md": True,
    "src/pkg/module.py": True,
    "solutions/notebook_01.py": False,
    "notebooks/solutions/answer.py": False,
    "src/pkg/solutions/__init__.py": False,
    ".venv/lib/x.py": False,
    "site/index.html": False,
    "pkg.egg-info/PKG-INFO": False,
    "src/pkg/__pycache__/module.cpython-311.pyc": False,
    "test-artifacts/shot.png": False,
    "bench-results/latest.json": False,
    ".hypothesis/examples/x": False,
}


def _notebook(path: Path):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["exercise"], "collapsed": True}),
            nbformat.v4.new_code_cell("x = 42  # the answer", metadata={"tags": ["solution"]}),
        ]
    )
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells[0].execution_count = 1
    nbformat.write(nb, path)


def _tree(root: Path, git: bool) -> Path:
    for name in TREE:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".ipynb"):
            _notebook(path)
        else:
            path.write_text(f"content of {name}\n", encoding="utf-8")
    if git:
        run = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run(["git", "init", "-q"], **run)
        subprocess.run(["git", "add", "-f", "--", *TREE], **run)  # even ignored folders tracked by mistake
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tree"], **run)
        (root / "untracked.txt").write_text("not part of the course\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("git", [True, False], ids=["clone", "zip-without-git"])
def test_student_copy_leaves_out_solutions_caches_and_build_folders(tmp_path, git):
    root = _tree(tmp_path / "course", git)
    out = tmp_path / "student"
    copied = make_student_copy(out, root=root)
    assert sorted(copied) == sorted(name for name, kept in TREE.items() if kept)  # git: untracked.txt is not copied
    for name, kept in TREE.items():
        assert (out / name).exists() == kept, name
    assert (out / "notebooks/注意力.md").read_text(encoding="utf-8") == "content of notebooks/注意力.md\n"
    nb = nbformat.read(out / "notebooks/01_intro.ipynb", as_version=4)
    assert [c.source for c in nb.cells] == ["x = 1"]  # the solution cell is gone
    assert nb.cells[0].outputs == [] and nb.cells[0].execution_count is None
    assert nb.cells[0].metadata == {"tags": ["exercise"], "collapsed": True}  # the cell's metadata as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course", "student"]  # no staging folder left


def test_course_files_of_this_repository_hold_no_solution():
    assert not any("solutions" in name.split("/") for name in course_files(ROOT))


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (lambda tmp, root: root / "inside", r"outdir must be outside the course folder"),
        (lambda tmp, root: root, r"outdir must be a new or empty folder|outside the course"),
        (lambda tmp, root: tmp / "file.txt", r"outdir must be a folder, got .*which is a file"),
        (lambda tmp, root: tmp / "full", r"outdir must be a new or empty folder"),
        (lambda tmp, root: tmp / "missing" / "deeper" / "out", r"the folder that would hold outdir does not exist"),
    ],
)
def test_student_copy_refuses_bad_destinations(tmp_path, where, message):
    root = _tree(tmp_path / "course", git=False)
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        make_student_copy(where(tmp_path, root), root=root)


def test_a_failed_student_copy_leaves_nothing_behind(tmp_path, monkeypatch):
    root = _tree(tmp_path / "course", git=False)
    calls = []

    def failing_copy(source, target):
        calls.append(source)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        Path(target).write_bytes(Path(source).read_bytes())

    monkeypatch.setattr(student_copy.shutil, "copy2", failing_copy)
    with pytest.raises(OSError, match="No space left"):
        make_student_copy(tmp_path / "student", root=root)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def test_a_failed_site_build_leaves_no_half_written_output(tmp_path, monkeypatch):
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the previous site", encoding="utf-8")

    def failing_build(staging, *args, **kwargs):
        (Path(staging) / "half.html").write_text("half", encoding="utf-8")
        raise RuntimeError("02_x.ipynb did not run cleanly")

    monkeypatch.setattr(build_site, "_build_pages", failing_build)
    with pytest.raises(RuntimeError):
        build_site.build_site(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text(encoding="utf-8") == "the previous site"

    def good_build(staging, *args, **kwargs):
        (Path(staging) / "index.html").write_text("the new site", encoding="utf-8")
        return [Path(staging) / "index.html"]

    monkeypatch.setattr(build_site, "_build_pages", good_build)
    assert build_site.build_site(out) == [out.resolve() / "index.html"]
    assert (out / "index.html").read_text(encoding="utf-8") == "the new site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def _unwritable(tmp: Path) -> Path:
    """A folder this process cannot create files in: a read-only one, or /proc for root (who ignores modes)."""
    return Path("/proc") if os.geteuid() == 0 else tmp / "locked"


COMMAND_ERRORS = [
    ("student_copy.py", lambda tmp: [str(tmp / "file.txt")], "outdir must be a folder"),
    ("student_copy.py", lambda tmp: [str(ROOT / "inside")], "outdir must be outside the course folder"),
    ("student_copy.py", lambda tmp: [str(tmp / "full")], "outdir must be a new or empty folder"),
    ("student_copy.py", lambda tmp: [str(_unwritable(tmp) / "out")], "cannot write in"),
    ("student_copy.py", lambda tmp: [], "the following arguments are required: outdir"),
    ("build_site.py", lambda tmp: [str(tmp / "file.txt")], "outdir must be a folder"),
    ("build_site.py", lambda tmp: [str(tmp / "s"), "notebooks/missing.ipynb"], "must be existing .ipynb files"),
    ("build_site.py", lambda tmp: [str(tmp / "s"), "README.md"], "must be existing .ipynb files"),
    ("build_site.py", lambda tmp: [str(tmp / "full")], "must be new, empty or a previous site"),
    ("build_site.py", lambda tmp: [str(_unwritable(tmp) / "site")], "cannot write the site into"),
]


def _bad_places(tmp: Path) -> None:
    (tmp / "file.txt").write_text("x", encoding="utf-8")
    (tmp / "full").mkdir()
    (tmp / "full" / "keep.txt").write_text("x", encoding="utf-8")
    (tmp / "locked").mkdir(mode=0o500)


def _assert_one_line_error(tool: str, status, stderr: str, message: str) -> None:
    assert status == 2, stderr
    errors = [line for line in stderr.splitlines() if line.startswith(f"{tool}: error:")]
    assert len(errors) == 1 and message in errors[0], stderr
    assert "Traceback" not in stderr and len(stderr.splitlines()) == 2  # usage line + error line
    assert not (ROOT / "inside").exists()


@pytest.mark.parametrize(("tool", "arguments", "message"), COMMAND_ERRORS)
def test_command_line_errors_are_one_line_and_exit_status_2(tmp_path, monkeypatch, capsys, tool, arguments, message):
    """Each command as ``python -m tools.<tool> ...`` runs it, but in this process (a new interpreter costs ~2 s).

    Any exception other than the exit itself fails the test, as a traceback on the command line would.
    """
    _bad_places(tmp_path)
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", [str(TOOLS / tool), *arguments(tmp_path)])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(TOOLS / tool), run_name="__main__")
    captured = capsys.readouterr()
    assert captured.out == ""
    _assert_one_line_error(tool, exit_.value.code, captured.err, message)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tool", "arguments", "message"), [COMMAND_ERRORS[0], COMMAND_ERRORS[5]], ids=["student_copy", "build_site"]
)
def test_command_line_errors_in_a_real_process(tmp_path, tool, arguments, message):
    """The same, through a new interpreter: what a reader's shell shows, exit status included."""
    _bad_places(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", f"tools.{Path(tool).stem}", *arguments(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        encoding="utf-8",
    )
    _assert_one_line_error(tool, result.returncode, result.stderr, message)
