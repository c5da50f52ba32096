"""Scoring functions and the three-step attention, against loops written out by hand."""

import numpy as np
import pytest
from garbage import garbage_test
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_lab import attention, cosine_score, dot_score, gaussian_score, scaled_dot_score, softmax

SCALES = st.integers(-300, 300).map(lambda e: 10.0**e)

SCALES = st.integers(-300, 300).map(lambda e: 10.0**e)


def loop_scores(queries, keys, fn):
    return np.array([[fn(q, k) for k in keys] for q in queries])


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.integers(0, 10_000))
def test_scores_match_explicit_loops(n_q, n_k, d, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(n_q, d)), rng.normal(size=(n_k, d))
    np.testing.assert_allclose(dot_score(q, k), loop_scores(q, k, np.dot), atol=1e-12)
    np.testing.assert_allclose(scaled_dot_score(q, k), loop_scores(q, k, lambda a, b: a @ b / np.sqrt(d)), atol=1e-12)
    np.testing.assert_allclose(
        cosine_score(q, k), loop_scores(q, k, lambda a, b: a @ b / np.linalg.norm(a) / np.linalg.norm(b)), atol=1e-12
    )
    np.testing.assert_allclose(
        gaussian_score(q, k, 0.7), loop_scores(q, k, lambda a, b: -np.sum((a - b) ** 2) / (2 * 0.49)), atol=1e-12
    )


def test_shapes_batches_and_one_dimensional_points():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    for score in (dot_score, scaled_dot_score, cosine_score, gaussian_score):
        assert score(q, k).shape == (2, 3, 5)
        np.testing.assert_allclose(score(q, k)[1], score(q[1], k[1]))
    x_query, x_keys = np.array([0.0, 1.0]), np.array([0.5, 1.0, 3.0])
    np.testing.assert_allclose(gaussian_score(x_query, x_keys, 1.0), -0.5 * (x_query[:, None] - x_keys) ** 2)
    assert dot_score(x_query, x_keys).shape == (2, 3)


def test_scaled_dot_keeps_unit_variance_in_high_dimension():
    rng = np.random.default_rng(1)
    for d in (4, 64, 512):
        q, k = rng.normal(size=(200, d)), rng.normal(size=(200, d))
        assert np.var(dot_score(q, k)) == pytest.approx(d, rel=0.1)
        assert np.var(scaled_dot_score(q, k)) == pytest.approx(1, rel=0.1)


def test_attention_is_weighted_average_of_values():
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    v = np.array([[10.0], [20.0], [30.0]])
    out, w = attention(q, k, v, score="dot")
    expected_w = softmax([1.0, 0.0, -1.0])
    np.testing.assert_allclose(w[0], expected_w)
    np.testing.assert_allclose(out[0], expected_w @ v)
    out, w = attention(q, k, v, score="dot", temperature=0)  # one-hot: a plain lookup
    np.testing.assert_allclose(out, [[10.0]])
    out, w = attention(q, k, v, score="dot", temperature=np.inf)  # uniform: average pooling
    np.testing.assert_allclose(out, [[20.0]])


def test_attention_with_gaussian_score_mask_and_callable():
    x = np.array([0.0, 1.0, 2.0])
    y = np.array([1.0, 2.0, 4.0])
    out, w = attention(np.array([0.9]), x, y, score="gaussian", bandwidth=0.5)
    np.testing.assert_allclose(w, softmax(gaussian_score([0.9], x, 0.5)))
    assert out.shape == (1,)
    out, w = attention(np.array([0.9]), x, y, score="gaussian", mask=np.array([True, False, True]))
    assert w[0, 1] == 0
    out, _ = attention(np.array([0.9]), x, y, score=lambda q, k: -np.abs(q[:, None] - k), temperature=0)
    np.testing.assert_allclose(out, [2.0])


def test_inputs_are_not_mutated():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    copies = [a.copy() for a in (q, k, v)]
    attention(q, k, v, score="cosine")
    for a, b in zip((q, k, v), copies, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: dot_score(np.zeros((2, 3)), np.zeros((4, 2))),
            r"same feature size d.*queries of shape \(2, 3\) \(d=3\).*keys of shape \(4, 2\) \(d=2\)",
        ),
        (lambda: dot_score(np.zeros((2, 2, 3)), np.zeros((3, 4, 3))), r"batch dimensions .* do not broadcast"),
        (lambda: cosine_score(np.zeros((1, 2)), np.ones((1, 2))), r"queries contains 1 zero vector"),
        (lambda: gaussian_score([0.0], [1.0], bandwidth=0), r"bandwidth must be a positive finite number, got 0.0"),
        (lambda: gaussian_score([0.0], [1.0], bandwidth=-1), r"bandwidth must be a positive finite number"),
        (lambda: dot_score([np.nan], [1.0]), r"queries must not contain NaN"),
        (
            lambda: attention([[1.0]], [[1.0], [2.0]], [1.0, 2.0, 3.0]),
            r"values must hold one row per key: expected 2 value\(s\).*got values of shape \(3,\)",
        ),
        (lambda: attention([[1.0]], [[1.0]], [1.0], score="manhattan"), r"score must be one of .*'manhattan'"),
    ],
)
def test_bad_input_gets_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@given(arrays(np.float64, (3, 2), elements=st.floats(-5, 5)), st.floats(0.1, 10))
def test_attention_output_lies_in_the_convex_hull_of_values(q, temperature):
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
    v = np.array([0.0, 1.0, 2.0, 3.0])
    out, w = attention(q, k, v, temperature=temperature)
    assert np.all(out >= v.min() - 1e-12) and np.all(out <= v.max() + 1e-12)
    np.testing.assert_allclose(w.sum(-1), 1.0)


# --- bad input: the garbage every numeric function refuses (tests/garbage.py), then specific cases -----

GARBAGE_TAKERS = {
    "dot_score queries": lambda a: dot_score(a, [1.0, 2.0]),
    "cosine_score keys": lambda a: cosine_score([1.0, 2.0], a),
    "gaussian_score": lambda a: gaussian_score(a, [1.0, 2.0]),
    "attention values": lambda a: attention([1.0], [1.0, 2.0], a),
}

test_garbage_is_refused_with_a_value_error = garbage_test(GARBAGE_TAKERS)


@pytest.mark.parametrize(
    ("call", "message"),
    [
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


# --- one contract: a query with no allowed key gets weights 0 and output 0 ---------------------------------


@given(
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(0, 10_000),
    st.sampled_from([0.0, 0.5, 1.0, np.inf]),
    st.sampled_from(["dot", "scaled_dot", "cosine"]),
)
def test_no_allowed_key_gives_zeros_through_a_mask_and_through_minus_inf_scores(n_q, n_k, seed, temperature, score):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n_q, 3)), rng.normal(size=(n_k, 3)), rng.normal(size=(n_k, 2))
    mask = rng.random((n_q, n_k)) < 0.5
    mask[0] = False  # the first query may attend to no key
    out_mask, w_mask = attention(q, k, v, score=score, temperature=temperature, mask=mask)

    def minus_inf_where_masked(queries, keys):
        return np.where(mask, SCORES_BY_NAME[score](queries, keys), -np.inf)

    out_inf, w_inf = attention(q, k, v, score=minus_inf_where_masked, temperature=temperature)
    np.testing.assert_array_equal(w_mask, w_inf)
    np.testing.assert_array_equal(out_mask, out_inf)
    empty = ~mask.any(axis=-1)
    assert np.all(w_mask[empty] == 0) and np.all(out_mask[empty] == 0)
    np.testing.assert_allclose(w_mask[~empty].sum(axis=-1), 1.0)


SCORES_BY_NAME = {"dot": dot_score, "scaled_dot": scaled_dot_score, "cosine": cosine_score}


def test_a_score_function_returning_minus_inf_everywhere_gives_zeros():
    out, w = attention([[1.0], [2.0]], [[0.0], [1.0]], [5.0, 7.0], score=lambda q, k: np.full((2, 2), -np.inf))
    assert np.all(w == 0) and np.all(out == 0)
