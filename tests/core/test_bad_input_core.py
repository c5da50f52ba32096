"""Bad and extreme input to the numeric core: the right answer, or a ValueError naming the argument.

Never a silent NaN, 0 or garbage, never a RuntimeWarning (pytest turns warnings into errors here), never a
TypeError or a numpy reduction error from deep inside.
"""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attention_lab import (
    attention,
    cosine_score,
    dot_score,
    effective_keys,
    entropy,
    gaussian_score,
    gumbel_softmax,
    hard_attention,
    logsumexp,
    loo_bandwidth,
    loo_errors,
    make_regression_data,
    nadaraya_watson,
    sample_attention,
    scaled_dot_score,
    softmax,
    sparsemax,
)
from attention_lab.kernels import KERNELS, boxcar_kernel, epanechnikov_kernel, gaussian_kernel

SCALES = st.integers(-300, 300).map(lambda e: 10.0**e)
DATA = make_regression_data(30, seed=3)

# --- garbage where numbers are expected ---------------------------------------------------------------------

GARBAGE = {
    "None": None,
    "text": "1.5",
    "text list": ["1", "2"],
    "dict": {"a": 1.0},
    "bool array": np.array([True, False]),
    "bool list": [True, False, True],
    "complex": np.array([1 + 2j, 3.0]),
    "complex scalar list": [1j, 2.0],
    "masked array": np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False]),
    "NaN": [1.0, np.nan],
    "+inf": [1.0, np.inf],
    "ragged": [[1.0, 2.0], [3.0]],
    "huge int": [10**400, 1],
    "tensor with grad": torch.ones(3, requires_grad=True),
    "object": object(),
    "mixed list": [1.0, "x"],
    "None in list": [1.0, None],
}
ARRAY_FUNCTIONS = {
    "softmax": lambda a: softmax(a),
    "logsumexp": lambda a: logsumexp(a),
    "hard_attention": lambda a: hard_attention(a),
    "sample_attention": lambda a: sample_attention(a, rng=0),
    "sparsemax": lambda a: sparsemax(a),
    "gumbel_softmax": lambda a: gumbel_softmax(a, rng=0),
    "entropy": lambda a: entropy(a),
    "effective_keys": lambda a: effective_keys(a),
    "dot_score queries": lambda a: dot_score(a, [1.0, 2.0]),
    "cosine_score keys": lambda a: cosine_score([1.0, 2.0], a),
    "gaussian_score": lambda a: gaussian_score(a, [1.0, 2.0]),
    "attention values": lambda a: attention([1.0], [1.0, 2.0], a),
    "nadaraya_watson x_query": lambda a: nadaraya_watson(a, [0.0, 1.0], [1.0, 2.0]),
    "nadaraya_watson y_values": lambda a: nadaraya_watson([0.5], [0.0, 1.0], a),
    "loo_errors bandwidths": lambda a: loo_errors(DATA.x_train, DATA.y_train, a),
    "gaussian_kernel": lambda a: gaussian_kernel(a),
}


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
@pytest.mark.parametrize("function", list(ARRAY_FUNCTIONS), ids=list(ARRAY_FUNCTIONS))
def test_garbage_is_refused_with_a_value_error(function, garbage):
    value = GARBAGE[garbage]
    if garbage in ("NaN",) and function in ():
        pytest.skip()
    with pytest.raises(ValueError) as error:
        ARRAY_FUNCTIONS[function](value)
    assert "Traceback" not in str(error.value) and len(str(error.value)) > 10


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: softmax(np.ma.masked_array([1.0, 2.0], mask=[True, False])), r"mask would be ignored"),
        (lambda: softmax([1 + 0j, 2.0]), r"complex"),
        (lambda: softmax([True, False]), r"True/False"),
        (lambda: softmax("1.5"), r"text"),
        (lambda: softmax([]), r"at least one key"),
        (lambda: softmax(np.zeros((3, 0))), r"at least one key along axis 1"),
        (lambda: logsumexp(np.zeros((0,))), r"at least one key"),
        (lambda: hard_attention([]), r"at least one key"),
        (lambda: sparsemax(np.zeros((2, 0))), r"at least one key"),
        (lambda: softmax([1.0, 2.0], mask=np.ma.masked_array([True, True])), r"mask must be a plain boolean"),
        (lambda: softmax([1.0, 2.0], mask=[1, 0]), r"mask must be a boolean array"),
        (lambda: gumbel_softmax([1.0, 2.0], hard="no", rng=0), r"hard must be True or False"),
        (lambda: gumbel_softmax([1.0, 2.0], hard=1, rng=0), r"hard must be True or False"),
        (lambda: sample_attention([1.0, 2.0], rng=-3), r"rng must be a seed >= 0"),
        (lambda: entropy([0.5, 0.2]), r"weights must sum to 1"),
        (lambda: entropy([[0.5, 0.5], [0.9, 0.3]]), r"1 row\(s\) summing to e.g. 1.2"),
        (lambda: entropy([1.5, -0.5]), r"non-negative"),
        (lambda: effective_keys([0.5, -0.5]), r"non-negative"),
        (lambda: dot_score([[1.0]], np.zeros((0, 1))), r"keys must hold at least one key"),
        (lambda: dot_score(np.zeros((2, 0)), np.zeros((2, 0))), r"at least one feature"),
        (lambda: dot_score([[1e200, 1e200]], [[1e200, 1e200]]), r"dot-product scores overflowed"),
        (lambda: scaled_dot_score([[1e300, 1e300]], [[-1e300, -1e300]]), r"scaled dot-product scores overflowed"),
        (lambda: cosine_score([[0.0, 0.0]], [[1.0, 2.0]]), r"queries contains 1 zero vector"),
        (lambda: cosine_score([[1.0, 0.0]], [[5e-324, 0.0], [0.0, 0.0]]), r"keys contains 1 zero vector"),
        (lambda: attention([1.0], [1.0], [1.0], score=["dot"]), r"score must be one of"),
        (lambda: attention([1.0], [1.0], [1.0], score="dot", bandwidth=2.0), r"takes no argument bandwidth"),
        (lambda: attention([[1e200]], [[1e200]], [1.0], score="dot"), r"overflowed"),
        (lambda: attention([1.0], [1.0], [1e308, 1e308][:1], score="dot"), None),
        (lambda: attention([0.0], [1e200, 2e200], [1.0, 2.0], score="gaussian"), r"bandwidth is too small"),
        (lambda: attention([0.5], [0.0, 1.0], [1.7e308, 1.7e308], temperature=np.inf), None),
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
    if message is None:  # an extreme but valid input: the right answer, finite
        outputs, weights = call()
        assert np.all(np.isfinite(outputs)) and np.allclose(weights.sum(-1), 1.0)
        return
    with pytest.raises(ValueError, match=message):
        call()


# --- extreme but finite input ------------------------------------------------------------------------------

@given(scale_q=SCALES, scale_k=SCALES, direction=st.lists(st.floats(-10, 10), min_size=3, max_size=3))
def test_cosine_of_parallel_vectors_is_one_at_any_scale(scale_q, scale_k, direction):
    v = np.array(direction)
    if np.abs(v).max() < 1e-3:
        v = np.array([1.0, -2.0, 0.5])
    q, k = v * scale_q, v * scale_k
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(k))) or np.abs(q).max() == 0 or np.abs(k).max() == 0:
        return  # the scaling itself left the float range: not a cosine question
    assert np.allclose(cosine_score(q[None, :], np.stack([k, -k])), [[1.0, -1.0]], rtol=0, atol=1e-12)


@given(scale=SCALES, seed=st.integers(0, 2**16), score=st.sampled_from(["dot", "scaled_dot", "cosine", "gaussian"]))
def test_attention_at_any_scale_is_right_or_refused(scale, seed, score):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    try:
        outputs, weights = attention(q * scale, k * scale, v * scale, score=score)
    except ValueError as error:
        assert any(word in str(error) for word in ("overflowed", "bandwidth is too small", "too large")), error
        return
    assert np.all(np.isfinite(outputs)) and np.all(np.isfinite(weights))
    assert np.allclose(weights.sum(axis=-1), 1.0)
    if score == "cosine":  # depends on directions only
        assert np.allclose(weights, attention(q, k, v, score="cosine")[1], rtol=1e-9, atol=1e-12)
    assert np.all(np.abs(outputs) <= np.abs(v * scale).max() * (1 + 1e-9))  # a weighted average


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
        s * loo_bandwidth(x, y, kernel=kernel, bandwidths=grid), rel=1e-9)
    assert loo_bandwidth(x, y * s, kernel=kernel, bandwidths=grid) == loo_bandwidth(x, y, kernel=kernel,
                                                                                    bandwidths=grid)


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


@given(scale=SCALES, temperature=st.sampled_from([1e-300, 1e-30, 1.0, 1e30, 1e300]))
def test_normalisers_at_extreme_scores_and_temperatures(scale, temperature):
    alpha = np.array([1.0, -2.0, 0.5, 3.0]) * scale
    for normaliser in (softmax, sparsemax):
        w = normaliser(alpha, temperature)
        assert np.all(np.isfinite(w)) and w.sum() == pytest.approx(1.0) and np.all(w >= 0)
        assert w[3] == w.max()
    assert np.isfinite(logsumexp(alpha, temperature))
    assert gumbel_softmax(alpha, temperature, rng=0).sum() == pytest.approx(1.0)
    assert entropy(softmax(alpha, temperature)) >= 0
