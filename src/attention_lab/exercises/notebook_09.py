"""Exercise checks of notebook 09, generation and the KV cache (reference answers: ``solutions/notebook_09.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import _
from ..normalisers import softmax
from .answers import multiple_choice
from .feedback import Feedback, exercise, not_attempted, quiet, unanswered
from .runner import Case, Mistake, check_function, implement, raised, show

__all__ = [
    "check_top_p",
    "check_reheat",
    "check_kv_cache_bytes",
    "check_cached_step",
    "check_window_mask",
    "check_cross_attention_cache",
]


# --- exercise 1: top-p ---------------------------------------------------------------------------------------------


def _nucleus(probs, p_top, rule, descending=True):
    """The distribution kept by ``rule(mass_before, ranked, p_top)`` over the tokens sorted by probability
    (most likely first, ties to the smaller index), renormalised."""
    order = np.argsort(-probs if descending else probs, kind="stable")
    ranked = probs[order]
    keep = np.zeros(probs.size, dtype=bool)
    keep[order] = rule(np.cumsum(ranked) - ranked, ranked, p_top)
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum()


def top_p_reference(probs, p_top):
    return _nucleus(probs, p_top, lambda before, ranked, p: before < p)


# near-ties 0.25 - 1e-12 < 0.25 < 0.25 + 1e-12 at indices 1, 3, 4 (ranked by value, so against index order); exact
# ties in TIES, whose two largest have a mass of exactly 0.75 (binary fractions: no rounding); tiny entries in TINY
PROBS = np.array([0.05, 0.25 - 1e-12, 0.02, 0.25, 0.25 + 1e-12, 0.15, 0.03])
TIES = np.array([0.125, 0.375, 0.125, 0.375])
TINY = np.array([1 - 2e-300, 1e-300, 1e-300])
_TOP_P_FIX = '```\norder = np.argsort(-probs, kind="stable")\nranked = probs[order]\nkeep = np.zeros(probs.shape, bool)\nkeep[order] = np.cumsum(ranked) - ranked < p_top\nkept = np.where(keep, probs, 0.0)\nreturn kept / kept.sum()\n```'


def _same_keep(got, keep):
    return np.array_equal(np.asarray(got) > 0, keep)


def _top_count(probs, count):
    keep = np.zeros(probs.size, dtype=bool)
    keep[np.argsort(-probs, kind="stable")[:count]] = True
    return np.where(keep, probs, 0.0) / probs[keep].sum()


def _ties_broken_wrong(got, probs, p_top):
    """True when ``got`` keeps the right number of tokens, or one more, but not the smaller-index ones of a tie."""
    right = top_p_reference(probs, p_top) > 0
    kept = np.asarray(got) > 0
    return (
        not np.array_equal(kept, right)
        and kept.sum() in (right.sum(), right.sum() + 1)
        and np.all(np.isin(probs[kept], probs[right]))
    )


# fmt: off
check_top_p = implement("top-p (nucleus) filtering", [
    Case((PROBS, 0.6), "For probs [0.05, 0.25 - 1e-12, 0.02, 0.25, 0.25 + 1e-12, 0.15, 0.03] at p_top = 0.6"),
    Case((PROBS, 0.3), "For the same probs at p_top = 0.3 (near-ties: 0.25 - 1e-12, 0.25, 0.25 + 1e-12)"),
    Case((PROBS, 0.5), "For the same probs at p_top = 0.5 (the mass before the third token is a hair above 0.5)"),
    Case((TIES, 0.25), "For probs [0.125, 0.375, 0.125, 0.375] at p_top = 0.25 (a tie at the top)"),
    Case((TIES, 0.75), "For the same probs at p_top = 0.75 (the two 0.375s reach 0.75 exactly)"),
    Case((TIES, 0.8), "For the same probs at p_top = 0.8 (the third token breaks a tie)"),
    Case((TINY, 0.999), "For probs [1 - 2e-300, 1e-300, 1e-300] at p_top = 0.999 (tiny entries)"),
    Case((PROBS, 1.0), "At p_top = 1"),
    Case((np.array([0.2, 0.7, 0.1]), 1.0), "For probs [0.2, 0.7, 0.1] at p_top = 1"),
], top_p_reference, [
    Mistake(wrong=lambda probs, p: _nucleus(probs, p, lambda before, ranked, q: before + ranked <= q), says="{where} you keep one token too few: the token whose probability makes the running sum reach p_top is dropped, so the kept mass is below p_top. Is the token that crosses p_top inside the nucleus?", hint="Decide for each token from the mass of the tokens *before* it in the ranking, not including it."),
    Mistake(wrong=lambda probs, p: _nucleus(probs, p, lambda before, ranked, q: before + ranked < q), says="{where} you keep one token too few: a token is kept only while the running sum, its own probability included, stays below p_top. Which token makes the mass reach p_top, and is it kept?", hint="Decide for each token from the mass of the tokens *before* it in the ranking, not including it."),
    Mistake(wrong=lambda probs, p: _nucleus(probs, p, lambda before, ranked, q: before <= q), says="{where} you keep one token too many: when the running sum reaches p_top exactly, the next token is kept too. Once the kept mass is at least p_top, is another token needed?", hint="The nucleus is the fewest tokens whose mass is at least p_top: compare the mass before a token with p_top strictly."),
    Mistake(
        "{where} yours is {got}: it drops tokens that p_top = 1 keeps. In floating point 0.7 + 0.2 + 0.1 is 0.9999999999999999, so the running sum never reaches 1: what does your code keep when no token makes the sum reach p_top?", hint="np.argmax of an all-False array is 0. p_top = 1 keeps every token with nonzero probability: decide from the mass *before* each token, which stays below 1.",
        when=lambda got, probs, p: (
            np.cumsum(-np.sort(-probs))[-1] < p and (np.asarray(got) > 0).sum() < (probs > 0).sum()
        ),
    ),
    Mistake(wrong=lambda probs, p: np.where(top_p_reference(probs, p) > 0, probs, 0.0), says="{where} the tokens kept are right, but the result sums to less than 1. What must a distribution sum to?", hint="Divide by the kept mass."),
    Mistake(wrong=lambda probs, p: _nucleus(probs, p, lambda before, ranked, q: before < q, descending=False), says="{where} you summed from the least likely token up. From which end does the nucleus start?", hint="The nucleus holds the most likely tokens."),
    Mistake(wrong=lambda probs, p: np.sort(top_p_reference(probs, p))[::-1], says="{where} the kept probabilities are right but in sorted order, most likely first. Where does each probability belong in the result?", hint="The result is indexed like probs: token i's probability at index i."),
    Mistake(when=lambda got, probs, p: _same_keep(got, probs >= p) and not _same_keep(got, top_p_reference(probs, p) > 0), says="{where} you keep the tokens whose own probability is at least p_top. What decides the nucleus: each token's probability, or the mass of the most likely tokens together?", hint="Rank the tokens, then add up their probabilities in that order."),
    Mistake(wrong=lambda probs, p: _top_count(probs, max(1, int(round(p * probs.size)))), says="{where} you keep a fixed share p_top of the tokens (a top-k with k = p_top n). How many tokens does top-p keep?", hint="As many as it takes for their mass to reach p_top: it depends on the probabilities."),
    Mistake(when=lambda got, probs, p: _ties_broken_wrong(got, probs, p), says="{where} two tokens tie, and yours keeps the later one (or both). The exercise's rule sends ties to the smaller index: which of the tied tokens comes first in the ranking?", hint="A stable sort keeps tied tokens in index order; np.argsort(probs)[::-1] reverses them."),
], shape="one probability per token",
    otherwise=Mistake("{where} your result is {got}: not the nucleus renormalised, and not one of the usual slips. Which tokens does yours keep, and what is the mass of the ones before the last kept token?", "Rank the tokens by probability (ties to the smaller index), add up the probabilities in that order, and keep a token while the mass before it is below p_top."),
    success="The nucleus: the most likely tokens until their mass reaches p_top, the crossing token included, ties to the smaller index (checked at a tie, a near-tie, tiny entries and p_top = 1).",
    fix=_TOP_P_FIX,
    doc="Exercise: ``fn(probs, p_top)`` -> the distribution restricted to the nucleus (the fewest most likely tokens whose mass reaches p_top, the crossing token kept, ties to the smaller index), renormalised.")
# fmt: on


# --- exercise 2: from T = 1 to any T ----------------------------------------------------------------------------


def reheat_reference(p, temperature):
    return softmax(np.log(p), temperature)


P_REHEAT = np.array([0.5, 0.25, 0.125, 0.0625, 0.0625])
_REHEAT_FIX = "```\nz = np.log(p) / temperature\ne = np.exp(z - z.max())\nreturn e / e.sum()\n```"


# fmt: off
check_reheat = implement("from the distribution at T = 1 to any T", [
    Case((P_REHEAT, 0.5), "For p = [0.5, 0.25, 0.125, 0.0625, 0.0625] at T = 0.5"),
    Case((P_REHEAT, 2.0), "At T = 2"),
    Case((P_REHEAT, 1.0), "At T = 1"),
    Case((np.array([0.4, 0.4, 0.2]), 0.25), "For p = [0.4, 0.4, 0.2] (a tie) at T = 0.25"),
    Case((np.array([0.999, 1e-200, 1e-3 - 1e-200]), 5.0), "For p = [0.999, 1e-200, 0.001] at T = 5"),
    Case((P_REHEAT, 0.0005), "At T = 0.0005 (where 0.5^(1/T) underflows to 0)"),
], reheat_reference, [
    Mistake(wrong=lambda p, t: p**t / np.sum(p**t), says="{where} you raised p to the power T. The temperature divides the logits: what power of p does that give?", hint="softmax(alpha / T) is proportional to exp(alpha)^(1/T)."),
    Mistake(wrong=lambda p, t: p ** (1 / t), says="{where} your result does not sum to 1 (it is {got}). What turns the tempered weights into a distribution?", hint="Every distribution here sums to 1."),
    Mistake(wrong=lambda p, t: softmax(p / t), says="{where} you used the probabilities as logits. What are the logits of p, up to a constant that cancels?", hint="softmax(alpha) = p: take the log of both sides."),
    Mistake(wrong=lambda p, t: p / t / np.sum(p / t), says="{where} you divided the probabilities by T and renormalised, which gives p back at every T. What does the temperature divide?", hint="The temperature acts on the logits, before the exponential."),
    Mistake(wrong=lambda p, t: np.log(p) / t, says="{where} those are the tempered logits, not a distribution (they are negative). What is left to do?", hint="Logits become probabilities through a softmax."),
    Mistake(wrong=lambda p, t: softmax(-np.log(p) / t), says="{where} the most likely token became the least likely: the sign of the logits is flipped. Is log p, up to a constant, the logit or minus the logit?", hint="A larger logit means a larger probability."),
], shape="one probability per token",
    not_finite=Mistake("{where} your result has NaN or inf. At this temperature, does any number in your computation underflow to 0 or overflow before you normalise?", "0.5^(1/0.0005) = 0.5^2000 is below the smallest float: a power of p, then a sum, gives 0 / 0. Work with the logits log p / T and subtract their maximum before exp, as 01's softmax does."),
    otherwise=Mistake("{where} your result is {got}, not the distribution at this temperature. At T = 1, do you get p back?", "Recover logits from p (up to a constant), apply the temperature, then a softmax."),
    success="p_i(T) is proportional to p_i^(1/T), computed from the logits log p / T with the maximum subtracted: at T = 0.5 a token twice as likely becomes four times as likely, and even T = 0.0005 does not underflow.",
    fix=_REHEAT_FIX,
    doc="Exercise: ``fn(p, temperature)`` -> softmax(log p / T) = p^(1/T) / sum p^(1/T), for T from 0.0005 to 5.")
# fmt: on


# --- exercise 4: the cache's memory -----------------------------------------------------------------------------


def kv_cache_bytes_reference(n_layers, d_model, num_heads, bytes_per_number):
    return 2.0 * n_layers * d_model * bytes_per_number


# fmt: off
check_kv_cache_bytes = implement("the KV cache's memory per position", [
    Case((3, 64, 8, 4), "For 3 layers, d_model = 64, 8 heads, 4 bytes per number"),
    Case((32, 4096, 32, 2), "For 32 layers, d_model = 4096, 32 heads, 2 bytes per number"),
    Case((1, 8, 2, 1), "For 1 layer, d_model = 8, 2 heads, 1 byte per number"),
], kv_cache_bytes_reference, [
    Mistake.of(lambda n, d, h, b: n * d * b, "{where} you counted the keys only. What else does attention need of every past position?", "The output is a weighted sum of values."),
    Mistake.of(lambda n, d, h, b: 2 * n * d * h * b, "{where} your count grows with the number of heads. How many numbers does one head keep per key, and how many do all heads keep together?", "d_k = d_model / num_heads."),
    Mistake.of(lambda n, d, h, b: 2 * n * d / h * b, "{where} that is one head's share. Does every head keep its own keys and values?", "The heads together are d_model wide."),
    Mistake.of(lambda n, d, h, b: 2 * d * b, "{where} that is one layer's cache. Does each layer attend to its own keys?", "Each layer projects its own input to keys and values."),
    Mistake.of(lambda n, d, h, b: 2 * n * d, "{where} that is a count of numbers, not bytes. How large is one number?", "bytes_per_number is 4 for float32, 2 for 16-bit numbers."),
    Mistake.of(lambda n, d, h, b: 3 * n * d * b, "{where} you cached queries too. Is a past position's query ever used again?", "A query is used once, when its own position is computed."),
], otherwise=Mistake("{where} your formula gives {got} bytes. What does one new position add to the cache of one layer?", "Count per layer, then multiply by the layers and by the bytes of one number."),
    success="Per position and layer the cache holds one key and one value of every head: num_heads x d_k = d_model numbers each, 2 n_layers d_model numbers in all. The number of heads does not matter; their total width does.",
    fix="```\nreturn 2 * n_layers * d_model * bytes_per_number\n```",
    doc="Exercise: ``fn(n_layers, d_model, num_heads, bytes_per_number)`` = 2 n_layers d_model bytes_per_number.")
# fmt: on


# --- exercise 3: the cached attention step -------------------------------------------------------------------------


def cached_step_reference(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])  # (t + 1, d_k), (t + 1, d_v): the new position appended
    return softmax(K @ q / np.sqrt(len(q))) @ V, K, V  # (d_v,): the new query reads every cached position


def causal_attention(Q, K, V):
    """The full causal pass: every position at once, each reading itself and the positions before it."""
    n = len(Q)
    scores = np.where(np.tri(n, dtype=bool), Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)  # (n, n), j <= i only
    return softmax(scores) @ V  # (n, d_v)


def _cached_run(step, Q, K, V):
    """Run ``step`` from an empty cache over the sequence, one position at a time: the outputs, (n, d_v)."""
    K_cache, V_cache, outs = np.zeros((0, K.shape[1])), np.zeros((0, V.shape[1])), []
    for t in range(len(Q)):
        out, K_cache, V_cache = step(Q[t], K[t], V[t], K_cache, V_cache)
        outs.append(np.asarray(out, dtype=float))
    return np.stack(outs)


def _wrong_step(out_of):
    """A cached step that appends correctly but computes its output with ``out_of(q, k, v, K, V)``."""
    return lambda q, k, v, Kc, Vc: (out_of(q, k, v, np.vstack([Kc, k]), np.vstack([Vc, v])), np.vstack([Kc, k]), np.vstack([Vc, v]))  # fmt: skip


def _as_run(out_of):
    return lambda Q, K, V: _cached_run(_wrong_step(out_of), Q, K, V)


def _cached_cases():
    rng = np.random.default_rng(90)
    Q, K, V = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))  # n = 6, d_k = 4, d_v = 3
    Q16, K16 = rng.normal(size=(6, 16)), rng.normal(size=(6, 16))
    return [
        Case((Q, K, V), "Run from an empty cache over 6 positions (d_k = 4, d_v = 3),"),
        Case((Q16, K16, V), "With d_k = 16,"),
        Case((30 * Q, 30 * K, V), "For huge scores (queries and keys 30 times as large),"),
    ]


_CACHE_FIX = "```\nK = np.vstack([K_cache, k])\nV = np.vstack([V_cache, v])\nweights = al.softmax(K @ q / np.sqrt(len(q)))\nreturn weights @ V, K, V\n```"
_APPEND = "The cache grows by one row per step: np.vstack([K_cache, k]), and the same for the values."


def _cache_problem(fn, Q, K, V) -> str | None:
    """What is wrong with the caches ``fn`` returns, run from an empty cache: None if they are the keys and values."""
    K_cache, V_cache = np.zeros((0, K.shape[1])), np.zeros((0, V.shape[1]))
    for t in range(len(Q)):
        result = fn(Q[t], K[t], V[t], K_cache, V_cache)
        if not isinstance(result, tuple) or len(result) != 3:
            return _("Your step returns {got}; it returns three things: the output of the new position, then the key cache and the value cache with the new position appended.").format(got=show(result))  # fmt: skip
        _out, K_cache, V_cache = (np.asarray(r, dtype=float) for r in result)
        for name, cache, rows in ((_("key"), K_cache, K[: t + 1]), (_("value"), V_cache, V[: t + 1])):
            if cache.ndim != 2:
                return _("After step {step} your {name} cache has shape {got}; it should hold one row per position so far, {want}. Along which axis do you stack?").format(step=t + 1, name=name, got=cache.shape, want=rows.shape)  # fmt: skip
            if len(cache) <= t:
                return _("After step {step} your {name} cache holds {got} rows, no more than before the step: the new position is not appended. What must the next step find in the cache?").format(step=t + 1, name=name, got=len(cache))  # fmt: skip
            if len(cache) > t + 1:
                return _("After step {step} your {name} cache holds {got} rows, more than the {step} positions seen so far: the new position is appended more than once. How many rows does one position add?").format(step=t + 1, name=name, got=len(cache))  # fmt: skip
            if cache.shape != rows.shape:
                return _("After step {step} your {name} cache has shape {got}; it should hold one row per position so far, {want}. Along which axis do you stack?").format(step=t + 1, name=name, got=cache.shape, want=rows.shape)  # fmt: skip
            if not np.allclose(cache, rows):
                return _("After step {step} your {name} cache holds the right number of rows but not the {name}s of positions 1 to {step} in order. Where does the new row go?").format(step=t + 1, name=name)  # fmt: skip
    return None


@exercise("the cached attention step")
def check_cached_step(title, fn) -> Feedback:
    """Exercise: ``fn(q, k, v, K_cache, V_cache)`` returns (out, K, V): the new position's output, reading the
    cache with its own key and value appended, and the two grown caches. Run from an empty cache over a sequence,
    its outputs must equal the full causal pass."""
    if unanswered(fn):
        return not_attempted(title)
    if not callable(fn):
        return Feedback(title, False, _("Pass your function itself (its name, no parentheses); got {got}.").format(got=show(fn)))  # fmt: skip
    Q, K, V = _cached_cases()[0].args
    try:
        with quiet():
            first = fn(Q[0], K[0], V[0], np.zeros((0, 4)), np.zeros((0, 3)))
            if unanswered(first):
                return Feedback(title, False, _("Your function returned None: replace the `...` with your code, and end it with `return`."), attempted=False)  # fmt: skip
            problem = _cache_problem(fn, Q, K, V)
    except Exception as error:  # noqa: BLE001 - the student's step, in words
        return Feedback(title, False, _("Your function raised {error} when it was run from an empty cache (K_cache of shape (0, 4), V_cache (0, 3)), then fed its own caches back, one position at a time. What does that line get?").format(error=raised(error)), hint=_APPEND, fix=_CACHE_FIX)  # fmt: skip
    if problem is not None:
        return Feedback(title, False, problem, hint=_APPEND, fix=_CACHE_FIX)
    # fmt: off
    return check_function(title, lambda Q, K, V: _cached_run(fn, Q, K, V), _cached_cases(), causal_attention, [
        Mistake(wrong=_as_run(lambda q, k, v, K, V: v), says="{where} each position's output is its own new value v: the step returned v instead of reading the cache. What does the new query do with the keys and values of the positions before it?", hint="The output is a weighted average of every cached value, the new one included."),
        Mistake(wrong=lambda Q, K, V: _cached_run(lambda q, k, v, Kc, Vc: (softmax(np.vstack([Kc, k, k]) @ q / np.sqrt(len(q))) @ np.vstack([Vc, v, v]), np.vstack([Kc, k]), np.vstack([Vc, v])), Q, K, V), says="{where} the new position is read twice: its key and value were appended to a cache that already held them. How many times should each position appear among the keys the query reads?", hint="Append the new key and value once, then read the appended cache."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K @ q) @ V), says="{where} the scores are not scaled. By what does scaled dot-product attention divide q . k?", hint="sqrt(d_k), the width of the queries and keys: len(q)."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K @ q / len(q)) @ V), says="{where} you divided the scores by d_k itself. Which number is the standard deviation of q . k?", hint="sqrt(d_k)."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K @ q / np.sqrt(len(K))) @ V), says="{where} you divided by the square root of the number of cached positions, not of the width. Whose size sets the scale of q . k?", hint="sqrt(d_k) = sqrt(len(q)), the same at every step."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax((K @ q / np.sqrt(len(q)))[:, None], axis=1)[:, 0] @ V), says="{where} every weight is 1, so the output is the sum of the values: the softmax ran over an axis of length 1. Over what must the new query's weights sum to 1?", hint="One weight per cached position, normalised over the positions."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K @ k / np.sqrt(len(q))) @ V), says="{where} the scores compare the cached keys with the new key k, not with the new query q. Which vector asks?", hint="The query asks, the keys answer: K @ q."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K @ q / np.sqrt(len(q))) @ K), says="{where} the weights average the keys, not the values. What does attention return?", hint="weights @ V."),
        Mistake(wrong=_as_run(lambda q, k, v, K, V: softmax(K[:-1] @ q / np.sqrt(len(q))) @ V[:-1] if len(K) > 1 else v), says="{where} the new position reads only the positions before it, not itself. In the causal mask, may position i read key i?", hint="j <= i: the new key and value are appended before the query reads the cache."),
    ],
        shape="one output per position: (n, d_v)",
        not_finite=Mistake("{where} your outputs have NaN or inf: does the first step, with an empty cache, read anything? Do the scores overflow exp?", "Append first, so that the cache is never empty when it is read; subtract the largest score before exp."),
        otherwise=Mistake("{where} your outputs differ from the full causal pass, and not by one of the usual slips. At which step do they first differ, and what did your step read there?", "At step t the new query reads the t keys and values of positions 1 to t, scaled by sqrt(d_k), through one softmax."),
        success="Step by step, from an empty cache, your outputs are the full causal pass: the new query reads every cached key, its own included, and nothing is computed twice. That is what CharTransformer.step does in every layer and head.",
        fix=_CACHE_FIX)
    # fmt: on


# --- exercise 5: a model change, sliding-window attention ---------------------------------------------------------


def window_mask_reference(n, window):
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j, (n, n)
    return ((offset >= 0) & (offset < window)).astype(float)  # query i reads keys i - window + 1, ..., i


def _band(n, low, high):  # True where low <= i - j <= high
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]
    return ((offset >= low) & (offset <= high)).astype(float)


_WINDOW_FIX = "```\noffset = np.arange(n)[:, None] - np.arange(n)[None, :]   # i - j, (n, n)\nreturn (offset >= 0) & (offset < window)\n```"


@exercise("a sliding-window mask (a model change)")
def check_window_mask(title, fn) -> Feedback:
    """Exercise: ``fn(n, window)`` -> the (n, n) mask, True where query i may read key j: i - window < j <= i
    (window >= 1, so the diagonal keeps every row from being fully masked; a window >= n is the causal mask)."""

    def as_numbers(n, window):  # booleans (or 0/1) as numbers, for the comparison
        out = fn(n, window)
        return out if out is None else np.asarray(out.numpy() if hasattr(out, "numpy") else out, dtype=float)

    # fmt: off
    return check_function(title, as_numbers, [
        Case((5, 2), "For n = 5 and a window of 2"),
        Case((6, 3), "For n = 6 and a window of 3"),
        Case((5, 1), "For a window of 1 (each position reads itself only)"),
        Case((4, 4), "For a window as long as the sequence"),
        Case((3, 8), "For a window longer than the sequence (n = 3, window 8)"),
        Case((1, 2), "For a sequence of one position"),
    ], window_mask_reference, [
        Mistake(wrong=lambda n, w: _band(n, 0, w), says="{where} each query reads one key too many: window + 1 keys, from i - window to i. With a window of 1, which keys may query i read?", hint="A window of w keys ending at i: i - w + 1, ..., i."),
        Mistake(wrong=lambda n, w: _band(n, -(w - 1), w - 1), says="{where} query i reads keys on both sides of it, later positions included. What may a position of a language model never read?", hint="The window is the causal mask with the far past cut off."),
        Mistake(wrong=lambda n, w: _band(n, -(w - 1), 0), says="{where} query i reads keys i, ..., i + window - 1: the window points into the future. Which way is the past along a row of the (query, key) mask?", hint="Rows are queries i, columns keys j; the past is j < i."),
        Mistake(wrong=lambda n, w: _band(n, 0, n), says="{where} yours is the plain causal mask: the window does not limit anything. Which keys should fall out of query i's reach?", hint="Keys more than window - 1 positions back are masked too."),
        Mistake(wrong=lambda n, w: _band(n, 1, w), says="{where} query i does not read its own key. Does the window include the query's own position?", hint="The causal mask allows j <= i, the diagonal included; so does the window."),
        Mistake(wrong=lambda n, w: 1.0 - window_mask_reference(n, w), says="{where} yours marks the keys a query may NOT read. In this course, what does True mean in a mask (notebook 07)?", hint="True = may attend, the library's convention (PyTorch's nn.Transformer masks use the opposite)."),
        Mistake(when=lambda got, n, w: np.allclose(got, np.tril(np.ones((n, n))) * (np.arange(n)[None, :] >= n - w)), says="{where} yours lets query i read only the last window keys of the whole sequence, the same for every query. Where does each query's window end?", hint="The window slides with the query: it ends at key i."),
    ], shape="one row per query, one column per key",
        not_finite=Mistake("{where} your mask holds -inf (or NaN): that is PyTorch's additive float mask. Which kind of mask does the course's attention take?", "A boolean mask, True = may attend."),
        otherwise=Mistake("{where} your mask is {got}. For query i (row i), which keys j should be True?", "Write the condition on the offset i - j: not negative (causal) and below the window."),
        success="Query i reads keys i - window + 1, ..., i: the causal mask with the far past cut off (Longformer's and Mistral's sliding window). Each layer reaches window - 1 positions back, so a stack of layers still sees further (07's exercise 2), and the cache needs only the last window positions of each layer.",
        fix=_WINDOW_FIX)
    # fmt: on


# --- exercise 6: which keys can an encoder-decoder keep? ------------------------------------------------------------

# fmt: off
check_cross_attention_cache = multiple_choice("predict: which keys an encoder-decoder keeps while it writes", {
    "A": "What in a decoder position's self-attention key depends on later output tokens, under the causal mask?",
    "B": "The cross-attention query changes at every step; do its keys? What are they computed from?",
    "C": "",
    "D": "Under the causal mask, does a past decoder position's self-attention key change when a token is appended?",
}, "C",
    success="The decoder's self-attention is causal, so its keys and values of past positions never change: they are cached and grow by one row per step. The cross-attention keys and values are W_k E and W_v E, computed from the encoder's output E, which does not change while the decoder writes: they are computed once, before the first step, and only the query is new at each step.",
    hint="Write down what each key is computed from: a decoder state at a past position, or the encoder's output.", fix="C: self-attention keys and values of past positions are cached (causal mask), the cross-attention ones come from the fixed encoder output and are computed once.",
    doc="Exercise (predict, then check): A every key recomputed at each step; B self-attention keys kept, cross-attention keys recomputed; C self-attention keys kept and cross-attention keys computed once; D only the cross-attention keys kept.")
# fmt: on
