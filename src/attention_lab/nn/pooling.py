"""The original post's attention-pooling layer (notebook 05): a dot-product score with a learned query.

The second of the original posts (001, "Attention is all you need (1)") ends with a TensorFlow function
that pools a sequence ``x`` of shape (batch, n, d) into one vector per sequence:

    score_t  = (x_t W) . q          W (d, d) and q (d,) learned, no bias, no tanh in the score
    lambda   = softmax over t of score
    output   = tanh(sum_t lambda_t x_t)

:class:`DotAttentionPooling` is that layer in PyTorch, with an optional padding mask added (the post has
none). Two facts about it, both tested:

- ``W`` is redundant: (x_t W) . q = x_t . (W q), so the score is a dot product of each step with ONE
  learned vector q~ = W q (see :attr:`DotAttentionPooling.effective_query`). The layer can only rank the
  steps by a linear function of x_t.
- It is not the course's :class:`~attention_lab.nn.AttentionPooling`, which scores
  alpha_t = tanh(W x_t + b) . u (the word-attention layer of Yang et al. 2016, "Hierarchical Attention
  Networks for Document Classification"): an additive score with a fixed learned query, nonlinear in x_t,
  and no tanh on the output.
"""

from __future__ import annotations

import torch

from .._checks import check_count
from ._checks import as_bool_mask, as_float_tensor, checks_enabled, describe
from .layers import softmax_over_allowed

__all__ = ["DotAttentionPooling"]


class DotAttentionPooling(torch.nn.Module):
    """The original post's pooling: alpha_t = (x_t W) . q, lambda = softmax(alpha), output tanh(sum_t lambda_t x_t).

    The layer of the original post (001), in PyTorch. Parameters are drawn as there: a normal with standard
    deviation 0.5 truncated at two standard deviations (TensorFlow's ``truncated_normal``).

    Parameters
    ----------
    d : int
        Size of each step x_t (the post's ``hidden_size``).

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> pool = DotAttentionPooling(4)
    >>> x = torch.randn(2, 5, 4)                              # (batch, n, d)
    >>> pool(x).shape                                         # (batch, d)
    torch.Size([2, 4])
    >>> torch.allclose(pool.attention_weights.sum(-1), torch.ones(2))   # one distribution per sequence
    True
    """

    def __init__(self, d: int):
        super().__init__()
        d = check_count(d, "d", 1, what="the size of each step")
        self.W = torch.nn.Parameter(torch.empty(d, d))  # the post's W: (d, d)
        self.query = torch.nn.Parameter(torch.empty(d))  # the post's query: (d,)
        for parameter in (self.W, self.query):
            torch.nn.init.trunc_normal_(parameter, mean=0.0, std=0.5, a=-1.0, b=1.0)
        self.attention_weights = None

    @property
    def effective_query(self) -> torch.Tensor:
        """q~ = W q, (d,): the score (x_t W) . q equals x_t . q~, so W and q act only through this one vector."""
        return self.W @ self.query

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """(batch, n, d) steps and an optional (batch, n) boolean mask (True = real step) -> (batch, d).

        A sequence with no real step gets all-zero weights and the output tanh(0) = 0.
        """
        if checks_enabled():
            self._check_inputs(x, mask)
        if mask is not None:
            x = torch.where(mask[..., None], x, torch.zeros((), dtype=x.dtype))  # padding content never leaks
        scores = (x @ self.W) @ self.query  # (batch, n): alpha_t = (x_t W) . q
        weights = softmax_over_allowed(scores, mask)  # (batch, n)
        self.attention_weights = weights.detach()
        pooled = (weights[:, :, None] * x).sum(dim=1)  # (batch, d): sum_t lambda_t x_t
        return torch.tanh(pooled)

    def _check_inputs(self, x, mask):
        as_float_tensor(x, "x")
        d = self.query.shape[0]
        if x.dim() != 3 or x.shape[-1] != d:
            raise ValueError(f"x must have shape (batch, n, {d}), got {tuple(x.shape)}")
        if mask is not None and tuple(as_bool_mask(mask).shape) != tuple(x.shape[:2]):
            raise ValueError(
                f"mask must have shape (batch, n) = {tuple(x.shape[:2])} (True = real step), got {describe(mask)}"
            )
