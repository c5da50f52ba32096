"""Exercise checks of notebook 04, parametric attention pooling (reference answers: ``solutions/notebook_04.py``).

torch is imported inside the checks, so that importing the exercises of notebooks 00-03 does not load it.
"""

from __future__ import annotations

import numpy as np

from ..i18n import _
from ..regression_data import make_regression_data
from .answers import check_choice, multiple_choice, read_number
from .feedback import Feedback, exercise, not_attempted, unanswered
from .runner import Case, Mistake, implement

__all__ = [
    "check_w_symmetry",
    "check_no_loo_prediction",
    "check_loo_predictions",
    "check_gradient_w",
    "check_sgd_settings",
    "check_laplace_prediction",
    "check_laplace_sgd_step",
]
_A = np.array


def _t(values):
    import torch

    return torch.tensor(values, dtype=torch.float64)


def _pool(queries, keys, values, w):
    """softmax over the keys of -((x - x_i) w)^2 / 2, then the weighted sum; keys (n_k,) or (n_q, n_k)."""
    import torch

    return (torch.softmax(-(((queries[:, None] - keys) * w) ** 2) / 2, dim=1) * values).sum(dim=1)


@exercise("predict, then check: the same model at two values of w, and a start at w = 0")
def check_w_symmetry(name, same_as_w2, start_at_zero) -> Feedback:
    """Exercise: (i) another w with the same predictions as w = 2; (ii) what gradient descent does from w = 0
    (verified on the course data: predictions compared, and dL/dw at w = 0 by autograd, exactly 0)."""
    import torch

    from ..nn import leave_one_out

    if unanswered(start_at_zero):
        return not_attempted(name)
    data = make_regression_data(50, noise=0.5, seed=0)
    x, y, queries = _t(data.x_train), _t(data.y_train), _t(data.x_test)
    w_other, why = read_number(same_as_w2, "(i) Your w")
    if why is not None or not np.isfinite(w_other):
        first, ok = why or "(i) Give a finite number.", False
    elif w_other == 2:
        first, ok = "(i) That is w = 2 itself: which other w gives the same predictions?", False
    else:
        with torch.no_grad():
            gap = float((_pool(queries, x, y, w_other) - _pool(queries, x, y, 2.0)).abs().max())
        ok = gap < 1e-9
        first = "(i) Right: the score -((x - x_i) w)^2 / 2 depends on w only through w^2." if ok else _("(i) At w = {w:g} the predictions differ from those at w = 2 by up to {gap:.3f}. Which other w gives the same score -((x - x_i) w)^2 / 2 for every pair?").format(w=w_other, gap=gap)  # fmt: skip
    w = torch.zeros((), dtype=torch.float64, requires_grad=True)
    keys, values = leave_one_out(x, y)
    torch.mean((_pool(x, keys, values, w) - y) ** 2).backward()
    stays = float(w.grad) == 0.0  # exact: d alpha / d w = -(x_i - x_j)^2 w is 0 for every pair
    # fmt: off
    second = check_choice(name, start_at_zero, {
        "a": "gradient descent moves w when it starts from w = 1, but here it starts from w = 0. At w = 0, what is d alpha_ij / d w = -(x_i - x_j)^2 w for a pair?",
        "b": "",
        "c": "to move to negative w the first step needs dL/dw > 0 at w = 0. L is the same at w and -w (part (i)): what is the slope of an even function at 0?",
        "d": "at w = 0 every score is 0 and every weight 1/n_k: nothing is infinite. What is dL/dw there?",
    }, "b" if stays else "a",
        success="(ii) Right: autograd gives dL/dw = 0 exactly at w = 0 on the course data, so plain gradient descent never moves; every term of the chain rule holds d alpha_ij / d w = -(x_i - x_j)^2 w = 0.")
    messages = [first, *[m if m.startswith("(ii)") else _("(ii) {m}").format(m=m) for m in second.messages]]
    return Feedback(name, ok and second.passed, messages, hint="(i) Write the score with w^2. (ii) Evaluate d alpha_ij / d w at w = 0.")
    # fmt: on


# fmt: off
check_no_loo_prediction = multiple_choice("predict, then check: training without leave-one-out", {
    "a": "with leave-one-out keys a point is predicted from its neighbours; without them it may also use itself. What does the training loss do as the weight on the key at distance 0 tends to 1?",
    "b": "",
    "c": "a wider kernel pulls every prediction towards the mean of y, which raises the training loss. Which way must w move to lower it when a point is among its own keys?",
}, "b",
    success="With x_i among its own keys, the key at distance 0 always scores highest, and its weight tends to 1 as w grows: each point copies its own y_i and the training loss tends to 0. Nothing stops w.",
    hint="The key at distance 0 has the score 0, the largest in its row, at every w.",
    doc="Exercise: what gradient descent does to w when every training point is one of its own keys (a, b or c).")
# fmt: on


def _loo(x, y, w, mask=lambda n: _eye(n), zero_after=False, columns=False):
    """Leave-one-out predictions (the scores' diagonal to -inf before the softmax), and the students' variants:
    another ``mask``, the diagonal zeroed after the softmax, the weights read down the ``columns``."""
    import torch

    scores = -(((x[:, None] - x[None, :]) * w) ** 2) / 2  # (n, n): alpha_ij, 0 on the diagonal
    if zero_after:
        return torch.softmax(scores, dim=1).fill_diagonal_(0) @ y
    weights = torch.softmax(scores.masked_fill(mask(x.shape[0]), float("-inf")), dim=1)
    return (weights.T if columns else weights) @ y


def _eye(n, shift=0):
    import torch

    return torch.eye(n, dtype=torch.bool).roll(shift, dims=1)


def _same_values(got, expected):
    import torch

    mine, theirs = got.detach().double(), expected.detach().double()
    return mine.shape == theirs.shape and bool(torch.allclose(mine, theirs, atol=1e-5, equal_nan=True))


def _same_values_and_gradient(got, expected, x, y, w):
    """Values right and d(sum)/dw right (the reference's gradient, in float64)."""
    import torch

    if not _same_values(got, expected) or not got.requires_grad:
        return False
    (mine,) = torch.autograd.grad(got.sum(), w, allow_unused=True, retain_graph=True)
    w64 = w.detach().double().requires_grad_(True)
    (right,) = torch.autograd.grad(_loo(x.double(), y.double(), w64).sum(), w64)
    return mine is not None and abs(float(mine) - float(right)) <= 1e-4 * (1 + abs(float(right)))


def _loo_cases():
    import torch

    def case(xs, ys, w, where):
        return Case((torch.tensor(xs), torch.tensor(ys), torch.tensor(w, requires_grad=True)), where)

    return [
        case([0.3, 1.1, 2.0, 2.4, 4.7], [1.0, -0.5, 2.0, 0.7, 3.0], 1.3, "For 5 points at w = 1.3"),
        case([0.0, 0.6, 0.9, 2.2, 3.1, 3.3], [0.5, 1.5, -1.0, 2.5, 0.0, 1.0], 0.8, "For 6 points at w = 0.8"),
        case([0.0, 0.6, 0.9, 2.2], [0.5, 1.5, -1.0, 2.5], 0.05, "For 4 points at the small w = 0.05 (a wide kernel)"),
        case([0.0, 1.0, 5.0, 9.0], [1.0, 2.0, 3.0, 4.0], 40.0, "For 4 points far apart at the large w = 40"),
        case([2.0], [7.0], 1.0, "For a single point (its only key is masked: nothing to average, NaN)"),
    ]


# fmt: off
_NEXT_TO = "{where} you masked the entries next to the diagonal, so point i still sees itself and loses a neighbour. Which entry of row i is point i itself?"
check_loo_predictions = implement("leave-one-out predictions with a mask on the diagonal", _loo_cases, _loo, [
    Mistake.of(lambda x, y, w: _loo(x, y, w, mask=lambda n: _eye(n) & False),  # a mask that hides nothing
        "{where} your predictions {got} are those with every point among its own keys, as if there were no mask. A score of 0 on the diagonal (or a 0/1 mask multiplied in) changes nothing: what is alpha_ii already?", "A weight of exactly 0 needs a score of -inf before the softmax."),
    Mistake.of(lambda x, y, w: _loo(x, y, w, zero_after=True), "{where} your predictions {got}: the diagonal weights are zeroed after the softmax, so each row sums to less than 1. What must still hold for the remaining weights?", "Renormalise, or mask before the softmax."),
    Mistake(when=lambda got, x, y, w: x.shape[0] > 1 and _same_values(got, y), says="{where} each prediction is the point's own y_i. Does your mask hide the diagonal, or everything but it (masked_fill fills where the mask is True)? And do the values run along the keys?", hint="Fill the diagonal; the values go along the keys, y[None, :]."),
    Mistake(when=lambda got, x, y, w: x.shape[0] > 1 and _same_values(got, _loo(x, y, w, columns=True)), says="{where} your predictions {got} read the right weights down the columns: a softmax or a weighted sum over the queries (dim=0). Along which dimension does one query's row run?", hint="softmax(..., dim=1), and the weighted sum along the same row."),
    Mistake.of(lambda x, y, w: _loo(x, y, w, mask=lambda n: _eye(n, 1)), _NEXT_TO, "torch.eye(n) marks j = i."),
    Mistake.of(lambda x, y, w: _loo(x, y, w, mask=lambda n: _eye(n, -1)), _NEXT_TO, "torch.eye(n) marks j = i."),
    Mistake(when=lambda got, x, y, w: x.shape[0] == 1, says="{where} your predictions {got}: for a single point there is no other point, so its row is fully masked and the exact answer is 0/0 = NaN. A finite penalty (such as -1e9) leaves the point its own weight: what does exp(-1e9 - (-1e9)) give?", hint="Use -inf: a fully masked row then gives NaN, honestly."),
    Mistake(when=lambda got, x, y, w: x.shape[0] > 1 and not bool(got.isfinite().all()), says="{where} your predictions {got} hold NaN or inf. Adding mask * float('-inf') gives 0 * (-inf) = NaN off the diagonal: how else can the masked entries get -inf?", hint="Fill them (masked_fill or torch.where)."),
], tensor=True, compare=_same_values_and_gradient, shape="one prediction per point",
    otherwise=Mistake("{where} your predictions {got} are not the leave-one-out predictions, or their gradient with respect to w is not. Is every step in torch (no .item(), .numpy(), .detach()), and is only the diagonal masked?", "Scores (n, n), the diagonal to -inf, a softmax over each row, each row's weighted sum of y."),
    success="Your predictions and the gradient of their sum with respect to w match, at small and large w: masking the diagonal's scores removes each point from its own softmax, and a point with no other point is honestly NaN. A diagonal score of 0 would change nothing: alpha_ii is already 0, the largest in its row.",
    fix="`scores = -(((x[:, None] - x[None, :]) * w) ** 2) / 2; scores = scores.masked_fill(torch.eye(len(x), dtype=torch.bool), float('-inf')); return torch.softmax(scores, dim=1) @ y`",
    doc="Exercise: ``fn(x, y, w)``, each point predicted from the others by masking the diagonal of the (n, n) scores; values and d/dw checked, at small and large w, and a single point (a fully masked row: NaN).")
# fmt: on


def _gradient(queries, keys, values, targets, w):
    import torch

    w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
    loss = torch.mean((_pool(_t(queries), _t(keys), _t(values), w_t) - _t(targets)) ** 2)
    return float(torch.autograd.grad(loss, w_t)[0])


def _numerator_only(q, k, v, t, w):
    diff2 = (q[:, None] - k[None, :]) ** 2
    lam = np.exp(-diff2 * w**2 / 2 - (-diff2 * w**2 / 2).max(axis=1, keepdims=True))
    lam /= lam.sum(axis=1, keepdims=True)
    return float(2 * np.mean((lam @ v - t) * (lam * -diff2 * w * v).sum(axis=1)))


def _times(*factors):  # the true gradient times one of ``factors(q, w)``
    def test(got, q, k, v, t, w):
        truth = _gradient(q, k, v, t, w)
        return any(abs(float(got.reshape(-1)[0]) - c(q, w) * truth) <= 1e-6 + 1e-4 * abs(truth) for c in factors)

    return test


# fmt: off
check_gradient_w = implement("dL/dw by hand", [
    Case((_A([0.5, 2.0, 3.5, 4.1]), _A([0.0, 1.0, 2.0, 3.0, 4.0]), _A([1.0, -1.0, 2.0, 0.5, 3.0]), _A([0.2, 1.5, 1.0, 2.5]), 1.3), "For w = 1.3 and 4 queries"),
    Case((_A([1.0, 1.2, 2.9]), _A([0.4, 1.1, 2.2, 3.3]), _A([0.5, 1.5, -0.5, 2.0]), _A([1.0, 0.0, 1.0]), 0.7), "For w = 0.7 and 3 queries"),
    Case((_A([1.0, 1.2, 8.0]), _A([0.4, 1.1, 2.2, 3.3]), _A([0.5, 1.5, -0.5, 2.0]), _A([1.0, 0.0, 1.0]), 30.0), "For the large w = 30 and a query far from every key (scores down to about -28000)"),
], _gradient, [
    Mistake(when=lambda got, q, k, v, t, w: abs(float(got.reshape(-1)[0]) - _numerator_only(q, k, v, t, w)) <= 1e-6 + 1e-4 * abs(_numerator_only(q, k, v, t, w)), says="{where} your dL/dw {got} differentiates only the numerator of the softmax. Does the normalisation sum_l exp(alpha_l) depend on w?", hint="d lambda_ij / d alpha_il = lambda_ij ([j = l] - lambda_il)."),
    Mistake(when=_times(lambda q, w: -1), says="{where} your dL/dw {got} has the wrong sign. What are the signs of d alpha / d w and of the residual?", hint="alpha = -(q - k)^2 w^2 / 2, residual y_hat - y."),
    Mistake(when=_times(lambda q, w: q.size), says="{where} your dL/dw {got} is n_q times too large. Is the loss a sum or a mean over the queries?", hint="L = (1/n_q) sum_i (...)^2."),
    Mistake(when=_times(lambda q, w: 2, lambda q, w: 0.5), says="{where} your dL/dw {got} is off by a factor 2. Which 2s does the chain rule bring, and which cancel?", hint="Two: the square of the residual, d/dy_hat (y_hat - y)^2 = 2 (y_hat - y), and w^2 / 2, whose derivative is w."),
    Mistake(when=_times(lambda q, w: 1 / w, lambda q, w: 1 / (2 * w)), says="{where} your dL/dw {got} is the derivative with respect to w^2 (or w^2 / 2), not w. What does the chain rule leave when you differentiate w^2?", hint="d(w^2)/dw = 2 w."),
    Mistake(when=_times(lambda q, w: w, lambda q, w: w / 2), says="{where} your dL/dw {got} is w (or w / 2) times the true one: your d alpha / d w keeps a factor w too many. What is the derivative of alpha = -(q - k)^2 w^2 / 2 with respect to w?", hint="(q - k)^2 / 2 is a constant factor; only w^2 changes with w, and d(w^2)/dw = 2 w."),
    Mistake(when=lambda got, *a: not np.isfinite(got).all(), says="{where} your dL/dw {got} holds NaN or inf. Do you compute the weights with a stable softmax?", hint="Subtract each row's largest score."),
], shape="one number, since w is a scalar",
    compare=lambda got, truth, *a: got.size == 1 and abs(float(got.reshape(-1)[0]) - truth) <= 1e-6 + 1e-5 * abs(truth),
    otherwise=Mistake("{where} autograd and your function disagree ({got}). Which of the three steps differs: d alpha / d w, the softmax's derivative, or the average over the queries?", "d y_hat_i / d w = sum_j (d lambda_ij / d w) v_j."),
    success="Your dL/dw matches autograd, also at a large w: backward() computes exactly this chain rule, through the softmax's normalisation.",
    fix="`d_alpha = -diff2 * w; d_lam = lam * (d_alpha - (lam * d_alpha).sum(axis=1, keepdims=True)); return np.mean(2 * (y_hat - targets) * (d_lam @ values))`",
    doc="Exercise: ``fn(queries, keys, values, targets, w)`` returns dL/dw, L = mean((y_hat - targets)^2), by hand.")
# fmt: on


@exercise(lambda learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50: _("an SGD learning rate that converges within {n} epochs").format(n=max_epochs))  # fmt: skip
def check_sgd_settings(name, learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50) -> Feedback:
    """Exercise: SGD settings (mean squared error, w starts at 1) that bring w within ``tolerance`` of ``target_w``."""
    import torch

    from ..nn import NWKernelRegression, leave_one_out

    if unanswered(epochs):
        return not_attempted(name)
    (lr, why), (n, why_n) = read_number(learning_rate, "The learning rate"), read_number(epochs, "The epochs")
    if why or why_n or not (lr > 0 and np.isfinite(lr)) or n != int(n) or not 1 <= n <= max_epochs:
        return Feedback(name, False, why or why_n or _("The learning rate must be > 0 and the epochs an integer from 1 to {most}; got {lr} and {n}.").format(most=max_epochs, lr=repr(learning_rate)[:20], n=repr(epochs)[:20]))  # fmt: skip
    x, y = torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.float32)
    keys, values = leave_one_out(x, y)
    model = NWKernelRegression(1.0)
    optimizer, path, n = torch.optim.SGD(model.parameters(), lr=lr), [], int(n)
    for _epoch in range(n):
        optimizer.zero_grad()
        torch.mean((model(x, keys, values) - y) ** 2).backward()
        optimizer.step()
        path.append(float(model.w.detach()))
    w, top, high = path[-1], max(path), (1 + tolerance) * target_w
    if np.isfinite(w) and abs(w - target_w) <= tolerance * abs(target_w):
        return Feedback(name, True, _("After {n} epochs at lr {lr:g}, w = {w:.3f} (target {target:.3f}).").format(n=n, lr=lr, w=w, target=target_w))  # fmt: skip
    trace = ", ".join(f"{v:.2f}" for v in path[:: max(1, n // 6)])
    where = _("w along the way: {trace}; after {n} epochs w = {w:.3f}, the target is {target:.3f}.").format(trace=trace, n=n, w=w, target=target_w)  # fmt: skip
    if not np.isfinite(w):
        says = _("w became NaN or inf: the steps blew up. How large is each step compared with the valley?")
    elif top > high and high < w < 0.99 * top and n >= max_epochs:
        says = _("w overshot to {top:.2f} and is coming back down ({w:.2f}), but {most} epochs, the most allowed, are not enough to return. What sets how far the first step overshoots?")  # fmt: skip
    elif top > high and high < w < 0.99 * top:
        says = _("w overshot to {top:.2f} and is coming back down ({w:.2f}), slowly. Too big a step, or too few epochs to return: which can you change?")  # fmt: skip
    elif top > high and w >= 0.99 * top:
        says = _("w jumped to {top:.2f} and stays there: that far out the loss is almost flat, so the gradient and the steps nearly vanish. How big was the first step?")  # fmt: skip
    elif top > high:
        says = _("w overshot to {top:.2f} and came back below the target: are the steps near the minimum too big?")
    elif n < max_epochs:
        says = _("w is still climbing towards the target: larger steps, or more of them?")
    else:
        says = _("w is still climbing after {most} epochs, the most allowed: what else makes each step larger?")
    return Feedback(name, False, [where, says.format(top=top, w=w, most=max_epochs)], hint="Each step is -lr dL/dw, and dL/dw shrinks as w climbs onto the flat part of the loss.")  # fmt: skip


# fmt: off
check_laplace_prediction = multiple_choice("predict, then check: the fitted curve of the Laplace kernel", {
    "a": "look at one weight before normalising, exp(-w |x - x_i|), as x passes x_i: what is its slope just left of x_i, and just right? The Gaussian's slope at x_i is 0.",
    "b": "",
    "c": "a staircase is the limit w -> infinity (nearest neighbour), and even that jumps midway between keys. At a finite w every weight changes continuously with x: what about its slope as x passes a key?",
    "d": "between two keys each kernel value is a constant times e^(w x) or e^(-w x), and the fit is a ratio of sums of such exponentials. Is that a line? And what does the slope do at a key?",
}, "b",
    success="exp(-w |x - x_i|) has a corner at x = x_i (slope +w just left, -w just right), and the weighted average keeps a corner there, unless y_i equals the fit there. The cells below train it and measure the jumps.",
    hint="Differentiate exp(-w |x - x_i|) on each side of x_i.",
    doc="Exercise: what the Laplace-kernel fit looks like next to the Gaussian's (a, b, c or d).")
# fmt: on


def _step(score=lambda d, w: -w * d.abs(), loo=True, sign=-1, scale=lambda n: 1.0, dim=1, lr_used=True, out="w"):
    """One plain gradient step on the Laplace model's leave-one-out MSE (the defaults), or a student's variant."""
    import torch

    def step(w, x, y, lr):
        w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
        x, y = x.double(), y.double()
        scores = score(x[:, None] - x[None, :], w_t)
        if loo:
            scores = scores.masked_fill(torch.eye(len(x), dtype=torch.bool), float("-inf"))
        loss = scale(len(x)) * torch.mean((torch.softmax(scores, dim=dim) @ y - y) ** 2)
        grad = float(torch.autograd.grad(loss, w_t)[0])
        return grad if out == "grad" else float(w) + sign * (lr if lr_used else 1.0) * grad

    return step


def _step_cases():
    import torch

    x = torch.tensor([0.0, 0.6, 0.9, 2.2, 3.1, 3.3, 4.0])
    y = torch.tensor([0.5, 1.5, -1.0, 2.5, 0.0, 1.0, 2.0])
    return [
        Case((1.0, x, y, 0.5), "From w = 1 at learning rate 0.5"),
        Case((0.3, x, y, 2.0), "From w = 0.3 at learning rate 2"),
        Case((5.0, x, y, 0.05), "From w = 5 at learning rate 0.05"),
        Case((60.0, x * 10, y, 1.0), "From the large w = 60, points 6 to 70 apart"),
        Case((1e-3, x, y, 10.0), "From the tiny w = 0.001 at learning rate 10"),
    ]


# fmt: off
check_laplace_sgd_step = implement("one training step of the Laplace model, by hand", _step_cases, _step(), [
    Mistake.of(_step(sign=+1), "{where} your new w {got} moved uphill: the loss grows along the gradient. Which way must a descent step go?", "w_new = w - lr dL/dw."),
    Mistake.of(_step(out="grad"), "{where} you returned {got}: the gradient itself, not the new w. What does a step do with it?", "Subtract lr times the gradient from w."),
    Mistake.of(_step(lr_used=False), "{where} your step ignores the learning rate. What scales the step?", "w - lr * dL/dw."),
    Mistake.of(_step(loo=False), "{where} your step uses each point as one of its own keys. Which keys may point i see in training?", "The diagonal of the scores is masked (exercise 3)."),
    Mistake.of(_step(score=lambda d, w: -((d * w) ** 2) / 2), "{where} your step uses the Gaussian score. Which score does the Laplace model use?", "-w |x - x_i|."),
    Mistake.of(_step(score=lambda d, w: -w * d**2), "{where} your step uses the score -w (x - x_i)^2. Laplace: the distance or its square?", "-w |x - x_i|."),
    Mistake.of(_step(scale=lambda n: n), "{where} your step is n times too large: the loss is a sum over the points. Sum or mean?", "L = mean of the squared errors."),
    Mistake.of(_step(dim=0), "{where} your softmax runs over the queries (dim=0). Over which dimension does one point's row of keys run?", "dim=1."),
    Mistake.of(_step(score=lambda d, w: w * d.abs()), "{where} your step has the sign of the score flipped: far keys weigh most. What must near keys get?", "-w |x - x_i|."),
], shape="one number, the new w",
    compare=lambda got, new, *a: got.size == 1 and abs(float(got.reshape(-1)[0]) - new) <= 1e-4 * (1 + abs(new)),
    otherwise=Mistake("{where} your new w is {got}. Which part differs from one step of plain gradient descent on the leave-one-out mean squared error: the score, the mask, the loss, or the step?", "Forward with w as a tensor that requires grad, loss, backward(), w - lr * w.grad."),
    success="One step by hand: forward, loss, backward, update. torch.optim.SGD does exactly this, and zero_grad() is needed because backward() adds to .grad. From a tiny w and a large one alike.",
    fix="`w = torch.tensor(w, requires_grad=True); scores = (-w * (x[:, None] - x[None, :]).abs()).masked_fill(torch.eye(len(x), dtype=torch.bool), float('-inf')); loss = torch.mean((torch.softmax(scores, dim=1) @ y - y) ** 2); loss.backward(); return (w - lr * w.grad).item()`",
    doc="Exercise: ``fn(w, x, y, lr)``: w after one plain gradient step on the leave-one-out MSE of the Laplace model.")
# fmt: on
