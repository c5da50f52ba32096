"""softmax, logsumexp, hard, sampled, sparse and Gumbel attention: exact values, properties, limits, errors."""

import math
from decimal import Decimal

import numpy as np
import pytest
from garbage import garbage_test
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from attention_lab import (
    effective_keys,
    entropy,
    gumbel_softmax,
    hard_attention,
    logsumexp,
    sample_attention,
    softmax,
    sparsemax,
)

SCALES = st.integers(-300, 300).map(lambda e: 10.0**e)

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
score_arrays = arrays(np.float64, array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), elements=finite)
temperatures = st.one_of(st.floats(1e-3, 1e3), st.sampled_from([0.0, np.inf]))
NORMALISERS = [softmax, sparsemax]


def reference_softmax(alpha, temperature):
    """Textbook formula with Python floats, exact enough for moderate scores."""
    exps = [math.exp(a / temperature) for a in alpha]
    return np.array([e / sum(exps) for e in exps])


# --- softmax -------------------------------------------------------------------------------------------


def test_softmax_matches_the_textbook_formula():
    alpha = [0.5, -1.0, 2.0, 0.0]
    for temperature in (0.3, 1.0, 4.0):
        np.testing.assert_allclose(softmax(alpha, temperature), reference_softmax(alpha, temperature), rtol=1e-12)


@given(score_arrays, temperatures)
def test_weights_are_a_probability_distribution(alpha, temperature):
    for normaliser in NORMALISERS:
        w = normaliser(alpha, temperature)
        assert w.shape == alpha.shape
        assert np.all(w >= 0) and np.all(np.isfinite(w))
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-9)


@given(score_arrays, st.one_of(st.floats(1e-3, 1e3), st.just(np.inf)), st.floats(-1e5, 1e5))
def test_shift_invariance(alpha, temperature, shift):
    for normaliser in NORMALISERS:
        np.testing.assert_allclose(normaliser(alpha + shift, temperature), normaliser(alpha, temperature), atol=1e-6)


@given(
    arrays(np.int64, array_shapes(min_dims=1, max_dims=2, max_side=6), elements=st.integers(-9, 9)),
    st.integers(-1000, 1000),
)
def test_shift_invariance_of_the_hard_limit(alpha, shift):
    """At T = 0 ties must be exact, so shift integers (floats that round would make near-ties differ)."""
    for normaliser in NORMALISERS:
        np.testing.assert_array_equal(normaliser(alpha + shift, 0), normaliser(alpha, 0))


@given(arrays(np.float64, st.integers(1, 8), elements=finite), st.randoms(), temperatures)
def test_permutation_equivariance(alpha, random, temperature):
    order = list(range(alpha.size))
    random.shuffle(order)
    for normaliser in NORMALISERS:
        np.testing.assert_allclose(
            normaliser(alpha[order], temperature), normaliser(alpha, temperature)[order], atol=1e-12
        )
    if len(set(alpha)) == alpha.size:  # hard attention breaks ties by index; distinct scores permute cleanly
        np.testing.assert_array_equal(hard_attention(alpha[order]), hard_attention(alpha)[order])


def test_zero_temperature_is_one_hot_argmax_and_ties_share():
    np.testing.assert_array_equal(softmax([1.0, 3.0, 2.0], 0), [0, 1, 0])
    np.testing.assert_array_equal(softmax([3.0, 1.0, 3.0], 0), [0.5, 0, 0.5])


def test_temperature_limits_are_continuous():
    alpha = np.array([0.2, 1.5, -0.7, 1.4])
    np.testing.assert_allclose(softmax(alpha, 1e-4), softmax(alpha, 0), atol=1e-12)
    np.testing.assert_allclose(softmax(alpha, 1e8), softmax(alpha, np.inf), atol=1e-7)
    np.testing.assert_allclose(softmax(alpha, np.inf), 0.25)


def test_huge_logits_do_not_overflow():
    w = softmax([1e308, -1e308, 1e308 / 2])
    np.testing.assert_array_equal(w, [1.0, 0.0, 0.0])
    w = softmax([1000.0, 1000.0, 0.0])
    np.testing.assert_allclose(w, [0.5, 0.5, 0.0])
    w = softmax([1.0, 2.0], temperature=1e-300)  # alpha / T overflows; the answer is still defined
    np.testing.assert_array_equal(w, [0.0, 1.0])
    assert np.all(np.isfinite(softmax([-1e308, 1e308], 1e300)))


def test_masked_entries_get_exactly_zero_and_empty_rows_all_zeros():
    alpha = np.array([[1.0, 5.0, 2.0], [0.0, 0.0, 0.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    for temperature in (0.0, 0.5, np.inf):
        for normaliser in NORMALISERS:
            w = normaliser(alpha, temperature, mask=mask)
            assert w[0, 1] == 0.0
            np.testing.assert_allclose(w[0].sum(), 1.0)
            np.testing.assert_array_equal(w[1], 0.0)
    np.testing.assert_allclose(softmax(alpha, mask=mask)[0, [0, 2]], reference_softmax([1.0, 2.0], 1.0))


def test_mask_broadcasts_and_minus_infinity_means_masked():
    alpha = np.zeros((2, 3))
    w = softmax(alpha, mask=np.array([True, True, False]))  # (3,) broadcasts to (2, 3)
    np.testing.assert_allclose(w, [[0.5, 0.5, 0], [0.5, 0.5, 0]])
    np.testing.assert_allclose(softmax([0.0, -np.inf, 0.0]), [0.5, 0, 0.5])
    np.testing.assert_array_equal(softmax([-np.inf, -np.inf]), [0, 0])


def test_axis_argument():
    alpha = np.array([[1.0, 2.0], [3.0, 0.0]])
    np.testing.assert_allclose(softmax(alpha, axis=0), softmax(alpha.T).T)
    np.testing.assert_allclose(softmax(alpha, axis=0).sum(axis=0), 1.0)


def test_inputs_are_not_mutated():
    alpha = np.array([3.0, -np.inf, 1.0])
    mask = np.array([True, True, False])
    before, mask_before = alpha.copy(), mask.copy()
    for fn in (softmax, sparsemax, logsumexp, hard_attention):
        fn(alpha, mask=mask)
    sample_attention(alpha, 3, rng=0, mask=mask)
    gumbel_softmax(alpha, rng=0)
    np.testing.assert_array_equal(alpha, before)
    np.testing.assert_array_equal(mask, mask_before)


# --- logsumexp -----------------------------------------------------------------------------------------


@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-50, 50)), st.floats(0.05, 20))
def test_logsumexp_matches_direct_formula_and_bounds(alpha, temperature):
    t = Decimal(temperature)
    direct = float(t * sum((Decimal(a) / t).exp() for a in alpha).ln())  # exact arithmetic, no overflow
    value = logsumexp(alpha, temperature)
    assert value == pytest.approx(direct, rel=1e-9, abs=1e-9)
    assert alpha.max() - 1e-9 <= value <= alpha.max() + temperature * math.log(alpha.size) + 1e-9


def test_logsumexp_limits_and_stability():
    alpha = np.array([1.0, 3.0, 2.0])
    assert logsumexp(alpha, 0) == 3.0
    assert logsumexp(alpha, 1e-6) == pytest.approx(3.0)
    assert logsumexp(alpha, np.inf) == np.inf
    assert logsumexp([2.5], np.inf) == 2.5
    assert logsumexp([1e308, 1e308]) == pytest.approx(1e308)
    assert logsumexp([0.0, 1.0], mask=np.array([False, False])) == -np.inf
    np.testing.assert_allclose(logsumexp(np.zeros((2, 4))), np.log(4))


@given(score_arrays, st.floats(0.01, 100))
def test_softmax_is_exp_of_alpha_minus_logsumexp(alpha, temperature):
    """The derivation's last step: softmax(alpha / T) = exp((alpha - T logsumexp(alpha / T)) / T)."""
    lse = logsumexp(alpha, temperature)[..., None]
    np.testing.assert_allclose(np.exp((alpha - lse) / temperature), softmax(alpha, temperature), atol=1e-9)


# --- hard and sampled attention -------------------------------------------------------------------------


def test_hard_attention_top_k():
    np.testing.assert_array_equal(hard_attention([0.1, 0.9, 0.5, 0.3]), [0, 1, 0, 0])
    np.testing.assert_allclose(hard_attention([0.1, 0.9, 0.5, 0.3], 2), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(hard_attention([1.0, 1.0, 0.0], 1), [1, 0, 0])  # ties: earlier index
    np.testing.assert_allclose(hard_attention([5.0, 1.0, 2.0], 2, mask=np.array([False, True, True])), [0, 0.5, 0.5])
    np.testing.assert_allclose(
        hard_attention([5.0, 1.0, 2.0], 3, mask=np.array([False, True, True])), [0, 0.5, 0.5]
    )  # fewer than k allowed: share among those there are
    np.testing.assert_array_equal(hard_attention([5.0, 1.0], mask=np.array([False, False])), [0, 0])


def test_each_count_has_its_own_keyword():
    """k_top counts the kept keys, n_samples the draws; neither is called k, the course's key (issue 42)."""
    alpha = [0.1, 0.9, 0.5, 0.3]
    np.testing.assert_allclose(hard_attention(alpha, k_top=2), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(sample_attention(alpha, n_samples=4, rng=0).sum(), 1.0)
    assert np.all(sample_attention(alpha, n_samples=4, rng=0) * 4 % 1 == 0)  # counts of 4 draws
    for call in (lambda: hard_attention(alpha, k=2), lambda: sample_attention(alpha, k=4, rng=0)):
        with pytest.raises(TypeError, match="k"):
            call()


@given(score_arrays, st.integers(1, 6))
def test_hard_attention_properties(alpha, k):
    k = min(k, alpha.shape[-1])
    w = hard_attention(alpha, k)
    np.testing.assert_allclose(w.sum(-1), 1.0)
    assert np.all((w == 0) | np.isclose(w, 1 / k))
    chosen_min = np.where(w > 0, alpha, np.inf).min(-1)
    left_max = np.where(w == 0, alpha, -np.inf).max(-1)
    assert np.all(chosen_min >= left_max)  # nothing left out beats anything chosen


def test_sample_attention_is_reproducible_and_unbiased():
    alpha = np.array([0.5, 2.0, -1.0, 1.0])
    a = sample_attention(alpha, 7, rng=3)
    b = sample_attention(alpha, 7, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert np.all(np.isclose(a * 7, np.round(a * 7)))  # counts / k
    mean = np.mean([sample_attention(alpha, 50, rng=seed) for seed in range(200)], axis=0)
    np.testing.assert_allclose(mean, softmax(alpha), atol=0.02)  # 10,000 draws: sd of each ~0.005


def test_sample_attention_masks_and_batches():
    alpha = np.array([[0.0, 9.0, 0.0], [1.0, 2.0, 3.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    w = sample_attention(alpha, 20, rng=0, mask=mask)
    assert w[0, 1] == 0 and w[0].sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(w[1], 0.0)
    np.testing.assert_array_equal(sample_attention(alpha[1], 5, temperature=0, rng=0), [0, 0, 1])


# --- sparsemax ---------------------------------------------------------------------------------------


def brute_force_simplex_projection(z):
    """Projection onto the simplex by bisection on tau (independent of the sort-based algorithm)."""
    lo, hi = z.min() - 1, z.max()
    for _ in range(200):
        tau = (lo + hi) / 2
        lo, hi = (tau, hi) if np.maximum(z - tau, 0).sum() > 1 else (lo, tau)
    return np.maximum(z - (lo + hi) / 2, 0)


@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-10, 10)), st.floats(0.1, 10))
def test_sparsemax_is_the_simplex_projection(alpha, temperature):
    np.testing.assert_allclose(
        sparsemax(alpha, temperature), brute_force_simplex_projection(alpha / temperature), atol=1e-8
    )


def test_sparsemax_known_values_and_sparsity():
    np.testing.assert_allclose(sparsemax([0.0, 0.5]), [0.25, 0.75])
    np.testing.assert_allclose(sparsemax([1.0, 2.0, 3.0]), [0, 0, 1])
    w = sparsemax([0.1, 0.9, 0.5, 0.3])
    assert np.sum(w == 0) >= 1 and w.sum() == pytest.approx(1.0)


# --- Gumbel-softmax ----------------------------------------------------------------------------------


def test_gumbel_max_samples_follow_softmax():
    alpha = np.array([1.0, 0.0, 2.0])
    rng = np.random.default_rng(0)
    picks = np.array([gumbel_softmax(alpha, hard=True, rng=rng) for _ in range(4000)])
    assert set(np.unique(picks)) <= {0.0, 1.0}
    np.testing.assert_allclose(picks.mean(axis=0), softmax(alpha), atol=0.03)


def test_gumbel_softmax_temperature_limits():
    alpha = np.array([1.0, 0.0, 2.0])
    w = gumbel_softmax(alpha, 1e-3, rng=1)
    np.testing.assert_allclose(np.sort(w), [0, 0, 1], atol=1e-9)
    np.testing.assert_allclose(gumbel_softmax(alpha, np.inf, rng=1), 1 / 3)
    np.testing.assert_array_equal(gumbel_softmax(alpha, 0.5, rng=5), gumbel_softmax(alpha, 0.5, rng=5))


# --- entropy -----------------------------------------------------------------------------------------


def test_entropy_of_one_hot_and_uniform():
    assert entropy([0.0, 1.0, 0.0]) == 0.0
    assert entropy(np.full(4, 0.25)) == pytest.approx(np.log(4))
    with pytest.raises(ValueError, match="weights must be non-negative"):
        entropy([-0.1, 1.1])


# --- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: softmax([1.0, 2.0], -1.0), r"temperature must be a number >= 0.*got -1.0"),
        (lambda: softmax([1.0, 2.0], float("nan")), r"temperature must be .*got nan"),
        (lambda: softmax([1.0, 2.0], "hot"), r"temperature must be .*got 'hot'"),
        (lambda: softmax([1.0, np.nan]), r"scores must not contain NaN, got 1 NaN"),
        (lambda: softmax([1.0, np.inf]), r"scores must be finite \(or -inf"),
        (lambda: softmax(3.0), r"scores must have at least 1 dimension"),
        (lambda: softmax(["a", "b"]), r"scores must be an array of numbers"),
        (
            lambda: softmax(np.zeros((2, 3)), mask=np.ones((3, 2), bool)),
            r"mask must be broadcastable to .*\(2, 3\).*\(3, 2\)",
        ),
        (lambda: softmax(np.zeros(3), mask=np.ones(3)), r"mask must be a boolean array.*float64"),
        (lambda: softmax(np.zeros(3), axis=1), r"axis must be an integer in \[-1, 0\].*got 1"),
        (lambda: logsumexp([1.0], -2), r"temperature must be"),
        (lambda: hard_attention([1.0, 2.0], 3), r"k_top must be an integer >= 1 and <= 2, got 3"),
        (lambda: hard_attention([1.0, 2.0], 0), r"k_top must be an integer >= 1 and <= 2, got 0"),
        (lambda: hard_attention([1.0, 2.0], 1.5), r"k_top must be an integer >= 1 and <= 2, got 1.5"),
        (lambda: sample_attention([1.0, 2.0], 0), r"n_samples must be an integer >= 1, got 0"),
        (lambda: sample_attention([1.0, 2.0], rng="seed"), r"rng must be None, an integer seed or a numpy"),
        (lambda: sparsemax([1.0, 2.0], -0.5), r"temperature must be"),
        (lambda: gumbel_softmax([np.nan]), r"scores must not contain NaN"),
    ],
)
def test_bad_input_gets_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@settings(max_examples=examples(50))
@given(score_arrays)
def test_temperature_zero_agrees_between_normalisers(alpha):
    np.testing.assert_allclose(sparsemax(alpha, 0), softmax(alpha, 0))
    w = softmax(alpha, 0)
    np.testing.assert_array_equal(w > 0, alpha == alpha.max(axis=-1, keepdims=True))


# --- bad input: the garbage every numeric function refuses (tests/garbage.py), then specific cases -----

GARBAGE_TAKERS = {
    "softmax": lambda a: softmax(a),
    "logsumexp": lambda a: logsumexp(a),
    "hard_attention": lambda a: hard_attention(a),
    "sample_attention": lambda a: sample_attention(a, rng=0),
    "sparsemax": lambda a: sparsemax(a),
    "gumbel_softmax": lambda a: gumbel_softmax(a, rng=0),
    "entropy": lambda a: entropy(a),
    "effective_keys": lambda a: effective_keys(a),
}

test_garbage_is_refused_with_a_value_error = garbage_test(GARBAGE_TAKERS)


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
    ],
)
def test_specific_bad_input_gets_a_specific_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- extreme but finite input ------------------------------------------------------------------------------


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


# --- one contract: a query with no allowed key gets no weight (normalisers' docstring) --------------------


@st.composite
def scores_and_masks(draw):
    """Scores (n_q, n_k) and a mask of the same shape in which some rows may allow no key at all."""
    n_q, n_k = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    alpha = draw(arrays(np.float64, (n_q, n_k), elements=finite))
    mask = draw(arrays(np.bool_, (n_q, n_k)))
    empty = draw(arrays(np.bool_, (n_q, 1)))
    return alpha, mask & ~empty


@given(scores_and_masks(), temperatures)
def test_a_masked_key_and_a_minus_inf_score_are_the_same_and_empty_rows_get_zeros(case, temperature):
    alpha, mask = case
    minus_inf = np.where(mask, alpha, -np.inf)
    empty = ~mask.any(axis=-1)
    for normaliser in (softmax, sparsemax, hard_attention):
        options = {} if normaliser is hard_attention else {"temperature": temperature}
        through_mask = normaliser(alpha, mask=mask, **options)
        np.testing.assert_array_equal(through_mask, normaliser(minus_inf, **options))
        assert np.all(through_mask[empty] == 0) and np.all(through_mask[~mask] == 0)
        np.testing.assert_allclose(through_mask[~empty].sum(axis=-1), 1.0, rtol=1e-9)
    assert np.all(logsumexp(alpha, temperature, mask=mask)[empty] == -np.inf)  # the log of an empty sum
