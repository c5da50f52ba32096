"""Notebooks 07 and 08's explorers, headless: every control position redraws in place (new pixels, no new artists),
the artists show the right numbers, and the static twins draw what the explorers do."""

import numpy as np
import pytest
from explorer_inputs import bad_control_tests
from helpers import artist_count, pixels
from matplotlib.colorbar import Colorbar
from matplotlib.figure import Figure

from attention_lab.explorers import (
    HeadExplorer,
    PositionalEncodingExplorer,
    heads_small_multiples,
    offset_dot_products,
    positional_small_multiples,
)
from attention_lab.nn import sinusoidal_positional_encoding


def step_through(explorer, name, values):
    """Set ``name`` to each value; return the fraction of steps that changed the picture."""
    changed, before = [], pixels(explorer)
    for value in values:
        explorer.set(**{name: value})
        now = pixels(explorer)
        changed.append(not np.array_equal(now, before))
        before = now
    return float(np.mean(changed))


@pytest.mark.slow
def test_positional_explorer_over_the_whole_range(interactive):
    explorer = PositionalEncodingExplorer(n_positions=40, d_model=16, dimension=0, position=0, interactive=interactive)
    figure, count = explorer.figure, artist_count(explorer)
    pe = sinusoidal_positional_encoding(40, 16).numpy().astype(np.float64)
    dims = list(range(1, 16)) + list(range(14, -1, -1))
    assert step_through(explorer, "dimension", dims) == 1.0
    for i in range(16):
        explorer.set(dimension=i)
        np.testing.assert_allclose(explorer.curve.get_ydata(), pe[:, i], atol=1e-6)
        assert f"dimension {i}:" in explorer.curve_title.get_text()
    positions = list(range(1, 40)) + list(range(38, -1, -1))
    assert step_through(explorer, "position", positions) == 1.0
    for p in (0, 17, 39):
        explorer.set(position=p)
        offsets, dots = explorer.dots.get_data()
        np.testing.assert_array_equal(offsets, np.arange(40) - p)
        np.testing.assert_allclose(dots, offset_dot_products(explorer.frequencies, offsets, 16), atol=1e-4)
    assert explorer.figure is figure and artist_count(explorer) == count


def test_positional_explorer_refuses_bad_values():
    explorer = PositionalEncodingExplorer(n_positions=10, d_model=8, position=3, interactive=False)
    for bad in ({"dimension": 8}, {"position": -1}, {"position": 2.5}, {"dimension": "1"}):
        with pytest.raises(ValueError):
            explorer.set(**bad)
    for args in ((10, 7), (1, 8), (10, 8.0)):
        with pytest.raises(ValueError):
            PositionalEncodingExplorer(*args, interactive=False)
    with pytest.raises(ValueError, match="even"):
        offset_dot_products(np.ones(2), np.arange(3), 3)


def fake_heads(n_examples=4, layers=2, heads=3, n=6, seed=0):
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.ones(n), size=(n_examples, layers, heads, n))  # rows sum to 1
    tokens = [[str(t) for t in rng.integers(0, 10, n)] for _ in range(n_examples)]
    return weights, tokens


@pytest.mark.slow
def test_head_explorer_over_the_whole_range(interactive):
    weights, tokens = fake_heads()
    explorer = HeadExplorer(weights, tokens, interactive=interactive)
    figure, count = explorer.figure, artist_count(explorer)
    for example in range(4):
        explorer.set(example=example)
        assert [t.get_text() for t in explorer.x_tokens] == tokens[example]
        assert [t.get_text() for t in explorer.y_tokens] == tokens[example]
        for layer in range(2):
            explorer.set(layer=layer)
            assert step_through(explorer, "head", [1, 2, 1, 0]) == 1.0
            for head in range(3):
                explorer.set(head=head)
                np.testing.assert_allclose(explorer.image.get_array(), weights[example, layer, head])
                np.testing.assert_allclose(explorer.mean_image.get_array(), weights[:, layer, head].mean(0))
                assert f"layer {layer + 1}, head {head + 1}" in explorer.example_title.get_text()
    assert step_through(explorer, "layer", [0, 1, 0]) == 1.0
    assert explorer.figure is figure and artist_count(explorer) == count


def test_head_explorer_refuses_bad_input():
    weights, tokens = fake_heads()
    with pytest.raises(ValueError, match="examples, layers, heads"):
        HeadExplorer(weights[0], tokens, interactive=False)
    with pytest.raises(ValueError, match="tokens"):
        HeadExplorer(weights, tokens[:3], interactive=False)
    with pytest.raises(ValueError, match="tokens"):
        HeadExplorer(weights, [t[:5] for t in tokens], interactive=False)
    explorer = HeadExplorer(weights, tokens, interactive=False)
    for bad in ({"layer": 2}, {"head": -1}, {"example": 4}):
        with pytest.raises(ValueError):
            explorer.set(**bad)


def colorbars(figure):
    return [ax for ax in figure.axes if isinstance(getattr(ax, "_colorbar", None), Colorbar)]


def test_static_twins():
    fig = positional_small_multiples(n_positions=32, d_model=16, dimensions=(0, 4, 14), positions=(0, 9))
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_title()
    weights, tokens = fake_heads()
    fig = heads_small_multiples(weights, tokens, example=1)
    heatmaps = [ax for ax in fig.axes if ax.images]
    assert len(heatmaps) == 6 and len(colorbars(fig)) == 1
    np.testing.assert_allclose(heatmaps[4].images[0].get_array(), weights[1, 1, 1])
    with pytest.raises(ValueError, match="example"):
        heads_small_multiples(weights, tokens, example=9)
    with pytest.raises(ValueError, match="dimensions"):
        positional_small_multiples(n_positions=32, d_model=16, dimensions=(16,))


def test_explorers_have_a_colour_bar_and_labelled_axes():
    for explorer in (PositionalEncodingExplorer(interactive=False), HeadExplorer(*fake_heads(), interactive=False)):
        assert len(colorbars(explorer.figure)) == 1
        for ax in explorer.figure.axes:
            if ax not in colorbars(explorer.figure):
                assert ax.get_xlabel() and ax.get_ylabel()


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("positional", "heads")
)
