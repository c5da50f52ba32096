"""Reference answers for notebooks/02_hard_to_soft_attention.ipynb."""

import numpy as np


def smooth_max(alpha, temperature):
    m = alpha.max()
    return m + temperature * np.log(np.sum(np.exp((alpha - m) / temperature)))


def top_k(alpha, k_top):
    weights = np.zeros_like(alpha, dtype=float)
    weights[np.argsort(-alpha, kind="stable")[:k_top]] = 1 / k_top
    return weights


def temperature_for_half(alpha, target=0.5):
    """Bisection on log T: the largest weight falls monotonically as T grows."""
    lo, hi = -3.0, 3.0
    for _ in range(60):
        mid = (lo + hi) / 2
        scaled = alpha / 10**mid  # alpha / T
        w = np.exp(scaled - scaled.max())
        lo, hi = (mid, hi) if (w / w.sum()).max() > target else (lo, mid)
    return 10 ** ((lo + hi) / 2)


# Exercise 4 (predict, then check), n = 6 scores at T = 0.5.
# gap = T log sum_i exp((alpha_i - max) / T); every term is <= 1 (the winner's is exactly 1), so the gap is
# at most T log n, with equality exactly when every term is 1, that is when all scores are equal.
GAP_BOUND = 0.5 * np.log(6)
WORST_SCORES = np.full(6, 2.0)  # any six equal scores


def reinforce(alpha, losses, n_samples, rng):
    """Score-function estimate of d/dalpha sum_i softmax(alpha)_i losses_i: mean of L_i (one_hot(i) - p)."""
    p = np.exp(alpha - alpha.max())
    p /= p.sum()
    index = rng.choice(len(alpha), size=n_samples, p=p)  # (m,) keys drawn from p
    one_hot = np.eye(len(alpha))[index]  # (m, n)
    return np.mean(losses[index][:, None] * (one_hot - p), axis=0)


def attend_with_position(alpha, values, b):
    """Scores alpha_i + b * i for the key in slot i, then softmax and the weighted average."""
    scores = alpha + b * np.arange(len(alpha))
    weights = np.exp(scores - scores.max())
    return (weights / weights.sum()) @ values
