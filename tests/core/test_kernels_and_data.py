"""Kernels, Nadaraya-Watson regression, leave-one-out bandwidth choice and the course data set."""

import numpy as np
import pytest
from garbage import garbage_test
from hypothesis import given
from hypothesis import strategies as st

from attention_lab import (
    KERNELS,
    gaussian_score,
    loo_bandwidth,
    loo_errors,
    make_regression_data,
    nadaraya_watson,
    softmax,
    true_function,
)
from attention_lab.kernels import boxcar_kernel, epanechnikov_kernel, gaussian_kernel

DATA = make_regression_data(30, seed=3)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_each_kernel_is_a_probability_density(name):
    u = np.linspace(-8, 8, 160_001)
    k = KERNELS[name](u)
    assert np.all(k >= 0)
    assert np.trapezoid(k, u) == pytest.approx(1.0, abs=1e-4)
    np.testing.assert_allclose(k, KERNELS[name](-u))  # symmetric


def test_kernel_shapes_are_the_textbook_ones():
    assert KERNELS["gaussian"](0.0) == pytest.approx(1 / np.sqrt(2 * np.pi))
    assert KERNELS["boxcar"](0.99) == 0.5 and KERNELS["boxcar"](1.01) == 0
    # Epanechnikov is a parabola (3/4)(1 - u^2), not a triangle: at u = 1/2 it is 9/16, a triangle gives 1/2
    assert KERNELS["epanechnikov"](0.5) == pytest.approx(0.75 * 0.75)
    assert KERNELS["epanechnikov"](1.5) == 0


def explicit_nw(x_query, x_keys, y, h, kernel):
    """f(x) = sum_i K((x - x_i)/h) y_i / sum_j K((x - x_j)/h), written as loops."""
    out = []
    for x in x_query:
        num = sum(kernel((x - xi) / h) * yi for xi, yi in zip(x_keys, y, strict=True))
        den = sum(kernel((x - xj) / h) for xj in x_keys)
        out.append(num / den)
    return np.array(out)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_nadaraya_watson_matches_the_formula(name):
    data = make_regression_data(30, seed=4)
    y_hat, w = nadaraya_watson(data.x_test, data.x_train, data.y_train, bandwidth=1.5, kernel=name)
    np.testing.assert_allclose(
        y_hat, explicit_nw(data.x_test, data.x_train, data.y_train, 1.5, KERNELS[name]), rtol=1e-10
    )
    assert w.shape == (50, 30)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


@given(st.floats(0.01, 10), st.integers(0, 1000))
def test_gaussian_nadaraya_watson_is_softmax_of_gaussian_score(h, seed):
    data = make_regression_data(20, seed=seed)
    y_hat, w = nadaraya_watson(data.x_test, data.x_train, data.y_train, bandwidth=h)
    expected = softmax(gaussian_score(data.x_test, data.x_train, h))
    np.testing.assert_allclose(w, expected, atol=1e-12)
    np.testing.assert_allclose(y_hat, expected @ data.y_train, atol=1e-10)
    assert np.all(np.isfinite(y_hat))


def test_far_queries_and_tiny_bandwidths_stay_finite_with_gaussian():
    y_hat, w = nadaraya_watson([100.0, 0.51], [0.0, 1.0], [1.0, 3.0], bandwidth=1e-3)
    np.testing.assert_allclose(y_hat, [3.0, 3.0])  # the nearest key wins


def test_compact_kernel_gaps_are_nan_without_warnings():
    y_hat, w = nadaraya_watson([0.0, 0.5, 5.0], [0.0, 1.0], [2.0, 4.0], bandwidth=0.6, kernel="boxcar")
    np.testing.assert_allclose(y_hat[:2], [2.0, 3.0])
    assert np.isnan(y_hat[2])  # no key within 0.6 of x = 5
    np.testing.assert_array_equal(w[2], 0.0)


def test_multivariate_values_and_inputs_unchanged():
    x, y = np.array([0.0, 1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    before = (x.copy(), y.copy())
    y_hat, _ = nadaraya_watson([1.0], x, y, bandwidth=0.5)
    assert y_hat.shape == (1, 2)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(y, before[1])


def test_loo_errors_match_refitting_without_each_point():
    data = make_regression_data(15, seed=2)
    x, y = data.x_train, data.y_train
    for kernel in ("gaussian", "epanechnikov"):
        h = 0.9
        manual = np.mean(
            [
                (nadaraya_watson([x[i]], np.delete(x, i), np.delete(y, i), bandwidth=h, kernel=kernel)[0][0] - y[i])
                ** 2
                for i in range(len(x))
            ]
        )
        assert loo_errors(x, y, [h], kernel=kernel)[0] == pytest.approx(manual)
    assert loo_errors(x, y, [1e-4], kernel="boxcar")[0] == np.inf  # points left without neighbours


def test_loo_bandwidth_is_the_grid_minimum_and_sensible():
    data = make_regression_data(100, seed=0)
    h = loo_bandwidth(data.x_train, data.y_train)
    grid = np.geomspace(0.01, 5, 300)
    errors = loo_errors(data.x_train, data.y_train, grid)
    assert 0.05 < h < 1.0
    assert loo_errors(data.x_train, data.y_train, [h])[0] <= errors.min() * 1.01
    assert loo_bandwidth(data.x_train, data.y_train, bandwidths=grid) == grid[np.argmin(errors)]


def test_regression_data_matches_the_course_definition():
    data = make_regression_data()
    assert data.x_train.shape == data.y_train.shape == (50,)
    assert np.all(np.diff(data.x_train) >= 0) and data.x_train.min() >= 0 and data.x_train.max() < 5
    np.testing.assert_allclose(data.x_test, np.round(np.arange(0, 5, 0.1), 10))
    np.testing.assert_allclose(data.y_truth, 2 * np.sin(data.x_test) + data.x_test**0.8)
    residual = data.y_train - true_function(data.x_train)
    assert np.std(residual) == pytest.approx(0.5, rel=0.25)
    again = make_regression_data()
    np.testing.assert_array_equal(data.y_train, again.y_train)
    assert not np.array_equal(make_regression_data(seed=1).y_train, data.y_train)
    assert make_regression_data(1000).x_train.shape == (1000,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: nadaraya_watson([0.0], [0.0, 1.0], [1.0], bandwidth=1.0),
            r"x_keys and y_values must have the same length.*got 2 keys and 1 values",
        ),
        (lambda: nadaraya_watson([0.0], [0.0], [1.0], bandwidth=0.0), r"bandwidth must be a positive finite number"),
        (
            lambda: nadaraya_watson([0.0], [0.0], [1.0], kernel="triangle"),
            r"kernel must be one of \['boxcar', 'epanechnikov', 'gaussian'\], got 'triangle'",
        ),
        (lambda: nadaraya_watson(np.zeros((2, 2)), [0.0], [1.0]), r"x_query must be a 1-D array.*\(2, 2\)"),
        (lambda: loo_errors([0.0, 1.0], [1.0], [1.0]), r"x and y must have the same length, got 2 and 1"),
        (lambda: loo_errors([0.0], [1.0], [1.0]), r"at least 2 points"),
        (
            lambda: loo_bandwidth([0.0, 1.0], [0.0, 1.0], kernel="boxcar", bandwidths=[0.1]),
            r"no bandwidth .* leaves every point a neighbour",
        ),
        (lambda: make_regression_data(0), r"n_train must be an integer >= 1, got 0"),
        (lambda: make_regression_data(noise=-1.0), r"noise must be a number >= 0"),
        (lambda: true_function([-1.0]), r"x must be >= 0"),
    ],
)
def test_bad_input_gets_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- bad input: the garbage every numeric function refuses (tests/garbage.py), then specific cases -----

GARBAGE_TAKERS = {
    "nadaraya_watson x_query": lambda a: nadaraya_watson(a, [0.0, 1.0], [1.0, 2.0]),
    "nadaraya_watson y_values": lambda a: nadaraya_watson([0.5], [0.0, 1.0], a),
    "loo_errors bandwidths": lambda a: loo_errors(DATA.x_train, DATA.y_train, a),
    "gaussian_kernel": lambda a: gaussian_kernel(a),
}

test_garbage_is_refused_with_a_value_error = garbage_test(GARBAGE_TAKERS)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nadaraya_watson([1.0], [], []), r"x_keys must hold at least one key"),
        (lambda: nadaraya_watson([1e308], [-1e308], [1.0]), r"too far apart"),
        (lambda: nadaraya_watson([1.0], [1.0], [1.0], bandwidth=np.nan), r"bandwidth must be a positive finite"),
        (lambda: nadaraya_watson([1.0], [1.0], [1.0], bandwidth=True), r"bandwidth must be a positive finite"),
        (lambda: nadaraya_watson([1.0], [1.0], [1.0], kernel="triangle"), r"kernel must be one of"),
        (lambda: loo_errors([0.0, 1.0], [1.0, 2.0], []), r"bandwidths must be a non-empty"),
        (lambda: loo_bandwidth([-1e308, 1e308], [1.0, 2.0]), r"x spans more than the float range"),
        (lambda: loo_bandwidth([0.0, 1e-310], [1.0, 2.0]), r"too close together"),
        (lambda: make_regression_data(10, noise=True), r"noise must be"),
        (lambda: make_regression_data(10, noise="0.5"), r"noise must be"),
        (lambda: make_regression_data(10, seed=-1), r"seed must be a seed >= 0"),
    ],
)
def test_specific_bad_input_gets_a_specific_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- extreme but finite input ------------------------------------------------------------------------------


@given(exponent=st.integers(-300, -160))
def test_nadaraya_watson_at_tiny_bandwidth_is_the_nearest_neighbour(exponent):
    h = 10.0**exponent
    y_hat, weights = nadaraya_watson(DATA.x_test, DATA.x_train, DATA.y_train, bandwidth=h)
    nearest = np.argmin(np.abs(DATA.x_test[:, None] - DATA.x_train[None, :]), axis=1)
    assert np.array_equal(y_hat, DATA.y_train[nearest])
    assert np.array_equal(weights, np.eye(DATA.x_train.size)[nearest])
    assert np.array_equal(gaussian_score([0.0, 1.0], [0.0], h)[:, 0], [0.0, -np.inf])  # 0, not 0/0 = NaN


@given(exponent=st.integers(20, 307))
def test_nadaraya_watson_at_huge_bandwidth_is_the_mean(exponent):
    y_hat, weights = nadaraya_watson(DATA.x_test, DATA.x_train, DATA.y_train, bandwidth=10.0**exponent)
    assert np.allclose(y_hat, DATA.y_train.mean(), rtol=1e-12) and np.all(weights == weights[0, 0])


@pytest.mark.parametrize("kernel", list(KERNELS))
@given(exponent=st.integers(-290, 290))
def test_leave_one_out_is_scale_free(kernel, exponent):
    """NW weights depend on (x - x_i) / h only: scaling x scales the chosen bandwidth, scaling y changes nothing."""
    s = 10.0**exponent
    x, y = DATA.x_train[:12], DATA.y_train[:12]
    grid = np.geomspace(0.05, 5, 15)
    base = loo_errors(x, y, grid, kernel=kernel)
    scaled = loo_errors(x * s, y, grid * s, kernel=kernel)
    assert np.allclose(scaled, base, rtol=1e-6) and np.array_equal(np.isinf(scaled), np.isinf(base))
    assert loo_bandwidth(x * s, y, kernel=kernel, bandwidths=grid * s) == pytest.approx(
        s * loo_bandwidth(x, y, kernel=kernel, bandwidths=grid), rel=1e-9
    )
    assert loo_bandwidth(x, y * s, kernel=kernel, bandwidths=grid) == loo_bandwidth(
        x, y, kernel=kernel, bandwidths=grid
    )


@given(exponent=st.integers(-300, 300))
def test_default_bandwidth_search_works_at_any_spacing(exponent):
    s = 10.0**exponent
    x, y = DATA.x_train[:12], DATA.y_train[:12]
    assert loo_bandwidth(x * s, y) == pytest.approx(s * loo_bandwidth(x, y), rel=1e-6)


@given(exponent=st.integers(-300, -160))
def test_leave_one_out_at_tiny_bandwidth_is_finite(exponent):
    x, y = DATA.x_train[:12], DATA.y_train[:12]
    errors = loo_errors(x, y, [10.0**exponent])
    nearest_other = np.argmin(np.abs(x[:, None] - x[None, :]) + np.diag(np.full(12, np.inf)), axis=1)
    assert errors[0] == pytest.approx(np.mean((y[nearest_other] - y) ** 2), rel=1e-12)


def test_compact_kernels_at_extreme_u():
    u = [-1e308, -1.0, 0.0, 1.0, 1e308]
    assert np.array_equal(boxcar_kernel(u), [0.0, 0.5, 0.5, 0.5, 0.0])
    assert np.array_equal(epanechnikov_kernel(u), [0.0, 0.0, 0.75, 0.0, 0.0])
    assert np.array_equal(gaussian_kernel([1e200, -1e200]), [0.0, 0.0])


# --- the contract of a query with no allowed key, for the kernels' weights ----------------------------------


@given(
    st.lists(st.floats(-10, 10), min_size=1, max_size=6),
    st.lists(st.floats(-10, 10), min_size=1, max_size=4),
    st.floats(0.01, 3),
    st.sampled_from(["boxcar", "epanechnikov"]),
)
def test_a_query_with_no_key_in_reach_gets_zero_weights(x_keys, x_query, bandwidth, kernel):
    y = np.arange(len(x_keys), dtype=float)
    y_hat, w = nadaraya_watson(x_query, x_keys, y, bandwidth=bandwidth, kernel=kernel)
    empty = w.sum(axis=-1) == 0  # no key inside the kernel's support
    np.testing.assert_allclose(w[~empty].sum(axis=-1), 1.0)
    assert np.all(np.isnan(y_hat[empty])) and np.all(np.isfinite(y_hat[~empty]))  # the estimate is 0/0 there
    u = np.abs(np.subtract.outer(np.array(x_query), np.array(x_keys)) / bandwidth).min(axis=-1)  # in bandwidths
    # boxcar's support is |u| <= 1; Epanechnikov's 3/4 (1 - u^2) is 0 at |u| = 1 too, so its reach is |u| < 1
    far = u > 1 if kernel == "boxcar" else u >= 1
    np.testing.assert_array_equal(empty, far)
