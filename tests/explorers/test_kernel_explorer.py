"""The kernel-width explorer of notebook 03, headless: the whole bandwidth range, every kernel and size."""

import numpy as np
import pytest
from explorer_inputs import DATA, bad_control_tests
from helpers import pixels
from matplotlib.figure import Figure

from attention_lab import make_regression_data, nadaraya_watson
from attention_lab.explorers import TRAIN_SIZES, KernelExplorer, kernel_small_multiples
from attention_lab.normalisers import effective_keys


@pytest.fixture(scope="module")
def explorer():
    return KernelExplorer(interactive=True)


def bandwidth_positions(slider):
    """Every position of the log slider: 10 ** (min + k step), min .. max."""
    exponents = np.arange(slider.min, slider.max + slider.step / 2, slider.step)
    return 10.0**exponents


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["gaussian", "boxcar", "epanechnikov"])
@pytest.mark.parametrize("n_train", TRAIN_SIZES)
def test_whole_bandwidth_range(explorer, kernel, n_train):
    explorer.set(kernel=kernel, n_train=n_train, query=1.3)
    data = explorer.datasets[n_train]
    count = sum(len(ax.get_children()) for ax in explorer.figure.axes)
    before, changed = pixels(explorer), []
    for h in bandwidth_positions(explorer.controls["bandwidth"]):
        explorer.set(bandwidth=h)
        h = explorer.controls["bandwidth"].value
        expected, weights = nadaraya_watson(data.x_test, data.x_train, data.y_train, bandwidth=h, kernel=kernel)
        x, y = explorer.curve.get_data()
        np.testing.assert_allclose(x, data.x_test)
        np.testing.assert_allclose(y, expected, equal_nan=True)
        gaps = np.isnan(y)
        if kernel == "gaussian":
            assert not gaps.any(), f"the Gaussian kernel must predict everywhere, NaN at h = {h}"
        else:  # NaN exactly where no key is within reach
            reach = np.abs(data.x_test[:, None] - data.x_train[None, :]).min(axis=1) <= h
            np.testing.assert_array_equal(gaps, ~reach)
        image = np.asarray(explorer.image.get_array())
        assert image.shape == (data.x_test.size, n_train) and np.all(np.isfinite(image))
        np.testing.assert_allclose(image.sum(axis=1)[~gaps], 1.0)
        profile = np.asarray(explorer.profile.get_data()[1], dtype=float)
        assert np.all(np.isfinite(profile)) and (profile.size == 0 or np.isclose(profile.max(), 1.0))
        now = pixels(explorer)
        changed.append(not np.array_equal(now, before))
        before = now
    assert np.mean(changed) > 0.8, "most bandwidth steps must change the picture"
    assert sum(len(ax.get_children()) for ax in explorer.figure.axes) == count  # updated in place


def test_limits_are_nearest_neighbour_and_average_pooling(explorer):
    explorer.set(kernel="gaussian", n_train=50, bandwidth=5.0)
    data = explorer.datasets[50]
    # h = 5 is wide but not infinite; its weights are already close to uniform
    assert effective_keys(np.asarray(explorer.image.get_array())).min() > 0.8 * 50
    explorer.set(bandwidth=0.03)
    assert effective_keys(np.asarray(explorer.image.get_array())).max() < 3.5
    nearest = np.abs(data.x_test[:, None] - data.x_train[None, :]).argmin(axis=1)
    assert np.array_equal(np.asarray(explorer.image.get_array()).argmax(axis=1), nearest)


def test_query_moves_the_profile_and_the_markers(explorer):
    explorer.set(kernel="gaussian", n_train=500, bandwidth=0.3)
    for x in (0.0, 2.5, 4.9):
        explorer.set(query=x)
        assert explorer.fit_query.get_xdata()[0] == x and explorer.heat_query.get_ydata()[0] == x
        keys, profile = explorer.profile.get_data()
        assert np.isclose(
            keys[np.argmax(profile)],
            explorer.datasets[500].x_train[np.abs(explorer.datasets[500].x_train - x).argmin()],
        )


def test_savefig_does_not_spoil_the_in_place_updates():
    a = KernelExplorer(interactive=False)
    a.figure.savefig(__import__("io").BytesIO(), format="png")
    a.set(query=4.0)
    b = KernelExplorer(interactive=False, query=4.0)
    assert np.array_equal(pixels(a), pixels(b))


def test_effective_keys():
    np.testing.assert_allclose(effective_keys(np.full((2, 4), 0.25)), [4.0, 4.0])
    np.testing.assert_allclose(effective_keys([0.0, 1.0, 0.0]), 1.0)
    assert np.isnan(effective_keys(np.zeros(3)))


def test_input_errors():
    with pytest.raises(ValueError, match=r"n_train must be one of \[50, 500, 1000\], got 70"):
        KernelExplorer(n_train=70, interactive=False)
    with pytest.raises(ValueError, match=r"bandwidth must be between 0.03 and 5 \(the slider's range\), got 9"):
        KernelExplorer(bandwidth=9, interactive=False)
    with pytest.raises(ValueError, match="datasets must map sizes to RegressionData"):
        KernelExplorer({50: (1, 2)}, interactive=False)
    with pytest.raises(ValueError, match="data must be RegressionData"):
        kernel_small_multiples(np.zeros(3))


def test_small_multiples():
    fig = kernel_small_multiples(make_regression_data(50), bandwidths=(0.1, 1.0, 3.0), kernel="boxcar")
    assert isinstance(fig, Figure) and len(fig.axes) == 7  # 2 x 3 panels and a colour bar
    assert all(ax.get_xlabel() for ax in fig.axes[:6])


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("kernel")
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
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
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()
