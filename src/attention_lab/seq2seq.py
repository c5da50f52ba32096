"""A small encoder-decoder (seq2seq) with and without attention, for notebook 06.

- :class:`Encoder`: embedding + bidirectional GRU; returns every position's state h_j (the keys and
  values) and a summary of the whole input (the fixed context c of the plain model).
- :class:`Decoder`: a GRU cell that emits one token per step. Without attention it reads the same c at
  every step; with attention (``"additive"``: Bahdanau, or ``"general"``: Luong's s^T W h) the previous
  decoder state s_{t-1} is the query, and it reads its own context c_t = sum_j lambda_tj h_j.
- :class:`Seq2Seq`: both, with teacher-forced ``loss`` and ``greedy`` decoding that also returns the
  alignment (the attention weights of every output step).
"""

from __future__ import annotations

import torch

from .nn import AdditiveAttention, GeneralAttention, padding_mask
from .translation_data import Vocab

__all__ = ["Encoder", "Decoder", "Seq2Seq", "exact_match"]

PAD, BOS, EOS = Vocab.PAD, Vocab.BOS, Vocab.EOS
SCORES = (None, "additive", "general")  # how the decoder scores the encoder states (None: no attention)


class Encoder(torch.nn.Module):
    """Embedding + bidirectional GRU: each position j gets h_j = [forward state; backward state] (size 2H)."""

    def __init__(self, vocab_size: int, embed_size: int = 32, num_hiddens: int = 64):
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.rnn = torch.nn.GRU(embed_size, num_hiddens, batch_first=True, bidirectional=True)
        self.output_size = 2 * num_hiddens

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor):
        """src (batch, n) token ids -> states (batch, n, 2H) and summary c (batch, 2H)."""
        embedded = self.embedding(src)  # (batch, n, E)
        packed = torch.nn.utils.rnn.pack_padded_sequence(embedded, src_lens.cpu(), batch_first=True,
                                                         enforce_sorted=False)
        states, last = self.rnn(packed)  # last: (2 directions, batch, H), at each sequence's true end
        states, _ = torch.nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        return states, torch.cat([last[0], last[1]], dim=-1)  # (batch, n, 2H), (batch, 2H)


class Decoder(torch.nn.Module):
    """A GRU cell emitting one token per step; ``score`` picks how it reads the encoder states.

    ``score=None``: the fixed summary c at every step; ``"additive"`` (Bahdanau) or ``"general"`` (s^T W h):
    the previous state s_{t-1} is the query and c_t = sum_j lambda_tj h_j the context of step t.
    """

    def __init__(self, vocab_size: int, enc_size: int, embed_size: int = 32, num_hiddens: int = 64,
                 score: str | None = "additive"):
        super().__init__()
        if score not in SCORES:
            raise ValueError(f"score must be one of {list(SCORES)}, got {score!r}")
        self.score = score
        self.embedding = torch.nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.init_state = torch.nn.Linear(enc_size, num_hiddens)  # s_0 from the input's summary
        self.cell = torch.nn.GRUCell(embed_size + enc_size, num_hiddens)
        self.out = torch.nn.Linear(num_hiddens + enc_size, vocab_size)
        if score == "additive":
            self.attention = AdditiveAttention(num_hiddens, enc_size, num_hiddens)
        elif score == "general":
            self.attention = GeneralAttention(num_hiddens, enc_size)

    def start(self, summary):
        return torch.tanh(self.init_state(summary))  # (batch, H)

    def step(self, token, state, states, summary, mask):
        """One output step: (logits (batch, V), new state (batch, H), weights (batch, n) or None)."""
        if self.score is None:
            context, weights = summary, None  # the same fixed c at every step
        else:
            context = self.attention(state[:, None, :], states, states, mask)[:, 0]  # c_t: (batch, 2H)
            weights = self.attention.attention_weights[:, 0]  # (batch, n)
        state = self.cell(torch.cat([self.embedding(token), context], dim=-1), state)  # s_t
        return self.out(torch.cat([state, context], dim=-1)), state, weights


class Seq2Seq(torch.nn.Module):
    """Encoder + decoder: teacher-forced ``forward``/``loss`` for training, ``greedy`` decoding with alignments."""

    def __init__(self, src_vocab: int, tgt_vocab: int, *, embed_size=32, num_hiddens=64, score="additive"):
        super().__init__()
        self.encoder = Encoder(src_vocab, embed_size, num_hiddens)
        self.decoder = Decoder(tgt_vocab, self.encoder.output_size, embed_size, num_hiddens, score)

    def _encode(self, src, src_lens):
        states, summary = self.encoder(src, src_lens)
        return states, summary, padding_mask(src_lens, src.shape[1])  # mask: (batch, 1, n)

    def forward(self, src, src_lens, tgt):
        """Teacher forcing: logits (batch, m, V) for target tgt (batch, m), fed <bos> + tgt[:, :-1]."""
        states, summary, mask = self._encode(src, src_lens)
        state = self.decoder.start(summary)
        token = torch.full((src.shape[0],), BOS, dtype=torch.long)
        logits = []
        for t in range(tgt.shape[1]):
            step_logits, state, _ = self.decoder.step(token, state, states, summary, mask)
            logits.append(step_logits)
            token = tgt[:, t]
        return torch.stack(logits, dim=1)

    def loss(self, src, src_lens, tgt):
        """Mean cross-entropy over the non-padding target tokens."""
        logits = self.forward(src, src_lens, tgt)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1),
                                                 ignore_index=PAD)

    @torch.no_grad()
    def greedy(self, src, src_lens, max_len: int = 12):
        """Decode by taking the most likely token each step: ids (batch, max_len), alignment (batch, max_len, n)."""
        states, summary, mask = self._encode(src, src_lens)
        state = self.decoder.start(summary)
        token = torch.full((src.shape[0],), BOS, dtype=torch.long)
        ids, alignment = [], []
        for _ in range(max_len):
            logits, state, weights = self.decoder.step(token, state, states, summary, mask)
            token = logits.argmax(dim=-1)
            ids.append(token)
            alignment.append(weights if weights is not None else torch.zeros(src.shape))
        return torch.stack(ids, dim=1), torch.stack(alignment, dim=1)


def exact_match(predicted: list, targets: list) -> float:
    """Fraction of predicted strings equal to their target."""
    if len(predicted) != len(targets):
        raise ValueError(f"predicted and targets must have the same length, got {len(predicted)} and {len(targets)}")
    return sum(p == t for p, t in zip(predicted, targets, strict=True)) / max(len(targets), 1)
