"""Catalogues of plausible wrong implementations for 05's additive scores, 06's Luong state and 07's self-attention.

Each entry: (the student's function, the words the first message must use, or None where the check claims no
name). ``test_catalogues.py`` runs them: every entry rejected, named where words are given, no fix code in the
first step. A check whose catalogue is here claims in its success message only what the catalogue shows it verifies.
"""

import math

import numpy as np

# --- named mistakes in 02, 06 and 07 that had only generic feedback ---------------------------------------------


def _self_attention(scores_to_output):
    def fn(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
        return scores_to_output(Q, K, V)

    return fn


def _softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _no_shift_rows(scores):  # right on small scores, overflows on huge ones
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


SELF_ATTENTION = [
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T / np.sqrt(V.shape[1])) @ V), "sqrt(d_v)"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T / K.shape[1]) @ V), "divided by d_k = 3 itself"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T) @ V / np.sqrt(K.shape[1])), "scaled after the softmax"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T * np.sqrt(K.shape[1])) @ V), "multiplied"),
    (_self_attention(lambda Q, K, V: Q @ K.T / np.sqrt(K.shape[1]) @ V), "No softmax"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T) @ V), "not scaled"),
    (_self_attention(lambda Q, K, V: _softmax_rows(K @ Q.T / np.sqrt(K.shape[1])) @ V), "not K Q^T"),
    (lambda X, Wq, Wk, Wv: _softmax_rows(X @ Wq @ (X @ Wk).T / 2) @ X @ Wv, "sqrt(d_model)"),
    (_self_attention(lambda Q, K, V: (lambda e: e / e.sum(0))(np.exp(Q @ K.T / math.sqrt(3))) @ V), "the columns"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]))), "weight matrix"),
    (lambda X, Wq, Wk, Wv: _softmax_rows(X @ Wq @ (X @ Wk).T / math.sqrt(3)) @ X, "averages X itself"),
    (_self_attention(lambda Q, K, V: _no_shift_rows(Q @ K.T / np.sqrt(K.shape[1])) @ V), "NaN or inf"),
    (lambda X, Wq, Wk, Wv: np.ones((len(X), Wv.shape[1] + 1)), "(5, 2)"),
    (_self_attention(lambda Q, K, V: _softmax_rows(Q @ K.T / np.sqrt(K.shape[1])) @ V.mean(0)), "(5, 2)"),
]


def _luong(order="cs", tanh_first=False, squash=np.tanh, weights=_softmax_rows):
    def fn(s, E, W, W_c):
        c = weights(E @ W.T @ s) @ E  # (d_e,)
        stacked = np.concatenate([c, s] if order == "cs" else [s, c])
        return W_c @ np.tanh(stacked) if tanh_first else squash(W_c @ stacked)

    return fn


LUONG = [
    (_luong(tanh_first=True), "tanh before W_c"),
    (_luong(order="sc"), "the state followed by the context"),
    (_luong(squash=lambda x: x), "also goes through tanh"),
    (_luong(weights=lambda a: a), "raw scores"),
    (_luong(weights=lambda a: np.full_like(a, 1 / a.size)), "plain average"),
    (_luong(weights=_no_shift_rows), "NaN or inf"),
    (
        lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([_softmax_rows(W @ E @ s) @ E, s])),
        "E=ndarray of shape (5, 4)",
    ),
    (lambda s, E, W, W_c: _luong()(s, E, W, W_c)[:2], "shape (3,)"),
    (lambda s, E, W, W_c: _luong()(s, E, W, W_c) + 5, "lies between -1 and 1"),
    (_luong(weights=lambda a: _softmax_rows(-a)), None),
    (lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([_softmax_rows(E @ W @ s) @ E, s])), None),
]


# --- 05's additive scores: the tempting wrong broadcasts and orders ---------------------------------------------


def _hidden(Q, K, W_q, W_k):
    return (Q @ W_q.T)[:, None, :] + (K @ W_k.T)[None, :, :]  # (n_q, n_k, m)


ADDITIVE = [
    (
        lambda Q, K, W_q, W_k, w_v: (np.tanh(Q @ W_q.T) @ w_v)[:, None] + (np.tanh(K @ W_k.T) @ w_v)[None, :],
        "tanh of each part",
    ),
    (lambda Q, K, W_q, W_k, w_v: _hidden(Q, K, W_q, W_k) @ w_v, "There is no tanh"),
    (lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k) @ w_v), "tanh comes before w_v"),
    (lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k)).sum(-1), "summed the hidden"),
    (lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_k, W_q)) @ w_v, "swapped"),
    (lambda Q, K, W_q, W_k, w_v: (np.tanh(_hidden(Q, K, W_q, W_k)) @ w_v).T, "transposed"),
    (lambda Q, K, W_q, W_k, w_v: np.tanh(Q @ W_q.T + K @ W_k.T) @ w_v, "key i's only"),
    (lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k)), "hidden axis"),
]

CATALOGUES = {
    "check_additive_scores": ADDITIVE,
    "check_luong_attentional_state": LUONG,
    "check_self_attention": SELF_ATTENTION,
}
