"""attention_lab.nn.kernel_regression: Nadaraya-Watson as a torch module (notebook 04)."""

import numpy as np
import pytest
import torch
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab import make_regression_data, nadaraya_watson, nn


@settings(max_examples=examples(40), deadline=None)
@given(w=st.floats(0.05, 20.0), seed=st.integers(0, 1000))
def test_nw_module_equals_the_numpy_estimator(w, seed):
    d = make_regression_data(30, seed=seed)
    model = nn.NWKernelRegression(w).double()
    got = model(*(torch.tensor(a) for a in (d.x_test, d.x_train, d.y_train)))
    w_stored = model.w.item()  # the float32 parameter's value, now exactly in float64
    expected, weights = nadaraya_watson(d.x_test, d.x_train, d.y_train, bandwidth=1 / w_stored)
    np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.attention_weights.numpy(), weights, rtol=1e-10, atol=1e-12)
    assert model.attention_weights.shape == (50, 30) and not model.attention_weights.requires_grad


def test_per_query_keys_match_shared_keys_and_leave_one_out_drops_the_diagonal():
    x = torch.tensor([0.1, 0.7, 1.5, 2.0])
    y = torch.tensor([1.0, 2.0, 0.0, 3.0])
    model = nn.NWKernelRegression(2.0)
    shared = model(x, x, y)
    per_query = model(x, x.expand(4, 4), y.expand(4, 4))
    torch.testing.assert_close(shared, per_query)
    keys, values = nn.leave_one_out(x, y)
    assert keys.shape == values.shape == (4, 3)
    torch.testing.assert_close(keys[2], torch.tensor([0.1, 0.7, 2.0]))
    torch.testing.assert_close(values[0], torch.tensor([2.0, 0.0, 3.0]))
    loo = model(x, keys, values)
    expected = torch.stack(
        [(torch.softmax(-(((x[i] - keys[i]) * 2.0) ** 2) / 2, 0) * values[i]).sum() for i in range(4)]
    )
    torch.testing.assert_close(loo, expected)


def test_gradients_are_finite_even_far_from_every_key():
    model = nn.NWKernelRegression(3.0)
    queries = torch.tensor([0.0, 100.0])  # the second query is far from every key
    out = model(queries, torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
    out.sum().backward()
    assert torch.isfinite(out).all() and torch.isfinite(model.w.grad)
    adaptive = nn.AdaptiveNWKernelRegression(1.5, hidden=4)
    widths = adaptive.inverse_width(torch.linspace(0, 5, 7))
    torch.testing.assert_close(widths, torch.full((7, 1), 1.5), atol=0.2, rtol=0)
    adaptive(queries, torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])).sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in adaptive.parameters())


@pytest.mark.parametrize("model_class", [nn.NWKernelRegression, nn.AdaptiveNWKernelRegression])
def test_short_training_with_leave_one_out_lowers_the_loss_and_is_seeded(model_class):
    d = make_regression_data(50, seed=0)
    x, y = torch.tensor(d.x_train, dtype=torch.float32), torch.tensor(d.y_train, dtype=torch.float32)
    keys, values = nn.leave_one_out(x, y)

    def train():
        torch.manual_seed(0)
        model = model_class(1.0)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
        losses = []
        for _ in range(20):
            optimizer.zero_grad()
            loss = torch.mean((model(x, keys, values) - y) ** 2)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    losses = train()
    assert losses[-1] < 0.95 * losses[0]
    assert losses == train()  # identical run to run


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((torch.zeros(2, 2), torch.zeros(3), torch.zeros(3)), r"queries must have shape \(n_q,\), got \(2, 2\)"),
        ((torch.zeros(2), torch.zeros(3), torch.zeros(4)), r"keys and values must have the same shape"),
        ((torch.zeros(2), torch.zeros(3, 3), torch.zeros(3, 3)), r"shape \(n_k,\) or \(n_q, n_k\) = \(2, n_k\)"),
        (([0.0], torch.zeros(3), torch.zeros(3)), r"queries must be a floating-point torch tensor, got \[0.0\]"),
    ],
)
def test_nw_module_input_errors(args, message):
    with pytest.raises(ValueError, match=message):
        nn.NWKernelRegression()(*args)
    with pytest.raises(ValueError, match="x and y must be 1-D with the same length >= 2"):
        nn.leave_one_out(torch.zeros(1), torch.zeros(1))


def test_a_subclass_scores_differently_through_shifted_scores():
    """Notebook 04, section 6: a subclass that overrides shifted_scores changes the model (the Laplace kernel)."""

    class Laplace(nn.NWKernelRegression):
        @staticmethod
        def shifted_scores(diff, w):
            return -diff.abs() * w

    x = torch.tensor([0.0, 0.5, 1.7, 3.0])
    y = torch.tensor([1.0, -1.0, 2.0, 0.5])
    q = torch.tensor([0.2, 2.2])
    laplace, gaussian = Laplace(2.0), nn.NWKernelRegression(2.0)
    expected = torch.softmax(-2.0 * (q[:, None] - x).abs(), dim=1) @ y
    torch.testing.assert_close(laplace(q, x, y), expected)
    assert not torch.allclose(gaussian(q, x, y), expected)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nn.NWKernelRegression(float("nan")), r"w must be a positive finite number"),
        (lambda: nn.NWKernelRegression(float("inf")), r"w must be a positive finite number"),
        (lambda: nn.NWKernelRegression(-1.0), r"w must be a positive finite number"),
        (lambda: nn.NWKernelRegression(1e39), r"w must fit a float32"),
        (lambda: nn.NWKernelRegression("1"), r"w must be a positive finite number"),
        (lambda: nn.AdaptiveNWKernelRegression(1.0, hidden=0), r"hidden must be an integer >= 1"),
        (lambda: nn.NWKernelRegression()(torch.zeros(3, 1), torch.zeros(4), torch.zeros(4)), r"queries must have"),
        (lambda: nn.NWKernelRegression()(torch.zeros(3), torch.zeros(4), torch.zeros(5)), r"same shape"),
        (lambda: nn.NWKernelRegression()(torch.zeros(3), torch.zeros(0), torch.zeros(0)), r"at least one key"),
        (lambda: nn.NWKernelRegression()(torch.zeros(3), torch.zeros(2, 4), torch.zeros(2, 4)), r"\(n_q, n_k\)"),
        (
            lambda: nn.NWKernelRegression()(torch.tensor([float("nan")]), torch.zeros(4), torch.zeros(4)),
            r"queries must not contain NaN",
        ),
        (
            lambda: nn.NWKernelRegression()(torch.zeros(3), torch.zeros(4), torch.full((4,), float("inf"))),
            r"values must be finite",
        ),
        (lambda: nn.leave_one_out(torch.zeros(1), torch.zeros(1)), r"length >= 2"),
        (lambda: nn.leave_one_out(torch.zeros(3), torch.zeros(3, dtype=torch.float64)), r"same dtype"),
    ],
)
def test_specific_bad_input_gets_a_specific_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@given(exponent=st.integers(0, 38))
def test_kernel_regression_stays_finite_for_any_width(exponent):
    """Large w: the nearest-key limit, finite outputs and gradients (w >= 89 used to give NaN)."""
    x = torch.sort(torch.rand(12, generator=torch.Generator().manual_seed(1)) * 5).values  # no ties in distance
    keys, values = nn.leave_one_out(x, torch.sin(x))
    for model in (nn.NWKernelRegression(3.0 * 10.0**exponent), nn.AdaptiveNWKernelRegression(3.0 * 10.0**exponent)):
        out = model(x, keys, values)
        out.sum().backward()
        assert torch.isfinite(out).all()
        assert all(torch.isfinite(p.grad).all() for p in model.parameters())
    if exponent >= 3:  # far beyond the spacing: each point copies its nearest other key
        nearest = (x[:, None] - keys).abs().argmin(dim=1)
        assert torch.allclose(out.detach(), values[torch.arange(12), nearest])


def test_adaptive_width_starts_at_w_even_when_large():
    model = nn.AdaptiveNWKernelRegression(100.0)
    assert torch.allclose(model.inverse_width(torch.linspace(0, 5, 7)), torch.tensor(100.0), rtol=1e-3)
