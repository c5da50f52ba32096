"""The exercise checks of notebook 08: reference answers pass; a catalogue of plausible wrong implementations of
each implement-exercise is rejected with its own hint; garbage gets feedback, never an exception; no feedback
gives the answer away."""

import math

import numpy as np
import pytest
import torch
from helpers import garbage_test, load_solution, raises, stub_test, text

from attention_lab import exercises as ex
from attention_lab import next_token_distribution, softmax


@pytest.fixture(scope="module")
def nb08():
    return load_solution("notebook_08")


FUNCTION_CHECKS = [ex.check_top_p, ex.check_reheat, ex.check_kv_cache_bytes, ex.check_cached_attention]


def test_reference_answers_pass(nb08):
    assert ex.check_top_p(nb08.top_p).passed
    assert ex.check_reheat(nb08.reheat).passed
    assert ex.check_kv_cache_bytes(nb08.kv_cache_bytes_per_token).passed
    assert ex.check_cached_attention(nb08.cached_attention).passed
    assert ex.check_mask_and_cache_prediction(nb08.MASK_AND_CACHE_PREDICTION).passed


def test_reference_answers_agree_with_the_library(nb08):
    rng = np.random.default_rng(8)
    for _ in range(20):
        alpha = rng.normal(size=9) * 2
        p = softmax(alpha)
        for p_top in (0.2, 0.5, 0.9, 1.0):
            np.testing.assert_allclose(nb08.top_p(p, p_top), next_token_distribution(alpha, top_p=p_top), atol=1e-12)
        for temperature in (0.3, 2.0):
            np.testing.assert_allclose(
                nb08.reheat(p, temperature), next_token_distribution(alpha, temperature), atol=1e-12
            )


def test_the_memory_formula_is_what_the_library_holds(nb08):
    from attention_lab.nn import CharTransformer

    torch.manual_seed(0)
    net = CharTransformer(7, 16, d_model=24, num_heads=3, num_layers=3, d_ff=32)
    with torch.no_grad():
        _, cache = net.step(torch.randint(0, 7, (1, 5)))
    assert cache.nbytes() == 5 * nb08.kv_cache_bytes_per_token(3, 24, 3, 4)


def test_cached_attention_reference_matches_the_library_layer(nb08):
    """One cached step of the reference against attention over the whole prefix (al.attention, no cache)."""
    from attention_lab import attention

    rng = np.random.default_rng(3)
    K, V, q = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=4)
    out, (K2, V2) = nb08.cached_attention(q, K[:5], V[:5], K[5], V[5])
    full, _ = attention(q[None], K, V)
    np.testing.assert_allclose(out, full[0])
    np.testing.assert_array_equal(K2, K)
    np.testing.assert_array_equal(V2, V)


# --- catalogues of wrong implementations ------------------------------------------------------------------


def _top_p_by(keep_rule, *, renormalise=True, descending=True, unsort=True):
    def top_p(probs, p_top):
        order = np.argsort(-probs if descending else probs, kind="stable")
        ranked = probs[order]
        keep = np.zeros(probs.shape, dtype=bool)
        keep[order] = keep_rule(np.cumsum(ranked), ranked, p_top)
        kept = np.where(keep, probs, 0.0)
        kept = kept / kept.sum() if renormalise else kept
        return kept if unsort else kept[order]

    return top_p


def _top_p_by_count(probs, p_top):
    order = np.argsort(-probs, kind="stable")
    keep = np.zeros(probs.shape, dtype=bool)
    keep[order[: max(1, round(p_top * probs.size))]] = True
    return np.where(keep, probs, 0) / np.where(keep, probs, 0).sum()


def _top_p_own_probability(probs, p_top):
    keep = probs >= p_top
    return np.where(keep, probs, 0) / max(np.where(keep, probs, 0).sum(), 1e-300)


TOP_P_MISTAKES = [
    ("drops the crossing token (cumsum <= p)", _top_p_by(lambda c, r, p: c <= p), "drops the token that crosses"),
    ("drops the crossing token (cumsum < p)", _top_p_by(lambda c, r, p: c < p), "drops the token that crosses"),
    ("no renormalisation", _top_p_by(lambda c, r, p: c - r < p, renormalise=False), "divide by the kept mass"),
    ("least likely first", _top_p_by(lambda c, r, p: c - r < p, descending=False), "most likely down"),
    ("left in sorted order", _top_p_by(lambda c, r, p: c - r < p, unsort=False), "in sorted order"),
    ("own probability >= p", _top_p_own_probability, "its own probability reaches p_top"),
    ("a share of the tokens", _top_p_by_count, "fixed share p_top of the tokens"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), TOP_P_MISTAKES, ids=[m[0] for m in TOP_P_MISTAKES])
def test_top_p_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_top_p(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _reheat_by(formula):
    def reheat(p, temperature):
        return formula(np.asarray(p, dtype=float), temperature)

    return reheat


REHEAT_MISTAKES = [
    ("p ** T", _reheat_by(lambda p, t: p**t / np.sum(p**t)), "raised p to the power T"),
    ("not normalised", _reheat_by(lambda p, t: p ** (1 / t)), "normalise"),
    ("probabilities as logits", _reheat_by(lambda p, t: softmax(p / t)), "treated the probabilities as logits"),
    ("p / T renormalised", _reheat_by(lambda p, t: (p / t) / np.sum(p / t)), "gives p back"),
    ("no softmax", _reheat_by(lambda p, t: np.log(p) / t), "apply the softmax"),
    ("sign flipped", _reheat_by(lambda p, t: softmax(-np.log(p) / t)), "flipped the sign"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), REHEAT_MISTAKES, ids=[m[0] for m in REHEAT_MISTAKES])
def test_reheat_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_reheat(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _cached_by(step):
    def cached_attention(q, K_cache, V_cache, k_new, v_new):
        K, V = np.vstack([K_cache, k_new]), np.vstack([V_cache, v_new])
        return step(q, K_cache, V_cache, k_new, v_new, K, V), (K, V)

    return cached_attention


def _scaled(q):
    return math.sqrt(q.shape[0])


CACHED_MISTAKES = [
    (
        "forgets the new key",
        _cached_by(lambda q, Kc, Vc, k, v, K, V: softmax(Kc @ q / _scaled(q)) @ Vc),
        "must also read itself",
    ),
    ("no scaling", _cached_by(lambda q, Kc, Vc, k, v, K, V: softmax(K @ q) @ V), "divide q . k by sqrt(d_k)"),
    ("divides by d_k", _cached_by(lambda q, Kc, Vc, k, v, K, V: softmax(K @ q / q.shape[0]) @ V), "not by d_k"),
    (
        "appends k_new to the values",
        _cached_by(lambda q, Kc, Vc, k, v, K, V: softmax(K @ q / _scaled(q)) @ np.vstack([Vc, k])),
        "append v_new",
    ),
    ("no softmax", _cached_by(lambda q, Kc, Vc, k, v, K, V: (K @ q / _scaled(q)) @ V), "softmax first"),
    (
        "old values only",
        _cached_by(lambda q, Kc, Vc, k, v, K, V: softmax(K @ q / _scaled(q))[:-1] @ Vc),
        "all t + 1 values",
    ),
]


def _new_first(q, K_cache, V_cache, k_new, v_new):
    K, V = np.vstack([k_new, K_cache]), np.vstack([v_new, V_cache])
    return softmax(K @ q / _scaled(q)) @ V, (K, V)


def _cache_not_updated(q, K_cache, V_cache, k_new, v_new):
    K, V = np.vstack([K_cache, k_new]), np.vstack([V_cache, v_new])
    return softmax(K @ q / _scaled(q)) @ V, (K_cache, V_cache)


CACHED_MISTAKES += [
    ("new position first", _new_first, "*last*"),
    ("cache not updated", _cache_not_updated, "appended as a last row"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), CACHED_MISTAKES, ids=[m[0] for m in CACHED_MISTAKES])
def test_cached_attention_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_cached_attention(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


KV_MISTAKES = [
    ("keys only", lambda L, d, h, b: L * d * b, "Keys only"),
    ("times heads", lambda L, d, h, b: 2 * L * d * h * b, "not d_model"),
    ("one head", lambda L, d, h, b: 2 * L * d / h * b, "That is one head"),
    ("one layer", lambda L, d, h, b: 2 * d * b, "multiply by n_layers"),
    ("numbers not bytes", lambda L, d, h, b: 2 * L * d, "multiply by bytes_per_number"),
    ("queries too", lambda L, d, h, b: 4 * L * d * b, "Queries are not cached"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), KV_MISTAKES, ids=[m[0] for m in KV_MISTAKES])
def test_kv_cache_bytes_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_kv_cache_bytes(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


@pytest.mark.parametrize("answer", ["A", "C", "a", " c) "])
def test_wrong_predictions_get_a_hint_and_letters_are_read_leniently(answer):
    feedback = ex.check_mask_and_cache_prediction(answer)
    assert not feedback.passed and feedback.attempted and "first layer" in text(feedback).lower()
    assert ex.check_mask_and_cache_prediction("b)").passed


# --- stubs and garbage ------------------------------------------------------------------------------------


test_stubs_are_not_attempted = stub_test(FUNCTION_CHECKS, [ex.check_mask_and_cache_prediction])


GARBAGE = [
    lambda *a: "text",
    lambda *a: {"a": 1},
    lambda *a: np.full(7, np.nan),
    lambda *a: np.full(7, np.inf),
    lambda *a: np.zeros((2, 2, 2)),
    lambda *a: np.ones(7) * 1j,
    lambda *a: torch.ones(7, requires_grad=True),
    lambda *a: [[1, 2], [3]],
    lambda *a: True,
    lambda *a: (np.ones(4), "cache"),
    lambda *a: (np.ones(4), (np.ones((6, 4)), None)),
    raises,
    42,
    "not a function",
]


test_garbage_gets_feedback_never_an_exception = garbage_test(FUNCTION_CHECKS, GARBAGE)


@pytest.mark.parametrize("answer", [42, None, ["B"], "B and C", "", b"B", 1.5])
def test_prediction_garbage_gets_feedback(answer):
    feedback = ex.check_mask_and_cache_prediction(answer)
    assert not feedback.passed and feedback.messages


def test_no_feedback_prints_the_expected_numbers(nb08):
    """A wrong answer's feedback never contains the reference result's numbers."""
    expected = nb08.top_p(np.array([0.05, 0.3, 0.02, 0.25, 0.25, 0.1, 0.03]), 0.6)
    for _, fn, _ in TOP_P_MISTAKES:
        words = text(ex.check_top_p(fn))
        assert not any(f"{value:.3f}" in words for value in expected[expected > 0])
