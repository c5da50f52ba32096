"""Checks of answers that are not functions: a multiple choice (:func:`check_choice` explains only the options
the student chose, and leaves the others to find), a number (:func:`read_number`) and a set of positions
(:func:`check_positions`). None of them raises, whatever the student passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .feedback import Feedback, _short, exercise, not_attempted, unanswered
from .runner import Mistake, to_float_array

__all__ = ["check_choice", "check_positions", "multiple_choice", "read_number", "read_positions"]


def _letters(answer, options, several):
    """The chosen option letters (upper case), or (None, why the answer cannot be read)."""
    known = sorted(options)
    example = '"BD"' if several else f'"{known[0].lower()}"'
    if isinstance(answer, str):
        items = [c for c in answer.upper() if c.isalnum()]
    elif isinstance(answer, list | tuple | set | frozenset) and all(isinstance(x, str) for x in answer):
        items = [c for x in answer for c in x.upper() if c.isalnum()]
    else:
        return (
            None,
            f"Answer with {'the letters' if several else 'one letter'} in quotes, such as {example}; got {_short(answer, 40)}.",
        )
    chosen = set(items)
    unknown = sorted(chosen - set(known))
    if unknown or not chosen:
        return (
            None,
            f"Answer with {'letters' if several else 'one letter'} among {', '.join(known)} (such as {example}); got {_short(answer, 40)}.",
        )
    if not several and len(chosen) > 1:
        return None, f"Choose one option; you gave {len(chosen)} ({''.join(sorted(chosen))})."
    return chosen, None


def check_choice(
    title, answer, options: dict, right: str, *, success: str, hint: str = "", fix: str = "", several=None
) -> Feedback:
    """A multiple-choice answer: ``options`` maps each letter to what is wrong with choosing it (or why it is
    right); ``right`` holds the right letters (several means the student picks every right one). A wrong
    answer is explained only for the options the student chose; the others are left to find."""
    if unanswered(answer):
        return not_attempted(title)
    options = {k.upper(): v for k, v in options.items()}
    right_set = set(right.upper())
    several = len(right_set) > 1 if several is None else several
    chosen, why = _letters(answer, options, several)
    if why is not None:
        return Feedback(title, False, [why])
    if chosen == right_set:
        return Feedback(title, True, [success])
    messages = [f"{x}: {options[x] or 'not right: what rules it out?'}" for x in sorted(chosen - right_set)]
    kept = sorted(chosen & right_set)
    if kept:
        messages.append(f"{' and '.join(kept)}: right.")
    missing = len(right_set - chosen)
    if missing and len(right_set) > 1:
        messages.append(f"{missing} of the options you left out {'is' if missing == 1 else 'are'} right too: which?")
    return Feedback(title, False, messages, hint=hint, fix=fix)


def multiple_choice(title, options: dict, right: str, *, doc: str, **explained):
    """A multiple-choice check from its table: ``check(answer)`` runs :func:`check_choice` (``explained`` holds its
    ``success``, ``hint`` and ``fix``); ``doc`` says what is asked (the check's docstring)."""

    @exercise(title)
    def check(name, answer) -> Feedback:
        return check_choice(name, answer, options, right, **explained)

    check.__doc__ = doc
    return check


def read_number(value, what="Your answer"):
    """``value`` as one float (a number, a 0-d array or tensor, or text such as "-1/5"), or (None, why not)."""
    if isinstance(value, str):
        from fractions import Fraction

        try:
            return float(Fraction(value.replace(" ", ""))), None
        except (ValueError, ZeroDivisionError):
            return None, f"{what} is the text {value!r:.30}, not numbers; write a number such as 0.5 (or 1/2)."
    array, why = to_float_array(value, what)
    if why is not None:
        return None, why
    if array.size != 1:
        return None, f"{what} should be one number; got {array.size} numbers (shape {array.shape})."
    number = float(array.reshape(()))
    return (None, f"{what} is {number}, not a finite number.") if np.isnan(number) else (number, None)


def read_positions(value, what, n):
    """``value`` as a set of positions 0..n-1 (a list, tuple, set, range or integer array), or (None, why not)."""
    if isinstance(value, str | bytes | dict) or not hasattr(value, "__iter__"):
        return None, f"{what}: answer with a list of positions such as [3, 5]; got {type(value).__name__}."
    positions = set()
    for item in list(value):
        whole = isinstance(item, int | np.integer) or isinstance(item, float | np.floating) and float(item).is_integer()
        if isinstance(item, bool) or not whole:
            return None, f"{what}: positions are whole numbers from 0 to {n - 1}; got {item!r}."
        if not 0 <= int(item) < n:
            return None, f"{what}: positions count from 0 to {n - 1}; got {int(item)}."
        positions.add(int(item))
    return positions, None


def check_positions(title, answers: dict, truth: dict, n, mistakes: Sequence[Mistake], *, success, hint="", fix=""):
    """Answers that are sets of positions (``answers`` and ``truth`` map a name to one each): each wrong answer is
    explained by every row whose ``when(got, right)`` holds (``{where}`` is the answer's name), else "not right"."""
    if any(unanswered(value) for value in answers.values()):
        return not_attempted(title)
    got = {}
    for what, value in answers.items():
        got[what], why = read_positions(value, what, n)
        if why is not None:
            return Feedback(title, False, [why])
    if got == truth:
        return Feedback(title, True, [success])
    messages = []
    for what in answers:
        if got[what] != truth[what]:
            fill = {"where": what, "got": sorted(got[what])}
            said = [m.says.format(**fill) for m in mistakes if m.when(got[what], truth[what])]
            messages += said or [f"{what}: {sorted(got[what])} is not right: which positions did you miss or add?"]
    return Feedback(title, False, messages, hint=hint, fix=fix)
