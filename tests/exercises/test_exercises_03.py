"""The exercise checks of notebook 03: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""

import numpy as np
import pytest
import torch
from helpers import load_solution, raises, stub, text

from attention_lab import exercises as ex
from attention_lab import loo_bandwidth, make_regression_data


@pytest.fixture(scope="module")
def nb03():
    return load_solution("notebook_03")


@pytest.fixture(scope="module")
def noise_case():
    """The two data sets of exercise 4: the same inputs and noise draws, the noise doubled."""
    calm, noisy = make_regression_data(200, noise=0.5, seed=0), make_regression_data(200, noise=1.0, seed=0)
    h_calm = loo_bandwidth(calm.x_train, calm.y_train)
    return noisy, h_calm


def naive_weights(xq, xk, h):  # overflows to 0/0 far from the keys
    k = np.exp(-((xq[:, None] - xk[None, :]) ** 2) / (2 * h * h))
    return k / k.sum(axis=1, keepdims=True)


# --- reference answers and stubs --------------------------------------------------------------------------


def test_reference_answers_pass(nb03, noise_case):
    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    assert ex.check_gaussian_weights(nb03.gaussian_weights).passed
    h = nb03.best_bandwidth(train.x_train, train.y_train, val.x_train, val.y_train)
    assert ex.check_bandwidth_choice(h, train.x_train, train.y_train, val.x_train, val.y_train).passed
    assert ex.check_small_h_limit(nb03.small_h_limit).passed
    assert ex.check_bandwidth_rate(nb03.H_EXPONENT, nb03.ERROR_EXPONENT).passed
    noisy, h_calm = noise_case
    h_noisy = nb03.noisy_bandwidth(noisy)
    assert ex.check_noise_prediction(nb03.NOISE_PREDICTION, h_noisy, noisy.x_train, noisy.y_train, h_calm).passed


def test_the_noise_exercise_measures_a_larger_bandwidth(noise_case):
    """The claim the exercise rests on, for its data: doubling the noise widens the leave-one-out kernel."""
    noisy, h_calm = noise_case
    assert loo_bandwidth(noisy.x_train, noisy.y_train) > 1.05 * h_calm


def test_unfinished_stubs_are_not_attempted(noise_case):
    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    noisy, h_calm = noise_case
    assert not ex.check_gaussian_weights(stub).attempted
    assert not ex.check_small_h_limit(stub).attempted
    assert not ex.check_bandwidth_choice(..., train.x_train, train.y_train, val.x_train, val.y_train).attempted
    assert not ex.check_bandwidth_rate(..., ...).attempted
    assert not ex.check_bandwidth_rate(-0.2, ...).attempted
    assert not ex.check_noise_prediction(..., ..., noisy.x_train, noisy.y_train, h_calm).attempted
    feedback = ex.check_noise_prediction("larger", ..., noisy.x_train, noisy.y_train, h_calm)
    assert not feedback.attempted and "Prediction recorded" in text(feedback)


# --- typical mistakes -------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda xq, xk, h: np.full((xq.size, xk.size), 1 / xk.size), "slip in the original post"),
        (lambda xq, xk, h: naive_weights(xq, xk, h).T, "queries go on the rows"),
        (lambda xq, xk, h: np.exp(-((xq[:, None] - xk[None, :]) ** 2) / (2 * h * h)), "do not sum to 1"),
        (lambda xq, xk, h: naive_weights(xq, xk, h / np.sqrt(2)), "factor 2 is missing"),
        (naive_weights, "0 / 0 = NaN"),
    ],
    ids=["original-slip", "transposed", "unnormalised", "no-factor-2", "unstable"],
)
def test_gaussian_weights_mistakes_are_explained(answer, hint):
    feedback = ex.check_gaussian_weights(answer)
    assert feedback.attempted and not feedback.passed
    assert hint in text(feedback), feedback.messages


def test_bandwidth_choice_says_which_way():
    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    args = (train.x_train, train.y_train, val.x_train, val.y_train)
    assert "too small" in text(ex.check_bandwidth_choice(0.03, *args))
    assert "too large" in text(ex.check_bandwidth_choice(2.0, *args))
    assert "positive" in text(ex.check_bandwidth_choice(-1, *args))


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda xq, xk, y: np.abs(xq[:, None] - xk).argmin(axis=1), "indices"),
        (lambda xq, xk, y: xk[np.abs(xq[:, None] - xk).argmin(axis=1)], "nearest keys x_i themselves"),
        (lambda xq, xk, y: np.full(xq.shape, y.mean()), "average pooling"),
    ],
)
def test_small_h_limit_mistakes_are_explained(answer, hint):
    feedback = ex.check_small_h_limit(answer)
    assert not feedback.passed and hint in text(feedback), feedback.messages


@pytest.mark.parametrize(
    ("h_exponent", "error_exponent", "hint"),
    [
        (0.2, -0.8, "check the sign"),
        (-1 / 3, -0.8, "its square"),
        (-0.25, -0.8, "one power of h too few"),
        (-5, -0.8, "solves for n"),
        (-1, -0.8, "never shrink"),
        (-0.2, -0.2, "same power of n"),
        (-0.2, -1, "parametric rate"),
        (-0.2, -0.4, "squared bias"),
        (-0.2, 0.8, "check the sign"),
        ("-1/5", "-4/10", "squared bias"),
    ],
)
def test_bandwidth_rate_mistakes_are_explained(h_exponent, error_exponent, hint):
    feedback = ex.check_bandwidth_rate(h_exponent, error_exponent)
    assert feedback.attempted and not feedback.passed
    assert hint in text(feedback), feedback.messages


def test_bandwidth_rate_accepts_fractions_and_praises_the_right_half():
    assert ex.check_bandwidth_rate("-1/5", "-4/5").passed
    assert ex.check_bandwidth_rate(np.float32(-0.2), torch.tensor(-0.8)).passed
    feedback = ex.check_bandwidth_rate(-0.2, -0.5)
    assert "exponent of h* is right" in text(feedback) and "error" in text(feedback)


def test_noise_prediction_mistakes_are_explained(noise_case):
    noisy, h_calm = noise_case
    h_noisy = loo_bandwidth(noisy.x_train, noisy.y_train)
    args = (noisy.x_train, noisy.y_train, h_calm)
    wrong = ex.check_noise_prediction("smaller", h_noisy, *args)
    assert wrong.attempted and not wrong.passed and "bias-variance" in text(wrong)
    assert not ex.check_noise_prediction("the same", h_noisy, *args).passed
    calm_h = ex.check_noise_prediction("larger", h_calm, *args)
    assert not calm_h.passed and "calm data set" in text(calm_h)
    off = ex.check_noise_prediction("larger", 3 * h_noisy, *args)
    assert not off.passed and "al.loo_bandwidth" in text(off)
    assert "in quotes" in text(ex.check_noise_prediction("bigger", h_noisy, *args))
    assert ex.check_noise_prediction(" Larger ", h_noisy, *args).passed


# --- garbage: feedback, never an exception ----------------------------------------------------------------

GARBAGE_FUNCTIONS = [
    None,
    "gaussian",
    {"h": 1},
    42,
    raises,
    lambda *a: None,
    lambda *a: "text",
    lambda *a: {"a": 1},
    lambda *a: np.full(3, np.nan),
    lambda *a: np.full(3, np.inf),
    lambda *a: np.zeros((7, 7)),
    lambda *a: np.ones(3) * (1 + 1j),
    lambda *a: torch.ones(3, requires_grad=True),
    lambda *a: torch.ones(3, dtype=torch.complex64),
    lambda *a: [[1, 2], [3]],
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("answer", GARBAGE_FUNCTIONS)
@pytest.mark.parametrize("check", [ex.check_gaussian_weights, ex.check_small_h_limit])
def test_function_checks_survive_garbage(check, answer):
    feedback = check(answer)
    assert not feedback.passed and feedback.messages and all(isinstance(m, str) for m in feedback.messages)


def test_nan_answers_get_an_accurate_message():
    feedback = ex.check_gaussian_weights(lambda xq, xk, h: np.full((xq.size, xk.size), np.nan))
    assert not feedback.passed and "NaN" in text(feedback)


GARBAGE_NUMBERS = [
    None,
    "fast",
    "1/0",
    {"a": 1},
    [1, 2],
    np.nan,
    np.inf,
    -np.inf,
    1 + 2j,
    torch.tensor([0.2, 0.3]),
    torch.tensor(0.7, requires_grad=True),
    np.zeros((2, 2)),
    True,
]


@pytest.mark.parametrize("value", GARBAGE_NUMBERS)
def test_number_checks_survive_garbage(value, noise_case):
    noisy, h_calm = noise_case
    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    feedbacks = [
        ex.check_bandwidth_rate(value, -0.8),
        ex.check_bandwidth_rate(-0.2, value),
        ex.check_bandwidth_choice(value, train.x_train, train.y_train, val.x_train, val.y_train),
        ex.check_noise_prediction(value, 0.3, noisy.x_train, noisy.y_train, h_calm),
        ex.check_noise_prediction("larger", value, noisy.x_train, noisy.y_train, h_calm),
    ]
    for feedback in feedbacks:
        assert isinstance(feedback, ex.Feedback) and not feedback.passed and feedback.messages


def test_a_torch_exponent_with_grad_is_read():
    assert ex.check_bandwidth_rate(torch.tensor(-0.2, requires_grad=True), -0.8).passed


# --- feedback never gives the answer away -----------------------------------------------------------------


def test_failing_feedback_does_not_reveal_the_exponents():
    for a, b in [(0.5, 0.5), (-0.25, -1), (1, 2), (-0.2, -0.3), (-0.3, -0.8)]:
        feedback = text(ex.check_bandwidth_rate(a, b))
        for answer in ("-1/5", "-0.2", "-4/5", "-0.8", "n^(-1/5)", "n^(-4/5)"):
            assert answer not in feedback, (a, b, feedback)


def test_failing_prediction_feedback_does_not_name_the_answer(noise_case):
    noisy, h_calm = noise_case
    h_noisy = loo_bandwidth(noisy.x_train, noisy.y_train)
    for guess in ("smaller", "the same"):
        feedback = text(ex.check_noise_prediction(guess, h_noisy, noisy.x_train, noisy.y_train, h_calm))
        assert "larger" not in feedback and "wider" not in feedback


# --- reported by a tester: accurate NaN messages, no expected answers in failing feedback ------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_not_finite_weights_on_ordinary_inputs_are_not_blamed_on_underflow(bad):
    """All-NaN (or inf) of the right shape fails on the first, ordinary case: say NaN/inf, not 'underflow'."""
    feedback = ex.check_gaussian_weights(lambda xq, xk, h: np.full((xq.size, xk.size), bad))
    message = text(feedback)
    assert not feedback.passed and ("NaN" if np.isnan(bad) else "inf") in message
    assert "underflow" not in message and "far from every key" not in message.lower(), feedback.messages


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_underflow_is_named_only_when_ordinary_inputs_passed():
    feedback = ex.check_gaussian_weights(naive_weights)  # right near the keys, 0/0 only for the far query
    assert "underflow" in text(feedback) and "far from every key" in text(feedback)


def _expected_gaussian_first_case():
    xq, xk, h = np.array([0.0, 1.0, 2.5]), np.array([0.0, 0.5, 2.0, 3.0]), 1.0
    scores = -((xq[:, None] - xk[None, :]) ** 2) / (2 * h * h)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.round(e / e.sum(axis=1, keepdims=True), 4).tolist()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    "answer",
    [
        lambda xq, xk, h: naive_weights(xq, xk, h).T,
        lambda xq, xk, h: naive_weights(xq, xk, h / np.sqrt(2)),
        lambda xq, xk, h: np.full((xq.size, xk.size), 1 / xk.size),
        lambda xq, xk, h: np.eye(xq.size, xk.size),
    ],
)
def test_gaussian_weights_feedback_never_prints_the_weights(answer):
    feedback = text(ex.check_gaussian_weights(answer))
    expected = _expected_gaussian_first_case()
    assert str(expected) not in feedback and "the weights are [" not in feedback
    for row in expected:
        assert str(row) not in feedback, feedback


def test_gaussian_weights_unexplained_slip_still_gets_a_hint():
    def shifted(xq, xk, h):  # rows sum to 1, but the scores are off
        scores = -np.abs(xq[:, None] - xk[None, :]) / h
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    feedback = ex.check_gaussian_weights(shifted)
    assert not feedback.passed and "term by term" in text(feedback)


@pytest.mark.parametrize(
    "answer",
    [
        lambda xq, xk, y: np.abs(xq[:, None] - xk).argmin(axis=1),
        lambda xq, xk, y: np.full(xq.shape, y.mean()),
        lambda xq, xk, y: y[np.clip(np.searchsorted(xk, xq) - 1, 0, None)],  # the nearest key on the left only
        lambda xq, xk, y: np.zeros(xq.shape),
    ],
)
def test_small_h_limit_feedback_never_prints_the_limit(answer):
    feedback = text(ex.check_small_h_limit(answer))
    assert "limit is" not in feedback and "[5.0, 7.0, 8.0]" not in feedback, feedback


def test_small_h_limit_on_one_side_only_is_explained():
    feedback = ex.check_small_h_limit(lambda xq, xk, y: y[np.clip(np.searchsorted(xk, xq) - 1, 0, None)])
    assert not feedback.passed and "on either side" in text(feedback), feedback.messages


def test_small_h_limit_nan_gets_an_accurate_message():
    feedback = ex.check_small_h_limit(lambda xq, xk, y: np.full(xq.shape, np.nan))
    assert not feedback.passed and "NaN" in text(feedback) and "nothing can overflow" in text(feedback)
