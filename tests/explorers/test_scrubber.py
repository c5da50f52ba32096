"""Notebook 04's training scrubber, headless: every epoch redraws in place, and bad input is named."""

import numpy as np
import pytest
from explorer_inputs import DATA, SNAPSHOTS, bad_control_tests
from helpers import artist_count, pixels, trained_snapshots

from attention_lab import make_regression_data
from attention_lab.explorers import TrainingScrubber, training_small_multiples

TRAINED_ON = make_regression_data(50, seed=0)


@pytest.fixture(scope="module")
def snapshots():
    return trained_snapshots(TRAINED_ON)


@pytest.mark.slow
def test_scrubber_replays_every_epoch_in_place(snapshots, interactive):
    scrubber = TrainingScrubber(snapshots, TRAINED_ON, interactive=interactive)
    count, before = artist_count(scrubber), pixels(scrubber)
    for index in [*range(1, len(snapshots)), *range(len(snapshots) - 2, -1, -1)]:
        scrubber.set(epoch=index)
        s = snapshots[index]
        np.testing.assert_allclose(scrubber.curve.get_data()[1], s["y_hat"])
        np.testing.assert_allclose(np.asarray(scrubber.image.get_array()), s["weights"])
        assert scrubber.now.get_xdata()[0] == s["epoch"]
        assert f"epoch {s['epoch']}:" in scrubber.fit_title.get_text()
        now = pixels(scrubber)
        assert not np.array_equal(now, before), f"epoch {index} did not change the picture"
        before = now
    assert artist_count(scrubber) == count


def test_scrubber_input_error():
    with pytest.raises(ValueError, match="snapshots must be a non-empty list of dicts"):
        TrainingScrubber([], TRAINED_ON, interactive=False)


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("training")
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: TrainingScrubber([], DATA, interactive=False), r"non-empty list"),
        (lambda: TrainingScrubber([{"epoch": 0}], DATA, interactive=False), r"snapshots\[0\] must be a dict"),
        (lambda: TrainingScrubber(SNAPSHOTS, make_regression_data(20), interactive=False), r"does not match data"),
        (lambda: TrainingScrubber(SNAPSHOTS, "data", interactive=False), r"data must be RegressionData"),
        (lambda: TrainingScrubber(SNAPSHOTS, DATA, title=3, interactive=False), r"title must be a string"),
        (lambda: training_small_multiples(SNAPSHOTS, DATA, epochs=[7]), r"epochs \[7\] have no snapshot"),
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()
