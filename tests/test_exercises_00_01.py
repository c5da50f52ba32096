"""The exercise checks of the start page (00) and notebook 01 that are not in test_exercises.py."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_lab import exercises as ex

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
K = np.array([[6.0, 4.0], [5.0, 8.0], [5.5, 2.0], [9.0, 3.0]])  # notebook 01's fruit keys
LABELS = ["apple", "orange", "pear", "cherry"]
NOT_TOO_SWEET = np.array([4.0, 3.0])
SCORES = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])  # notebook 00's explorer


def load(name):
    if not (SOLUTIONS / f"{name}.py").exists():
        pytest.skip("solutions/ is left out of this copy of the course (a student copy)")
    spec = importlib.util.spec_from_file_location(name, SOLUTIONS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_answers_pass():
    assert ex.check_uniform_temperature(load("notebook_00").UNIFORM_TEMPERATURE, SCORES).passed
    assert ex.check_dot_product_winner(load("notebook_01").DOT_PRODUCT_WINNER, K, LABELS, NOT_TOO_SWEET).passed


@pytest.mark.parametrize(("answer", "hint"), [
    (0.0, "the other end"),
    (100.0, "at any finite T"),
    (1e300, "at any finite T"),
    (-2.0, "flips the order"),
    (float("nan"), "NaN is not a temperature"),
    ([1.0, 2.0], "Give one number"),
    ("inf", "not numbers"),
])
def test_uniform_temperature_mistakes_are_explained(answer, hint):
    feedback = ex.check_uniform_temperature(answer, SCORES)
    assert not feedback.passed and hint in " ".join(feedback.messages)
    text = " ".join(feedback.messages).replace(repr(answer), "")  # the student's own answer may be quoted
    assert "inf" not in text.replace("infinity", "").replace("np.inf is", ""), "the feedback gives the answer away"


def test_uniform_temperature_accepts_any_infinite_number():
    for answer in (np.inf, float("inf"), torch.tensor(float("inf"), requires_grad=True), np.float32("inf")):
        assert ex.check_uniform_temperature(answer, SCORES).passed


@pytest.mark.parametrize(("answer", "hint"), [
    ("pear", "nearest key"),
    ("orange", "Compute the four dot products"),
    ("banana", "is not a box"),
    (3, "as a string"),
])
def test_dot_product_winner_mistakes_are_explained_without_the_answer(answer, hint):
    feedback = ex.check_dot_product_winner(answer, K, LABELS, NOT_TOO_SWEET)
    text = " ".join(feedback.messages)
    assert not feedback.passed and hint in text
    assert "cherry" not in text.replace("one of ['apple', 'orange', 'pear', 'cherry']", "")


def test_dot_product_winner_is_computed_not_stored():
    """The check follows the data it is given: with another query another box wins."""
    assert ex.check_dot_product_winner("orange", K, LABELS, np.array([0.0, 1.0])).passed
    assert ex.check_dot_product_winner(" Cherry ", K, LABELS, NOT_TOO_SWEET).passed
