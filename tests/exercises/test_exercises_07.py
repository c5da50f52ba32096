"""The exercise checks of notebook 07: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""

import math

import numpy as np
import pytest
import torch
from helpers import garbage_test, load_solution, raises, stub_test, text

from attention_lab import exercises as ex


@pytest.fixture(scope="module")
def nb07():
    return load_solution("notebook_07")


FUNCTION_CHECKS = [ex.check_self_attention, ex.check_head_score_variance, ex.check_split_heads]


def test_reference_answers_pass(nb07):
    assert ex.check_self_attention(nb07.self_attention).passed
    assert ex.check_causal_influence(nb07.TWO_CAUSAL_LAYERS, nb07.ONE_WINDOW_LAYER, nb07.TWO_WINDOW_LAYERS).passed
    assert ex.check_head_score_variance(nb07.head_score_variance).passed
    assert ex.check_split_heads(nb07.split_heads).passed
    assert ex.check_tempting_reshape(nb07.POSITIONS_IN_HEAD_0).passed


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


test_stubs_are_not_attempted = stub_test(FUNCTION_CHECKS, [])


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


test_garbage_gets_feedback_never_an_exception = garbage_test(FUNCTION_CHECKS, GARBAGE)


def test_nan_answers_are_named_as_nan():
    assert "NaN" in text(ex.check_self_attention(lambda *a: np.full((5, 2), np.nan)))
    assert "NaN" in text(ex.check_head_score_variance(lambda *a: float("nan")))
    assert "boom" in text(ex.check_split_heads(raises))


# --- typical mistakes, each with its own hint ------------------------------------------------------------


def _torch_changed(layers, mask):
    """Positions whose output moves when token 2 moves, with torch's own MultiheadAttention (independent)."""
    torch.manual_seed(0)
    x = torch.randn(1, 6, 4, dtype=torch.float64)
    x2 = x.clone()
    x2[0, 2] += 1.0
    stack = [torch.nn.MultiheadAttention(4, 1, batch_first=True, dtype=torch.float64) for _ in range(layers)]
    out, out2 = x, x2
    for layer in stack:  # residual layers x + Attention(x); torch's float mask adds -inf where attention is forbidden
        out = out + layer(out, out, out, attn_mask=mask, need_weights=False)[0]
        out2 = out2 + layer(out2, out2, out2, attn_mask=mask, need_weights=False)[0]
    return [i for i in range(6) if (out - out2)[0, i].abs().max() > 1e-9]


def test_the_causal_influence_is_computed_by_running_the_models():
    offset = torch.arange(6)[:, None] - torch.arange(6)[None, :]  # i - j
    forbidden = lambda window: torch.where((offset >= 0) & (offset < window), 0.0, -torch.inf).double()  # noqa: E731
    answers = _torch_changed(2, forbidden(6)), _torch_changed(1, forbidden(2)), _torch_changed(2, forbidden(2))
    assert answers == ([2, 3, 4, 5], [2, 3], [2, 3, 4])
    assert ex.check_causal_influence(*answers).passed


@pytest.mark.parametrize(
    ("answers", "hint"),
    [
        (([0, 1, 2, 3, 4, 5], [2, 3], [2, 3, 4]), "stacking does not send information backwards"),
        (([3, 4, 5], [2, 3], [2, 3, 4]), "its own key"),
        (([2, 3], [2, 3], [2, 3, 4]), "with a positive weight"),
        (([2, 3, 4, 5], [2, 3, 4, 5], [2, 3, 4]), "as far as its mask"),
        (([2, 3, 4, 5], [2, 3], [2, 3]), "directly or through an earlier layer"),
        (([2, 3, 4, 5], [1, 2, 3], [2, 3, 4]), "Query i < 2 attends only"),
        ((["2"], [2], [2]), "whole numbers"),
        (([7], [2], [2]), "count from 0 to 5"),
        (("2345", [2], [2]), "a list of positions"),
    ],
)
def test_causal_influence_mistakes_are_named(answers, hint):
    feedback = ex.check_causal_influence(*answers)
    assert not feedback.passed and hint in text(feedback), text(feedback)


def test_causal_influence_accepts_any_collection_and_reads_stubs_as_not_attempted():
    assert ex.check_causal_influence({5, 4, 3, 2}, np.arange(2, 4), (2.0, 3.0, 4.0)).passed
    assert not ex.check_causal_influence(..., [2], [2]).attempted
    assert not ex.check_causal_influence([2], [2], None).attempted


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        ([0, 1, 2, 3], "what the right split gives"),
        ([0], "Whose are they"),
        ([0, 2], "Whose are they"),
        (None, "Replace the"),
        (0, "a list of positions"),
    ],
)
def test_tempting_reshape_mistakes_are_named(answer, hint):
    feedback = ex.check_tempting_reshape(answer)
    assert not feedback.passed and hint in text(feedback), text(feedback)


def test_tempting_reshape_answer_is_what_numpy_does():
    x = np.arange(24.0).reshape(1, 4, 6)  # feature f of position i holds 6 i + f
    head_0 = x.reshape(1, 2, 4, 3)[0, 0]
    assert sorted({int(v) // 6 for v in head_0.ravel()}) == [0, 1]
    assert ex.check_tempting_reshape([1, 0]).passed


VARIANCE = [  # (a student's formula, the words its first message must contain)
    (lambda d, h, s: d * s**4, "own d_k"),
    (lambda d, h, s: d / h * s**2, "in terms of the two variances"),
    (lambda d, h, s: math.sqrt(d / h) * s**2, "standard deviation"),
    (lambda d, h, s: d / h, "Right for sigma = 1"),
    (lambda d, h, s: d * s**2, "Two things"),
    (lambda d, h, s: 1.0, "variances of independent terms"),
    (lambda d, h, s: np.ones(3), "one number"),
    (lambda d, h, s: h * s**4, None),
    (lambda d, h, s: (d / h) ** 2 * s**4, None),
]


def _split(x, h):  # the right split, for the variants below
    return x.reshape(x.shape[0], x.shape[1], h, -1).transpose(0, 2, 1, 3)


SPLIT = [
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1), "another order"),
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), "mixes positions"),
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], -1, h).transpose(0, 3, 1, 2), "strided"),
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1) * 2, "Right shape, wrong entries"),
    (lambda x, h: x, "(b, num_heads, n, d_k)"),
    (lambda x, h: np.stack(np.split(x, h, axis=-1), axis=2), "another order"),
    (lambda x, h: _split(x, h)[:, ::-1], "Right shape, wrong entries"),
    (lambda x, h: _split(x, h).transpose(0, 1, 3, 2), "(b, num_heads, n, d_k)"),
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1).swapaxes(1, 3), "(b, num_heads, n, d_k)"),
]
CATALOGUES = {"check_head_score_variance": VARIANCE, "check_split_heads": SPLIT}


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
