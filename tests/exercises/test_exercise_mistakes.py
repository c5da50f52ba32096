"""Checks that plausible wrong code cannot fool: each check against a catalogue of wrong implementations.

Every entry is a mistake a student plausibly makes; the check must reject it and name it (the hint), and the
reference answer must pass. A check whose catalogue is here claims in its success message only what the
catalogue shows it verifies.
"""

import numpy as np
import pytest
from conftest import load_solution, text

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
    ("scaled after the softmax", lambda Q, K, V: _softmax_rows(Q @ K.T) @ V / np.sqrt(K.shape[1]),
     "scaled after the softmax"),
    ("multiplied by sqrt(d_k)", lambda Q, K, V: _softmax_rows(Q @ K.T * np.sqrt(K.shape[1])) @ V, "multiplied"),
    ("no softmax", lambda Q, K, V: Q @ K.T / np.sqrt(K.shape[1]) @ V, "No softmax"),
    ("unscaled", lambda Q, K, V: _softmax_rows(Q @ K.T) @ V, "Scale the scores"),
    ("K Q^T", lambda Q, K, V: _softmax_rows(K @ Q.T / np.sqrt(K.shape[1])) @ V, "not K Q^T"),
]


@pytest.mark.parametrize(("mistake", "output", "hint"), SELF_ATTENTION_MISTAKES,
                         ids=[m[0] for m in SELF_ATTENTION_MISTAKES])
def test_self_attention_check_names_each_scaling_mistake(mistake, output, hint):
    feedback = ex.check_self_attention(_self_attention(output))
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


CAUSAL_MISTAKES = [
    ("scores times the mask", lambda s: _softmax_rows(s * np.tril(np.ones_like(s))), "multiplied the scores by"),
    ("mask added to the scores", lambda s: _softmax_rows(s + np.tril(np.ones_like(s))), "added the mask"),
    ("no mask", _softmax_rows, "No mask"),
    ("transposed mask", lambda s: _softmax_rows(np.where(np.triu(np.ones_like(s)) > 0, s, -np.inf)), "transposed"),
    ("future zeroed after the softmax", lambda s: np.tril(_softmax_rows(s)), "after the softmax"),
    ("diagonal masked", lambda s: np.nan_to_num(_softmax_rows(np.where(np.tril(np.ones_like(s), -1) > 0, s, -np.inf))),
     "diagonal must stay allowed"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), CAUSAL_MISTAKES, ids=[m[0] for m in CAUSAL_MISTAKES])
def test_causal_check_names_each_masking_mistake(mistake, fn, hint):
    with np.errstate(all="ignore"):
        feedback = ex.check_causal_weights(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _luong(order="cs", tanh_first=False, squash=np.tanh, weights=_softmax_rows):
    def fn(s, E, W, W_c):
        c = weights(E @ W.T @ s) @ E  # (d_e,)
        stacked = np.concatenate([c, s] if order == "cs" else [s, c])
        return W_c @ np.tanh(stacked) if tanh_first else squash(W_c @ stacked)
    return fn


LUONG_MISTAKES = [
    ("tanh before W_c", _luong(tanh_first=True), "tanh before W_c"),
    ("[s_t; c_t]", _luong(order="sc"), "concatenate in that order"),
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
    ("grad p_i instead of grad log p_i", _reinforce(lambda L, onehot, p, i: L * p[i] * (onehot - p)),
     "gradient of p_i"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), REINFORCE_MISTAKES, ids=[m[0] for m in REINFORCE_MISTAKES])
def test_reinforce_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_reinforce(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


# --- 03's nearest neighbour, 04's forward pass and leave-one-out keys ----------------------------------------------

def _nearest(xq, xk):
    return np.abs(xq[:, None] - xk).argmin(axis=1)


NEAREST_MISTAKES = [
    ("the indices", lambda xq, xk, y: _nearest(xq, xk), "indices"),
    ("the keys", lambda xq, xk, y: xk[_nearest(xq, xk)], "nearest keys x_i themselves"),
    ("h -> infinity", lambda xq, xk, y: np.full(xq.shape, y.mean()), "average pooling"),
    ("the farthest key", lambda xq, xk, y: y[np.abs(xq[:, None] - xk).argmax(axis=1)], "on either side"),
    ("the mean of the two nearest", lambda xq, xk, y: np.sort(y[np.argsort(np.abs(xq[:, None] - xk), 1)[:, :2]], 1)
     .mean(1), "not values at all"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), NEAREST_MISTAKES, ids=[m[0] for m in NEAREST_MISTAKES])
def test_nearest_neighbour_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_nearest_neighbour(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _forward(score, dim=1, detach=False, normalise=True):
    import torch

    def fn(queries, keys, values, w):
        w = w.item() if detach else w
        scores = score((queries[:, None] - keys) ** 2, w)  # (n_q, n_k)
        weights = torch.softmax(scores, dim=dim) if normalise else torch.exp(scores)
        return (weights * values).sum(dim=1)
    return fn


FORWARD_MISTAKES = [
    ("no 1/2", _forward(lambda d2, w: -d2 * w**2), "1/2 is missing"),
    ("softmax over the queries", _forward(lambda d2, w: -d2 * w**2 / 2, dim=0), "over the queries"),
    ("w detached", _forward(lambda d2, w: -d2 * w**2 / 2, detach=True), "no gradient"),
    ("sign flipped", _forward(lambda d2, w: d2 * w**2 / 2), "sign is flipped"),
    ("w not squared", _forward(lambda d2, w: -d2 * w / 2), "Square w too"),
    ("no normalisation", _forward(lambda d2, w: -d2 * w**2 / 2, normalise=False), "without their normalisation"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), FORWARD_MISTAKES, ids=[m[0] for m in FORWARD_MISTAKES])
def test_nw_forward_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_nw_forward(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))


def _loo(rows):
    import torch

    def fn(x):
        return torch.stack([rows(x, i) for i in range(x.shape[0])])
    return fn


def _without(x, i):
    import torch

    return torch.cat([x[:i], x[i + 1:]])


LOO_MISTAKES = [
    ("every key kept", lambda x: x.expand(x.shape[0], x.shape[0]), "attend to itself"),
    ("the next key dropped instead", _loo(lambda x, i: _without(x, (i + 1) % x.shape[0])), "still contains x_i"),
    ("another order", _loo(lambda x, i: _without(x, i).flip(0)), "another order"),
    ("transposed", lambda x: _loo(_without)(x).T, "transposed"),
    ("computed, not copied", _loo(lambda x, i: _without(x, i) - x[i]), "copied as they are"),
]


@pytest.mark.parametrize(("mistake", "fn", "hint"), LOO_MISTAKES, ids=[m[0] for m in LOO_MISTAKES])
def test_leave_one_out_check_names_each_mistake(mistake, fn, hint):
    feedback = ex.check_leave_one_out(fn)
    assert not feedback.passed and hint in text(feedback), (mistake, text(feedback))
