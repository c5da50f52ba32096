"""Reference answers for notebooks/07_self_attention.ipynb."""

import numpy as np


def self_attention(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
    scores = Q @ K.T / np.sqrt(K.shape[1])  # (n, n)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ V  # (n, d_v)


# Exercise 2: a change travels forward only, at most as far as each layer's mask reaches. Causal: every later
# position in one layer (and two layers add nothing, nor send it backwards). A window {i - 1, i}: one position per
# layer. Position 2 itself always changes (its own key is allowed, and the residual carries its token).
TWO_CAUSAL_LAYERS = [2, 3, 4, 5]
ONE_WINDOW_LAYER = [2, 3]
TWO_WINDOW_LAYERS = [2, 3, 4]


def head_score_variance(d_model, num_heads, sigma):
    d_k = d_model / num_heads
    return d_k * sigma**4  # d_k independent terms q_r k_r, each of variance sigma^2 * sigma^2


def split_heads(x, num_heads):
    b, n, d_model = x.shape
    return x.reshape(b, n, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)  # (b, heads, n, d_k)


# Exercise 3's second part: reshape refills (1, 2, 4, 3) in memory order, so head 0 takes the first 12 numbers,
# the 6 features of position 0 and the 6 of position 1.
POSITIONS_IN_HEAD_0 = [0, 1]
