"""The answer checks of notebooks 00, 02, 03 and 04 (01: test_exercises_01.py), numbers, choices and predictions:
the reference answers pass, a wrong answer is diagnosed rightly, and a multiple-choice answer is explained
only for the options chosen."""

import numpy as np
import pytest
from helpers import load_solution, text

from attention_lab import exercises as ex
from attention_lab import make_regression_data

SCORES = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])


def test_reference_answers_pass():
    s0, s2, s3, s4 = (load_solution(f"notebook_0{i}") for i in (0, 2, 3, 4))
    assert ex.check_uniform_temperature(s0.UNIFORM_TEMPERATURE, SCORES).passed
    assert ex.check_temperature_for_weight(s2.temperature_for_half(SCORES), SCORES).passed
    assert ex.check_smooth_max_gap(s2.GAP_BOUND, s2.WORST_SCORES).passed
    assert ex.check_bandwidth_rate(s3.H_EXPONENT, s3.ERROR_EXPONENT).passed
    assert ex.check_w_symmetry(s4.SAME_AS_W2, s4.START_AT_ZERO).passed
    assert ex.check_no_loo_prediction(s4.NO_LOO_CHOICE).passed
    assert ex.check_laplace_prediction(s4.LAPLACE_CHOICE).passed


@pytest.mark.parametrize(
    ("answer", "words"),
    [(0, "T = 0 is the other end"), (-1.0, "negative"), (100.0, "not exactly 1"), (1e-3, "over a million")],
)
def test_uniform_temperature_wrong_answers_ask_without_telling(answer, words):
    feedback = ex.check_uniform_temperature(answer, SCORES)
    assert not feedback.passed and words in text(feedback) and "inf" not in text(feedback).replace("infinity", "")


@pytest.mark.parametrize("temperature", [760.0, 1000.0, 3800.0, 1e7])
def test_a_ratio_just_above_1_is_shown_visibly_not_1(temperature):
    said = text(ex.check_uniform_temperature(temperature, SCORES))
    assert "is (1 + " in said and " is 1 times" not in said, said


@pytest.mark.parametrize(("choice", "words"), [("a", "training loss"), ("c", "wider kernel"), ("(C)", "wider kernel")])
def test_no_loo_prediction_explains_the_chosen_option_only(choice, words):
    feedback = ex.check_no_loo_prediction(choice)
    assert not feedback.passed and words in text(feedback) and len(feedback.messages) == 1


def test_copied_bandwidth_does_not_pass_the_search():
    feedback = ex.check_bandwidth_search(lambda *args: 0.3)
    assert not feedback.passed


def test_sgd_diagnoses_follow_what_w_did():
    data = make_regression_data(50, seed=0)
    target = 5.0
    back = text(ex.check_sgd_settings(20.0, 50, data.x_train, data.y_train, target_w=target))
    assert "coming back down" in back and "runs away" not in back and "more epochs" not in back
    slow = text(ex.check_sgd_settings(0.5, 50, data.x_train, data.y_train, target_w=target))
    assert "most allowed" in slow and "more of them" not in slow
    assert "more of them" in text(ex.check_sgd_settings(0.5, 10, data.x_train, data.y_train, target_w=target))


def test_noise_prediction_is_graded_and_then_measured():
    calm, noisy = make_regression_data(200, noise=0.5, seed=0), make_regression_data(200, noise=1.0, seed=0)
    h_calm = ex.notebook_03.loo_bandwidth(calm.x_train, calm.y_train)
    h_noisy = ex.notebook_03.loo_bandwidth(noisy.x_train, noisy.y_train)
    assert ex.check_noise_prediction("larger", h_noisy, noisy.x_train, noisy.y_train, h_calm).passed
    wrong = ex.check_noise_prediction("smaller", h_noisy, noisy.x_train, noisy.y_train, h_calm)
    assert not wrong.passed and "variance" in text(wrong) and "larger" not in text(wrong)


def _offers_a_hint(feedback):
    """Whether any rendering of the feedback points the student to a further hint or a fix."""
    shown = repr(feedback) + feedback._repr_markdown_() + feedback._repr_html_()
    return any(word in shown for word in (".hint()", ".fix()", "<details>"))


def test_a_right_answer_never_offers_a_hint():
    s4 = load_solution("notebook_04")
    right = ex.check_w_symmetry(s4.SAME_AS_W2, s4.START_AT_ZERO)
    assert right.passed and not _offers_a_hint(right)
    half_right = ex.check_w_symmetry(s4.SAME_AS_W2, "a")  # (i) right, (ii) wrong: the hint stays on offer
    assert not half_right.passed and _offers_a_hint(half_right)
    for feedback in (
        ex.check_no_loo_prediction(s4.NO_LOO_CHOICE),
        ex.check_laplace_prediction(s4.LAPLACE_CHOICE),
        ex.check_loo_predictions(s4.loo_predictions),
        ex.check_gradient_w(s4.gradient_w),
        ex.check_laplace_sgd_step(s4.laplace_sgd_step),
    ):
        assert feedback.passed and not _offers_a_hint(feedback), feedback.exercise
