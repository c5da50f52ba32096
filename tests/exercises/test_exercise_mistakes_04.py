"""Notebook 04's checks against catalogues of plausible wrong code: each is rejected with feedback naming the mistake.

Two implement-exercises: leave-one-out predictions by masking the diagonal of the (n, n) scores (Exercise 3), and the
forward pass with the Laplace kernel (Exercise 7). The reference answers and other correct variants pass.
"""

import pytest
import torch
from helpers import load_solution, text

from attention_lab import exercises as ex


def _scores(x, w):
    return -(((x[:, None] - x[None, :]) * w) ** 2) / 2  # (n, n): alpha_ij


def _eye(x):
    return torch.eye(x.shape[0], dtype=torch.bool)


def _masked(mask_of, fill=float("-inf")):
    """Predictions with the scores where ``mask_of(x)`` is True set to ``fill`` before the softmax."""

    def fn(x, y, w):
        return torch.softmax(_scores(x, w).masked_fill(mask_of(x), fill), dim=1) @ y

    return fn


def _zeroed_after(renormalise):
    def fn(x, y, w):
        weights = torch.softmax(_scores(x, w), dim=1).masked_fill(_eye(x), 0.0)
        if renormalise:
            weights = weights / weights.sum(dim=1, keepdim=True)
        return weights @ y

    return fn


def _diagonal_set_to_zero(x, y, w):
    return torch.softmax(_scores(x, w).masked_fill(_eye(x), 0.0), dim=1) @ y


def _scores_times_mask(x, y, w):
    return torch.softmax(_scores(x, w) * (~_eye(x)), dim=1) @ y


def _no_mask(x, y, w):
    return torch.softmax(_scores(x, w), dim=1) @ y


def _softmax_over_queries(x, y, w):
    weights = torch.softmax(_scores(x, w).masked_fill(_eye(x), float("-inf")), dim=0)
    return (weights * y[None, :]).sum(dim=1)


def _summed_over_queries(x, y, w):
    weights = torch.softmax(_scores(x, w).masked_fill(_eye(x), float("-inf")), dim=1)
    return (weights * y[:, None]).sum(dim=0)


def _values_on_the_wrong_axis(x, y, w):
    weights = torch.softmax(_scores(x, w).masked_fill(_eye(x), float("-inf")), dim=1)
    return (weights * y[:, None]).sum(dim=1)


def _mask_times_minus_inf(x, y, w):
    return torch.softmax(_scores(x, w) + _eye(x) * float("-inf"), dim=1) @ y


def _detached(x, y, w):
    return _masked(_eye)(x, y, w.item())


LOO_MISTAKES = [
    ("diagonal score set to 0", _diagonal_set_to_zero, "already 0, the largest score"),
    ("scores multiplied by the 0/1 mask", _scores_times_mask, "multiplying the scores by a 0/1 mask"),
    ("no mask at all", _no_mask, "as if there were no mask"),
    ("weights zeroed after the softmax", _zeroed_after(renormalise=False), "without renormalising"),
    ("mask one to the right (rolled)", _masked(lambda x: _eye(x).roll(1, dims=1)), "next to the diagonal"),
    (
        "mask one to the left (diagonal -1)",
        _masked(lambda x: torch.ones(x.shape[0] - 1).diag(-1).bool()),
        "next to the diagonal",
    ),
    (
        "mask one to the right (diagonal +1)",
        _masked(lambda x: torch.ones(x.shape[0] - 1).diag(1).bool()),
        "next to the diagonal",
    ),
    ("softmax over the queries (dim 0)", _softmax_over_queries, "softmax runs over the queries (dim=0)"),
    ("weighted sum over the queries (dim 0)", _summed_over_queries, "or your weighted sum does"),
    ("values on the wrong axis", _values_on_the_wrong_axis, "wrong axis"),
    ("mask inverted: only the diagonal kept", _masked(lambda x: ~_eye(x)), "keeps only the diagonal"),
    ("mask times -inf added: 0 * -inf", _mask_times_minus_inf, "0 * (-inf) = NaN"),
    ("w detached (not differentiable)", _detached, "no gradient flows back to w"),
    ("a finite penalty of -1 on the diagonal", _masked(_eye, fill=-1.0), "a finite penalty"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), LOO_MISTAKES, ids=[m[0] for m in LOO_MISTAKES])
def test_loo_predictions_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_loo_predictions(fn)
    assert feedback.attempted and not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _from_the_library(x, y, w):
    from attention_lab import nn as aln

    keys, values = aln.leave_one_out(x, y)  # (n, n - 1): the construction of section 2
    return (torch.softmax(-(((x[:, None] - keys) * w) ** 2) / 2, dim=1) * values).sum(dim=1)


def _with_where(x, y, w):
    scores = torch.where(_eye(x), torch.tensor(float("-inf")), _scores(x, w))
    return (torch.softmax(scores, dim=1) * y[None, :]).sum(dim=1)


LOO_RIGHT = [
    ("the reference answer", lambda *a: load_solution("notebook_04").loo_predictions(*a)),
    ("-inf with masked_fill", _masked(_eye)),
    ("a finite -1e9", _masked(_eye, fill=-1e9)),
    ("torch.where", _with_where),
    ("zeroed after the softmax, then renormalised", _zeroed_after(renormalise=True)),
    ("the (n, n - 1) keys of nn.leave_one_out", _from_the_library),
]


@pytest.mark.parametrize(("variant", "fn"), LOO_RIGHT, ids=[r[0] for r in LOO_RIGHT])
def test_loo_predictions_check_accepts_correct_variants(variant, fn):
    feedback = ex.check_loo_predictions(fn)
    assert feedback.passed, (variant, text(feedback))
    assert "match those from the (n, n - 1) leave-one-out keys" in text(feedback)


def _laplace(score, dim=1, normalise=True, detach=False):
    def fn(queries, keys, values, w):
        w = w.item() if detach else w
        s = score(queries[:, None] - keys[None, :], w)  # (n_q, n_k)
        weights = torch.softmax(s, dim=dim) if normalise else torch.exp(s)
        return (weights * values).sum(dim=1)

    return fn


LAPLACE_MISTAKES = [
    ("the Gaussian score", _laplace(lambda d, w: -((d * w) ** 2) / 2), "That is the Gaussian score"),
    ("squared distance", _laplace(lambda d, w: -w * d**2), "You squared the distance"),
    ("no absolute value", _laplace(lambda d, w: -w * d), "Without the absolute value"),
    ("sign flipped", _laplace(lambda d, w: w * d.abs()), "sign is flipped"),
    ("w squared", _laplace(lambda d, w: -(w**2) * d.abs()), "not squared"),
    ("divided by w", _laplace(lambda d, w: -d.abs() / w), "do not divide"),
    ("a stray 1/2", _laplace(lambda d, w: -w * d.abs() / 2), "No 1/2 here"),
    ("softmax over the queries", _laplace(lambda d, w: -w * d.abs(), dim=0), "over the queries"),
    ("no normalisation", _laplace(lambda d, w: -w * d.abs(), normalise=False), "without their normalisation"),
    ("w detached", _laplace(lambda d, w: -w * d.abs(), detach=True), "no gradient flows back to w"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), LAPLACE_MISTAKES, ids=[m[0] for m in LAPLACE_MISTAKES])
def test_laplace_forward_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_laplace_forward(fn)
    assert feedback.attempted and not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def test_laplace_forward_check_accepts_correct_variants():
    def kernel_ratio(queries, keys, values, w):  # exp / sum, unshifted: fine for the check's small scores
        kernel = torch.exp(-w * (queries[:, None] - keys).abs())
        return kernel @ values / kernel.sum(dim=1)

    def shifted(queries, keys, values, w):
        distance = (queries[:, None] - keys).abs()
        return torch.softmax(-(distance - distance.amin(dim=1, keepdim=True)) * w, dim=1) @ values

    for fn in (load_solution("notebook_04").laplace_forward, kernel_ratio, shifted):
        feedback = ex.check_laplace_forward(fn)
        assert feedback.passed and "gradient of their sum with respect to w, match" in text(feedback), text(feedback)


def test_failing_feedback_never_prints_the_expected_predictions():
    """A wrong answer is shown back to the student, the right numbers are not."""
    q, k = torch.tensor([0.5, 2.0, 3.5]), torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    v = torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0])
    expected = (torch.softmax(-1.3 * (q[:, None] - k).abs(), dim=1) @ v).numpy().round(4).tolist()
    for _, fn, _ in LAPLACE_MISTAKES[:-1]:
        message = text(ex.check_laplace_forward(fn))
        assert not any(f"{value}" in message for value in expected), message
