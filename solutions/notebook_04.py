"""Reference answers for notebooks/04_parametric_pooling.ipynb."""

import numpy as np
import torch


def nw_forward(queries, keys, values, w):
    diff = queries[:, None] - keys[None, :]  # (n_q, n_k)
    weights = torch.softmax(-((diff * w) ** 2) / 2, dim=1)  # (n_q, n_k), rows sum to 1
    return (weights * values[None, :]).sum(dim=1)  # (n_q,)


def loo_keys(x):
    n = x.shape[0]
    return x.expand(n, n)[~torch.eye(n, dtype=torch.bool)].reshape(n, n - 1)


SGD_LEARNING_RATE, SGD_EPOCHS = 4.5, 50


# Exercise 2 (predict, then check): without leave-one-out, w grows without bound.
NO_LOO_CHOICE = "b"


def gradient_w(queries, keys, values, targets, w):
    """dL/dw for L = mean((y_hat - targets)^2), y_hat = softmax(-(x - x_i)^2 w^2 / 2) @ values, in numpy."""
    diff2 = (queries[:, None] - keys[None, :]) ** 2  # (n_q, n_k)
    scores = -diff2 * w**2 / 2  # alpha, (n_q, n_k)
    lam = np.exp(scores - scores.max(axis=1, keepdims=True))
    lam /= lam.sum(axis=1, keepdims=True)  # lambda, (n_q, n_k)
    y_hat = lam @ values  # (n_q,)
    d_alpha = -diff2 * w  # d alpha / d w, (n_q, n_k)
    # softmax: d lambda_j / d w = lambda_j (d_alpha_j - sum_l lambda_l d_alpha_l)
    d_lam = lam * (d_alpha - (lam * d_alpha).sum(axis=1, keepdims=True))  # (n_q, n_k)
    d_y_hat = d_lam @ values  # (n_q,)
    return float(np.mean(2 * (y_hat - targets) * d_y_hat))
