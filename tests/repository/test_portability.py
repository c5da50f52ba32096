"""What keeps the course the same on other machines: seeds, version reports, ipywidgets 7, the seed sweep."""

import io
import json

import nbformat
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import attention_lab as al
from attention_lab import seeding, versions
from attention_lab.explorers.controls import widget_bundle

# --- seeding ------------------------------------------------------------------------------------------


@given(st.integers(0, 999), st.integers(0, 50))
def test_course_seed_shifts_by_whole_strides(seed, offset):
    env = {seeding.OFFSET_VARIABLE: str(offset)}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        assert seeding.course_seed(seed) == seed + 1000 * offset


def test_without_the_variable_the_notebooks_seeds_are_their_own(monkeypatch):
    monkeypatch.delenv(seeding.OFFSET_VARIABLE, raising=False)
    al.manual_seed(3)
    after_helper = torch.rand(4)
    torch.manual_seed(3)
    assert torch.equal(after_helper, torch.rand(4))  # the same generator state: identical draws
    assert torch.equal(al.seeded_generator(5).initial_seed() * torch.ones(1), 5 * torch.ones(1))
    assert np.array_equal(al.seeded_rng(2).random(3), np.random.default_rng(2).random(3))


def test_an_offset_changes_every_stream(monkeypatch):
    monkeypatch.setenv(seeding.OFFSET_VARIABLE, "2")
    assert al.seeded_generator(1).initial_seed() == 2001
    assert not np.array_equal(al.seeded_rng(1).random(3), np.random.default_rng(1).random(3))


@pytest.mark.parametrize("raw", ["-1", "two", "1.5"])
def test_a_bad_offset_is_named(monkeypatch, raw):
    monkeypatch.setenv(seeding.OFFSET_VARIABLE, raw)
    with pytest.raises(ValueError, match=rf"ATTENTION_LAB_SEED_OFFSET must be a whole number >= 0.*{raw!r}"):
        al.manual_seed(0)


@pytest.mark.parametrize("seed", [-1, 1000, 2.5, "0", None, True])
def test_a_bad_seed_is_named(seed):
    with pytest.raises(ValueError, match="seed must be"):
        al.manual_seed(seed)


# --- versions ------------------------------------------------------------------------------------------


def test_version_report_names_python_the_packages_and_the_cpu_code_path():
    out = io.StringIO()
    versions.report(file=out)
    text = out.getvalue()
    assert f"numpy {np.__version__}" in text and "torch" in text and "ipywidgets" in text
    assert f"with its {torch.backends.cpu.get_cpu_capability()} kernels" in text


def test_outside_range_names_missing_and_old_packages_and_ignores_local_build_labels():
    ranges = {"numpy": ">=2.0.2", "torch": ">=2.9.1", "ipympl": ">=0.9.4", "ipywidgets": ">=7.7.1"}
    found = {"numpy": "1.26.4", "torch": "2.13.0+cpu", "ipympl": None, "ipywidgets": "8.1.9"}
    problems = versions.outside_range(found, ranges)
    assert set(problems) == {"numpy", "ipympl"}
    assert "1.26.4 is outside the supported range >=2.0.2" in problems["numpy"]
    assert "not installed" in problems["ipympl"]


def test_the_installed_ranges_are_pyprojects():
    ranges = versions.supported_ranges()
    assert ranges["torch"] == ">=2.9.1" and ranges["ipywidgets"] == ">=7.7.1" and "pytest" not in ranges


# --- ipywidgets 7 (Colab) ------------------------------------------------------------------------------


class Widget7:
    """What an ipywidgets 7 widget offers for display, through public names only: its model id, no mime bundle."""

    model_id = "abc123"

    def __repr__(self):
        return "VBox(...)"


def test_widget_bundle_writes_ipywidgets_7s_bundle_itself():
    widget = Widget7()
    bundle = widget_bundle(widget, include=None, exclude=None)
    assert bundle == {
        "text/plain": "VBox(...)",
        "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0, "model_id": "abc123"},
    }


def test_widget_bundle_uses_ipywidgets_8s_own():
    import ipywidgets

    widget = ipywidgets.IntSlider()
    if not hasattr(widget, "_repr_mimebundle_"):
        pytest.skip("ipywidgets 7 here: the stand-in test above covers it")
    assert widget_bundle(widget)["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id


# --- the seed sweep ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_sweep_records_every_assert_and_goes_on_after_a_failing_one(tmp_path):
    from tools import seed_sweep

    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        nbformat.v4.new_code_cell(
            "%matplotlib inline\nimport attention_lab as al\n"
            "x = al.seeded_rng(0).random()\nassert x < 2\nassert x > 2, 'never'"
        ),
        nbformat.v4.new_code_cell("def f(v):\n    assert v == 1\n    return v\nf(1)\nassert 1 / 0 == 1"),
        nbformat.v4.new_code_cell("assert 'reached' == 'reached'"),
    ]
    path = tmp_path / "01_probe.ipynb"
    nbformat.write(nb, path)
    run = seed_sweep.run_once(str(path), offset=1)
    assert run["outcomes"] == {
        "01 cell 0 line 4": True,
        "01 cell 0 line 5": False,
        "01 cell 1 line 2": True,
        "01 cell 1 line 5": False,
        "01 cell 2 line 1": True,
    }
    rows = seed_sweep.summarise([run, {**run, "offset": 0}])
    assert [(r["assert"], r["held"], r["failed"]) for r in rows][:2] == [
        ("01 cell 0 line 4", [0, 1], []),
        ("01 cell 0 line 5", [], [0, 1]),
    ]
    assert "| 01 cell 0 line 5 | 0 / 2 | [0, 1] |" in seed_sweep.table(rows)
    assert "cell 0 line 4" not in seed_sweep.table(rows) and "cell 0 line 4" in seed_sweep.table(rows, everything=True)
    assert json.loads(json.dumps(run)) == run  # what the command writes to its JSON file
