"""Reference answers for notebooks/09_transformers_read_and_write.ipynb."""

import numpy as np


def top_p(probs, p_top):
    order = np.argsort(-probs, kind="stable")  # most likely first, ties by index
    ranked = probs[order]
    keep = np.zeros(probs.shape, dtype=bool)
    keep[order] = np.cumsum(ranked) - ranked < p_top  # the mass before each token is still below p_top
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum()


def reheat(p, temperature):
    z = np.log(p) / temperature  # the logits up to a constant, divided by T
    e = np.exp(z - z.max())
    return e / e.sum()  # = p^(1/T) / sum p^(1/T)


def kv_cache_bytes_per_token(n_layers, d_model, num_heads, bytes_per_number):
    return 2 * n_layers * d_model * bytes_per_number  # a key and a value per layer, d_model numbers each


def window_mask(n, window):
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j, (n, n)
    return (offset >= 0) & (offset < window)  # query i reads keys i - window + 1, ..., i


# The decoder's self-attention keys of past positions are fixed by the causal mask (cached, one row per step);
# the cross-attention keys come from the encoder's output, which does not change: computed once.
CROSS_ATTENTION_CACHE = "C"


def cached_step(q, k, v, K_cache, V_cache):
    K = np.vstack([K_cache, k])  # (t + 1, d_k): the new key appended once
    V = np.vstack([V_cache, v])  # (t + 1, d_v)
    scores = K @ q / np.sqrt(len(q))  # (t + 1,): the new query against every cached key, its own included
    weights = np.exp(scores - scores.max())
    return (weights / weights.sum()) @ V, K, V  # (d_v,), and the grown caches
