"""Exercise checks of notebook 08, generation and the KV cache (reference answers: ``solutions/notebook_08.py``).

As everywhere, a check explains a wrong answer in words and never prints the expected numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..normalisers import softmax
from .feedback import (
    Feedback,
    as_numbers,
    close,
    exercise,
    known_mistake,
    not_finite,
    one_number_per_case,
    run_student,
    to_float_array,
)

__all__ = [
    "check_top_p",
    "check_reheat",
    "check_kv_cache_bytes",
    "check_cached_attention",
    "check_mask_and_cache_prediction",
]

# one distribution with a crossing token that is not at an exact boundary, a tie, and tiny entries
PROBS = np.array([0.05, 0.3, 0.02, 0.25, 0.25, 0.1, 0.03])


def _nucleus(probs, p_top, keep_rule):
    order = np.argsort(-probs, kind="stable")
    ranked = probs[order]
    keep = np.zeros(probs.size, dtype=bool)
    keep[order] = keep_rule(np.cumsum(ranked), ranked, p_top)
    return keep, order


def _renormalised(probs, keep):
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum()


def top_p_reference(probs, p_top):
    keep, _ = _nucleus(probs, p_top, lambda cum, ranked, p: cum - ranked < p)
    return _renormalised(probs, keep)


def top_p_mistakes(probs, p_top) -> list:
    """(wrong answer, hint) pairs: the plausible wrong implementations of top-p on ``probs``."""
    right, order = _nucleus(probs, p_top, lambda cum, ranked, p: cum - ranked < p)
    below, _ = _nucleus(probs, p_top, lambda cum, ranked, p: cum <= p)
    strictly, _ = _nucleus(probs, p_top, lambda cum, ranked, p: cum < p)
    ascending = np.argsort(probs, kind="stable")
    low = np.zeros(probs.size, dtype=bool)
    low[ascending] = np.cumsum(probs[ascending]) - probs[ascending] < p_top
    count = max(1, int(round(p_top * probs.size)))
    by_count = np.zeros(probs.size, dtype=bool)
    by_count[order[:count]] = True
    crossing = (
        "The token whose probability makes the running sum reach p_top belongs to the nucleus: keep a token "
        "while the mass of the tokens *before* it is still below p_top (cumsum - probs < p_top)."
    )
    mistakes = [
        (
            _renormalised(probs, below),
            "You keep the tokens whose running sum is at most p_top, which drops the "
            "token that crosses p_top: the kept mass is then below p_top. " + crossing,
        ),
        (
            _renormalised(probs, strictly),
            "You keep the tokens whose running sum is below p_top, which drops the "
            "token that crosses p_top. " + crossing,
        ),
        (
            np.where(right, probs, 0.0),
            "The tokens are the right ones, but the result must be a distribution: "
            "divide by the kept mass so that it sums to 1.",
        ),
        (
            _renormalised(probs, low),
            "You summed from the least likely token up: the nucleus is taken from the most "
            "likely down (np.argsort(-probs)).",
        ),
        (
            _renormalised(probs, right)[order],
            "The values are right but in sorted order: put each probability back "
            "at its token's index (the result is indexed like probs).",
        ),
        (
            _renormalised(probs, probs >= p_top),
            "A token is not kept because its own probability reaches p_top: the "
            "nucleus is decided by the running sum of the most likely tokens.",
        ),
        (
            _renormalised(probs, by_count),
            "That keeps a fixed share p_top of the tokens (a top-k with k = p_top * n): "
            "top-p keeps as many tokens as it takes for their mass to reach p_top.",
        ),
    ]
    return [(wrong, hint) for wrong, hint in mistakes if not close(wrong, _renormalised(probs, right))]


@exercise("top-p (nucleus) filtering")
def check_top_p(name, fn) -> Feedback:
    """Exercise: ``fn(probs, p_top)`` -> the distribution restricted to the nucleus, renormalised."""
    cases = [(PROBS, 0.6), (PROBS, 0.75), (PROBS, 0.31), (np.array([0.5, 0.5]), 0.5), (PROBS, 1.0)]
    for probs, p_top in cases:
        got, problem = as_numbers(name, fn, probs.copy(), p_top)
        if problem is not None:
            return problem
        expected = top_p_reference(probs, p_top)
        if close(got, expected):
            continue
        if got.shape != expected.shape:
            return Feedback(
                name, False, [f"Return one probability per token: shape {expected.shape}, got {got.shape}."]
            )
        if np.all(np.isnan(got) | (got == 0)):
            return Feedback(
                name,
                False,
                [
                    "Your result keeps no token (all zeros or NaN), but the nucleus always "
                    "holds at least the most likely token. A token is not kept because its own "
                    "probability reaches p_top: the nucleus is decided by the running sum of "
                    "the most likely tokens."
                ],
            )
        bad = not_finite(
            name, got, "Divide by the kept mass, which is at least p_top > 0 here: no division by zero should occur."
        )
        if bad is not None:
            return bad
        hint = known_mistake(got, top_p_mistakes(probs, p_top))
        if hint is not None:
            return Feedback(name, False, [hint])
        return Feedback(
            name,
            False,
            [
                f"Not yet right for p_top = {p_top}: sort the tokens by decreasing probability, "
                "keep a token while the mass before it is below p_top, zero the rest and "
                "renormalise."
            ],
        )
    return Feedback(
        name,
        True,
        [
            "The nucleus: the most likely tokens until their mass reaches p_top, the crossing "
            "token included (checked at p_top = 0.31, where the first token alone is short of "
            "it, at a tie, and at p_top = 1, which keeps every token)."
        ],
    )


def reheat_reference(p, temperature):
    return softmax(np.log(p), temperature)


@exercise("from the distribution at T = 1 to any T")
def check_reheat(name, fn) -> Feedback:
    """Exercise: ``fn(p, T)`` -> softmax(log p / T) = p^(1/T) / sum p^(1/T)."""
    p = np.array([0.5, 0.25, 0.125, 0.0625, 0.0625])
    for temperature in (0.5, 2.0, 1.0, 0.2):
        got, problem = as_numbers(name, fn, p.copy(), temperature)
        if problem is not None:
            return problem
        expected = reheat_reference(p, temperature)
        if close(got, expected):
            continue
        if got.shape != expected.shape:
            return Feedback(name, False, [f"Return one probability per token: shape {p.shape}, got {got.shape}."])
        bad = not_finite(
            name,
            got,
            "These probabilities are between 1/16 and 1/2: nothing overflows, so the NaN "
            "or inf comes from your own arithmetic (a log of 0 or a division by 0).",
        )
        if bad is not None:
            return bad
        powered = p ** (1 / temperature)
        mistakes = [
            (
                p**temperature / np.sum(p**temperature),
                "You raised p to the power T; the logits are divided by T, so p_i is raised to the power 1/T.",
            ),
            (powered, "Right shape of the change, but normalise: divide by the sum so that it is a distribution."),
            (
                softmax(p / temperature),
                "You treated the probabilities as logits. The logits are log p plus a "
                "constant (the same for every token, so it cancels): softmax(log p / T).",
            ),
            (
                p / temperature / np.sum(p / temperature),
                "Dividing the probabilities by T and renormalising gives p "
                "back: the temperature divides the logits, log p.",
            ),
            (
                np.log(p) / temperature,
                "That is the tempered logits; apply the softmax to turn them into a distribution.",
            ),
            (
                softmax(-np.log(p) / temperature),
                "You flipped the sign: the logits are +log p (plus a constant), so the "
                "most likely token stays the most likely at every T.",
            ),
        ]
        hint = known_mistake(got, [(w, h) for w, h in mistakes if not close(w, expected)])
        if hint is not None:
            return Feedback(name, False, [hint])
        return Feedback(
            name,
            False,
            [
                f"Not yet right at T = {temperature}. Recover the logits up to a constant, "
                "log p, divide by T, and apply a softmax."
            ],
        )
    return Feedback(
        name,
        True,
        [
            "p_i(T) is proportional to p_i^(1/T): at T = 0.5 the probabilities are squared and "
            "renormalised, so a token twice as likely at T = 1 becomes four times as likely."
        ],
    )


@exercise("the KV cache's memory per position")
def check_kv_cache_bytes(name, fn) -> Feedback:
    """Exercise: ``fn(n_layers, d_model, num_heads, bytes_per_number)`` = 2 n_layers d_model bytes_per_number."""
    cases = [(2, 64, 4, 4), (32, 4096, 32, 2), (12, 768, 12, 4), (1, 8, 2, 1)]
    got, problem = one_number_per_case(name, fn, cases, "bytes")
    if problem is not None:
        return problem
    layers, width, heads, size = (np.array(c, dtype=np.float64) for c in zip(*cases, strict=True))
    expected = 2 * layers * width * size
    if np.allclose(got, expected, rtol=1e-9):
        return Feedback(
            name,
            True,
            [
                "Per position and layer the cache holds one key and one value of every head: "
                "num_heads x d_k = d_model numbers each, so 2 n_layers d_model numbers in all. "
                "The number of heads does not matter; only their total width does."
            ],
        )
    variants = [
        (layers * width * size, "Keys only: the cache holds a value for every key too (factor 2)."),
        (
            2 * layers * width * heads * size,
            "Each head holds d_k = d_model / num_heads numbers per key, not d_model: together the heads hold d_model.",
        ),
        (2 * layers * width / heads * size, "That is one head; every head keeps its own keys and values."),
        (2 * width * size, "Every layer keeps its own keys and values: multiply by n_layers."),
        (2 * layers * width, "That is a count of numbers; multiply by bytes_per_number for bytes."),
        (4 * layers * width * size, "Queries are not cached: a past position's query is never used again."),
    ]
    for variant, hint in variants:
        if np.allclose(got, variant, rtol=1e-9):
            return Feedback(name, False, [hint])
    return Feedback(
        name,
        False,
        [
            "Count what one new position adds to the cache in one layer (its keys and values, "
            "over all heads), then multiply by the layers and by the bytes of one number."
        ],
    )


def cached_attention_reference(q, K_cache, V_cache, k_new, v_new):
    K, V = np.vstack([K_cache, k_new]), np.vstack([V_cache, v_new])  # (t + 1, d_k)
    return softmax(K @ q / math.sqrt(q.shape[0])) @ V, (K, V)


def _cached_inputs():
    rng = np.random.default_rng(80)
    q, k_new, v_new = rng.normal(size=(3, 4))  # (d_k,) each
    K_cache, V_cache = rng.normal(size=(2, 5, 4))  # t = 5 earlier positions
    k_new = k_new + 2 * q  # the new key scores high: forgetting it changes the output clearly
    return q, K_cache, V_cache, k_new, v_new


def cached_attention_mistakes(q, K_cache, V_cache, k_new, v_new) -> list:
    d_k = q.shape[0]
    K, V = np.vstack([K_cache, k_new]), np.vstack([V_cache, v_new])
    return [
        (
            softmax(K_cache @ q / math.sqrt(d_k)) @ V_cache,
            "The new position must also read itself: append k_new and v_new to the cache before attending.",
        ),
        (softmax(K @ q) @ V, "Scale the scores: divide q . k by sqrt(d_k)."),
        (
            softmax(K @ q / math.sqrt(d_k))[:-1] @ V_cache,
            "Use the weights over all t + 1 keys with all t + 1 values (V with v_new appended).",
        ),
        (
            softmax(K @ q / math.sqrt(d_k)) @ np.vstack([V_cache, k_new]),
            "You appended k_new to the values: append v_new.",
        ),
        (softmax(K @ q / d_k) @ V, "Divide by the square root of d_k, not by d_k."),
        (K @ q / math.sqrt(d_k) @ V, "Turn the scores into weights with a softmax first."),
    ]


@exercise("one attention step with a KV cache")
def check_cached_attention(name, fn) -> Feedback:
    """Exercise: ``fn(q, K_cache, V_cache, k_new, v_new)`` -> (output (d_k,), (K, V) each (t + 1, d_k))."""
    q, K_cache, V_cache, k_new, v_new = _cached_inputs()
    result, problem = run_student(name, fn, q.copy(), K_cache.copy(), V_cache.copy(), k_new.copy(), v_new.copy())
    if problem is not None:
        return problem
    if (
        not isinstance(result, tuple | list)
        or len(result) != 2
        or not isinstance(result[1], tuple | list)
        or len(result[1]) != 2
    ):
        return Feedback(
            name, False, ["Return two things: the output and the updated cache as a pair, `return out, (K, V)`."]
        )
    out, why = to_float_array(result[0], "Your output")
    if why is not None:
        return Feedback(name, False, [why])
    expected, (K, V) = cached_attention_reference(q, K_cache, V_cache, k_new, v_new)
    if not close(out, expected):
        if out.shape != expected.shape:
            return Feedback(
                name, False, [f"The output is one vector of width d_k: shape {expected.shape}, got {out.shape}."]
            )
        hint = known_mistake(out, cached_attention_mistakes(q, K_cache, V_cache, k_new, v_new))
        return Feedback(
            name,
            False,
            [
                hint
                or "Append k_new and v_new to the cache, score every key with "
                "q . k / sqrt(d_k), softmax, and average the values."
            ],
        )
    for got, old, new, want, what, new_name in (
        (result[1][0], K_cache, k_new, K, "K", "k_new"),
        (result[1][1], V_cache, v_new, V, "V", "v_new"),
    ):
        array, why = to_float_array(got, f"Your updated {what}")
        if why is not None:
            return Feedback(name, False, [why])
        if close(array, np.vstack([new, old])):
            return Feedback(
                name,
                False,
                [
                    f"The output is right, but put {new_name} *last* in the updated {what}: "
                    "the cache is in position order, and the next step appends after it."
                ],
            )
        if not close(array, want):
            return Feedback(
                name,
                False,
                [
                    f"The output is right, but the updated {what} must be the old one with "
                    f"{new_name} appended as a last row: shape {want.shape}, got {array.shape}."
                ],
            )
    return Feedback(
        name,
        True,
        [
            "One query, t + 1 keys and values, and nothing recomputed: the old rows of the "
            "cache are reused as they are, and the new ones are kept for the next step."
        ],
    )


MASK_OPTIONS = {"A": "none change", "B": "layer 1 keys stay, layer 2 keys change", "C": "every layer's keys change"}


@exercise("predict: which keys change without the causal mask")
def check_mask_and_cache_prediction(name, answer) -> Feedback:
    """Exercise (predict, then check): without the mask, appending a token changes which earlier keys?"""
    letter = answer.strip().rstrip(").").strip().upper() if isinstance(answer, str) else None
    if letter not in MASK_OPTIONS:
        shown = repr(answer) if len(repr(answer)) <= 40 else repr(answer)[:37] + "..."
        return Feedback(name, False, [f"Answer with one letter in quotes, one of 'A', 'B', 'C'; got {shown}."])
    if letter == "B":
        return Feedback(
            name,
            True,
            [
                "A first-layer key is computed from its own position's embedding (and position) "
                "alone, so it cannot change. Without the mask the first layer lets every "
                "position read the new token, so its outputs, and the second layer's keys "
                "computed from them, change. Run the next cell to see it."
            ],
        )
    hints = {
        "A": "That is what the causal mask guarantees. Without it, what does the first layer's output at an earlier "
        "position read?",
        "C": "Look at the first layer: its key at position j is W_k applied to position j's own embedding. Can "
        "anything appended later change it?",
    }
    return Feedback(name, False, [hints[letter]])
