"""Reference answers for notebooks/06_bahdanau_seq2seq.ipynb."""

import numpy as np
import torch

from attention_lab.translation_data import Vocab


def luong_attentional_state(s, E, W, W_c):
    alpha = E @ W.T @ s  # (n,): alpha_j = s^T W e_j
    lam = np.exp(alpha - alpha.max())
    lam = lam / lam.sum()  # (n,): softmax
    c = lam @ E  # (d_e,): c_t = sum_j lambda_j e_j
    return np.tanh(W_c @ np.concatenate([c, s]))  # (d_s,): s~_t = tanh(W_c [c_t; s_t])


UNIFORM_PREDICTION = "C"  # close to zero: the context no longer tells the decoder which character comes next

FORWARD_ENCODER_PREDICTION = "B"  # a forward GRU's e_j has read x_0..x_j: x_7 is known from j = 7 on


def greedy_decode(model, memory, max_len):
    state = model.decoder.start(memory.summary)  # s_0
    token = torch.full((memory.states.shape[0],), Vocab.BOS)  # (batch,) <bos>
    ids = []
    for _ in range(max_len):
        logits, state, _ = model.decoder.step(token, state, memory)  # (batch, V)
        token = logits.argmax(dim=-1)  # (batch,): the most likely token, fed back in
        ids.append(token)
    return torch.stack(ids, dim=1)  # (batch, max_len)
