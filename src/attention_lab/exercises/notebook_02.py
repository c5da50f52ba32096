"""Exercise checks of notebook 02, from hard to soft attention (reference answers: ``solutions/notebook_02.py``).

Each check explains the likely mistake in words and never shows the expected numbers.
"""

from __future__ import annotations

import numpy as np

from ..normalisers import hard_attention, logsumexp, softmax
from .feedback import (
    SMALL_SCORES_NOT_FINITE,
    Feedback,
    as_numbers,
    close,
    exercise,
    not_finite,
    to_float_array,
    unanswered,
)

__all__ = [
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
    "check_smooth_max_gap",
    "check_reinforce",
    "check_positional_attention",
]


def _number(value, what):
    """A real scalar from ``value`` (a number, a 0-d or 1-element array or tensor), or (None, why not)."""
    array, why = to_float_array(value, what)
    if why is not None:
        return None, why
    if array.size != 1:
        return None, f"{what} must be one number, got shape {array.shape}."
    number = float(array.reshape(()))
    if not np.isfinite(number):
        return None, f"{what} is {number}, not a finite number."
    return number, None


@exercise("the smooth maximum T logsumexp(alpha / T)")
def check_logsumexp(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns T * log sum_i exp(alpha_i / T) for a 1-D alpha, stably."""
    cases = [
        (np.array([1.0, 2.0, 3.0]), 1.0),
        (np.array([0.0, 0.5]), 0.25),
        (np.array([1.0, -2.0, 0.5]), 2.0),
        (np.array([800.0, 799.0]), 1.0),
        (np.array([800.0, 799.5, 790.0]), 0.5),
    ]
    for alpha, temperature in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), temperature)
        if problem is not None:
            return problem
        if got.size != 1:
            return Feedback(name, False, [f"Return one number (the smooth max of the scores), got shape {got.shape}."])
        got = float(got.reshape(()))
        if not np.isfinite(got) and np.abs(alpha).max() < 700:  # small scores: nothing can overflow here
            return Feedback(
                name,
                False,
                [
                    f"For the small scores {alpha.tolist()} at T = {temperature} you returned "
                    f"{got}: no exponential overflows at these sizes, so look for a 0/0, a "
                    "log of 0 or of a negative number, or a NaN in your formula."
                ],
            )
        if not np.isfinite(got):
            return Feedback(
                name,
                False,
                [
                    f"For scores {alpha.tolist()} at T = {temperature} you returned {got}.",
                    "exp(800) overflows to inf. Pull the max out first: with m = max(alpha), "
                    "T logsumexp(alpha / T) = m + T log sum_i exp((alpha_i - m) / T), and every "
                    "exponent is then <= 0.",
                ],
            )
        expected = float(logsumexp(alpha, temperature))
        m = float(alpha.max())
        if abs(got - expected) < 1e-6:
            continue
        hints = [
            f"For scores {alpha.tolist()} at T = {temperature} your value {got:.6f} is off by {got - expected:+.4g}."
        ]
        if abs(got - m) < 1e-9:
            hints.append(
                "That is the hard max, the T -> 0 limit; the smooth max is a little larger (by at most T log n)."
            )
        elif abs(got - expected / temperature) < 1e-6:
            hints.append(
                "The factor T in front of the log is missing (or you divided by T twice): "
                "T logsumexp(alpha / T), not logsumexp(alpha / T)."
            )
        elif abs(got - (m + (expected - m) / temperature)) < 1e-6:
            hints.append(
                "You pulled the max out correctly, but the log term needs the factor T too: "
                "m + T log sum_i exp((alpha_i - m) / T)."
            )
        elif abs(got - float(logsumexp(alpha, 1.0))) < 1e-6:
            hints.append("The temperature is ignored: divide the scores by T inside exp, multiply the log by T.")
        elif abs(got - temperature * float(logsumexp(alpha, 1.0))) < 1e-6:
            hints.append("You multiplied the log by T but did not divide the scores by T inside exp.")
        elif abs(got - (expected - m)) < 1e-6:
            hints.append(
                "You subtracted the max but forgot to add it back: logsumexp(alpha) = m + log sum exp(alpha - m)."
            )
        elif got < m:
            hints.append(
                "The smooth max is never below the max: each term exp(alpha_i / T) is positive, and one of "
                "them alone gives exp(max / T)."
            )
        return Feedback(name, False, hints)
    return Feedback(name, True, ["Correct at every temperature, and stable for large scores."])


@exercise("top-k hard attention")
def check_top_k(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, k)`` returns top-k hard attention weights (1/k on the k largest scores)."""
    cases = [
        (np.array([0.1, 0.9, 0.5, 0.3]), 1),
        (np.array([0.1, 0.9, 0.5, 0.3]), 2),
        (np.array([2.0, -1.0, 5.0]), 3),
        (np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), 3),
    ]
    for alpha, k in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), k)
        if problem is not None:
            return problem
        expected = hard_attention(alpha, k)
        if got.shape != expected.shape:
            return Feedback(
                name,
                False,
                [
                    f"For {alpha.size} scores return {alpha.size} weights (shape "
                    f"{expected.shape}), one per score; got shape {got.shape}."
                ],
            )
        bad = not_finite(name, got, "Top-k weights are 1/k or 0: no exp or division is needed.")
        if bad is not None:
            return bad
        if close(got, expected):
            continue
        chosen = np.argsort(-alpha, kind="stable")[:k]
        mask = np.zeros(alpha.size, dtype=bool)
        mask[chosen] = True
        hints = [f"For scores {alpha.tolist()} and k = {k} your weights {np.round(got, 4).tolist()} are not right."]
        restricted_softmax = np.where(mask, softmax(np.where(mask, alpha, -np.inf)), 0.0)
        if close(got, expected * k):
            hints.append("The chosen keys share the attention: each gets 1/k, so the weights still sum to 1.")
        elif close(got, hard_attention(-alpha, k)):
            hints.append("You picked the k smallest scores: sort in descending order (or use np.argsort(-alpha)).")
        elif close(got, restricted_softmax) or close(got, np.where(mask, softmax(alpha), 0.0)):
            hints.append(
                "There is a softmax inside: top-k hard attention gives each chosen key the same weight 1/k, "
                "whatever its score; the scores only decide which keys are chosen."
            )
        elif np.all(got[mask] > 0) and np.all(got[~mask] == 0):
            hints.append("You chose the right keys; now give each of them the same weight 1/k.")
        elif abs(got.sum() - 1) > 1e-6:
            hints.append(f"Weights must sum to 1; yours sum to {got.sum():.4g}.")
        else:
            hints.append("Some of the chosen keys are not among the k largest scores.")
        return Feedback(name, False, hints)
    return Feedback(name, True, ["1/k on each of the k largest scores, 0 elsewhere."])


@exercise(
    lambda temperature, scores, target=0.5, tolerance=0.01: f"the temperature at which the largest weight is {target:g}"
)
def check_temperature_for_weight(name, temperature, scores, target=0.5, tolerance=0.01) -> Feedback:
    """Exercise: find T such that the largest softmax weight of ``scores`` is ``target`` (within ``tolerance``)."""
    value, why = _number(temperature, "Your temperature")
    if why is not None:
        return Feedback(name, False, [why, "Give one temperature T > 0, a plain number such as 0.7."])
    if value <= 0:
        return Feedback(
            name,
            False,
            [
                f"The temperature must be positive, got {value:g}; T = 0 is the hard limit, "
                "where the largest weight is 1."
            ],
        )
    top = float(softmax(scores, value).max())
    if abs(top - target) <= tolerance:
        return Feedback(name, True, [f"At T = {value:g} the largest weight is {top:.3f}."])
    direction = "raise T (more heat spreads the weights)" if top > target else "lower T (colder is more peaked)"
    return Feedback(name, False, [f"At T = {value:g} the largest weight is {top:.3f}, not {target:g}: {direction}."])


@exercise(
    lambda bound, scores, n=6, temperature=0.5: (
        f"the largest gap between the smooth max and the max (n = {n}, T = {temperature:g})"
    )
)
def check_smooth_max_gap(name, bound, scores, n=6, temperature=0.5) -> Feedback:
    """Predict-then-check: ``bound`` = the largest value of T logsumexp(alpha / T) - max(alpha) over all n scores,
    and ``scores``, n scores that reach it."""
    value, why = _number(bound, "Your bound")
    if why is not None:
        return Feedback(name, False, [why])
    truth = temperature * np.log(n)
    hints = []
    if abs(value - truth) > 1e-6:
        if abs(value - np.log(n)) < 1e-6:
            hints.append(
                "That is the largest gap at T = 1. The smooth max T logsumexp(alpha / T) carries a factor T: "
                "how does the gap scale with T?"
            )
        elif abs(value - temperature * np.log(n - 1)) < 1e-6 or abs(value - np.log(n - 1)) < 1e-6:
            hints.append("Count every key in the sum, the winner too: there are n terms.")
        elif abs(value - np.log(n) / temperature) < 1e-6:
            hints.append(
                "The gap must shrink as T -> 0 (the smooth max tends to the max): multiply by T, do not divide."
            )
        elif value < truth:
            hints.append(
                "Some scores give a larger gap than that. Write the gap as "
                "T log sum_i exp((alpha_i - max) / T) and ask how large each term can be."
            )
        else:
            hints.append("No scores reach that gap: each term exp((alpha_i - max) / T) is at most 1.")
    if unanswered(scores):
        hints.append("Now give n scores that reach your bound (replace the `...`).")
        return Feedback(name, False, hints)
    array, why = to_float_array(scores, "Your scores")
    if why is not None:
        return Feedback(name, False, hints + [why])
    if array.shape != (n,):
        return Feedback(name, False, hints + [f"Give {n} scores (shape ({n},)), got shape {array.shape}."])
    if not np.all(np.isfinite(array)):
        return Feedback(name, False, hints + ["Your scores contain NaN or inf; give finite numbers."])
    gap = float(logsumexp(array, temperature)) - float(array.max())
    if abs(gap - truth) > 1e-6:
        hints.append(
            f"Your scores give a gap of {gap:.4f}, less than the most possible. Each term "
            "exp((alpha_i - max) / T) is at most 1: which scores make every term as large as it can be?"
        )
    if hints:
        return Feedback(name, False, hints)
    return Feedback(
        name,
        True,
        [
            f"The gap is at most T log n = {truth:.4f}, reached exactly when all scores are "
            "equal: the smooth max overshoots most when there is no clear winner."
        ],
    )


def _reinforce_truth(alpha, losses):
    """The exact gradient of sum_i p_i L_i and the variance of one REINFORCE sample, per coordinate."""
    p = softmax(alpha)
    eye = np.eye(alpha.size)
    per_key = losses[:, None] * (eye - p)  # row i: the estimate when key i is drawn, (n, n)
    mean = p @ per_key
    return mean, p @ per_key**2 - mean**2, p, per_key


@exercise("a REINFORCE (score-function) gradient estimate")
def check_reinforce(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, losses, n_samples, rng)`` estimates d/dalpha sum_i softmax(alpha)_i losses_i from
    ``n_samples`` keys drawn from softmax(alpha) with ``rng``; passes within 5 standard errors (in norm) of the
    exact gradient, so an estimate with a baseline, which has a smaller variance, passes too."""
    cases = [
        (np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), np.array([5.0, 26.0, 5.0, 18.25, 0.0, 18.0]), 20_000, 0),
        (np.array([0.0, -1.0, 1.0]), np.array([1.0, -2.0, 3.0]), 20_000, 1),
    ]
    for alpha, losses, m, seed in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), losses.copy(), m, np.random.default_rng(seed))
        if problem is not None:
            return problem
        exact, variance, p, per_key = _reinforce_truth(alpha, losses)
        if got.shape != exact.shape:
            hint = (
                " Average the per-sample estimates over the samples (axis 0)." if got.shape == (m, alpha.size) else ""
            )
            return Feedback(
                name, False, [f"Return one gradient entry per score, shape {exact.shape}; got shape {got.shape}.{hint}"]
            )
        bad = not_finite(
            name,
            got,
            "Each sample contributes L_i (one_hot(i) - p), a finite vector; look for a log of 0 or a division by 0.",
        )
        if bad is not None:
            return bad
        se = float(np.sqrt(variance.sum() / m))  # the typical distance ||mean of m samples - exact||
        if np.linalg.norm(got - exact) <= 5 * se:
            again, problem = as_numbers(name, fn, alpha.copy(), losses.copy(), m, np.random.default_rng(seed + 100))
            if problem is None and close(again, got, atol=1e-12) and close(got, exact, atol=1e-9):
                return Feedback(
                    name,
                    False,
                    [
                        "This is the exact gradient p_j (L_j - sum_i p_i L_i), computed from all "
                        "keys; the exercise asks for an estimate from sampled keys only (draw "
                        "them with rng), as a model must do when it cannot look at every key."
                    ],
                )
            continue

        def near(candidate, got=got, se=se):
            return np.linalg.norm(got - candidate) <= 0.1 * np.linalg.norm(candidate) + 5 * se

        hints = [
            f"For scores {alpha.tolist()} and losses {losses.tolist()}, with {m} samples, your estimate is "
            "further from the exact gradient than sampling noise explains (more than 5 standard errors)."
        ]
        uniform = np.mean(per_key, axis=0)
        if near(-exact):
            hints.append(
                "The sign is flipped: the gradient of log p_i with respect to alpha is one_hot(i) - p, "
                "not p - one_hot(i)."
            )
        elif near(m * exact):
            hints.append("You summed the per-sample estimates; average them (divide by the number of samples).")
        elif near(p * losses):
            hints.append(
                "You averaged L_i one_hot(i), the sampled loss alone, which does not depend on alpha. "
                "Multiply each sampled loss by the gradient of log p_i, that is one_hot(i) - p."
            )
        elif near(p @ (p[:, None] * per_key)):
            hints.append(
                "You used the gradient of p_i; the score function is the gradient of log p_i, which is "
                "(grad p_i) / p_i = one_hot(i) - p."
            )
        elif near(losses - losses.sum() * p):
            hints.append(
                "You divided each sample's term by p_i: L_i (one_hot(i) - p) is already the score "
                "function's estimate, because one_hot(i) - p is the gradient of log p_i (the division by "
                "p_i happened inside the log's derivative). Dividing again weighs rare keys up and "
                "biases the estimate."
            )
        elif near(uniform):
            hints.append("The keys must be drawn from softmax(alpha), not uniformly: rng.choice(n, size=..., p=p).")
        elif near(np.zeros_like(exact)):
            hints.append(
                "Your estimate is about zero. Did the loss you subtracted (a baseline) depend on the sampled "
                "key itself? A baseline must be fixed before sampling."
            )
        else:
            hints.append(
                "One sample's estimate is L_i (one_hot(i) - p), with i drawn from p = softmax(alpha) and "
                "one_hot(i) the one-hot vector of key i; average it over the samples."
            )
        return Feedback(name, False, hints)
    return Feedback(
        name,
        True,
        [
            "Within sampling error of the exact gradient: the score-function estimator is "
            "unbiased, and its error shrinks like 1/sqrt(number of samples)."
        ],
    )


def _positional(alpha, values, beta):
    return softmax(alpha + beta * np.arange(alpha.size)) @ values


@exercise("attention that notices order: a position term in the scores")
def check_positional_attention(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, values, beta)`` returns softmax(alpha_i + beta * i) @ values, i = slot 0..n-1."""
    rng = np.random.default_rng(5)
    cases = [
        (np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), rng.normal(size=(6, 2)), 0.0),
        (np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]), rng.normal(size=(6, 2)), 0.5),
        (rng.normal(size=5), rng.normal(size=(5, 3)), -1.0),
    ]
    for alpha, values, beta in cases:
        got, problem = as_numbers(name, fn, alpha.copy(), values.copy(), beta)
        if problem is not None:
            return problem
        expected = _positional(alpha, values, beta)
        if got.shape != expected.shape:
            hint = (
                " That is one weight per key: return the weighted average of the values."
                if got.shape == alpha.shape
                else ""
            )
            return Feedback(
                name,
                False,
                [
                    f"Return the output, one vector of shape {expected.shape} (the dimension of "
                    f"the values); got shape {got.shape}.{hint}"
                ],
            )
        bad = not_finite(name, got, f"The output is a weighted average of finite values, and {SMALL_SCORES_NOT_FINITE}")
        if bad is not None:
            return bad
        if close(got, expected):
            continue
        hints = [f"With beta = {beta:g} your output is not the attention output with the position term."]
        order = rng.permutation(alpha.size)
        moved, _ = as_numbers(name, fn, alpha[order].copy(), values[order].copy(), beta)
        if close(got, (alpha + beta * np.arange(alpha.size)) @ values):
            hints.append("The scores with the position term still need a softmax to become weights.")
        elif beta == 0:
            hints.append("With beta = 0 the model must be plain attention, softmax(alpha) @ values.")
        elif close(got, softmax(alpha) @ (values + beta * np.arange(alpha.size)[:, None])):
            hints.append(
                "You added the position to the values. Order must change *which* keys are attended to: add "
                "beta * i to the scores alpha_i."
            )
        elif moved is not None and close(moved, got):
            hints.append(
                "Your position term moves with the keys (it depends on the key, for instance on the rank of "
                "its score), so permuting keys and values still changes nothing. It must belong to the slot "
                "i = 0, 1, ..., n - 1, whatever key sits there."
            )
        elif close(got, softmax(alpha * beta * np.arange(alpha.size)) @ values):
            hints.append("Add beta * i to each score; do not multiply.")
        return Feedback(name, False, hints)
    alpha, values = cases[1][0], cases[1][1]
    order = np.array([5, 4, 3, 2, 1, 0])
    moved = _positional(alpha[order], values[order], 0.5)
    shift = float(np.linalg.norm(moved - _positional(alpha, values, 0.5)))
    return Feedback(
        name,
        True,
        [
            f"Reversing the keys and values together now moves the output by {shift:.3f} "
            "(at beta = 0.5); at beta = 0 it would not move at all. The slot matters now: "
            "that is what positional encodings give attention."
        ],
    )
