"""One runner for every exercise check: call the student's code on a short table of cases, compare, explain.

A check is a table: :class:`Case` rows (the arguments and how the feedback names them) and :class:`Mistake` rows
(a known wrong implementation or a predicate on the student's output, with the three steps of the hint ladder:
what their code did and a question, a further hint, the fix). :func:`check_function` runs the table and explains
the FIRST known mistake on the first case that fails; the answers that are not functions (a choice, a
number, a set of positions) are checked in :mod:`.answers`. None of them raises, whatever the student passes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..i18n import _, get_language
from .feedback import Feedback, _one_line, _short, _student_line, exercise, not_attempted, quiet, unanswered

__all__ = ["Case", "Mistake", "check_function", "implement", "raised", "show", "to_float_array"]


@dataclass(frozen=True)
class Case:
    """The arguments of one call, and how the feedback names the case ("For scores [1, 2] at T = 0.5")."""

    args: tuple
    where: str


@dataclass(frozen=True)
class Mistake:
    """A named mistake: ``says`` (what their code did, and a question; never the fix's code), ``hint``, ``fix``.

    It matches when the student's output equals ``wrong(*args)`` (a known wrong implementation: same shape, NaN
    and inf in the same places, the rest close) or when ``when(got, *args)`` is true (on a right-shaped output,
    or any with ``any_shape``). With neither it is a check's fallback. ``says`` and ``hint`` may contain
    ``{where}`` and ``{got}`` (the student's output, rounded).
    """

    says: str
    hint: str = ""
    fix: str = ""
    wrong: Callable | None = None
    when: Callable | None = None
    any_shape: bool = False  # a ``when`` that reads the shape itself: tried before the wrong-shape message

    @classmethod
    def of(cls, wrong: Callable, says: str, hint: str = "", fix: str = "") -> Mistake:
        """The mistake of a known wrong function: it matches when the student's output equals ``wrong(*args)``."""
        return cls(says, hint, fix, wrong=wrong)

    def matches(self, got, args) -> bool:
        try:
            with quiet():
                if self.when is not None and not self.when(got, *args):
                    return False
                return self.wrong is None or _same(got, self.wrong(*args))
        except Exception:  # noqa: BLE001 - a predicate that does not apply to this output
            return False

    def feedback(self, title, where="", got=None, fix="") -> Feedback:
        where = _(where)  # each text in the course's language (attention_lab.i18n), then its values filled in
        fill = {"where": where, "got": show(got)}
        says, hint = (
            lead(where, t.removeprefix("{where}").lstrip(" ,:，：").format(**fill))
            if t.startswith("{where}")
            else t.format(**fill)
            for t in (_(self.says), _(self.hint) if self.hint else "")
        )
        return Feedback(title, False, [says], hint=hint, fix=self.fix or fix, mistake=self.says)


def lead(where: str, sentence: str) -> str:
    """A case's name and what happened on it, joined as the course writes it: "For x, your ..." (a lower-case
    continuation), "For x: The ..." (a sentence of its own)."""
    where = _(where).rstrip(" ,:，：")
    if get_language() == "zh":
        return f"{where}，{sentence}" if where else sentence
    return f"{where}{', ' if sentence[:1].islower() else ': '}{sentence}" if where else sentence


def _lower(where: str) -> str:
    """A case's name inside a sentence: "for scores ..." (English only; Chinese has no capitals)."""
    return where[:1].lower() + where[1:] if get_language() == "en" else where


def show(value, digits=4) -> str:
    """A result as the student reads it: rounded numbers in a list, or a short repr."""
    try:
        array = np.asarray(_numpy(value), dtype=float)
        return (
            str(np.round(array, digits).tolist())
            if array.size <= 24
            else _("an array of shape {shape}").format(shape=array.shape)
        )
    except Exception:  # noqa: BLE001
        return _short(value)


def to_float_array(value, what=None):
    """``value`` as a float64 array, or (None, a sentence saying why not): tensors, lists, scalars are fine.

    ``what`` names the value in that sentence (default "Your answer")."""
    what = _("Your answer") if what is None else _(what)
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency of the course
        torch = None
    if torch is not None and torch.is_tensor(value):
        if value.is_complex():
            return None, _("{what} is a complex tensor; the answer is real numbers.").format(what=what)
        value = value.detach().cpu().to(torch.float64).numpy()
    if isinstance(value, str | bytes | dict | set):
        return None, _("{what} is a {kind} ({value}), not numbers.").format(what=what, kind=type(value).__name__, value=_short(value))  # fmt: skip
    if isinstance(value, np.ma.MaskedArray):
        return None, _("{what} is a masked array (numpy.ma); return a plain array (np.ma.filled(...)).").format(
            what=what
        )
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - ragged lists and other odd objects
        return None, _("{what} could not be read as an array of numbers ({error}).").format(what=what, error=_one_line(error))  # fmt: skip
    why = {
        "c": _("{what} has complex numbers ({value}); the answer is real."),
        "b": _("{what} is True/False values, not numbers."),
    }.get(array.dtype.kind, None if array.dtype.kind in "iuf" else _("{what} is {kind} {value}, not numbers."))
    if why is not None:
        return None, why.format(what=what, value=_short(value), kind=type(value).__name__)
    try:
        return array.astype(np.float64), None
    except (OverflowError, ValueError) as error:  # pragma: no cover - integers beyond float64
        return None, _("{what} could not be read as float numbers ({error}).").format(what=what, error=_one_line(error))


def raised(error: BaseException) -> str:
    """An exception in the student's terms: its type, its first line, and the line of their code that raised it."""
    return "{error}{line}".format(error=_one_line(error), line=_student_line(error))


def _numpy(value):
    if hasattr(value, "detach"):
        return value.detach().cpu().double().numpy()
    return value


def _same(got, other, atol=1e-6) -> bool:
    """Same shape, NaN and inf in the same places, the finite rest close."""
    got, other = np.asarray(_numpy(got), dtype=float), np.asarray(_numpy(other), dtype=float)
    if got.shape != other.shape or not np.array_equal(np.isnan(got), np.isnan(other)):
        return False
    inf, finite = np.isinf(other), np.isfinite(other)
    if not (np.array_equal(np.isinf(got), inf) and np.array_equal(got[inf], other[inf])):
        return False
    return bool(np.allclose(got[finite], other[finite], atol=atol))


def _describe(value) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        return _("{kind} of shape {shape}").format(kind=type(value).__name__, shape=tuple(shape))
    return " ".join(_short(value, 30).split())  # one line, even for a module's repr


def _call(title, fn, case: Case, names):
    """(output, None) or (None, feedback): the student's function called on a copy of the case's arguments."""
    args = tuple(a.clone() if hasattr(a, "clone") else a.copy() if hasattr(a, "copy") else a for a in case.args)
    try:
        with quiet():
            return fn(*args), None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any error in student code becomes feedback
        called = ", ".join(f"{n}={_describe(a)}" for n, a in zip(names, case.args, strict=False))
        # fmt: off
        return None, Feedback(title, False, _("Your function raised {error} when called as `{fn}({called})` ({where}). Which argument does that line treat differently from what it is (its shape, its type)?").format(error=raised(error), fn=getattr(fn, "__name__", "fn"), called=called, where=_lower(_(case.where)).rstrip(" ,:，：")),
            hint="Call your function yourself with arguments of these shapes and print the shape of each intermediate array, line by line, until one is not what you expect.")
        # fmt: on


def _convert(title, out, case, tensor):
    """The student's output as a float array (or a floating tensor), or feedback in words."""
    if tensor and (not hasattr(out, "detach") or not getattr(out, "is_floating_point", lambda: False)()):
        what = _("dtype {dtype}").format(dtype=out.dtype) if hasattr(out, "dtype") else "{kind} {value}".format(kind=type(out).__name__, value=_short(out))  # fmt: skip
        return None, Feedback(title, False, lead(case.where, _("return a floating-point torch tensor; got {what}.").format(what=what)))  # fmt: skip
    if tensor:
        return out, None
    array, why = to_float_array(out, _("Your function's result"))
    return (None, Feedback(title, False, lead(case.where, why))) if why else (array, None)


def check_function(
    title: str,
    fn,
    cases: Sequence[Case],
    reference: Callable,
    mistakes: Sequence[Mistake] = (),
    *,
    otherwise: Mistake,
    success: str,
    shape: str = "",
    compare: Callable | None = None,
    tensor: bool = False,
    not_finite: Mistake | None = None,
    fix: str = "",
) -> Feedback:
    """Run ``fn`` on each case; the first case whose output differs from ``reference(*args)`` is explained.

    The explanation is the first of ``mistakes`` that matches; else a wrong shape (``shape`` says in words what
    the result holds, e.g. "one weight per score"), else ``not_finite`` for NaN or inf where the reference is
    finite, else ``otherwise``.
    ``compare(got, expected, *args)`` replaces the default comparison (same shape, NaN in the same places).
    ``fix`` is the third step of every row that has none of its own.
    """
    if unanswered(fn):
        return not_attempted(title)
    if not callable(fn):
        return Feedback(title, False, _("Pass your function itself (its name, without parentheses); got {kind} {value}.").format(kind=type(fn).__name__, value=_short(fn)))  # fmt: skip
    try:
        names = list(inspect.signature(reference).parameters)
    except (TypeError, ValueError):  # pragma: no cover - a reference without a signature
        names = []
    for case in cases:
        out, problem = _call(title, fn, case, names)
        if problem is not None:
            return problem
        if unanswered(out):
            return Feedback(title, False, "Your function returned None: replace the `...` with your code, and end it with `return`.", attempted=False)  # fmt: skip
        got, problem = _convert(title, out, case, tensor)
        if problem is not None:
            return problem
        with quiet():
            expected = reference(*case.args)
            right = compare(got, expected, *case.args) if compare else _same(got, expected)
        if right:
            continue
        mine, theirs = np.shape(_numpy(got)), np.shape(_numpy(expected))
        if np.size(_numpy(got)) == 1 == np.size(_numpy(expected)):
            if mine != theirs and _same(np.reshape(_numpy(got), theirs), expected):
                said = _("the number is right, in an array of shape {mine}: one number or an array?").format(mine=mine)
                return Feedback(title, False, lead(case.where, said), hint="Return the number itself, e.g. a float.")
            mine = theirs  # one number: a 0-d array, a float or a 1-element array all do
        # a predicate reads a right-shaped output only (unless it says otherwise); a known wrong function may not
        usable = [m for m in mistakes if mine == theirs or m.when is None or m.any_shape]
        named = next((m for m in usable if m.matches(got, case.args)), None)
        if named is not None:
            return named.feedback(title, case.where, got, fix)
        if mine != theirs:
            # fmt: off
            said = (_("the result should have shape {theirs} ({shape}); yours has shape {mine}. Which axis is missing, extra or swapped?") if shape else
                    _("the result should have shape {theirs}; yours has shape {mine}. Which axis is missing, extra or swapped?"))
            return Feedback(title, False, lead(case.where, said.format(theirs=theirs, shape=_(shape), mine=mine)),
                hint=_("Expected: {expected}; here that is {theirs}. Print the shape of each intermediate array, line by line: which is the first that is not what you expect?").format(expected=_(shape) if shape else _("shape {theirs}").format(theirs=theirs), theirs=theirs),
                fix="{reshape}\n\n{fix}".format(reshape=_reshape(mine, theirs), fix=fix) if fix else _reshape(mine, theirs))
            # fmt: on
        bad = ~np.isfinite(np.asarray(_numpy(got), dtype=float)) & np.isfinite(
            np.asarray(_numpy(expected), dtype=float)
        )
        if not_finite is not None and bad.any():
            return not_finite.feedback(title, case.where, got, fix)
        return otherwise.feedback(title, case.where, got, fix)
    return Feedback(title, True, success)  # Feedback speaks the course's language


def _reshape(mine, theirs) -> str:
    """The fix of a wrong shape, from the two shapes."""
    if sorted(mine) == sorted(theirs):
        says = _("Your axes are all there, in another order: build the result as {theirs} (or move the axes).")
    elif len(mine) > len(theirs):
        says = _("Your result has an axis too many: sum (or pick) over the axis the formula reduces, to get {theirs}.")
    elif len(mine) < len(theirs):
        says = _("Your result has an axis too few: a sum or max (without `keepdims=True`) over the wrong axis, or one that should not be reduced, removed it. The result is {theirs}.")  # fmt: skip
    else:
        says = _("An axis has the wrong length: over which axis did you reduce, and which input's length is left? {theirs}.")  # fmt: skip
    return says.format(theirs=theirs)


def implement(title: str, cases, reference: Callable, mistakes: Sequence[Mistake] = (), *, doc: str, **table):
    """An implement-check from its table: ``check(fn)`` runs :func:`check_function` with ``table``'s keywords.

    ``cases`` is a list of :class:`Case` or a function that builds it (when the check runs); ``doc`` says what
    the student's function must do (the check's docstring). The check keeps its table's ``mistakes`` (what the
    tests and the gradebook replay: each known wrong function, as a student would write it).
    """

    @exercise(title)
    def check(name, fn) -> Feedback:
        return check_function(name, fn, cases() if callable(cases) else cases, reference, mistakes, **table)

    check.__doc__ = doc
    check.mistakes = tuple(mistakes)
    return check
