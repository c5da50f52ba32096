"""The exercise checks of notebook 04: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""


import numpy as np
import pytest
import torch
from conftest import load_solution, raises, stub, text

from attention_lab import exercises as ex
from attention_lab import make_regression_data

TARGET_W = 4.93  # about where Adam ends in the notebook (the check is told the target)


@pytest.fixture(scope="module")
def nb04():
    return load_solution("notebook_04")


# --- reference answers and stubs --------------------------------------------------------------------------

def test_reference_answers_pass(nb04):
    d = make_regression_data(50, seed=0)
    assert ex.check_nw_forward(nb04.nw_forward).passed
    assert ex.check_leave_one_out(nb04.loo_keys).passed
    assert ex.check_sgd_settings(nb04.SGD_LEARNING_RATE, nb04.SGD_EPOCHS, d.x_train, d.y_train, TARGET_W).passed
    assert ex.check_no_loo_prediction(nb04.NO_LOO_CHOICE).passed
    assert ex.check_gradient_w(nb04.gradient_w).passed


def test_unfinished_stubs_are_not_attempted():
    d = make_regression_data(50, seed=0)
    assert not ex.check_nw_forward(stub).attempted and not ex.check_leave_one_out(stub).attempted
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
        loss = torch.mean((torch.softmax(-((qt[:, None] - kt) * w_t) ** 2 / 2, dim=1) @ vt - tt) ** 2)
        loss.backward()
        assert nb04.gradient_w(q, k, v, t, w) == pytest.approx(w_t.grad.item(), rel=1e-9, abs=1e-12)


# --- typical mistakes -------------------------------------------------------------------------------------

def test_forward_and_leave_one_out_mistakes_are_explained():
    def no_half(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w) ** 2, dim=1) * v).sum(1)

    def wrong_dim(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, dim=0) * v).sum(1)

    def detached(q, k, v, w):
        return (torch.softmax(-((q[:, None] - k) * w.item()) ** 2 / 2, dim=1) * v).sum(1)

    for answer, hint in [(no_half, "1/2 is missing"), (wrong_dim, "over the queries"), (detached, "no gradient")]:
        feedback = ex.check_nw_forward(answer)
        assert not feedback.passed and hint in text(feedback), feedback.messages
    feedback = ex.check_leave_one_out(lambda x: x.expand(x.shape[0], x.shape[0]))
    assert not feedback.passed and "attend to itself" in text(feedback)


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
    [("numerator", "only the numerator"), ("sign", "wrong sign"), ("sum", "n times too large"),
     ("no2", "factor 2 is off"), ("dw2", "with respect to w itself")],
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
@pytest.mark.parametrize("check", [ex.check_nw_forward, ex.check_leave_one_out, ex.check_gradient_w])
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


# --- reported by a tester: accurate NaN messages, no expected answers in failing feedback ------------------

@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_leave_one_out_not_finite_is_called_so(bad):
    feedback = ex.check_leave_one_out(lambda x: torch.full((5, 4), bad))
    message = text(feedback)
    assert not feedback.passed and ("NaN" if bad != bad else "inf") in message
    assert "another order" not in message, feedback.messages


def test_leave_one_out_order_and_wrong_numbers_are_told_apart():
    def reversed_rows(x):
        n = x.shape[0]
        return x.expand(n, n)[~torch.eye(n, dtype=torch.bool)].reshape(n, n - 1).flip(1)

    def doubled(x):
        n = x.shape[0]
        return 2 * x.expand(n, n)[~torch.eye(n, dtype=torch.bool)].reshape(n, n - 1) + 10

    assert "another order" in text(ex.check_leave_one_out(reversed_rows))
    feedback = text(ex.check_leave_one_out(doubled))
    assert "another order" not in feedback and "do not hold" in feedback, feedback


def _expected_forward():
    q, k = torch.tensor([0.5, 2.0, 3.5]), torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    v = torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0])
    return (torch.softmax(-(((q[:, None] - k) * 1.3) ** 2) / 2, dim=1) * v).sum(1).numpy().round(4).tolist()


@pytest.mark.parametrize("answer", [
    lambda q, k, v, w: (torch.softmax(-((q[:, None] - k) * w) ** 2, dim=1) * v).sum(1),            # no 1/2
    lambda q, k, v, w: (torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, dim=0) * v).sum(1),        # dim 0
    lambda q, k, v, w: (torch.exp(-((q[:, None] - k) * w) ** 2 / 2) * v).sum(1),                   # unnormalised
    lambda q, k, v, w: (torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, dim=1) * v).sum(1) + 0.1,  # off
])
def test_forward_feedback_never_prints_the_expected_predictions(answer):
    feedback = ex.check_nw_forward(answer)
    message = text(feedback)
    assert not feedback.passed and "Expected" not in message
    assert str(_expected_forward()) not in message
    for value in _expected_forward():
        assert f"{value}" not in message, message


def test_forward_mistakes_without_a_named_slip_are_described():
    # normalised by the wrong sum: not a named slip, but its predictions leave the values' range
    halved = ex.check_nw_forward(lambda q, k, v, w: (2 * torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, 1) * v).sum(1))
    assert "outside the range of the values" in text(halved), halved.messages
    off = ex.check_nw_forward(lambda q, k, v, w: (torch.softmax(-((q[:, None] - k) * w) ** 2 / 2, dim=1) * v).sum(1)
                              + 0.1)
    assert "three steps" in text(off), off.messages


def test_forward_nan_gets_an_accurate_message():
    feedback = ex.check_nw_forward(lambda q, k, v, w: torch.full((3,), float("nan")) * w)
    assert not feedback.passed and "NaN" in text(feedback)
