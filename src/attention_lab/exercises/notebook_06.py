"""Exercise checks of notebook 06, Bahdanau attention in seq2seq (reference answers: ``solutions/notebook_06.py``).

- :func:`check_luong_attentional_state`: one step of Luong's attention in numpy, s~_t = tanh(W_c [c_t; s_t]);
- :func:`check_uniform_attention_prediction`: predict, then check: the trained model with uniform weights;
- :func:`check_forward_encoder_prediction`: which states of a forward-only encoder have read token j;
- :func:`check_greedy_decode`: the greedy decoding loop, feeding back the model's own tokens.
"""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .feedback import Feedback, as_numbers, close, exercise, known_mistake, not_finite, run_student, to_float_array

__all__ = [
    "check_luong_attentional_state",
    "check_uniform_attention_prediction",
    "check_forward_encoder_prediction",
    "check_greedy_decode",
]


def _choice(name, answer, letters):
    """The answer as one upper-case letter of ``letters``, or (None, feedback saying how to answer)."""
    if isinstance(answer, str):
        letter = answer.strip().rstrip(").").strip().upper()
        if letter in letters:
            return letter, None
    shown = repr(answer) if len(repr(answer)) <= 40 else repr(answer)[:37] + "..."
    return None, Feedback(
        name, False, [f"Answer with one letter in quotes, one of {', '.join(map(repr, letters))}; got {shown}."]
    )


@exercise("Luong's attentional state s~_t = tanh(W_c [c_t; s_t])")
def check_luong_attentional_state(name, fn) -> Feedback:
    """Exercise: ``fn(s, E, W, W_c)`` -> s~_t; s (d_s,), E (n, d_e), W (d_s, d_e), W_c (d_s, d_e + d_s).

    Scores alpha_j = s^T W e_j, weights lambda = softmax(alpha), context c = sum_j lambda_j e_j,
    s~ = tanh(W_c [c; s]).
    """
    rng = np.random.default_rng(11)
    s, E = rng.normal(size=3), rng.normal(size=(5, 4))  # s_t (d_s = 3), e_1..e_5 (d_e = 4)
    W, W_c = rng.normal(size=(3, 4)), rng.normal(size=(3, 7)) / 2  # (d_s, d_e), (d_s, d_e + d_s)
    got, problem = as_numbers(name, fn, s.copy(), E.copy(), W.copy(), W_c.copy())
    if problem is not None:
        return problem

    def state(weights, order="cs", squash=np.tanh):
        c = weights @ E  # (d_e,)
        return squash(W_c @ (np.concatenate([c, s]) if order == "cs" else np.concatenate([s, c])))

    alpha = E @ W.T @ s  # (n,): s^T W e_j
    expected = state(softmax(alpha))
    if close(got, expected):
        return Feedback(
            name,
            True,
            [
                "Score with the current state s_t, average the e_j with the softmax weights, "
                "then mix c_t and s_t through W_c and tanh: that s~_t is what Luong's "
                "decoder predicts from (and feeds into its next step)."
            ],
        )
    if got.shape != expected.shape:
        return Feedback(
            name,
            False,
            [
                f"s~_t has the size of the decoder state, shape {expected.shape} (W_c has "
                f"{W_c.shape[0]} rows); got shape {got.shape}. Check which axis you sum over "
                "for c_t: it is a weighted sum over the n encoder states, shape (d_e,)."
            ],
        )
    bad = not_finite(
        name,
        got,
        "Nothing here should overflow with these inputs: look for a "
        "division by a sum that can be zero or an exp of a large number.",
    )
    if bad is not None:
        return bad
    mistakes = [
        (
            state(softmax(alpha), order="sc"),
            "W_c's first 4 columns multiply the context c_t and its last 3 the "
            "state s_t: concatenate in that order, [c_t; s_t].",
        ),
        (state(softmax(alpha), squash=lambda x: x), "The linear part is right; s~_t also goes through tanh."),
        (
            W_c @ np.tanh(np.concatenate([softmax(alpha) @ E, s])),
            "You applied tanh before W_c: Luong's s~_t = tanh(W_c [c_t; s_t]) multiplies by W_c first and squashes "
            "the result, so s~_t lies in [-1, 1]; W_c tanh([c_t; s_t]) is another function.",
        ),
        (state(alpha), "The raw scores were used as weights: turn them into weights with a softmax first."),
        (
            state(np.full(5, 0.2)),
            "Every e_j got the same weight 1/n: that is the plain average. The weights come from the scores s^T W e_j.",
        ),
    ]
    hint = known_mistake(got, mistakes)
    if hint is not None:
        return Feedback(name, False, [hint])
    if np.all(np.abs(got) <= 1):
        return Feedback(
            name,
            False,
            [
                "The values are in [-1, 1] as a tanh gives, but not the right ones. Check each "
                "step on its own: the n scores s^T W e_j (all at once: E @ W.T @ s), their "
                "softmax, the weighted sum of the rows of E, W_c times [c_t; s_t], and "
                "tanh of that last."
            ],
        )
    return Feedback(
        name,
        False,
        [
            "s~_t = tanh(W_c [c_t; s_t]) lies between -1 and 1, and yours does not: the "
            "last step is tanh, after the product with W_c."
        ],
    )


UNIFORM_OPTIONS = {
    "A": "about the same accuracy as with its own weights",
    "B": "about the accuracy of the fixed-context model",
    "C": "close to zero exact matches",
}


@exercise("predict: the trained model with uniform attention weights")
def check_uniform_attention_prediction(name, answer) -> Feedback:
    """Exercise (predict, then check): replace every lambda_tj of the trained additive model by 1/n."""
    letter, problem = _choice(name, answer, list(UNIFORM_OPTIONS))
    if problem is not None:
        return problem
    if letter == "C":
        return Feedback(
            name,
            True,
            [
                "With lambda_tj = 1/n the context is the mean of the e_j, the same at every "
                "step. The decoder was trained on contexts that weight a few characters "
                "heavily, so the context no longer tells it which digit to write (its state "
                "still tells it where in the date it is). Run the next cell to see it."
            ],
        )
    if letter == "A":
        return Feedback(
            name,
            False,
            [
                "If the weights were a by-product the decoder ignored, that would be so. But "
                "c_t is what the decoder reads from the input at step t (all else it knows of "
                "the input came in through s_0, the earlier contexts and the true previous "
                "characters it is fed): with equal weights it is the same vector at every "
                "step. What can it still tell the decoder?"
            ],
        )
    return Feedback(
        name,
        False,
        [
            "The mean of the e_j is a fixed context, like c. But the fixed-context model was "
            "trained to read its digits from its c; this decoder never saw an averaged "
            "context in training: it learned to read each digit from a context that weights "
            "a few characters heavily. Its state still tells it where in the date it is; "
            "what can it no longer tell? Think again."
        ],
    )


ENCODER_OPTIONS = {
    "A": "only e_7",
    "B": "e_7 and every state after it (j >= 7)",
    "C": "e_0 to e_7 (j <= 7)",
    "D": "every e_j",
}


@exercise("predict: which states of a forward-only encoder have read the year's first digit")
def check_forward_encoder_prediction(name, answer) -> Feedback:
    """Exercise (predict, then check): with a forward GRU only, e_j has read x_0..x_j; which e_j know x_7?"""
    letter, problem = _choice(name, answer, list(ENCODER_OPTIONS))
    if problem is not None:
        return problem
    if letter == "B":
        return Feedback(
            name,
            True,
            [
                "A forward GRU carries what it has read to the right: from j = 7 on, its state "
                "has seen x_7; before, it cannot have. So the attention for that digit can "
                "only usefully sit at j >= 7. Train the model below and see where it sits."
            ],
        )
    hints = {
        "A": "e_7 has just read x_7, but the GRU's state carries it on: e_8, e_9, ... are computed from e_7.",
        "C": "That is the backward direction: the backward GRU reads from the end, so its states at j <= 7 "
        "have read x_7. The forward GRU reads from the start.",
        "D": "That holds for the bidirectional encoder (one of its two directions has read x_7 at every j). "
        "Without the backward GRU, what has e_3 read?",
    }
    return Feedback(name, False, [hints[letter]])


def _small_model():
    import torch

    from ..seq2seq import Seq2Seq

    torch.manual_seed(2)  # a seed where every typical mistake below gives a different output (a test checks)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16).eval()
    g = torch.Generator().manual_seed(2)
    src = torch.randint(4, 12, (4, 7), generator=g)
    lens = torch.tensor([7, 5, 3, 6])
    src[torch.arange(7)[None, :] >= lens[:, None]] = 0  # padding
    return model, model.encode(src, lens)


def _decode(model, memory, max_len, *, feed_back=True, update=True, first=1):
    import torch

    with torch.no_grad():
        state = model.decoder.start(memory.summary)
        token = torch.full((memory.states.shape[0],), first, dtype=torch.long)
        ids = []
        for _ in range(max_len):
            logits, new_state, _ = model.decoder.step(token, state, memory)
            state = new_state if update else state
            chosen = logits.argmax(dim=-1)
            ids.append(chosen)
            token = chosen if feed_back else token
        return torch.stack(ids, dim=1).numpy().astype(np.float64)


@exercise("greedy decoding")
def check_greedy_decode(name, fn) -> Feedback:
    """Exercise: ``fn(model, memory, max_len)`` -> token ids (batch, max_len), the model's own greedy output."""
    import torch

    from ..translation_data import Vocab

    model, memory = _small_model()
    max_len = 6
    with torch.no_grad():
        result, problem = run_student(name, fn, model, memory, max_len)
    if problem is not None:
        return problem
    got, why = to_float_array(result, "Your function's result")
    if why is not None:
        return Feedback(name, False, [why + " Return the chosen token ids, a tensor of shape (batch, max_len)."])
    expected = _decode(model, memory, max_len)
    batch = expected.shape[0]
    if close(got, expected):
        return Feedback(
            name,
            True,
            [
                "Start from <bos> and s_0, and feed each step's most likely token back in: "
                "the model continues its own output, as it must when no target is given."
            ],
        )
    if got.shape == (batch, max_len, model.tgt_vocab):
        return Feedback(
            name,
            False,
            [
                "These are the scores (logits) of every token: pick the most likely one at "
                "each step, logits.argmax(dim=-1), and return the ids."
            ],
        )
    if got.shape == (max_len, batch) and close(got.T, expected):
        return Feedback(
            name,
            False,
            [
                "Right tokens, wrong layout: one row per sequence, one column per step. Stack "
                "the steps along dim=1 (torch.stack(ids, dim=1))."
            ],
        )
    if got.shape == (batch, max_len + 1):
        return Feedback(
            name,
            False,
            [f"One column too many: return the {max_len} chosen tokens, without the <bos> you started from."],
        )
    if got.shape != expected.shape:
        return Feedback(
            name,
            False,
            [
                f"For a batch of {batch} inputs and max_len = {max_len} return shape "
                f"({batch}, {max_len}), one token per sequence and step; got {got.shape}."
            ],
        )
    if not np.all(np.isfinite(got)) or np.any(got != np.round(got)):
        return Feedback(
            name, False, ["Token ids are whole numbers: return the argmax indices, not scores or probabilities."]
        )
    mistakes = [
        (
            _decode(model, memory, max_len, feed_back=False),
            "Every step is fed <bos> again: feed the token chosen at step t back in as the input of step t + 1.",
        ),
        (
            _decode(model, memory, max_len, update=False),
            "The state never moves on: keep the new state that decoder.step returns and pass it to the next step.",
        ),
        (_decode(model, memory, max_len, first=Vocab.EOS), "Start from <bos> (Vocab.BOS), not <eos>."),
        (_decode(model, memory, max_len, first=Vocab.PAD), "Start from <bos> (Vocab.BOS), not padding."),
    ]
    hint = known_mistake(got, mistakes)
    if hint is not None:
        return Feedback(name, False, [hint])
    return Feedback(
        name,
        False,
        [
            "Not the model's greedy output yet. The loop: state = decoder.start(summary), "
            "token = <bos> for every sequence; then max_len times: logits, state, _ = "
            "decoder.step(token, state, memory); token = the argmax of the logits; keep it."
        ],
    )
