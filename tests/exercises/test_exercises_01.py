"""The exercise checks: reference answers pass, unfinished stubs read as not attempted, mistakes are explained."""


import numpy as np
import pytest
from conftest import load_solution, stub

from attention_lab import exercises as ex


@pytest.fixture(scope="module")
def nb01():
    return load_solution("notebook_01")


def test_reference_answers_pass(nb01):
    assert ex.check_softmax(nb01.softmax_with_temperature).passed
    assert ex.check_weighted_average(nb01.weighted_average).passed
    assert ex.check_scores_for_weights(nb01.SCORES_FOR_WEIGHTS, temperature=2.0).passed  # as in the notebook


@pytest.mark.parametrize("check", [ex.check_softmax, ex.check_weighted_average])
def test_unfinished_stub_is_not_attempted_and_does_not_raise(check):
    feedback = check(stub)
    assert not feedback.passed and not feedback.attempted
    assert "not attempted" in feedback._repr_markdown_()
    assert not ex.check_scores_for_weights(...).attempted


def naive_softmax(alpha, temperature):
    e = np.exp(alpha / temperature)
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda a, t: naive_softmax(a - a.max(-1, keepdims=True), 1.0), "divide the scores by the temperature"),
        (lambda a, t: np.exp(a * t - (a * t).max()) / np.exp(a * t - (a * t).max()).sum(-1, keepdims=True),
         "You multiplied the scores by T"),
        (lambda a, t: np.exp(a / t) / np.exp(a / t).sum(), "each row must"),
        (lambda a, t: a / a.sum(-1, keepdims=True), "alpha / sum(alpha)"),
        (lambda a, t: np.exp(a / t), "must sum to 1"),
        (lambda a, t: naive_softmax(a, t)[..., :1], "same shape"),
        (lambda a, t: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_softmax_mistakes_are_explained(answer, expected):
    feedback = ex.check_softmax(answer)
    assert not feedback.passed and feedback.attempted
    assert expected in " ".join(feedback.messages), feedback


def test_overflow_is_explained():
    with np.errstate(over="ignore", invalid="ignore"):
        feedback = ex.check_softmax(naive_softmax)
    assert "overflows" in " ".join(feedback.messages)


def test_other_mistakes_are_explained():
    assert "plain average" in repr(ex.check_weighted_average(lambda w, v: np.broadcast_to(v.mean(0), (3, 2))))
    assert "without weighting" in repr(ex.check_weighted_average(lambda w, v: np.broadcast_to(v.sum(0), (3, 2))))
    assert "output has shape (3, 2)" in repr(ex.check_weighted_average(lambda w, v: w.T @ w))
    assert "weights themselves" in repr(ex.check_scores_for_weights([0.1, 0.8, 0.05, 0.05]))
    assert "order is right" in repr(ex.check_scores_for_weights([1.0, 3.0, 0.0, 0.0]))


def softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
