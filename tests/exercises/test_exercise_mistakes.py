"""Checks that plausible wrong code cannot fool: each check against a catalogue of wrong implementations.

Every entry is a mistake a student plausibly makes; the check must reject it and name it (the hint), and the
reference answer must pass. A check whose catalogue is here claims in its success message only what the
catalogue shows it verifies.
"""

import numpy as np
import pytest
from helpers import text

from attention_lab import exercises as ex

# --- named mistakes in 02, 06 and 07 that had only generic feedback ---------------------------------------------


def _self_attention(scores_to_output):
    def fn(X, W_q, W_k, W_v):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
        return scores_to_output(Q, K, V)

    return fn


def _softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


SELF_ATTENTION_MISTAKES = [
    ("scaled by sqrt(d_v)", lambda Q, K, V: _softmax_rows(Q @ K.T / np.sqrt(V.shape[1])) @ V, "sqrt(d_v)"),
    ("scaled by d_k", lambda Q, K, V: _softmax_rows(Q @ K.T / K.shape[1]) @ V, "divided by d_k = 3 itself"),
    (
        "scaled after the softmax",
        lambda Q, K, V: _softmax_rows(Q @ K.T) @ V / np.sqrt(K.shape[1]),
        "scaled after the softmax",
    ),
    ("multiplied by sqrt(d_k)", lambda Q, K, V: _softmax_rows(Q @ K.T * np.sqrt(K.shape[1])) @ V, "multiplied"),
    ("no softmax", lambda Q, K, V: Q @ K.T / np.sqrt(K.shape[1]) @ V, "No softmax"),
    ("unscaled", lambda Q, K, V: _softmax_rows(Q @ K.T) @ V, "not scaled"),
    ("K Q^T", lambda Q, K, V: _softmax_rows(K @ Q.T / np.sqrt(K.shape[1])) @ V, "not K Q^T"),
]


@pytest.mark.parametrize(
    ("mistake", "output", "hint"), SELF_ATTENTION_MISTAKES, ids=[m[0] for m in SELF_ATTENTION_MISTAKES]
)
def test_self_attention_check_names_each_scaling_mistake(mistake, output, hint):
    feedback = ex.check_self_attention(_self_attention(output))
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _luong(order="cs", tanh_first=False, squash=np.tanh, weights=_softmax_rows):
    def fn(s, E, W, W_c):
        c = weights(E @ W.T @ s) @ E  # (d_e,)
        stacked = np.concatenate([c, s] if order == "cs" else [s, c])
        return W_c @ np.tanh(stacked) if tanh_first else squash(W_c @ stacked)

    return fn


LUONG_MISTAKES = [
    ("tanh before W_c", _luong(tanh_first=True), "tanh before W_c"),
    ("[s_t; c_t]", _luong(order="sc"), "in which order"),
    ("no tanh", _luong(squash=lambda x: x), "also goes through tanh"),
    ("raw scores as weights", _luong(weights=lambda a: a), "raw scores"),
    ("uniform weights", _luong(weights=lambda a: np.full_like(a, 1 / a.size)), "plain average"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), LUONG_MISTAKES, ids=[m[0] for m in LUONG_MISTAKES])
def test_luong_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_luong_attentional_state(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


# --- 05's additive scores: the tempting wrong broadcasts and orders ---------------------------------------------


def _hidden(Q, K, W_q, W_k):
    return (Q @ W_q.T)[:, None, :] + (K @ W_k.T)[None, :, :]  # (n_q, n_k, m)


ADDITIVE_MISTAKES = [
    (
        "a tanh of each part",
        lambda Q, K, W_q, W_k, w_v: (np.tanh(Q @ W_q.T) @ w_v)[:, None] + (np.tanh(K @ W_k.T) @ w_v)[None, :],
        "tanh of each part",
    ),
    ("no tanh", lambda Q, K, W_q, W_k, w_v: _hidden(Q, K, W_q, W_k) @ w_v, "There is no tanh"),
    ("tanh after w_v", lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k) @ w_v), "tanh comes before w_v"),
    ("hidden units summed", lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k)).sum(-1), "summed the hidden"),
    ("projections swapped", lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_k, W_q)) @ w_v, "swapped"),
    ("keys on the rows", lambda Q, K, W_q, W_k, w_v: (np.tanh(_hidden(Q, K, W_q, W_k)) @ w_v).T, "transposed"),
    ("query i with key i only", lambda Q, K, W_q, W_k, w_v: np.tanh(Q @ W_q.T + K @ W_k.T) @ w_v, "key i's only"),
    ("the hidden axis kept", lambda Q, K, W_q, W_k, w_v: np.tanh(_hidden(Q, K, W_q, W_k)), "hidden axis"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), ADDITIVE_MISTAKES, ids=[m[0] for m in ADDITIVE_MISTAKES])
def test_additive_scores_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_additive_scores(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))
