"""Every explorer of the registry (``explorer_classes()``), built as its notebook builds it (``example()``).

What a new explorer gets without a line here: each control refuses every bad value in ``set()`` (and in the
constructor, the slow part), each control's positions draw different frames, its manifest offers every
position, and the table of ``explorers/__init__.py`` names it with its notebook.
"""

import inspect
import math

import numpy as np
import pytest
from explorer_inputs import BAD_VALUES, example

import attention_lab.explorers as explorers
from attention_lab.explorers import explorer_classes
from attention_lab.explorers.controls import positions

CLASSES = explorer_classes()
IDS = [cls.__name__ for cls in CLASSES]


def valid(control, value) -> bool:
    """Would a reader's control take ``value`` (the rule stated in controls.py, written out independently)?"""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if hasattr(control, "coerce"):  # the temperature slider: any temperature snaps to a position
        return number and not math.isnan(value) and value >= 0
    if hasattr(control, "options") and not hasattr(control, "min"):
        return any(type(v) is type(value) and v == value for _, v in positions(control))
    if isinstance(control.value, bool):
        return isinstance(value, bool)
    if not number or not math.isfinite(value):
        return False
    low, high = control.min, control.max
    if hasattr(control, "base"):
        low, high = control.base**low, control.base**high
    whole = not isinstance(control.value, int) or value == int(value)
    return low * (1 - 1e-12) <= value <= high * (1 + 1e-12) and whole


def test_every_explorer_class_names_its_notebook_and_the_control_the_benchmark_steps():
    assert len(CLASSES) >= 10 and len({cls.__name__ for cls in CLASSES}) == len(CLASSES)
    for cls in CLASSES:
        assert cls.notebook.isdigit() and cls.benched, cls.__name__
        assert cls.__name__ in explorers.__all__, f"{cls.__name__} is not exported by attention_lab.explorers"


def test_the_explorers_table_lists_every_explorer_with_its_notebook():
    table = explorers.__doc__
    for cls in CLASSES:
        row = f":class:`{cls.__name__}`"
        assert row in table, f"the table of explorers/__init__.py misses {cls.__name__}"
        line = next(line for line in table.splitlines() if row in line)
        assert f" {cls.notebook} " in line and f":mod:`.{cls.__module__.rsplit('.', 1)[1]}`" in line, line


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_set_refuses_every_bad_value_and_nothing_is_stored(cls):
    explorer = example(cls)
    before = {name: control.value for name, control in explorer.controls.items()}
    assert cls.benched in explorer.controls
    for name, control in explorer.controls.items():
        for bad, value in BAD_VALUES.items():
            if valid(control, value):
                continue
            with pytest.raises(ValueError, match=name):
                explorer.set(**{name: value})
            assert {n: c.value for n, c in explorer.controls.items()} == before, (name, bad)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_each_control_draws_a_different_frame_at_another_position(cls):
    explorer = example(cls)
    here = explorer.index()
    manifest = explorer.manifest()
    for i, (name, control) in enumerate(explorer.controls.items()):
        assert manifest["controls"][i]["positions"] == len(positions(control)) == len(manifest["controls"][i]["labels"])
        if len(positions(control)) < 2:
            continue
        there = list(here)
        there[i] = (here[i] + 1) % len(positions(control))
        assert explorer.frame(there) != explorer.frame(here), f"{cls.__name__}: {name} does not change the figure"
    assert explorer.index() == here  # frames do not move the controls


@pytest.mark.slow
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_the_constructor_refuses_every_bad_control_value(cls):
    explorer = example(cls)
    parameters = inspect.signature(cls.__init__).parameters
    for name, control in explorer.controls.items():
        if name not in parameters:
            continue
        for value in BAD_VALUES.values():
            if valid(control, value) or (value is None and parameters[name].default is None):
                continue
            with pytest.raises(ValueError, match=name):
                cls.example(interactive=False, **{name: value})


def test_valid_follows_the_controls_rule_on_a_few_cases():
    kernel = example(explorers.KernelExplorer)
    bandwidth = kernel.controls["bandwidth"]
    assert valid(bandwidth, 1.0) and not valid(bandwidth, 1e9) and not valid(bandwidth, np.nan)
    assert not valid(kernel.controls["kernel"], "nonsense") and valid(kernel.controls["kernel"], "boxcar")
