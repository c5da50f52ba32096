"""Exercise checks of notebook 04 about the score itself: the symmetry w -> -w of the Gaussian score and its
stationary point w = 0, and a model with another kernel, the Laplace kernel (answers: ``solutions/notebook_04.py``)."""

from __future__ import annotations

import numpy as np

from .feedback import Feedback, as_tensor_result, exercise, not_attempted, to_float_array, unanswered

__all__ = [
    "check_w_symmetry",
    "check_laplace_prediction",
    "check_laplace_forward",
    "gaussian_pool",
    "values_then_gradient",
]


def _course_tensors():
    """The notebook's data as float64 tensors: keys x_i and values y_i (50 each), and the 50 test queries."""
    import torch

    from ..regression_data import make_regression_data

    data = make_regression_data(50, noise=0.5, seed=0)
    return tuple(torch.tensor(a, dtype=torch.float64) for a in (data.x_train, data.y_train, data.x_test))


def gaussian_pool(queries, keys, values, w):
    """The model of section 1 written out, float64, without the library's shift: keys (n_k,) or (n_q, n_k)."""
    import torch

    diff = queries[:, None] - keys  # (n_q, n_k)
    return (torch.softmax(-((diff * w) ** 2) / 2, dim=1) * values).sum(dim=1)  # (n_q,)


def _a_number(value):
    """``value`` as one finite float (a number, a 0-d array or tensor, or text such as "-2"), else None."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    array, why = to_float_array(value)
    if why is not None or array.size != 1 or not np.isfinite(array).all():
        return None
    return float(array.reshape(()))


_START_CHOICES = ("a", "b", "c", "d")


@exercise("predict, then check: the same model at two values of w, and a start at w = 0")
def check_w_symmetry(name, same_as_w2, start_at_zero) -> Feedback:
    """Exercise: (i) another w with the same predictions as w = 2; (ii) what gradient descent does from w = 0.

    Both are verified on the course data with the score written out (not the library, whose shift uses |w|):
    the predictions at the student's w against those at w = 2, and dL/dw at w = 0 by autograd, with the
    leave-one-out loss, followed by 20 steps of SGD and of Adam.
    """
    import torch

    from ..nn import leave_one_out

    if unanswered(start_at_zero):
        return not_attempted(name)
    x, y, queries = _course_tensors()
    messages, right = [], 0
    w_other = _a_number(same_as_w2)
    if w_other is None:
        messages.append(f"(i) Give one number for w, such as 0.7; got {type(same_as_w2).__name__} {same_as_w2!r:.40}.")
    else:
        with torch.no_grad():
            gap = float((gaussian_pool(queries, x, y, w_other) - gaussian_pool(queries, x, y, 2.0)).abs().max())
        if abs(w_other - 2) < 1e-9:
            messages.append("(i) That is w = 2 itself: find another w that gives the same predictions.")
        elif gap < 1e-9:
            right += 1
            messages.append(
                f"(i) Right: at w = {w_other:g} the 50 predictions equal those at w = 2 (largest "
                "difference below 1e-9): the score -((x - x_i) w)^2 / 2 depends on w only through w^2."
            )
        else:
            hint = (
                f"(i) At w = {w_other:g} the predictions differ from those at w = 2 by up to {gap:.3f}. "
                if np.isfinite(gap)
                else f"(i) At w = {w_other:g} the scores overflow: no predictions at all. "
            )
            if abs(w_other - 0.5) < 1e-9:
                hint += "w = 1/h, so w = 0.5 is the bandwidth h = 2, a wider kernel: another model. "
            messages.append(
                hint + "Look at how w enters the score -((x - x_i) w)^2 / 2: which other w gives the "
                "same score for every pair?"
            )
    letter = start_at_zero.strip().strip("()").lower() if isinstance(start_at_zero, str) else None
    if letter not in _START_CHOICES:
        messages.append(f'(ii) Answer with one letter in quotes, "a", "b", "c" or "d"; got {start_at_zero!r:.40}.')
        return Feedback(name, False, messages)
    keys, values = leave_one_out(x, y)  # (50, 49) each
    paths = {}
    for optimiser in (torch.optim.SGD, torch.optim.Adam):
        w = torch.zeros((), dtype=torch.float64, requires_grad=True)
        step = optimiser([w], lr=0.5)
        grads = []
        for _ in range(20):
            step.zero_grad()
            loss = torch.mean((gaussian_pool(x, keys, values, w) - y) ** 2)
            loss.backward()
            grads.append(float(w.grad))
            step.step()
        paths[optimiser.__name__] = (grads, float(w.detach()))
    grads, w_sgd = paths["SGD"]
    stayed = all(g == 0 for g in grads) and w_sgd == 0 and paths["Adam"][1] == 0  # exact: 0 * anything finite
    if letter == "b" and stayed:
        right += 1
        messages.append(
            "(ii) Right: on the course data (leave-one-out keys) autograd gives dL/dw = 0 exactly at "
            "w = 0, and after 20 steps of SGD and of Adam (learning rate 0.5) w is still exactly 0. "
            "d alpha_ij / d w = -(x_i - x_j)^2 w is 0 for every pair, so every term of the chain rule "
            "is 0."
        )
    elif letter == "a":
        messages.append(
            "(ii) From w = 1 it moves towards that minimum (section 3). At w = 0 work out "
            "d alpha_ij / d w = -(x_i - x_j)^2 w for a pair, and follow it through the chain rule to "
            "dL/dw: how far does the first step go?"
        )
    elif letter == "c":
        messages.append(
            "(ii) To move to negative w the first step needs dL/dw > 0 at w = 0. But L is the same at "
            "w and -w (part (i)): what is the slope of an even function at 0?"
        )
    elif letter == "d":
        messages.append(
            "(ii) The model is written in w, not h = 1/w: at w = 0 every score is 0 and every weight "
            "1/n_k, a plain average of the values. Nothing is infinite, so nothing is NaN. What is "
            "dL/dw there?"
        )
    else:  # pragma: no cover - autograd would have to move w from an exact stationary point
        messages.append("(ii) Autograd did not give dL/dw = 0 at w = 0 on this machine; please report it.")
    return Feedback(name, right == 2, messages)


def values_then_gradient(got, w, expected, w64, mistakes) -> tuple[bool, str | None]:
    """A student's predictions ``got`` (a tensor computed from ``w``) against ``expected`` (float64, from ``w64``).

    (True, None): the values and the gradient of their sum with respect to w are right. (True, what is wrong):
    the values are right, the gradient is not. (False, a hint or None): the values are wrong; the hint is that
    of the first of ``mistakes``, (predictions, hint) pairs of plausible slips, whose predictions they match.
    """
    import torch

    mine = got.detach().double()
    if not torch.allclose(mine, expected.detach(), atol=1e-5):
        with torch.no_grad():
            return False, next((hint for wrong, hint in mistakes if torch.allclose(mine, wrong, atol=1e-5)), None)
    if not got.requires_grad:
        return True, (
            "The numbers are right, but no gradient flows back to w: keep every step in torch (no .item(), "
            ".numpy(), .detach() or torch.tensor(...) around w)."
        )
    (mine_grad,) = torch.autograd.grad(got.sum(), w, allow_unused=True)
    (right,) = torch.autograd.grad(expected.sum(), w64)
    if mine_grad is None or not abs(float(mine_grad) - float(right)) <= 1e-4 * (1 + abs(float(right))):  # NaN too
        return True, (
            "The numbers are right, but their gradient with respect to w is not: part of the computation is cut "
            "off from w (a .item(), .detach(), .numpy() or torch.tensor(...) on the way)."
        )
    return True, None


# --- Exercises 6 and 7: another kernel, the Laplace kernel -----------------------------------------------


@exercise("predict, then check: the fitted curve of the Laplace kernel")
def check_laplace_prediction(name, choice) -> Feedback:
    """Exercise: what the Laplace-kernel fit looks like next to the Gaussian's (a, b, c or d)."""
    letter = choice.strip().strip("()").lower() if isinstance(choice, str) else None
    if letter not in ("a", "b", "c", "d"):
        return Feedback(name, False, [f'Answer with one letter in quotes, "a", "b", "c" or "d"; got {choice!r:.40}.'])
    hints = {
        "b": "Right; the cell after the next exercise measures it. exp(-w |x - x_i|) has a corner at x = x_i (slope "
        "+w just left of it, -w just right), and the weighted average keeps a corner there, its slope jumps (unless "
        "y_i equals the fit there: the jump is -2 w lambda_i(x_i) (y_i - f(x_i)), measured below). "
        "The Gaussian exp(-((x - x_i) w)^2 / 2) has slope 0 at x = x_i and no corner.",
        "a": "Look at one weight before normalising, exp(-w |x - x_i|), as x passes x_i: what is its slope just "
        "left of x_i, and just right of it? Compare with exp(-((x - x_i) w)^2 / 2), whose slope at x_i is 0.",
        "c": "A staircase is the limit w -> infinity, nearest-neighbour regression, and even that one jumps midway "
        "between neighbouring keys, not at them. At a finite w every weight "
        "exp(-w |x - x_i|) changes continuously with x, so the fit has no jumps in its value. Look at its "
        "slope instead as x passes a key.",
        "d": "Between two neighbouring keys every kernel value exp(-w |x - x_i|) is a constant times e^(w x) or "
        "e^(-w x), and the fit is a ratio of sums of such exponentials, not a straight line in general. What "
        "happens to the slope of exp(-w |x - x_i|) as x passes x_i?",
    }
    return Feedback(name, letter == "b", [hints[letter]])


def _laplace_cases():
    import torch

    return [
        (
            torch.tensor([0.5, 2.0, 3.5]),
            torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0]),
            torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0]),
            1.3,
        ),
        (torch.tensor([0.2, 1.7]), torch.tensor([0.4, 1.1, 2.3]), torch.tensor([2.0, -1.0, 0.5]), 0.6),
    ]


def _laplace_mistakes(q, k, v, w):
    import torch

    d = q[:, None] - k  # (n_q, n_k)

    def pool(scores, dim=1):
        return (torch.softmax(scores, dim=dim) * v).sum(dim=1)

    return [
        (
            pool(-((d * w) ** 2) / 2),
            "That is the Gaussian score of section 1. The Laplace score uses the distance "
            "itself, -w |x - x_i|, not its square.",
        ),
        (pool(-w * d**2), "You squared the distance: the Laplace score is -w |x - x_i|, the absolute value."),
        (
            pool(-w * d),
            "Without the absolute value the keys on one side of a query get positive scores, and the "
            "farthest key on that side the largest: the score is -w |x - x_i|, with .abs().",
        ),
        (pool(w * d.abs()), "The sign is flipped: near keys must score highest, so the score is -w |x - x_i|."),
        (pool(-(w**2) * d.abs()), "w enters once, not squared: the score is -w |x - x_i|."),
        (pool(-d.abs() / w), "Multiply by w = 1/h, do not divide by it: the score is -w |x - x_i|."),
        (
            pool(-w * d.abs() / 2),
            "No 1/2 here: the Laplace score is -w |x - x_i| (the Gaussian's 1/2 comes with its square).",
        ),
        (
            pool(-w * d.abs(), dim=0),
            "The softmax runs over the queries (dim=0); each query normalises over its keys (dim=1).",
        ),
        (
            (torch.exp(-w * d.abs()) * v).sum(dim=1),
            "The weights are exp(score) without their normalisation: "
            "divide by each query's sum over the keys (a softmax).",
        ),
    ]


@exercise("the forward pass with the Laplace kernel")
def check_laplace_forward(name, fn) -> Feedback:
    """Exercise: ``fn(queries, keys, values, w)``, softmax_i(-w |x - x_i|)-weighted values, differentiable in w."""
    import torch

    for queries, keys, values, w_value in _laplace_cases():
        w = torch.tensor(w_value, requires_grad=True)
        got, problem = as_tensor_result(
            name,
            fn,
            queries.clone(),
            keys.clone(),
            values.clone(),
            w,
            finite_advice="For these inputs every score is between -6 and 0, so "
            "nothing overflows: print the scores, the weights and their row sums to see "
            "where the NaN or inf first appears.",
        )
        if problem is not None:
            return problem
        q, k, v = queries.double(), keys.double(), values.double()
        w64 = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
        expected = (torch.softmax(-w64 * (q[:, None] - k).abs(), dim=1) * v).sum(dim=1)  # (n_q,)
        where = f"For queries {q.tolist()}, keys {k.tolist()} and w = {w_value}"
        if got.shape != expected.shape:
            return Feedback(
                name,
                False,
                [f"{where} return one prediction per query, shape {tuple(expected.shape)}; got {tuple(got.shape)}."],
            )
        values_right, named = values_then_gradient(got, w, expected, w64, _laplace_mistakes(q, k, v, w_value))
        if values_right:
            if named is not None:  # the gradient is wrong
                return Feedback(name, False, [named])
            continue
        mine = got.detach().double()
        if named is None and bool(((mine < v.min() - 1e-5) | (mine > v.max() + 1e-5)).any()):
            named = (
                "Some predictions lie outside the range of the values. A weighted average with weights that "
                "are non-negative and sum to 1 cannot: normalise with a softmax over the keys."
            )
        return Feedback(
            name,
            False,
            [
                f"{where} you returned {np.round(mine.numpy(), 4).tolist()}: not the Laplace-weighted averages.",
                named
                or "Build it in three steps: the score -w |x - x_i| for every query-key pair, a softmax over the "
                "keys (dim=1), then each query's weighted sum of the values.",
            ],
        )
    return Feedback(
        name,
        True,
        [
            "Your predictions, and the gradient of their sum with respect to w, match softmax_i(-w |x - x_i|)"
            "-weighted averages of the values, for two sets of queries and keys."
        ],
    )
