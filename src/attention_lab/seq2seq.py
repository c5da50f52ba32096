"""A small encoder-decoder (seq2seq) with and without attention, for notebook 06.

Notation (the course's): encoder states e_j (the keys and the values; Bahdanau et al. 2015 write h_j,
but h is the bandwidth in this course), decoder state s_t (the query), scores alpha_tj, weights
lambda_tj = softmax_j(alpha_tj), context c_t = sum_j lambda_tj e_j. Sizes: d_s for a GRU state
(``num_hiddens``), d_e for an encoder state e_j (2 d_s when bidirectional, d_s forward only), n_vocab for
the size of the output vocabulary (V is the value matrix elsewhere in the course).

- :class:`Encoder`: embedding + bidirectional GRU; e_j = [forward state at j; backward state at j] (size
  d_e = 2 d_s), so each e_j summarises the tokens on both sides of token j; also the summary c of the whole
  input (the two final states), the fixed context of the plain model. ``bidirectional=False``: forward only.
- :class:`BahdanauDecoder`, Bahdanau et al. (2015): the query is the *previous* state s_{t-1};
  c_t = sum_j lambda_tj e_j; s_t = GRU(s_{t-1}, [embed(y_{t-1}); c_t]); logits = W_out [s_t; c_t].
  ``score="additive"`` is Bahdanau's score, ``"general"`` the bilinear s_{t-1}^T W e_j inside Bahdanau's
  decoder, ``None`` the fixed c at every step (no attention).
- :class:`LuongDecoder`, Luong et al. (2015), global attention with input feeding: the state is updated
  first, s_t = GRU(s_{t-1}, [embed(y_{t-1}); s~_{t-1}]), and the *current* s_t is the query (score
  ``"general"``: s_t^T W e_j, or ``"additive"``, their "concat"); then s~_t = tanh(W_c [c_t; s_t]) and
  logits = W_s s~_t. (Luong et al. write h_t and h~_t for s_t and s~_t.)
- :class:`Seq2Seq`: both halves, teacher-forced ``loss``, and ``greedy`` decoding that also returns the
  alignment (the weights lambda_tj of every output step).

Simplifications, the same for every variant: one-layer GRUs (Bahdanau et al.'s gated hidden unit is a GRU
up to where the reset gate is applied; Luong et al. use stacked LSTMs), s_0 = tanh(W [last forward state;
last backward state]) (Bahdanau et al. use the backward state only), and a linear output layer (Bahdanau
et al. add y_{t-1} and a maxout layer).
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from ._checks import check_choice, check_count
from .nn import AdditiveAttention, GeneralAttention, masked_softmax, padding_mask
from .nn._checks import check_ids, describe
from .translation_data import Vocab

__all__ = ["Encoder", "Memory", "BahdanauDecoder", "LuongDecoder", "Seq2Seq", "exact_match"]

PAD, BOS, EOS = Vocab.PAD, Vocab.BOS, Vocab.EOS
BAHDANAU_SCORES = (None, "additive", "general")  # how Bahdanau's decoder scores the encoder states (None: no attention)
LUONG_SCORES = ("general", "additive")
DECODERS = ("bahdanau", "luong")


def _check_lengths(src, src_lens):
    """``src_lens`` must be (batch,) integers in 1..n for src (batch, n)."""
    batch, n = src.shape
    if not torch.is_tensor(src_lens) or src_lens.dim() != 1 or src_lens.shape[0] != batch:
        raise ValueError(
            f"src_lens must be a 1-D tensor with one length per sequence of src, shape ({batch},), "
            f"got {describe(src_lens)} for src of shape {tuple(src.shape)}"
        )
    if src_lens.dtype.is_floating_point or src_lens.dtype.is_complex or src_lens.dtype == torch.bool:
        raise ValueError(f"src_lens must hold integer lengths, got dtype {src_lens.dtype}")
    low, high = int(src_lens.min()), int(src_lens.max())
    if low < 1 or high > n:
        raise ValueError(
            f"src_lens must lie between 1 and n = {n} (src has shape {tuple(src.shape)}), got lengths "
            f"from {low} to {high}"
        )


class Encoder(torch.nn.Module):
    """Embedding + GRU over the input; bidirectional by default: e_j = [forward state; backward state] (d_e = 2 d_s).

    The forward GRU reads x_1..x_j into its state at j, the backward GRU reads x_n..x_j, so e_j summarises
    both sides of token j (Bahdanau et al. 2015, "annotations"). ``bidirectional=False`` keeps the forward
    GRU only: e_j then knows nothing of the tokens after j.
    """

    def __init__(self, vocab_size: int, embed_size: int = 32, num_hiddens: int = 64, bidirectional: bool = True):
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = torch.nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.rnn = torch.nn.GRU(embed_size, num_hiddens, batch_first=True, bidirectional=bidirectional)
        self.output_size = (2 if bidirectional else 1) * num_hiddens

    def forward(self, src: torch.Tensor, src_lens: torch.Tensor):
        """src (batch, n) token ids, src_lens (batch,) -> states e (batch, n, d_e) and summary c (batch, d_e).

        Positions j at or beyond a sequence's length (``src_lens``) are padding: their states are zero and nothing
        there changes the rest.
        """
        check_ids(src, "src", self.vocab_size, "n")
        _check_lengths(src, src_lens)
        embedded = self.embedding(src)  # (batch, n, embed_size)
        packed = torch.nn.utils.rnn.pack_padded_sequence(
            embedded, src_lens.cpu(), batch_first=True, enforce_sorted=False
        )
        states, last = self.rnn(packed)  # last: (directions, batch, d_s), each direction at its true end
        states, _ = torch.nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        return states, torch.cat(list(last), dim=-1)  # (batch, n, d_e), (batch, d_e)


class Memory(NamedTuple):
    """What the decoder reads at every step, computed once per input by :meth:`Seq2Seq.encode`."""

    states: torch.Tensor  # e (batch, n, d_e): the keys and the values
    summary: torch.Tensor  # c (batch, d_e): the fixed context of the plain model
    mask: torch.Tensor  # (batch, n), True on the real tokens
    keys: torch.Tensor | None  # W_k e_j (additive) or W e_j (general), (batch, n, d_s); None without attention


def _attention(score: str, query_size: int, key_size: int, num_hiddens: int) -> torch.nn.Module:
    if score == "additive":
        return AdditiveAttention(query_size, key_size, num_hiddens)  # w_v^T tanh(W_q s + W_k e_j)
    return GeneralAttention(query_size, key_size)  # s^T W e_j


class _Attending(torch.nn.Module):
    """The attention step shared by both decoders; a subclass sets ``self.attention`` (or None: no attention).

    The part of the score that depends only on the input, W_k e_j (additive) or W e_j (general), is the
    same at every output step: :meth:`project_keys` computes it once per input (Bahdanau et al. make the
    same remark in their appendix), and :meth:`attend` adds the query's part at each step. The result is
    the attention layer's own ``forward`` (a test checks it), without redoing W e_j at every step.
    """

    def project_keys(self, states):
        """(batch, n, d_e) encoder states -> (batch, n, d_s) projected keys, or None without attention."""
        return None if self.attention is None else self.attention.project_keys(states)  # W_k e_j or W e_j

    def attend(self, query, memory: Memory):
        """query (batch, d_s) -> context c_t (batch, d_e) and weights lambda_t (batch, n)."""
        scores = self.attention.score_projected(query[:, None, :], memory.keys)[:, 0]  # alpha_tj: (batch, n)
        weights = masked_softmax(scores, memory.mask)  # lambda_tj: (batch, n), 0 on padding
        return (weights[:, None, :] @ memory.states)[:, 0], weights  # c_t: (batch, d_e)


class BahdanauDecoder(_Attending):
    """Bahdanau et al.'s decoder: a GRU cell; ``score`` picks how the previous state s_{t-1} reads the e_j.

    ``score=None``: the fixed summary c at every step; ``"additive"`` (Bahdanau's) or ``"general"``
    (s_{t-1}^T W e_j): the previous state s_{t-1} is the query and c_t = sum_j lambda_tj e_j the context of step t.
    """

    def __init__(
        self,
        vocab_size: int,
        enc_size: int,
        embed_size: int = 32,
        num_hiddens: int = 64,
        score: str | None = "additive",
    ):
        super().__init__()
        self.score = check_choice(score, BAHDANAU_SCORES, "score")
        self.embedding = torch.nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.init_state = torch.nn.Linear(enc_size, num_hiddens)  # s_0 from the input's summary
        self.cell = torch.nn.GRUCell(embed_size + enc_size, num_hiddens)
        self.out = torch.nn.Linear(num_hiddens + enc_size, vocab_size)
        self.attention = None if score is None else _attention(score, num_hiddens, enc_size, num_hiddens)

    def start(self, summary):
        """s_0 (batch, d_s) from the summary c (batch, d_e)."""
        return torch.tanh(self.init_state(summary))

    def step(self, token, state, memory: Memory):
        """One output step: token y_{t-1} (batch,), state s_{t-1} (batch, d_s).

        Returns logits (batch, n_vocab), the new state s_t (batch, d_s) and the weights lambda_t (batch, n), or None
        without attention.
        """
        if self.attention is None:
            context, weights = memory.summary, None  # the same fixed c at every step
        else:
            context, weights = self.attend(state, memory)  # query s_{t-1} -> c_t (batch, d_e)
        state = self.cell(torch.cat([self.embedding(token), context], dim=-1), state)  # s_t: (batch, d_s)
        return self.out(torch.cat([state, context], dim=-1)), state, weights


class LuongDecoder(_Attending):
    """Luong et al.'s (2015) global-attention decoder with input feeding; the query is the *current* state s_t.

    s_t = GRU(s_{t-1}, [embed(y_{t-1}); s~_{t-1}]), alpha_tj = score(s_t, e_j), c_t = sum_j lambda_tj e_j,
    s~_t = tanh(W_c [c_t; s_t]) (the "attentional state"), logits = W_s s~_t. The decoder's state is the pair
    (s_t, s~_t); s~_0 = 0.
    """

    def __init__(
        self, vocab_size: int, enc_size: int, embed_size: int = 32, num_hiddens: int = 64, score: str = "general"
    ):
        super().__init__()
        self.score = check_choice(score, LUONG_SCORES, "score of Luong's decoder")
        self.embedding = torch.nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.init_state = torch.nn.Linear(enc_size, num_hiddens)  # s_0 from the input's summary
        self.cell = torch.nn.GRUCell(embed_size + num_hiddens, num_hiddens)  # input feeding: s~_{t-1} goes in
        self.attention = _attention(score, num_hiddens, enc_size, num_hiddens)
        self.combine = torch.nn.Linear(enc_size + num_hiddens, num_hiddens, bias=False)  # W_c
        self.out = torch.nn.Linear(num_hiddens, vocab_size)  # W_s

    def start(self, summary):
        """(s_0, s~_0) = (tanh(W c), 0), each (batch, d_s)."""
        state = torch.tanh(self.init_state(summary))
        return state, torch.zeros_like(state)

    def step(self, token, state, memory: Memory):
        """One output step; ``state`` is the pair (s_{t-1}, s~_{t-1}), each (batch, d_s).

        Returns logits (batch, n_vocab), the pair (s_t, s~_t) and the weights lambda_t (batch, n).
        """
        previous, attentional = state
        state = self.cell(torch.cat([self.embedding(token), attentional], dim=-1), previous)  # s_t: (batch, d_s)
        context, weights = self.attend(state, memory)  # query s_t (after the update) -> c_t (batch, d_e)
        attentional = torch.tanh(self.combine(torch.cat([context, state], dim=-1)))  # s~_t: (batch, d_s)
        return self.out(attentional), (state, attentional), weights


class Seq2Seq(torch.nn.Module):
    """Encoder + decoder: teacher-forced ``forward``/``loss`` for training, ``greedy`` decoding with alignments.

    Parameters
    ----------
    src_vocab, tgt_vocab : int
        Sizes of the input and output vocabularies (ids 0..size-1; 0 is padding, 1 <bos>, 2 <eos>).
    embed_size, num_hiddens : int
        Embedding size and GRU state size d_s (the encoder states e_j have size d_e = 2 d_s when bidirectional).
    score : {"additive", "general", None}
        How the decoder scores the encoder states; None (no attention) only with Bahdanau's decoder.
    decoder : {"bahdanau", "luong"}
        :class:`BahdanauDecoder` (query s_{t-1}) or :class:`LuongDecoder` (query s_t, attentional state s~_t).
    bidirectional : bool
        A bidirectional encoder (default) or a forward-only one.
    """

    def __init__(
        self,
        src_vocab: int,
        tgt_vocab: int,
        *,
        embed_size=32,
        num_hiddens=64,
        score="additive",
        decoder="bahdanau",
        bidirectional=True,
    ):
        super().__init__()
        decoder = check_choice(decoder, DECODERS, "decoder")
        self.encoder = Encoder(src_vocab, embed_size, num_hiddens, bidirectional)
        kind = BahdanauDecoder if decoder == "bahdanau" else LuongDecoder
        self.decoder = kind(tgt_vocab, self.encoder.output_size, embed_size, num_hiddens, score)
        self.tgt_vocab = tgt_vocab

    def encode(self, src, src_lens) -> Memory:
        """src (batch, n) token ids and src_lens (batch,) -> the :class:`Memory` the decoder reads."""
        states, summary = self.encoder(src, src_lens)  # checks src and src_lens
        mask = padding_mask(src_lens, src.shape[1])[:, 0]  # (batch, n)
        return Memory(states, summary, mask, self.decoder.project_keys(states))

    def forward(self, src, src_lens, tgt):
        """Teacher forcing: logits (batch, n_q, n_vocab) for target tgt (batch, n_q), fed <bos> + tgt[:, :-1]."""
        memory = self.encode(src, src_lens)  # checks src and src_lens first
        check_ids(tgt, "tgt", self.tgt_vocab, "n_q")
        if tgt.shape[0] != src.shape[0]:
            raise ValueError(
                f"src and tgt must hold the same number of sequences, got src of shape "
                f"{tuple(src.shape)} and tgt of shape {tuple(tgt.shape)}"
            )
        state = self.decoder.start(memory.summary)
        token = torch.full((tgt.shape[0],), BOS, dtype=torch.long)
        logits = []
        for t in range(tgt.shape[1]):
            step_logits, state, _ = self.decoder.step(token, state, memory)
            logits.append(step_logits)
            token = tgt[:, t]
        return torch.stack(logits, dim=1)

    def loss(self, src, src_lens, tgt):
        """Mean cross-entropy over the non-padding target tokens."""
        logits = self.forward(src, src_lens, tgt)
        return torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD
        )

    @torch.no_grad()
    def greedy(self, src, src_lens, max_len: int = 12):
        """Decode by taking the most likely token each step: ids (batch, max_len), alignment (batch, max_len, n).

        Decoding runs for all ``max_len`` steps (what follows the first <eos> is to be ignored); without
        attention the alignment is all zeros.
        """
        max_len = check_count(max_len, "max_len", 1, what="the number of output steps")
        memory = self.encode(src, src_lens)
        state = self.decoder.start(memory.summary)
        token = torch.full((src.shape[0],), BOS, dtype=torch.long)
        ids, alignment = [], []
        for _ in range(max_len):
            logits, state, weights = self.decoder.step(token, state, memory)
            token = logits.argmax(dim=-1)
            ids.append(token)
            alignment.append(weights if weights is not None else torch.zeros(src.shape))
        return torch.stack(ids, dim=1), torch.stack(alignment, dim=1)


def exact_match(predicted: list, targets: list) -> float:
    """Fraction of predicted strings equal to their target."""
    if len(predicted) != len(targets):
        raise ValueError(f"predicted and targets must have the same length, got {len(predicted)} and {len(targets)}")
    return sum(p == t for p, t in zip(predicted, targets, strict=True)) / max(len(targets), 1)
