"""Cross-attention and an encoder-decoder Transformer (notebook 09), after Vaswani et al. (2017).

In **cross-attention** the queries come from one sequence and the keys and values from another: the
decoder's positions (queries, from its own sequence X) read the encoder's outputs E (keys E W_k and values
E W_v), exactly as the decoder state read the encoder states e_j in notebook 06's seq2seq.

- :class:`DecoderBlock`: pre-LN, causal self-attention, then cross-attention to E, then the FFN, each with a
  residual connection; :meth:`DecoderBlock.from_torch` copies a ``torch.nn.TransformerDecoderLayer``
  built with ``norm_first=True`` (the same computation; a test checks the outputs agree);
- :class:`TransformerSeq2Seq`: characters in, characters out (notebook 06's dates): embeddings plus
  sinusoidal positions, an encoder of :class:`~attention_lab.nn.TransformerBlock` (padding masked), a
  decoder of :class:`DecoderBlock`, a linear read-out; teacher-forced ``loss`` and ``greedy`` decoding.

Shapes next to each line: ``b`` batch, ``n`` input positions, ``n_q`` output positions (queries), ``d_model`` width.
"""

from __future__ import annotations

import torch

from ..translation_data import Vocab
from ._checks import checks
from .layers import padding_mask
from .transformer import (
    MultiHeadAttention,
    PositionWiseFFN,
    TransformerBlock,
    causal_mask,
    sinusoidal_positional_encoding,
)

__all__ = ["DecoderBlock", "TransformerSeq2Seq"]


class DecoderBlock(torch.nn.Module):
    """x + SelfAttention(LN(x), causal), then x + CrossAttention(LN(x), E, E), then x + FFN(LN(x)).

    ``memory`` is E, the encoder's outputs (b, n, d_model); ``memory_mask`` (b, 1, n) is True on its real
    positions. The weights of the last call are kept by the two attention layers (``attention_weights``).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.cross_attention = MultiHeadAttention(d_model, num_heads)
        self.ffn = PositionWiseFFN(d_model, d_ff)
        self.norm1, self.norm2, self.norm3 = (torch.nn.LayerNorm(d_model) for _ in range(3))

    def forward(self, x, memory, self_mask=None, memory_mask=None):
        y = self.norm1(x)
        x = x + self.self_attention(y, y, y, self_mask)  # (b, n_q, d_model): the decoder reads its own past
        y = self.norm2(x)
        x = x + self.cross_attention(y, memory, memory, memory_mask)  # queries from x, keys and values from E
        return x + self.ffn(self.norm3(x))  # (b, n_q, d_model)

    @classmethod
    def from_torch(cls, layer: torch.nn.TransformerDecoderLayer) -> DecoderBlock:
        """A copy of a ``torch.nn.TransformerDecoderLayer`` (``norm_first=True``, ReLU, no dropout at eval)."""
        if not isinstance(layer, torch.nn.TransformerDecoderLayer) or not layer.norm_first:
            raise ValueError(
                "layer must be a torch.nn.TransformerDecoderLayer built with norm_first=True (pre-LN, "
                f"like this block), got {type(layer).__name__}"
            )
        d_model, d_ff = layer.linear1.in_features, layer.linear1.out_features
        copy = cls(d_model, layer.self_attn.num_heads, d_ff)
        copy.self_attention = MultiHeadAttention.from_torch(layer.self_attn)
        copy.cross_attention = MultiHeadAttention.from_torch(layer.multihead_attn)
        with torch.no_grad():
            for mine, theirs in (
                (copy.ffn.net[0], layer.linear1),
                (copy.ffn.net[2], layer.linear2),
                (copy.norm1, layer.norm1),
                (copy.norm2, layer.norm2),
                (copy.norm3, layer.norm3),
            ):
                mine.weight.copy_(theirs.weight)
                mine.bias.copy_(theirs.bias)
        return copy


def _check_ids(ids, name: str, vocab_size: int):
    if not torch.is_tensor(ids) or ids.dim() != 2 or ids.is_floating_point() or ids.dtype == torch.bool:
        raise ValueError(
            f"{name} must be a 2-D integer tensor of token ids (batch, length), got "
            f"{tuple(ids.shape) if torch.is_tensor(ids) else type(ids).__name__}"
        )
    if ids.numel() == 0 or int(ids.min()) < 0 or int(ids.max()) >= vocab_size:
        raise ValueError(
            f"{name} must hold ids in 0..{vocab_size - 1} (and at least one), got shape "
            f"{tuple(ids.shape)}" + (f" with ids from {int(ids.min())} to {int(ids.max())}" if ids.numel() else "")
        )


class TransformerSeq2Seq(torch.nn.Module):
    """An encoder-decoder Transformer for character sequences (ids from :class:`~attention_lab.translation_data.Vocab`).

    ``encode(src, src_lens)`` -> E (b, n, d_model) and its padding mask (b, 1, n); ``decode(tokens, E, mask)``
    -> logits (b, n_q, n_vocab) for decoder inputs ``tokens`` (b, n_q) that start with <bos>; ``loss`` is the
    teacher-forced cross-entropy; ``greedy`` writes the output one token at a time. The cross-attention
    weights of the last call are in :meth:`cross_attention_weights`: (b, num_layers, num_heads, n_q, n).
    """

    def __init__(
        self,
        src_vocab: int,
        tgt_vocab: int,
        *,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 128,
        max_len: int = 64,
    ):
        super().__init__()
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.src_embedding = torch.nn.Embedding(src_vocab, d_model)
        self.tgt_embedding = torch.nn.Embedding(tgt_vocab, d_model)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False)
        self.encoder = torch.nn.ModuleList(TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.decoder = torch.nn.ModuleList(DecoderBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.encoder_norm, self.decoder_norm = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)
        self.readout = torch.nn.Linear(d_model, tgt_vocab)

    def _positions(self, n: int, name: str):
        if n > self.pe.shape[0]:
            raise ValueError(f"{name} of length {n} is longer than max_len={self.pe.shape[0]}")
        return self.pe[:n]  # (n, d_model)

    def encode(self, src, src_lens):
        """src (b, n) ids, src_lens (b,) -> E (b, n, d_model), mask (b, 1, n) True on the real tokens."""
        _check_ids(src, "src", self.src_vocab)
        mask = padding_mask(src_lens, src.shape[1])  # (b, 1, n): every query reads the real tokens only
        x = self.src_embedding(src) + self._positions(src.shape[1], "src")  # (b, n, d_model)
        with checks(False):  # the ids and lengths are checked: the blocks trust what they are given
            for block in self.encoder:
                x = block(x, mask)  # (b, n, d_model)
        return self.encoder_norm(x), mask

    def decode(self, tokens, memory, memory_mask):
        """Decoder inputs (b, n_q) -> logits (b, n_q, n_vocab); position t reads tokens 0..t and all of E."""
        _check_ids(tokens, "tokens", self.tgt_vocab)
        n_q = tokens.shape[1]
        x = self.tgt_embedding(tokens) + self._positions(n_q, "tokens")  # (b, n_q, d_model)
        self_mask = causal_mask(n_q)  # (n_q, n_q)
        for block in self.decoder:
            x = block(x, memory, self_mask, memory_mask)  # (b, n_q, d_model)
        return self.readout(self.decoder_norm(x))  # (b, n_q, n_vocab)

    def forward(self, src, src_lens, tgt):
        """Teacher forcing: logits (b, n_q, n_vocab) for the targets tgt (b, n_q), fed <bos> + tgt[:, :-1]."""
        memory, mask = self.encode(src, src_lens)
        _check_ids(tgt, "tgt", self.tgt_vocab)
        start = torch.full((tgt.shape[0], 1), Vocab.BOS, dtype=torch.long)
        return self.decode(torch.cat([start, tgt[:, :-1]], dim=1), memory, mask)

    def loss(self, src, src_lens, tgt):
        """Mean cross-entropy of the next character over the non-padding targets."""
        logits = self.forward(src, src_lens, tgt)
        return torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=Vocab.PAD
        )

    @torch.no_grad()
    def greedy(self, src, src_lens, max_len: int = 12):
        """Ids (b, max_len): each step feeds the tokens written so far and keeps the most likely next one.

        The prefix is run again at every step (no cache: the outputs here are short); the last step runs all
        ``max_len`` positions, so :meth:`cross_attention_weights` then holds the weights of the whole output.
        """
        if isinstance(max_len, bool) or not isinstance(max_len, int) or not 1 <= max_len < self.pe.shape[0]:
            raise ValueError(f"max_len must be an int in [1, {self.pe.shape[0] - 1}], got {max_len!r}")
        memory, mask = self.encode(src, src_lens)
        tokens = torch.full((src.shape[0], 1), Vocab.BOS, dtype=torch.long)  # (b, 1)
        for _ in range(max_len):
            logits = self.decode(tokens, memory, mask)  # (b, t, n_vocab)
            tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        return tokens[:, 1:]  # (b, max_len)

    def cross_attention_weights(self) -> torch.Tensor:
        """(b, num_layers, num_heads, n_q, n): how each output position read the input, per layer and head."""
        return torch.stack([block.cross_attention.attention_weights for block in self.decoder], dim=1)
