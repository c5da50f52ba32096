"""One symbol, one meaning (issue 42, deliverable 3): the glossary's promise tested by meanings, not only presence.

``test_lesson.py`` checks that every symbol of the notebooks' math has one glossary row. This file checks what the
symbols *mean*:

1. Each notebook declares the symbols it uses with their meanings, in a line of its markdown that starts with
   "Notation" (up to the first full stop outside math): items separated by commas or semicolons, each a few words
   and one or more symbols, "keys $k_i$", "$n_s$ samples", "the $k_{\\text{top}}$ nearest keys". A declared symbol
   must have a glossary row (or a "Local symbols" row naming the notebook), and the declared meaning must share a
   word with that row's meaning: "the count $k$" fails, since the glossary's $k$ is a key.
2. The glossary's "in code" column gives each code name one meaning: a name in two rows is an error, except in
   :data:`SHARED_CODE_NAMES`, each with its reason.
3. A glossary code name bound in a notebook's code (assigned, a loop variable, an argument) must mean there what
   the glossary says: the notebook must use that row's symbol in its math or its declaration. 03's
   ``for b in bandwidths`` fails (the glossary's ``b`` is 02's slope, and 03 has no $b$).

Notebooks whose declaration is not checked yet are listed in :data:`NOT_YET_DECLARED` (their tests are skipped,
with the reason); the set only shrinks, and the lead empties it once every notebook declares its symbols.
"""

from __future__ import annotations

import ast
import json
import re

import pytest
import test_lesson as lesson
from helpers import NOTEBOOKS, ROOT

GLOSSARY = ROOT / "notebooks" / "glossary.md"
NOT_YET_DECLARED: set[str] = set()  # every notebook declares its symbols
SHARED_CODE_NAMES = {
    "num_hiddens": "d2l's argument name, kept by the library both for the additive score's hidden units (d_h) and "
    "for the seq2seq GRU's state size (d_s)",
    "x": "the input x (03's queries, a sequence's inputs) and one row of X: the same kind of thing, a row is an input",
    "weight": "the library's (PyTorch's) attribute of a learned matrix W and of layer normalisation's gain",
    "queries": "the vectors q and their matrix Q: the same things, one row per query",
    "keys": "the vectors k_i and their matrix K: the same things, one row per key",
    "values": "the vectors v_i and their matrix V: the same things, one row per value",
    "attention_weights": "the weights lambda_ij, whose axis 1 counts the heads m in multi-head attention",
}
# A notebook's code name that still means something else, with the reason it stands (reported in issue 42's note)
KNOWN_CLASHES = {}
STOP = set(
    "the a an of in on at to for and or with by its their from as is are be this that which what each one two "
    "into over per not only all any here there where when".split()
)
MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
IDENTIFIER = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", re.sub(r"\$[^$]*\$", " ", text.lower()))
    return {_singular(w) for w in words if w not in STOP and len(w) >= 3}


def _singular(word: str) -> str:
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _split_outside_math(text: str, separators: str) -> list[str]:
    parts, current, in_math = [], "", False
    for char in text:
        if char == "$":
            in_math = not in_math
        if char in separators and not in_math:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _symbols(math: str) -> list[str]:
    """The symbols a piece of math declares: left of its "=", without a trailing argument list."""
    head = re.sub(r"\((?:[^()]|\([^()]*\))*\)$", "", math.split("=", 1)[0].strip())
    return sorted(lesson.math_symbols(head))


def _table_pairs(table: str) -> list[tuple[str, str]]:
    """(symbol, meaning) pairs of a declaration table "| symbol | meaning |": each symbol of a row's first column
    with the row's meaning; where both columns hold as many ";"-separated parts, each part with its own."""
    pairs = []
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in _split_outside_math(line.strip().strip("|"), "|")]
        if len(cells) < 2:
            continue
        groups, meanings = _split_outside_math(cells[0], ";"), _split_outside_math(cells[1], ";")
        if len(groups) != len(meanings):
            groups, meanings = [cells[0]], [cells[1]]
        for group, meaning in zip(groups, meanings, strict=True):
            if "\\partial" in group:  # a derivative, such as the softmax Jacobian, names no new symbol
                continue
            for display, inline in MATH.findall(group):
                pairs += [(symbol, meaning.strip()) for symbol in _symbols(display or inline)]
    return pairs


def declaration(nb) -> list[tuple[str, str]] | None:
    """The (symbol, meaning) pairs of a notebook's "Notation" line (or of the "| symbol | meaning |" table right
    after a "Notation:" paragraph), or None when it has none."""
    for text in lesson._markdown(nb):
        paragraphs = text.split("\n\n")
        for index, paragraph in enumerate(paragraphs):
            if paragraph.startswith("Notation"):
                following = paragraphs[index + 1] if index + 1 < len(paragraphs) else ""
                if re.match(r"\|\s*symbol\s*\|\s*meaning\s*\|", following):
                    return _table_pairs(following)
                line = paragraph.split(":", 1)[1].replace("\n", " ")
                sentence = re.split(r"(?<=[.])\s", " ".join(_split_outside_math(line, "\x00")))[0]
                pairs = []
                for item in _split_outside_math(sentence.rstrip(". "), ",;"):
                    for display, inline in MATH.findall(item):
                        head = re.sub(r"\((?:[^()]|\([^()]*\))*\)$", "", (display or inline).split("=", 1)[0].strip())
                        pairs += [(symbol, item.strip()) for symbol in sorted(lesson.math_symbols(head))]
                return pairs
    return None


def glossary_meanings(markdown: str) -> tuple[dict[str, str], dict[str, list[tuple[set, str]]]]:
    """(symbol -> the meaning of its row, symbol -> [(notebooks, meaning)] of the local rows)."""
    global_rows, local_rows = lesson.glossary_rows(markdown)
    meanings = {symbol: cells[0] for heads, _covered, cells in global_rows for symbol in heads}
    local: dict[str, list[tuple[set, str]]] = {}
    for heads, _covered, cells in local_rows:
        for symbol in heads:
            local.setdefault(symbol, []).append((set(re.findall(r"\d\d", cells[0])), cells[-1]))
    return meanings, local


def code_rows(markdown: str) -> dict[str, list[frozenset[str]]]:
    """code name -> the glossary rows (their symbols) whose "in code" column lists it."""
    rows: dict[str, list[frozenset[str]]] = {}
    for heads, _covered, cells in lesson.glossary_rows(markdown)[0]:
        if len(cells) >= 3 and heads:
            for name in dict.fromkeys(IDENTIFIER.findall(cells[1])):
                rows.setdefault(name, []).append(frozenset(heads))
    return rows


def code_names(markdown: str) -> dict[str, set[str]]:
    """code name -> the symbols of the glossary rows that list it."""
    return {name: set().union(*rows) for name, rows in code_rows(markdown).items()}


def declaration_problems(number: str, pairs, markdown: str) -> list[str]:
    meanings, local = glossary_meanings(markdown)
    problems = []
    for symbol, said in pairs:
        rows = [m for notebooks, m in local.get(symbol, []) if number in notebooks]
        rows += [meanings[symbol]] if symbol in meanings else []
        base = symbol.split("_", 1)[0]
        rows += [meanings[base]] if not rows and base != symbol and base in meanings else []  # W_q: a W told apart
        if not rows:
            problems.append(f"notebook {number} declares {symbol}, which the glossary does not list for it")
        elif not any(_stems(said) & _stems(row) for row in rows):
            problems.append(f"notebook {number} declares {symbol} as '{said}'; the glossary says '{rows[0][:80]}'")
    return problems


def shared_code_name_problems(markdown: str, shared=SHARED_CODE_NAMES) -> list[str]:
    return [
        f"the glossary gives the code name `{name}` to {len(rows)} rows: {[sorted(row) for row in rows]}"
        for name, rows in sorted(code_rows(markdown).items())
        if len(rows) > 1 and name not in shared
    ]


def bound_names(source: str) -> set[str]:
    """The names a cell's code binds: assignments, loop and comprehension variables, arguments, ``as`` targets."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def code_name_problems(number: str, nb, markdown: str) -> list[str]:
    """Glossary code names a notebook binds although it never uses the glossary's symbol for them."""
    used = lesson.notebook_symbols(nb) | {symbol for symbol, _ in declaration(nb) or []}
    names = code_names(markdown)
    problems = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code" or "colab-setup" in lesson._tags(cell):  # the set-up, not the lesson
            continue
        for name in sorted(bound_names(lesson._source(cell)) & set(names)):
            if name not in SHARED_CODE_NAMES and (number, name) not in KNOWN_CLASHES and not names[name] & used:
                problems.append(
                    f"notebook {number}, cell {cell.get('id')}: `{name}` is the glossary's code name for "
                    f"{sorted(names[name])}, a symbol this notebook does not use; rename it"
                )
    return problems


def _number(path) -> str:
    return path.name[:2]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_each_notebook_declares_its_symbols_with_the_glossarys_meanings(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    pairs = declaration(nb)
    if _number(path) in NOT_YET_DECLARED:
        pytest.skip(f"{path.name}: its Notation line is not checked yet (NOT_YET_DECLARED)")
    assert pairs, f"{path.name} declares no symbols: add a 'Notation: meaning $symbol$, ...' line"
    assert not declaration_problems(_number(path), pairs, GLOSSARY.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_glossary_code_names_mean_the_same_in_each_notebook(path):
    if _number(path) in NOT_YET_DECLARED:
        pytest.skip(f"{path.name}: not declared yet (NOT_YET_DECLARED)")
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert not code_name_problems(_number(path), nb, GLOSSARY.read_text(encoding="utf-8"))


def test_each_code_name_has_one_row_in_the_glossary():
    assert not shared_code_name_problems(GLOSSARY.read_text(encoding="utf-8"))


GLOSSARY_SAMPLE = """## Symbols and their names in code

| symbol | meaning | in code | first in |
|---|---|---|---|
| $k_i$ | the $i$-th key: what item $i$ offers to be matched on | `keys`, `k` | 01 |
| $b$ | in 02: the slope of a score that depends on the position | `b` | 02 |
| $k_{\\text{top}}$ | top-k keeps the $k_{\\text{top}}$ largest scores | `top_k` | 02 |
| $h$ | bandwidth, the kernel's width | `bandwidth`, `h` | 03 |

## Local symbols

| symbol | notebook | meaning |
|---|---|---|
| $P$ | 07 | a permutation matrix |
"""


def _notebook(*cells):
    return {"cells": [{"cell_type": kind, "id": f"c{i}", "source": text} for i, (kind, text) in enumerate(cells)]}


def test_a_declaration_with_another_meaning_fails():
    good = declaration(_notebook(("markdown", "Notation: keys $k_i$; the $k_{\\text{top}}$ largest scores. Then $x$.")))
    assert good == [("k", "keys $k_i$"), ("k_top", "the $k_{\\text{top}}$ largest scores")]
    assert not declaration_problems("02", good, GLOSSARY_SAMPLE)
    wrong = declaration(_notebook(("markdown", "Notation: the count $k$, probability $P$, slope $b$.")))
    problems = declaration_problems("03", wrong, GLOSSARY_SAMPLE)
    assert "notebook 03 declares k as 'the count $k$'; the glossary says 'the $i$-th key: what item $i$ offers to be " \
        "matched on'" in problems  # fmt: skip
    assert "notebook 03 declares P, which the glossary does not list for it" in problems  # 07's, not 03's
    assert not any(p.startswith("notebook 03 declares b as") for p in problems)  # the meaning matches; 02's by row


def test_a_code_name_bound_for_another_meaning_fails():
    nb = _notebook(
        ("markdown", "Notation: bandwidth $h$."),
        ("code", "preds = [fit(bandwidth=b) for b in bandwidths]\nh = 0.3\n%matplotlib inline"),
    )
    problems = code_name_problems("03", nb, GLOSSARY_SAMPLE)
    assert problems == [
        "notebook 03, cell c1: `b` is the glossary's code name for ['b'], a symbol this notebook does not use; "
        "rename it"
    ]
    source = "def f(alpha, k):\n    for i, (x, y) in enumerate(z):\n        pass"
    assert bound_names(source) == {"alpha", "k", "i", "x", "y"}


def test_a_code_name_in_two_rows_fails():
    doubled = GLOSSARY_SAMPLE.replace("| `bandwidth`, `h` |", "| `bandwidth`, `b` |")
    assert shared_code_name_problems(doubled) == ["the glossary gives the code name `b` to 2 rows: [['b'], ['h']]"]
    assert not shared_code_name_problems(doubled, shared={"b": "a reason"})
