"""The exercise tables' messages for the gettext catalogue: a Babel extractor (``babel.cfg``'s ``tables``).

The checks are tables (:mod:`.runner`, :mod:`.answers`): their messages are plain string literals in
:class:`~.runner.Case`, :class:`~.runner.Mistake`, the table builders and the small helpers that build rows,
translated when they are shown (:mod:`.feedback` and the runner call :func:`attention_lab.i18n._` on each
before filling in its values), so the tables need no ``_()`` of their own. This extractor finds those
literals, as ``pybabel extract`` finds ``_("...")`` elsewhere: every argument of a call in an exercise module
that is words for the student (not code, not an option value, not a docstring's ``doc=``), with a module-level
string constant passed as one, and so every ``_()`` call too. It reads the source; it imports nothing.
"""

from __future__ import annotations

import ast
import re

__all__ = ["extract", "table_messages"]

_NOT_SHOWN = {"doc"}  # keywords whose text the student never sees in feedback (a check's docstring)


def _texts(node, constants):
    """The message strings a node holds: a literal, ``"...".format(...)``, a module constant, a dict's values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        yield from _texts(node.func.value, constants)
    elif isinstance(node, ast.Name) and node.id in constants:
        yield constants[node.id]
    elif isinstance(node, ast.Dict):  # a multiple choice's options: letter -> what is wrong with it
        for value in node.values:
            yield from _texts(value, constants)
    elif isinstance(node, ast.IfExp):
        yield from _texts(node.body, constants)
        yield from _texts(node.orelse, constants)


def table_messages(source: str) -> list[tuple[int, str]]:
    """(line, message) for every message of the tables and checks in ``source``, in order of appearance."""
    tree = ast.parse(source)
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        chosen = [a for a in node.args if not isinstance(a, ast.Starred)]
        chosen += [k.value for k in node.keywords if k.arg not in _NOT_SHOWN]
        found += [(node.lineno, text) for argument in chosen for text in _texts(argument, constants) if _words(text)]
    return sorted(set(found))


def _words(text: str) -> bool:
    """Whether ``text`` is words for the student: outside its code and placeholders, two words or more (a fix that is
    only code, an option value such as "stable" or a dtype is not translated)."""
    prose = re.sub(r"```.*?```|`[^`]*`|\{[^{}]*\}|<[^>]*>", " ", text, flags=re.S)  # code, placeholders, tags aside
    return (
        re.search(r"\b[A-Za-z]{2,}\s+[A-Za-z]{2,}\b", prose) is not None
        and re.search(r"[A-Za-z]{3,}", prose) is not None
    )


def extract(fileobj, keywords, comment_tags, options):
    """Babel's extractor interface: (line, function name, message, comments) for each message of the file."""
    for line, message in table_messages(fileobj.read().decode(options.get("encoding", "utf-8"))):
        yield line, None, message, []
