"""Small inputs for every explorer, and the two bad-control-value tests each explorer's test file runs.

A bad value is refused with a ValueError naming the control, before anything is stored or drawn; the same
rule for a constructor argument and for ``explorer.set(...)``: no widget clamps or snaps a bad value (only
a valid temperature snaps to its slider position), and the explorer keeps working afterwards.

- ``FACTORIES[kind](**arguments)``: a small explorer of each kind, without a canvas widget (``KINDS[kind]``, its
  class);
- ``example(cls)``: ``cls.example()`` without a canvas widget, built once per test process and shared; and
  ``shared(kind)``, ``FACTORIES[kind]()`` built once per test process;
- ``bad_control_tests(*kinds)``: the two tests over the controls of those kinds, for a test file to bind to
  ``test_*`` names (``test_kernel_explorer.py`` runs them for ``"kernel"``).
"""

from functools import cache

import numpy as np
import pytest
import torch
from helpers import pixels

from attention_lab import make_regression_data
from attention_lab import nn as aln
from attention_lab.explorers import (
    AlignmentExplorer,
    DimensionExplorer,
    GumbelExplorer,
    HeadExplorer,
    KernelExplorer,
    LookupExplorer,
    PositionalEncodingExplorer,
    SamplingExplorer,
    ScoreSample,
    TemperatureExplorer,
    TrainingScrubber,
)
from attention_lab.explorers.sampling import TOP_P_OPTIONS
from attention_lab.training import snapshot

KEYS = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 4.0]])
VALUES = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
LABELS = ["a", "b", "c"]
QUERIES = {"near a": [1.2, 2.1], "middle": [2.0, 2.3]}
ALPHA = np.array([1.0, 2.5, 0.3])
DATA = make_regression_data(50, seed=0)
SAMPLE = ScoreSample(n_queries=20, n_keys=4, max_d=512, seed=0)
SOURCES = [list("ab"), list("cde")]
OUTPUTS = [list("xy") + ["<eos>"], list("z") + ["<eos>"]]
ALIGNMENTS = [np.full((3, 2), 0.5), np.full((2, 3), 1 / 3)]
HEAD_TOKENS = [list("abc"), list("cab")]
HEAD_WEIGHTS = np.full((2, 2, 2, 3, 3), 1 / 3)  # (examples, layers, heads, n, n)
TOKENS = list("abcdefg\n ")
LOGITS = np.array([2.0, 0.5, 1.5, -1.0, 0.0, 1.0, -0.5, 0.8, 0.3])


def _snapshots():
    model = aln.NWKernelRegression(1.0)
    with torch.no_grad():
        first = snapshot(model, 0, 1.0, DATA)
        model.w.fill_(2.0)
        return [first, snapshot(model, 1, 0.5, DATA)]


SNAPSHOTS = _snapshots()

FACTORIES = {
    "lookup": lambda **kw: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, **{"interactive": False, **kw}),
    "temperature": lambda **kw: TemperatureExplorer(ALPHA, VALUES, **{"interactive": False, **kw}),
    "gumbel": lambda **kw: GumbelExplorer(ALPHA, n_draws=50, **{"interactive": False, **kw}),
    "kernel": lambda **kw: KernelExplorer({50: DATA}, **{"interactive": False, "n_train": 50, **kw}),
    "training": lambda **kw: TrainingScrubber(SNAPSHOTS, DATA, **{"interactive": False, **kw}),
    "dimension": lambda **kw: DimensionExplorer(SAMPLE, **{"interactive": False, **kw}),
    "alignment": lambda **kw: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS, **{"interactive": False, **kw}),
    "positional": lambda **kw: PositionalEncodingExplorer(16, 8, **{"interactive": False, **kw}),
    "heads": lambda **kw: HeadExplorer(HEAD_WEIGHTS, HEAD_TOKENS, **{"interactive": False, **kw}),
    "sampling": lambda **kw: SamplingExplorer(LOGITS, TOKENS, **{"interactive": False, **kw}),
}
# (explorer, control, a valid value different from the start); each control is also a constructor argument
CONTROLS = [
    ("lookup", "temperature", 0.316228),
    ("lookup", "query", "middle"),
    ("temperature", "temperature", 3.162278),
    ("temperature", "normaliser", "sparsemax"),
    ("gumbel", "temperature", 0.1),
    ("kernel", "bandwidth", 1.0),
    ("kernel", "query", 4.0),
    ("kernel", "kernel", "boxcar"),
    ("kernel", "n_train", 50),
    ("training", "epoch", 1),
    ("dimension", "d", 64),
    ("alignment", "example", 1),
    ("alignment", "step", 1),
    ("positional", "dimension", 3),
    ("positional", "position", 5),
    ("heads", "layer", 1),
    ("heads", "head", 1),
    ("heads", "example", 1),
    ("sampling", "temperature", 0.501187),
    ("sampling", "top_k", 3),
    ("sampling", "top_p", 0.8),
]
NOT_A_CONSTRUCTOR_ARGUMENT = {("lookup", "query")}  # the lookup explorer starts at its first query
BAD_VALUES = {
    "NaN": np.nan,
    "inf": np.inf,
    "-inf": -np.inf,
    "negative": -1.0,
    "huge": 1e9,
    "text": "x",
    "None": None,
    "True": True,
    "complex": 1 + 1j,
    "list": [1.0],
    "unknown option": "nonsense",
    "half": 0.5,
    "off the grid": 0.33,
}


def _valid(kind, control, value):
    """Is ``value`` a valid value for this control (so it must be accepted, not refused)?"""
    if control == "temperature":
        return isinstance(value, float) and value >= 0 and not np.isnan(value)  # snaps, including inf
    if kind == "kernel" and control == "bandwidth":
        return isinstance(value, float) and 0.03 <= value <= 5.0
    if kind == "positional" and control == "position":  # None: the default, position 20 where it exists
        return value is None
    if kind == "kernel" and control == "query":  # None: the default, the middle query
        return value is None or isinstance(value, float) and value in set(DATA.x_test)
    if kind == "sampling" and control == "top_k":  # None: every token, the default
        return value is None
    if kind == "sampling" and control == "top_p":
        return value in [p for _, p in TOP_P_OPTIONS]
    return False


# the class of each kind
KINDS = {
    "lookup": LookupExplorer,
    "temperature": TemperatureExplorer,
    "gumbel": GumbelExplorer,
    "kernel": KernelExplorer,
    "training": TrainingScrubber,
    "dimension": DimensionExplorer,
    "alignment": AlignmentExplorer,
    "positional": PositionalEncodingExplorer,
    "heads": HeadExplorer,
    "sampling": SamplingExplorer,
}


@cache
def example(cls):
    """``cls.example()`` without a canvas widget, as its notebook builds it, once per test process: shared by the
    tests that only read an explorer or leave it as they found it (each build draws the whole figure)."""
    return cls.example(interactive=False)


@cache
def shared(kind):
    """One explorer of each kind per test process, shared by the ``set`` tests (each leaves it working) and the
    tests that only read it."""
    return FACTORIES[kind]()


def bad_control_tests(*kinds):
    """The two bad-control-value tests over every control of the explorers ``kinds``: bind them to test_* names."""
    controls = [case for case in CONTROLS if case[0] in kinds]
    arguments = [(kind, control) for kind, control, _ in controls if (kind, control) not in NOT_A_CONSTRUCTOR_ARGUMENT]

    @pytest.mark.parametrize("bad", list(BAD_VALUES), ids=list(BAD_VALUES))
    @pytest.mark.parametrize(("kind", "control"), arguments, ids=[f"{k}-{c}" for k, c in arguments])
    def constructor_refuses_a_bad_control_value(kind, control, bad):
        value = BAD_VALUES[bad]
        if _valid(kind, control, value):
            return
        with pytest.raises(ValueError, match=control):
            FACTORIES[kind](**{control: value})

    @pytest.mark.slow
    @pytest.mark.parametrize(("kind", "control", "good"), controls, ids=[f"{k}-{c}" for k, c, _ in controls])
    def set_refuses_every_bad_value_and_the_explorer_keeps_working(kind, control, good):
        explorer = shared(kind)
        before = {name: c.value for name, c in explorer.controls.items()}
        for bad, value in BAD_VALUES.items():
            if _valid(kind, control, value):
                continue
            with pytest.raises(ValueError, match=control):
                explorer.set(**{control: value})
            assert {name: c.value for name, c in explorer.controls.items()} == before, bad  # nothing stored
        with pytest.raises(ValueError, match="unknown control"):
            explorer.set(nonsense=1)
        picture = pixels(explorer)
        explorer.set(**{control: good})
        assert explorer.controls[control].value == good
        if good != before[control]:
            assert not np.array_equal(pixels(explorer), picture)  # still drawing
        explorer.set(**before)  # as it was, for the next test of this explorer

    return constructor_refuses_a_bad_control_value, set_refuses_every_bad_value_and_the_explorer_keeps_working
