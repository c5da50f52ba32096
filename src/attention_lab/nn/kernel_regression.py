"""Nadaraya-Watson regression as a torch module (notebook 04): parametric attention pooling with a learnable width."""

from __future__ import annotations

import torch

from .._checks import check_count, check_positive
from ._checks import as_float_tensor, checks_enabled

__all__ = ["NWKernelRegression", "AdaptiveNWKernelRegression", "leave_one_out"]


class _NadarayaWatson(torch.nn.Module):
    """f(x) = sum_i lambda_i(x) y_i with lambda_i(x) = softmax_i(-((x - x_i) w(x))^2 / 2); a subclass says w(x).

    The weights of the last call are kept, detached, in ``attention_weights`` with shape (n_q, n_k).
    """

    def inverse_width(self, queries: torch.Tensor) -> torch.Tensor:
        """w(x) for each query, shape (n_q, 1), > 0."""
        raise NotImplementedError

    @staticmethod
    def shifted_scores(diff: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """The Gaussian scores -(diff w)^2 / 2, shifted per row (the softmax ignores it); a subclass may score
        differently (notebook 04, section 6, gives the Laplace kernel's -w |x - x_i|)."""
        return _shifted_gaussian_scores(diff, w)

    def forward(self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        keys, values = _keys_per_query(queries, keys, values)  # (n_q, n_k) each, checked
        diff = _differences(queries, keys)  # x - x_i: (n_q, n_k)
        scores = self.shifted_scores(diff, self.inverse_width(queries))  # -((x - x_i) w)^2 / 2 + const per row
        weights = torch.softmax(scores, dim=1)  # lambda_i(x): (n_q, n_k), rows sum to 1
        self.attention_weights = weights.detach()
        return (weights * values).sum(dim=1)  # f(x) = sum_i lambda_i(x) y_i: (n_q,)


class NWKernelRegression(_NadarayaWatson):
    """Nadaraya-Watson regression with one learnable inverse bandwidth w = 1/h (parametric attention pooling).

    f(x) = sum_i softmax_i(-((x - x_i) w)^2 / 2) y_i. ``w`` starts as a positive finite number.
    """

    def __init__(self, w: float = 1.0):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(_check_w(w)))
        self.attention_weights = None

    def inverse_width(self, queries: torch.Tensor) -> torch.Tensor:
        """w for each query, shape (n_q, 1): here one shared scalar."""
        return self.w.expand(queries.shape[0], 1)


class AdaptiveNWKernelRegression(_NadarayaWatson):
    """Nadaraya-Watson with an inverse width that depends on the query: w(x) = softplus(MLP(x)) > 0.

    A tiny network (1 -> ``hidden`` -> 1, tanh) reads the query and says how sharp its attention is.
    Its output bias starts so that w(x) = ``w`` everywhere.
    """

    def __init__(self, w: float = 1.0, hidden: int = 16):
        super().__init__()
        w = float(torch.tensor(_check_w(w)))  # the float32 value, as NWKernelRegression(w) stores it
        hidden = check_count(hidden, "hidden", 1)
        self.net = torch.nn.Sequential(torch.nn.Linear(1, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
        with torch.no_grad():
            self.net[2].weight.mul_(0.1)
            # softplus^-1(w) = log(e^w - 1) = w + log(1 - e^-w): the second form never overflows (w = 100 is fine)
            inverse = torch.tensor(w, dtype=torch.float64)
            self.net[2].bias.fill_(float(inverse + torch.log(-torch.expm1(-inverse))))
        self.attention_weights = None

    def inverse_width(self, queries: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(self.net(queries[:, None]))  # (n_q, 1), > 0 (or 0 after underflow)


# The checks and the log-domain limit beside the formulas above.


def _shifted_gaussian_scores(diff: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """-((x - x_i) w)^2 / 2 minus its row maximum, (n_q, n_k): 0 at the nearest key, finite or -inf elsewhere.

    Shifting each query's scores by its largest (that of its nearest key) leaves the weights and their
    gradients unchanged (a softmax ignores a constant added to a row) and keeps them finite for any w:
    -((x - x_i) w)^2 / 2 + ((x - x_near) w)^2 / 2 is written -(|x - x_i| - |x - x_near|) w (|x - x_i| +
    |x - x_near|) w / 2, so a huge w gives the nearest-key limit instead of -inf everywhere and 0/0.
    """
    top = torch.finfo(diff.dtype).max
    distance = diff.abs()  # (n_q, n_k)
    nearest = distance.amin(dim=1, keepdim=True)  # (n_q, 1)
    gap = ((distance - nearest) * w.abs()).clamp(max=top)  # >= 0; clamped: never inf, so never 0 * inf
    reach = ((distance + nearest) * w.abs()).clamp(max=top)
    return -(gap * reach) / 2  # (n_q, n_k); the product may round to -inf: weight exactly 0


def _check_w(w) -> float:
    w = check_positive(w, "w")
    if w > torch.finfo(torch.float32).max:
        raise ValueError(f"w must fit a float32 parameter (at most 3.4e38), got {w}")
    return w


def _differences(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    diff = queries[:, None] - keys  # (n_q, n_k): x - x_i
    if not torch.isfinite(diff).all():
        raise ValueError("queries and keys are too far apart: some x - x_i is beyond the float range")
    return diff


def _keys_per_query(queries, keys, values):
    """Check shapes; return keys and values as (n_q, n_k), one key set per query (broadcast if shared)."""
    scan = checks_enabled()  # NaN and inf refused at the door, unless a caller switched the checks off
    queries, keys, values = (
        as_float_tensor(t, n, check_values=scan) for t, n in ((queries, "queries"), (keys, "keys"), (values, "values"))
    )
    if queries.dim() != 1:
        raise ValueError(f"queries must have shape (n_q,), got {tuple(queries.shape)}")
    if keys.shape != values.shape:
        raise ValueError(f"keys and values must have the same shape, got {tuple(keys.shape)} and {tuple(values.shape)}")
    if keys.dim() in (1, 2) and keys.shape[-1] == 0:
        raise ValueError(f"keys must hold at least one key per query, got shape {tuple(keys.shape)}")
    n_q = queries.shape[0]
    if keys.dim() == 1:
        return keys.expand(n_q, -1), values.expand(n_q, -1)  # (n_k,) -> (n_q, n_k), no copy
    if keys.dim() == 2 and keys.shape[0] == n_q:
        return keys, values
    raise ValueError(f"keys and values must have shape (n_k,) or (n_q, n_k) = ({n_q}, n_k), got {tuple(keys.shape)}")


def leave_one_out(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each training point i, the other n - 1 keys and values: two tensors of shape (n, n - 1)."""
    x, y = as_float_tensor(x, "x", check_values=True), as_float_tensor(y, "y", check_values=True)
    if x.dtype != y.dtype:
        raise ValueError(f"x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    if x.dim() != 1 or x.shape != y.shape or x.shape[0] < 2:
        raise ValueError(f"x and y must be 1-D with the same length >= 2, got {tuple(x.shape)} and {tuple(y.shape)}")
    n = x.shape[0]
    others = ~torch.eye(n, dtype=torch.bool)  # (n, n), False on the diagonal
    return x.expand(n, n)[others].reshape(n, n - 1), y.expand(n, n)[others].reshape(n, n - 1)
