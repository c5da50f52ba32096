"""Notebook 05's exercise checks: the reference answers pass, each typical mistake gets its own hint, unfinished
stubs read as not attempted, and no answer (garbage included) makes a check raise or reveal the answer."""

import numpy as np
import pytest
import torch
from helpers import load_solution, stub, text

from attention_lab import exercises as ex
from attention_lab import softmax


@pytest.fixture(scope="module")
def nb05():
    return load_solution("notebook_05")


def rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --- the reference answers, and right answers written differently -------------------------------------------


def test_reference_answers_pass(nb05):
    assert ex.check_additive_scores(nb05.additive_scores).passed
    assert ex.check_padded_attention(nb05.padded_attention).passed
    assert ex.check_unscaled_entropy(nb05.PREDICTED_ENTROPY, nb05.unscaled_attention_weights).passed
    assert ex.check_query_jacobian(nb05.query_jacobian).passed


def test_right_answers_offer_no_hint(nb05):
    for feedback in (
        ex.check_additive_scores(nb05.additive_scores),
        ex.check_padded_attention(nb05.padded_attention),
        ex.check_unscaled_entropy(nb05.PREDICTED_ENTROPY, nb05.unscaled_attention_weights),
        ex.check_query_jacobian(nb05.query_jacobian),
    ):
        shown = repr(feedback) + feedback._repr_markdown_() + feedback._repr_html_()
        assert feedback.passed and not any(word in shown for word in (".hint()", ".fix()", "<details>"))


def test_right_answers_in_other_forms_pass():
    assert ex.check_additive_scores(_additive_by_loops).passed
    no_transposes = ex.check_additive_scores(lambda Q, K, W_q, W_k, w_v: np.tanh(Q @ W_q + K @ W_k) @ w_v)
    assert "W_q=ndarray of shape (4, 2)" in text(no_transposes)  # a shape error, told with the call's shapes
    assert ex.check_additive_scores(_additive_by_the_library).passed

    def by_loops(q, K):  # d o_a / d q_b = sum_i k_ia lambda_i (k_ib - kbar_b), written out
        lam = rows(K @ q)
        kbar = lam @ K
        return np.array(
            [[sum(K[i, a] * lam[i] * (K[i, b] - kbar[b]) for i in range(len(K))) for b in range(3)] for a in range(3)]
        )

    assert ex.check_query_jacobian(by_loops).passed

    def with_autograd(q, K):  # autograd is allowed too: the check compares numbers
        keys = torch.tensor(K)
        return torch.autograd.functional.jacobian(lambda x: torch.softmax(keys @ x, 0) @ keys, torch.tensor(q))

    assert ex.check_query_jacobian(with_autograd).passed
    numpy_weights = lambda q, k: rows((q @ k.transpose(1, 2)).numpy())  # noqa: E731
    float32 = lambda q, k: torch.softmax(q.float() @ k.float().transpose(1, 2), dim=-1)  # noqa: E731
    assert ex.check_unscaled_entropy(0.3, float32).passed
    assert ex.check_unscaled_entropy(np.float64(0.0), numpy_weights).passed
    assert ex.check_unscaled_entropy(torch.tensor(0.2), numpy_weights).passed


def test_unfinished_stubs_are_not_attempted():
    for check in (ex.check_additive_scores, ex.check_padded_attention, ex.check_query_jacobian):
        for answer in (..., None, stub):
            feedback = check(answer)
            assert not feedback.passed and not feedback.attempted, feedback
    assert not ex.check_unscaled_entropy(..., stub).attempted
    assert not ex.check_unscaled_entropy(0.5, ...).attempted
    assert not ex.check_unscaled_entropy(0.5, stub).attempted


# --- additive scores: the catalogue of plausible wrong broadcasts is in test_exercise_mistakes.py -----------------


def _additive_by_loops(Q, K, W_q, W_k, w_v):  # a right answer with loops (allowed: the check compares numbers)
    return np.array([[sum(w_v[j] * np.tanh(W_q[j] @ q + W_k[j] @ k) for j in range(len(w_v))) for k in K] for q in Q])


def _additive_by_the_library(Q, K, W_q, W_k, w_v):
    """The library's AdditiveAttention with the given weights: an independent computation in torch."""
    from attention_lab import nn as aln

    layer = aln.AdditiveAttention(query_size=Q.shape[1], key_size=K.shape[1], num_hiddens=len(w_v)).double()
    with torch.no_grad():
        layer.W_q.weight.copy_(torch.tensor(W_q))
        layer.W_k.weight.copy_(torch.tensor(W_k))
        layer.w_v.weight.copy_(torch.tensor(w_v)[None, :])
        return layer.scores(torch.tensor(Q)[None], torch.tensor(K)[None])[0].numpy()


# --- attention over padded sequences: a catalogue of the masks students build -------------------------------------


def scores_of(q, k):
    return q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])  # (batch, n_q, n_k)


def key_mask(k, lens):
    return np.arange(k.shape[1])[None, None, :] < lens[:, None, None]  # (batch, 1, n_k)


def no_mask(q, k, v, lens):
    return rows(scores_of(q, k)) @ v


def mask_on_queries(q, k, v, lens):
    m = np.arange(q.shape[1])[None, :, None] < lens[:, None, None]  # (batch, n_q, 1)
    return softmax(scores_of(q, k), mask=np.broadcast_to(m, (q.shape[0], q.shape[1], k.shape[1]))) @ v


def less_or_equal(q, k, v, lens):
    m = np.arange(k.shape[1])[None, None, :] <= lens[:, None, None]
    return softmax(scores_of(q, k), mask=np.broadcast_to(m, scores_of(q, k).shape)) @ v


def first_length_for_all(q, k, v, lens):
    return softmax(scores_of(q, k), mask=np.broadcast_to(np.arange(k.shape[1]) < lens[0], scores_of(q, k).shape)) @ v


def zero_weights_after(q, k, v, lens):
    return (rows(scores_of(q, k)) * key_mask(k, lens)) @ v


def fill_zero(q, k, v, lens):
    return rows(np.where(key_mask(k, lens), scores_of(q, k), 0.0)) @ v


def fill_large_negative(q, k, v, lens):  # d2l's -1e6 style: right, except for a sequence with no valid key
    return rows(np.where(key_mask(k, lens), scores_of(q, k), -1e9)) @ v


def fill_minus_inf(q, k, v, lens):  # 0 / 0 = NaN for a sequence with no valid key
    return rows(np.where(key_mask(k, lens), scores_of(q, k), -np.inf)) @ v


def over_queries(q, k, v, lens):
    return softmax(scores_of(q, k), mask=np.broadcast_to(key_mask(k, lens), scores_of(q, k).shape), axis=1) @ v


def unscaled_scores(q, k, v, lens):
    return softmax(q @ k.transpose(0, 2, 1), mask=np.broadcast_to(key_mask(k, lens), scores_of(q, k).shape)) @ v


def divided_by_d(q, k, v, lens):
    s = q @ k.transpose(0, 2, 1) / q.shape[-1]
    return softmax(s, mask=np.broadcast_to(key_mask(k, lens), s.shape)) @ v


def values_zeroed(q, k, v, lens):  # the padding's values set to 0, its weights left as they are
    return rows(scores_of(q, k)) @ (v * (np.arange(k.shape[1])[None, :, None] < lens[:, None, None]))


def no_shift(q, k, v, lens):  # the mask right, exp without a shift: overflows on huge scores
    e = np.exp(scores_of(q, k)) * key_mask(k, lens)
    total = e.sum(-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0) @ v


def flipped_mask(q, k, v, lens):  # PyTorch's polarity (True = blocked) given to the course's softmax
    padding = np.arange(k.shape[1])[None, None, :] >= lens[:, None, None]
    return softmax(scores_of(q, k), mask=np.broadcast_to(padding, scores_of(q, k).shape)) @ v


def weights_only(q, k, v, lens):
    return softmax(scores_of(q, k), mask=np.broadcast_to(key_mask(k, lens), scores_of(q, k).shape))


PADDED = [  # (a student's function, the words its first message must contain)
    (no_mask, "same as with no mask"),
    (mask_on_queries, "hides queries, not keys"),
    (less_or_equal, "one key too many"),
    (first_length_for_all, "first sequence's length"),
    (zero_weights_after, "no longer sum to 1"),
    (fill_zero, "set to 0, not removed"),
    (fill_large_negative, "average of its padding values"),
    (fill_minus_inf, "NaN or inf"),
    (over_queries, "normalised over the queries"),
    (unscaled_scores, "not scaled"),
    (divided_by_d, "divided the scores by d"),
    (values_zeroed, "no longer sum to 1"),  # the same numbers as zeroing the weights afterwards
    (no_shift, "NaN or inf"),
    (weights_only, "shape"),
    (flipped_mask, "True on the padding"),
]
CATALOGUES = {"check_padded_attention": PADDED}


@pytest.mark.parametrize(("fn", "words"), PADDED, ids=[f.__name__ for f, _ in PADDED])
def test_padded_attention_check_names_each_mistake(fn, words):
    feedback = ex.check_padded_attention(fn)
    assert not feedback.passed and feedback.attempted and words in text(feedback), text(feedback)
    assert "np.arange" not in " ".join(feedback.messages)  # the first step never shows the fix


def test_padded_attention_check_covers_the_hard_cases():
    from attention_lab.exercises.notebook_05 import _padded_cases

    cases = _padded_cases()
    assert any((c.args[3] == 0).any() for c in cases)  # a sequence with no valid key: fully masked rows
    assert {c.args[0].shape[-1] for c in cases} == {2, 16}  # two scales 1/sqrt(d)
    big = cases[2].args
    assert scores_of(big[0], big[1])[:, :, 3:].max() > 1000  # padding that scores in the thousands


# --- remove the 1/sqrt(d): predict, then check ---------------------------------------------------------------


def unscaled(q, k):
    return torch.softmax(q @ k.transpose(1, 2), dim=-1)


@pytest.mark.parametrize(
    "prediction, hint",
    [
        (3.0, "between 0 (one-hot) and ln 8"),
        (-0.5, "between 0 (one-hot) and ln 8"),
        (float("nan"), "not a finite number"),
        (float("inf"), "not a finite number"),
        ("low", "not numbers"),
        ([0.1, 0.2], "one number"),
        (1 + 1j, "complex"),
        (True, "True/False"),
    ],
)
def test_unscaled_entropy_needs_a_valid_prediction_first(prediction, hint):
    feedback = ex.check_unscaled_entropy(prediction, unscaled)
    assert not feedback.passed and hint in text(feedback), feedback
    assert "mean entropy of" not in text(feedback)  # the measurement only after a prediction


UNSCALED = [  # (a student's weights, the words its first message must contain); checked with a prediction of 1
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2) / 512**0.5, dim=-1), "still the scaled weights"),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2) / 512, dim=-1), "You divided by d"),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2), dim=1), "not over the queries"),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2), dim=-1)[0], "shape (1, 200, 8)"),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2), dim=-1) / 0 * 0, "limits of float32"),
    (lambda q, k: torch.softmax(k @ q.transpose(1, 2), dim=-1), "shape (1, 200, 8)"),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2), dim=-1).flip(-1), "nothing else"),
    (lambda q, k: q @ k.transpose(1, 2), None),
    (lambda q, k: torch.softmax(q @ k.transpose(1, 2) * 512**0.5, dim=-1), None),
]
CATALOGUES["check_unscaled_entropy"] = UNSCALED  # test_catalogues passes the prediction 1.0 first


@pytest.mark.parametrize(("answer", "hint"), UNSCALED)
def test_unscaled_entropy_mistakes_are_explained_without_the_measurement(answer, hint):
    feedback = ex.check_unscaled_entropy(1.0, answer)
    assert not feedback.passed and feedback.attempted and (hint is None or hint in text(feedback)), feedback
    assert "mean entropy of" not in text(feedback)


def test_unscaled_entropy_reports_the_measurement_against_the_prediction():
    near, far = ex.check_unscaled_entropy(0.0, unscaled), ex.check_unscaled_entropy(1.8, unscaled)
    assert near.passed and not far.passed and far.attempted  # a prediction is graded like any answer (00's rule)
    assert "close" in text(near) and "too spread out" in text(far)
    assert "nats over these 200 queries" not in text(far)  # the measurement is the ladder's last step, not the first
    assert "median gap between a query's two largest scores" in far.hint()
    # the numbers it quotes are the measured ones
    g = torch.Generator().manual_seed(3)
    q = torch.randn(1, 200, 512, generator=g, dtype=torch.float64)
    k = torch.randn(1, 8, 512, generator=g, dtype=torch.float64)
    lam = unscaled(q, k).numpy()
    h = -np.sum(np.where(lam > 0, lam * np.log(np.where(lam > 0, lam, 1)), 0), axis=-1).mean()
    assert f"mean entropy of {h:.2f} nats" in text(near)
    assert h < 0.3  # nearly one-hot: the course's claim, measured


# --- d o / d q = Cov_lambda[k] ------------------------------------------------------------------------------


def weights_and_mean(q, K):
    lam = rows(K @ q)
    return lam, lam @ K


def second_moment(q, K):
    lam, _ = weights_and_mean(q, K)
    return (lam[:, None] * K).T @ K


def covariance(q, K):
    lam, kbar = weights_and_mean(q, K)
    return second_moment(q, K) - np.outer(kbar, kbar)


def uniform_covariance(q, K):
    return np.cov(K.T, bias=True)


def softmax_jacobian(q, K):
    lam, _ = weights_and_mean(q, K)
    return np.diag(lam) - np.outer(lam, lam)


JACOBIAN = [  # (a student's Jacobian, the words its first message must contain)
    (second_moment, "the part -lambda lambda^T"),
    (lambda q, K: -covariance(q, K), "sign is flipped"),
    (lambda q, K: covariance(q, K) / np.sqrt(3), "You divided by sqrt(d)"),
    (lambda q, K: np.outer(*[weights_and_mean(q, K)[1]] * 2), "term from each key itself is missing"),
    (uniform_covariance, "equal weights 1/n"),
    (lambda q, K: np.zeros((3, 3)), "does depend on q"),
    (softmax_jacobian, "softmax's Jacobian"),
    (lambda q, K: K.T @ softmax_jacobian(q, K), "One more step of the chain rule"),
    (lambda q, K: covariance(q, K) + np.triu(np.ones((3, 3)), 1), "symmetric; yours is not"),
    (lambda q, K: covariance(q, K) + 1, "chain rule"),
    (lambda q, K: covariance(q, K) / 0, "inf"),
    (lambda q, K: covariance(q, K).T @ covariance(q, K), None),
]
CATALOGUES["check_query_jacobian"] = JACOBIAN


@pytest.mark.parametrize(("answer", "hint"), JACOBIAN)
def test_query_jacobian_mistakes_are_explained(answer, hint):
    with np.errstate(divide="ignore", invalid="ignore"):
        feedback = ex.check_query_jacobian(answer)
    assert not feedback.passed and feedback.attempted and (hint is None or hint in text(feedback)), feedback
    rng = np.random.default_rng(7)
    q, K = 0.7 * rng.normal(size=3), rng.normal(size=(5, 3))
    assert f"{covariance(q, K)[0, 0]:.3f}" not in text(feedback)  # never the answer


def attention_output(keys, scale):
    """q -> softmax(keys q / scale) @ keys, in torch (values = keys)."""
    return lambda q: torch.softmax(keys @ q / scale, 0) @ keys


@pytest.mark.parametrize("d, n", [(2, 3), (4, 7), (8, 5)])
def test_the_reference_jacobian_is_autograds(d, n):
    """The closed form Cov_lambda[k] against autograd on other data than the check's (including scaled scores)."""
    rng = np.random.default_rng(d)
    q, K = rng.normal(size=d), rng.normal(size=(n, d))
    auto = torch.autograd.functional.jacobian(attention_output(torch.tensor(K), 1.0), torch.tensor(q))
    np.testing.assert_allclose(covariance(q, K), auto.numpy(), atol=1e-12)
    scaled = torch.autograd.functional.jacobian(attention_output(torch.tensor(K), d**0.5), torch.tensor(q))
    lam = rows(K @ q / d**0.5)
    kbar = lam @ K
    np.testing.assert_allclose(((lam[:, None] * K).T @ K - np.outer(kbar, kbar)) / d**0.5, scaled.numpy(), atol=1e-12)


# --- garbage never raises ------------------------------------------------------------------------------------


def raises(*args):
    raise RuntimeError("my own bug")


GARBAGE_RESULTS = [
    "text",
    {"a": 1},
    np.full((3, 5), np.nan),
    np.full((4, 4), np.inf),
    np.zeros((2, 2, 2)),
    np.ones((3, 3)) * (1 + 2j),
    torch.ones(3, 5, requires_grad=True),
    [[1, 2], [3]],
    object(),
    torch.ones(4, 4, dtype=torch.complex64),
]


@pytest.mark.parametrize("garbage", GARBAGE_RESULTS, ids=lambda g: type(g).__name__)
def test_garbage_results_get_feedback_and_never_raise(garbage):
    for feedback in (
        ex.check_additive_scores(lambda *a: garbage),
        ex.check_padded_attention(lambda *a: garbage),
        ex.check_query_jacobian(lambda *a: garbage),
        ex.check_unscaled_entropy(0.5, lambda *a: garbage),
    ):
        assert not feedback.passed and feedback.messages and "Traceback" not in text(feedback), feedback


@pytest.mark.parametrize("garbage", ["text", {"a": 1}, 3, [1, 2], raises, np.nan])
def test_garbage_answers_get_feedback_and_never_raise(garbage):
    for feedback in (
        ex.check_additive_scores(garbage),
        ex.check_padded_attention(garbage),
        ex.check_query_jacobian(garbage),
        ex.check_unscaled_entropy(0.5, garbage),
        ex.check_unscaled_entropy(garbage, unscaled),
    ):
        assert not feedback.passed and feedback.messages and "Traceback" not in text(feedback), feedback
    if garbage is raises:
        assert "my own bug" in text(ex.check_padded_attention(raises))
