"""Every step of every hint ladder is one string literal: values go in through str.format's named fields, never
through an f-string or string arithmetic, so that a gettext catalogue can extract each message whole."""

import ast
import re
from pathlib import Path

import pytest

EXERCISES = sorted((Path(__file__).parents[2] / "src" / "attention_lab" / "exercises").glob("*.py"))


def _prose(text: str) -> bool:
    """Words a reader reads (markup tags aside): a message fragment, not a separator."""
    return re.search(r"[A-Za-z]{3,}", re.sub(r"<[^>]*>", "", text)) is not None


def _fragments(tree):
    """(line, what) for each f-string with prose in it and each sum of strings with prose in either part."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
            if any(_prose(p) for p in parts):
                yield node.lineno, "an f-string"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            sides = [n.value for n in (node.left, node.right) if isinstance(n, ast.Constant)]
            if any(isinstance(s, str) and _prose(s) for s in sides):
                yield node.lineno, "a sum of strings"


@pytest.mark.parametrize("path", EXERCISES, ids=[p.name for p in EXERCISES])
def test_no_message_is_glued_from_fragments(path):
    found = list(_fragments(ast.parse(path.read_text(encoding="utf-8"))))
    assert not found, f"{path.name}: " + ", ".join(f"line {line}: {what}" for line, what in found)


def test_the_rule_finds_fragments():
    code = 'a = f"For {x}, your weights"\nb = "Tie rule: " + RULE\nc = f"<li>{m}</li>"\nd = "{x} ok".format(x=1)'
    assert [line for line, _ in _fragments(ast.parse(code))] == [1, 2]
