"""Exercise checks: run a student's answer against the reference and say in words what is wrong.

Each ``check_*`` function returns a :class:`Feedback` that shows as a short report in the notebook. It
never raises on a wrong answer, so a notebook with unfinished exercises still runs top to bottom. An
exercise stub whose body is ``...`` returns None, which reads as "not attempted yet".
"""

from __future__ import annotations

import numpy as np

from .kernels import nadaraya_watson
from .normalisers import hard_attention, logsumexp, softmax

__all__ = [
    "Feedback",
    "check_softmax",
    "check_weighted_average",
    "check_scores_for_weights",
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
    "check_gaussian_weights",
    "check_bandwidth_choice",
    "check_nearest_neighbour",
    "check_nw_forward",
    "check_leave_one_out",
    "check_sgd_settings",
    "check_scaled_dot_weights",
    "check_masked_softmax",
    "check_score_spread",
    "check_context_vectors",
    "check_general_scores",
    "check_masked_context",
]


class Feedback:
    """The verdict on one exercise: ``passed`` and the reasons, shown as Markdown in a notebook."""

    def __init__(self, exercise: str, passed: bool, messages: list[str], attempted: bool = True):
        self.exercise = exercise
        self.passed = passed
        self.attempted = attempted
        self.messages = messages

    def __bool__(self):
        return self.passed

    def _status(self):
        if not self.attempted:
            return "✏️ not attempted yet"
        return "✅ correct" if self.passed else "❌ not yet"

    def __repr__(self):
        return f"{self.exercise}: {self._status()}\n" + "\n".join(f"  - {m}" for m in self.messages)

    def _repr_markdown_(self):
        return f"**{self.exercise}: {self._status()}**\n\n" + "\n".join(f"- {m}" for m in self.messages)


def _not_attempted(exercise):
    return Feedback(exercise, False, ["Replace the `...` with your code, then run the cell again."], attempted=False)


def _run(exercise, fn, *args):
    """Run the student's function; a crash or a None result becomes feedback instead of an exception."""
    try:
        result = fn(*args)
    except Exception as error:  # noqa: BLE001 - any error in student code becomes feedback
        return None, Feedback(exercise, False, [f"Your function raised {type(error).__name__}: {error}"])
    if result is None or result is Ellipsis:
        return None, _not_attempted(exercise)
    return result, None


def _call(exercise, fn, *args):
    """:func:`_run`, then the result as a float array (or feedback saying it is not numbers)."""
    result, problem = _run(exercise, fn, *args)
    if problem is not None:
        return None, problem
    try:
        return np.asarray(result, dtype=np.float64), None
    except (TypeError, ValueError):
        return None, Feedback(exercise, False, [f"Your function returned {type(result).__name__}, not numbers."])


def _close(a, b, atol=1e-6):
    return a.shape == np.shape(b) and np.allclose(a, b, atol=atol, equal_nan=False)


def check_softmax(fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns softmax(alpha / T) along the last axis, stably."""
    name = "softmax with temperature"
    cases = [
        (np.array([1.0, 2.0, 3.0]), 1.0),
        (np.array([0.5, -1.0, 2.0, 0.0]), 0.5),
        (np.array([[1.0, 2.0], [3.0, 3.0]]), 2.0),
        (np.array([1000.0, 1001.0, 999.0]), 1.0),
    ]
    for alpha, temperature in cases:
        got, problem = _call(name, fn, alpha.copy(), temperature)
        if problem is not None:
            return problem
        expected = softmax(alpha, temperature)
        if got.shape != expected.shape:
            return Feedback(name, False, [f"For scores of shape {alpha.shape} the weights must have the same shape "
                                          f"(one weight per score); got shape {got.shape}."])
        if not np.all(np.isfinite(got)):
            return Feedback(name, False, [
                f"For scores {alpha.tolist()} you returned {got.tolist()}.",
                "exp(1000) overflows to inf, and inf / inf is NaN. Subtract the largest score first: "
                "softmax(alpha) = softmax(alpha - max(alpha)), and then every exponent is <= 0."])
        if _close(got, expected):
            continue
        hints = [f"For scores {alpha.tolist()} at T = {temperature} the weights should be "
                 f"{np.round(expected, 4).tolist()}, you returned {np.round(got, 4).tolist()}."]
        if np.any(got < 0):
            hints.append("Some weights are negative; exp(.) is always positive.")
        elif alpha.ndim == 2 and np.isclose(got.sum(), 1.0):
            hints.append("All weights together sum to 1, but each row must: normalise along the last axis "
                         "(sum(..., axis=-1, keepdims=True)).")
        elif not np.allclose(got.sum(axis=-1), 1.0):
            hints.append(f"Each row of weights must sum to 1; yours sum to {np.round(got.sum(axis=-1), 4).tolist()}.")
        elif _close(got, softmax(alpha, 1.0)):
            hints.append("This is softmax(alpha) at T = 1: divide the scores by the temperature first.")
        elif _close(got, softmax(alpha * temperature, 1.0)):
            hints.append("You multiplied the scores by T; softmax(alpha / T) divides by it.")
        elif np.all(alpha > 0) and _close(got, alpha / alpha.sum(axis=-1, keepdims=True)):
            hints.append("This is alpha / sum(alpha), a plain normalisation: softmax exponentiates first.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Rows sum to 1, the temperature is used, and huge scores do not overflow."])


def check_weighted_average(fn) -> Feedback:
    """Exercise: ``fn(weights, values)`` returns sum_i lambda_i v_i for every query: (n_q, n) x (n, d) -> (n_q, d)."""
    name = "weighted average of the values"
    rng = np.random.default_rng(7)
    weights = softmax(rng.normal(size=(3, 4)))  # (n_q=3, n_keys=4)
    values = rng.normal(size=(4, 2))  # (n_keys=4, d_v=2)
    got, problem = _call(name, fn, weights.copy(), values.copy())
    if problem is not None:
        return problem
    expected = weights @ values
    if _close(got, expected):
        return Feedback(name, True, ["output[q] = sum_i weights[q, i] * values[i], for every query q."])
    hints = []
    if got.shape != expected.shape:
        hints.append(f"With weights of shape {weights.shape} (queries x keys) and values of shape {values.shape} "
                     f"(keys x value dimension) the output has shape {expected.shape}; yours has {got.shape}.")
    if got.shape == (values.shape[1],) or _close(got, np.broadcast_to(values.mean(axis=0), expected.shape)):
        hints.append("That looks like one plain average of the values; every query has its own weights.")
    if _close(got, np.broadcast_to(values.sum(axis=0), expected.shape)):
        hints.append("You summed the values without weighting them by lambda_i.")
    if not hints:
        hints.append(f"Expected {np.round(expected, 3).tolist()}, got {np.round(got, 3).tolist()}. "
                     "Multiply each value v_i by its weight lambda_i and add up over i (that is weights @ values).")
    return Feedback(name, False, hints)


def check_scores_for_weights(scores, target=(0.1, 0.8, 0.05, 0.05)) -> Feedback:
    """Exercise: give scores alpha whose softmax is ``target``."""
    name = "scores that give the weights " + " / ".join(f"{t:g}" for t in target)
    target = np.asarray(target, dtype=np.float64)
    if scores is None or scores is Ellipsis:
        return _not_attempted(name)
    alpha = np.asarray(scores, dtype=np.float64)
    if alpha.shape != target.shape:
        return Feedback(name, False, [f"Give one score per key: {target.size} numbers, got shape {alpha.shape}."])
    got = softmax(alpha)
    if _close(got, target, atol=1e-4):
        return Feedback(name, True, [f"softmax({np.round(alpha, 3).tolist()}) = {np.round(got, 4).tolist()}. "
                                     "Any constant added to every score gives the same weights."])
    hints = [f"softmax of your scores is {np.round(got, 4).tolist()}, not {target.tolist()}."]
    if _close(alpha, target, atol=1e-4):
        hints.append("You gave the weights themselves. softmax exponentiates: which scores have exp(alpha_i) "
                     "proportional to lambda_i? (Think log.)")
    elif np.all(np.argsort(alpha) == np.argsort(target)):
        hints.append("The order is right but the gaps are not: the ratio of two weights is exp(alpha_i - alpha_j).")
    return Feedback(name, False, hints)


def check_logsumexp(fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns T * log sum_i exp(alpha_i / T) for a 1-D alpha, stably."""
    name = "the smooth maximum T logsumexp(alpha / T)"
    cases = [(np.array([1.0, 2.0, 3.0]), 1.0), (np.array([0.0, 0.5]), 0.25), (np.array([800.0, 799.0]), 1.0)]
    for alpha, temperature in cases:
        got, problem = _call(name, fn, alpha.copy(), temperature)
        if problem is not None:
            return problem
        expected = float(logsumexp(alpha, temperature))
        if got.shape != ():
            return Feedback(name, False, [f"Return one number (the smooth max of the scores), got shape {got.shape}."])
        if not np.isfinite(got):
            return Feedback(name, False, [f"For scores {alpha.tolist()} you returned {float(got)}: exp(800) overflows.",
                                          "Pull the max out: logsumexp(alpha) = m + log sum exp(alpha - m), "
                                          "m = max(alpha)."])
        if abs(float(got) - expected) < 1e-6:
            continue
        hints = [f"For scores {alpha.tolist()} at T = {temperature} the answer is {expected:.6f}, "
                 f"you returned {float(got):.6f}."]
        if abs(float(got) - alpha.max()) < 1e-9:
            hints.append("That is the hard max, the T -> 0 limit; the smooth max is a little larger.")
        elif abs(float(got) - expected / temperature) < 1e-6:
            hints.append("You forgot the factor T in front of the log.")
        elif abs(float(got) - float(logsumexp(alpha, 1.0))) < 1e-6:
            hints.append("The temperature is ignored: divide the scores by T inside exp, multiply the log by T.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Correct, at every temperature, and stable for large scores."])


def check_top_k(fn) -> Feedback:
    """Exercise: ``fn(alpha, k)`` returns top-k hard attention weights (1/k on the k largest scores)."""
    name = "top-k hard attention"
    cases = [(np.array([0.1, 0.9, 0.5, 0.3]), 1), (np.array([0.1, 0.9, 0.5, 0.3]), 2), (np.array([2.0, -1.0, 5.0]), 3)]
    for alpha, k in cases:
        got, problem = _call(name, fn, alpha.copy(), k)
        if problem is not None:
            return problem
        expected = hard_attention(alpha, k)
        if _close(got, expected):
            continue
        hints = [f"For scores {alpha.tolist()} and k = {k} the weights are {expected.tolist()}, "
                 f"you returned {np.round(got, 4).tolist()}."]
        if got.shape != expected.shape:
            hints.append(f"Return one weight per score, shape {expected.shape}; got {got.shape}.")
        elif _close(got, expected * k):
            hints.append("The chosen keys share the attention: each gets 1/k, so the weights still sum to 1.")
        elif _close(got, hard_attention(-alpha, k)):
            hints.append("You picked the k smallest scores: sort in descending order (or use np.argsort(-alpha)).")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["1/k on each of the k largest scores, 0 elsewhere."])


def check_temperature_for_weight(temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    name = f"the temperature at which the largest weight is {target:g}"
    if temperature is None or temperature is Ellipsis:
        return _not_attempted(name)
    try:
        top = float(softmax(scores, temperature).max())
    except ValueError as error:
        return Feedback(name, False, [str(error)])
    if abs(top - target) <= tolerance:
        return Feedback(name, True, [f"At T = {temperature:g} the largest weight is {top:.3f}."])
    direction = "raise T (more heat spreads the weights)" if top > target else "lower T (colder is more peaked)"
    return Feedback(name, False, [f"At T = {temperature:g} the largest weight is {top:.3f}, not {target:g}: "
                                  f"{direction}."])


# --- notebook 03: Nadaraya-Watson -----------------------------------------------------------------------

def check_gaussian_weights(fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, h)`` returns the (n_q, n_k) Gaussian Nadaraya-Watson weights, stably."""
    name = "Gaussian Nadaraya-Watson weights"
    cases = [(np.array([0.0, 1.0, 2.5]), np.array([0.0, 0.5, 2.0, 3.0]), 1.0),
             (np.array([1.0, 4.0]), np.array([0.2, 1.1, 1.3, 3.9, 4.4]), 0.3),
             (np.array([40.0]), np.array([0.0, 1.0, 2.0]), 0.1)]
    for xq, xk, h in cases:
        got, problem = _call(name, fn, xq.copy(), xk.copy(), h)
        if problem is not None:
            return problem
        diff2 = (xq[:, None] - xk[None, :]) ** 2
        expected = softmax(-diff2 / (2 * h * h))
        where = f"For queries {xq.tolist()}, keys {xk.tolist()} and h = {h}"
        if got.shape != expected.shape:
            hint = f"{where} the weights have shape (n_queries, n_keys) = {expected.shape}; yours {got.shape}."
            if got.shape == expected.shape[::-1]:
                hint += " You have keys on the rows: queries go on the rows, keys on the columns."
            return Feedback(name, False, [hint])
        if not np.all(np.isfinite(got)):
            return Feedback(name, False, [
                f"{where} you returned {np.round(got, 4).tolist()}.",
                "Far from every key all the kernel values underflow to 0, and 0/0 is NaN. The weights are a "
                "softmax of the scores -(x - x_i)^2 / (2 h^2): subtract each row's largest score first."])
        if _close(got, expected):
            continue
        hints = [f"{where} the weights are {np.round(expected, 4).tolist()}, you returned "
                 f"{np.round(got, 4).tolist()}."]
        if _close(got, np.full(expected.shape, 1 / xk.size)):
            hints.append("Every weight is 1/n: the denominator must sum K((x - x_j)/h) over all keys j. With x_i "
                         "in the denominator (the slip in the source post) each term cancels itself.")
        elif _close(got, expected.T) or _close(got, softmax(-diff2 / (2 * h * h), axis=0)):
            hints.append("Your weights sum to 1 down each column (over queries); each query's row must sum to 1.")
        elif not np.allclose(got.sum(axis=-1), 1.0):
            hints.append("The rows do not sum to 1: divide each row by its sum over the keys.")
        elif _close(got, softmax(-diff2 / (h * h))):
            hints.append("The factor 2 is missing: the Gaussian kernel is exp(-u^2 / 2) with u = (x - x_i)/h.")
        elif _close(got, softmax(-diff2 / (2 * h))):
            hints.append("Divide by h^2, not h: u = (x - x_i)/h is squared.")
        elif _close(got, softmax(diff2 / (2 * h * h))):
            hints.append("The sign is flipped: nearby keys must get the largest weight, so the score is "
                         "minus the squared distance.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Rows sum to 1, close keys weigh most, and far queries do not give NaN."])


def _validation_mse(h, x_train, y_train, x_val, y_val, kernel="gaussian"):
    y_hat, _ = nadaraya_watson(x_val, x_train, y_train, bandwidth=h, kernel=kernel)
    return float(np.mean((y_hat - y_val) ** 2))


def check_bandwidth_choice(bandwidth, x_train, y_train, x_val, y_val, tolerance=0.02) -> Feedback:
    """Exercise: a bandwidth whose held-out MSE is within ``tolerance`` (relative) of the best on a fine grid."""
    name = "the bandwidth with the smallest held-out error"
    if bandwidth is None or bandwidth is Ellipsis:
        return _not_attempted(name)
    try:
        h = float(bandwidth)
    except (TypeError, ValueError):
        return Feedback(name, False, [f"Give one number h > 0, got {type(bandwidth).__name__}."])
    if not np.isfinite(h) or h <= 0:
        return Feedback(name, False, [f"h must be a positive number, got {bandwidth!r}."])
    grid = np.geomspace(0.01, 5, 400)
    errors = np.array([_validation_mse(g, x_train, y_train, x_val, y_val) for g in grid])
    best_h, best = float(grid[np.argmin(errors)]), float(errors.min())
    mine = _validation_mse(h, x_train, y_train, x_val, y_val)
    if mine <= best * (1 + tolerance):
        return Feedback(name, True, [f"At h = {h:.3g} the held-out MSE is {mine:.4f}; the best on a fine grid is "
                                     f"{best:.4f} (at h = {best_h:.3g})."])
    if h < best_h:
        why = ("too small: each prediction averages only a few noisy neighbours, so the curve follows the noise "
               "(high variance). Try a larger h.")
    else:
        why = ("too large: the average reaches keys whose f(x_i) differ, so peaks are flattened (high bias). "
               "Try a smaller h.")
    return Feedback(name, False, [f"At h = {h:.3g} the held-out MSE is {mine:.4f}, the best is about {best:.4f}.",
                                  f"Your h is {why}"])


def check_nearest_neighbour(fn) -> Feedback:
    """Exercise: ``fn(x_query, x_keys, y_values)`` returns the h -> 0 limit of Nadaraya-Watson (nearest key's value)."""
    name = "the h -> 0 limit: nearest-neighbour regression"
    cases = [(np.array([0.1, 1.7, 2.9]), np.array([0.0, 1.0, 2.2, 3.1]), np.array([5.0, 6.0, 7.0, 8.0])),
             (np.array([4.2, 0.0]), np.array([0.4, 3.0, 4.0]), np.array([-1.0, 2.0, 0.5]))]
    for xq, xk, y in cases:
        got, problem = _call(name, fn, xq.copy(), xk.copy(), y.copy())
        if problem is not None:
            return problem
        nearest = np.argmin(np.abs(xq[:, None] - xk[None, :]), axis=1)
        expected = y[nearest]
        if _close(got, expected):
            continue
        hints = [f"For queries {xq.tolist()}, keys {xk.tolist()} and values {y.tolist()} the limit is "
                 f"{expected.tolist()}, you returned {np.round(got, 4).tolist()}."]
        if got.shape != expected.shape:
            hints.append(f"Return one prediction per query, shape {expected.shape}; got {got.shape}.")
        elif _close(got, nearest.astype(float)):
            hints.append("Those are the indices of the nearest keys; return their values y_i.")
        elif _close(got, xk[nearest]):
            hints.append("Those are the nearest keys x_i themselves; return their values y_i.")
        elif _close(got, np.full(expected.shape, y.mean())):
            hints.append("That is the h -> infinity limit (average pooling). As h -> 0 all the weight goes to the "
                         "key with the largest score, the nearest one.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["As h -> 0 the softmax becomes one-hot(argmax): each query copies its nearest "
                                 "key's value. A hard attention, just like T -> 0."])


# --- notebook 04: parametric pooling (torch) ---------------------------------------------------------------

def _torch_call(exercise, fn, *args):
    """Like _call, for functions that take and return torch tensors."""
    import torch

    result, problem = _run(exercise, fn, *args)
    if problem is not None:
        return None, problem
    if not torch.is_tensor(result):
        return None, Feedback(exercise, False, [f"Return a torch tensor, got {type(result).__name__}."])
    return result, None


def check_nw_forward(fn) -> Feedback:
    """Exercise: ``fn(queries, keys, values, w)``, the parametric Nadaraya-Watson forward pass, differentiable in w."""
    import torch

    name = "the forward pass of parametric attention pooling"
    queries = torch.tensor([0.5, 2.0, 3.5])
    keys = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    values = torch.tensor([1.0, -1.0, 2.0, 0.5, 3.0])
    w = torch.tensor(1.3, requires_grad=True)
    got, problem = _torch_call(name, fn, queries.clone(), keys.clone(), values.clone(), w)
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


def check_leave_one_out(fn) -> Feedback:
    """Exercise: ``fn(x)`` returns the (n, n - 1) matrix whose row i holds every x_j except x_i, in order."""
    import torch

    name = "leave-one-out keys"
    x = torch.tensor([0.3, 1.1, 2.0, 2.4, 4.7])
    got, problem = _torch_call(name, fn, x.clone())
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


def check_sgd_settings(learning_rate, epochs, x, y, target_w, tolerance=0.03, max_epochs=50) -> Feedback:
    """Exercise: SGD settings (mean squared error, w starts at 1) that bring w within ``tolerance`` of ``target_w``."""
    import torch

    from .nn import NWKernelRegression, leave_one_out

    name = f"an SGD learning rate that converges within {max_epochs} epochs"
    if learning_rate is None or learning_rate is Ellipsis or epochs is None or epochs is Ellipsis:
        return _not_attempted(name)
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


# --- notebook 05: scoring functions and masking ------------------------------------------------------------

def check_scaled_dot_weights(fn) -> Feedback:
    """Exercise: ``fn(Q, K)`` returns softmax(Q K^T / sqrt(d)) over the keys: (n_q, d), (n_k, d) -> (n_q, n_k)."""
    name = "scaled dot-product weights"
    rng = np.random.default_rng(5)
    Q, K = rng.normal(size=(3, 16)), rng.normal(size=(5, 16))
    got, problem = _call(name, fn, Q.copy(), K.copy())
    if problem is not None:
        return problem
    expected = softmax(Q @ K.T / 4.0)
    if _close(got, expected):
        return Feedback(name, True, ["softmax(Q K^T / sqrt(d)) along the keys, with d = 16."])
    if got.shape != expected.shape:
        hint = f"Queries (3, 16) and keys (5, 16) give weights of shape (3, 5); got {got.shape}."
        if got.shape == (5, 3):
            hint += " Put queries on the rows: Q @ K.T, not K @ Q.T."
        return Feedback(name, False, [hint])
    hints = [f"Expected (row 0) {np.round(expected[0], 3).tolist()}, got {np.round(got[0], 3).tolist()}."]
    if _close(got, softmax(Q @ K.T)):
        hints.append("These are unscaled: divide the scores by sqrt(d) before the softmax.")
    elif _close(got, softmax(Q @ K.T / 16)):
        hints.append("You divided by d; divide by sqrt(d), which keeps the scores' variance at 1.")
    elif _close(got, softmax(Q @ K.T / 4.0, axis=0)):
        hints.append("Normalise over the keys (each row sums to 1), not over the queries.")
    return Feedback(name, False, hints)


def check_masked_softmax(fn) -> Feedback:
    """Exercise: ``fn(scores, mask)``: softmax over allowed entries; masked exactly 0; a fully masked row all 0."""
    name = "masked softmax"
    scores = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 9.0, 1.0], [3.0, 1.0, 2.0, 0.0]])
    mask = np.array([[True, True, False, False], [True, True, True, True], [False, False, False, False]])
    got, problem = _call(name, fn, scores.copy(), mask.copy())
    if problem is not None:
        return problem
    expected = softmax(scores, mask=mask)
    if _close(got, expected):
        return Feedback(name, True, ["Masked keys get exactly 0, and the fully masked row is all zeros."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"Return one weight per score, shape {expected.shape}; got {got.shape}."])
    hints = []
    if not np.all(np.isfinite(got)):
        hints.append("The fully masked row (row 2) gives NaN: with every score at -inf, exp gives 0 and 0/0 = NaN. "
                     "Detect rows with nothing allowed and return zeros there.")
    elif np.allclose(got[2], 0.25):
        hints.append("Row 2 has nothing to attend to, yet you spread the weight uniformly (that is what filling "
                     "with a large negative number does). It must be all zeros: no key, no weight.")
    elif np.any(got[~mask] != 0):
        hints.append("Masked entries must be exactly 0; set the masked scores to -inf before exp (or zero them "
                     "and renormalise).")
    elif not np.allclose(got[:2].sum(axis=1), 1.0):
        hints.append("The allowed weights of a row must sum to 1: normalise after masking, not before.")
    hints.append(f"Expected {np.round(expected, 3).tolist()}, got {np.round(got, 3).tolist()}.")
    return Feedback(name, False, hints)


def check_score_spread(answer, d=256) -> Feedback:
    """Exercise: the standard deviation of q . k for independent standard-normal q, k in d dimensions (sqrt(d))."""
    name = f"the spread of unscaled scores at d = {d}"
    if answer is None or answer is Ellipsis:
        return _not_attempted(name)
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return Feedback(name, False, [f"Give one number, got {type(answer).__name__}."])
    expected = float(np.sqrt(d))
    if abs(value - expected) < 0.01 * expected:
        return Feedback(name, True, [f"Var(q . k) = sum of d variances of q_j k_j = d, so the std is sqrt({d}) = "
                                     f"{expected:g}. Dividing by sqrt(d) brings it back to 1."])
    if abs(value - d) < 1e-6:
        return Feedback(name, False, [f"{d} is the variance; the standard deviation is its square root."])
    if abs(value - 1.0) < 1e-6:
        return Feedback(name, False, ["1 is the spread after dividing by sqrt(d); the question is about q . k itself."])
    return Feedback(name, False, [f"Not {value:g}. Each product q_j k_j has mean 0 and variance 1, and the d "
                                  "products are independent: what is the variance of their sum?"])


# --- notebook 06: seq2seq with attention -------------------------------------------------------------------

def check_context_vectors(fn) -> Feedback:
    """Exercise: ``fn(weights, states)`` returns c_t = sum_j lambda_tj h_j per output step: (m, n), (n, d) -> (m, d)."""
    name = "context vectors c_t"
    states = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [3.0, 1.0, 0.0], [1.0, 1.0, 1.0]])  # h_1..h_4, (4, 3)
    weights = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.8, 0.05, 0.05]])  # step 2 is the source post's example
    got, problem = _call(name, fn, weights.copy(), states.copy())
    if problem is not None:
        return problem
    expected = weights @ states
    if _close(got, expected):
        return Feedback(name, True, ["c_2 = 0.1 h_1 + 0.8 h_2 + 0.05 h_3 + 0.05 h_4, and likewise for every step: "
                                     "one weighted average of the encoder states per output step."])
    hints = [f"Expected {expected.tolist()}, got {np.round(got, 4).tolist()}."]
    if got.shape != expected.shape:
        hints.append(f"Weights (2 steps, 4 input tokens) and states (4 tokens, 3 features) give contexts of shape "
                     f"(2, 3); got {got.shape}.")
    elif _close(got, np.broadcast_to(states.mean(axis=0), expected.shape)):
        hints.append("That is the plain average of the states: the fixed context c. Weight each h_j by lambda_tj.")
    elif _close(got, np.broadcast_to(states.sum(axis=0), expected.shape)):
        hints.append("You summed the states without their weights.")
    return Feedback(name, False, hints)


def check_general_scores(fn) -> Feedback:
    """Exercise: ``fn(s, H, W)`` returns Luong's general scores s^T W h_j: (d_s,), (n, d_h), (d_s, d_h) -> (n,)."""
    name = "Luong's general score s^T W h_j"
    rng = np.random.default_rng(11)
    s, H, W = rng.normal(size=3), rng.normal(size=(5, 4)), rng.normal(size=(3, 4))
    got, problem = _call(name, fn, s.copy(), H.copy(), W.copy())
    if problem is not None:
        return problem
    expected = H @ W.T @ s
    if _close(got, expected):
        return Feedback(name, True, ["One score per input token j: s^T W h_j = (W h_j) . s. W lets s and h_j differ "
                                     "in size and learns which directions to compare."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"With 5 encoder states the result is 5 scores, shape (5,); got {got.shape}. "
                                      "s has 3 entries, each h_j 4 and W is (3, 4): compute W h_j, then dot with s."])
    return Feedback(name, False, [f"Expected {np.round(expected, 4).tolist()}, got {np.round(got, 4).tolist()}.",
                                  "score_j = s @ W @ H[j]; for all j at once: H @ W.T @ s."])


def check_masked_context(fn) -> Feedback:
    """Exercise: ``fn(scores, states, lengths)``: a masked softmax over the real tokens, then contexts (batch, d)."""
    name = "a batch of contexts with padding masked"
    rng = np.random.default_rng(12)
    scores = rng.normal(size=(2, 5))  # (batch, n): one decoder step
    scores[0, 3:] = 6.0  # padding with large scores: must still get no weight
    states = rng.normal(size=(2, 5, 3))  # (batch, n, d)
    lengths = np.array([3, 5])
    got, problem = _call(name, fn, scores.copy(), states.copy(), lengths.copy())
    if problem is not None:
        return problem
    mask = np.arange(5)[None, :] < lengths[:, None]
    weights = softmax(scores, mask=mask)
    expected = np.einsum("bn,bnd->bd", weights, states)
    if _close(got, expected):
        return Feedback(name, True, ["Padding positions get exactly zero weight, whatever their scores."])
    if got.shape != expected.shape:
        return Feedback(name, False, [f"One context per sequence in the batch: shape (2, 3); got {got.shape}."])
    unmasked = np.einsum("bn,bnd->bd", softmax(scores), states)
    if _close(got, unmasked):
        return Feedback(name, False, ["Sequence 0 has only 3 real tokens, but your weights reach its padding "
                                      "(positions 3 and 4, with large scores there). Mask them before the softmax."])
    return Feedback(name, False, [f"Expected {np.round(expected, 4).tolist()}, got {np.round(got, 4).tolist()}."])
