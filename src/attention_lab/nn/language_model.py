"""A decoder-only character model that generates text, with and without a KV cache (notebook 09).

- :class:`CharTransformer`: notebook 08's :class:`~attention_lab.nn.TinyTransformer` with the causal mask
  on: position i predicts token i + 1 from tokens 0..i. Its :meth:`~CharTransformer.step` runs only the
  *new* positions and keeps every layer's keys and values of the positions already seen in a
  :class:`KVCache`, so generating a token computes one query, one key and one value per layer instead of
  the whole prefix again; the logits are the same as the full forward pass gives (a test checks it).
- :func:`generate`: prompt in, continuation out, greedy or sampled (:mod:`attention_lab.sampling`),
  with or without the cache.

Why the cache is exact: with the causal mask, position j's key and value depend on tokens 0..j only, so
appending a token changes none of them. Without the mask they would change (every position reads the
future), and no cache would be possible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from .._checks import as_rng
from ..sampling import greedy_tokens, sample_tokens
from .layers import softmax_over_allowed
from .transformer import TinyTransformer

__all__ = ["KVCache", "CharTransformer", "generate"]


@dataclass
class KVCache:
    """The keys and values of every layer for the positions seen so far: each (b, num_heads, t, d_k)."""

    keys: list = field(default_factory=list)
    values: list = field(default_factory=list)

    @property
    def length(self) -> int:
        """t, the number of positions cached (0 when empty)."""
        return 0 if not self.keys else self.keys[0].shape[2]

    def nbytes(self) -> int:
        """Bytes held: 2 (keys and values) x layers x b x heads x t x d_k x bytes per number."""
        return sum(t.element_size() * t.nelement() for t in (*self.keys, *self.values))


class CharTransformer(TinyTransformer):
    """A causal :class:`~attention_lab.nn.TinyTransformer` over characters, with a cached :meth:`step`."""

    def __init__(
        self,
        vocab_size: int,
        max_len: int,
        *,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 128,
    ):
        super().__init__(
            vocab_size,
            max_len,
            d_model=d_model,
            num_heads=num_heads,
            num_layers=num_layers,
            d_ff=d_ff,
            positional=True,
            causal=True,
        )
        self.vocab_size, self.max_len = vocab_size, max_len

    def step(self, tokens: torch.Tensor, cache: KVCache | None = None):
        """Run the new ``tokens`` (b, n_new) after the ``cache``'s t positions: logits (b, n_new, V), new cache.

        Position t + i reads the cached positions 0..t-1 and the new ones up to itself. The cache given is
        not modified; the one returned holds t + n_new positions.
        """
        cache = KVCache() if cache is None else cache
        if not torch.is_tensor(tokens) or tokens.dim() != 2 or tokens.is_floating_point() or tokens.shape[1] == 0:
            raise ValueError(
                f"tokens must be a 2-D integer tensor (batch, n_new) with n_new >= 1, got "
                f"{tuple(tokens.shape) if torch.is_tensor(tokens) else type(tokens).__name__}"
            )
        t, n_new = cache.length, tokens.shape[1]
        if t + n_new > self.max_len:
            raise ValueError(f"the cache holds {t} positions and {n_new} more do not fit in max_len={self.max_len}")
        x = self.embedding(tokens) + self.pe[t : t + n_new]  # (b, n_new, d_model)
        # new position i reads j <= t + i: one new token reads every position, so it needs no mask
        mask = torch.ones(n_new, t + n_new, dtype=torch.bool).tril(t) if n_new > 1 else None  # (n_new, t + n_new)
        new = KVCache()
        for layer, block in enumerate(self.blocks):
            attention, y = block.attention, block.norm1(x)
            q, k, v = attention.project(y, y, y)  # (b, heads, n_new, d_k) each: the new positions only
            if t:
                k = torch.cat([cache.keys[layer], k], dim=2)  # (b, heads, t + n_new, d_k): old keys reused
                v = torch.cat([cache.values[layer], v], dim=2)
            new.keys.append(k)
            new.values.append(v)
            weights = softmax_over_allowed(
                q @ k.transpose(-2, -1) / math.sqrt(attention.d_k), mask
            )  # (b, heads, n_new, t+n_new)
            attention.attention_weights = weights.detach()
            heads = weights @ v  # (b, heads, n_new, d_k)
            x = x + attention.W_o(heads.transpose(1, 2).reshape(x.shape))  # (b, n_new, d_model)
            x = x + block.ffn(block.norm2(x))
        return self.readout(self.norm(x)), new  # (b, n_new, V)


def _pick(logits: torch.Tensor, temperature, top_k, top_p, rng) -> torch.Tensor:
    """One next token per row from logits (b, V): greedy at T = 0, else sampled with numpy's generator."""
    alpha = logits.detach().to(torch.float64).numpy()
    chosen = (
        greedy_tokens(alpha)
        if temperature == 0
        else sample_tokens(alpha, temperature, top_k=top_k, top_p=top_p, rng=rng)
    )
    return torch.as_tensor(np.asarray(chosen), dtype=torch.long).reshape(-1, 1)  # (b, 1)


def generate(
    model: CharTransformer,
    prompt: torch.Tensor,
    n_new: int,
    *,
    temperature: float = 1.0,
    top_k=None,
    top_p=None,
    rng=None,
    use_cache: bool = True,
) -> torch.Tensor:
    """The prompt (b, n_0) followed by ``n_new`` generated tokens: (b, n_0 + n_new).

    ``temperature=0`` is greedy decoding; otherwise each token is drawn with
    :func:`attention_lab.sampling.sample_tokens` (``rng``: a seed or a numpy Generator, drawn from in order).
    With ``use_cache`` every step runs the one new token against the cached keys and values; without it
    the whole sequence is run again. Both give the same tokens (up to float rounding in the logits).
    """
    if isinstance(n_new, bool) or not isinstance(n_new, int) or n_new < 0:
        raise ValueError(f"n_new must be a whole number >= 0, got {n_new!r}")
    if not torch.is_tensor(prompt) or prompt.dim() != 2 or prompt.shape[1] == 0:
        raise ValueError(
            f"prompt must be a 2-D tensor of token ids (batch, n_0) with n_0 >= 1, got "
            f"{tuple(prompt.shape) if torch.is_tensor(prompt) else type(prompt).__name__}"
        )
    if prompt.shape[1] + n_new > model.max_len:
        raise ValueError(f"prompt ({prompt.shape[1]}) + n_new ({n_new}) exceed the model's max_len={model.max_len}")
    generator = as_rng(rng)
    tokens = [prompt]  # joined once at the end: (b, n_0), then (b, 1) per new token
    with torch.inference_mode():  # no autograd bookkeeping at all (lighter than no_grad): writing is all forward
        logits, cache = model.step(prompt) if use_cache else (model(prompt), None)
        for i in range(n_new):
            token = _pick(logits[:, -1], temperature, top_k, top_p, generator)  # (b, 1)
            tokens.append(token)
            if i < n_new - 1:
                logits, cache = model.step(token, cache) if use_cache else (model(torch.cat(tokens, dim=1)), None)
    return torch.cat(tokens, dim=1)  # outside inference mode: an ordinary tensor, usable in training too
