"""Exercise checks of notebook 06, Bahdanau attention in seq2seq (reference answers: ``solutions/notebook_06.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .answers import multiple_choice
from .runner import Case, Mistake, implement

__all__ = [
    "check_luong_attentional_state",
    "check_uniform_attention_prediction",
    "check_forward_encoder_prediction",
    "check_greedy_decode",
]


def luong_reference(s, E, W, W_c):
    c = softmax(E @ W.T @ s) @ E  # (d_e,): the context
    return np.tanh(W_c @ np.concatenate([c, s]))  # (d_s,)


def _luong(weights=softmax, order="cs", squash=np.tanh, tanh_first=False):
    def state(s, E, W, W_c):
        c = weights(E @ W.T @ s) @ E
        stacked = np.concatenate([c, s] if order == "cs" else [s, c])
        return W_c @ np.tanh(stacked) if tanh_first else squash(W_c @ stacked)

    return state


_LUONG_FIX = "```\nalpha = E @ W.T @ s                       # (n,): s^T W e_j\nc = al.softmax(alpha) @ E                 # (d_e,)\nreturn np.tanh(W_c @ np.concatenate([c, s]))\n```"


_rng = np.random.default_rng(11)
_s, _E = _rng.normal(size=3), _rng.normal(size=(5, 4))  # s_t (d_s = 3), e_1..e_5 (d_e = 4)
_W, _W_c = _rng.normal(size=(3, 4)), _rng.normal(size=(3, 7)) / 2  # (d_s, d_e), (d_s, d_e + d_s)
# fmt: off
check_luong_attentional_state = implement("Luong's attentional state s~_t = tanh(W_c [c_t; s_t])", [
    Case((_s, _E, _W, _W_c), "For s (3,), E (5, 4), W (3, 4), W_c (3, 7)"),
    Case((300 * _s, _E, _W, _W_c), "For huge scores (s 300 times as large)"),
    Case((1e-4 * _s, _E, _W, _W_c), "For tiny scores (s 10^4 times smaller)"),
], luong_reference, [
    Mistake(wrong=_luong(order="sc"), says="{where} your output is W_c applied to the state followed by the context. Which of the two do W_c's first d_e columns multiply?", hint="The attentional state is tanh(W_c [c_t; s_t]): read the order off the formula."),
    Mistake(wrong=_luong(squash=lambda x: x), says="{where} The linear part is right; s~_t also goes through tanh. Where in s~_t = tanh(W_c [c_t; s_t])?", hint="s~_t lies in [-1, 1]."),
    Mistake(wrong=_luong(tanh_first=True), says="{where} You applied tanh before W_c: W_c tanh([c_t; s_t]) is another function. Which comes first in tanh(W_c [c_t; s_t])?", hint="Multiply by W_c, then squash."),
    Mistake(wrong=_luong(weights=lambda a: a), says="{where} The raw scores were used as weights. What turns scores into weights that sum to 1?", hint="The weights are softmax(alpha)."),
    Mistake(wrong=_luong(weights=lambda a: np.full(a.shape, 1 / a.size)), says="{where} Every e_j got the same weight 1/n: that is the plain average. Where do the weights come from?", hint="From the scores s^T W e_j."),
    Mistake(when=lambda got, *args: np.abs(got).max() > 1, says="{where} s~_t = tanh(W_c [c_t; s_t]) lies between -1 and 1, and yours does not. What is the last step?", hint="tanh, after the product with W_c."),
], shape="one vector the size of the decoder state: (d_s,)",
    not_finite=Mistake("{where} your result has NaN or inf: do the scores overflow exp?", "Subtract the largest score before exp (notebook 01)."),
    otherwise=Mistake("{where} your s~_t is {got}, not tanh(W_c [c_t; s_t]). Which step is the first to differ: the scores, their softmax, the context, or the product with W_c?", "Check each step on its own: the n scores s^T W e_j, their softmax, the weighted sum of the rows of E, W_c times [c_t; s_t], then tanh."),
    success="Score with the current state s_t, average the e_j with the softmax weights, then mix c_t and s_t through W_c and tanh: that s~_t is what Luong's decoder predicts from (and feeds into its next step).",
    fix=_LUONG_FIX,
    doc="Exercise: ``fn(s, E, W, W_c)`` -> s~_t; s (d_s,), E (n, d_e), W (d_s, d_e), W_c (d_s, d_e + d_s).")

check_uniform_attention_prediction = multiple_choice("predict: the trained model with uniform attention weights", {
    "A": "If the weights were a by-product the decoder ignored, that would be so. But c_t is what the decoder reads from the input at step t (all else it knows of the input came in through s_0, the earlier contexts and the true previous characters it is fed): with equal weights it is the same vector at every step. What can it still tell the decoder?",
    "B": "The mean of the e_j is a fixed context, like c. But the fixed-context model was trained to read its digits from its c; this decoder never saw an averaged context in training: it learned to read each digit from a context that weights a few characters heavily. Its state still tells it where in the date it is; what can it no longer tell?",
    "C": "",
}, "C",  # what is wrong with each option, as a question (shown only to a student who chose it)
    success="With lambda_tj = 1/n the context is the mean of the e_j, the same at every step. The decoder was trained on contexts that weight a few characters heavily, so the context no longer tells it which digit to write (its state still tells it where in the date it is). Run the next cell to see it.",
    hint="Ask what the context c_t carries at step t when every weight is 1/n, and whether it differs between steps.", fix="C: the averaged context is the same at every step, so it no longer says which digit comes next.",
    doc="Exercise (predict, then check): replace every lambda_tj of the trained additive model by 1/n.")

check_forward_encoder_prediction = multiple_choice("predict: which states of a forward-only encoder have read the year's first digit", {
    "A": "e_7 has just read x_7, but the GRU's state carries it on: what are e_8, e_9, ... computed from?",
    "B": "",
    "C": "That is the backward direction: the backward GRU reads from the end. Which way does the forward GRU read?",
    "D": "That holds for the bidirectional encoder (one of its two directions has read x_7 at every j). Without the backward GRU, what has e_3 read?",
}, "B",
    success="A forward GRU carries what it has read to the right: from j = 7 on, its state has seen x_7; before, it cannot have. So the attention for that digit can only usefully sit at j >= 7. Train the model below and see where it sits.",
    hint="A forward GRU's state e_j is computed from e_(j-1) and x_j.", fix="B: e_j has read x_0, ..., x_j, so x_7 is known from j = 7 on.",
    doc="Exercise (predict, then check): with a forward GRU only, e_j has read x_0..x_j; which e_j know x_7?")
# fmt: on


def _small_model():
    import torch

    from ..seq2seq import Seq2Seq

    torch.manual_seed(2)  # a seed where every typical mistake below gives a different output (a test checks)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16).eval()
    generator = torch.Generator().manual_seed(2)
    src = torch.randint(4, 12, (4, 7), generator=generator)
    lens = torch.tensor([7, 5, 3, 6])
    src[torch.arange(7)[None, :] >= lens[:, None]] = 0  # padding
    return model, model.encode(src, lens)


def _decode(model, memory, max_len, *, feed_back=True, update=True, first=1, logits_out=False):
    import torch

    with torch.no_grad():
        state = model.decoder.start(memory.summary)
        token = torch.full((memory.states.shape[0],), first, dtype=torch.long)
        ids = []
        for _ in range(max_len):
            logits, new_state, _ = model.decoder.step(token, state, memory)
            state = new_state if update else state
            chosen = logits.argmax(dim=-1)
            ids.append(logits if logits_out else chosen)
            token = chosen if feed_back else token
        return torch.stack(ids, dim=1).numpy().astype(np.float64)


def _with_bos(model, memory, max_len):  # <bos> kept as the first output column
    return np.concatenate([np.ones((memory.states.shape[0], 1)), _decode(model, memory, max_len)], axis=1)


_GREEDY_FIX = "```\nstate = model.decoder.start(memory.summary)\ntoken = torch.full((memory.states.shape[0],), Vocab.BOS)\nids = []\nfor _ in range(max_len):\n    logits, state, _ = model.decoder.step(token, state, memory)\n    token = logits.argmax(dim=-1)\n    ids.append(token)\nreturn torch.stack(ids, dim=1)\n```"


# fmt: off
check_greedy_decode = implement("greedy decoding", lambda: [Case((*_small_model(), 6), "For a batch of 4 inputs and max_len = 6,")], _decode, [
    Mistake.of(lambda *a: _decode(*a, logits_out=True), "These are the scores (logits) of every token at every step. Which one token does greedy decoding keep?", "The most likely token: the largest logit."),
    Mistake.of(lambda *a: _decode(*a).T, "Right tokens, wrong layout: one row per sequence, one column per step. Along which dimension do you stack the steps?"),
    Mistake.of(_with_bos, "One column too many: return the max_len chosen tokens, without the <bos> you started from. Is <bos> an output?"),
    Mistake.of(lambda *a: _with_bos(*a)[:, :-1], "Your first column is the <bos> you started from, and the rest is the model's output shifted by one. Which tokens does the model choose: is <bos> one of them?", "Keep only what the steps return; the start token is an input, not an output."),
    Mistake.of(lambda *a: _decode(*a, feed_back=False), "Every step is fed <bos> again: do you feed the token chosen at step t back in as the input of step t + 1?", "Greedy decoding continues its own output: step t + 1 reads the token chosen at step t."),
    Mistake.of(lambda *a: _decode(*a, update=False), "Every step starts again from the state s_0. What does decoder.step return besides the logits, and what does your loop pass to the next step?", "decoder.step returns (logits, the new state s_t, the weights); step t + 1 needs s_t, not s_0."),
    Mistake.of(lambda *a: _decode(*a, first=2), "The first input is <bos>, not <eos>: which token opens a sequence?"),
    Mistake.of(lambda *a: _decode(*a, first=0), "The first input is <bos>, not padding: which token opens a sequence?"),
    Mistake(when=lambda got, *a: not np.all(got == np.round(got)), says="Token ids are whole numbers: are you returning scores or probabilities rather than the chosen indices?"),
],
    shape="one token id per sequence and step: (batch, max_len)",
    otherwise=Mistake("Not the model's greedy output yet, and not one of the usual slips (the state or the token not fed back, another start token). Is your first column the model's first choice after <bos>?", "The loop: start from decoder.start(summary) and <bos>; at each step call decoder.step, take the argmax of the logits, keep it and feed it back, with the new state."),
    fix=_GREEDY_FIX,
    success="Start from <bos> and s_0, and feed each step's most likely token back in: the model continues its own output, as it must when no target is given.",
    doc="Exercise: ``fn(model, memory, max_len)`` -> token ids (batch, max_len), the model's own greedy output.")
# fmt: on
