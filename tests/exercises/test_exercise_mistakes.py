"""Checks that plausible wrong code cannot fool: each check against a catalogue of wrong implementations.

Every entry is a mistake a student plausibly makes; the check must reject it and name it (the hint), and the
reference answer must pass. A check whose catalogue is here claims in its success message only what the
catalogue shows it verifies.
"""

import numpy as np
import pytest
from helpers import load_solution, text

from attention_lab import exercises as ex


def _softmax_shifted_by(shift):
    def softmax(alpha, temperature):
        z = np.asarray(alpha, dtype=float) / temperature
        e = np.exp(z - shift(z))
        return e / e.sum(axis=-1, keepdims=True)

    return softmax


def _gaussian_shifted_by(shift):
    def weights(x_query, x_keys, h):
        z = -((np.asarray(x_query)[:, None] - np.asarray(x_keys)[None, :]) ** 2) / (2 * h * h)
        e = np.exp(z - shift(z))
        return e / e.sum(axis=-1, keepdims=True)

    return weights


# (name, the shift a student subtracts before exp, the words the feedback must use)
SHIFTS = [
    ("no shift", lambda z: 0.0, "Without a shift"),
    ("each row's minimum", lambda z: z.min(axis=-1, keepdims=True), "each row's smallest score"),
    ("the whole array's maximum", lambda z: z.max(), "largest score of the whole array"),
    ("the whole array's minimum", lambda z: z.min(), "smallest score of the whole array"),
    ("each row's mean", lambda z: z.mean(axis=-1, keepdims=True), "each row's mean"),
    ("each row's first score", lambda z: z[..., :1], "each row's first score"),
    ("each column's maximum", lambda z: z.max(axis=0, keepdims=True), "each column (axis 0)"),
]


@pytest.mark.parametrize(("mistake", "shift", "hint"), SHIFTS, ids=[s[0] for s in SHIFTS])
def test_softmax_check_names_every_unstable_shift(mistake, shift, hint):
    with np.errstate(all="ignore"):
        feedback = ex.check_softmax(_softmax_shifted_by(shift))
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


@pytest.mark.parametrize(("mistake", "shift", "hint"), SHIFTS, ids=[s[0] for s in SHIFTS])
def test_gaussian_weights_check_names_every_unstable_shift(mistake, shift, hint):
    with np.errstate(all="ignore"):
        feedback = ex.check_gaussian_weights(_gaussian_shifted_by(shift))
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def test_the_right_shift_and_the_reference_answers_pass():
    row_max = lambda z: z.max(axis=-1, keepdims=True)  # noqa: E731
    assert ex.check_softmax(_softmax_shifted_by(row_max)).passed
    assert ex.check_gaussian_weights(_gaussian_shifted_by(row_max)).passed
    assert ex.check_softmax(load_solution("notebook_01").softmax_with_temperature).passed
    assert ex.check_gaussian_weights(load_solution("notebook_03").gaussian_weights).passed


def test_success_messages_claim_what_the_catalogue_verifies():
    row_max = lambda z: z.max(axis=-1, keepdims=True)  # noqa: E731
    softmax_text = text(ex.check_softmax(_softmax_shifted_by(row_max)))
    assert "on rows far below the others" in softmax_text and "spanning 2000" in softmax_text
    gaussian_text = text(ex.check_gaussian_weights(_gaussian_shifted_by(row_max)))
    assert "also next to a query near the keys" in gaussian_text


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


def _reinforce(term):
    def fn(alpha, losses, n_samples, rng):
        p = _softmax_rows(np.asarray(alpha, dtype=float))
        drawn = rng.choice(p.size, size=n_samples, p=p)
        return np.mean([term(losses[i], np.eye(p.size)[i], p, i) for i in drawn], axis=0)

    return fn


REINFORCE_MISTAKES = [
    ("an extra division by p_i", _reinforce(lambda L, onehot, p, i: L * (onehot - p) / p[i]), "divided each sample"),
    ("the sign flipped", _reinforce(lambda L, onehot, p, i: L * (p - onehot)), "sign is flipped"),
    ("the loss alone", _reinforce(lambda L, onehot, p, i: L * onehot), "sampled loss alone"),
    (
        "grad p_i instead of grad log p_i",
        _reinforce(lambda L, onehot, p, i: L * p[i] * (onehot - p)),
        "gradient of p_i",
    ),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), REINFORCE_MISTAKES, ids=[m[0] for m in REINFORCE_MISTAKES])
def test_reinforce_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_reinforce(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


# --- 03's limit h -> 0 ----------------------------------------------


def _nearest(xq, xk):
    return np.abs(xq[:, None] - xk).argmin(axis=1)


def _tie_averages(xq, xk, y):
    """The reference limit, written independently of the check: sort the distances, average the minima."""
    out = []
    for q in xq:
        d = np.abs(q - xk)
        out.append(np.mean([v for v, di in zip(y, d, strict=True) if di == d.min()]))
    return np.array(out)


SMALL_H_MISTAKES = [
    ("the indices", lambda xq, xk, y: _nearest(xq, xk).astype(float), "indices"),
    ("the keys", lambda xq, xk, y: xk[_nearest(xq, xk)], "nearest keys x_i themselves"),
    ("h -> infinity", lambda xq, xk, y: np.full(xq.shape, y.mean()), "average pooling"),
    ("the farthest key", lambda xq, xk, y: y[np.abs(xq[:, None] - xk).argmax(axis=1)], "on either side"),
    ("np.argmin: the first of tied keys", lambda xq, xk, y: y[_nearest(xq, xk)], "np.argmin returns the first"),
    (
        "the last of tied keys",
        lambda xq, xk, y: y[len(xk) - 1 - np.abs(xq[:, None] - xk)[:, ::-1].argmin(axis=1)],
        "share the weight",
    ),
    (
        "the mean of the two nearest",
        lambda xq, xk, y: y[np.argsort(np.abs(xq[:, None] - xk), 1)[:, :2]].mean(1),
        "not values at all",
    ),
    (
        "the kernel at a tiny h, unshifted",
        lambda xq, xk, y: (lambda e: e @ y / e.sum(1))(np.exp(-((xq[:, None] - xk) ** 2) / (2 * 1e-6**2))),
        "0/0 is NaN",
    ),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), SMALL_H_MISTAKES, ids=[m[0] for m in SMALL_H_MISTAKES])
def test_small_h_limit_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_small_h_limit(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def test_small_h_limit_accepts_the_reference_and_the_stable_softmax_at_a_tiny_h():
    from attention_lab import nadaraya_watson

    assert ex.check_small_h_limit(_tie_averages).passed
    assert ex.check_small_h_limit(load_solution("notebook_03").small_h_limit).passed
    assert ex.check_small_h_limit(lambda xq, xk, y: nadaraya_watson(xq, xk, y, bandwidth=1e-4)[0]).passed


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
