"""PyTorch pieces of the course (imported on demand: ``from attention_lab import nn``).

Shapes are written next to each line. Only what the notebooks train lives here.
"""

from __future__ import annotations

import torch

from ._checks import check_temperature

__all__ = ["gumbel_softmax", "NWKernelRegression", "AdaptiveNWKernelRegression", "leave_one_out", "masked_softmax",
           "padding_mask", "DotProductAttention", "AdditiveAttention", "AttentionPooling"]


def gumbel_softmax(scores: torch.Tensor, temperature: float = 1.0, *, hard: bool = False,
                   generator: torch.Generator | None = None, dim: int = -1) -> torch.Tensor:
    """Differentiable relaxed sample: lambda = softmax((alpha + g) / T), g_i ~ Gumbel(0, 1).

    With ``hard=True`` the forward value is the one-hot argmax(alpha + g), an exact sample from
    softmax(alpha), while the gradient is that of the relaxed weights: the straight-through estimator,
    ``one_hot - relaxed.detach() + relaxed``.
    """
    temperature = check_temperature(temperature)
    if not 0 < temperature < float("inf"):
        raise ValueError(f"temperature must be positive and finite for a differentiable sample, got {temperature}")
    if not torch.is_tensor(scores) or not scores.is_floating_point():
        raise ValueError(f"scores must be a floating-point torch tensor, got {type(scores).__name__}")
    uniform = torch.rand(scores.shape, generator=generator, dtype=scores.dtype).clamp_(1e-12, 1 - 1e-12)
    gumbel = -torch.log(-torch.log(uniform))  # same shape as scores
    relaxed = torch.softmax((scores + gumbel) / temperature, dim=dim)
    if not hard:
        return relaxed
    index = relaxed.argmax(dim=dim, keepdim=True)
    one_hot = torch.zeros_like(relaxed).scatter_(dim, index, 1.0)
    return one_hot - relaxed.detach() + relaxed  # value: one_hot; gradient: d relaxed


# --- notebook 04: parametric attention pooling ------------------------------------------------------------

def _vector(value, name):
    if not torch.is_tensor(value) or not value.is_floating_point():
        raise ValueError(f"{name} must be a floating-point torch tensor, got {type(value).__name__}")
    return value


def _keys_per_query(queries, keys, values):
    """Check shapes; return keys and values as (n_q, n_k), one key set per query (broadcast if shared)."""
    queries, keys, values = (_vector(t, n) for t, n in ((queries, "queries"), (keys, "keys"), (values, "values")))
    if queries.dim() != 1:
        raise ValueError(f"queries must have shape (n_q,), got {tuple(queries.shape)}")
    if keys.shape != values.shape:
        raise ValueError(f"keys and values must have the same shape, got {tuple(keys.shape)} and {tuple(values.shape)}")
    n_q = queries.shape[0]
    if keys.dim() == 1:
        return keys.expand(n_q, -1), values.expand(n_q, -1)  # (n_k,) -> (n_q, n_k), no copy
    if keys.dim() == 2 and keys.shape[0] == n_q:
        return keys, values
    raise ValueError(f"keys and values must have shape (n_k,) or (n_q, n_k) = ({n_q}, n_k), got {tuple(keys.shape)}")


class NWKernelRegression(torch.nn.Module):
    """Nadaraya-Watson regression with a learnable inverse bandwidth w = 1/h (parametric attention pooling).

    f(x) = sum_i softmax_i(-((x - x_i) w)^2 / 2) y_i. The weights of the last call are kept, detached, in
    ``attention_weights`` with shape (n_q, n_k).
    """

    def __init__(self, w: float = 1.0):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(float(w)))
        self.attention_weights = None

    def inverse_width(self, queries: torch.Tensor) -> torch.Tensor:
        """w for each query, shape (n_q, 1): here one shared scalar."""
        return self.w.expand(queries.shape[0], 1)

    def forward(self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        keys, values = _keys_per_query(queries, keys, values)  # (n_q, n_k) each
        diff = queries[:, None] - keys  # (n_q, n_k): x - x_i
        scores = -((diff * self.inverse_width(queries)) ** 2) / 2  # (n_q, n_k)
        weights = torch.softmax(scores, dim=1)  # (n_q, n_k), rows sum to 1
        self.attention_weights = weights.detach()
        return (weights * values).sum(dim=1)  # (n_q,): sum_i lambda_i(x) y_i


class AdaptiveNWKernelRegression(NWKernelRegression):
    """Nadaraya-Watson with an inverse width that depends on the query: w(x) = softplus(MLP(x)) > 0.

    A tiny network (1 -> ``hidden`` -> 1, tanh) reads the query and says how sharp its attention is.
    Its output bias starts so that w(x) = ``w`` everywhere.
    """

    def __init__(self, w: float = 1.0, hidden: int = 16):
        super().__init__(w)
        del self.w  # the width now comes from the network
        self.net = torch.nn.Sequential(torch.nn.Linear(1, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
        with torch.no_grad():
            self.net[2].weight.mul_(0.1)
            self.net[2].bias.fill_(float(torch.log(torch.expm1(torch.tensor(float(w))))))  # softplus^-1(w)

    def inverse_width(self, queries: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softplus(self.net(queries[:, None]))  # (n_q, 1), positive


def leave_one_out(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each training point i, the other n - 1 keys and values: two tensors of shape (n, n - 1)."""
    x, y = _vector(x, "x"), _vector(y, "y")
    if x.dim() != 1 or x.shape != y.shape or x.shape[0] < 2:
        raise ValueError(f"x and y must be 1-D with the same length >= 2, got {tuple(x.shape)} and {tuple(y.shape)}")
    n = x.shape[0]
    others = ~torch.eye(n, dtype=torch.bool)  # (n, n), False on the diagonal
    return x.expand(n, n)[others].reshape(n, n - 1), y.expand(n, n)[others].reshape(n, n - 1)


# --- notebooks 05-06: attention layers -------------------------------------------------------------------

def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last axis where ``mask`` is True (may attend); masked entries are exactly 0.

    ``mask`` is boolean and broadcasts against ``scores``. A row with nothing to attend to is all zeros
    (its output is then the zero vector), not uniform and not NaN, and its gradient is zero.
    """
    scores = _vector(scores, "scores")
    if mask is None:
        return torch.softmax(scores, dim=-1)
    if not torch.is_tensor(mask) or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a boolean torch tensor (True = may attend), got "
                         f"{mask.dtype if torch.is_tensor(mask) else type(mask).__name__}")
    try:
        mask = mask.expand_as(scores)
    except RuntimeError:
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not broadcast to the scores' shape "
                         f"{tuple(scores.shape)}") from None
    filled = scores.masked_fill(~mask, float("-inf"))
    top = filled.amax(dim=-1, keepdim=True).detach()
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))  # fully masked row: anything finite
    exp = torch.exp(filled - top)  # exp(-inf) = 0 exactly where masked
    total = exp.sum(dim=-1, keepdim=True)
    return exp / torch.where(total > 0, total, torch.ones_like(total))


def padding_mask(valid_lens: torch.Tensor, n_keys: int) -> torch.Tensor:
    """(batch,) valid lengths -> (batch, 1, n_keys) boolean mask, True on the first valid_lens[b] keys."""
    if not torch.is_tensor(valid_lens) or valid_lens.dim() != 1:
        raise ValueError(f"valid_lens must be a 1-D torch tensor of lengths, got {valid_lens!r}")
    return (torch.arange(n_keys, device=valid_lens.device)[None, :] < valid_lens[:, None])[:, None, :]


def _check_batched(queries, keys, values):
    for tensor, name in ((queries, "queries"), (keys, "keys"), (values, "values")):
        if not torch.is_tensor(tensor) or tensor.dim() != 3:
            raise ValueError(f"{name} must be a 3-D tensor (batch, n, d), got "
                             f"{tuple(tensor.shape) if torch.is_tensor(tensor) else type(tensor).__name__}")
    if not queries.shape[0] == keys.shape[0] == values.shape[0] or keys.shape[1] != values.shape[1]:
        raise ValueError(f"shapes must be (batch, n_q, d_q), (batch, n_k, d_k), (batch, n_k, d_v); got "
                         f"{tuple(queries.shape)}, {tuple(keys.shape)}, {tuple(values.shape)}")


class DotProductAttention(torch.nn.Module):
    """Scaled dot-product attention: softmax(Q K^T / sqrt(d)) V, with an optional boolean mask."""

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.dropout = torch.nn.Dropout(dropout)
        self.attention_weights = None

    def forward(self, queries, keys, values, mask=None):
        _check_batched(queries, keys, values)
        if queries.shape[-1] != keys.shape[-1]:
            raise ValueError(f"queries and keys need the same size d for a dot product, got {queries.shape[-1]} "
                             f"and {keys.shape[-1]}")
        scores = queries @ keys.transpose(1, 2) / queries.shape[-1] ** 0.5  # (batch, n_q, n_k)
        weights = masked_softmax(scores, mask)  # (batch, n_q, n_k)
        self.attention_weights = weights.detach()
        return self.dropout(weights) @ values  # (batch, n_q, d_v)


class AdditiveAttention(torch.nn.Module):
    """Additive (MLP, Bahdanau) attention: a(q, k) = w_v^T tanh(W_q q + W_k k); q and k may differ in size."""

    def __init__(self, query_size: int, key_size: int, num_hiddens: int, dropout: float = 0.0):
        super().__init__()
        self.W_q = torch.nn.Linear(query_size, num_hiddens, bias=False)
        self.W_k = torch.nn.Linear(key_size, num_hiddens, bias=False)
        self.w_v = torch.nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = torch.nn.Dropout(dropout)
        self.attention_weights = None

    def scores(self, queries, keys):
        """(batch, n_q, n_k) scores."""
        features = torch.tanh(self.W_q(queries)[:, :, None, :] + self.W_k(keys)[:, None, :, :])  # (b, n_q, n_k, h)
        return self.w_v(features).squeeze(-1)  # (batch, n_q, n_k)

    def forward(self, queries, keys, values, mask=None):
        _check_batched(queries, keys, values)
        weights = masked_softmax(self.scores(queries, keys), mask)  # (batch, n_q, n_k)
        self.attention_weights = weights.detach()
        return self.dropout(weights) @ values  # (batch, n_q, d_v)


class AttentionPooling(torch.nn.Module):
    """Pool a sequence (batch, n, d) into one vector (batch, d) with a learned query u.

    u_t = tanh(W h_t + b), alpha_t = u_t . u, lambda = masked_softmax(alpha), output sum_t lambda_t h_t.
    """

    def __init__(self, d: int, num_hiddens: int | None = None):
        super().__init__()
        hidden = num_hiddens or d
        self.proj = torch.nn.Linear(d, hidden)
        self.query = torch.nn.Parameter(torch.randn(hidden) / hidden**0.5)
        self.attention_weights = None

    def forward(self, states, mask=None):
        if not torch.is_tensor(states) or states.dim() != 3:
            raise ValueError(f"states must be a 3-D tensor (batch, n, d), got {getattr(states, 'shape', states)}")
        scores = torch.tanh(self.proj(states)) @ self.query  # (batch, n)
        weights = masked_softmax(scores, mask)  # (batch, n)
        self.attention_weights = weights.detach()
        return (weights[:, :, None] * states).sum(dim=1)  # (batch, d)
