"""Exercise checks of notebook 01, queries, keys and values (reference answers: ``solutions/notebook_01.py``)."""

from __future__ import annotations

import numpy as np

from ..normalisers import softmax
from .feedback import (
    SMALL_SCORES_NOT_FINITE,
    Feedback,
    as_numbers,
    close,
    exercise,
    named_shift,
    not_attempted,
    to_float_array,
    unanswered,
)

__all__ = ["check_softmax", "check_reachable_outputs", "check_scores_for_weights", "check_dot_product_winner"]


# Scores on which every plausible wrong "stabilisation" gives NaN somewhere (feedback.shift_mistakes): huge
# scores, a row far below another (a global or column maximum underflows it), rows spanning 1500-2000 (their
# minimum or their mean still overflows), rows whose first score is their smallest or their largest.
HUGE_SCORES = [
    (np.array([1000.0, 1001.0, 999.0]), 1.0),
    (np.array([[0.0, 1000.0], [1000.0, 1001.0], [0.0, 1.0], [0.0, 2000.0], [1500.0, 0.0]]), 1.0),
    (np.array([[-3000.0, 0.0, -1000.0], [5.0, 4.0, 3.0]]), 0.5),
]


@exercise("softmax with temperature")
def check_softmax(name, fn) -> Feedback:
    """Exercise: ``fn(alpha, temperature)`` returns softmax(alpha / T) along the last axis, stably.

    The feedback describes what is wrong (shape, sign, row sums, temperature, which shift overflows) and shows
    the student's own result, never the expected weights.
    """
    small = [
        (np.array([1.0, 2.0, 3.0]), 1.0),
        (np.array([0.5, -1.0, 2.0, 0.0]), 0.5),
        (np.array([[1.0, 2.0], [3.0, 3.0]]), 2.0),
    ]
    for case, (alpha, temperature) in enumerate([*small, *HUGE_SCORES]):
        is_huge = case >= len(small)
        where = f"For scores {alpha.tolist()} at T = {temperature:g}"
        # small scores: a NaN or inf is the student's own arithmetic, never an overflow
        got, problem = as_numbers(
            name,
            fn,
            alpha.copy(),
            temperature,
            finite_advice=None if is_huge else f"{where}: {SMALL_SCORES_NOT_FINITE}",
        )
        if problem is not None:
            return problem
        expected = softmax(alpha, temperature)
        if got.shape != expected.shape:
            return Feedback(
                name,
                False,
                [
                    f"For scores of shape {alpha.shape} the weights must have the same shape "
                    f"(one weight per score); got shape {got.shape}."
                ],
            )
        if close(got, expected):
            continue
        named = named_shift(got, alpha / temperature)
        if is_huge:  # right on every small case (else we returned): name the shift that fails here
            if named is not None or not np.all(np.isfinite(got)):
                return Feedback(
                    name,
                    False,
                    [
                        f"Your function is right on small scores, but for scores {alpha.tolist()} at T = "
                        f"{temperature:g} it returned {np.round(got, 4).tolist()}.",
                        named
                        or "exp(x) overflows to inf above x = 709.8 (inf / inf is NaN), and a row whose "
                        "exponentials all underflow to 0 gives 0 / 0 = NaN. Subtract each row's own largest "
                        "score: every exponent is then <= 0 and the largest is exactly 0.",
                    ],
                )
        hints = [f"{where} your weights {np.round(got, 4).tolist()} are not softmax(alpha / T)."]
        hints.append(named or _softmax_hint(alpha, temperature, got))
        return Feedback(name, False, hints)
    return Feedback(
        name,
        True,
        [
            "Rows sum to 1 and the temperature divides the scores; and no overflow or 0/0 on "
            "huge scores, on a row spanning 2000, on rows far below the others, or on a row "
            "whose first score is not its largest."
        ],
    )


def _softmax_hint(alpha, temperature, got) -> str:
    """What is wrong with a finite, right-shaped softmax answer, in words (never the expected weights)."""
    rows = got.sum(axis=-1)
    if np.any(got < 0):
        return "Some weights are negative; exp(.) is always positive."
    if alpha.ndim == 2 and np.allclose(got.sum(axis=0), 1.0):
        return "Your columns sum to 1, but each row must: normalise along the last axis (axis=-1)."
    if alpha.ndim == 2 and np.isclose(got.sum(), 1.0):
        return (
            "All weights together sum to 1, but each row must: normalise along the last axis "
            "(sum(..., axis=-1, keepdims=True))."
        )
    if not np.allclose(rows, 1.0):
        return f"Each row of weights must sum to 1; yours sum to {np.round(rows, 4).tolist()}."
    if close(got, softmax(alpha, 1.0)):
        return "This is softmax(alpha) at T = 1: divide the scores by the temperature first."
    if close(got, softmax(alpha * temperature, 1.0)):
        return "You multiplied the scores by T; softmax(alpha / T) divides by it."
    if close(got, softmax(-alpha, temperature)):
        return "The sign is flipped: the largest score must get the largest weight (exp(+alpha_i / T))."
    if np.all(alpha > 0) and close(got, alpha / alpha.sum(axis=-1, keepdims=True)):
        return "This is alpha / sum(alpha), a plain normalisation: softmax exponentiates first."
    return (
        "Your weights are >= 0 and each row sums to 1, but they are not proportional to exp(alpha_i / T): the "
        "ratio of two weights must be exp((alpha_i - alpha_j) / T)."
    )


# 1e-9: far below the candidates' two decimals, far above the rounding error of a 4 x 4 solve
_BOUNDARY = 1e-9


def _letters(answer, known):
    """The candidate letters in ``answer`` (a string such as "AB", or a list/set of letters), or (None, why not)."""
    if isinstance(answer, str):
        items = [c for c in answer.upper() if not c.isspace() and c not in ",;"]
    elif isinstance(answer, (list, tuple, set, frozenset)):
        items = [str(x).strip().upper() for x in answer]
    else:
        return None, (
            f'Answer with the letters of the candidates attention can output, as a string such as "BD" or '
            f'a list such as ["B", "D"]; got {type(answer).__name__}.'
        )
    unknown = sorted({x for x in items if x not in known})
    if unknown:
        return None, f"{unknown} {'is' if len(unknown) == 1 else 'are'} not among the candidates {sorted(known)}."
    return set(items), None


@exercise("which outputs can attention produce?")
def check_reachable_outputs(name, reachable, values, candidates) -> Feedback:
    """Exercise (think, then check): the candidates that softmax attention over ``values`` outputs for finite scores.

    An output sum_i lambda_i v_i with lambda = softmax(alpha) has every lambda_i > 0 and sum_i lambda_i = 1. With
    n = d_v + 1 affinely independent values there is exactly one such lambda (barycentric coordinates) per point of
    their affine hull, so each candidate is classified by solving the (d_v + 1) x (d_v + 1) system: all coordinates
    positive (reachable), one of them zero (reached only in a limit), one negative (never).
    """
    V, why = to_float_array(values, "values")
    if why is not None or V.ndim != 2 or V.shape[0] != V.shape[1] + 1:
        return Feedback(name, False, ["Run the cells above first: `V` must hold the four boxes' values, shape (4, 3)."])
    if not isinstance(candidates, dict) or not candidates:
        return Feedback(name, False, ["Run the cell above first: `candidates` maps letters to candidate outputs."])
    if unanswered(reachable):
        return not_attempted(name)
    chosen, why = _letters(reachable, set(candidates))
    if why is not None:
        return Feedback(name, False, [why])
    system = np.vstack([V.T, np.ones(len(V))])  # (d_v + 1, n): sum_i lambda_i v_i = p and sum_i lambda_i = 1
    weights = {
        letter: np.linalg.solve(system, np.append(np.asarray(point, dtype=float), 1.0))
        for letter, point in candidates.items()
    }
    inside = {letter for letter, lam in weights.items() if lam.min() > _BOUNDARY}
    if chosen == inside:
        return Feedback(
            name,
            True,
            [
                f"{' and '.join(sorted(inside))}: the outputs with weights all positive. Each "
                "candidate has exactly one "
                "set of weights summing to 1 that gives it (the four values are affinely independent); a softmax at "
                "temperature T gives those weights from the scores alpha_i = T log lambda_i "
                "(plus any constant), and only "
                "if every lambda_i > 0. So, with scores free to take any finite values, attention outputs exactly the "
                "points strictly inside the tetrahedron whose corners are the four values."
            ],
        )
    hints = []
    low, high = V.min(axis=0), V.max(axis=0)
    for letter in sorted(chosen - inside):
        lam = weights[letter]
        point = np.asarray(candidates[letter], dtype=float)
        shown = ", ".join(f"{x:.2f}" for x in np.round(lam, 2) + 0.0)  # + 0.0: no "-0.00"
        if np.any(point > high + _BOUNDARY) or np.any(point < low - _BOUNDARY):
            hints.append(
                f"{letter} lies outside the range of the values in at least one coordinate: an average with "
                "weights >= 0 that sum to 1 never exceeds the largest value, nor falls below the smallest."
            )
        elif lam.min() < -_BOUNDARY:
            hints.append(
                f"{letter} is within every coordinate's range, yet the only weights summing to 1 that give "
                f"it are ({shown}): one is negative, so {letter} lies outside the tetrahedron of the four "
                "values. Checking each coordinate's range is not enough."
            )
        else:
            hints.append(
                f"{letter} needs the weights ({shown}), with a weight of exactly 0. A softmax weight "
                "exp(alpha_i) / sum_j exp(alpha_j) is never 0 for a finite score (in exact arithmetic): "
                f"{letter} is reached only in a limit, as the zero-weight keys' scores go to -infinity."
            )
    for letter in sorted(inside - chosen):
        shown = ", ".join(f"{x:.2f}" for x in weights[letter])
        hints.append(
            f"{letter} is an output of attention: the weights ({shown}) are all positive and sum to 1, and "
            "softmax gives them from the scores alpha_i = T log lambda_i (equal scores give uniform "
            "weights at every T)."
        )
    return Feedback(name, False, hints)


@exercise(
    lambda scores, target=(0.1, 0.8, 0.05, 0.05), temperature=2.0: (
        "scores that give the weights " + " / ".join(f"{t:g}" for t in target) + f" at T = {temperature:g}"
    )
)
def check_scores_for_weights(name, scores, target=(0.1, 0.8, 0.05, 0.05), temperature=2.0) -> Feedback:
    """Exercise: give scores alpha whose softmax at temperature T, softmax(alpha / T), is ``target``."""
    target = np.asarray(target, dtype=np.float64)
    t = float(temperature)
    alpha, why = to_float_array(scores, "Your answer")
    if why is not None:
        return Feedback(name, False, [why + f" Give {target.size} numbers."])
    if alpha.shape != target.shape:
        return Feedback(name, False, [f"Give one score per key: {target.size} numbers, got shape {alpha.shape}."])
    if not np.all(np.isfinite(alpha)):
        return Feedback(
            name,
            False,
            [
                "Your scores contain NaN or inf. A score of -inf gives weight exactly 0, "
                "but every target weight is positive: give finite numbers."
            ],
        )
    got = softmax(alpha, t)
    if close(got, target, atol=1e-4):
        return Feedback(
            name,
            True,
            [
                f"softmax({np.round(alpha, 3).tolist()} / {t:g}) = {np.round(got, 4).tolist()}. "
                "Any constant added to every score gives the same weights."
            ],
        )
    hints = [f"softmax(alpha / {t:g}) of your scores is {np.round(got, 4).tolist()}, not {target.tolist()}."]
    if close(alpha, target, atol=1e-4):
        hints.append(
            "You gave the weights themselves. softmax exponentiates: which scores have exp(alpha_i / T) "
            "proportional to lambda_i? (Think log.)"
        )
    elif t != 1.0 and close(softmax(alpha, 1.0), target, atol=1e-4):
        hints.append(
            f"These scores give the weights at T = 1, but here T = {t:g}: the softmax divides every score "
            "by T before exponentiating. Which scores, divided by T, do what yours do now?"
        )
    elif np.all(np.argsort(alpha) == np.argsort(target)):
        hints.append(
            "The order is right but the gaps are not: the ratio of two weights is exp((alpha_i - alpha_j) / T)."
        )
    return Feedback(name, False, hints)


@exercise("which box wins under the dot-product score")
def check_dot_product_winner(name, label, keys, labels, query) -> Feedback:
    """Exercise (predict, then check): the label whose key has the largest dot product q . k_i with ``query``."""
    keys_, why = to_float_array(keys, "keys")
    query_, why_q = to_float_array(query, "query")
    if why or why_q:
        return Feedback(name, False, [f"Run the cells above first (keys and query must be numbers): {why or why_q}"])
    labels = [str(x) for x in labels]
    if not isinstance(label, str):
        return Feedback(
            name, False, [f"Answer with the box's label as a string, one of {labels}; got {type(label).__name__}."]
        )
    if label.strip().lower() not in labels:
        return Feedback(name, False, [f"{label!r} is not a box: answer with one of {labels}."])
    dot = keys_ @ query_  # (n_keys,)
    winner = labels[int(np.argmax(dot))]
    nearest = labels[int(np.argmin(np.sum((keys_ - query_) ** 2, axis=1)))]
    answer = label.strip().lower()
    if answer == winner:
        return Feedback(
            name,
            True,
            [
                f"q . k_i = |q| |k_i| cos(angle): it grows with the length of the key, so "
                f"'{winner}' wins although '{nearest}' is the nearest key. A dot product is "
                "a measure of direction only when the keys have equal lengths (notebook 05)."
            ],
        )
    if answer == nearest:
        return Feedback(
            name,
            False,
            [
                f"'{nearest}' is the nearest key: it wins under the Gaussian score "
                "-||q - k||^2 / 2h^2. The dot product is not a distance: expand "
                "q . k = |q| |k| cos(angle) and compute the four scores."
            ],
        )
    return Feedback(
        name,
        False,
        [
            f"Not '{answer}'. Compute the four dot products K @ q and compare them; "
            "then ask what makes one of them large."
        ],
    )
