"""The exercise checks of notebook 07: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""

import math

import numpy as np
import pytest
import torch
from conftest import load_solution, raises, stub, text

from attention_lab import exercises as ex
from attention_lab import softmax


@pytest.fixture(scope="module")
def nb07():
    return load_solution("notebook_07")


FUNCTION_CHECKS = [ex.check_self_attention, ex.check_causal_weights, ex.check_head_score_variance,
                   ex.check_split_heads]


def test_reference_answers_pass(nb07):
    assert ex.check_self_attention(nb07.self_attention).passed
    assert ex.check_causal_weights(nb07.causal_weights).passed
    assert ex.check_head_score_variance(nb07.head_score_variance).passed
    assert ex.check_split_heads(nb07.split_heads).passed
    assert ex.check_no_position_prediction(nb07.PREDICTED_EXACT_MATCH_WITHOUT_POSITIONS).passed


def test_the_variance_formula_is_right_by_simulation(nb07):
    """The reference derivation against an independent Monte Carlo estimate."""
    rng = np.random.default_rng(0)
    for d_model, heads, sigma in ((32, 4, 1.0), (48, 3, 0.7)):
        d_k = d_model // heads
        q, k = rng.normal(0, sigma, size=(2, 200_000, d_k))
        simulated = np.var((q * k).sum(axis=1))
        assert simulated == pytest.approx(nb07.head_score_variance(d_model, heads, sigma), rel=0.03)


def test_split_heads_reference_matches_the_library(nb07):
    from attention_lab.nn import MultiHeadAttention

    x = torch.randn(2, 5, 12)
    np.testing.assert_allclose(nb07.split_heads(x.numpy(), 3), MultiHeadAttention(12, 3).split_heads(x).numpy())


@pytest.mark.parametrize("check", FUNCTION_CHECKS + [ex.check_no_position_prediction])
def test_stubs_are_not_attempted(check):
    for answer in ((stub, ..., None) if check in FUNCTION_CHECKS else (..., None)):
        feedback = check(answer)
        assert not feedback.passed and not feedback.attempted


GARBAGE = [
    lambda *a: None,
    lambda *a: "text",
    lambda *a: {"a": 1},
    lambda *a: np.full((6, 6), np.nan),
    lambda *a: np.full((6, 6), np.inf),
    lambda *a: np.zeros((2, 2, 2, 2, 2)),
    lambda *a: np.ones((5, 2)) * 1j,
    lambda *a: torch.ones(6, 6, requires_grad=True),
    lambda *a: [[1, 2], [3]],
    lambda *a: True,
    raises,
    42,
    "not a function",
]


@pytest.mark.parametrize("check", FUNCTION_CHECKS)
@pytest.mark.parametrize("answer", GARBAGE)
def test_garbage_gets_feedback_never_an_exception(check, answer):
    feedback = check(answer)
    assert not feedback.passed
    assert feedback.messages and all(isinstance(m, str) and m for m in feedback.messages)


def test_nan_answers_are_named_as_nan():
    assert "NaN" in text(ex.check_causal_weights(lambda *a: np.full((6, 6), np.nan)))
    assert "NaN" in text(ex.check_self_attention(lambda *a: np.full((5, 2), np.nan)))
    assert "NaN" in text(ex.check_head_score_variance(lambda *a: float("nan")))
    assert "boom" in text(ex.check_split_heads(raises))


@pytest.mark.parametrize("answer", [None, ..., "0.1", {"p": 0}, [0.1, 0.2], float("nan"), float("inf"), -0.2, 1.5e9,
                                    1j, torch.tensor(0.0, requires_grad=True), stub, np.array([[0.0]])])
def test_prediction_garbage_gets_feedback(answer):
    feedback = ex.check_no_position_prediction(answer)
    assert isinstance(text(feedback), str)
    if answer is not None and answer is not ...:
        assert feedback.messages


# --- typical mistakes, each with its own hint ------------------------------------------------------------

def softmax_rows(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(("answer", "hint"), [
    (lambda X, Wq, Wk, Wv: softmax_rows(X @ Wq @ (X @ Wk).T) @ X @ Wv, "divide Q K^T by sqrt(d_k)"),
    (lambda X, Wq, Wk, Wv: softmax_rows(X @ Wq @ (X @ Wk).T / 2) @ X @ Wv, "sqrt(d_model)"),
    (lambda X, Wq, Wk, Wv: softmax(X @ Wq @ (X @ Wk).T / math.sqrt(3), axis=0) @ X @ Wv, "normalised the columns"),
    (lambda X, Wq, Wk, Wv: softmax_rows(X @ Wk @ (X @ Wq).T / math.sqrt(3)) @ X @ Wv, "not K Q^T"),
    (lambda X, Wq, Wk, Wv: softmax_rows(X @ Wq @ (X @ Wk).T / math.sqrt(3)), "weight matrix"),
    (lambda X, Wq, Wk, Wv: softmax_rows(X @ Wq @ (X @ Wk).T / math.sqrt(3)) @ X, "averages X itself"),
    (lambda X, Wq, Wk, Wv: np.ones((5, 3)), "(5, 2)"),
])
def test_self_attention_mistakes(answer, hint):
    feedback = ex.check_self_attention(answer)
    assert not feedback.passed and hint in text(feedback), text(feedback)


def masked(scores, allowed):
    return softmax(scores, mask=allowed)


LOWER = np.tril(np.ones((6, 6), dtype=bool))


@pytest.mark.parametrize(("answer", "hint"), [
    (softmax_rows, "No mask"),
    (lambda s: masked(s, LOWER.T), "transposed"),
    (lambda s: masked(s, np.tril(np.ones((6, 6), dtype=bool), k=-1)), "diagonal must stay allowed"),
    (lambda s: np.where(LOWER, softmax_rows(s), 0.0), "after the softmax"),
    (lambda s: softmax_rows(np.where(np.tril(np.ones((6, 6), dtype=bool), k=-1), s, -np.inf)), "NaN"),
    (lambda s: masked(s / 2, LOWER), "not a softmax of the allowed"),
    (lambda s: np.ones((6, 5)), "(6, 6)"),
])
def test_causal_mistakes(answer, hint):
    with np.errstate(invalid="ignore"):
        feedback = ex.check_causal_weights(answer)
    assert not feedback.passed and hint in text(feedback), text(feedback)


@pytest.mark.parametrize(("answer", "hint"), [
    (lambda d, h, s: d * s**4, "own d_k"),
    (lambda d, h, s: d / h * s**2, "product of the two variances"),
    (lambda d, h, s: math.sqrt(d / h) * s**2, "standard deviation"),
    (lambda d, h, s: d / h, "Right for sigma = 1"),
    (lambda d, h, s: d * s**2, "Two things"),
    (lambda d, h, s: 1.0, "variances of independent terms"),
    (lambda d, h, s: np.ones(3), "one number"),
])
def test_variance_mistakes(answer, hint):
    feedback = ex.check_head_score_variance(answer)
    assert not feedback.passed and hint in text(feedback), text(feedback)


@pytest.mark.parametrize(("answer", "hint"), [
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1), "Swap axes 1 and 2"),
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), "mixes positions"),
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], -1, h).transpose(0, 3, 1, 2), "strided"),
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1) * 2, "Right shape, wrong entries"),
    (lambda x, h: x, "(b, num_heads, n, d_k)"),
])
def test_split_heads_mistakes(answer, hint):
    feedback = ex.check_split_heads(answer)
    assert not feedback.passed and hint in text(feedback), text(feedback)


@pytest.mark.parametrize(("prediction", "passed", "hint"), [
    (0.0, True, "permutation-equivariant"),
    (0.01, True, "4! * 2^4"),
    (np.float32(0.03), True, "next cell"),
    (0.5, False, "Too optimistic"),
    (1.0, False, "Too optimistic"),
    (30, False, "fraction between 0 and 1"),
    (-0.1, False, "between 0 and 1"),
    (torch.tensor(0.0), True, "equivariant"),
])
def test_prediction_feedback(prediction, passed, hint):
    feedback = ex.check_no_position_prediction(prediction)
    assert feedback.passed is passed and hint in text(feedback), text(feedback)


def test_feedback_never_prints_the_expected_numbers(nb07):
    """A wrong answer's feedback must not contain the reference result's numbers."""
    rng = np.random.default_rng(70)
    X = rng.normal(size=(5, 4))
    W_q, W_k, W_v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    expected = nb07.self_attention(X, W_q, W_k, W_v)
    message = text(ex.check_self_attention(lambda *a: np.zeros((5, 2))))
    assert f"{expected[0, 0]:.3f}" not in message and f"{expected[0, 0]:.2f}" not in message
    message = text(ex.check_head_score_variance(lambda *a: 0.0))
    assert "d_k sigma^4" not in message and "sigma^4" not in message
    assert "0.0" not in text(ex.check_no_position_prediction(0.7))
