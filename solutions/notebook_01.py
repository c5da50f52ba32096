"""Reference answers for notebooks/01_queries_keys_values.ipynb."""

import numpy as np


def softmax_with_temperature(alpha, temperature):
    z = alpha / temperature
    z = z - z.max(axis=-1, keepdims=True)  # every exponent <= 0: no overflow
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def weighted_average(weights, values):
    return weights @ values  # (n_q, n_keys) @ (n_keys, d_v) -> (n_q, d_v)


# softmax(alpha / T) = lambda when alpha / T = log lambda (plus any constant), since softmax(log lambda) =
# lambda / sum(lambda) = lambda: at T = 2 the scores are 2 log lambda_i (plus any constant)
SCORES_FOR_WEIGHTS = 2.0 * np.log([0.1, 0.8, 0.05, 0.05])


# K @ q for q = (4, 3): apple 36, orange 44, pear 28, cherry 45: the long "cherry" key wins, the near pear loses
DOT_PRODUCT_WINNER = "cherry"
