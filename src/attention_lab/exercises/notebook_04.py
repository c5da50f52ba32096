"""Exercise checks of notebook 04, parametric attention pooling (reference answers: ``solutions/notebook_04.py``)."""

from __future__ import annotations

import numpy as np

from .feedback import Feedback, as_numbers, as_tensor_result, exercise, not_attempted, not_finite, unanswered

__all__ = ["check_nw_forward", "check_leave_one_out", "check_sgd_settings", "check_no_loo_prediction",
           "check_gradient_w"]


@exercise("the forward pass of parametric attention pooling")
def check_nw_forward(name, fn) -> Feedback:
    """Exercise: ``fn(queries, keys, values, w)``, the parametric Nadaraya-Watson forward pass, differentiable in w."""
    import torch

    queries = torch.tensor([0.5, 2.0, 3.5])
    keys = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    values = torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0])
    w = torch.tensor(1.3, requires_grad=True)
    got, problem = as_tensor_result(name, fn, queries.clone(), keys.clone(), values.clone(), w,
                                    finite_advice="For these inputs every prediction is a weighted average of the "
                                    "values 1, -1, 2, 0.5 and 3, an ordinary number: print the scores, the weights "
                                    "and their row sums to see where the NaN or inf first appears.")
    if problem is not None:
        return problem
    diff2 = (queries[:, None] - keys) ** 2

    def pooled(scores, dim=1):
        return (torch.softmax(scores, dim=dim) * values).sum(dim=1)

    expected = pooled(-diff2 * w.detach() ** 2 / 2)
    if got.shape != expected.shape:
        return Feedback(name, False, [f"For 3 queries and 5 keys return one prediction per query, shape (3,); "
                                      f"got {tuple(got.shape)}."])
    if torch.allclose(got.detach(), expected, atol=1e-5):
        if not got.requires_grad:
            return Feedback(name, False, ["The numbers are right, but no gradient flows back to w: keep every step "
                                          "in torch (no .item(), .numpy() or torch.tensor(...) around w)."])
        return Feedback(name, True, ["softmax over the keys of -((x - x_i) w)^2 / 2, then the weighted sum of values; "
                                     "differentiable in w."])
    mine = got.detach().to(torch.float32)
    hints = [f"For queries [0.5, 2.0, 3.5], keys [0, 1, 2, 3, 4] and w = 1.3 you returned "
             f"{mine.numpy().round(4).tolist()}: not the softmax-weighted averages of the values."]
    w0 = w.detach()
    if torch.allclose(mine, pooled(-diff2 * w0**2 / 2, dim=0), atol=1e-5):
        hints.append("The softmax runs over the queries (dim=0); each query normalises over its keys (dim=1).")
    elif torch.allclose(mine, pooled(diff2 * w0**2 / 2), atol=1e-5):
        hints.append("The sign is flipped: near keys must score highest, so the score is minus the squared distance.")
    elif torch.allclose(mine, pooled(-diff2 * w0**2), atol=1e-5):
        hints.append("The 1/2 is missing: the score is -((x - x_i) w)^2 / 2.")
    elif torch.allclose(mine, pooled(-diff2 * w0 / 2), atol=1e-5):
        hints.append("Square w too: it multiplies the distance, ((x - x_i) w)^2 = (x - x_i)^2 w^2.")
    elif torch.allclose(mine, (torch.exp(-diff2 * w0**2 / 2) * values).sum(dim=1), atol=1e-5):
        hints.append("The weights are exp(score) without their normalisation: divide by each query's sum over the "
                     "keys (that is the softmax), so that the weights sum to 1.")
    elif bool(((mine < values.min() - 1e-5) | (mine > values.max() + 1e-5)).any()):
        hints.append("Some predictions lie outside the range of the values (from -1 to 3). A weighted average with "
                     "weights that are non-negative and sum to 1 cannot: normalise the weights with a softmax over "
                     "the keys.")
    else:
        hints.append("Build it in three steps: the score -((x - x_i) w)^2 / 2 for every query-key pair, a softmax "
                     "over the keys (dim=1), then each query's weighted sum of the values.")
    return Feedback(name, False, hints)


@exercise("leave-one-out keys")
def check_leave_one_out(name, fn) -> Feedback:
    """Exercise: ``fn(x)`` returns the (n, n - 1) matrix whose row i holds every x_j except x_i, in order."""
    import torch

    x = torch.tensor([0.3, 1.1, 2.0, 2.4, 4.7])
    got, problem = as_tensor_result(name, fn, x.clone(),
                                    finite_advice="The keys are entries of x copied as they are (x holds no NaN or "
                                    "inf): select them, with a boolean mask or indices, rather than compute them.")
    if problem is not None:
        return problem
    n = x.shape[0]
    expected = torch.stack([torch.cat([x[:i], x[i + 1:]]) for i in range(n)])
    if got.shape == expected.shape and torch.allclose(got.float(), expected):
        return Feedback(name, True, ["Row i has the other n - 1 keys: point i can no longer attend to itself."])
    if got.shape == (n, n):
        return Feedback(name, False, [f"Your matrix is {n} x {n}: each row still contains its own x_i. Then a point "
                                      "can attend to itself, and on the course data training makes w grow without "
                                      "bound."])
    if got.shape == (n - 1, n) and torch.allclose(got.float(), expected.T):
        return Feedback(name, False, [f"Your matrix is transposed, ({n - 1}, {n}): row i must hold the keys of query i "
                                      "(one row per query), so that it lines up with row i of the leave-one-out values "
                                      "and with the target y_i."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"For {n} points the result has shape ({n}, {n - 1}); got {tuple(got.shape)}."])
    contains_self = any(bool((got[i] == x[i]).any()) for i in range(n))
    if contains_self:
        return Feedback(name, False, ["Some row i still contains x_i and misses another key: drop exactly the "
                                      "diagonal (mask = ~torch.eye(n, dtype=bool))."])
    same_keys = all(torch.equal(torch.sort(got[i].float()).values, torch.sort(expected[i]).values) for i in range(n))
    if same_keys:
        return Feedback(name, False, ["Each row has the right keys but in another order; keep the order of x "
                                      "(the values must line up with the keys)."])
    return Feedback(name, False, ["Your rows do not hold x's other entries: row i must be x with x_i removed, "
                                  "the remaining entries copied as they are (no arithmetic)."])


@exercise(lambda learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50:
          f"an SGD learning rate that converges within {max_epochs} epochs")
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
        return Feedback(name, False, [f"The learning rate must be > 0 and the epochs between 1 and {max_epochs}; "
                                      f"got {learning_rate!r} and {epochs!r}."])
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
    return Feedback(name, False, [f"w along the way: {trace}; after {n_epochs} epochs w = {w:.3f}, the target is "
                                  f"{target_w:.3f} (within {tolerance:.0%}).", advice])


@exercise("predict, then check: training without leave-one-out")
def check_no_loo_prediction(name, choice) -> Feedback:
    """Exercise: what gradient descent does to w when every training point is one of its own keys (a, b or c)."""
    letter = choice.strip().strip("()").lower() if isinstance(choice, str) else None
    if letter not in ("a", "b", "c"):
        return Feedback(name, False, [f"Answer with one letter in quotes, \"a\", \"b\" or \"c\"; got {choice!r}."])
    if letter == "b":
        return Feedback(name, True, [
            "With x_i among its own keys, the key at distance 0 always has the largest score, and its share of "
            "the weight tends to 1 as w grows: each point ends up copying its own y_i and the training loss tends "
            "to 0. On the course data nothing stops w: the loss falls at every w of the "
            "figure below, and the run without leave-one-out in section 3 keeps growing w."])
    if letter == "a":
        hint = ("Compare the two objectives: with leave-one-out keys a point must be predicted from its "
                "neighbours, without them it may also use itself. Ask what the training loss does as the weight "
                "on the key at distance 0 tends to 1.")
    else:
        hint = ("A wider kernel averages more points and pulls every prediction towards the mean of y: that "
                "raises the training loss, it does not lower it. Which way must w move to lower the training loss "
                "when a point is among its own keys?")
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
    cases = [(np.array([0.5, 2.0, 3.5, 4.1]), np.array([0.0, 1.0, 2.0, 3.0, 4.0]),
              np.array([1.0, -1.0, 2.0, 0.5, 3.0]), np.array([0.2, 1.5, 1.0, 2.5]), 1.3),
             (np.array([1.0, 1.2, 2.9]), np.array([0.4, 1.1, 2.2, 3.3]),
              np.array([0.5, 1.5, -0.5, 2.0]), np.array([1.0, 0.0, 1.0]), 0.7)]
    for q, k, v, t, w in cases:
        got, problem = as_numbers(name, fn, q.copy(), k.copy(), v.copy(), t.copy(), w)
        if problem is not None:
            return problem
        if got.size != 1:
            return Feedback(name, False, [f"dL/dw is one number (w is a scalar); your function returned shape "
                                          f"{got.shape}. Average over the queries inside your function."])
        bad = not_finite(name, got.reshape(1), "Compute the weights with a stable softmax (subtract each "
                                               "row's largest score) and check for a division by zero.")
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
            hint = ("You differentiated only the numerator of the softmax. The normalisation sum_l exp(alpha_l) "
                    "depends on w too: use d lambda_j / d alpha_l = lambda_j (delta_jl - lambda_l).")
        elif ratio_is(-1):
            hint = ("Your gradient has the wrong sign: check the sign of d alpha / d w and of the residual "
                    "y_hat_m - y_m.")
        elif ratio_is(n):
            hint = "Your gradient is n times too large: the loss is the mean over the queries, not the sum."
        elif ratio_is(0.5) or ratio_is(2):
            hint = ("A factor 2 is off: d/d y_hat_m of (y_hat_m - y_m)^2 is 2 (y_hat_m - y_m), and "
                    "alpha_mj = -(q_m - k_j)^2 w^2 / 2 has its own 2 and 1/2 when you differentiate w^2.")
        elif ratio_is(1 / w) or ratio_is(1 / (2 * w)):
            hint = ("Differentiate alpha_mj = -(q_m - k_j)^2 w^2 / 2 with respect to w itself (not w^2): the "
                    "chain rule leaves a factor w.")
        else:
            hint = ("Build it in three steps: d alpha_mj / d w for each query and key; d y_hat_m / d w = sum_j "
                    "(d lambda_mj / d w) v_j with the softmax derivative; then average "
                    "2 (y_hat_m - y_m) d y_hat_m / d w over the queries m.")
        return Feedback(name, False, [where, hint])
    return Feedback(name, True, ["Your dL/dw matches autograd: backward() computes exactly this chain rule, "
                                 "through the softmax's normalisation."])
