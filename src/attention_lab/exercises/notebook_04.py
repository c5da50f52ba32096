"""Exercise checks of notebook 04, parametric attention pooling (reference answers: ``solutions/notebook_04.py``)."""

from __future__ import annotations

import numpy as np

from .feedback import (
    Feedback,
    as_numbers,
    as_tensor_result,
    exercise,
    not_attempted,
    not_finite,
    unanswered,
)
from .notebook_04_scores import gaussian_pool, values_then_gradient

__all__ = ["check_no_loo_prediction", "check_loo_predictions", "check_gradient_w", "check_sgd_settings"]


# --- Exercise 3: leave-one-out as a mask on the diagonal of the (n, n) score matrix ------------------------

_LOO_CASES = (
    ((0.3, 1.1, 2.0, 2.4, 4.7), (1.0, -0.5, 2.0, 0.7, 3.0), 1.3),
    ((0.0, 0.6, 0.9, 2.2, 3.1, 3.3), (0.5, 1.5, -1.0, 2.5, 0.0, 1.0), 0.8),
)

_LOO_NOT_FINITE = (
    "For these inputs every prediction is a weighted average of the other points' y, an ordinary "
    "number. Adding mask * float('-inf') to the scores gives 0 * (-inf) = NaN off the diagonal: fill "
    "the masked entries instead (masked_fill or torch.where). A row with every score -inf is 0/0 = NaN "
    "too: mask only the diagonal, one entry per row."
)


def _loo_mistakes(x, y, w):
    """(predictions, hint) for plausible wrong maskings of the (n, n) scores, in float64; each hint names its slip."""
    import torch

    n = x.shape[0]
    scores = -(((x[:, None] - x[None, :]) * w) ** 2) / 2  # (n, n): alpha_ij, 0 on the diagonal
    eye = torch.eye(n, dtype=torch.bool)
    weights = torch.softmax(scores.masked_fill(eye, float("-inf")), dim=1)  # (n, n), the right weights

    def masked(mask):  # True = may not attend
        return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=1) @ y

    next_to = (
        "You masked the entries next to the diagonal (j = i + 1 or j = i - 1), so point i still sees itself "
        "and loses a neighbour instead: mask the entries with j = i, torch.eye(n, dtype=torch.bool)."
    )
    return [
        (
            torch.softmax(scores, dim=1) @ y,
            "These are the predictions with every point among its own keys, as if there were no mask. Setting the "
            "diagonal scores to 0 (or multiplying the scores by a 0/1 mask, which does the same) changes nothing: "
            "alpha_ii = -((x_i - x_i) w)^2 / 2 is already 0, the largest score a Gaussian gives. A weight of exactly 0 "
            "needs a score of -inf before the softmax.",
        ),
        (
            torch.softmax(scores, dim=1).masked_fill(eye, 0) @ y,
            "You zeroed the diagonal weights after the softmax without renormalising: each row's remaining weights "
            "then sum to 1 - lambda_ii < 1, and every prediction shrinks towards 0. Divide each row by its new sum, "
            "or mask the scores before the softmax.",
        ),
        (
            y.clone(),
            "Each prediction is the point's own y_i. Either your mask keeps only the diagonal (masked_fill fills where "
            "the mask is True: fill the diagonal, not the rest), or the values lie on the wrong axis: y[:, None] "
            "multiplies row i by y_i, and weights summing to 1 give y_i back. The values go "
            "along the keys, y[None, :].",
        ),
        (
            weights.T @ y,
            "These are the right weights read down the columns instead of along the rows: either your softmax runs "
            "over the queries (dim=0), or your weighted sum does. Each query's row must sum to 1 (a softmax over "
            "dim=1), and its weighted sum of y runs along that same row.",
        ),
        (masked(eye.roll(1, dims=1)), next_to),
        (masked(eye.roll(-1, dims=1)), next_to),
        (masked(torch.ones(n - 1).diag(1).bool()), next_to),
        (masked(torch.ones(n - 1).diag(-1).bool()), next_to),
    ]


@exercise("leave-one-out predictions with a mask on the diagonal")
def check_loo_predictions(name, fn) -> Feedback:
    """Exercise: ``fn(x, y, w)``, each point predicted from the others by masking the diagonal of the (n, n) scores.

    Compared, values and d/dw, with the (n, n - 1) keys of ``nn.leave_one_out`` on two small data sets.
    """
    import torch

    from ..nn import leave_one_out

    for xs, ys, w_value in _LOO_CASES:
        x, y, w = torch.tensor(xs), torch.tensor(ys), torch.tensor(w_value, requires_grad=True)
        got, problem = as_tensor_result(name, fn, x.clone(), y.clone(), w, finite_advice=_LOO_NOT_FINITE)
        if problem is not None:
            return problem
        x64, y64 = x.double(), y.double()
        w64 = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
        expected = gaussian_pool(x64, *leave_one_out(x64, y64), w64)  # (n,), from the (n, n - 1) keys
        n, where = len(xs), f"For x = {list(xs)}, y = {list(ys)} and w = {w_value}"
        if tuple(got.shape) != (n,):
            hint = f"{where} return one prediction per point, shape ({n},); got {tuple(got.shape)}."
            if tuple(got.shape) == (n, n):
                hint += " That is the shape of the weights: finish with each row's weighted sum of y."
            return Feedback(name, False, [hint])
        values_right, named = values_then_gradient(got, w, expected, w64, _loo_mistakes(x64, y64, w_value))
        if values_right:
            if named is not None:  # the gradient is wrong
                return Feedback(name, False, [named])
            continue
        mine = got.detach().double()
        return Feedback(
            name,
            False,
            [
                f"{where} you returned {np.round(mine.numpy(), 4).tolist()}: not the leave-one-out predictions.",
                named
                or "Check each step: the (n, n) scores alpha_ij = -((x_i - x_j) w)^2 / 2; the diagonal (j = i) "
                "set to -inf (a finite penalty such as -1 leaves point i some weight; -1e9 works, since exp "
                "underflows to 0); a softmax over each row; each row's weighted sum of y.",
            ],
        )
    return Feedback(
        name,
        True,
        [
            "Your predictions, and the gradient of their sum with respect to w, match those from the (n, n - 1) "
            "leave-one-out keys of section 2, on two small data sets, as masking the diagonal's scores does: it "
            "removes each point from its own softmax. A diagonal score of 0 would change nothing: "
            "alpha_ii = -((x_i - x_i) w)^2 / 2 is already 0, the largest score in every row."
        ],
    )


@exercise(
    lambda learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50: (
        f"an SGD learning rate that converges within {max_epochs} epochs"
    )
)
def check_sgd_settings(name, learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50) -> Feedback:
    """Exercise: SGD settings (mean squared error, w starts at 1) that bring w within ``tolerance`` of ``target_w``."""
    import torch

    from ..nn import NWKernelRegression, leave_one_out

    if unanswered(epochs):
        return not_attempted(name)
    try:
        lr, n_epochs = float(learning_rate), int(epochs)
    except (TypeError, ValueError):
        return Feedback(name, False, ["Give the learning rate as a number and the epochs as an integer."])
    if not (lr > 0 and 1 <= n_epochs <= max_epochs):
        return Feedback(
            name,
            False,
            [
                f"The learning rate must be > 0 and the epochs between 1 and {max_epochs}; "
                f"got {learning_rate!r} and {epochs!r}."
            ],
        )
    x, y = torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.float32)
    keys, values = leave_one_out(x, y)
    model = NWKernelRegression(1.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    path = []
    for _ in range(n_epochs):
        optimizer.zero_grad()
        loss = torch.mean((model(x, keys, values) - y) ** 2)
        loss.backward()
        optimizer.step()
        path.append(float(model.w.detach()))
    w = path[-1]
    if np.isfinite(w) and abs(w - target_w) <= tolerance * abs(target_w):
        return Feedback(name, True, [f"After {n_epochs} epochs at lr {lr:g}, w = {w:.3f} (target {target_w:.3f})."])
    trace = ", ".join(f"{v:.2f}" for v in path[:: max(1, n_epochs // 6)])
    if not np.isfinite(w) or max(path) > 3 * abs(target_w):
        advice = "The steps overshoot and w runs away from the minimum: lower the learning rate a lot."
    elif max(path) > (1 + tolerance) * target_w:
        advice = "w went past the target (the steps are too big near the minimum): lower the learning rate a little."
    else:
        advice = "w is still climbing towards the target: raise the learning rate (or use more epochs)."
    return Feedback(
        name,
        False,
        [
            f"w along the way: {trace}; after {n_epochs} epochs w = {w:.3f}, the target is "
            f"{target_w:.3f} (within {tolerance:.0%}).",
            advice,
        ],
    )


@exercise("predict, then check: training without leave-one-out")
def check_no_loo_prediction(name, choice) -> Feedback:
    """Exercise: what gradient descent does to w when every training point is one of its own keys (a, b or c)."""
    letter = choice.strip().strip("()").lower() if isinstance(choice, str) else None
    if letter not in ("a", "b", "c"):
        return Feedback(name, False, [f'Answer with one letter in quotes, "a", "b" or "c"; got {choice!r}.'])
    if letter == "b":
        return Feedback(
            name,
            True,
            [
                "With x_i among its own keys, the key at distance 0 always has the largest score, and its share of "
                "the weight tends to 1 as w grows: each point ends up copying its own y_i and the training loss tends "
                "to 0. On the course data nothing stops w: the loss falls at every w of the "
                "figure below, and the run without leave-one-out in section 3 keeps growing w."
            ],
        )
    if letter == "a":
        hint = (
            "Compare the two objectives: with leave-one-out keys a point must be predicted from its "
            "neighbours, without them it may also use itself. Ask what the training loss does as the weight "
            "on the key at distance 0 tends to 1."
        )
    else:
        hint = (
            "A wider kernel averages more points and pulls every prediction towards the mean of y: that "
            "raises the training loss, it does not lower it. Which way must w move to lower the training loss "
            "when a point is among its own keys?"
        )
    return Feedback(name, False, [hint])


def _gradient_pieces(queries, keys, values, targets, w):
    """dL/dw by autograd (float64), and the usual wrong variants, for L = mean((y_hat - targets)^2)."""
    import torch

    q, k, v, t = (torch.as_tensor(a, dtype=torch.float64) for a in (queries, keys, values, targets))
    w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
    diff2 = (q[:, None] - k[None, :]) ** 2  # (n_q, n_k)
    weights = torch.softmax(-diff2 * w_t**2 / 2, dim=1)  # (n_q, n_k)
    y_hat = weights @ v  # (n_q,)
    loss = torch.mean((y_hat - t) ** 2)
    (grad,) = torch.autograd.grad(loss, w_t)
    with torch.no_grad():
        lam, r = weights, y_hat - t
        ds = -diff2 * w  # d alpha / d w, (n_q, n_k)
        numerator_only = float(2 * torch.mean(r * (lam * ds * v).sum(dim=1)))
    return float(grad), numerator_only


@exercise("dL/dw by hand")
def check_gradient_w(name, fn) -> Feedback:
    """Exercise: ``fn(queries, keys, values, targets, w)`` returns dL/dw, L = mean((y_hat - targets)^2), by hand."""
    cases = [
        (
            np.array([0.5, 2.0, 3.5, 4.1]),
            np.array([0.0, 1.0, 2.0, 3.0, 4.0]),
            np.array([1.0, -1.0, 2.0, 0.5, 3.0]),
            np.array([0.2, 1.5, 1.0, 2.5]),
            1.3,
        ),
        (
            np.array([1.0, 1.2, 2.9]),
            np.array([0.4, 1.1, 2.2, 3.3]),
            np.array([0.5, 1.5, -0.5, 2.0]),
            np.array([1.0, 0.0, 1.0]),
            0.7,
        ),
    ]
    for q, k, v, t, w in cases:
        got, problem = as_numbers(name, fn, q.copy(), k.copy(), v.copy(), t.copy(), w)
        if problem is not None:
            return problem
        if got.size != 1:
            return Feedback(
                name,
                False,
                [
                    f"dL/dw is one number (w is a scalar); your function returned shape "
                    f"{got.shape}. Average over the queries inside your function."
                ],
            )
        bad = not_finite(
            name,
            got.reshape(1),
            "Compute the weights with a stable softmax (subtract each "
            "row's largest score) and check for a division by zero.",
        )
        if bad is not None:
            return bad
        g = float(got.reshape(()))
        expected, numerator_only = _gradient_pieces(q, k, v, t, w)
        if abs(g - expected) <= 1e-6 + 1e-5 * abs(expected):
            continue
        where = f"For w = {w} and {q.size} queries, autograd and your function disagree."
        n = q.size

        def ratio_is(c, g=g, expected=expected):
            return abs(g - c * expected) <= 1e-6 + 1e-4 * abs(c * expected)

        if abs(g - numerator_only) <= 1e-6 + 1e-4 * abs(numerator_only):
            hint = (
                "You differentiated only the numerator of the softmax. The normalisation sum_l exp(alpha_l) "
                "depends on w too: use d lambda_j / d alpha_l = lambda_j (delta_jl - lambda_l)."
            )
        elif ratio_is(-1):
            hint = (
                "Your gradient has the wrong sign: check the sign of d alpha / d w and of the residual y_hat_m - y_m."
            )
        elif ratio_is(n):
            hint = "Your gradient is n times too large: the loss is the mean over the queries, not the sum."
        elif ratio_is(0.5) or ratio_is(2):
            hint = (
                "A factor 2 is off: d/d y_hat_m of (y_hat_m - y_m)^2 is 2 (y_hat_m - y_m), and "
                "alpha_mj = -(q_m - k_j)^2 w^2 / 2 has its own 2 and 1/2 when you differentiate w^2."
            )
        elif ratio_is(1 / w) or ratio_is(1 / (2 * w)):
            hint = (
                "Differentiate alpha_mj = -(q_m - k_j)^2 w^2 / 2 with respect to w itself (not w^2): the "
                "chain rule leaves a factor w."
            )
        else:
            hint = (
                "Build it in three steps: d alpha_mj / d w for each query and key; d y_hat_m / d w = sum_j "
                "(d lambda_mj / d w) v_j with the softmax derivative; then average "
                "2 (y_hat_m - y_m) d y_hat_m / d w over the queries m."
            )
        return Feedback(name, False, [where, hint])
    return Feedback(
        name,
        True,
        [
            "Your dL/dw matches autograd: backward() computes exactly this chain rule, "
            "through the softmax's normalisation."
        ],
    )
