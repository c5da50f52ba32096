"""Bad values for the explorers: refused with a ValueError naming the control, before anything is stored or drawn.

The same rule for a constructor argument and for ``explorer.set(...)``: no widget clamps or snaps a bad value
(only a valid temperature snaps to its slider position), and the explorer keeps working afterwards.
"""

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
    ScoreSample,
    TemperatureExplorer,
    TrainingScrubber,
    training_small_multiples,
)
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


def _snapshots():
    model = aln.NWKernelRegression(1.0)
    with torch.no_grad():
        first = snapshot(model, 0, 1.0, DATA)
        model.w.fill_(2.0)
        return [first, snapshot(model, 1, 0.5, DATA)]


SNAPSHOTS = _snapshots()

FACTORIES = {
    "lookup": lambda **kw: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, interactive=False, **kw),
    "temperature": lambda **kw: TemperatureExplorer(ALPHA, VALUES, interactive=False, **kw),
    "gumbel": lambda **kw: GumbelExplorer(ALPHA, n_draws=50, interactive=False, **kw),
    "kernel": lambda **kw: KernelExplorer({50: DATA}, interactive=False, **{"n_train": 50, **kw}),
    "training": lambda **kw: TrainingScrubber(SNAPSHOTS, DATA, interactive=False, **kw),
    "dimension": lambda **kw: DimensionExplorer(SAMPLE, interactive=False, **kw),
    "alignment": lambda **kw: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS, interactive=False, **kw),
    "positional": lambda **kw: PositionalEncodingExplorer(16, 8, interactive=False, **kw),
    "heads": lambda **kw: HeadExplorer(HEAD_WEIGHTS, HEAD_TOKENS, interactive=False, **kw),
}
# (explorer, control, a valid value different from the start)
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
]
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
}
# the constructor argument for each control, where it has one
CONSTRUCTOR_ARGUMENT = {
    ("lookup", "temperature"),
    ("temperature", "temperature"),
    ("temperature", "normaliser"),
    ("gumbel", "temperature"),
    ("kernel", "bandwidth"),
    ("kernel", "query"),
    ("kernel", "kernel"),
    ("kernel", "n_train"),
    ("training", "epoch"),
    ("dimension", "d"),
    ("alignment", "example"),
    ("alignment", "step"),
    ("positional", "dimension"),
    ("positional", "position"),
    ("heads", "layer"),
    ("heads", "head"),
    ("heads", "example"),
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
    return False


@pytest.mark.parametrize("bad", list(BAD_VALUES), ids=list(BAD_VALUES))
@pytest.mark.parametrize(
    ("kind", "control"), sorted(CONSTRUCTOR_ARGUMENT), ids=[f"{k}-{c}" for k, c in sorted(CONSTRUCTOR_ARGUMENT)]
)
def test_constructor_refuses_a_bad_control_value(kind, control, bad):
    value = BAD_VALUES[bad]
    if _valid(kind, control, value):
        return
    with pytest.raises(ValueError, match=control):
        FACTORIES[kind](**{control: value})


@pytest.fixture(scope="module")
def explorers():
    return {kind: factory() for kind, factory in FACTORIES.items()}


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "control", "good"), CONTROLS, ids=[f"{k}-{c}" for k, c, _ in CONTROLS])
def test_set_refuses_every_bad_value_and_the_explorer_keeps_working(explorers, kind, control, good):
    explorer = explorers[kind]
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


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: LookupExplorer(KEYS, VALUES, LABELS, {}, interactive=False), r"queries must be a non-empty dict"),
        (lambda: LookupExplorer(KEYS, VALUES, LABELS, {"q": [1.0]}, interactive=False), r"one point \(x, y\)"),
        (lambda: LookupExplorer(KEYS, VALUES, LABELS, {"q": [np.nan, 1.0]}, interactive=False), r"NaN"),
        (lambda: LookupExplorer(KEYS, VALUES, LABELS, {1: [1.0, 1.0]}, interactive=False), r"named by strings"),
        (lambda: LookupExplorer(KEYS, VALUES, "abc", QUERIES, interactive=False), r"one entry per key"),
        (lambda: LookupExplorer(KEYS, VALUES, [1, 2, 3], QUERIES, interactive=False), r"labels must be a list of 3"),
        (lambda: LookupExplorer(KEYS[:0], VALUES[:0], [], QUERIES, interactive=False), r"keys must be 2-D points"),
        (lambda: LookupExplorer(KEYS, VALUES[:, 0], LABELS, QUERIES, interactive=False), r"values must have at least"),
        (lambda: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, bandwidth=-1, interactive=False), r"bandwidth must"),
        (
            lambda: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, feature_names="xy", interactive=False),
            r"feature_names must be a list of 2",
        ),
        (
            lambda: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, value_names=["v"], interactive=False),
            r"value_names must be a list of 2",
        ),
        (lambda: TemperatureExplorer(ALPHA, VALUES, k=0, interactive=False), r"k must be an integer >= 1"),
        (lambda: TemperatureExplorer(ALPHA, VALUES, k=4, interactive=False), r"k must be an integer >= 1 and <= 3"),
        (
            lambda: TemperatureExplorer(ALPHA, VALUES, n_samples=0, interactive=False),
            r"n_samples must be an integer >= 1",
        ),
        (lambda: TemperatureExplorer(ALPHA, VALUES, seed=-1, interactive=False), r"seed must be a whole number"),
        (lambda: TemperatureExplorer(ALPHA, VALUES, labels=["a"], interactive=False), r"labels must be a list of 3"),
        (lambda: TemperatureExplorer([1.0], [[0.0, 1.0]], interactive=False), r"at least 2 keys"),
        (lambda: TemperatureExplorer([1.0, np.inf], VALUES[:2], interactive=False), r"scores must be finite"),
        (lambda: GumbelExplorer([[1.0, 2.0]], interactive=False), r"scores must have shape \(n,\)"),
        (lambda: GumbelExplorer(ALPHA, n_rows=0, interactive=False), r"n_rows must be an integer >= 1"),
        (lambda: GumbelExplorer(ALPHA, n_draws=2.5, interactive=False), r"n_draws must be an integer"),
        (lambda: GumbelExplorer(ALPHA, seed="0", interactive=False), r"seed must be a whole number"),
        (
            lambda: KernelExplorer({"50": DATA}, n_train=50, interactive=False),
            r"keys\) must be an integer >= 1, got '50'",
        ),
        (lambda: KernelExplorer({}, interactive=False), r"datasets must map sizes"),
        (lambda: KernelExplorer([DATA], interactive=False), r"datasets must map sizes"),
        (lambda: KernelExplorer(seed=-2, interactive=False), r"seed must be a whole number"),
        (
            lambda: KernelExplorer({50: DATA._replace(y_train=DATA.y_train * np.nan)}, n_train=50, interactive=False),
            r"finite numbers only",
        ),
        (
            lambda: KernelExplorer({50: DATA._replace(y_train=DATA.y_train[:3])}, n_train=50, interactive=False),
            r"one length",
        ),
        (lambda: TrainingScrubber([], DATA, interactive=False), r"non-empty list"),
        (lambda: TrainingScrubber([{"epoch": 0}], DATA, interactive=False), r"snapshots\[0\] must be a dict"),
        (lambda: TrainingScrubber(SNAPSHOTS, make_regression_data(20), interactive=False), r"does not match data"),
        (lambda: TrainingScrubber(SNAPSHOTS, "data", interactive=False), r"data must be RegressionData"),
        (lambda: TrainingScrubber(SNAPSHOTS, DATA, title=3, interactive=False), r"title must be a string"),
        (lambda: training_small_multiples(SNAPSHOTS, DATA, epochs=[7]), r"epochs \[7\] have no snapshot"),
        (lambda: DimensionExplorer("sample", interactive=False), r"sample must be a ScoreSample"),
        (lambda: DimensionExplorer(ScoreSample(5, 3, max_d=64), interactive=False), r"max_d >= 512"),
        (lambda: ScoreSample(n_keys=0), r"n_keys must be an integer >= 1"),
        (lambda: ScoreSample(seed=1.5), r"seed must be a whole number"),
        (lambda: SAMPLE.scores(2.0, True), r"d must be an integer >= 1 and <= 512"),
        (lambda: SAMPLE.scores(4, "yes"), r"scaled must be True or False"),
        (lambda: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS[:1], interactive=False), r"one entry per example"),
        (lambda: AlignmentExplorer([], [], [], interactive=False), r"one entry per example"),
        (lambda: AlignmentExplorer("ab", OUTPUTS, ALIGNMENTS, interactive=False), r"sources must be a list"),
        (
            lambda: AlignmentExplorer([[], list("cde")], OUTPUTS, ALIGNMENTS, interactive=False),
            r"sources\[0\] must be a non-empty list of token strings",
        ),
        (lambda: AlignmentExplorer([[1, 2], list("cde")], OUTPUTS, ALIGNMENTS, interactive=False), r"token strings"),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), np.nan), ALIGNMENTS[1]], interactive=False),
            r"alignments\[0\] must not contain NaN",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), 2.0), ALIGNMENTS[1]], interactive=False),
            r"weights in \[0, 1\]",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), "a"), ALIGNMENTS[1]], interactive=False),
            r"alignments\[0\] must be an array of numbers",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS, labels=["one"], interactive=False),
            r"labels must be a list of 2",
        ),
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_valid_temperatures_snap_in_the_constructor_too():
    explorer = GumbelExplorer(ALPHA, n_draws=50, temperature=0.5002, interactive=False)
    assert explorer.controls["temperature"].value == pytest.approx(0.501187)  # the nearest slider position
