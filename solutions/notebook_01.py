"""Reference answers for notebooks/01_queries_keys_values.ipynb."""

import numpy as np


def softmax_with_temperature(alpha, temperature):
    z = alpha / temperature
    z = z - z.max(axis=-1, keepdims=True)  # every exponent <= 0: no overflow
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


# The weights that give each candidate (solve [V^T; 1 1 1 1] lambda = [p; 1]): A (1/4, 1/4, 1/4, 1/4) and
# B (0.4, 0.1, 0.2, 0.3) are all positive; C needs pear -0.2 (inside every nutrient's range, outside the
# tetrahedron); D is apple and orange half and half, weights 0 for pear and cherry (only a limit: softmax weights
# are never 0); E has more sugar than any box.
REACHABLE_OUTPUTS = "AB"


# Exercise 3: an exact copy has the same score, so the same e = exp(alpha / T); with S the sum over all keys,
# lambda = e / S, and with m copies the sum is S + (m - 1) e: the copies weigh m e / (S + (m - 1) e).
def copies_weight(lam, m):
    return m * lam / (1 + (m - 1) * lam)


# K @ q for q = (4, 3): apple 36, orange 44, pear 28, cherry 45: the long "cherry" key wins, the near pear loses
DOT_PRODUCT_WINNER = "cherry"
