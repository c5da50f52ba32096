"""Exercise checks of notebook 04, parametric attention pooling (reference answers: ``solutions/notebook_04.py``)."""

from __future__ import annotations

import numpy as np

from .feedback import Feedback, as_tensor_result, exercise, not_attempted, unanswered

__all__ = ["check_nw_forward", "check_leave_one_out", "check_sgd_settings"]


@exercise("the forward pass of parametric attention pooling")
def check_nw_forward(name, fn) -> Feedback:
    """Exercise: ``fn(queries, keys, values, w)``, the parametric Nadaraya-Watson forward pass, differentiable in w."""
    import torch

    queries = torch.tensor([0.5, 2.0, 3.5])
    keys = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    values = torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0])
    w = torch.tensor(1.3, requires_grad=True)
    got, problem = as_tensor_result(name, fn, queries.clone(), keys.clone(), values.clone(), w)
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
    hints = [f"Expected {expected.numpy().round(4).tolist()}, got {got.detach().numpy().round(4).tolist()}."]
    w0 = w.detach()
    if torch.allclose(got.detach(), pooled(-diff2 * w0**2 / 2, dim=0), atol=1e-5):
        hints.append("The softmax runs over the queries (dim=0); each query normalises over its keys (dim=1).")
    elif torch.allclose(got.detach(), pooled(diff2 * w0**2 / 2), atol=1e-5):
        hints.append("The sign is flipped: near keys must score highest, so the score is minus the squared distance.")
    elif torch.allclose(got.detach(), pooled(-diff2 * w0**2), atol=1e-5):
        hints.append("The 1/2 is missing: the score is -((x - x_i) w)^2 / 2.")
    elif torch.allclose(got.detach(), pooled(-diff2 * w0 / 2), atol=1e-5):
        hints.append("Square w too: it multiplies the distance, ((x - x_i) w)^2 = (x - x_i)^2 w^2.")
    return Feedback(name, False, hints)


@exercise("leave-one-out keys")
def check_leave_one_out(name, fn) -> Feedback:
    """Exercise: ``fn(x)`` returns the (n, n - 1) matrix whose row i holds every x_j except x_i, in order."""
    import torch

    x = torch.tensor([0.3, 1.1, 2.0, 2.4, 4.7])
    got, problem = as_tensor_result(name, fn, x.clone())
    if problem is not None:
        return problem
    n = x.shape[0]
    expected = torch.stack([torch.cat([x[:i], x[i + 1:]]) for i in range(n)])
    if got.shape == expected.shape and torch.allclose(got.float(), expected):
        return Feedback(name, True, ["Row i has the other n - 1 keys: point i can no longer attend to itself."])
    if got.shape == (n, n):
        return Feedback(name, False, [f"Your matrix is {n} x {n}: each row still contains its own x_i. Then a point "
                                      "can attend to itself, and training drives w to infinity (copy your own y_i)."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"For {n} points the result has shape ({n}, {n - 1}); got {tuple(got.shape)}."])
    contains_self = any(bool((got[i] == x[i]).any()) for i in range(n))
    if contains_self:
        return Feedback(name, False, ["Some row i still contains x_i and misses another key: drop exactly the "
                                      "diagonal (mask = ~torch.eye(n, dtype=bool))."])
    return Feedback(name, False, ["Each row has the right keys but in another order; keep the order of x "
                                  "(the values must line up with the keys)."])


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
