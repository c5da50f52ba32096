"""The exercise checks: reference answers pass, unfinished stubs read as not attempted, mistakes are explained."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from attention_lab import exercises as ex

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


def load(name):
    if not SOLUTIONS.exists():
        pytest.skip("solutions/ is left out of this copy of the course (a student copy)")
    spec = importlib.util.spec_from_file_location(name, SOLUTIONS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def nb01():
    return load("notebook_01")


def test_reference_answers_pass(nb01):
    assert ex.check_softmax(nb01.softmax_with_temperature).passed
    assert ex.check_weighted_average(nb01.weighted_average).passed
    assert ex.check_scores_for_weights(nb01.SCORES_FOR_WEIGHTS).passed


def stub(*args):
    ...


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


# --- notebook 03 ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nb03():
    return load("notebook_03")


def test_notebook_03_reference_answers_pass(nb03):
    from attention_lab import make_regression_data

    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    assert ex.check_gaussian_weights(nb03.gaussian_weights).passed
    h = nb03.best_bandwidth(train.x_train, train.y_train, val.x_train, val.y_train)
    assert ex.check_bandwidth_choice(h, train.x_train, train.y_train, val.x_train, val.y_train).passed
    assert ex.check_nearest_neighbour(nb03.nearest_neighbour).passed
    assert not ex.check_gaussian_weights(stub).attempted and not ex.check_nearest_neighbour(stub).attempted
    assert not ex.check_bandwidth_choice(..., train.x_train, train.y_train, val.x_train, val.y_train).attempted


def naive_weights(xq, xk, h):  # overflows to 0/0 far from the keys
    k = np.exp(-((xq[:, None] - xk[None, :]) ** 2) / (2 * h * h))
    return k / k.sum(axis=1, keepdims=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda xq, xk, h: np.full((xq.size, xk.size), 1 / xk.size), "slip in the source post"),
        (lambda xq, xk, h: naive_weights(xq, xk, h).T, "queries go on the rows"),
        (lambda xq, xk, h: np.exp(-((xq[:, None] - xk[None, :]) ** 2) / (2 * h * h)), "do not sum to 1"),
        (lambda xq, xk, h: naive_weights(xq, xk, h / np.sqrt(2)), "factor 2 is missing"),
        (naive_weights, "0/0 is NaN"),
    ],
    ids=["seed-slip", "transposed", "unnormalised", "no-factor-2", "unstable"],
)
def test_gaussian_weights_mistakes_are_explained(answer, hint):
    feedback = ex.check_gaussian_weights(answer)
    assert feedback.attempted and not feedback.passed
    assert hint in " ".join(feedback.messages), feedback.messages


def test_bandwidth_choice_says_which_way():
    from attention_lab import make_regression_data

    train, val = make_regression_data(50, seed=0), make_regression_data(200, seed=1)
    args = (train.x_train, train.y_train, val.x_train, val.y_train)
    assert "too small" in " ".join(ex.check_bandwidth_choice(0.03, *args).messages)
    assert "too large" in " ".join(ex.check_bandwidth_choice(2.0, *args).messages)
    assert "positive" in " ".join(ex.check_bandwidth_choice(-1, *args).messages)


@pytest.mark.parametrize(
    ("answer", "hint"),
    [
        (lambda xq, xk, y: np.abs(xq[:, None] - xk).argmin(axis=1), "indices"),
        (lambda xq, xk, y: xk[np.abs(xq[:, None] - xk).argmin(axis=1)], "nearest keys x_i themselves"),
        (lambda xq, xk, y: np.full(xq.shape, y.mean()), "average pooling"),
    ],
)
def test_nearest_neighbour_mistakes_are_explained(answer, hint):
    feedback = ex.check_nearest_neighbour(answer)
    assert not feedback.passed and hint in " ".join(feedback.messages), feedback.messages


# --- notebook 04 ------------------------------------------------------------------------------------------

def test_notebook_04_reference_answers_pass():
    from attention_lab import make_regression_data

    nb04 = load("notebook_04")
    d = make_regression_data(50, seed=0)
    assert ex.check_nw_forward(nb04.nw_forward).passed
    assert ex.check_leave_one_out(nb04.loo_keys).passed
    assert ex.check_sgd_settings(nb04.SGD_LEARNING_RATE, nb04.SGD_EPOCHS, d.x_train, d.y_train, 4.93).passed
    assert not ex.check_nw_forward(stub).attempted and not ex.check_leave_one_out(stub).attempted
    assert not ex.check_sgd_settings(..., ..., d.x_train, d.y_train, 4.93).attempted


def test_notebook_04_mistakes_are_explained():
    import torch

    from attention_lab import make_regression_data

    def no_half(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w) ** 2, dim=1) * v).sum(1)

    def wrong_dim(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, dim=0) * v).sum(1)

    def detached(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w.item()) ** 2 / 2, dim=1) * v).sum(1)

    for answer, hint in [(no_half, "1/2 is missing"), (wrong_dim, "over the queries"), (detached, "no gradient")]:
        feedback = ex.check_nw_forward(answer)
        assert not feedback.passed and hint in " ".join(feedback.messages), feedback.messages
    feedback = ex.check_leave_one_out(lambda x: x.expand(x.shape[0], x.shape[0]))
    assert not feedback.passed and "attend to itself" in " ".join(feedback.messages)
    d = make_regression_data(50, seed=0)
    assert "raise the learning rate" in " ".join(ex.check_sgd_settings(0.5, 50, d.x_train, d.y_train, 4.93).messages)
    assert "lower the learning rate" in " ".join(ex.check_sgd_settings(40, 50, d.x_train, d.y_train, 4.93).messages)


def softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
