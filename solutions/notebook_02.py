"""Reference answers for notebooks/02_hard_to_soft_attention.ipynb."""

import numpy as np


def smooth_max(alpha, temperature):
    m = alpha.max()
    return m + temperature * np.log(np.sum(np.exp((alpha - m) / temperature)))


def top_k(alpha, k):
    weights = np.zeros_like(alpha, dtype=float)
    weights[np.argsort(-alpha, kind="stable")[:k]] = 1 / k
    return weights


def temperature_for_half(alpha, target=0.5):
    """Bisection on log T: the largest weight falls monotonically as T grows."""
    lo, hi = -3.0, 3.0
    for _ in range(60):
        mid = (lo + hi) / 2
        z = alpha / 10**mid
        w = np.exp(z - z.max())
        lo, hi = (mid, hi) if (w / w.sum()).max() > target else (lo, mid)
    return 10 ** ((lo + hi) / 2)
