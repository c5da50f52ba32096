"""Reference answers for notebooks/04_parametric_pooling.ipynb."""

import numpy as np
import torch

# Exercise 1 (predict, then check): w = -2 gives the same model as w = 2 (the score depends on w^2 only), and
# plain gradient descent started at w = 0 stays there (dL/dw = 0 exactly, since d alpha / d w = -(x - x_i)^2 w).
SAME_AS_W2, START_AT_ZERO = -2.0, "b"


def loo_predictions(x, y, w):
    """Each point predicted from the other n - 1: the (n, n) scores with the diagonal masked before the softmax."""
    n = x.shape[0]
    scores = -(((x[:, None] - x[None, :]) * w) ** 2) / 2  # (n, n): alpha_ij, query x_i on row i, key x_j
    scores = scores.masked_fill(torch.eye(n, dtype=torch.bool), float("-inf"))  # point i may not see itself
    return torch.softmax(scores, dim=1) @ y  # (n,)


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


# Exercise 6 (predict, then check): the Laplace-kernel fit has a corner (a jump of its slope) at every key.
LAPLACE_CHOICE = "b"


def laplace_sgd_step(w, x, y, lr):
    """One plain gradient step on the leave-one-out MSE of the Laplace model; returns the new w as a float."""
    w = torch.tensor(float(w), requires_grad=True)
    scores = -w * (x[:, None] - x[None, :]).abs()  # (n, n)
    scores = scores.masked_fill(torch.eye(len(x), dtype=torch.bool), float("-inf"))  # point i may not see itself
    loss = torch.mean((torch.softmax(scores, dim=1) @ y - y) ** 2)
    loss.backward()
    return (w - lr * w.grad).item()
