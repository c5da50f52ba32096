"""Notebook 09's exercise checks: the reference answers pass (and agree with the library), and each catalogue
entry, a function a student plausibly writes instead, is rejected and named where the check names it."""

import numpy as np
import pytest
import torch
from helpers import garbage_test, load_solution, raises, stub_test, text

from attention_lab import exercises as ex
from attention_lab import next_token_distribution, softmax


@pytest.fixture(scope="module")
def nb09():
    return load_solution("notebook_09")


FUNCTION_CHECKS = [ex.check_top_p, ex.check_reheat, ex.check_kv_cache_bytes, ex.check_cached_step, ex.check_window_mask]


def test_reference_answers_pass(nb09):
    assert ex.check_top_p(nb09.top_p).passed
    assert ex.check_reheat(nb09.reheat).passed
    assert ex.check_kv_cache_bytes(nb09.kv_cache_bytes_per_token).passed
    assert ex.check_window_mask(nb09.window_mask).passed
    assert ex.check_cached_step(nb09.cached_step).passed
    assert ex.check_cross_attention_cache(nb09.CROSS_ATTENTION_CACHE).passed


def test_reference_answers_agree_with_the_library(nb09):
    rng = np.random.default_rng(8)
    for _ in range(20):
        alpha = rng.normal(size=9) * 2
        p = softmax(alpha)
        for p_top in (0.2, 0.5, 0.9, 1.0):
            np.testing.assert_allclose(nb09.top_p(p, p_top), next_token_distribution(alpha, top_p=p_top), atol=1e-12)
        for temperature in (0.3, 2.0):
            np.testing.assert_allclose(
                nb09.reheat(p, temperature), next_token_distribution(alpha, temperature), atol=1e-12
            )


def test_the_memory_formula_is_what_the_library_holds(nb09):
    from attention_lab.nn import CharTransformer

    torch.manual_seed(0)
    net = CharTransformer(7, 16, d_model=24, num_heads=3, num_layers=3, d_ff=32)
    with torch.no_grad():
        _, cache = net.step(torch.randint(0, 7, (1, 5)))
    assert cache.nbytes() == 5 * nb09.kv_cache_bytes_per_token(3, 24, 3, 4)


def test_a_window_as_long_as_the_sequence_is_the_causal_mask(nb09):
    from attention_lab.nn import causal_mask

    assert np.array_equal(nb09.window_mask(7, 7), causal_mask(7).numpy())
    assert np.array_equal(nb09.window_mask(7, 1), np.eye(7, dtype=bool))


# --- top-p ---------------------------------------------------------------------------------------------------


def nucleus(keep_rule, renormalise=True, order=lambda p: np.argsort(-p, kind="stable"), unsort=True):
    def top_p(probs, p_top):
        idx = order(probs)
        ranked = probs[idx]
        keep_sorted = keep_rule(np.cumsum(ranked), ranked, p_top)
        if not unsort:
            kept = np.where(keep_sorted, ranked, 0.0)
            return kept / kept.sum()
        keep = np.zeros(probs.size, dtype=bool)
        keep[idx] = keep_sorted
        kept = np.where(keep, probs, 0.0)
        return kept / kept.sum() if renormalise else kept

    return top_p


def own_probability(probs, p_top):
    kept = np.where(probs >= p_top, probs, 0.0)
    return kept / kept.sum()


def by_count(probs, p_top):
    keep = np.zeros(probs.size, dtype=bool)
    keep[np.argsort(-probs, kind="stable")[: max(1, round(p_top * probs.size))]] = True
    return np.where(keep, probs, 0.0) / probs[keep].sum()


def searchsorted_plus_one(probs, p_top):  # "the index where the sum reaches p, plus one": one too many at equality
    order = np.argsort(-probs, kind="stable")
    cut = np.searchsorted(np.cumsum(probs[order]), p_top, side="right") + 1
    keep = np.zeros(probs.size, dtype=bool)
    keep[order[:cut]] = True
    return np.where(keep, probs, 0.0) / probs[keep].sum()


def argmax_count(probs, p_top):  # right, except where the float sum of the probabilities falls short of p_top = 1
    order = np.argsort(-probs, kind="stable")
    n = np.argmax(np.cumsum(probs[order]) >= p_top) + 1
    kept = np.zeros_like(probs)
    kept[order[:n]] = probs[order[:n]]
    return kept / kept.sum()


TOP_P = [  # (a student's top_p, the words its first message must contain)
    (argmax_count, "never reaches 1"),
    (nucleus(lambda c, r, p: c <= p), "one token too few"),
    (nucleus(lambda c, r, p: c < p), "one token too few"),
    (nucleus(lambda c, r, p: c - r <= p), "one token too many"),
    (searchsorted_plus_one, "one token too many"),
    (nucleus(lambda c, r, p: c - r < p, renormalise=False), "sums to less than 1"),
    (nucleus(lambda c, r, p: c - r < p, order=np.argsort), "least likely token up"),
    (nucleus(lambda c, r, p: c - r < p, unsort=False), "sorted order"),
    (own_probability, "own probability is at least p_top"),
    (by_count, "fixed share p_top"),
    (nucleus(lambda c, r, p: c - r < p, order=lambda p: np.argsort(p, kind="stable")[::-1]), "ties"),
    (nucleus(lambda c, r, p: c - r < p, order=lambda p: np.argsort(-np.round(p, 6), kind="stable")), "not the nucleus"),
    (lambda probs, p: probs, "not the nucleus"),
    (lambda probs, p: nucleus(lambda c, r, q: c - r < q)(probs, p)[None, :], "shape"),
]


@pytest.mark.parametrize(("fn", "words"), TOP_P, ids=[str(i) for i in range(len(TOP_P))])
def test_top_p_check_names_each_mistake(fn, words):
    feedback = ex.check_top_p(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)
    assert "cumsum" not in " ".join(feedback.messages)  # the first step never hands over the fix


# --- reheat --------------------------------------------------------------------------------------------------


def power_then_normalise(p, temperature):  # right in exact arithmetic; underflows to 0 / 0 at T = 0.001
    w = p ** (1 / temperature)
    return w / w.sum()


REHEAT = [
    (lambda p, t: p**t / np.sum(p**t), "power T"),
    (lambda p, t: p ** (1 / t), "does not sum to 1"),
    (lambda p, t: softmax(p / t), "probabilities as logits"),
    (lambda p, t: p / t / np.sum(p / t), "gives p back"),
    (lambda p, t: np.log(p) / t, "tempered logits"),
    (lambda p, t: softmax(-np.log(p) / t), "sign of the logits"),
    (power_then_normalise, "NaN or inf"),
    (lambda p, t: np.exp(np.log(p) / t) / np.exp(np.log(p) / t).sum(), "NaN or inf"),
    (lambda p, t: softmax(np.log(p) * t), "power T"),  # = p^T / sum p^T
    (lambda p, t: softmax(np.log(p + 1e-9) / t), "not the distribution at this temperature"),
]


@pytest.mark.parametrize(("fn", "words"), REHEAT, ids=[str(i) for i in range(len(REHEAT))])
def test_reheat_check_names_each_mistake(fn, words):
    feedback = ex.check_reheat(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)
    assert "z.max()" not in " ".join(feedback.messages)


# --- the cache's memory --------------------------------------------------------------------------------------

KV = [
    (lambda n, d, h, b: n * d * b, "keys only"),
    (lambda n, d, h, b: 2 * n * d * h * b, "grows with the number of heads"),
    (lambda n, d, h, b: 2 * n * d / h * b, "one head's share"),
    (lambda n, d, h, b: 2 * d * b, "one layer's cache"),
    (lambda n, d, h, b: 2 * n * d, "count of numbers"),
    (lambda n, d, h, b: 3 * n * d * b, "queries too"),
    (lambda n, d, h, b: 2 * n * (d // h) * b, "one head's share"),
    (lambda n, d, h, b: 2 * (n + 1) * d * b, "gives"),  # a layer too many (the embedding counted)
    (lambda n, d, h, b: [2 * n * d * b], "shape"),
]


@pytest.mark.parametrize(("fn", "words"), KV, ids=[str(i) for i in range(len(KV))])
def test_kv_cache_bytes_check_names_each_mistake(fn, words):
    feedback = ex.check_kv_cache_bytes(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)


# --- the sliding window ----------------------------------------------------------------------------------------


def band(low, high, dtype=bool):
    def window_mask(n, window):
        offset = np.arange(n)[:, None] - np.arange(n)[None, :]
        return ((offset >= low(window)) & (offset <= high(window))).astype(dtype)

    return window_mask


WINDOW = [
    (band(lambda w: 0, lambda w: w), "one key too many"),
    (lambda n, w: np.triu(np.tril(np.ones((n, n))), -w), "one key too many"),
    (band(lambda w: -(w - 1), lambda w: w - 1), "both sides"),
    (lambda n, w: np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]) < w, "both sides"),
    (band(lambda w: -(w - 1), lambda w: 0), "points into the future"),
    (lambda n, w: np.tril(np.ones((n, n), dtype=bool)), "plain causal mask"),
    (band(lambda w: 1, lambda w: w), "does not read its own key"),
    (lambda n, w: ~band(lambda w: 0, lambda w: w - 1)(n, w), "may NOT read"),
    (lambda n, w: np.tril(np.ones((n, n))) * (np.arange(n)[None, :] >= n - w), "same for every query"),
    (lambda n, w: np.where(band(lambda w: 0, lambda w: w - 1)(n, w), 0.0, -np.inf), "additive float mask"),
    (lambda n, w: np.tril(np.ones((n, n)), -w), "which keys j should be True"),
    (lambda n, w: band(lambda w: 0, lambda w: w - 1)(n + 1, w), "shape"),
]


@pytest.mark.parametrize(("fn", "words"), WINDOW, ids=[str(i) for i in range(len(WINDOW))])
def test_window_mask_check_names_each_mistake(fn, words):
    feedback = ex.check_window_mask(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)
    assert "offset" not in " ".join(feedback.messages)


def test_window_masks_as_floats_and_tensors_pass(nb09):
    assert ex.check_window_mask(band(lambda w: 0, lambda w: w - 1, dtype=float)).passed
    assert ex.check_window_mask(lambda n, w: torch.ones(n, n, dtype=torch.bool).tril().triu(-(w - 1))).passed


CATALOGUES = {
    "check_top_p": TOP_P,
    "check_reheat": REHEAT,
    "check_kv_cache_bytes": KV,
    "check_window_mask": WINDOW,
}


# --- the prediction --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "words"), [("A", "causal mask"), ("b", "its keys"), (" d) ", "appended")])
def test_a_wrong_prediction_is_explained_for_its_option_only(answer, words):
    feedback = ex.check_cross_attention_cache(answer)
    assert not feedback.passed and feedback.attempted and words in text(feedback)
    assert len(feedback.messages) == 1 and "encoder's output E" not in text(feedback)
    assert ex.check_cross_attention_cache("c)").passed


@pytest.mark.parametrize("answer", [42, ["B", "C"], "B and C", "", b"B", 1.5, "E"])
def test_prediction_garbage_gets_feedback(answer):
    feedback = ex.check_cross_attention_cache(answer)
    assert not feedback.passed and feedback.messages


# --- stubs and garbage ------------------------------------------------------------------------------------


test_stubs_are_not_attempted = stub_test(FUNCTION_CHECKS, [ex.check_cross_attention_cache])

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
    raises,
    42,
    "not a function",
]
test_garbage_gets_feedback_never_an_exception = garbage_test(FUNCTION_CHECKS, GARBAGE)


# --- exercise 3: the cached attention step ----------------------------------------------------------------------


def _sm(a):
    e = np.exp(a - a.max())
    return e / e.sum()


def _grown(out_of):
    """A step that appends k and v once and computes its output with ``out_of(q, k, v, K, V)``."""

    def step(q, k, v, K_cache, V_cache):
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
        return out_of(q, k, v, K, V), K, V

    return step


def returns_new_value(q, k, v, K_cache, V_cache):
    return v, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def forgets_to_append(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _sm(K @ q / np.sqrt(len(q))) @ V, K_cache, V_cache


def appends_twice(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k, k]), np.vstack([V_cache, v, v])
    return _sm(K @ q / np.sqrt(len(q))) @ V, K, V


def prepends(q, k, v, K_cache, V_cache):
    K, V = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _sm(K @ q / np.sqrt(len(q))) @ V, K, V


def attends_to_the_new_key_twice(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _sm(np.vstack([K, k]) @ q / np.sqrt(len(q))) @ np.vstack([V, v]), K, V


def returns_only_the_output(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _sm(K @ q / np.sqrt(len(q))) @ V


def flat_caches(q, k, v, K_cache, V_cache):
    return v, np.concatenate([K_cache.ravel(), k]), np.concatenate([V_cache.ravel(), v])


CACHED = [  # (a cached step a student plausibly writes, the words its first message must contain)
    (returns_new_value, "its own new value v"),
    (forgets_to_append, "not appended"),
    (appends_twice, "appended more than once"),
    (prepends, "in order"),
    (attends_to_the_new_key_twice, "read twice"),
    (returns_only_the_output, "three things"),
    (flat_caches, "Along which axis"),
    (_grown(lambda q, k, v, K, V: _sm(K @ q) @ V), "not scaled"),
    (_grown(lambda q, k, v, K, V: _sm(K @ q / len(q)) @ V), "d_k itself"),
    (_grown(lambda q, k, v, K, V: _sm(K @ q / np.sqrt(len(K))) @ V), "number of cached positions"),
    (
        _grown(lambda q, k, v, K, V: (lambda e: (e / e.sum(1, keepdims=True))[:, 0] @ V)(np.exp(K @ q / 2)[:, None])),
        "axis of length 1",
    ),
    (_grown(lambda q, k, v, K, V: _sm(K @ k / np.sqrt(len(q))) @ V), "new key k"),
    (_grown(lambda q, k, v, K, V: _sm(K @ q / np.sqrt(len(q))) @ K), "average the keys"),
    (_grown(lambda q, k, v, K, V: _sm(K[:-1] @ q / np.sqrt(len(q))) @ V[:-1] if len(K) > 1 else v), "not itself"),
]


@pytest.mark.parametrize(("fn", "words"), CACHED, ids=[str(i) for i in range(len(CACHED))])
def test_cached_step_check_names_each_mistake(fn, words):
    feedback = ex.check_cached_step(fn)
    assert not feedback.passed and feedback.attempted and words in text(feedback), text(feedback)


def test_the_cached_step_equals_the_full_causal_pass(nb09):
    """The reference, run from an empty cache, is the masked attention over the whole sequence; and the library
    model's cached step is the full pass too (section 5 of the notebook checks it on the trained model)."""
    from attention_lab.exercises.notebook_09 import causal_attention

    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(7, 5)), rng.normal(size=(7, 5)), rng.normal(size=(7, 2))
    K_cache, V_cache, outs = np.zeros((0, 5)), np.zeros((0, 2)), []
    for t in range(7):
        out, K_cache, V_cache = nb09.cached_step(Q[t], K[t], V[t], K_cache, V_cache)
        outs.append(out)
    weights = softmax(np.where(np.tri(7, dtype=bool), Q @ K.T / np.sqrt(5), -np.inf))
    np.testing.assert_allclose(np.stack(outs), weights @ V)
    np.testing.assert_allclose(causal_attention(Q, K, V), weights @ V)


CATALOGUES["check_cached_step"] = CACHED
