"""Gradient estimators for sampled attention, against independent computations (PyTorch autograd, finite
differences, exact expectations)."""

import numpy as np
import pytest
import torch

from attention_lab import softmax
from attention_lab.estimators import (
    estimator_summary,
    exact_gradient,
    gumbel_softmax_gradients,
    quadratic_loss,
    score_function_gradients,
    straight_through_gradients,
)
from attention_lab.examples import six_scores

ALPHA = six_scores()[0]  # notebook 02's scores
V = np.array([[0.0, 0.0], [4.0, 1.0], [1.0, 3.0], [3.0, 3.5], [-1.0, 2.0], [2.0, -1.0]])
TARGET = V[4]
LOSS, LOSS_GRAD = quadratic_loss(V, TARGET)
EXACT = exact_gradient(ALPHA, LOSS)


def torch_loss(weights):
    return ((weights @ torch.tensor(V) - torch.tensor(TARGET)) ** 2).sum(-1)


def test_exact_gradient_matches_autograd_of_the_expected_loss():
    alpha = torch.tensor(ALPHA, requires_grad=True)
    expected_loss = torch.softmax(alpha, 0) @ torch_loss(torch.eye(len(ALPHA), dtype=torch.float64))
    expected_loss.backward()
    np.testing.assert_allclose(EXACT, alpha.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_exact_gradient_matches_finite_differences():
    def expected_loss(a):
        return softmax(a) @ LOSS(np.eye(len(a)))

    eps = 1e-6
    numeric = [(expected_loss(ALPHA + eps * e) - expected_loss(ALPHA - eps * e)) / (2 * eps) for e in np.eye(6)]
    np.testing.assert_allclose(EXACT, numeric, atol=1e-7)


def test_quadratic_loss_and_its_gradient_match_autograd():
    weights = np.random.default_rng(0).dirichlet(np.ones(6), size=5)  # (5, 6)
    w = torch.tensor(weights, requires_grad=True)
    torch_loss(w).sum().backward()
    np.testing.assert_allclose(LOSS(weights), torch_loss(torch.tensor(weights)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(LOSS_GRAD(weights), w.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_samples_follow_softmax():
    g = score_function_gradients(ALPHA, lambda w: np.ones(len(w)), 40_000, rng=3)  # rows e_i - p
    frequencies = g.mean(axis=0) + softmax(ALPHA)
    np.testing.assert_allclose(frequencies, softmax(ALPHA), atol=0.01)  # sd of each frequency < 0.0025


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("baseline", [0.0, "expected", 5.0])
def test_score_function_is_unbiased(seed, baseline):
    b = float(softmax(ALPHA) @ LOSS(np.eye(6))) if baseline == "expected" else baseline
    summary = estimator_summary(score_function_gradients(ALPHA, LOSS, 40_000, rng=seed, baseline=b), EXACT)
    assert summary["bias"] < 4 * summary["standard_error"], summary


def test_the_expected_loss_baseline_reduces_the_variance():
    without = estimator_summary(score_function_gradients(ALPHA, LOSS, 20_000, rng=0), EXACT)
    b = float(softmax(ALPHA) @ LOSS(np.eye(6)))
    with_b = estimator_summary(score_function_gradients(ALPHA, LOSS, 20_000, rng=0, baseline=b), EXACT)
    assert with_b["variance"] < 0.5 * without["variance"]


def test_score_function_per_sample_is_loss_times_grad_log_p():
    g = score_function_gradients(ALPHA, LOSS, 50, rng=7)
    gumbel = np.random.default_rng(7).gumbel(size=(50, 6))  # the documented way samples are drawn
    for row, i in zip(g, np.argmax(ALPHA + gumbel, axis=1), strict=True):
        alpha = torch.tensor(ALPHA, requires_grad=True)
        torch.log_softmax(alpha, 0)[i].backward()
        np.testing.assert_allclose(row, LOSS(np.eye(6)[i : i + 1])[0] * alpha.grad.numpy(), atol=1e-12)


def test_straight_through_matches_autograd_and_is_biased():
    g = straight_through_gradients(ALPHA, LOSS_GRAD, 30, rng=5)
    gumbel = np.random.default_rng(5).gumbel(size=(30, 6))
    for row, i in zip(g, np.argmax(ALPHA + gumbel, axis=1), strict=True):
        alpha = torch.tensor(ALPHA, requires_grad=True)
        soft = torch.softmax(alpha, 0)
        hard = torch.eye(6, dtype=torch.float64)[i]
        torch_loss(hard + soft - soft.detach()).backward()
        np.testing.assert_allclose(row, alpha.grad.numpy(), atol=1e-12)
    summary = estimator_summary(straight_through_gradients(ALPHA, LOSS_GRAD, 20_000, rng=0), EXACT)
    assert summary["bias"] > 20 * summary["standard_error"]


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_matches_autograd_with_the_same_noise(hard):
    g = gumbel_softmax_gradients(ALPHA, LOSS_GRAD, 0.5, 20, rng=11, hard=hard)
    gumbel = torch.tensor(np.random.default_rng(11).gumbel(size=(20, 6)))
    alpha = torch.tensor(ALPHA, requires_grad=True)
    relaxed = torch.softmax((alpha + gumbel) / 0.5, dim=1)  # (20, 6)
    if hard:
        one_hot = torch.nn.functional.one_hot(relaxed.argmax(1), 6).to(relaxed.dtype)
        relaxed = one_hot + relaxed - relaxed.detach()
    rows = []
    for r in range(20):
        alpha.grad = None
        torch_loss(relaxed[r]).backward(retain_graph=True)
        rows.append(alpha.grad.numpy().copy())
    np.testing.assert_allclose(g, np.array(rows), atol=1e-10)


def test_gumbel_softmax_bias_falls_and_variance_grows_as_temperature_falls():
    summaries = [
        estimator_summary(gumbel_softmax_gradients(ALPHA, LOSS_GRAD, t, 20_000, rng=0), EXACT) for t in (2.0, 0.5, 0.1)
    ]
    biases = [s["bias"] for s in summaries]
    variances = [s["variance"] for s in summaries]
    assert biases[0] > biases[1] > biases[2] and variances[0] < variances[1] < variances[2]
    assert biases[1] > 10 * summaries[1]["standard_error"]  # biased at T = 0.5


def test_estimator_summary_on_a_known_sample():
    g = np.array([[1.0, 0.0], [3.0, 0.0]])
    s = estimator_summary(g, np.array([2.0, 1.0]))
    assert s["bias"] == pytest.approx(1.0) and s["variance"] == pytest.approx(2.0)
    assert s["standard_error"] == pytest.approx(1.0) and s["relative_bias"] == pytest.approx(1 / np.sqrt(5))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: exact_gradient([1.0], LOSS), "alpha must be a 1-D array of at least 2"),
        (lambda: exact_gradient(np.ones((2, 3)), LOSS), "alpha must be a 1-D array"),
        (lambda: exact_gradient([1.0, np.nan], LOSS), "alpha must not contain NaN"),
        (lambda: exact_gradient([1.0, 2.0], lambda w: w), "loss must map weights of shape (2, 2) to shape (2,)"),
        (lambda: score_function_gradients(ALPHA, LOSS, 0), "n_samples must be an integer >= 1"),
        (lambda: score_function_gradients(ALPHA, LOSS, True), "n_samples must be an integer >= 1"),
        (lambda: score_function_gradients(ALPHA, LOSS, 5, baseline=np.nan), "baseline must be a finite number"),
        (lambda: straight_through_gradients(ALPHA, LOSS, 5), "loss_grad must map weights of shape (5, 6)"),
        (lambda: gumbel_softmax_gradients(ALPHA, LOSS_GRAD, 0.0, 5), "temperature"),
        (lambda: quadratic_loss(V, np.zeros(3)), "values must be (n, d) and target (d,)"),
        (lambda: estimator_summary(np.ones((4, 3)), np.ones(2)), "gradients must be (m, n)"),
    ],
)
def test_bad_inputs_are_named(call, message):
    with pytest.raises(ValueError, match=None) as info:
        call()
    assert message in str(info.value)
