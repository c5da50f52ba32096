"""Explorers, headless: every slider position gives finite artists that changed, drawn in place, nothing rebuilt."""

import sys

import explorer_inputs as small
import numpy as np
import pytest
from explorer_inputs import bad_control_tests
from helpers import artist_count, pixels
from matplotlib.figure import Figure

from attention_lab import _checks, entropy, softmax, sparsemax
from attention_lab.examples import fruit_boxes, six_scores
from attention_lab.explorers import (
    TEMPERATURE_OPTIONS,
    GumbelExplorer,
    LookupExplorer,
    TemperatureExplorer,
    gumbel_small_multiples,
    lookup_small_multiples,
    nearest_temperature,
    temperature_small_multiples,
)

BOXES = fruit_boxes()  # notebook 01's
KEYS, VALUES, LABELS = BOXES.keys, BOXES.values, BOXES.labels
QUERIES = {name: BOXES.queries[name] for name in ("cherry", "sweet and sour")}
ALPHA, V2 = six_scores()  # notebooks 00 and 02's
TEMPERATURES = [value for _, value in TEMPERATURE_OPTIONS]


def sweep(explorer, name="temperature"):
    """Move the slider over its whole range, both ways; yield after each step."""
    before = pixels(explorer)
    for value in TEMPERATURES + TEMPERATURES[::-1]:
        if explorer.controls[name].value == value:
            continue
        explorer.controls[name].value = value
        now = pixels(explorer)
        yield value, not np.array_equal(now, before)
        before = now


def test_slider_reaches_both_limits_exactly():
    assert TEMPERATURES[0] == 0.0 and TEMPERATURES[-1] == np.inf
    assert np.all(np.diff(TEMPERATURES) > 0)
    assert nearest_temperature(0.98) == 1.0 and nearest_temperature(1e-9) == 0.0 and nearest_temperature(1e9) == np.inf


@pytest.mark.slow
def test_lookup_explorer_over_the_whole_range(interactive):
    explorer = LookupExplorer(KEYS, VALUES, LABELS, QUERIES, interactive=interactive)
    figure, count = explorer.figure, artist_count(explorer)
    for query in QUERIES:
        explorer.set(query=query)
        changed = []
        for temperature, pixels_changed in sweep(explorer):
            alpha, lam, out = explorer.compute(query, temperature)
            heights = np.array([bar.get_height() for bar in explorer.weight_bars])
            np.testing.assert_allclose(heights, lam)
            np.testing.assert_allclose(heights.sum(), 1.0)
            np.testing.assert_allclose([bar.get_height() for bar in explorer.out_bars], lam @ VALUES)
            assert np.all(np.isfinite([bar.get_height() for bar in explorer.score_bars]))
            changed.append(pixels_changed)
        assert np.mean(changed) > 0.5, "most slider steps must change the picture"
    assert explorer.figure is figure and artist_count(explorer) == count  # updated in place, nothing added


@pytest.mark.slow
def test_temperature_explorer_over_the_whole_range(interactive):
    explorer = TemperatureExplorer(ALPHA, V2, interactive=interactive)
    count = artist_count(explorer)
    for normaliser, fn in (("softmax", softmax), ("sparsemax", sparsemax)):
        explorer.set(normaliser=normaliser)
        changed = []
        for temperature, pixels_changed in sweep(explorer):
            lam = fn(ALPHA, temperature)
            np.testing.assert_allclose([bar.get_height() for bar in explorer.weight_bars], lam)
            x, y = explorer.output.get_data()
            np.testing.assert_allclose([x[0], y[0]], lam @ V2)
            _, h = explorer.entropy_now.get_data()
            assert np.isclose(h[0], entropy(lam)) and np.isfinite(h[0])
            for line in (explorer.sample_one, explorer.sample_mean, explorer.path, explorer.entropy_curve):
                assert np.all(np.isfinite(np.asarray(line.get_data(), dtype=float)))
            changed.append(pixels_changed)
        assert np.mean(changed) > 0.5
    # the path runs from the argmax value (T = 0) to the mean (T = inf)
    x, y = explorer.path.get_data()
    np.testing.assert_allclose([x[0], y[0]], V2[np.argmax(ALPHA)])
    np.testing.assert_allclose([x[-1], y[-1]], V2.mean(axis=0))
    assert artist_count(explorer) == count


@pytest.mark.slow
def test_gumbel_explorer_over_the_whole_range(interactive):
    explorer = GumbelExplorer(ALPHA, interactive=interactive)
    np.testing.assert_allclose(explorer.argmax_frequency, softmax(ALPHA), atol=0.03)
    changed = []
    for temperature, pixels_changed in sweep(explorer):
        rows = np.asarray(explorer.image.get_array())
        assert np.all(np.isfinite(rows))
        np.testing.assert_allclose(rows.sum(axis=1), 1.0)
        if temperature == 0:
            assert set(np.unique(rows)) <= {0.0, 1.0}
        if temperature == np.inf:
            np.testing.assert_allclose(rows, 1 / ALPHA.size)
        changed.append(pixels_changed)
    assert np.mean(changed) > 0.5


@pytest.mark.parametrize(
    "build",
    [
        lambda: LookupExplorer(KEYS, VALUES, LABELS, QUERIES, interactive=False),
        lambda: TemperatureExplorer(ALPHA, V2, interactive=False),
        lambda: GumbelExplorer(ALPHA, interactive=False),
    ],
    ids=["lookup", "temperature", "gumbel"],
)
def test_a_temperature_set_is_checked_once(build, monkeypatch):
    """The slider checks the reader's T and snaps it; the step looks up what it shows, no check again."""
    explorer, snapped = build(), nearest_temperature(0.37)
    original, checked = _checks.check_temperature, []

    def spy(value, name="temperature"):
        checked.append(value)
        return original(value, name)

    for name, module in list(sys.modules.items()):  # every module of the library that imported the check
        if name.startswith("attention_lab") and getattr(module, "check_temperature", None) is original:
            monkeypatch.setattr(module, "check_temperature", spy)
    explorer.set(temperature=0.37)
    assert explorer.controls["temperature"].value == snapped != 1.0  # the slider moved: the figure followed
    assert checked == [0.37]


def test_set_rejects_unknown_controls():
    explorer = GumbelExplorer(ALPHA, interactive=False)
    with pytest.raises(ValueError, match=r"unknown control 'bandwidth'; this explorer has \['temperature'\]"):
        explorer.set(bandwidth=1.0)


def test_explorer_input_errors():
    with pytest.raises(ValueError, match=r"keys must be 2-D points of shape \(n, 2\)"):
        LookupExplorer(np.zeros((4, 3)), VALUES, LABELS, QUERIES, interactive=False)
    with pytest.raises(ValueError, match=r"one entry per key"):
        LookupExplorer(KEYS, VALUES, LABELS[:3], QUERIES, interactive=False)
    with pytest.raises(ValueError, match=r"normaliser must be one of \['softmax', 'sparsemax'\]"):
        TemperatureExplorer(ALPHA, V2, normaliser="plain", interactive=False)
    with pytest.raises(ValueError, match=r"values shape \(n, 2\)"):
        TemperatureExplorer(ALPHA, V2[:3], interactive=False)


def test_explorer_is_displayed_as_one_widget_with_its_picture():
    explorer = TemperatureExplorer(ALPHA, V2)
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["image/png"][:8] == b"\x89PNG\r\n\x1a\n"
    front_end, fallback = explorer.widget.children  # the frame view, then the fallback (controls and a picture)
    assert front_end is explorer.view and explorer.picture in fallback.children


def test_static_small_multiples():
    for fig, n_axes in [
        (lookup_small_multiples(KEYS, VALUES, LABELS, [7.5, 6.0], temperatures=[0, 1, np.inf]), 3),
        (temperature_small_multiples(ALPHA, V2, temperatures=[0, 1, 3, np.inf]), 8),
        (gumbel_small_multiples(ALPHA, temperatures=[0, 0.5, 10]), 4),  # 3 panels and a colour bar
    ]:
        assert isinstance(fig, Figure) and len(fig.axes) == n_axes
        for ax in fig.axes[:1]:
            assert ax.get_ylabel()


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("lookup", "temperature", "gumbel")
)


def small_lookup(keys=small.KEYS, values=small.VALUES, labels=small.LABELS, queries=small.QUERIES, **arguments):
    """A lookup explorer over three keys, with one argument made bad by the caller."""
    return LookupExplorer(keys, values, labels, queries, interactive=False, **arguments)


def small_temperature(scores=small.ALPHA, values=small.VALUES, **arguments):
    """A temperature explorer over three keys, with one argument made bad by the caller."""
    return TemperatureExplorer(scores, values, interactive=False, **arguments)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: small_lookup(queries={}), r"queries must be a non-empty dict"),
        (lambda: small_lookup(queries={"q": [1.0]}), r"one point \(x, y\)"),
        (lambda: small_lookup(queries={"q": [np.nan, 1.0]}), r"NaN"),
        (lambda: small_lookup(queries={1: [1.0, 1.0]}), r"named by strings"),
        (lambda: small_lookup(labels="abc"), r"one entry per key"),
        (lambda: small_lookup(labels=[1, 2, 3]), r"labels must be a list of 3"),
        (lambda: small_lookup(small.KEYS[:0], small.VALUES[:0], []), r"keys must be 2-D points"),
        (lambda: small_lookup(values=small.VALUES[:, 0]), r"values must have at least"),
        (lambda: small_lookup(bandwidth=-1), r"bandwidth must"),
        (lambda: small_lookup(feature_names="xy"), r"feature_names must be a list of 2"),
        (lambda: small_lookup(value_names=["v"]), r"value_names must be a list of 2"),
        (lambda: small_temperature(k=0), r"k must be an integer >= 1"),
        (lambda: small_temperature(k=4), r"k must be an integer >= 1 and <= 3"),
        (lambda: small_temperature(n_samples=0), r"n_samples must be an integer >= 1"),
        (lambda: small_temperature(seed=-1), r"seed must be a whole number"),
        (lambda: small_temperature(labels=["a"]), r"labels must be a list of 3"),
        (lambda: small_temperature([1.0], [[0.0, 1.0]]), r"at least 2 keys"),
        (lambda: small_temperature([1.0, np.inf], small.VALUES[:2]), r"scores must be finite"),
        (lambda: GumbelExplorer([[1.0, 2.0]], interactive=False), r"scores must have shape \(n,\)"),
        (lambda: GumbelExplorer(small.ALPHA, n_rows=0, interactive=False), r"n_rows must be an integer >= 1"),
        (lambda: GumbelExplorer(small.ALPHA, n_draws=2.5, interactive=False), r"n_draws must be an integer"),
        (lambda: GumbelExplorer(small.ALPHA, seed="0", interactive=False), r"seed must be a whole number"),
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_valid_temperatures_snap_in_the_constructor_too():
    explorer = GumbelExplorer(small.ALPHA, n_draws=50, temperature=0.5002, interactive=False)
    assert explorer.controls["temperature"].value == pytest.approx(0.501187)  # the nearest slider position
