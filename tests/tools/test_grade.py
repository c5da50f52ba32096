"""The gradebook (tools/grade.py) on one small notebook: solved, blank, erroring, tampered and hanging copies.

The solved copy is built from ``solutions/`` (each ``name = ...`` of an exercise cell set to the solution's
``NAME``, each stub function replaced by the solution's); the verdicts are the checks' own, read from the kernel.
"""

import ast
import csv
import inspect
import json

import nbformat
import pytest
from helpers import NOTEBOOKS, load_solution

from tools import grade

NOTEBOOK = NOTEBOOKS[0]  # the course's first notebook: one exercise, a few seconds to run


def _solved(nb, solution):
    for cell in nb.cells:
        if "exercise" not in cell.metadata.get("tags", []):
            continue
        lines = []
        for line in cell.source.splitlines():
            target = line.split("=")[0].strip()
            if line.split("#")[0].rstrip().endswith("= ...") and hasattr(solution, target.upper()):
                value = getattr(solution, target.upper())
                lines.append(f"{target} = {'np.inf' if value == float('inf') else repr(value)}")
            else:
                lines.append(line)
        cell.source = "\n".join(lines)
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.FunctionDef) and hasattr(solution, node.name):
                stub = ast.get_source_segment(cell.source, node)
                cell.source = cell.source.replace(stub, inspect.getsource(getattr(solution, node.name)))
    return nb


def _write(folder, name, nb):
    nbformat.write(nb, folder / f"{name}.ipynb")


def _rows(path):
    with open(path, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def _exercise_cell(nb):
    return next(c for c in nb.cells if "exercise" in c.metadata.get("tags", []))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    course = nbformat.read(NOTEBOOK, as_version=4)
    _write(folder, "blank", course)
    _write(
        folder, "solved", _solved(nbformat.read(NOTEBOOK, as_version=4), load_solution(f"notebook_{NOTEBOOK.name[:2]}"))
    )
    erroring = nbformat.read(NOTEBOOK, as_version=4)
    erroring.cells.insert(3, nbformat.v4.new_code_cell("undefined_name + 1"))
    _write(folder, "erroring", erroring)
    tampered = nbformat.read(NOTEBOOK, as_version=4)
    cell = _exercise_cell(tampered)
    cell.source = cell.source.rsplit("\n", 1)[0] + '\nprint("correct")'
    _write(folder, "tampered", tampered)
    (folder / "broken.ipynb").write_text("{not json", encoding="utf-8")
    out = folder / "out" / "grades.csv"
    lines = []
    grade.grade(folder, out, timeout=120, log=lines.append)
    hanging_folder = tmp_path_factory.mktemp("hanging")
    hanging = nbformat.read(NOTEBOOK, as_version=4)
    hanging.cells.insert(3, nbformat.v4.new_code_cell("import time\ntime.sleep(600)"))
    _write(hanging_folder, "hanging", hanging)
    hanging_out = hanging_folder / "grades.csv"
    grade.grade(hanging_folder, hanging_out, timeout=3, log=lines.append)
    rows = {r["student"]: r for path in (out, hanging_out) for r in _rows(path)}
    summary = _rows(out.with_name("grades_summary.csv"))
    return rows, summary, lines


def _column(rows):
    return next(k for k in rows["blank"] if ":" in k)


@pytest.mark.slow  # kernels in subprocesses
def test_a_solved_notebook_passes_and_a_blank_one_is_not_attempted(graded):
    rows, _, _ = graded
    column = _column(rows)
    assert rows["solved"][column] == "passed" and rows["solved"]["note"] == ""
    assert rows["blank"][column] == "not attempted" and rows["blank"]["note"] == ""
    assert rows["solved"]["notebook"] == NOTEBOOK.stem


@pytest.mark.slow  # kernels in subprocesses
def test_an_erroring_notebook_is_reported_and_still_graded(graded):
    rows, _, _ = graded
    assert "errors in cells 3" in rows["erroring"]["note"]
    assert rows["erroring"][_column(rows)] == "not attempted"


@pytest.mark.slow  # kernels in subprocesses
def test_a_tampered_call_and_a_broken_file_are_reported_in_their_rows(graded):
    rows, _, lines = graded
    assert "tampered" in rows["tampered"]["note"]
    assert "not a readable notebook" in rows["broken"]["note"]
    assert all("\n" not in line and "Traceback" not in line for line in lines)


@pytest.mark.slow  # kernels in subprocesses
def test_a_hanging_notebook_times_out_and_keeps_its_row(graded):
    rows, _, _ = graded
    assert "timed out after 3 s" in rows["hanging"]["note"]
    assert rows["hanging"][_column(rows)] == "not attempted"


@pytest.mark.slow  # kernels in subprocesses
def test_the_summary_counts_each_exercise(graded):
    _, summary, _ = graded
    (row,) = summary
    assert (row["passed"], row["submissions"]) == ("1", "4")


def test_a_removed_or_changed_check_cell_is_tampering():
    notebooks = (nbformat.read(p, as_version=4) for p in NOTEBOOKS)
    course = next(nb for nb in notebooks if any("check" in c.metadata.get("tags", []) for c in nb.cells))
    assert grade.tampering(course, course) == []
    changed = nbformat.from_dict(json.loads(json.dumps(course)))
    index = next(i for i, c in enumerate(changed.cells) if "check" in c.metadata.get("tags", []))
    changed.cells[index].source = "pass"
    assert grade.tampering(changed, course) == [f"check cell {index} changed"]
    del changed.cells[index]
    assert grade.tampering(changed, course) == [f"check cell {index} removed"]


def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        grade.main([str(tmp_path / "missing"), "--out", str(tmp_path / "g.csv")])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "SUBMISSIONS_DIR must be a folder" in err[-1] and not (tmp_path / "g.csv").exists()
