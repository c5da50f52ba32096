"""The exercise checks of the start page (00) and notebook 01 that are not in test_exercises.py."""

import numpy as np
import pytest
import torch
from helpers import load_solution

from attention_lab import exercises as ex
from attention_lab.exercises.notebook_01 import HUGE_SCORES

K = np.array([[6.0, 4.0], [5.0, 8.0], [5.5, 2.0], [9.0, 3.0]])  # notebook 01's fruit keys
LABELS = ["apple", "orange", "pear", "cherry"]
NOT_TOO_SWEET = np.array([4.0, 3.0])
SCORES = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])  # notebook 00's explorer


def test_reference_answers_pass():
    assert ex.check_uniform_temperature(load_solution("notebook_00").UNIFORM_TEMPERATURE, SCORES).passed
    assert ex.check_dot_product_winner(load_solution("notebook_01").DOT_PRODUCT_WINNER, K, LABELS, NOT_TOO_SWEET).passed


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (0.0, "the other end"),
        (100.0, "at any finite T"),
        (1e300, "at any finite T"),
        (-2.0, "flips the order"),
        (float("nan"), "NaN is not a temperature"),
        ([1.0, 2.0], "Give one number"),
        ("inf", "not numbers"),
    ],
)
def test_uniform_temperature_mistakes_are_explained(answer, hint):
    feedback = ex.check_uniform_temperature(answer, SCORES)
    assert not feedback.passed and hint in " ".join(feedback.messages)
    text = " ".join(feedback.messages).replace(repr(answer), "")  # the student's own answer may be quoted
    assert "inf" not in text.replace("infinity", "").replace("np.inf is", ""), "the feedback gives the answer away"


def test_uniform_temperature_accepts_any_infinite_number():
    for answer in (np.inf, float("inf"), torch.tensor(float("inf"), requires_grad=True), np.float32("inf")):
        assert ex.check_uniform_temperature(answer, SCORES).passed


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        ("pear", "nearest key"),
        ("orange", "Compute the four dot products"),
        ("banana", "is not a box"),
        (3, "as a string"),
    ],
)
def test_dot_product_winner_mistakes_are_explained_without_the_answer(answer, hint):
    feedback = ex.check_dot_product_winner(answer, K, LABELS, NOT_TOO_SWEET)
    text = " ".join(feedback.messages)
    assert not feedback.passed and hint in text
    assert "cherry" not in text.replace("one of ['apple', 'orange', 'pear', 'cherry']", "")


def test_dot_product_winner_is_computed_not_stored():
    """The check follows the data it is given: with another query another box wins."""
    assert ex.check_dot_product_winner("orange", K, LABELS, np.array([0.0, 1.0])).passed
    assert ex.check_dot_product_winner(" Cherry ", K, LABELS, NOT_TOO_SWEET).passed


def test_uniform_temperature_huge_and_tiny_finite_temperatures_are_explained():
    """At T = 1e300 float64 shows equal weights, but the feedback still says why a finite T is not the answer."""
    huge = " ".join(ex.check_uniform_temperature(1e300, SCORES).messages)
    assert "(1 + 3.8e-300) times the smallest" in huge and "0.1667" not in huge
    tiny = " ".join(ex.check_uniform_temperature(1e-300, SCORES).messages)
    assert "over a million times the smallest" in tiny
    assert ex.check_uniform_temperature(5.0, np.ones(6)).passed  # equal scores: every T gives equal weights


# --- notebook 01, softmax: NaN is not an overflow, and no message shows the expected weights ---------------------

SOFTMAX_CASES = [
    (np.array([1.0, 2.0, 3.0]), 1.0),
    (np.array([0.5, -1.0, 2.0, 0.0]), 0.5),
    (np.array([[1.0, 2.0], [3.0, 3.0]]), 2.0),
    *HUGE_SCORES,
]


def _expected_weights_shown(text, cases):
    """True if the text quotes any case's expected weights (rounded to 2, 3 or 4 decimals, or in full)."""
    for alpha, t in cases:
        e = al_softmax(alpha, t)
        for shown in (e.tolist(), *(np.round(e, d).tolist() for d in (2, 3, 4))):
            if str(shown) in text:
                return True
    return False


def al_softmax(alpha, t):
    z = alpha / t
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_softmax_nan_on_small_scores_is_described_as_nan_not_as_an_overflow():
    """The tester's case: a NaN answer on [1, 2, 3] is the student's arithmetic, not exp(1000) overflowing."""
    feedback = ex.check_softmax(lambda a, t: a * np.nan)
    text = " ".join(feedback.messages)
    assert not feedback.passed and feedback.attempted
    assert "contains NaN (3 of 3 entries)" in text and "[1.0, 2.0, 3.0] at T = 1" in text
    assert "overflow" not in text.replace("nothing overflows", "")
    inf_text = " ".join(ex.check_softmax(lambda a, t: a / 0.0).messages)  # inf (and NaN) on small scores
    assert "contains" in inf_text and "exp(1000)" not in inf_text


def test_softmax_overflow_is_claimed_only_when_small_cases_are_right():
    def naive(alpha, temperature):
        e = np.exp(alpha / temperature)  # right on small scores, NaN on [1000, 1001, 999]
        return e / e.sum(axis=-1, keepdims=True)

    text = " ".join(ex.check_softmax(naive).messages)
    assert "right on small scores" in text and "exp(1000) is inf" in text and "Without a shift" in text

    def nan_on_second_case(alpha, temperature):
        return naive(alpha, temperature) if temperature == 1.0 else alpha * np.nan

    text = " ".join(ex.check_softmax(nan_on_second_case).messages)
    assert "contains NaN" in text and "[0.5, -1.0, 2.0, 0.0] at T = 0.5" in text and "exp(1000)" not in text


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda a, t: al_softmax(a, 1.0), "divide the scores by the temperature"),
        (lambda a, t: al_softmax(a * t, 1.0), "multiplied the scores by T"),
        (lambda a, t: al_softmax(-a, t), "sign is flipped"),
        (lambda a, t: np.exp(a / t) / np.exp(a / t).sum(axis=0, keepdims=True), "columns sum to 1"),
        (lambda a, t: np.exp(a / t), "must sum to 1"),
        (lambda a, t: np.exp(a / t) / np.exp(a / t).sum(), "each row must"),
        (lambda a, t: a / a.sum(-1, keepdims=True), "plain normalisation"),
        (lambda a, t: -al_softmax(a, t), "negative"),
        (lambda a, t: al_softmax(a, t) ** 2 / (al_softmax(a, t) ** 2).sum(-1, keepdims=True), "ratio of two weights"),
    ],
)
def test_softmax_mistakes_are_described_in_words_without_the_expected_weights(answer, hint):
    feedback = ex.check_softmax(answer)
    text = " ".join(feedback.messages)
    assert not feedback.passed and hint in text, feedback
    assert "should be" not in text and not _expected_weights_shown(text, SOFTMAX_CASES), text


# --- notebook 01, exercise 3 asks for T = 2 (the T = 1 answer is shown in the notebook above it) -------------------


def test_scores_for_weights_at_temperature_two():
    target = np.array([0.1, 0.8, 0.05, 0.05])
    assert ex.check_scores_for_weights(load_solution("notebook_01").SCORES_FOR_WEIGHTS, temperature=2.0).passed
    assert ex.check_scores_for_weights(2 * np.log(target) + 5.0).passed  # the default is T = 2, any shift works
    text = " ".join(ex.check_scores_for_weights(np.log(target), temperature=2.0).messages)
    assert "give the weights at T = 1, but here T = 2" in text
    assert str(np.round(2 * np.log(target), 3).tolist()) not in text
    assert "at T = 2" in ex.check_scores_for_weights(np.log(target)).exercise
    assert ex.check_scores_for_weights(np.log(target), temperature=1.0).passed


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        ([np.nan, 1.0, 0.0, 0.0], "NaN or inf"),
        ([-np.inf, 1.0, 0.0, 0.0], "NaN or inf"),
        ("0.1 0.8", "not numbers"),
        ([1.0, 2.0], "one score per key"),
        (torch.tensor([0.0, 2.0, -1.0, -1.0], requires_grad=True), "not [0.1, 0.8, 0.05, 0.05]"),
    ],
)
def test_scores_for_weights_odd_answers_get_feedback(answer, hint):
    feedback = ex.check_scores_for_weights(answer)
    assert not feedback.passed and hint in " ".join(feedback.messages), feedback
