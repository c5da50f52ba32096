"""Notebook 02's exercise checks: the reference answers pass, each typical mistake gets its own hint, unfinished
stubs read as not attempted, and no answer (garbage included) makes a check raise or reveal the answer."""

import numpy as np
import pytest
import torch
from helpers import load_solution, stub

from attention_lab import exercises as ex
from attention_lab import softmax

ALPHA = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])


@pytest.fixture(scope="module")
def nb02():
    return load_solution("notebook_02")


def test_reference_answers_pass(nb02):
    assert ex.check_logsumexp(nb02.smooth_max).passed
    assert ex.check_top_k(nb02.top_k).passed
    assert ex.check_temperature_for_weight(nb02.temperature_for_half(ALPHA), ALPHA).passed
    assert ex.check_smooth_max_gap(nb02.GAP_BOUND, nb02.WORST_SCORES).passed
    assert ex.check_reinforce(nb02.reinforce).passed
    assert ex.check_positional_attention(nb02.attend_with_position).passed


def test_reference_answers_pass_in_other_forms():
    """Right answers written differently: torch numbers, a baseline, positions counted from 1, a loop."""
    assert ex.check_temperature_for_weight(torch.tensor(0.787), ALPHA).passed
    assert ex.check_smooth_max_gap(torch.tensor(0.5 * np.log(6)), [-3.0] * 6).passed

    def reinforce_with_baseline(alpha, losses, n_samples, rng):
        p = softmax(alpha)
        index = rng.choice(len(alpha), size=n_samples, p=p)
        return np.mean((losses[index] - p @ losses)[:, None] * (np.eye(len(alpha))[index] - p), axis=0)

    def reinforce_loop(alpha, losses, n_samples, rng):
        p = softmax(alpha)
        total = np.zeros(len(alpha))
        for _ in range(n_samples):
            i = rng.choice(len(alpha), p=p)
            total += losses[i] * (np.eye(len(alpha))[i] - p)
        return total / n_samples

    assert ex.check_reinforce(reinforce_with_baseline).passed
    assert ex.check_reinforce(reinforce_loop).passed
    assert ex.check_positional_attention(
        lambda a, v, b: softmax(a + b * np.arange(1, len(a) + 1)) @ v
    ).passed  # shift invariance


@pytest.mark.parametrize(
    "check", [ex.check_logsumexp, ex.check_top_k, ex.check_reinforce, ex.check_positional_attention]
)
def test_unfinished_stubs_are_not_attempted(check):
    for answer in (stub, ..., None):
        feedback = check(answer)
        assert not feedback.passed and not feedback.attempted, feedback
        assert "not attempted" in feedback._repr_markdown_()
    assert not ex.check_temperature_for_weight(..., ALPHA).attempted
    assert not ex.check_smooth_max_gap(..., ...).attempted


def hint(feedback):
    assert not feedback.passed and feedback.attempted, feedback
    return " ".join(feedback.messages)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda a, t: a.max(), "hard max"),
        (lambda a, t: (a.max() + t * np.log(np.sum(np.exp((a - a.max()) / t)))) / t, "factor T in front of the log"),
        (lambda a, t: a.max() + np.log(np.sum(np.exp((a - a.max()) / t))), "the log term needs the factor T"),
        (lambda a, t: a.max() + np.log(np.sum(np.exp(a - a.max()))), "temperature is ignored"),
        (lambda a, t: t * (a.max() + np.log(np.sum(np.exp(a - a.max())))), "did not divide the scores by T"),
        (lambda a, t: t * np.log(np.sum(np.exp((a - a.max()) / t))), "forgot to add it back"),
        (lambda a, t: a.min(), "never below the max"),
        (lambda a, t: np.array([a.max(), a.max()]), "Return one number"),
    ],
)
def test_smooth_max_mistakes_are_explained(answer, expected):
    assert expected in hint(ex.check_logsumexp(answer))


def test_smooth_max_overflow_is_explained():
    with np.errstate(over="ignore"):
        assert "overflows" in hint(ex.check_logsumexp(lambda a, t: t * np.log(np.sum(np.exp(a / t)))))


def top_k_softmax(a, k):
    chosen = np.argsort(-a)[:k]
    out = np.zeros_like(a)
    out[chosen] = softmax(a[chosen])
    return out


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda a, k: (np.argsort(np.argsort(-a)) < k).astype(float), "each gets 1/k"),
        (lambda a, k: (np.argsort(np.argsort(a)) < k) / k, "k smallest"),
        (top_k_softmax, "softmax inside"),
        (lambda a, k: np.where(np.argsort(np.argsort(-a)) < k, a, 0.0), "same weight 1/k"),
        (lambda a, k: np.ones(2), "one per score"),
        (lambda a, k: np.full(len(a), np.nan), "NaN"),
    ],
)
def test_top_k_mistakes_are_explained(answer, expected):
    assert expected in hint(ex.check_top_k(answer))


def test_temperature_direction_and_bad_temperatures():
    assert "raise T" in hint(ex.check_temperature_for_weight(0.01, ALPHA))
    assert "lower T" in hint(ex.check_temperature_for_weight(100.0, ALPHA))
    assert "must be positive" in hint(ex.check_temperature_for_weight(-1.0, ALPHA))
    assert "not a finite number" in hint(ex.check_temperature_for_weight(np.nan, ALPHA))
    assert "not numbers" in hint(ex.check_temperature_for_weight("0.7", ALPHA))
    assert "one number" in hint(ex.check_temperature_for_weight([0.7, 0.8], ALPHA))


@pytest.mark.parametrize(
    ("bound", "scores", "expected"),
    [
        (np.log(6), np.zeros(6), "at T = 1"),
        (0.5 * np.log(5), np.zeros(6), "there are n terms"),
        (np.log(6) / 0.5, np.zeros(6), "multiply by T"),
        (0.1, np.zeros(6), "larger gap than that"),
        (5.0, np.zeros(6), "No scores reach"),
        (0.5 * np.log(6), np.arange(6.0), "less than the most possible"),
        (0.5 * np.log(6), np.zeros(5), "Give 6 scores"),
        (0.5 * np.log(6), ..., "Now give n scores"),
        (0.5 * np.log(6), [np.inf] * 6, "NaN or inf"),
        (np.inf, np.zeros(6), "not a finite number"),
    ],
)
def test_smooth_max_gap_mistakes_are_explained(bound, scores, expected):
    assert expected in hint(ex.check_smooth_max_gap(bound, scores))


def reinforce_variant(kind):
    def estimate(alpha, losses, n_samples, rng):
        p = softmax(alpha)
        n = len(alpha)
        index = rng.integers(n, size=n_samples) if kind == "uniform" else rng.choice(n, size=n_samples, p=p)
        one_hot = np.eye(n)[index]
        per_sample = {
            "sign": losses[index][:, None] * (p - one_hot),
            "no log-derivative": losses[index][:, None] * one_hot,
            "grad p": (losses[index] * p[index])[:, None] * (one_hot - p),
            "uniform": losses[index][:, None] * (one_hot - p),
            "sample baseline": (losses[index] - losses[index])[:, None] * (one_hot - p),
            "sum": losses[index][:, None] * (one_hot - p) * n_samples,
        }[kind]
        return per_sample.mean(axis=0)

    return estimate


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("sign", "sign is flipped"),
        ("no log-derivative", "sampled loss alone"),
        ("grad p", "gradient of p_i"),
        ("uniform", "not uniformly"),
        ("sample baseline", "fixed before sampling"),
        ("sum", "average them"),
    ],
)
def test_reinforce_mistakes_are_explained(kind, expected):
    assert expected in hint(ex.check_reinforce(reinforce_variant(kind)))


def test_reinforce_exact_gradient_and_shapes_are_explained():
    def exact(alpha, losses, n_samples, rng):
        p = softmax(alpha)
        return p * (losses - p @ losses)

    assert "exact gradient" in hint(ex.check_reinforce(exact))
    assert "Average the per-sample" in hint(ex.check_reinforce(lambda a, losses, m, rng: np.zeros((m, len(a)))))
    assert "NaN" in hint(ex.check_reinforce(lambda a, losses, m, rng: np.full(len(a), np.nan)))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda a, v, b: softmax(a) @ (v + b * np.arange(len(a))[:, None]), "added the position to the values"),
        (lambda a, v, b: (a + b * np.arange(len(a))) @ v, "still need a softmax"),
        (lambda a, v, b: softmax(a + b * np.argsort(np.argsort(a))) @ v, "moves with the keys"),
        (lambda a, v, b: softmax(a * b * np.arange(len(a))) @ v, "beta = 0 the model must be plain"),
        (lambda a, v, b: softmax(a + b * np.arange(len(a))), "one weight per key"),
        (lambda a, v, b: np.full(v.shape[1], np.inf), "inf"),
    ],
)
def test_positional_attention_mistakes_are_explained(answer, expected):
    assert expected in hint(ex.check_positional_attention(answer))


class Raises:
    def __call__(self, *args):
        raise RuntimeError("boom")


GARBAGE = [
    None,
    "text",
    {"a": 1},
    np.nan,
    np.inf,
    1 + 2j,
    np.ones((2, 3)),
    torch.ones(3, requires_grad=True),
    torch.ones(2, dtype=torch.complex64),
    [1.0, [2.0]],
    Raises(),
]


@pytest.mark.parametrize("answer", GARBAGE, ids=lambda a: type(a).__name__)
def test_garbage_gets_feedback_never_an_exception(answer):
    as_function = [answer, lambda *args, answer=answer: answer]
    for fn in as_function:
        for check in (ex.check_logsumexp, ex.check_top_k, ex.check_reinforce, ex.check_positional_attention):
            feedback = check(fn)
            assert not feedback.passed and isinstance(feedback.messages, list) and feedback.messages
    for check in (
        lambda a: ex.check_temperature_for_weight(a, ALPHA),
        lambda a: ex.check_smooth_max_gap(a, a),
        lambda a: ex.check_smooth_max_gap(0.5 * np.log(6), a),
    ):
        feedback = check(answer)
        assert not feedback.passed and feedback.messages


def test_feedback_never_reveals_the_answers(nb02):
    secrets = [f"{nb02.temperature_for_half(ALPHA):.3f}", f"{0.5 * np.log(6):.4f}"]
    wrong = [
        ex.check_temperature_for_weight(0.3, ALPHA),
        ex.check_smooth_max_gap(0.1, np.arange(6.0)),
        ex.check_smooth_max_gap(np.log(6), np.zeros(6)),
    ]
    for feedback in wrong:
        for secret in secrets:
            assert secret not in repr(feedback), feedback
    lse_feedback = repr(ex.check_logsumexp(lambda a, t: a.max() + 0.1))
    assert f"{np.log(np.exp(1) + np.exp(2) + np.exp(3)):.4f}" not in lse_feedback
    top_feedback = repr(ex.check_top_k(lambda a, k: np.full(len(a), 0.25)))
    assert "[0.0, 1.0, 0.0, 0.0]" not in top_feedback
