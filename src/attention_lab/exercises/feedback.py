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

from ..i18n import _

__all__ = ["Feedback", "exercise", "unanswered", "not_attempted", "quiet"]


class _Text(str):
    """A string that shows as itself (no quotes) when it is the last value of a cell or a prompt."""

    def __repr__(self):
        return str(self)


class Feedback:
    """The verdict on one exercise: ``passed``, the first step ``messages``, and the further ``steps``.

    The first step says what the answer did and asks a question; ``steps`` holds (a further hint, the fix),
    folded behind a click in HTML front ends and a call away in plain text: ``.hint()``, then ``.fix()``.
    """

    def __init__(self, exercise, passed, messages, attempted=True, hint=None, fix=None, mistake=None):
        # in the language the course speaks (attention_lab.i18n): a message with values was translated before
        # they were filled in, a plain one is translated here (a message the catalogue lacks stays as it is)
        self.exercise, self.passed, self.attempted = _(exercise), passed, attempted
        self.messages = [_(m) for m in ([messages] if isinstance(messages, str) else messages)]  # one, or several
        self._hint, self._fix = (_(s) if s else s for s in (hint, fix))
        self.steps = tuple(s for s in (self._hint, self._fix) if s)
        # which known mistake this is, the same in every language and for every value (a table row's untranslated
        # words); None when the check did not name one
        self.mistake = mistake

    def __bool__(self):
        return self.passed

    def record(self, html: bool = False) -> dict:
        """The verdict as data (what the static pages and the gradebook read): ``exercise``, ``passed``,
        ``attempted``, ``messages``, ``hint`` and ``fix`` ("" when absent), in the language it is shown in;
        ``html``: each text as the notebook's HTML shows it (code spans and blocks)."""
        shown = _html if html else str
        return {
            "exercise": self.exercise,
            "passed": bool(self.passed),
            "attempted": bool(self.attempted),
            "messages": [shown(m) for m in self.messages],
            "hint": shown(self._hint) if self._hint else "",
            "fix": shown(self._fix) if self._fix else "",
            "status": self._status(),
            "mistake": self.mistake,
        }

    def hint(self):
        """The second step: a further hint (still not the answer)."""
        return _Text(self._hint or _("No further hint here: the message above says it all."))

    def fix(self):
        """The third step: the fix itself."""
        return _Text(self._fix or _("No fix to show here: the message above says it all."))

    def _status(self):
        if not self.attempted:
            return "✏️ " + _("not attempted yet")
        return "✅ " + _("correct") if self.passed else "❌ " + _("not yet")

    def _title(self):
        """The exercise's name and its verdict, joined as the language joins them (a full-width colon in Chinese)."""
        if self.exercise.endswith(("?", "？")):  # a question needs no colon before its verdict
            return f"{self.exercise} {self._status()}"
        return _("{exercise}: {status}").format(exercise=self.exercise, status=self._status())

    def _more(self):
        if self.passed:  # a right answer offers no hint
            return ""
        names = [n for n, s in (("`.hint()`", self._hint), ("`.fix()`", self._fix)) if s]
        if len(names) == 2:
            return _("(Stuck? Call {hint} then {fix} on this feedback.)").format(hint=names[0], fix=names[1])
        return _("(Stuck? Call {call} on this feedback.)").format(call=names[0]) if names else ""

    def __repr__(self):
        lines = [self._title(), *(f"  - {m}" for m in self.messages)]
        return "\n".join([*lines, f"  {self._more()}".replace("`", "")] if self._more() else lines)

    def _repr_markdown_(self):
        body = "\n".join(f"- {m}" for m in self.messages)
        return f"**{self._title()}**\n\n{body}" + (f"\n\n{self._more()}" if self._more() else "")

    def _repr_html_(self):
        items = "".join(f"<li>{_html(m)}</li>" for m in self.messages)
        folded = "".join(
            f"<details><summary>{label}</summary><div>{_html(text)}</div></details>"
            for label, text in ((_("A further hint"), self._hint), (_("The fix"), self._fix))
            if text and not self.passed
        )
        title = _html(self._title())
        return f"<p><strong>{title}</strong></p><ul>{items}</ul>{folded}"


def _html(text: str) -> str:
    """Plain text with ```fenced``` code blocks (as <pre>) and `code` spans, as HTML."""
    import html

    parts = re.split(r"```[\w-]*\n?(.*?)\n?```", str(text), flags=re.S)  # odd items: the fenced blocks
    return "".join(
        f"<pre><code>{html.escape(part, quote=False)}</code></pre>"
        if i % 2
        else re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(part, quote=False))
        for i, part in enumerate(parts)
    )


def not_attempted(exercise):
    """The feedback for an answer still left as ``...`` (or None)."""
    return Feedback(exercise, False, _("Replace the `...` with your code, then run the cell again."), attempted=False)


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
                _record_for_grading(check.__name__, not_attempted(title))
                return not_attempted(title)
            try:
                with quiet():
                    feedback = check(title, *args, **kwargs)
            except (Exception, SystemExit) as error:  # noqa: BLE001 - the last guard: feedback, never an exception
                feedback = Feedback(title, False, _("Your answer could not be checked: {error}. Look at its type and shape, fix it, and run the cell again.").format(error=_one_line(error)))  # fmt: skip
            if not isinstance(feedback, Feedback):  # pragma: no cover - a check that forgot to return its verdict
                return Feedback(title, False, _("This answer could not be checked (the check gave no verdict)."))
            _record_for_grading(check.__name__, feedback)
            return feedback

        return checked

    return decorate


GRADING_RECORD = "ATTENTION_LAB_GRADING_RECORD"  # the environment variable the gradebook sets (tools/grade.py)


def _record_for_grading(check: str, feedback: Feedback) -> None:
    """With the environment variable ``ATTENTION_LAB_GRADING_RECORD`` set to a file (the gradebook sets it in the
    kernel it runs a submission in), append the verdict to it as one JSON line; otherwise nothing. The student
    sees the same feedback either way."""
    import json
    import os

    path = os.environ.get(GRADING_RECORD)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"check": check, **feedback.record()}, ensure_ascii=False) + "\n")
    except (OSError, TypeError, ValueError):  # a record that cannot be written must not cost the student anything
        pass


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
    if frame.line:
        return _(" (line {n}: `{code}`)").format(n=frame.lineno, code=frame.line.strip())
    return _(" (line {n})").format(n=frame.lineno)


def _short(value, limit=60) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an object whose repr fails
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
