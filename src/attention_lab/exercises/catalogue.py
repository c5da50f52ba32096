"""The exercise modules' messages for the gettext catalogue: a Babel extractor (``babel.cfg``'s ``tables``).

The checks are tables (:mod:`.runner`, :mod:`.answers`) and small functions: their messages are plain string
literals, translated when they are shown (:mod:`.feedback`, the runner and :func:`~.answers.check_choice` call
:func:`attention_lab.i18n._` on each before filling in its values), so the tables need no ``_()`` of their own.
This extractor finds those literals wherever they stand: an argument of a call, a module constant, a dict's
values (a choice's options, a table of rates), an assignment inside a check. It takes every string literal of an
exercise module that is words for the student, and every argument of ``_()`` whatever its length ("correct").
It leaves out what a student never reads: docstrings, a check's ``doc=``, dict keys, and strings that are
code (an option value such as "stable", a dtype, an einsum). It reads the source; it imports nothing.
"""

from __future__ import annotations

import ast
import re

__all__ = ["extract", "table_messages"]

_NOT_SHOWN = {"doc"}  # keywords whose text the student never sees in feedback (a check's docstring)
_MARKERS = {"_", "N_"}  # gettext's own marks: their argument is a message, one word or many


def _docstrings(tree) -> set[int]:
    """The ids of the docstring nodes of the module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _never_shown(tree) -> set[int]:
    """The ids of string nodes that are code, not words: docstrings, ``doc=`` values, dict keys, comparison
    operands, subscripts and the codes of a ``((codes, ...), message)`` row (a library's error texts to match)."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in _NOT_SHOWN:
            skip |= {id(n) for n in ast.walk(node.value)}
        elif isinstance(node, ast.Dict):
            skip |= {id(k) for k in node.keys if k is not None}
        elif isinstance(node, ast.Compare):
            skip |= {id(n) for n in (node.left, *node.comparators)}
        elif isinstance(node, ast.Subscript):
            skip |= {id(n) for n in ast.walk(node.slice)}
        elif isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Tuple):
            codes = node.elts[0].elts  # a row (codes, message): the codes are a library's error texts to match
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in codes):
                skip |= {id(e) for e in codes}
    return skip


def _marked(tree) -> set[int]:
    """The ids of the string arguments of ``_()`` and ``N_()`` calls."""
    return {
        id(argument)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _MARKERS
        for argument in node.args
    }


def table_messages(source: str) -> list[tuple[int, str]]:
    """(line, message) for every message of the tables and checks in ``source``, in order of appearance."""
    tree = ast.parse(source)
    skip, marked = _never_shown(tree), _marked(tree)
    found = {
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        if (id(node) in marked and re.search(r"[A-Za-z]", node.value)) or _words(node.value)
    }
    return sorted(found)


def _words(text: str) -> bool:
    """Whether ``text`` is words for the student: outside its code and placeholders, a word of three letters or more,
    and more than one token (a fix that is only code, an option value such as "stable", a dtype or a name such as
    "mean" is not translated; "For w = 1.3 and 4 queries" is)."""
    prose = re.sub(r"```.*?```|`[^`]*`|\{[^{}]*\}|<[^>]*>", " ", text, flags=re.S)  # code, placeholders, tags aside
    return re.search(r"[A-Za-z]{3,}", prose) is not None and re.fullmatch(r"\s*[\w.\-]*\s*", prose) is None


def extract(fileobj, keywords, comment_tags, options):
    """Babel's extractor interface: (line, function name, message, comments) for each message of the file."""
    for line, message in table_messages(fileobj.read().decode(options.get("encoding", "utf-8"))):
        yield line, None, message, []
