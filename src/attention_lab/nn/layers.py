"""Attention layers in PyTorch (notebooks 05-06): masked softmax, dot-product, additive, general, pooling.

Every layer takes batched tensors and an optional boolean mask (True = may attend), keeps the weights of
its last call (detached) in ``attention_weights``, and writes shapes next to each line.
"""

from __future__ import annotations

import torch

from .._checks import check_count
from ._checks import as_float_tensor, check_dropout, check_entries, check_mask, checks_enabled, describe

__all__ = [
    "masked_softmax",
    "softmax_over_allowed",
    "padding_mask",
    "DotProductAttention",
    "AdditiveAttention",
    "GeneralAttention",
    "AttentionPooling",
]

# A query with no allowed key gets weights 0 and output 0: the contract of attention_lab.normalisers.


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last axis where ``mask`` is True (may attend); masked entries are exactly 0.

    ``mask`` is boolean and broadcasts against ``scores``. A score of ``-inf`` counts as masked, so a row
    with nothing to attend to (every entry masked or -inf) is all zeros (its output is then the zero
    vector), not uniform and not NaN, and its gradient is zero. NaN and +inf scores are refused.
    """
    if checks_enabled():
        _check_scores(scores, mask)
    allowed = scores > float("-inf")  # a score of -inf is a masked key
    return softmax_over_allowed(scores, allowed if mask is None else allowed & mask)


def softmax_over_allowed(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """The formula of :func:`masked_softmax`, without its checks: for the layers, whose door checked their inputs.

    Without a mask the scores must be finite, as a layer's scores of finite inputs are: every key is allowed.
    """
    if mask is None:
        return torch.softmax(scores, dim=-1)
    empty = ~mask.any(dim=-1, keepdim=True)  # (..., 1): a query with no allowed key
    filled = scores.masked_fill(~mask, float("-inf")).masked_fill(empty, 0.0)  # what the mask hides is never read
    return torch.softmax(filled, dim=-1).masked_fill(~mask, 0.0)  # exactly 0 where masked, gradient 0 too


def _check_scores(scores, mask):
    """The checks of :func:`masked_softmax`: float scores with a key, a mask that fits, no NaN or +inf."""
    as_float_tensor(scores, "scores")
    if scores.dim() == 0 or scores.shape[-1] == 0:
        raise ValueError(f"scores must have at least one key along the last axis, got shape {tuple(scores.shape)}")
    check_mask(mask, scores.shape)
    filled = scores if mask is None else scores.masked_fill(~mask, float("-inf"))
    check_entries(filled, "scores", allow_neg_inf=True, where=" where the mask allows attention")


def padding_mask(valid_lens: torch.Tensor, n_keys: int) -> torch.Tensor:
    """(batch,) valid lengths -> (batch, 1, n_keys) boolean mask, True on the first valid_lens[b] keys.

    Every length must be a whole number between 0 and ``n_keys``.
    """
    n_keys = check_count(n_keys, "n_keys", 0)
    if not torch.is_tensor(valid_lens) or valid_lens.dim() != 1:
        raise ValueError(f"valid_lens must be a 1-D torch tensor of lengths, got {describe(valid_lens)}")
    if valid_lens.dtype == torch.bool or valid_lens.is_complex():
        raise ValueError(f"valid_lens must hold whole numbers, got dtype {valid_lens.dtype}")
    if valid_lens.is_floating_point() and not (
        torch.isfinite(valid_lens).all() and (valid_lens == valid_lens.round()).all()
    ):
        raise ValueError(f"valid_lens must hold whole numbers, got {valid_lens.tolist()}")
    if ((valid_lens < 0) | (valid_lens > n_keys)).any():
        raise ValueError(f"valid_lens must lie between 0 and n_keys = {n_keys}, got {valid_lens.tolist()}")
    return (torch.arange(n_keys, device=valid_lens.device)[None, :] < valid_lens[:, None])[:, None, :]


def _check_batched(queries, keys, values, mask, *, same_d: bool = False):
    """(batch, n_q, d_q), (batch, n_k, d_k), (batch, n_k, d_v) float tensors, n_k >= 1, and a mask that fits
    the scores (batch, n_q, n_k); else a ValueError."""
    for tensor, name in ((queries, "queries"), (keys, "keys"), (values, "values")):
        if not torch.is_tensor(tensor) or tensor.dim() != 3:
            raise ValueError(f"{name} must be a 3-D tensor (batch, n, d), got {describe(tensor)}")
        as_float_tensor(tensor, name)
    if not queries.shape[0] == keys.shape[0] == values.shape[0] or keys.shape[1] != values.shape[1]:
        raise ValueError(
            f"shapes must be (batch, n_q, d_q), (batch, n_k, d_k), (batch, n_k, d_v) with one batch "
            f"size and one value per key; got {tuple(queries.shape)}, {tuple(keys.shape)}, "
            f"{tuple(values.shape)}"
        )
    if keys.shape[1] == 0:
        raise ValueError(f"keys must hold at least one key per sequence (n_k >= 1), got shape {tuple(keys.shape)}")
    if same_d and queries.shape[-1] != keys.shape[-1]:
        raise ValueError(
            f"queries and keys need the same size d for a dot product, got {queries.shape[-1]} and {keys.shape[-1]}"
        )
    check_mask(mask, (queries.shape[0], queries.shape[1], keys.shape[1]))


def _check_features(tensor, name: str, expected: int, layer):
    if tensor.shape[-1] != expected:
        raise ValueError(
            f"{name} must have {expected} features (last axis), as this {type(layer).__name__} was "
            f"built for; got shape {tuple(tensor.shape)}"
        )


class DotProductAttention(torch.nn.Module):
    """Scaled dot-product attention: softmax(Q K^T / sqrt(d)) V, with an optional boolean mask."""

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.dropout = torch.nn.Dropout(check_dropout(dropout))
        self.attention_weights = None

    def forward(self, queries, keys, values, mask=None):
        if checks_enabled():
            _check_batched(queries, keys, values, mask, same_d=True)
        scores = queries @ keys.transpose(1, 2) / queries.shape[-1] ** 0.5  # (batch, n_q, n_k)
        weights = softmax_over_allowed(scores, mask)  # (batch, n_q, n_k)
        self.attention_weights = weights.detach()
        return self.dropout(weights) @ values  # (batch, n_q, d_v)


class AdditiveAttention(torch.nn.Module):
    """Additive (MLP, Bahdanau) attention: a(q, k) = w_v^T tanh(W_q q + W_k k); q and k may differ in size."""

    def __init__(self, query_size: int, key_size: int, num_hiddens: int, dropout: float = 0.0):
        super().__init__()
        query_size, key_size = check_count(query_size, "query_size", 1), check_count(key_size, "key_size", 1)
        num_hiddens = check_count(num_hiddens, "num_hiddens", 1)
        self.W_q = torch.nn.Linear(query_size, num_hiddens, bias=False)
        self.W_k = torch.nn.Linear(key_size, num_hiddens, bias=False)
        self.w_v = torch.nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = torch.nn.Dropout(check_dropout(dropout))
        self.attention_weights = None

    def scores(self, queries, keys):
        """(batch, n_q, n_k) scores w_v^T tanh(W_q q + W_k k); d_h = num_hiddens, the width of the tanh layer."""
        return self.score_projected(queries, self.project_keys(keys))

    def project_keys(self, keys):
        """W_k k_j, (batch, n_k, d_h): the part of the score that depends on the keys only (compute it once)."""
        return self.W_k(keys)

    def score_projected(self, queries, projected_keys):
        """Scores (batch, n_q, n_k) from queries (batch, n_q, d_q) and :meth:`project_keys`'s (batch, n_k, d_h)."""
        features = torch.tanh(self.W_q(queries)[:, :, None, :] + projected_keys[:, None, :, :])  # (b, n_q, n_k, d_h)
        return self.w_v(features).squeeze(-1)  # (batch, n_q, n_k)

    def forward(self, queries, keys, values, mask=None):
        if checks_enabled():
            _check_batched(queries, keys, values, mask)
            _check_features(queries, "queries", self.W_q.in_features, self)
            _check_features(keys, "keys", self.W_k.in_features, self)
        weights = softmax_over_allowed(self.scores(queries, keys), mask)  # (batch, n_q, n_k)
        self.attention_weights = weights.detach()
        return self.dropout(weights) @ values  # (batch, n_q, d_v)


class AttentionPooling(torch.nn.Module):
    """Pool a sequence (batch, n, d) into one vector (batch, d) with a learned query u_w (``self.query``).

    z_t = tanh(W_w x_t + b_w), alpha_t = z_t . u_w, lambda = masked_softmax(alpha), output sum_t lambda_t x_t:
    the word-attention layer of Yang et al. (2016), "Hierarchical Attention Networks for Document
    Classification" (u_w is their word context vector). It is additive attention with a fixed learned query,
    nonlinear in x_t, with no tanh on the output. The original post's layer, a linear score (x_t W) . q and a
    tanh on the output, is :class:`~attention_lab.nn.DotAttentionPooling` (notebook 05 trains both).
    """

    def __init__(self, d: int, num_hiddens: int | None = None):
        super().__init__()
        d = check_count(d, "d", 1)
        hidden = d if num_hiddens is None else check_count(num_hiddens, "num_hiddens", 1)
        self.proj = torch.nn.Linear(d, hidden)
        self.query = torch.nn.Parameter(torch.randn(hidden) / hidden**0.5)
        self.attention_weights = None

    def forward(self, states, mask=None):
        if checks_enabled():
            self._check_inputs(states, mask)
        scores = torch.tanh(self.proj(states)) @ self.query  # (batch, n)
        weights = softmax_over_allowed(scores, mask)  # (batch, n)
        self.attention_weights = weights.detach()
        return (weights[:, :, None] * states).sum(dim=1)  # (batch, d)

    def _check_inputs(self, states, mask):
        if not torch.is_tensor(states) or states.dim() != 3:
            raise ValueError(f"states must be a 3-D tensor (batch, n, d), got {describe(states)}")
        as_float_tensor(states, "states")
        if states.shape[1] == 0:
            raise ValueError(f"states must hold at least one position (n >= 1), got shape {tuple(states.shape)}")
        _check_features(states, "states", self.proj.in_features, self)
        check_mask(mask, states.shape[:2])


class GeneralAttention(torch.nn.Module):
    """Luong's "general" (bilinear) score a(s, e) = s^T W e (``"dot"`` is the special case W = I, when sizes agree)."""

    def __init__(self, query_size: int, key_size: int):
        super().__init__()
        query_size, key_size = check_count(query_size, "query_size", 1), check_count(key_size, "key_size", 1)
        self.W = torch.nn.Linear(key_size, query_size, bias=False)
        self.attention_weights = None

    def forward(self, queries, keys, values, mask=None):
        if checks_enabled():
            _check_batched(queries, keys, values, mask)
            _check_features(queries, "queries", self.W.out_features, self)
            _check_features(keys, "keys", self.W.in_features, self)
        scores = self.score_projected(queries, self.project_keys(keys))  # (batch, n_q, n_k)
        weights = softmax_over_allowed(scores, mask)
        self.attention_weights = weights.detach()
        return weights @ values

    def project_keys(self, keys):
        """W e_j, (batch, n_k, d_q): the part of the score that depends on the keys only (compute it once)."""
        return self.W(keys)

    def score_projected(self, queries, projected_keys):
        """Scores s^T (W e_j), (batch, n_q, n_k), from queries (batch, n_q, d_q) and :meth:`project_keys`'s output."""
        return queries @ projected_keys.transpose(1, 2)  # (batch, n_q, n_k)
