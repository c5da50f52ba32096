"""Reference answers for notebooks/06_bahdanau_seq2seq.ipynb."""

import numpy as np


def context_vectors(weights, states):
    return weights @ states  # (m, n) @ (n, d) -> (m, d)


def general_scores(s, H, W):
    return H @ W.T @ s  # (n, d_h) @ (d_h, d_s) @ (d_s,) -> (n,)


def masked_context(scores, states, lengths):
    mask = np.arange(scores.shape[1])[None, :] < lengths[:, None]  # (batch, n)
    filled = np.where(mask, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)  # (batch, n), zero on padding
    return np.einsum("bn,bnd->bd", weights, states)
