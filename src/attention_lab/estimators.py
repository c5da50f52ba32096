"""Gradient estimators for sampled (hard) attention, in numpy (notebook 02).

The setting: a key i is drawn from p = softmax(alpha) and a loss f(lambda) is paid for the one-hot
weights lambda = one-hot(i) (not e_i: in this course e_j is an encoder state). The *expected* loss

    J(alpha) = E_{i ~ p}[f(one-hot(i))] = sum_i p_i f(one-hot(i))

is smooth in the scores alpha, with the exact gradient dJ/dalpha_j = p_j (f(one-hot(j)) - J) (:func:`exact_gradient`).
What has no useful gradient is one sample: for fixed noise the drawn index is piecewise constant in alpha.
Each estimator below returns one gradient estimate per sample, shape ``(n_samples, n)``; their mean
estimates dJ/dalpha, and comparing that mean with :func:`exact_gradient` measures the bias:

- :func:`score_function_gradients` (REINFORCE, Williams 1992):
  f(one-hot(i)) grad log p_i = f(one-hot(i)) (one-hot(i) - p), unbiased; a baseline b (not depending on the
  sample) gives (f(one-hot(i)) - b)(one-hot(i) - p), still unbiased.
- :func:`straight_through_gradients` (Bengio et al. 2013): the one-hot sample forward, the softmax's
  Jacobian backward: (diag p - p p^T) grad f(one-hot(i)). Biased.
- :func:`gumbel_softmax_gradients` (Jang et al. 2017; Maddison et al. 2017): the gradient of
  f(softmax((alpha + g) / T)), or with ``hard=True`` grad f at the one-hot sample pulled back through the
  relaxed weights (straight-through Gumbel-softmax). Both biased for dJ/dalpha; the bias shrinks as T -> 0
  while the variance grows.

Every estimator draws its samples with the Gumbel-max trick, i = argmax_i(alpha_i + g_i) with
``g = rng.gumbel(size=(n_samples, n))``: the same seed gives the same samples to every estimator
(common random numbers), so their differences are not sampling luck.

The loss is given as ``loss(weights)`` (rows of weights, shape (m, n), to m losses) and, for the
estimators that differentiate it, ``loss_grad(weights)`` (shape (m, n) to (m, n)); :func:`quadratic_loss`
builds both for the course's retrieval task f(lambda) = ||lambda^T V - t||^2.

Examples
--------
>>> import numpy as np
>>> alpha = np.array([1.0, 0.0, -1.0])
>>> loss, _ = quadratic_loss(np.eye(3), np.array([1.0, 0.0, 0.0]))
>>> g = score_function_gradients(alpha, loss, n_samples=200_000, rng=0).mean(axis=0)
>>> bool(np.allclose(g, exact_gradient(alpha, loss), atol=0.01))
True
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, check_count, check_positive, check_real
from .normalisers import stable_softmax

__all__ = [
    "quadratic_loss",
    "exact_gradient",
    "score_function_gradients",
    "straight_through_gradients",
    "gumbel_softmax_gradients",
    "estimator_summary",
]


def _scores(alpha) -> np.ndarray:
    alpha = as_float_array(alpha, "alpha", min_ndim=1)
    if alpha.ndim != 1 or alpha.size < 2:
        raise ValueError(f"alpha must be a 1-D array of at least 2 scores, got shape {alpha.shape}")
    return alpha


def _evaluate(fn, weights, name, shape) -> np.ndarray:
    """Call ``loss`` (one number per row of weights) or ``loss_grad`` (one gradient per row); check the shape."""
    out = np.asarray(fn(weights), dtype=np.float64)
    if out.shape != shape:
        raise ValueError(f"{name} must map weights of shape {weights.shape} to shape {shape}, got shape {out.shape}")
    return out


def _draw(alpha, n_samples, rng):
    """Gumbel noise (n_samples, n) and the sampled indices argmax(alpha + g), exact samples of softmax(alpha)."""
    generator = np.random.default_rng(rng)
    gumbel = generator.gumbel(size=(n_samples, alpha.size))  # (m, n)
    return gumbel, np.argmax(alpha + gumbel, axis=1)  # (m, n), (m,)


def _softmax_backward(weights, upstream):
    """Rows of (diag w - w w^T) u: the softmax's Jacobian (symmetric) applied to upstream gradients."""
    return weights * (upstream - np.sum(weights * upstream, axis=-1, keepdims=True))  # (m, n)


def quadratic_loss(values, target):
    """The retrieval loss f(lambda) = ||lambda^T V - t||^2 and its gradient 2 V (V^T lambda - t).

    Parameters
    ----------
    values : array (n, d), the values v_i.
    target : array (d,), the value t we want to retrieve.

    Returns
    -------
    loss, loss_grad : functions of weights (m, n) returning (m,) losses and (m, n) gradients.
    """
    values = as_float_array(values, "values", min_ndim=2)
    target = as_float_array(target, "target", min_ndim=1)
    if values.ndim != 2 or target.shape != values.shape[1:]:
        raise ValueError(f"values must be (n, d) and target (d,), got shapes {values.shape} and {target.shape}")

    def loss(weights):
        return np.sum((np.asarray(weights) @ values - target) ** 2, axis=-1)  # (m,)

    def loss_grad(weights):
        return 2 * (np.asarray(weights) @ values - target) @ values.T  # (m, d) @ (d, n) -> (m, n)

    return loss, loss_grad


def exact_gradient(alpha, loss) -> np.ndarray:
    """dJ/dalpha for J(alpha) = sum_i softmax(alpha)_i f(one-hot(i)): p_j (f(one-hot(j)) - J). Shape (n,)."""
    alpha = _scores(alpha)
    p = stable_softmax(alpha, 1.0)
    f = _evaluate(loss, np.eye(alpha.size), "loss", (alpha.size,))  # (n,): the loss of choosing each key
    return p * (f - p @ f)


def score_function_gradients(alpha, loss, n_samples, rng=None, *, baseline=0.0) -> np.ndarray:
    """REINFORCE: (f(one-hot(i)) - b)(one-hot(i) - p) for each sample i ~ softmax(alpha). Unbiased.

    Shape (n_samples, n).

    ``baseline`` b is a number fixed before sampling (for instance the expected loss); it changes the
    variance, not the mean, because E[one-hot(i) - p] = 0.
    """
    alpha = _scores(alpha)
    m = check_count(n_samples, "n_samples", 1)
    baseline = check_real(baseline, "baseline", finite=True)
    p = stable_softmax(alpha, 1.0)
    _, index = _draw(alpha, m, rng)
    one_hot = np.eye(alpha.size)[index]  # (m, n)
    f = _evaluate(loss, one_hot, "loss", (m,))  # (m,)
    return (f - baseline)[:, None] * (one_hot - p)  # grad log p_i = one-hot(i) - p


def straight_through_gradients(alpha, loss_grad, n_samples, rng=None) -> np.ndarray:
    """Straight-through: grad f at the one-hot sample, pulled back through softmax(alpha). Shape (n_samples, n)."""
    alpha = _scores(alpha)
    m = check_count(n_samples, "n_samples", 1)
    p = np.broadcast_to(stable_softmax(alpha, 1.0), (m, alpha.size))
    _, index = _draw(alpha, m, rng)
    upstream = _evaluate(loss_grad, np.eye(alpha.size)[index], "loss_grad", (m, alpha.size))  # (m, n)
    return _softmax_backward(p, upstream)


def gumbel_softmax_gradients(alpha, loss_grad, temperature, n_samples, rng=None, *, hard=False) -> np.ndarray:
    """Gradient through the relaxed sample softmax((alpha + g) / T). Shape (n_samples, n).

    ``hard=False``: the gradient of f(relaxed weights) with respect to alpha.
    ``hard=True`` (straight-through Gumbel-softmax): grad f at the one-hot sample argmax(alpha + g),
    pulled back through the relaxed weights.
    """
    alpha = _scores(alpha)
    m = check_count(n_samples, "n_samples", 1)
    temperature = check_positive(temperature, "temperature")
    gumbel, index = _draw(alpha, m, rng)
    relaxed = stable_softmax(alpha + gumbel, temperature)  # softmax((alpha + g) / T): (m, n)
    at = np.eye(alpha.size)[index] if hard else relaxed
    upstream = _evaluate(loss_grad, at, "loss_grad", (m, alpha.size))  # (m, n)
    return _softmax_backward(relaxed, upstream) / temperature


def estimator_summary(gradients, exact) -> dict:
    """Bias and variance of per-sample gradient estimates against the exact gradient.

    Returns a dict with
    ``bias`` = ||mean - exact||, ``standard_error`` = the Monte Carlo error of that mean (sqrt of the
    variance / m: a bias below about 3 standard errors is not distinguishable from 0),
    ``variance`` = E||g - mean||^2 of one sample (the trace of its covariance), and ``relative_bias``
    = bias / ||exact||.
    """
    g = as_float_array(gradients, "gradients", min_ndim=2)
    exact = as_float_array(exact, "exact", min_ndim=1)
    if g.ndim != 2 or g.shape[1:] != exact.shape:
        raise ValueError(f"gradients must be (m, n) and exact (n,), got shapes {g.shape} and {exact.shape}")
    mean = g.mean(axis=0)
    variance = float(np.sum(g.var(axis=0, ddof=1))) if len(g) > 1 else float("nan")
    bias = float(np.linalg.norm(mean - exact))
    return {
        "bias": bias,
        "standard_error": float(np.sqrt(variance / len(g))),
        "variance": variance,
        "relative_bias": bias / float(np.linalg.norm(exact)),
    }
