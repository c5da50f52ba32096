"""Choosing the next token from a language model's logits: greedy, temperature, top-k, top-p (notebook 09).

The logits are scores alpha_i over the vocabulary, one per token, on the last axis of an array of any
shape (one row per sequence of a batch). The distribution a sampler draws from is notebook 02's softmax:

    p_i = softmax(alpha / T)_i restricted to the kept tokens, renormalised,

where the kept tokens are

- with ``top_k=k``: the k tokens with the largest logits (ties broken by the smaller index); which tokens
  these are does not depend on T;
- with ``top_p=p`` ("nucleus sampling", Holtzman et al., 2020): the fewest tokens, taken in order of
  decreasing logit, whose probabilities (at temperature T, after top-k) add up to at least p; the token
  whose probability makes the sum cross p is kept. ``top_p=1`` keeps every token.

The order is that of Hugging Face's ``generate``: temperature, then top-k, then top-p. Limits: ``T = 0``
is the greedy limit (all the weight on the largest logit; :func:`sample_tokens` then returns exactly
:func:`greedy_tokens`, the first largest), ``T = inf`` is uniform over the kept tokens; both are computed
without overflow for any finite logits. A logit of ``-inf`` marks a token that may never be chosen; a row
with no token left is refused.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import as_float_array, as_mask, as_rng, check_count, check_temperature, describe
from .normalisers import stable_softmax

__all__ = ["check_top_p", "top_k_mask", "top_p_mask", "next_token_distribution", "greedy_tokens", "sample_tokens"]


def _logits(logits) -> np.ndarray:
    """Validated float64 logits (..., vocab_size) with vocab_size >= 1, a copy; -inf allowed, NaN and +inf refused."""
    alpha = as_float_array(logits, "logits", min_ndim=1, allow_neg_inf=True)
    if alpha.shape[-1] == 0:
        raise ValueError(
            f"logits must hold at least one token on the last axis (the vocabulary), got shape "
            f"{alpha.shape}: an empty vocabulary has nothing to choose from"
        )
    if (alpha.max(axis=-1) == -np.inf).any():
        rows = int(np.isneginf(alpha).all(axis=-1).sum())
        raise ValueError(f"logits must allow at least one token per row; {rows} row(s) have every logit -inf")
    return alpha


def check_top_p(top_p, name: str = "top_p") -> float:
    """A nucleus size p with 0 < p <= 1, else a ValueError naming ``name``."""
    if isinstance(top_p, bool | np.bool_) or not isinstance(top_p, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1] (1 keeps every token), got {describe(top_p)}")
    value = float(top_p)
    if not 0 < value <= 1:  # also NaN
        raise ValueError(f"{name} must be a number in (0, 1] (1 keeps every token), got {value}")
    return value


def _order(alpha: np.ndarray) -> np.ndarray:
    """Token indices by decreasing logit, ties by increasing index: (..., vocab_size). The same order at every T > 0."""
    return np.argsort(-alpha, axis=-1, kind="stable")


def top_k_mask(logits, k: int) -> np.ndarray:
    """True on the ``k`` largest logits of each row (ties: the smaller index first), False elsewhere.

    Tokens with logit -inf are never kept, so a row keeps fewer than ``k`` if it allows fewer.
    """
    alpha = _logits(logits)
    return _top_k(alpha, check_count(k, "top_k", 1, alpha.shape[-1]))


def top_p_mask(logits, p: float, temperature: float = 1.0, *, mask=None) -> np.ndarray:
    """True on the nucleus: the fewest tokens, by decreasing logit, whose probability adds up to >= p.

    The probabilities are ``softmax(logits / temperature)`` over the tokens ``mask`` allows (True = may be
    chosen; e.g. a :func:`top_k_mask`). The token whose probability makes the running sum reach ``p`` is
    kept: a token is kept when the probability of the tokens before it is still below ``p``. ``p = 1``
    keeps every allowed token (without that rule, rounding could drop a token of tiny probability).
    """
    alpha = _logits(logits)
    p, temperature, allowed = check_top_p(p), check_temperature(temperature), as_mask(mask, alpha.shape)
    return _nucleus(alpha, p, temperature, allowed & (alpha > -np.inf))


def next_token_distribution(
    logits, temperature: float = 1.0, *, top_k: int | None = None, top_p: float | None = None
) -> np.ndarray:
    r"""The distribution a sampler draws the next token from: (..., vocab_size), each row summing to 1.

    Parameters
    ----------
    logits : array_like, shape (..., vocab_size)
        Scores over the vocabulary of vocab_size tokens (any batch shape in front); ``-inf`` = never.
    temperature : float, default 1.0
        T >= 0: softmax(logits / T). ``0`` puts all the weight on the largest logit (ties share it),
        ``np.inf`` spreads it evenly over the kept tokens.
    top_k : int, optional
        Keep the k largest logits, 1 <= k <= vocab_size.
    top_p : float, optional
        Keep the nucleus of probability p, 0 < p <= 1 (after top-k, at temperature T).

    Returns
    -------
    numpy.ndarray
        Probabilities of the same shape as ``logits``; 0 on every token not kept.

    Examples
    --------
    >>> next_token_distribution([2.0, 1.0, 0.0], temperature=0)
    array([1., 0., 0.])
    >>> next_token_distribution([2.0, 1.0, 0.0], temperature=np.inf, top_k=2)
    array([0.5, 0.5, 0. ])
    """
    alpha = _logits(logits)
    return _distribution(alpha, *_options(alpha, temperature, top_k, top_p))


def greedy_tokens(logits) -> np.ndarray:
    """The most likely token of each row (the first one if several tie): integers of shape ``logits.shape[:-1]``."""
    return np.argmax(_logits(logits), axis=-1)


def sample_tokens(
    logits, temperature: float = 1.0, *, top_k: int | None = None, top_p: float | None = None, rng=None
) -> np.ndarray:
    """One token per row drawn from :func:`next_token_distribution`: integers of shape ``logits.shape[:-1]``.

    ``temperature=0`` returns :func:`greedy_tokens` exactly (no randomness is used). Otherwise one uniform
    number u per row picks the first token whose cumulative probability exceeds u (inverse-CDF sampling);
    ``rng`` is a seed or a ``numpy.random.Generator``, so draws are reproducible.
    """
    alpha = _logits(logits)  # checked once: a float copy
    T, top_k, top_p = _options(alpha, temperature, top_k, top_p)
    generator = as_rng(rng)
    if T == 0:
        return np.argmax(alpha, axis=-1)  # greedy: the largest logit survives any top-k and any top-p
    probs = _distribution(alpha, T, top_k, top_p)  # (..., vocab_size)
    cdf = np.cumsum(probs, axis=-1)  # (..., vocab_size)
    u = generator.random(alpha.shape[:-1])[..., None] * cdf[..., -1:]  # (..., 1), scaled: rounding-proof
    chosen = np.sum(cdf <= u, axis=-1)  # the first index whose cumulative sum exceeds u
    return np.minimum(chosen, _last_kept(probs))  # never a token of probability 0, even where cdf ends flat


# The unchecked steps beside the formulas above (their inputs are checked logits and options).


def _options(alpha, temperature, top_k, top_p):
    """The checked temperature, top_k (None or 1..vocab_size) and top_p (None or (0, 1])."""
    T = check_temperature(temperature)
    if top_k is not None:
        top_k = check_count(top_k, "top_k", 1, alpha.shape[-1])
    if top_p is not None:
        top_p = check_top_p(top_p)
    return T, top_k, top_p


def _distribution(alpha, T, top_k, top_p):
    """softmax(alpha / T) over the tokens top-k, then top-p, keep (in that order, as Hugging Face does)."""
    kept = alpha > -np.inf if top_k is None else _top_k(alpha, top_k)
    if top_p is not None:
        kept = _nucleus(alpha, top_p, T, kept)
    return stable_softmax(np.where(kept, alpha, -np.inf), T)  # every row keeps its largest logit: it sums to 1


def _top_k(alpha, k):
    """top_k_mask without its checks."""
    rank = np.argsort(_order(alpha), axis=-1)  # rank[..., i] of token i: the inverse of the order
    return (rank < k) & (alpha > -np.inf)


def _nucleus(alpha, p, T, allowed):
    """top_p_mask without its checks; ``allowed`` excludes the -inf logits."""
    if p == 1.0:
        return allowed.copy()
    alpha = np.where(allowed, alpha, -np.inf)
    probs = stable_softmax(alpha, T)  # (..., vocab_size)
    order = _order(alpha)
    sorted_probs = np.take_along_axis(probs, order, axis=-1)  # (..., vocab_size), by decreasing logit
    before = np.cumsum(sorted_probs, axis=-1) - sorted_probs  # probability of the tokens ranked before each
    keep = np.empty_like(allowed)
    np.put_along_axis(keep, order, before < p, axis=-1)
    return keep & allowed


def _last_kept(probs):
    """The index of the last token of positive probability in each row."""
    return probs.shape[-1] - 1 - np.argmax((probs > 0)[..., ::-1], axis=-1)
