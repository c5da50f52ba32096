"""The exercise checks: reference answers pass, unfinished stubs read as not attempted, mistakes are explained."""

import numpy as np
import pytest
from helpers import load_solution, stub

from attention_lab import exercises as ex

# notebook 01's values (sugar, vitamin C, fibre of apple, orange, pear, cherry) and exercise 2's candidates
FRUIT_VALUES = np.array([[10.4, 4.6, 2.4], [9.4, 53.2, 2.4], [9.8, 4.3, 3.1], [12.8, 7.0, 2.1]])
CANDIDATES = {
    "A": FRUIT_VALUES.mean(axis=0),
    "B": np.array([10.90, 10.12, 2.45]),
    "C": np.array([11.18, 20.20, 2.14]),
    "D": np.array([9.90, 28.90, 2.40]),
    "E": np.array([13.50, 7.00, 2.10]),
}


@pytest.fixture(scope="module")
def nb01():
    return load_solution("notebook_01")


def test_reference_answers_pass(nb01):
    assert ex.check_softmax(nb01.softmax_with_temperature).passed
    assert ex.check_reachable_outputs(nb01.REACHABLE_OUTPUTS, FRUIT_VALUES, CANDIDATES).passed
    assert ex.check_scores_for_weights(nb01.SCORES_FOR_WEIGHTS, temperature=2.0).passed  # as in the notebook


@pytest.mark.parametrize(
    "check",
    [
        ex.check_softmax,
        lambda answer: ex.check_reachable_outputs(None if answer is stub else answer, FRUIT_VALUES, CANDIDATES),
    ],
)
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
        (
            lambda a, t: np.exp(a * t - (a * t).max()) / np.exp(a * t - (a * t).max()).sum(-1, keepdims=True),
            "You multiplied the scores by T",
        ),
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
    assert "weights themselves" in repr(ex.check_scores_for_weights([0.1, 0.8, 0.05, 0.05]))
    assert "order is right" in repr(ex.check_scores_for_weights([1.0, 3.0, 0.0, 0.0]))


def softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _barycentric(point):
    """The weights summing to 1 that give ``point``, by least squares (independent of the check's solve)."""
    system = np.vstack([FRUIT_VALUES.T, np.ones(4)])
    return np.linalg.lstsq(system, np.append(point, 1.0), rcond=None)[0]


def test_the_candidates_are_what_the_solution_says():
    weights = {letter: _barycentric(point) for letter, point in CANDIDATES.items()}
    np.testing.assert_allclose(weights["A"], 0.25)
    np.testing.assert_allclose(weights["B"], [0.4, 0.1, 0.2, 0.3], atol=1e-9)
    np.testing.assert_allclose(weights["C"], [0.5, 0.3, -0.2, 0.4], atol=1e-9)  # inside every range, outside the hull
    assert np.all((CANDIDATES["C"] > FRUIT_VALUES.min(0)) & (CANDIDATES["C"] < FRUIT_VALUES.max(0)))
    np.testing.assert_allclose(weights["D"], [0.5, 0.5, 0.0, 0.0], atol=1e-9)
    assert CANDIDATES["E"][0] > FRUIT_VALUES[:, 0].max()
    # a softmax gives B from the scores ln(lambda): the check's promise, computed
    np.testing.assert_allclose(softmax_rows(np.log(weights["B"])) @ FRUIT_VALUES, CANDIDATES["B"])


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        ("ABC", "Checking each coordinate's range is not enough"),
        ("ABD", "never 0 for a finite score"),
        ("ABE", "outside the range of the values"),
        ("A", "B is an output of attention"),
        (["b"], "A is an output of attention"),
        ("ABCDE", "(0.50, 0.30, -0.20, 0.40)"),
        ("ABX", "not among the candidates"),
        (3, "Answer with the letters"),
    ],
)
def test_reachable_outputs_mistakes_are_named(answer, hint):
    feedback = ex.check_reachable_outputs(answer, FRUIT_VALUES, CANDIDATES)
    assert not feedback.passed and hint in " ".join(feedback.messages), feedback


@pytest.mark.parametrize("answer", ["AB", "ba", ["A", "B"], {"B", "A"}, "A, B"])
def test_reachable_outputs_accepts_any_spelling_of_the_answer(answer):
    assert ex.check_reachable_outputs(answer, FRUIT_VALUES, CANDIDATES).passed


def test_reachable_outputs_never_raises_on_odd_inputs():
    for values, candidates in [
        (None, CANDIDATES),
        (FRUIT_VALUES, None),
        (np.zeros((4, 3)), CANDIDATES),
        (FRUIT_VALUES, {"A": "sweet"}),
    ]:
        feedback = ex.check_reachable_outputs("AB", values, candidates)
        assert not feedback.passed and feedback.messages
