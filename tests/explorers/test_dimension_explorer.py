"""The dimension explorer of notebook 05, headless, over its whole range."""

import explorer_inputs as small
import numpy as np
import pytest
from explorer_inputs import bad_control_tests

from attention_lab import softmax
from attention_lab.explorers import DIMENSIONS, DimensionExplorer, ScoreSample, scaling_small_multiples

SAMPLE = ScoreSample(n_queries=200, n_keys=8, max_d=512, seed=0)


@pytest.mark.slow
def test_whole_range_in_place(interactive):
    explorer = DimensionExplorer(SAMPLE, d=1, interactive=interactive)
    count = sum(len(ax.get_children()) for ax in explorer.figure.axes)
    before = np.asarray(explorer.canvas.buffer_rgba()).copy()
    for d in DIMENSIONS[1:] + DIMENSIONS[::-1][1:]:
        explorer.set(d=d)
        raw, scaled = SAMPLE.scores(d, False), SAMPLE.scores(d, True)
        np.testing.assert_allclose([b.get_height() for b in explorer.bars_raw], softmax(raw[0]))
        np.testing.assert_allclose([b.get_height() for b in explorer.bars_scaled], softmax(scaled[0]))
        assert np.all(np.isfinite(explorer.hist_raw.get_ydata()))
        now = np.asarray(explorer.canvas.buffer_rgba()).copy()
        assert not np.array_equal(now, before)
        before = now
    assert sum(len(ax.get_children()) for ax in explorer.figure.axes) == count


def test_variance_grows_like_d_and_scaling_fixes_it():
    for d in (16, 256):
        assert 0.7 * d < SAMPLE.scores(d, False).var() < 1.3 * d
        assert 0.7 < SAMPLE.scores(d, True).var() < 1.3
    explorer = DimensionExplorer(SAMPLE, interactive=False)
    assert explorer.mean_entropy[False][-1] < 0.3 < 1.5 < explorer.mean_entropy[True][-1]


def test_errors_and_static_twin():
    with pytest.raises(ValueError, match=r"d must be one of \[1, 2, 4"):
        DimensionExplorer(SAMPLE, d=3, interactive=False)
    with pytest.raises(ValueError, match="d must be an integer >= 1 and <= 512, got 0"):
        SAMPLE.scores(0, True)
    fig = scaling_small_multiples(SAMPLE, dimensions=(4, 512))
    assert len(fig.axes) == 4 and fig.axes[0].get_ylabel()


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("dimension")
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: DimensionExplorer("sample", interactive=False), r"sample must be a ScoreSample"),
        (lambda: DimensionExplorer(ScoreSample(5, 3, max_d=64), interactive=False), r"max_d >= 512"),
        (lambda: ScoreSample(n_keys=0), r"n_keys must be an integer >= 1"),
        (lambda: ScoreSample(seed=1.5), r"seed must be a whole number"),
        (lambda: small.SAMPLE.scores(2.0, True), r"d must be an integer >= 1 and <= 512"),
        (lambda: small.SAMPLE.scores(4, "yes"), r"scaled must be True or False"),
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()
