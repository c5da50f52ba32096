"""Every course notebook (English and zh) runs top to bottom in a fresh kernel, cleanly; each run is shared."""

import pickle

import nbformat
import pytest
from helpers import NOTEBOOKS, ROOT, ZH_NOTEBOOKS
from nbcheck import check_notebook, static_problems
from run_once import once, requested, run_key

# the English notebooks, then their Chinese twins (notebooks/zh/, built by tools/translate.py), each run alike
RUN = NOTEBOOKS + ZH_NOTEBOOKS


@pytest.mark.parametrize("path", RUN, ids=[("zh/" if p.parent.name == "zh" else "") + p.name for p in RUN])
def test_notebook_runs_clean_in_a_fresh_kernel(path, executed, record_property):
    run = executed(path)  # shared with the static site's pages: each notebook runs once per test session
    problems, seconds = static_problems(nbformat.read(path, as_version=4)) + run.problems, run.seconds
    record_property("seconds", round(seconds, 1))
    print(f"{path.name}: {seconds:.1f} s")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


# --- the harness fails when it should ----------------------------------------------------------------


def make_notebook(tmp_path, *sources, kernelspec=True):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    if kernelspec:
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.notebook
def test_harness_passes_a_clean_notebook_in_its_folder(tmp_path):
    (tmp_path / "marker.txt").write_text("here", encoding="utf-8")
    path = make_notebook(tmp_path, "from pathlib import Path\nassert Path('marker.txt').exists()")
    assert check_notebook(path)[0] == []


@pytest.mark.notebook
@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (("1 / 0",), "ZeroDivisionError"),
        (("import warnings\nwarnings.warn('careful')",), "wrote to stderr"),
        (("import sys\nprint('oops', file=sys.stderr)",), "wrote to stderr"),
        # a display formatter that raises: IPython shows its traceback and execution goes on (the explorers
        # under ipywidgets 7 did this), so only the error output in the cell tells
        (
            (
                "class Shown:\n    def _repr_mimebundle_(self, **kwargs):\n        raise AttributeError('no bundle')\n"
                "Shown()",
                "print('execution went on')",
            ),
            "AttributeError",
        ),
    ],
)
def test_harness_fails_on_errors_and_stderr(tmp_path, sources, expected):
    problems, _ = check_notebook(make_notebook(tmp_path, *sources))
    assert any(expected in p for p in problems), problems


def test_harness_rejects_outputs_counts_and_missing_kernelspec(tmp_path):
    nb = nbformat.read(make_notebook(tmp_path, "1 + 1", kernelspec=False), as_version=4)
    nb.cells[0].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    nb.cells[0].execution_count = 1
    problems = static_problems(nb)
    assert any("kernelspec" in p for p in problems)
    assert any("outputs" in p for p in problems)
    assert any("execution count" in p for p in problems)


# --- one run per notebook, shared between the workers (run_once.py) ----------------------------------------------


def test_a_second_folder_of_notebooks_gets_runs_of_its_own():
    english, chinese = ROOT / "notebooks" / "01_x.ipynb", ROOT / "notebooks" / "zh" / "01_x.ipynb"
    assert run_key(english, ROOT) == "notebooks--01_x" and run_key(chinese, ROOT) == "notebooks--zh--01_x"
    assert "/" not in run_key("/elsewhere/probe.ipynb", ROOT)


def test_notebooks_run_for_their_pages_only_when_a_test_needs_the_site():
    class Item:
        def __init__(self, *fixturenames):
            self.fixturenames = fixturenames

    harness, page = Item("path", "executed", "record_property"), Item("site", "built_site", "executed", "path")
    assert not requested([harness, Item("tmp_path")], "built_site") and requested([harness, page], "built_site")
    assert not requested([object()], "built_site"), "an item without fixtures (a doctest) needs none"


def test_once_makes_a_result_once_and_shares_it_and_its_failure(tmp_path):
    made = []
    assert once(tmp_path, "k", lambda: made.append(1) or "first") == "first"
    assert once(tmp_path, "k", lambda: made.append(2) or "second") == "first" and made == [1]

    def broken():
        raise ValueError("no kernel")

    with pytest.raises(ValueError, match="no kernel"):
        once(tmp_path, "bad", broken)
    with pytest.raises(RuntimeError, match="bad failed in another worker: ValueError: no kernel"):
        once(tmp_path, "bad", lambda: "never made")


def test_a_worker_that_would_wait_does_other_work_first(tmp_path):
    from filelock import FileLock

    other = FileLock(str(tmp_path / "k.lock"))
    other.acquire()  # another worker is making "k"
    helped = []

    def meanwhile():  # the other worker finishes while this one helps
        helped.append("k")
        (tmp_path / "k.pickle").write_bytes(pickle.dumps("theirs"))
        other.release()

    assert once(tmp_path, "k", lambda: "mine", wait=False) is None  # taken: not waited for
    assert once(tmp_path, "k", lambda: "mine", meanwhile=meanwhile) == "theirs" and helped == ["k"]
    assert once(tmp_path, "k", lambda: "mine", meanwhile=lambda: helped.append("again")) == "theirs"
    assert helped == ["k"], "nothing to help with once the result is there"
    assert once(tmp_path, "k", lambda: "mine", wait=False) is None
