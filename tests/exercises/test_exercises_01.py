"""The answer checks of notebook 01 (its implement-checks' catalogues are in test_catalogues.py): the reference
answers pass, and a wrong answer is explained only for the options chosen."""

import numpy as np
from helpers import load_solution, text

from attention_lab import exercises as ex
from attention_lab import make_regression_data

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


def test_the_answer_solutions_pass_on_the_notebooks_own_data():
    """solutions/ in step: 01's and 03's answers that are not functions, checked with the notebooks' own inputs."""
    s1, s3 = load_solution("notebook_01"), load_solution("notebook_03")
    V01 = np.array([[10.4, 4.6, 2.4], [9.4, 53.2, 2.4], [9.8, 4.3, 3.1], [12.8, 7.0, 2.1]])  # notebook 01's boxes
    K01 = np.array([[6.0, 4.0], [5.0, 8.0], [5.5, 2.0], [9.0, 3.0]])
    candidates = {
        "A": V01.mean(axis=0),
        "B": np.array([10.90, 10.12, 2.45]),
        "C": np.array([11.18, 20.20, 2.14]),
        "D": np.array([9.90, 28.90, 2.40]),
        "E": np.array([13.50, 7.00, 2.10]),
    }
    assert ex.check_reachable_outputs(s1.REACHABLE_OUTPUTS, V01, candidates).passed
    assert ex.check_dot_product_winner(s1.DOT_PRODUCT_WINNER, K01, LABELS, np.array([4.0, 3.0])).passed
    calm, noisy = make_regression_data(200, noise=0.5, seed=0), make_regression_data(200, noise=1.0, seed=0)
    h_calm = ex.notebook_03.loo_bandwidth(calm.x_train, calm.y_train)
    feedback = ex.check_noise_prediction(
        s3.NOISE_PREDICTION, s3.noisy_bandwidth(noisy), noisy.x_train, noisy.y_train, h_calm
    )
    assert feedback.passed, text(feedback)
