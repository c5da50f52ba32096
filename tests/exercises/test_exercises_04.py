"""The exercise checks of notebook 04: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""

import numpy as np
import pytest
import torch
from helpers import load_solution, raises, stub, text

from attention_lab import exercises as ex
from attention_lab import make_regression_data

TARGET_W = 4.93  # about where Adam ends in the notebook (the check is told the target)


@pytest.fixture(scope="module")
def nb04():
    return load_solution("notebook_04")


# --- reference answers and stubs --------------------------------------------------------------------------


def test_reference_answers_pass(nb04):
    d = make_regression_data(50, seed=0)
    assert ex.check_w_symmetry(nb04.SAME_AS_W2, nb04.START_AT_ZERO).passed
    assert ex.check_loo_predictions(nb04.loo_predictions).passed
    assert ex.check_sgd_settings(nb04.SGD_LEARNING_RATE, nb04.SGD_EPOCHS, d.x_train, d.y_train, TARGET_W).passed
    assert ex.check_no_loo_prediction(nb04.NO_LOO_CHOICE).passed
    assert ex.check_gradient_w(nb04.gradient_w).passed
    assert ex.check_laplace_prediction(nb04.LAPLACE_CHOICE).passed
    assert ex.check_laplace_forward(nb04.laplace_forward).passed


def test_unfinished_stubs_are_not_attempted():
    d = make_regression_data(50, seed=0)
    assert not ex.check_loo_predictions(stub).attempted and not ex.check_laplace_forward(stub).attempted
    for answers in ((..., ...), (-2, ...), (..., "b"), (None, None)):
        assert not ex.check_w_symmetry(*answers).attempted
    assert not ex.check_laplace_prediction(...).attempted
    assert not ex.check_sgd_settings(..., ..., d.x_train, d.y_train, TARGET_W).attempted
    assert not ex.check_no_loo_prediction(...).attempted
    assert not ex.check_gradient_w(stub).attempted


def test_the_hand_gradient_is_autograd_on_random_inputs(nb04):
    """The reference gradient against autograd away from the check's own cases (an independent computation)."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        q, k, v, t = rng.uniform(0, 5, 6), rng.uniform(0, 5, 9), rng.normal(size=9), rng.normal(size=6)
        w = rng.uniform(0.2, 4)
        w_t = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        qt, kt, vt, tt = (torch.tensor(a) for a in (q, k, v, t))
        loss = torch.mean((torch.softmax(-(((qt[:, None] - kt) * w_t) ** 2) / 2, dim=1) @ vt - tt) ** 2)
        loss.backward()
        assert nb04.gradient_w(q, k, v, t, w) == pytest.approx(w_t.grad.item(), rel=1e-9, abs=1e-12)


# --- typical mistakes -------------------------------------------------------------------------------------


def test_sgd_settings_say_which_way():
    d = make_regression_data(50, seed=0)
    assert "raise the learning rate" in text(ex.check_sgd_settings(0.5, 50, d.x_train, d.y_train, TARGET_W))
    assert "lower the learning rate" in text(ex.check_sgd_settings(40, 50, d.x_train, d.y_train, TARGET_W))


@pytest.mark.parametrize(("choice", "hint"), [("a", "distance 0 tends to 1"), ("(c)", "raises the training loss")])
def test_no_loo_prediction_mistakes_are_explained(choice, hint):
    feedback = ex.check_no_loo_prediction(choice)
    assert feedback.attempted and not feedback.passed and hint in text(feedback)


def _variant(kind):
    """A hand gradient with one typical slip."""

    def grad(q, k, v, t, w):
        diff2 = (q[:, None] - k[None, :]) ** 2
        scores = -diff2 * w**2 / 2
        lam = np.exp(scores - scores.max(axis=1, keepdims=True))
        lam /= lam.sum(axis=1, keepdims=True)
        r = lam @ v - t
        d_alpha = {"dw2": -diff2 / 2}.get(kind, -diff2 * w)
        if kind == "numerator":
            d_lam = lam * d_alpha
        else:
            d_lam = lam * (d_alpha - (lam * d_alpha).sum(axis=1, keepdims=True))
        per_query = 2 * r * (d_lam @ v)
        if kind == "no2":
            per_query = per_query / 2
        if kind == "sign":
            per_query = -per_query
        return per_query.sum() if kind == "sum" else per_query.mean()

    return grad


@pytest.mark.parametrize(
    ("kind", "hint"),
    [
        ("numerator", "only the numerator"),
        ("sign", "wrong sign"),
        ("sum", "n times too large"),
        ("no2", "factor 2 is off"),
        ("dw2", "with respect to w itself"),
    ],
)
def test_gradient_mistakes_are_explained(kind, hint):
    feedback = ex.check_gradient_w(_variant(kind))
    assert feedback.attempted and not feedback.passed
    assert hint in text(feedback), feedback.messages


def test_per_query_gradients_are_told_to_average():
    def per_query(q, k, v, t, w):
        return np.zeros(q.shape)

    assert "one number" in text(ex.check_gradient_w(per_query))


# --- garbage: feedback, never an exception ----------------------------------------------------------------

GARBAGE = [
    None,
    "gradient",
    {"w": 1},
    42,
    raises,
    lambda *a: None,
    lambda *a: "text",
    lambda *a: {"a": 1},
    lambda *a: np.nan,
    lambda *a: np.inf,
    lambda *a: np.zeros((3, 3)),
    lambda *a: 1 + 1j,
    lambda *a: torch.ones(3, requires_grad=True),
    lambda *a: torch.tensor(0.5, requires_grad=True),
    lambda *a: torch.ones(3, dtype=torch.complex64),
    lambda *a: [[1, 2], [3]],
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("answer", GARBAGE)
@pytest.mark.parametrize("check", [ex.check_loo_predictions, ex.check_gradient_w, ex.check_laplace_forward])
def test_function_checks_survive_garbage(check, answer):
    feedback = check(answer)
    assert not feedback.passed and feedback.messages and all(isinstance(m, str) for m in feedback.messages)


@pytest.mark.parametrize("value", [None, "b ", "B", "(b)", "grows", 2, ["b"], {"b": 1}, np.nan, True])
def test_choice_check_survives_garbage(value):
    feedback = ex.check_no_loo_prediction(value)
    assert isinstance(feedback, ex.Feedback) and feedback.messages
    assert feedback.passed == (value in ("b ", "B", "(b)"))


@pytest.mark.parametrize("value", [None, "fast", np.nan, np.inf, -1, 1 + 2j, [1, 2], torch.tensor(2.0), 1e9])
def test_sgd_check_survives_garbage(value):
    d = make_regression_data(50, seed=0)
    for lr, epochs in ((value, 20), (1.0, value)):
        feedback = ex.check_sgd_settings(lr, epochs, d.x_train, d.y_train, TARGET_W)
        assert isinstance(feedback, ex.Feedback) and feedback.messages


def test_nan_gradients_get_an_accurate_message():
    feedback = ex.check_gradient_w(lambda *a: np.nan)
    assert not feedback.passed and "NaN" in text(feedback)


# --- feedback never gives the answer away -----------------------------------------------------------------


def test_wrong_choices_do_not_name_the_answer():
    for choice in ("a", "c"):
        feedback = text(ex.check_no_loo_prediction(choice)).lower()
        assert "without bound" not in feedback and "(b)" not in feedback and "infinity" not in feedback


# --- the new exercises: symmetry and stationary point, the Laplace kernel -------------------------------


@pytest.mark.parametrize("same", [None, "two", np.nan, np.inf, [1, 2], {"w": -2}, 1 + 1j, raises, torch.ones(2)])
@pytest.mark.parametrize("start", [None, "e", 2, ["b"], np.nan, True, "b"])
def test_symmetry_check_survives_garbage(same, start):
    feedback = ex.check_w_symmetry(same, start)
    assert isinstance(feedback, ex.Feedback) and not feedback.passed and feedback.messages
    assert all(isinstance(m, str) for m in feedback.messages)


@pytest.mark.parametrize("same", [-2, -2.0, "-2", " -2 ", np.float32(-2), torch.tensor(-2.0), np.array(-2.0)])
def test_symmetry_check_accepts_minus_two_in_any_form(same):
    assert ex.check_w_symmetry(same, "(B)").passed


@pytest.mark.parametrize(
    ("same", "hint"),
    [
        (2, "w = 2 itself"),
        (0.5, "bandwidth h = 2"),
        (-0.5, "differ from those at w = 2"),
        (3, "differ from those at w = 2"),
        (1e200, "the scores overflow"),
    ],
)
def test_symmetry_check_explains_a_wrong_w(same, hint):
    feedback = ex.check_w_symmetry(same, "b")
    assert not feedback.passed and hint in text(feedback), feedback.messages
    assert "(ii) Right" in text(feedback)


@pytest.mark.parametrize(
    ("start", "hint"), [("a", "how far does the first step go"), ("c", "an even function"), ("d", "nothing is NaN")]
)
def test_symmetry_check_explains_each_wrong_start(start, hint):
    feedback = ex.check_w_symmetry(-2, start)
    assert not feedback.passed and hint in text(feedback), feedback.messages
    assert "(i) Right" in text(feedback)
    assert "stays" not in text(feedback) and "(b)" not in text(feedback)  # the answer is not given away


def test_symmetry_success_claims_the_computed_facts():
    """The success message claims dL/dw = 0 exactly and w unmoved: autograd agrees, independently of the check."""
    d = make_regression_data(50, seed=0)
    x, y = torch.tensor(d.x_train, dtype=torch.float64), torch.tensor(d.y_train, dtype=torch.float64)
    keys = torch.stack([torch.cat([x[:i], x[i + 1 :]]) for i in range(50)])
    values = torch.stack([torch.cat([y[:i], y[i + 1 :]]) for i in range(50)])
    w = torch.zeros((), dtype=torch.float64, requires_grad=True)
    weights = torch.softmax(-(((x[:, None] - keys) * w) ** 2) / 2, dim=1)
    torch.mean(((weights * values).sum(1) - y) ** 2).backward()
    assert not w.grad.item()
    message = text(ex.check_w_symmetry(-2, "b"))
    assert "dL/dw = 0 exactly" in message and "still exactly 0" in message


@pytest.mark.parametrize("value", [None, "b ", "B", "(b)", "corners", 2, ["b"], {"b": 1}, np.nan, True])
def test_laplace_choice_check_survives_garbage(value):
    feedback = ex.check_laplace_prediction(value)
    assert isinstance(feedback, ex.Feedback) and feedback.messages
    assert feedback.passed == (value in ("b ", "B", "(b)"))


@pytest.mark.parametrize(
    ("choice", "hint"), [("a", "slope at x_i is 0"), ("c", "nearest-neighbour"), ("d", "not a straight line")]
)
def test_laplace_wrong_choices_are_explained_without_the_answer(choice, hint):
    feedback = ex.check_laplace_prediction(choice)
    assert feedback.attempted and not feedback.passed and hint in text(feedback)
    assert "corner" not in text(feedback) and "(b)" not in text(feedback)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_loo_predictions_not_finite_is_called_so(bad):
    feedback = ex.check_loo_predictions(lambda x, y, w: torch.full(x.shape, bad) * w)
    assert not feedback.passed and ("NaN" if bad != bad else "inf") in text(feedback)


def test_loo_predictions_shape_of_the_weights_is_named():
    def weights_only(x, y, w):
        scores = -(((x[:, None] - x) * w) ** 2) / 2
        return torch.softmax(scores.masked_fill(torch.eye(x.shape[0], dtype=torch.bool), float("-inf")), dim=1)

    assert "shape of the weights" in text(ex.check_loo_predictions(weights_only))


def test_the_reference_loo_predictions_equal_the_library_on_the_course_data(nb04):
    """The masked (n, n) construction against nn.leave_one_out's (n, n - 1) keys, at several w."""
    from attention_lab import nn as aln

    d = make_regression_data(50, seed=0)
    x, y = torch.tensor(d.x_train, dtype=torch.float64), torch.tensor(d.y_train, dtype=torch.float64)
    keys, values = aln.leave_one_out(x, y)
    for w_value in (0.3, 1.0, 5.0, 40.0):
        model = aln.NWKernelRegression(w_value).double()
        with torch.no_grad():
            expected = model(x, keys, values)
        got = nb04.loo_predictions(x, y, torch.tensor(w_value, dtype=torch.float64))
        assert torch.allclose(got, expected, atol=1e-10), w_value


def test_the_reference_laplace_forward_is_the_kernel_ratio(nb04):
    """The softmax of -w |x - x_i| against the kernel ratio exp(-w |x - x_i|) / sum, an independent computation."""
    rng = np.random.default_rng(4)
    for _ in range(10):
        q, k, v, w = rng.uniform(0, 5, 7), rng.uniform(0, 5, 9), rng.normal(size=9), rng.uniform(0.1, 5)
        kernel = np.exp(-w * np.abs(q[:, None] - k))
        expected = (kernel * v).sum(1) / kernel.sum(1)
        got = nb04.laplace_forward(*(torch.tensor(a) for a in (q, k, v)), torch.tensor(w, dtype=torch.float64))
        assert np.allclose(got.numpy(), expected, rtol=1e-10)
