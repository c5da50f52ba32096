"""A gradebook for a class: ``python -m tools.grade SUBMISSIONS_DIR --out grades.csv``.

Runs each submitted notebook (``*.ipynb`` in ``SUBMISSIONS_DIR``, one per student and notebook) top to bottom in a
fresh kernel, offline, within a time limit per notebook (``--timeout``, seconds), and writes one row per file and
one column per exercise: ``passed``, ``tried`` (answered, not yet right) or ``not attempted``. The verdicts are the
checks' own: the kernel runs with ``ATTENTION_LAB_GRADING_RECORD`` set, and each check appends its verdict to that
file as well as showing it (``attention_lab.exercises.feedback``); what a student sees does not change. Each
submission is matched to the course notebook it copies (by its cells' ids), and its ``check`` cells and the
exercise cells' calls of their checks are compared with the course's: a changed or removed one is reported in the
row (``tampered``). A notebook whose cells raise errors goes on running (as nbgrader does), one that runs out of
time stops there, and neither stops the rest: the row's ``note`` says what happened, in one line.

A second CSV (``--summary``, default beside ``--out``: ``grades_summary.csv``) has one row per exercise: how many
submissions passed, tried and did not attempt it, and the most common diagnosed mistake (the mistake's identity:
the table row of the check that named it, the same in every language and for every value; else the option or the
message's words without numbers) with how many made it.
"""

from __future__ import annotations

import argparse
import ast
import collections
import csv
import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from attention_lab.exercises.feedback import GRADING_RECORD  # the variable the checks read
from tools import ROOT, kernel_env

__all__ = ["GRADING_RECORD", "Submission", "grade", "grade_one", "course_notebook", "tampering", "main"]

COURSE = ROOT / "notebooks"
PASSED, TRIED, NOT_ATTEMPTED = "passed", "tried", "not attempted"


@dataclass
class Submission:
    """One graded file: its course notebook, each exercise's status and verdict, and what went wrong."""

    path: Path
    notebook: str = ""
    statuses: dict = field(default_factory=dict)  # exercise column -> passed / tried / not attempted
    mistakes: dict = field(default_factory=dict)  # exercise column -> the diagnosed mistake's identity
    notes: list = field(default_factory=list)
    seconds: float = 0.0


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def _check_call(source: str) -> str | None:
    """The name of the check an exercise cell calls last (``check_*(...)``), or None."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    last = body[-1] if body else None
    call = last.value if isinstance(last, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id.startswith("check_"):
        return call.func.id
    return None


def _call_source(source: str) -> str | None:
    """The last statement of a cell (an exercise's call of its check), normalised; None if it does not parse."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    return ast.unparse(body[-1]) if body else None


def exercises_of(nb) -> list[tuple[str, str]]:
    """(cell id, check name) of each exercise cell of a course notebook, in order."""
    found = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "exercise" in _tags(cell):
            name = _check_call(_source(cell))
            if name is not None:
                found.append((cell.get("id"), name))
    return found


def course_notebooks(folder: Path = COURSE) -> list[Path]:
    return sorted([*Path(folder).glob("[0-9][0-9]_*.ipynb"), *Path(folder).glob("zh/[0-9][0-9]_*.ipynb")])


def course_notebook(nb, candidates) -> Path | None:
    """The course notebook ``nb`` is a copy of: the most cell ids in common, then the most identical check cells."""

    def score(path):
        course = nbformat.read(path, as_version=4)
        ids = {c.get("id") for c in course.cells}
        common = sum(c.get("id") in ids for c in nb.cells)
        sources = {c.get("id"): _source(c) for c in course.cells if "check" in _tags(c)}
        same = sum(sources.get(c.get("id")) == _source(c) for c in nb.cells)
        return common, same

    scored = [(score(path), path) for path in candidates]
    best = max(scored, default=None, key=lambda s: s[0])
    return best[1] if best is not None and best[0][0] > 0 else None


def tampering(nb, course) -> list[str]:
    """What a submission changed of what grades it: each course ``check`` cell removed or changed, each exercise
    cell's call of its check changed or removed (empty: nothing)."""
    mine = {c.get("id"): c for c in nb.cells}
    found = []
    for index, cell in enumerate(course.cells):
        theirs = mine.get(cell.get("id"))
        if "check" in _tags(cell):
            if theirs is None:
                found.append(f"check cell {index} removed")
            elif _source(theirs).strip() != _source(cell).strip():
                found.append(f"check cell {index} changed")
        elif "exercise" in _tags(cell) and _check_call(_source(cell)):
            if theirs is None:
                found.append(f"exercise cell {index} removed")
            elif _call_source(_source(theirs)) != _call_source(_source(cell)):
                found.append(f"the check call of exercise cell {index} changed")
    return found


def _identity(record: dict) -> str:
    """A verdict's mistake, the same for every student who made it: its table row, else its words without values."""
    if record.get("mistake"):
        return " ".join(str(record["mistake"]).split())[:100]
    first = record["messages"][0] if record.get("messages") else ""
    return re.sub(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", "#", " ".join(first.split()))[:100]


def grade_one(path: Path, timeout: float, candidates) -> Submission:
    """Run one submission in a fresh kernel within ``timeout`` seconds; its statuses, mistakes and notes."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from tools.execute import kernel_config

    result = Submission(Path(path))
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as error:  # noqa: BLE001 - any unreadable file is one line in its row
        result.notes.append(f"not a readable notebook ({type(error).__name__})")
        return result
    course_path = course_notebook(nb, candidates)
    if course_path is None:
        result.notes.append("not a copy of a course notebook (no cell in common)")
        return result
    course = nbformat.read(course_path, as_version=4)
    result.notebook = f"zh/{course_path.stem}" if course_path.parent.name == "zh" else course_path.stem
    exercises = exercises_of(course)
    columns = {cell_id: f"{course_path.stem}:{name}" for cell_id, name in exercises}
    result.statuses = dict.fromkeys(columns.values(), NOT_ATTEMPTED)
    result.notes += [f"tampered: {t}" for t in tampering(nb, course)]
    for cell in nb.cells:  # a fresh run: the student's outputs say nothing
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    with tempfile.TemporaryDirectory(prefix="attention-lab-grade-") as folder:
        record = Path(folder) / "verdicts.jsonl"
        record.touch()
        env = {**kernel_env(), GRADING_RECORD: str(record), "MPLBACKEND": "Agg"}
        start, errors, read = time.perf_counter(), [], 0
        with kernel_config() as config:
            client = NotebookClient(
                nb,
                timeout=max(1, int(timeout)),
                kernel_name="python3",
                config=config,
                allow_errors=True,
                resources={"metadata": {"path": str(course_path.parent)}},  # its data files, as in the course
            )
            try:
                # the kernel's own stderr (its log when it is stopped mid-cell) is not the gradebook's
                with client.setup_kernel(env=env, stderr=subprocess.DEVNULL):
                    for index, cell in enumerate(nb.cells):
                        remaining = timeout - (time.perf_counter() - start)
                        if remaining <= 0:
                            raise CellTimeoutError("time limit")
                        client.timeout = max(1, int(remaining + 0.999))
                        if cell.cell_type != "code":
                            continue
                        client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
                            errors.append(index)
                        lines = record.read_text(encoding="utf-8").splitlines()
                        new, read = lines[read:], len(lines)
                        column = columns.get(cell.get("id"))
                        if column is not None and new:
                            verdict = json.loads(new[-1])  # the verdict the cell showed last
                            status = PASSED if verdict["passed"] else TRIED if verdict["attempted"] else NOT_ATTEMPTED
                            result.statuses[column] = status
                            if status == TRIED:
                                result.mistakes[column] = _identity(verdict)
            except CellTimeoutError:
                result.notes.append(f"timed out after {timeout:g} s (the exercises after that were not run)")
            except DeadKernelError:
                result.notes.append("the kernel died (the exercises after that were not run)")
            except CellExecutionError as error:  # pragma: no cover - allow_errors keeps these in the outputs
                result.notes.append(f"stopped by an error: {str(error).strip().splitlines()[-1][:120]}")
            except Exception as error:  # noqa: BLE001 - one submission's failure never stops the rest
                result.notes.append(f"could not be run ({type(error).__name__}: {str(error).splitlines()[0][:100]})")
        result.seconds = time.perf_counter() - start
    if errors:
        result.notes.append(f"errors in cells {', '.join(map(str, errors))}")
    return result


def grade(folder, out, *, summary=None, timeout: float = 600.0, candidates=None, log=print) -> list[Submission]:
    """Grade every ``*.ipynb`` in ``folder``; write the gradebook ``out`` and the per-exercise ``summary`` (CSV)."""
    folder, out = Path(folder), Path(out)
    if not folder.is_dir():
        raise ValueError(f"SUBMISSIONS_DIR must be a folder of notebooks, got {folder}")
    if not (isinstance(timeout, int | float) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"SUBMISSIONS_DIR must hold .ipynb files, got {folder}, which holds none")
    summary = Path(summary) if summary else out.with_name(f"{out.stem}_summary.csv")
    candidates = course_notebooks() if candidates is None else candidates
    graded = []
    for path in paths:
        one = grade_one(path, timeout, candidates)
        passed = sum(s == PASSED for s in one.statuses.values())
        shown = f"; {'; '.join(one.notes)}" if one.notes else ""
        log(f"{path.name}: {passed}/{len(one.statuses)} passed ({one.notebook or '?'}, {one.seconds:.0f} s){shown}")
        graded.append(one)
    columns = list(dict.fromkeys(c for one in graded for c in one.statuses))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["student", "notebook", *columns, "passed", "note"])
        for one in graded:
            row = [one.statuses.get(c, "") for c in columns]
            passed = sum(s == PASSED for s in one.statuses.values())
            writer.writerow([one.path.stem, one.notebook, *row, passed, "; ".join(one.notes)])
    with open(summary, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["exercise", "submissions", PASSED, TRIED, NOT_ATTEMPTED, "most common mistake", "made by"])
        for column in columns:
            statuses = [one.statuses[column] for one in graded if column in one.statuses]
            mistakes = collections.Counter(one.mistakes[column] for one in graded if column in one.mistakes)
            common, count = mistakes.most_common(1)[0] if mistakes else ("", 0)
            counts = [statuses.count(s) for s in (PASSED, TRIED, NOT_ATTEMPTED)]
            writer.writerow([column, len(statuses), *counts, common, count or ""])
    return graded


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path, help="folder of submitted notebooks (one .ipynb per student)")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="the gradebook (CSV)")
    parser.add_argument("--summary", type=Path, help="per-exercise summary (CSV; default: OUT_summary.csv)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per notebook (default 600)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        graded = grade(args.submissions, args.out, summary=args.summary, timeout=args.timeout)
    except (ValueError, OSError) as error:
        parser.error(str(error).splitlines()[0])  # one line on stderr, exit status 2, no traceback
    print(f"graded {len(graded)} notebooks; wrote {args.out}")


if __name__ == "__main__":
    main()
