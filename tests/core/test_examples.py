"""The course's example data has one source: the numbers each notebook writes out are attention_lab.examples'."""

import ast
import json

import numpy as np
import pytest
from helpers import ROOT

from attention_lab.examples import fruit_boxes, six_scores


def assigned(notebook: str, names: set) -> dict:
    """The first value each of ``names`` gets in the notebook's code (top-level ``name = <literal data>``)."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    found = {}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.startswith(("%", "!")))
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                if name in names and name not in found:
                    found[name] = eval(compile(ast.Expression(node.value), notebook, "eval"), {"np": np})  # noqa: S307
    assert found.keys() == names, f"{notebook} no longer assigns {sorted(names - found.keys())}"
    return found


def same(a, b) -> bool:
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


def test_notebook_01_shows_the_fruit_boxes():
    boxes = fruit_boxes()
    nb = assigned("01_queries_keys_values.ipynb", {"labels", "feature_names", "K", "value_names", "V", "queries"})
    assert nb["labels"] == boxes.labels and tuple(nb["feature_names"]) == boxes.feature_names
    assert nb["value_names"] == boxes.value_names
    assert same(nb["K"], boxes.keys) and same(nb["V"], boxes.values)
    assert nb["queries"].keys() == boxes.queries.keys()
    assert all(same(nb["queries"][name], q) for name, q in boxes.queries.items())


@pytest.mark.parametrize(
    "notebook, scores, values",
    [
        ("00_start_here.ipynb", "scores", "values"),
        ("02_hard_to_soft_attention.ipynb", "alpha", "V"),
    ],
)
def test_notebooks_00_and_02_show_the_six_scores(notebook, scores, values):
    alpha, v = six_scores()
    nb = assigned(notebook, {scores, values})
    assert same(nb[scores], alpha) and same(nb[values], v)


def test_each_call_gives_fresh_objects():
    first = fruit_boxes()
    first.keys[0, 0] = -1.0
    first.queries["cherry"][0] = -1.0
    second = fruit_boxes()
    assert second.keys[0, 0] == 6.0 and second.queries["cherry"][0] == 9.0
    alpha, _ = six_scores()
    alpha[:] = 0.0
    assert six_scores()[0][1] == 3.0
