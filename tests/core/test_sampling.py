"""Next-token sampling (attention_lab.sampling): exact values, the T limits, top-k and top-p, errors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from attention_lab import greedy_tokens, next_token_distribution, sample_tokens, softmax, top_k_mask, top_p_mask

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
logit_arrays = arrays(np.float64, array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7), elements=finite)
temperatures = st.one_of(st.floats(1e-3, 1e3), st.sampled_from([0.0, np.inf]))
top_ps = st.one_of(st.floats(1e-6, 1.0, exclude_min=True), st.just(1.0))


def nucleus_by_definition(probs, alpha, p):
    """The smallest prefix, in order of decreasing logit (ties by index), whose mass reaches p.

    The order of the logits is that of the probabilities at any T > 0, except where rounding makes two
    different logits' probabilities equal: the library decides by the logits."""
    order = sorted(range(len(probs)), key=lambda i: (-alpha[i], i))
    kept, mass = [], 0.0
    for i in order:
        if mass >= p and p < 1:
            break
        kept.append(i)
        mass += probs[i]
    return set(kept)


# --- the distribution ------------------------------------------------------------------------------------


def test_plain_sampling_is_the_softmax_of_notebook_02():
    alpha = [2.0, 1.0, -0.5, 0.0]
    for temperature in (0.3, 1.0, 5.0):
        expected = [math.exp(a / temperature) for a in alpha]
        np.testing.assert_allclose(
            next_token_distribution(alpha, temperature), np.array(expected) / sum(expected), rtol=1e-12
        )


def test_top_k_and_top_p_by_hand():
    alpha = np.log([0.1, 0.4, 0.2, 0.3])  # probabilities 0.1, 0.4, 0.2, 0.3 at T = 1
    np.testing.assert_allclose(next_token_distribution(alpha, top_k=2), [0, 4 / 7, 0, 3 / 7])
    # nucleus 0.5: 0.4 is short of it, 0.4 + 0.3 crosses it: the crossing token (0.3) is kept
    np.testing.assert_allclose(next_token_distribution(alpha, top_p=0.5), [0, 4 / 7, 0, 3 / 7])
    np.testing.assert_allclose(next_token_distribution(alpha, top_p=0.4), [0, 1, 0, 0])  # reached exactly: no more
    np.testing.assert_allclose(next_token_distribution(alpha, top_p=0.75), [0, 4 / 9, 2 / 9, 3 / 9])
    np.testing.assert_allclose(next_token_distribution(alpha, top_k=3, top_p=0.95), [0, 4 / 9, 2 / 9, 3 / 9])


@given(logit_arrays, temperatures)
def test_every_row_is_a_distribution(alpha, temperature):
    p = next_token_distribution(alpha, temperature)
    assert p.shape == alpha.shape and np.all(p >= 0) and np.all(np.isfinite(p))
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-9)


@given(logit_arrays)
def test_temperature_zero_is_exactly_greedy(alpha):
    p = next_token_distribution(alpha, 0.0)
    ties = alpha == alpha.max(axis=-1, keepdims=True)
    np.testing.assert_array_equal(p > 0, ties)  # all the weight on the largest logit(s)
    tokens = sample_tokens(alpha, 0.0, rng=0)
    np.testing.assert_array_equal(tokens, greedy_tokens(alpha))
    np.testing.assert_array_equal(tokens, np.argmax(alpha, axis=-1))


@given(logit_arrays, st.sampled_from([np.inf, 1e300, 1e250]))
def test_huge_temperatures_are_uniform_without_overflow(alpha, temperature):
    p = next_token_distribution(alpha, temperature)
    np.testing.assert_allclose(p, 1.0 / alpha.shape[-1], rtol=1e-9)


@given(logit_arrays, st.floats(1e-3, 1e3), st.floats(-1e5, 1e5))
def test_a_shift_of_every_logit_changes_nothing(alpha, temperature, shift):
    np.testing.assert_allclose(
        next_token_distribution(alpha + shift, temperature), next_token_distribution(alpha, temperature), atol=1e-6
    )


@given(
    arrays(np.float64, array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=8), elements=st.floats(-30, 30)),
    st.data(),
)
def test_top_k_keeps_exactly_the_k_largest(alpha, data):
    k = data.draw(st.integers(1, alpha.shape[-1]))
    mask = top_k_mask(alpha, k)
    assert np.all(mask.sum(axis=-1) == k)
    for row, kept in zip(alpha.reshape(-1, alpha.shape[-1]), mask.reshape(-1, alpha.shape[-1]), strict=True):
        order = sorted(range(row.size), key=lambda i: (-row[i], i))
        assert set(np.flatnonzero(kept)) == set(order[:k])
    for temperature in (0.5, 2.0, np.inf):  # which tokens are kept does not depend on T
        assert np.array_equal(next_token_distribution(alpha, temperature, top_k=k) > 0, mask)


@given(
    arrays(np.float64, array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=8), elements=st.floats(-20, 20)),
    st.floats(0.2, 3.0),
    top_ps,
)
def test_top_p_keeps_the_smallest_prefix_that_reaches_p(alpha, temperature, p):
    probs = softmax(alpha, temperature)
    mask = top_p_mask(alpha, p, temperature)
    for row_probs, row_alpha, kept in zip(
        probs.reshape(-1, alpha.shape[-1]),
        alpha.reshape(-1, alpha.shape[-1]),
        mask.reshape(-1, alpha.shape[-1]),
        strict=True,
    ):
        kept_set = set(np.flatnonzero(kept))
        mass = row_probs[kept].sum()
        assert mass >= p - 1e-12 or p == 1.0  # the crossing token is in
        smallest = min(row_probs[kept])
        assert mass - smallest < p or len(kept_set) == 1 or p == 1.0  # without the last one, short of p
        # the prefix is taken in the order of the logits (the same as the probabilities' at T > 0)
        order = sorted(range(row_alpha.size), key=lambda i: (-row_alpha[i], i))
        assert kept_set == set(order[: len(kept_set)])
        if p < 1:
            by_definition = nucleus_by_definition(row_probs, row_alpha, p)
            assert kept_set == by_definition or np.isclose(mass - smallest, p, atol=1e-12)


def test_top_p_one_keeps_every_token_even_one_of_tiny_probability():
    alpha = np.array([0.0, -800.0])  # exp(-800) underflows: its probability is 0 in float64, the token stays allowed
    assert top_p_mask(alpha, 1.0).all()


@given(logit_arrays, st.floats(0.05, 5.0), st.integers(0, 2**32 - 1))
def test_samples_are_only_kept_tokens(alpha, temperature, seed):
    k = max(1, alpha.shape[-1] // 2)
    tokens = sample_tokens(alpha, temperature, top_k=k, top_p=0.9, rng=seed)
    assert tokens.shape == alpha.shape[:-1]
    allowed = next_token_distribution(alpha, temperature, top_k=k, top_p=0.9) > 0
    assert np.all(np.take_along_axis(allowed, np.asarray(tokens)[..., None], axis=-1))


def test_samples_follow_the_distribution():
    alpha = np.log([0.1, 0.4, 0.2, 0.3])
    draws = sample_tokens(np.broadcast_to(alpha, (40_000, 4)), 1.0, rng=1)  # (40000,)
    shares = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(shares, [0.1, 0.4, 0.2, 0.3], atol=0.01)  # 4 standard errors: about 0.0098 at most
    assert sample_tokens(alpha, 1.0, rng=5) == sample_tokens(alpha, 1.0, rng=5)  # seeded: reproducible


def test_banned_tokens_and_inputs_left_alone():
    alpha = np.array([[1.0, -np.inf, 0.5], [-np.inf, 2.0, 2.0]])
    before = alpha.copy()
    p = next_token_distribution(alpha, np.inf)
    np.testing.assert_allclose(p, [[0.5, 0, 0.5], [0, 0.5, 0.5]])
    assert np.array_equal(greedy_tokens(alpha), [0, 1])
    np.testing.assert_array_equal(alpha, before)


# --- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: next_token_distribution([1.0, 2.0], -0.5), "temperature must be a number >= 0"),
        (lambda: next_token_distribution([1.0, 2.0], float("nan")), "temperature must be a number >= 0"),
        (lambda: next_token_distribution([1.0, 2.0], top_k=0), "top_k must be an integer >= 1"),
        (lambda: next_token_distribution([1.0, 2.0], top_k=3), "top_k must be an integer >= 1 and <= 2, got 3"),
        (lambda: next_token_distribution([1.0, 2.0], top_k=1.5), "top_k must be an integer"),
        (lambda: next_token_distribution([1.0, 2.0], top_p=0.0), r"top_p must be a number in \(0, 1\]"),
        (lambda: next_token_distribution([1.0, 2.0], top_p=1.2), r"top_p must be a number in \(0, 1\]"),
        (lambda: next_token_distribution([1.0, 2.0], top_p=float("nan")), r"top_p must be a number in \(0, 1\]"),
        (lambda: next_token_distribution([1.0, 2.0], top_p=True), r"top_p must be a number"),
        (lambda: next_token_distribution(np.zeros((2, 0))), "empty vocabulary"),
        (lambda: next_token_distribution([1.0, float("nan")]), "logits must not contain NaN"),
        (lambda: next_token_distribution([-np.inf, -np.inf]), "every logit -inf"),
        (lambda: sample_tokens([1.0, 2.0], 0.0, top_k=5), "top_k must be an integer >= 1 and <= 2"),
        (lambda: sample_tokens([1.0, 2.0], 1.0, rng="seed"), "rng must be None, an integer seed"),
        (lambda: greedy_tokens("abc"), "logits must be an array of numbers"),
    ],
)
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()
