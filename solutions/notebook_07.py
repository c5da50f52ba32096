"""Reference answers for notebooks/07_self_attention.ipynb."""

import numpy as np


def self_attention(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
    scores = Q @ K.T / np.sqrt(K.shape[1])  # (n, n)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V  # (n, d_v)


def causal_weights(scores):
    n = scores.shape[0]
    filled = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)  # (n, n), future = -inf
    e = np.exp(filled - filled.max(axis=1, keepdims=True))  # the diagonal keeps every row finite
    return e / e.sum(axis=1, keepdims=True)


def head_score_variance(d_model, num_heads, sigma):
    d_k = d_model / num_heads
    return d_k * sigma**4  # d_k independent terms q_r k_r, each of variance sigma^2 * sigma^2


def split_heads(x, num_heads):
    b, n, d_model = x.shape
    return x.reshape(b, n, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)  # (b, heads, n, d_k)


PREDICTED_EXACT_MATCH_WITHOUT_POSITIONS = 0.0
