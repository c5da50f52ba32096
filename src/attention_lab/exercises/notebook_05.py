"""Exercise checks of notebook 05, scoring functions and masking (reference answers: ``solutions/notebook_05.py``)."""

from __future__ import annotations

import numpy as np

from ..i18n import N_, _
from ..normalisers import entropy, softmax
from .answers import read_number
from .feedback import Feedback, exercise
from .runner import Case, Mistake, check_function, implement

__all__ = ["check_additive_scores", "check_padded_attention", "check_unscaled_entropy", "check_query_jacobian"]


def additive_reference(Q, K, W_q, W_k, w_v):
    return np.array([[w_v @ np.tanh(W_q @ q + W_k @ k) for k in K] for q in Q])  # (n_q, n_k), pair by pair


def _both(Q, K, W_q, W_k):
    return (Q @ W_q.T)[:, None, :] + (K @ W_k.T)[None, :, :]  # (n_q, n_k, d_h)


_ADD_FIX = "```\nhidden = (Q @ W_q.T)[:, None, :] + (K @ W_k.T)[None, :, :]   # (n_q, n_k, d_h)\nreturn np.tanh(hidden) @ w_v                                  # (n_q, n_k)\n```"


def _additive_cases():
    rng, cases = np.random.default_rng(11), []
    for (n_q, n_k, d_q, d_k, d_h), scale in (
        ((3, 3, 2, 2, 4), 1.0),
        ((2, 5, 3, 2, 6), 1.0),
        ((2, 5, 3, 2, 6), 100.0),
        ((2, 5, 3, 2, 6), 1e-4),
    ):
        Q, K = scale * rng.normal(size=(n_q, d_q)), rng.normal(size=(n_k, d_k))
        W_q, W_k, w_v = rng.normal(size=(d_h, d_q)), rng.normal(size=(d_h, d_k)), rng.normal(size=d_h)
        where = _("With {n_q} queries of size {d_q}, {n_k} keys of size {d_k}, d_h = {d_h} hidden units") if scale == 1 else _("With {n_q} queries of size {d_q}, {n_k} keys of size {d_k}, d_h = {d_h} hidden units and queries scaled by {scale:g}")  # fmt: skip
        cases.append(
            Case((Q, K, W_q, W_k, w_v), where.format(n_q=n_q, d_q=d_q, n_k=n_k, d_k=d_k, d_h=d_h, scale=scale))
        )
    return cases


# fmt: off
check_additive_scores = implement("additive scores for every pair at once", _additive_cases, additive_reference, [
    Mistake(wrong=lambda Q, K, W_q, W_k, w_v: (np.tanh(Q @ W_q.T) @ w_v)[:, None] + (np.tanh(K @ W_k.T) @ w_v)[None, :], says="{where} You took a tanh of each part, tanh(W_q q) + tanh(W_k k): the score is then a query term plus a key term. What does the softmax over the keys do to a term that depends on the query only?", hint="The tanh must act on the sum W_q q + W_k k: that is where query and key interact."),
    Mistake(wrong=lambda Q, K, W_q, W_k, w_v: _both(Q, K, W_q, W_k) @ w_v, says="{where} There is no tanh: w_v^T (W_q q + W_k k) is a query term plus a key term. What happens to the query term in the softmax?", hint="The tanh of the sum is what lets them interact."),
    Mistake(wrong=lambda Q, K, W_q, W_k, w_v: np.tanh(_both(Q, K, W_q, W_k) @ w_v), says="{where} the tanh comes before w_v in w_v^T tanh(W_q q + W_k k). Where is yours?", hint="tanh of each hidden unit, then the weighted sum with w_v."),
    Mistake(wrong=lambda Q, K, W_q, W_k, w_v: np.tanh(_both(Q, K, W_q, W_k)).sum(-1), says="{where} You summed the hidden units. How does w_v weight them?", hint="w_v^T tanh(...) is a dot product."),
    Mistake(when=lambda got, Q, K, W_q, W_k, w_v: Q.shape[1] == K.shape[1] and np.allclose(got, additive_reference(Q, K, W_k, W_q, w_v)), says="{where} W_q and W_k are swapped. Which one projects the queries?", hint="W_q has d_q columns."),
    Mistake(when=lambda got, Q, K, *w: got.shape == (len(K), len(Q)) and np.allclose(got.T, additive_reference(Q, K, *w)), any_shape=True, says="{where} Your scores are transposed. Which go on the rows, queries or keys?", hint="(n_q, n_k)."),
    Mistake(when=lambda got, Q, *a: got.shape == (len(Q),), any_shape=True, says="{where} One score per query: you added query i's projection to key i's only. How can broadcasting form every pair (query, key)?", hint="Give the two projections axes (n_q, 1, d_h) and (1, n_k, d_h)."),
    Mistake(when=lambda got, Q, K, W_q, *a: got.shape == (len(Q), len(K), len(W_q)), any_shape=True, says="{where} The hidden axis is still there: what turns the d_h hidden units of a pair into one score?", hint="The dot product with w_v."),
],
    shape="one score per query and key, queries on the rows: (n_q, n_k)",
    otherwise=Mistake("{where} your scores are not w_v^T tanh(W_q q + W_k k). Which is the first of the projected queries, projected keys, their pairwise sums, the tanh to differ?", "Project the queries and the keys once each, add every pair by broadcasting, tanh, then the dot product with w_v over the last axis."),
    success="The right scores w_v^T tanh(W_q q + W_k k) for every pair, queries on the rows, in two cases (as many queries as keys, and not) and for huge and tiny queries. A tanh of each part would give a query term plus a key term; the query term cancels in the softmax, so every query would get the same weights.",
    fix=_ADD_FIX,
    doc="Exercise: ``fn(Q, K, W_q, W_k, w_v)`` returns the (n_q, n_k) additive scores w_v^T tanh(W_q q + W_k k). Case 1 has n_q = n_k and d_q = d_k (swapped projections and query i paired with key i only still run), case 2 n_q != n_k and d_q != d_k (a transposed result shows); then huge and tiny inputs.")
# fmt: on


def padded_attention(queries, keys, values, valid_lens):
    """The reference: scaled dot-product attention over the first valid_lens keys of each sequence of the batch."""
    mask = np.arange(keys.shape[1])[None, None, :] < np.asarray(valid_lens)[:, None, None]  # (batch, 1, n_k)
    scores = queries @ keys.transpose(0, 2, 1) / np.sqrt(queries.shape[-1])  # (batch, n_q, n_k)
    return softmax(scores, mask=mask) @ values  # (batch, n_q, d_v); a sequence with no valid key gives zeros


def _masks(keys, valid_lens, offset=0, first_only=False, on_queries=False, n_q=None, flip=False):
    lens = np.asarray(valid_lens)
    lens = np.full_like(lens, lens[0]) if first_only else lens
    n = n_q if on_queries else keys.shape[1]
    mask = (np.arange(n)[None, :] < lens[:, None] + offset) != flip  # (batch, n)
    return mask[:, :, None] if on_queries else mask[:, None, :]


def _attend(q, k, v, lens, scale=None, fill=None, axis=-1, **mask_args):
    """Padded attention with one slip: another scale, a finite fill, the softmax over another axis, another mask."""
    scores = q @ k.transpose(0, 2, 1) / (np.sqrt(q.shape[-1]) if scale is None else scale)
    mask = np.broadcast_to(_masks(k, lens, n_q=q.shape[1], **mask_args), scores.shape)
    if fill is not None:
        return softmax(np.where(mask, scores, fill), axis=axis) @ v
    return softmax(scores, mask=mask, axis=axis) @ v


def _weights_after(q, k, v, lens, renormalise=False):  # the softmax over all keys, the padding zeroed afterwards
    w = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])) * _masks(k, lens)
    if renormalise:
        w = w / np.where(w.sum(-1, keepdims=True) > 0, w.sum(-1, keepdims=True), 1.0)
    return w @ v


def _padded_cases():
    rng = np.random.default_rng(50)
    q, k, v = rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 3))
    lens = np.array([2, 4, 1])
    big_q, big_k = rng.normal(size=(2, 3, 16)), rng.normal(size=(2, 5, 16))
    big_q[..., 0], big_k[:, 3:] = 5.0, 0.0
    big_k[:, 3:, 0] = 1000.0  # the padding keys score 1250, far higher than any real key
    return [
        Case((q, k, v, lens), "For 3 sequences of 4 keys (d = 2) with valid lengths [2, 4, 1],"),
        Case((q, k, v, np.array([3, 0, 4])), "With valid lengths [3, 0, 4] (sequence 1 has no valid key),"),
        Case(
            (big_q, big_k, rng.normal(size=(2, 5, 3)), np.array([3, 2])),
            "For 3 queries and 5 keys of d = 16, whose padding keys score in the thousands,",
        ),  # fmt: skip
        Case((q * 1e-4, k, v, lens), "For tiny scores (queries 10^-4 as large),"),
        Case((q * 300, k, v, lens), "For huge scores (queries 300 times as large),"),
    ]


_PADDED_FIX = "```\nmask = np.arange(keys.shape[1])[None, None, :] < valid_lens[:, None, None]   # (batch, 1, n_k)\nscores = queries @ keys.transpose(0, 2, 1) / np.sqrt(queries.shape[-1])      # (batch, n_q, n_k)\nreturn al.softmax(scores, mask=mask) @ values\n```"


# fmt: off
check_padded_attention = implement("attention over padded sequences", _padded_cases, padded_attention, [
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, np.full_like(lens, k.shape[1])), says="{where} your output is the same as with no mask at all: the padding keys take part. Which keys must a query never read?", hint="Key j of a sequence is real when j is below that sequence's entry of valid_lens; the rest must get a weight of exactly 0."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, flip=True), says="{where} your queries read only the padding keys, and a sequence whose keys are all valid reads nothing: your mask is True on the padding. In this course, what does True mean in a mask (section 4)?", hint="True = may attend, as in the library: the real keys, j below the sequence's valid length, are the True ones."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, on_queries=True), says="{where} your mask hides queries, not keys: a padding query still reads padding keys, and a real query reads them too. Which axis of the (batch, n_q, n_k) scores holds the keys?", hint="A padding mask of shape (batch, 1, n_k) broadcasts over the queries (section 4)."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, offset=1), says="{where} one key too many takes part in each sequence: with valid length L, which positions are the real keys, counting from 0?", hint="Positions 0, ..., L - 1: L keys."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, first_only=True), says="{where} every sequence is masked with the first sequence's length. Which length belongs to each sequence?", hint="valid_lens has one entry per sequence; the mask needs one row per sequence."),
    Mistake(wrong=lambda q, k, v, lens: _weights_after(q, k, v, lens), says="{where} the padding keys get weight 0, but the weights of the real keys no longer sum to 1: the softmax ran over every key and the padding was removed afterwards. Over which keys should it normalise?", hint="Mask before the softmax, so that it normalises over the real keys only."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, fill=0.0), says="{where} the masked scores were set to 0, not removed: exp(0) = 1 still gives each padding key a weight. What score gets a weight of exactly 0?", hint="exp(s) is 0 only in the limit s -> -inf."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, fill=-1e9), says="{where} the sequence with no valid key gets the average of its padding values: a large finite fill such as -10^9 makes all its scores tie. In this course such a row gets no weight at all: what output does a query with nothing to read get then?", hint="Section 4: a fully masked row gets all-zero weights and a zero output."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, axis=1), says="{where} your weights are normalised over the queries, not over the keys: each query's weights should sum to 1 over the keys it reads. Along which axis of the (batch, n_q, n_k) scores?", hint="The keys are the last axis of the scores."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, scale=1.0), says="{where} your scores are not scaled: scaled dot-product attention divides q . k by a number that depends on d. Which one (section 2)?", hint="The scores' variance grows like d."),
    Mistake(wrong=lambda q, k, v, lens: _attend(q, k, v, lens, scale=q.shape[-1]), says="{where} you divided the scores by d; section 2's argument gives another power of d. Which?", hint="The standard deviation of q . k is sqrt(d)."),
],
    shape="one output per query: (batch, n_q, d_v)",
    not_finite=Mistake("{where} your output has NaN or inf. Is it the sequence with no valid key (0 / 0), or a score too large for exp?", "A row whose scores are all -inf gives exp = 0 everywhere and 0 / 0; the library's softmax(scores, mask=...) returns zeros there, and subtracts each row's largest allowed score."),
    otherwise=Mistake("{where} your output is not the attention over the real keys, and not one of the usual slips (the mask on the wrong axis, one key too many, a fill of 0, no scaling). Are your weights (before the values) 0 on the padding and summing to 1 over the real keys?", "Build the mask from valid_lens first and print it: (batch, 1, n_k), True on the real keys."),
    success="Padding keys get a weight of exactly 0 whatever they score, the real keys' weights sum to 1, and a sequence with no valid key gives a zero output, as the library's masks do.",
    fix=_PADDED_FIX,
    doc="Exercise: ``fn(queries, keys, values, valid_lens)`` -> (batch, n_q, d_v), scaled dot-product attention whose keys at or beyond each sequence's valid length are padding; a sequence with no valid key gives zeros. Cases: d = 2 and 16 (score scales 1/sqrt(d) of 0.71 and 0.25), a fully masked sequence, padding scoring in the thousands, tiny and huge scores.")
# fmt: on


def _entropy_prediction(value):
    """The student's predicted entropy as a float, or (None, why not)."""
    number, why = read_number(value, "Your prediction")
    if why is None and not np.isfinite(number):
        why = _("Your prediction is {number}, not a finite number of nats.").format(number=number)
    if why is None and not -1e-9 <= number <= round(np.log(8), 2):  # ln 8 = 2.079 as the message prints it, 2.08
        why = _("An entropy of weights over 8 keys lies between 0 (one-hot) and ln 8 = {ln8:.2f} (uniform); your prediction {number:g} is outside that range.").format(ln8=np.log(8), number=number)  # fmt: skip
    return (None, why) if why else (number, None)


FUNCTION_RIGHT = N_(
    "Your function is right."
)  # its own message: the static page, which runs the course's function, drops it


def _near(wrong):  # float32 arithmetic is fine: the mistakes differ by far more than 1e-3
    return lambda got, queries, keys: bool(np.allclose(got, wrong((queries @ keys.transpose(1, 2)).numpy()), atol=1e-3))


@exercise("remove the 1/sqrt(d): predict, then check")
def check_unscaled_entropy(title, prediction, fn) -> Feedback:
    """Exercise: ``prediction`` = the mean entropy (nats) of the weights over 8 keys at d = 512 without the
    1/sqrt(d), given BEFORE ``fn(queries, keys)`` (torch, (batch, n_q, d), (batch, n_k, d) -> (batch, n_q, n_k))
    computes those weights. Passes when ``fn`` is right; then reports the measured entropy against the prediction."""
    import torch

    predicted, why = _entropy_prediction(prediction)
    if why is not None:
        return Feedback(title, False, [why, "Write down your guess first (a number in nats), then run the check."])
    generator = torch.Generator().manual_seed(3)
    queries = torch.randn(1, 200, 512, generator=generator, dtype=torch.float64)  # (batch, n_q, d)
    keys = torch.randn(1, 8, 512, generator=generator, dtype=torch.float64)  # (batch, n_k, d)
    raw = (queries @ keys.transpose(1, 2)).numpy()  # (1, 200, 8) unscaled scores
    # fmt: off
    verdict = check_function(title, fn, [Case((queries, keys), "For 200 queries and 8 keys (d = 512) in a batch of 1,")],
        lambda queries, keys: softmax((queries @ keys.transpose(1, 2)).numpy()), [
        Mistake(when=_near(lambda raw: softmax(raw / np.sqrt(512))), says="{where} these are still the scaled weights: the exercise removes the division by sqrt(d). What is left of the scores without it?", hint="Scaled dot-product attention is softmax(Q K^T / sqrt(d)); the changed model keeps all of it but the / sqrt(d)."),
        Mistake(when=_near(lambda raw: softmax(raw / 512)), says="{where} your weights are softmax(scores / d). You divided by d; what does the changed model divide by?", hint="The changed model divides the scores by nothing at all: softmax(Q K^T)."),
        Mistake(when=_near(lambda raw: softmax(raw, axis=1)), says="{where} your weights should sum to 1 over the keys, not over the queries. Which axis holds the keys?", hint="The scores are (batch, n_q, n_k): the keys are the last axis, dim=-1."),
    ],
        compare=lambda got, expected, *args: got.shape == expected.shape and np.allclose(got, expected, atol=1e-3),
        shape="one weight per query and key: (batch, n_q, n_k)",
        not_finite=Mistake(_("{where} your weights have NaN or inf. Without the scaling these scores range from {low:.0f} to {high:.0f}: exp of them is finite in float64 but near the limits of float32 (exp overflows above 88.7 and underflows to 0 below -104). What does torch.softmax do first that avoids both?").format(where="{where}", low=raw.min(), high=raw.max()), "Subtract each row's maximum before exp."),
        otherwise=Mistake("{where} these are not softmax(queries @ keys^T) over the keys: the changed model is scaled dot-product attention with the 1/sqrt(d) removed, nothing else. Which step of yours does something more?", "The scores are queries @ keys^T, shape (batch, n_q, n_k); a softmax over the keys makes them weights."),
        success="", fix="`return torch.softmax(queries @ keys.transpose(1, 2), dim=-1)`")
    # fmt: on
    if not verdict.passed:
        return verdict
    measured = float(entropy(softmax(raw)).mean())
    scaled = float(entropy(softmax(raw / np.sqrt(512))).mean())
    top_two = np.sort(raw, axis=-1)[..., -2:]
    gap = float(np.median(top_two[..., 1] - top_two[..., 0]))
    report = _("Your unscaled weights have a mean entropy of {measured:.2f} nats over these 200 queries (uniform over 8 keys: ln 8 = {ln8:.2f}; the scaled weights on the same data: {scaled:.2f}).").format(measured=measured, ln8=np.log(8), scaled=scaled)  # fmt: skip
    if abs(predicted - measured) <= 0.3:
        return Feedback(title, True, [report, _("You predicted {p:g}: close. The weights are nearly one-hot.").format(p=predicted)])  # fmt: skip
    if predicted > measured:
        says = _("Your prediction {p:g} is too spread out (a wrong prediction is not passed; change it and run again). Without the scaling, how large is the standard deviation of the scores at d = 512, and what does a gap of that size between the two largest scores do to the runner-up's weight?")  # fmt: skip
        hint = _("The median gap between a query's two largest scores is {gap:.1f} here; the runner-up's weight is at most exp(-gap).")  # fmt: skip
    else:
        says = _("Your prediction {p:g} is more peaked than what your function measures (a wrong prediction is not passed; change it and run again). Are all 200 queries' two largest scores far apart?")  # fmt: skip
        hint = _("A few queries whose two largest scores happen to be close keep some spread.")
    return Feedback(title, False, [_(FUNCTION_RIGHT), says.format(p=predicted)], hint=hint.format(gap=gap), fix=report)


def query_jacobian_reference(q, K):
    lam = softmax(K @ q)  # (n,) weights
    kbar = lam @ K  # (d,) the output o = E_lambda[k]
    return (lam[:, None] * K).T @ K - np.outer(kbar, kbar)  # (d, d) = Cov_lambda[k]


def _moments(q, K, lam=None):
    lam = softmax(K @ q) if lam is None else lam
    return np.einsum("i,ij,ik->jk", lam, K, K), lam @ K  # sum_i lambda_i k_i k_i^T, kbar


_JAC_FIX = "```\nlam = softmax(K @ q)\nkbar = lam @ K\nreturn (lam[:, None] * K).T @ K - np.outer(kbar, kbar)\n```"


_rng = np.random.default_rng(7)
_q, _K = 0.7 * _rng.normal(size=3), _rng.normal(size=(5, 3))  # d = 3, n = 5
# fmt: off
check_query_jacobian = implement("the gradient of attention with respect to its query", [
    Case((_q, _K), "For q of size d = 3 and 5 keys"),
    Case((300 * _q, _K), "For huge scores (q 300 times as large: a saturated softmax)"),
    Case((1e-4 * _q, _K), "For tiny scores (nearly uniform weights)"),
], query_jacobian_reference, [
    Mistake(when=lambda got, q, K: got.shape == (len(K), len(K)) != (len(q), len(q)), any_shape=True, says="{where} A (n, n) matrix is the softmax's Jacobian d lambda / d alpha (one row and column per key). How does the chain rule continue through alpha_j = q . k_j and o = sum_i lambda_i k_i?", hint="d o / d q = sum_i k_i (d lambda_i / d q)^T."),
    Mistake(when=lambda got, q, K: got.shape in ((len(q), len(K)), (len(K), len(q))) and len(q) != len(K), any_shape=True, says="{where} A (d, n) or (n, d) matrix relates the output to the n scores (d o / d alpha). One more step of the chain rule: what is d alpha_j / d q?", hint="alpha_j = q . k_j."),
    Mistake(wrong=lambda q, K: _moments(q, K)[0], says="{where} You have sum_i lambda_i k_i k_i^T, the part from diag(lambda) in the softmax Jacobian. The weights also move together (they sum to 1): what does the part -lambda lambda^T add?", hint="-lambda_i lambda_j for every i and j, i = j included."),
    Mistake(wrong=lambda q, K: -query_jacobian_reference(q, K), says="{where} The sign is flipped. Raising q . k_j raises lambda_j: does the output move towards k_j or away?", hint="Check one direction numerically."),
    Mistake(wrong=lambda q, K: query_jacobian_reference(q, K) / np.sqrt(len(q)), says="{where} You divided by sqrt(d): are the scores in this exercise scaled?", hint="alpha_j = q . k_j."),
    Mistake(when=lambda got, q, K: np.allclose(np.abs(got), np.abs(np.outer(_moments(q, K)[1], _moments(q, K)[1]))), says="{where} That is only the term built from the mean kbar = sum_i lambda_i k_i; the term from each key itself is missing. Which term comes from diag(lambda)?", hint="sum_i lambda_i k_i k_i^T."),
    Mistake(wrong=lambda q, K: (lambda m, kb: m - np.outer(kb, kb))(*_moments(q, K, np.full(len(K), 1 / len(K)))), says="{where} You used equal weights 1/n. At which weights is the derivative taken?", hint="lambda = softmax(K q), this query's weights."),
    Mistake(when=lambda got, q, K: np.allclose(got, 0) and not np.allclose(query_jacobian_reference(q, K), 0, atol=1e-9), says="{where} The output does depend on q: how does q change the scores, and the scores the weights?", hint="lambda = softmax(K q)."),
    Mistake(when=lambda got, q, K: not np.allclose(got, got.T, atol=1e-8), says="{where} The true Jacobian here is symmetric; yours is not. Which index of d o_a / d q_b belongs to the output, which to the query?", hint="d o_a / d q_b = sum_i k_ia d lambda_i / d q_b, with d lambda_i / d alpha_j = lambda_i (delta_ij - lambda_j)."),
],
    shape="d o_a / d q_b for the d entries of each: (d, d)",
    compare=lambda got, expected, *args: got.shape == expected.shape and bool(np.allclose(got, expected, atol=1e-8)),
    not_finite=Mistake("{where} your Jacobian has NaN or inf. Do the weights overflow, or is there a division by a sum that can be 0?", "Subtract the largest score before exp."),
    otherwise=Mistake("{where} Not the Jacobian that autograd computes for o(q) = softmax(K q) @ K. Which factor of the chain rule d o / d q = sum_i k_i (d lambda_i / d q)^T is off?", "Chain rule: d lambda_i / d alpha_j = lambda_i (delta_ij - lambda_j) and d alpha_j / d q = k_j."),
    success="d o / d q = sum_i lambda_i k_i k_i^T - kbar kbar^T with kbar = sum_i lambda_i k_i: the covariance of the keys under the weights, Cov_lambda[k]. It is symmetric and positive semi-definite, and it vanishes when the weights are one-hot: a saturated softmax passes no gradient back to the query. With scaled scores q . k / sqrt(d) the same steps give Cov_lambda[k] / sqrt(d).",
    fix=_JAC_FIX,
    doc="Exercise: ``fn(q, K)`` returns the (d, d) Jacobian d o / d q of o(q) = sum_i lambda_i k_i, lambda = softmax(K q) (unscaled scores, values = keys); the reference's closed form is pinned to autograd in the tests. Cases: small scores, huge ones (a saturated softmax: the Jacobian nearly 0) and tiny ones.")
# fmt: on
