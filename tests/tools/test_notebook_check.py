"""``python -m tools.notebook_check``: the pre-commit hook that keeps notebooks committed stripped."""

import nbformat

from tools import notebook_check


def test_a_notebook_with_outputs_fails_the_hook_with_one_line_per_problem(tmp_path, capsys):
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=1)]
    nb.cells = [cell]
    dirty, clean = tmp_path / "dirty.ipynb", tmp_path / "clean.ipynb"
    nbformat.write(nb, dirty)
    cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, clean)
    assert notebook_check.main([str(clean)]) == 0
    assert notebook_check.main([str(dirty), str(clean)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "dirty.ipynb: cell 0 was committed with outputs",
        "dirty.ipynb: cell 0 was committed with an execution count",
    ]
