"""Checks of answers that are not functions: a multiple choice (:func:`check_choice` explains only the options
the student chose, and leaves the others to find), a number (:func:`read_number`) and a set of positions
(:func:`check_positions`). None of them raises, whatever the student passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..i18n import _
from .feedback import Feedback, _short, exercise, not_attempted, unanswered
from .runner import Mistake, to_float_array

__all__ = ["check_choice", "check_positions", "multiple_choice", "read_number", "read_positions"]


def _letters(answer, options, several):
    """The chosen option letters (upper case), or (None, why the answer cannot be read)."""
    known = sorted(options)
    fill = {"example": '"BD"' if several else '"{a}"'.format(a=known[0].lower()), "known": ", ".join(known), "got": _short(answer, 40)}  # fmt: skip
    if isinstance(answer, str):
        chosen = {c for c in answer.upper() if c.isalnum()}
    elif isinstance(answer, list | tuple | set | frozenset) and all(isinstance(x, str) for x in answer):
        chosen = {c for x in answer for c in x.upper() if c.isalnum()}
    elif several:
        return None, _("Answer with the letters in quotes, such as {example}; got {got}.").format(**fill)
    else:
        return None, _("Answer with one letter in quotes, such as {example}; got {got}.").format(**fill)
    if (chosen - set(known) or not chosen) and several:
        return None, _("Answer with letters among {known} (such as {example}); got {got}.").format(**fill)
    if chosen - set(known) or not chosen:
        return None, _("Answer with one letter among {known} (such as {example}); got {got}.").format(**fill)
    if not several and len(chosen) > 1:
        return None, _("Choose one option; you gave {n} ({letters}).").format(n=len(chosen), letters="".join(sorted(chosen)))  # fmt: skip
    return chosen, None


def check_choice(title, answer, options: dict, right: str, *, success: str, hint="", fix="", several=None) -> Feedback:
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
        return Feedback(title, False, why)
    if chosen == right_set:
        return Feedback(title, True, success)
    messages = [_("{x}: {why}").format(x=x, why=_(options[x]) if options[x] else _("not right: what rules it out?")) for x in sorted(chosen - right_set)]  # fmt: skip
    if chosen & right_set:
        messages.append(_("{kept}: right.").format(kept=_(" and ").join(sorted(chosen & right_set))))
    missing = len(right_set - chosen)
    if missing == 1 and len(right_set) > 1:
        messages.append(_("1 of the options you left out is right too: which?"))
    elif missing and len(right_set) > 1:
        messages.append(_("{n} of the options you left out are right too: which?").format(n=missing))
    return Feedback(title, False, messages, hint=hint, fix=fix)


def multiple_choice(title, options: dict, right: str, *, doc: str, **explained):
    """A multiple-choice check from its table: ``check(answer)`` runs :func:`check_choice` (``explained`` holds its
    ``success``, ``hint`` and ``fix``); ``doc`` says what is asked (the check's docstring)."""

    @exercise(title)
    def check(name, answer) -> Feedback:
        return check_choice(name, answer, options, right, **explained)

    check.__doc__ = doc
    return check


def read_number(value, what=None):
    """``value`` as one float (a number, a 0-d array or tensor, or text such as "-1/5"), or (None, why not)."""
    what = _("Your answer") if what is None else _(what)
    if isinstance(value, str):
        from fractions import Fraction

        try:
            return float(Fraction(value.replace(" ", ""))), None
        except (ValueError, ZeroDivisionError):
            return None, _("{what} is the text {text}, not numbers; write a number such as 0.5 (or 1/2).").format(what=what, text=repr(value)[:30])  # fmt: skip
    array, why = to_float_array(value, what)
    if why is not None:
        return None, why
    if array.size != 1:
        return None, _("{what} should be one number; got {n} numbers (shape {shape}).").format(what=what, n=array.size, shape=array.shape)  # fmt: skip
    number = float(array.reshape(()))
    return (None, _("{what} is {number}, not a finite number.").format(what=what, number=number)) if np.isnan(number) else (number, None)  # fmt: skip


def read_positions(value, what, n):
    """``value`` as a set of positions 0..n-1 (a list, tuple, set, range or integer array), or (None, why not)."""
    if isinstance(value, str | bytes | dict) or not hasattr(value, "__iter__"):
        return None, _("{what}: answer with a list of positions such as [3, 5]; got {kind}.").format(what=what, kind=type(value).__name__)  # fmt: skip
    positions = set()
    for item in list(value):
        whole = isinstance(item, int | np.integer) or isinstance(item, float | np.floating) and float(item).is_integer()
        if isinstance(item, bool) or not whole:
            return None, _("{what}: positions are whole numbers from 0 to {last}; got {item}.").format(what=what, last=n - 1, item=repr(item))  # fmt: skip
        if not 0 <= int(item) < n:
            return None, _("{what}: positions count from 0 to {last}; got {item}.").format(what=what, last=n - 1, item=int(item))  # fmt: skip
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
            return Feedback(title, False, why)
    if got == truth:
        return Feedback(title, True, success)
    messages = []
    for what in answers:
        if got[what] != truth[what]:
            fill = {"where": _(what), "got": sorted(got[what])}
            said = [_(m.says).format(**fill) for m in mistakes if m.when(got[what], truth[what])]
            messages += said or [_("{where}: {got} is not right: which positions did you miss or add?").format(**fill)]
    return Feedback(title, False, messages, hint=hint, fix=fix)
