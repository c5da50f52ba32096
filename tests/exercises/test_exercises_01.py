"""The answer checks of notebook 01 (its implement-checks' catalogues are in test_catalogues.py): the reference
answers pass, and a wrong answer is explained only for the options chosen."""

import numpy as np
from helpers import load_solution, text

from attention_lab import exercises as ex

K = np.array([[3.0, 4.0], [6.0, 3.0], [4.0, 1.0], [2.0, 8.0]])
LABELS = ["apple", "orange", "pear", "cherry"]
Q = np.array([4.0, 3.0])
V = np.array([[10.0, 5.0, 2.4], [9.0, 53.0, 2.4], [10.0, 4.0, 3.1], [8.0, 7.0, 2.1]])


def test_reference_answers_pass():
    s1 = load_solution("notebook_01")
    assert ex.check_softmax(s1.softmax_with_temperature).passed
    assert ex.check_copies_weight(s1.copies_weight).passed
    assert ex.check_dot_product_winner(LABELS[int((K @ Q).argmax())], K, LABELS, Q).passed


def test_dot_product_winner_explains_the_nearest_key_without_naming_the_winner():
    nearest = LABELS[int(np.argmin(((K - Q) ** 2).sum(axis=1)))]
    feedback = ex.check_dot_product_winner(nearest, K, LABELS, Q)
    assert not feedback.passed and "Gaussian score" in text(feedback)
    assert LABELS[int((K @ Q).argmax())] not in text(feedback)


def test_reachable_outputs_explains_only_the_options_chosen():
    candidates = {
        "A": V.mean(axis=0),
        "B": 0.4 * V[0] + 0.1 * V[1] + 0.2 * V[2] + 0.3 * V[3],
        "C": V.max(axis=0) + 1.0,
        "D": (V[0] + V[1]) / 2,
    }
    feedback = ex.check_reachable_outputs("AC", V, candidates)
    said = text(feedback)
    assert not feedback.passed and said.startswith("C:") and "D:" not in said and "B:" not in said
    assert "1 of the options you left out is right too" in said
    assert ex.check_reachable_outputs("AB", V, candidates).passed
    assert ex.check_reachable_outputs(["B", "A"], V, candidates).passed
