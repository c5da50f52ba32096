"""Self-attention (notebook 07) and the Transformer block (notebook 08), after Vaswani et al. (2017).

- :func:`sinusoidal_positional_encoding`: PE[pos, 2r] = sin(pos omega_r), PE[pos, 2r+1] = cos(pos omega_r),
  omega_r = 10000^(-2r/d);
- :func:`causal_mask`: position i may attend to positions j <= i (True = may attend, as everywhere here);
- :class:`MultiHeadAttention`: split into heads, scaled dot-product attention per head, concatenate,
  project; :meth:`MultiHeadAttention.from_torch` copies the weights of a ``torch.nn.MultiheadAttention``;
- :class:`PositionWiseFFN`, :class:`TransformerBlock` (pre-LN by default, post-LN as in the paper on request);
- :class:`TinyTransformer`: embedding + positional encoding + blocks + a linear read-out, for the digit task;
- :func:`reversal_data`: random digit sequences and their reversals (seeded).

Shapes are written next to each line: ``b`` batch, ``n`` positions, ``d_model`` width, ``d_k`` per head.
"""

from __future__ import annotations

import math

import torch

from .._checks import check_count
from ..positional import sinusoidal_encoding
from ._checks import as_float_tensor, check_dropout, check_mask, checks, checks_enabled
from ._torch_compat import packed_in_projection
from .layers import softmax_over_allowed

__all__ = [
    "sinusoidal_positional_encoding",
    "causal_mask",
    "MultiHeadAttention",
    "PositionWiseFFN",
    "TransformerBlock",
    "TinyTransformer",
    "reversal_data",
]


def sinusoidal_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The (n_positions, d_model) sinusoidal encoding of Vaswani et al. (2017), float32.

    Column pair (2r, 2r+1) is (sin(pos omega_r), cos(pos omega_r)) with angular frequency
    omega_r = base^(-2r/d_model): wavelengths 2 pi / omega_r from 2 pi (r = 0) up to nearly 2 pi * base. Every
    entry lies in [-1, 1], and PE(pos) . PE(pos + delta) = sum_r cos(delta omega_r) depends on the offset delta
    only. An odd d_model drops the last cosine column.

    Examples
    --------
    >>> pe = sinusoidal_positional_encoding(4, 6)
    >>> tuple(pe.shape), float(pe[0, 0]), float(pe[0, 1])
    ((4, 6), 0.0, 1.0)
    """
    return torch.from_numpy(sinusoidal_encoding(n_positions, d_model, base)).to(torch.float32)  # (n, d_model)


def causal_mask(n: int) -> torch.Tensor:
    """(n, n) boolean mask, True where query i may attend to key j, that is j <= i (lower triangle)."""
    n = check_count(n, "n", 1)
    return torch.ones(n, n, dtype=torch.bool).tril()


class MultiHeadAttention(torch.nn.Module):
    """Multi-head scaled dot-product attention: project, split, attend per head, concatenate, project.

    head_m = softmax(Q_m K_m^T / sqrt(d_k)) V_m with Q_m, K_m, V_m the m-th slice of width d_k = d_model /
    num_heads of Q = X_q W_q, K = X_k W_k, V = X_v W_v; output = concat(head_1, ..., head_{n_heads}) W_o.
    ``mask`` is boolean (True = may attend) and broadcasts to (batch, num_heads, n_q, n_k); a 3-D mask
    (batch, n_q or 1, n_k) is applied to every head. The weights of the last call, (batch, num_heads,
    n_q, n_k), are kept (detached) in ``attention_weights``.
    """

    def __init__(self, d_model: int, num_heads: int, *, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        d_model, num_heads = check_count(d_model, "d_model", 1), check_count(num_heads, "num_heads", 1)
        if d_model % num_heads:
            raise ValueError(
                f"d_model must be divisible by num_heads (each head gets d_model / num_heads "
                f"features), got d_model={d_model} and num_heads={num_heads}"
            )
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.W_q = torch.nn.Linear(d_model, d_model, bias=bias)
        self.W_k = torch.nn.Linear(d_model, d_model, bias=bias)
        self.W_v = torch.nn.Linear(d_model, d_model, bias=bias)
        self.W_o = torch.nn.Linear(d_model, d_model, bias=bias)
        self.dropout = torch.nn.Dropout(check_dropout(dropout))
        self.attention_weights = None

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(b, n, d_model) -> (b, num_heads, n, d_k): head m gets features m*d_k ... (m+1)*d_k - 1."""
        b, n, _ = x.shape
        return x.reshape(b, n, self.num_heads, self.d_k).transpose(1, 2)

    def forward(self, queries, keys, values, mask=None):
        if checks_enabled():
            self._check_inputs(queries, keys, values, mask)
        q, k, v = self.project(queries, keys, values)  # (b, heads, n_q, d_k), (b, heads, n_k, d_k) twice
        scores = (q @ k.transpose(-2, -1)).div_(math.sqrt(self.d_k))  # (b, heads, n_q, n_k), divided in place
        weights = softmax_over_allowed(scores, _per_head(mask))  # (b, heads, n_q, n_k)
        self.attention_weights = weights.detach()
        heads = (self.dropout(weights) if self.training else weights) @ v  # (b, heads, n_q, d_k)
        return self.W_o(heads.transpose(1, 2).reshape(queries.shape))  # concatenate, project: (b, n_q, d_model)

    def project(self, queries, keys, values):
        """Q = X_q W_q, K = X_k W_k, V = X_v W_v, split into heads: (b, heads, n, d_k) each."""
        return self.split_heads(self.W_q(queries)), self.split_heads(self.W_k(keys)), self.split_heads(self.W_v(values))

    def _check_inputs(self, queries, keys, values, mask):
        for tensor, name in ((queries, "queries"), (keys, "keys"), (values, "values")):
            as_float_tensor(tensor, name)
            if tensor.dim() != 3 or tensor.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must have shape (batch, n, d_model={self.d_model}), got {tuple(tensor.shape)}"
                )
        if keys.shape[:2] != values.shape[:2] or queries.shape[0] != keys.shape[0]:
            raise ValueError(
                f"queries (b, n_q, d), keys and values (b, n_k, d) must agree in b and n_k; got "
                f"{tuple(queries.shape)}, {tuple(keys.shape)}, {tuple(values.shape)}"
            )
        b, n_q, n_k = queries.shape[0], queries.shape[1], keys.shape[1]
        three_d = torch.is_tensor(mask) and mask.dim() == 3  # (b, n_q or 1, n_k): the same for every head
        check_mask(mask, (b, n_q, n_k) if three_d else (b, self.num_heads, n_q, n_k))

    @classmethod
    def from_torch(cls, module: torch.nn.MultiheadAttention) -> MultiHeadAttention:
        """A copy with the weights of ``module`` (which must have equal q, k, v sizes), to compare outputs."""
        packed = packed_in_projection(module) if isinstance(module, torch.nn.MultiheadAttention) else None
        if packed is None:
            raise ValueError("module must be a torch.nn.MultiheadAttention with kdim = vdim = embed_dim")
        weight, bias = packed  # (3 d, d) and (3 d,) or None: the rows of [W_q; W_k; W_v]
        d = module.embed_dim
        copy = cls(d, module.num_heads, bias=bias is not None)
        with torch.no_grad():
            for index, layer in enumerate((copy.W_q, copy.W_k, copy.W_v)):
                layer.weight.copy_(weight[index * d : (index + 1) * d])
                if layer.bias is not None:
                    layer.bias.copy_(bias[index * d : (index + 1) * d])
            copy.W_o.weight.copy_(module.out_proj.weight)
            if copy.W_o.bias is not None:
                copy.W_o.bias.copy_(module.out_proj.bias)
        return copy


def _per_head(mask):
    """A 3-D mask (b, n_q or 1, n_k) applies to every head: (b, 1, n_q or 1, n_k); others broadcast as they are."""
    return mask[:, None] if mask is not None and mask.dim() == 3 else mask


class PositionWiseFFN(torch.nn.Module):
    """The same two-layer network at every position: max(0, x W_1 + b_1) W_2 + b_2, (b, n, d) -> (b, n, d)."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(d_model, d_ff), torch.nn.ReLU(), torch.nn.Linear(d_ff, d_model))

    def forward(self, x):
        return self.net(x)


class TransformerBlock(torch.nn.Module):
    """Self-attention and a position-wise FFN, each with a residual connection and layer normalisation.

    ``pre_norm=True`` (the default, "pre-LN"): x + Attention(LN(x)), then x + FFN(LN(x)); the residual path
    is never normalised, which keeps training stable without a learning-rate warm-up (Xiong et al., 2020).
    ``pre_norm=False`` is the paper's "post-LN": LN(x + Attention(x)), then LN(x + FFN(x)).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, *, dropout: float = 0.0, pre_norm: bool = True):
        super().__init__()
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.ffn = PositionWiseFFN(d_model, d_ff)
        self.norm1, self.norm2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)
        self.dropout = torch.nn.Dropout(check_dropout(dropout))
        self.pre_norm = pre_norm

    def forward(self, x, mask=None):
        if self.pre_norm:
            y = self.norm1(x)
            x = x + self.dropout(self.attention(y, y, y, mask))  # (b, n, d_model)
            return x + self.dropout(self.ffn(self.norm2(x)))  # (b, n, d_model)
        x = self.norm1(x + self.dropout(self.attention(x, x, x, mask)))
        return self.norm2(x + self.dropout(self.ffn(x)))


class TinyTransformer(torch.nn.Module):
    """Token embedding + sinusoidal positions (optional) + pre-LN blocks + LayerNorm + linear read-out.

    ``forward(tokens)``: (b, n) integer tokens -> (b, n, vocab_size) logits, one prediction per position.
    ``causal=True`` lets position i see positions j <= i only. ``attention_weights()`` stacks the weights
    of the last call: (b, num_layers, num_heads, n, n).
    """

    def __init__(
        self,
        vocab_size: int,
        max_len: int,
        *,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 128,
        positional: bool = True,
        causal: bool = False,
    ):
        super().__init__()
        self.embedding = torch.nn.Embedding(check_count(vocab_size, "vocab_size", 1), d_model)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False)
        self.positional, self.causal = positional, causal
        self.blocks = torch.nn.ModuleList(TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.norm = torch.nn.LayerNorm(d_model)
        self.readout = torch.nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        if not torch.is_tensor(tokens) or tokens.dim() != 2 or tokens.is_floating_point():
            raise ValueError(
                f"tokens must be a 2-D integer tensor (batch, n), got "
                f"{tuple(tokens.shape) if torch.is_tensor(tokens) else type(tokens).__name__}"
            )
        n = tokens.shape[1]
        if n > self.pe.shape[0]:
            raise ValueError(f"sequences of length {n} are longer than max_len={self.pe.shape[0]}")
        x = self.embedding(tokens)  # (b, n, d_model)
        if self.positional:
            x = x + self.pe[:n]  # (b, n, d_model) + (n, d_model)
        mask = causal_mask(n) if self.causal else None  # (n, n)
        with checks(False):  # the tokens are checked: the blocks trust what they are given
            for block in self.blocks:
                x = block(x, mask)  # (b, n, d_model)
        return self.readout(self.norm(x))  # (b, n, vocab_size)

    def attention_weights(self) -> torch.Tensor:
        """(b, num_layers, num_heads, n, n) weights of the last forward call."""
        return torch.stack([block.attention.attention_weights for block in self.blocks], dim=1)


def reversal_data(n_sequences: int, length: int, *, seed: int = 0, digits: int = 10):
    """``n_sequences`` random digit sequences (b, length) and their reversals (b, length), int64, seeded."""
    n_sequences, length = check_count(n_sequences, "n_sequences", 1), check_count(length, "length", 1)
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randint(0, digits, (n_sequences, length), generator=generator)  # (b, n)
    return inputs, inputs.flip(1)  # (b, n), (b, n)
