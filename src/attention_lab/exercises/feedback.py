"""The shared runner of the exercise checks: feedback in words, never an exception.

Each ``check_*`` function returns a :class:`Feedback` that shows as a short report in the notebook. A
check never raises, whatever it is given (the :func:`exercise` decorator turns any error inside a check
into feedback too), so a notebook with unfinished or odd answers still runs top to bottom. An exercise
stub whose body is ``...`` returns None, which reads as "not attempted yet".
"""

from __future__ import annotations

import contextlib
import functools
import re
import warnings

import numpy as np

__all__ = [
    "Feedback",
    "exercise",
    "unanswered",
    "not_attempted",
    "run_student",
    "to_float_array",
    "as_numbers",
    "one_number_per_case",
    "not_finite",
    "close",
    "quiet",
    "known_mistake",
]


class _Text(str):
    """A string that shows as itself (no quotes) when it is the last value of a cell or a prompt."""

    def __repr__(self):
        return str(self)


class Feedback:
    """The verdict on one exercise: ``passed``, the first step ``messages``, and the further ``steps``.

    The first step says what the answer did and asks a question; ``steps`` holds (a further hint, the fix),
    folded behind a click in HTML front ends and a call away in plain text: ``.hint()``, then ``.fix()``.
    """

    def __init__(self, exercise, passed, messages, attempted=True, hint=None, fix=None):
        self.exercise, self.passed, self.attempted = exercise, passed, attempted
        self.messages = list(messages)
        self.steps = tuple(s for s in (hint, fix) if s)
        self._hint, self._fix = hint, fix

    def __bool__(self):
        return self.passed

    def hint(self):
        """The second step: a further hint (still not the answer)."""
        return _Text(self._hint or "No further hint here: the message above says it all.")

    def fix(self):
        """The third step: the fix itself."""
        return _Text(self._fix or "No fix to show here: the message above says it all.")

    def _status(self):
        if not self.attempted:
            return "✏️ not attempted yet"
        return "✅ correct" if self.passed else "❌ not yet"

    def _more(self):
        names = [n for n, s in (("`.hint()`", self._hint), ("`.fix()`", self._fix)) if s]
        return f"(Stuck? Call {' then '.join(names)} on this feedback.)" if names else ""

    def __repr__(self):
        lines = [f"{self.exercise}: {self._status()}", *(f"  - {m}" for m in self.messages)]
        return "\n".join([*lines, f"  {self._more()}".replace("`", "")] if self.steps else lines)

    def _repr_markdown_(self):
        body = "\n".join(f"- {m}" for m in self.messages)
        return f"**{self.exercise}: {self._status()}**\n\n{body}" + (f"\n\n{self._more()}" if self.steps else "")

    def _repr_html_(self):
        items = "".join(f"<li>{_html(m)}</li>" for m in self.messages)
        folded = "".join(
            f"<details><summary>{label}</summary><p>{_html(text)}</p></details>"
            for label, text in (("A further hint", self._hint), ("The fix", self._fix))
            if text
        )
        return f"<p><strong>{_html(self.exercise)}: {self._status()}</strong></p><ul>{items}</ul>{folded}"


def _html(text: str) -> str:
    """Plain text with `code` spans, as HTML."""
    import html

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(str(text), quote=False))


def not_attempted(exercise):
    """The feedback for an answer still left as ``...`` (or None)."""
    return Feedback(exercise, False, ["Replace the `...` with your code, then run the cell again."], attempted=False)


def unanswered(value) -> bool:
    """True for the stub answers ``...`` and None."""
    return value is None or value is Ellipsis


def exercise(name):
    """Decorator for a ``check_*`` function: a stub answer reads "not attempted", and no error ever escapes.

    ``name`` is the exercise's title, a string or a function of the check's arguments. If the check itself
    fails on an answer it did not foresee, the student sees what went wrong in one line, not a traceback.
    """

    def decorate(check):
        @functools.wraps(check)
        def checked(*args, **kwargs):
            try:
                title = name(*args, **kwargs) if callable(name) else name
            except Exception:  # noqa: BLE001 - a title built from odd arguments must not crash either
                title = check.__name__.removeprefix("check_").replace("_", " ")
            if not isinstance(title, str):
                title = check.__name__.removeprefix("check_").replace("_", " ")
            if args and unanswered(args[0]):
                return not_attempted(title)
            try:
                with quiet():
                    feedback = check(title, *args, **kwargs)
            except (Exception, SystemExit) as error:  # noqa: BLE001 - the last guard: feedback, never an exception
                return Feedback(
                    title,
                    False,
                    [
                        f"Your answer could not be checked: {_one_line(error)}. "
                        "Look at its type and shape, fix it, and run the cell again."
                    ],
                )
            if not isinstance(feedback, Feedback):  # pragma: no cover - a check that forgot to return its verdict
                return Feedback(title, False, ["This answer could not be checked (the check gave no verdict)."])
            return feedback

        return checked

    return decorate


@contextlib.contextmanager
def quiet():
    """No warnings while a check (or the student's function inside it) runs: the feedback says in words what
    went wrong (an overflow shows up as inf or NaN in the result), and the notebook's stderr stays clean."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _one_line(error: BaseException) -> str:
    try:
        text = str(error).strip().splitlines()
    except Exception:  # noqa: BLE001 - an exception whose str fails
        text = []
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def _student_line(error: BaseException) -> str:
    """Where in the student's own code the error happened: 'line N: source', or '' when unknown."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if "attention_lab" not in (f.filename or "")]
    if not mine:
        return ""
    frame = mine[-1]
    return f" (line {frame.lineno}: `{(frame.line or '').strip()}`)" if frame.line else f" (line {frame.lineno})"


def run_student(exercise, fn, *args):
    """Run the student's function; a crash, a non-function or a None result becomes feedback, never an exception."""
    if unanswered(fn):
        return None, not_attempted(exercise)
    if not callable(fn):
        return None, Feedback(
            exercise,
            False,
            [f"Pass your function itself (its name, without parentheses); got {type(fn).__name__} {_short(fn)}."],
        )
    try:
        with quiet():
            result = fn(*args)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any error in student code becomes feedback
        return None, Feedback(exercise, False, [f"Your function raised {_one_line(error)}{_student_line(error)}."])
    if unanswered(result):
        return None, not_attempted(exercise)
    return result, None


def _short(value, limit=60) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an object whose repr fails
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def to_float_array(value, what="Your answer"):
    """``value`` as a float64 array, or (None, a sentence saying why not): tensors, lists, scalars are fine."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency of the course
        torch = None
    if torch is not None and torch.is_tensor(value):
        if value.is_complex():
            return None, f"{what} is a complex tensor; the answer is real numbers."
        value = value.detach().cpu().to(torch.float64).numpy()
    if isinstance(value, str | bytes | dict | set):
        return None, f"{what} is a {type(value).__name__} ({_short(value)}), not numbers."
    if isinstance(value, np.ma.MaskedArray):
        return None, f"{what} is a masked array (numpy.ma); return a plain array (np.ma.filled(...))."
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - ragged lists and other odd objects
        return None, f"{what} could not be read as an array of numbers ({_one_line(error)})."
    if array.dtype.kind == "c":
        return None, f"{what} has complex numbers ({_short(value)}); the answer is real."
    if array.dtype.kind == "b":
        return None, f"{what} is True/False values, not numbers."
    if array.dtype.kind not in "iuf":
        return None, f"{what} is {type(value).__name__} {_short(value)}, not numbers."
    try:
        return array.astype(np.float64), None
    except (OverflowError, ValueError) as error:  # pragma: no cover - integers beyond float64
        return None, f"{what} could not be read as float numbers ({_one_line(error)})."


def as_numbers(exercise, fn, *args, finite_advice: str | None = None):
    """:func:`run_student`, then the result as a float array (or feedback saying it is not numbers).

    With ``finite_advice`` a result holding NaN or inf is feedback too (:func:`not_finite`, with that advice);
    without it the check sees such a result and may explain it itself (an overflow, a 0/0, ...).
    """
    result, problem = run_student(exercise, fn, *args)
    if problem is not None:
        return None, problem
    array, why = to_float_array(result, "Your function's result")
    if why is not None:
        return None, Feedback(exercise, False, [why])
    if finite_advice is not None:
        bad = not_finite(exercise, array, finite_advice)
        if bad is not None:
            return None, bad
    return array, None


def one_number_per_case(exercise, fn, cases, what: str):
    """``fn(*case)`` for each case, each one number: (an array of the numbers, None) or (None, the feedback).

    ``what`` names the number in the message for an answer that is not one number, e.g. "bytes"."""
    answers = []
    for case in cases:
        got, problem = as_numbers(exercise, fn, *case)
        if problem is not None:
            return None, problem
        if got.size != 1:
            return None, Feedback(exercise, False, [f"Return one number ({what}), got an array of shape {got.shape}."])
        answers.append(float(got.reshape(())))
    return np.array(answers), None


def not_finite(exercise, got, advice):
    """Feedback for an answer with NaN or inf entries (None when all are finite): say so, never guess a cause."""
    if np.all(np.isfinite(got)):
        return None
    kinds = " and ".join(k for k, bad in (("NaN", np.isnan(got).any()), ("inf", np.isinf(got).any())) if bad)
    return Feedback(
        exercise,
        False,
        [f"Your result contains {kinds} ({int((~np.isfinite(got)).sum())} of {got.size} entries).", advice],
    )


def close(a, b, atol=1e-6):
    """Same shape and all entries close (NaN is never close to anything)."""
    return np.shape(a) == np.shape(b) and bool(np.allclose(a, b, atol=atol, equal_nan=False))


def known_mistake(got, mistakes, atol=1e-6):
    """The hint of the first ``(wrong answer, hint)`` in ``mistakes`` that ``got`` matches, or None."""
    return next((hint for wrong, hint in mistakes if close(got, wrong, atol=atol)), None)
