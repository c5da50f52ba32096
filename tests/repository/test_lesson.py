"""A lesson, not a lab report (issue 30): static checks of the notebooks' cells, fast, no kernel.

1. Asserts: no visible code cell (not tagged ``check``, not ``source_hidden``) holds more than
   :data:`MAX_ASSERTS_PER_CELL` asserts, and a notebook's visible cells hold at most
   :data:`MAX_ASSERTS_PER_NOTEBOOK`.
2. Prose says findings, not bookkeeping: no markdown cell says "asserted", "printed above", "the check cell",
   "seed sweep", "six seeds" or names a ``tools/`` path, except for one paragraph of notebook 00 (the one that
   tells, once, how the course keeps its numbers honest), which may name the tools and the seed sweep.
3. Every number the prose quotes as a finding is computed or checked. From each markdown cell, after removing
   math (``$...$`` and ``$$...$$``: their numbers are a formula's constants or the reader's inputs), inline and
   fenced code, HTML comments and link targets, the test takes the decimal numbers ("0.0297"), percentages
   ("46%") and ratios ("5.8x", "5.8×"); whole numbers (counts, years, section numbers) are not taken, nor
   version numbers (3.11.2). Each must appear in a ``# quoted: ...`` comment of one of the notebook's check
   cells, or in some code cell's source (as text, e.g. an input the reader sees; or as a numeric literal of
   the same value, ``5e-3`` for "0.005", ``0.9`` for "90%"), or in :data:`ALLOWED` with a reason.
   ``pytest -v`` lists every number with its notebook.
4. Check cells carry the metadata CONTRIBUTING.md describes: ``tags`` with ``check``,
   ``jupyter.source_hidden``, slide type ``skip``, a first line ``# Check: ...``; and a code cell opening
   with ``# Check:`` is tagged ``check``.
5. "Going further": every numbered notebook (01-09) has a ``## Going further: `` section; every cell of such
   a section (up to the next ``## `` heading that is not Going further) is tagged ``going-further`` and no
   cell outside is; after the first such section no numbered core section (``## N. ...``) starts, except the
   Exercises section.
6. Times: ``python -m tools.lesson_times --check`` passes; each numbered notebook's first cell and the README's
   table say the times of ``metadata.attention_lab.minutes``.
7. Glossary (issue 30, item 7): every symbol of the notebooks' math is in the glossary once (a row of the
   symbol table, or the "Local symbols" table for the notebooks named there), and no symbol has two rows.
   The symbols are found by a heuristic, :func:`math_symbols` (see its docstring).

Each rule is a function returning its problems; each has a negative test on a tiny synthetic notebook.
"""

from __future__ import annotations

import io
import json
import math
import re
import tokenize

import pytest
from helpers import NOTEBOOKS, ROOT

from tools import lesson_times

NUMBERED = [p for p in NOTEBOOKS if re.match(r"0[1-9]_", p.name)]
GLOSSARY = ROOT / "notebooks" / "glossary.md"
MAX_ASSERTS_PER_CELL = 3
MAX_ASSERTS_PER_NOTEBOOK = 12

# numbers the prose quotes that are neither findings nor in code: (notebook number, text): reason
ALLOWED = {
    ("09", "10%"): "the held-out share, the rest of the 90% split (0.9 in the code)",
    ("04", "10.2"): "a section number of Dive into Deep Learning (a citation, not a finding)",
    ("04", "11.2"): "a section number of Dive into Deep Learning 1.0 (a citation, not a finding)",
}


def _load(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _visible_code(cell) -> bool:
    hidden = cell.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)
    return cell.get("cell_type") == "code" and "check" not in _tags(cell) and not hidden


def _markdown(nb) -> list[str]:
    return [_source(c) for c in nb["cells"] if c.get("cell_type") == "markdown"]


def _nb(*cells) -> dict:
    """A tiny notebook: cells given as ("markdown"|"code", source) or (kind, source, metadata)."""
    out = []
    for kind, source, *meta in cells:
        cell = {"cell_type": kind, "metadata": meta[0] if meta else {}, "source": source}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        out.append(cell)
    return {"cells": out, "metadata": {}}


CHECK_META = {"tags": ["check"], "jupyter": {"source_hidden": True}, "slideshow": {"slide_type": "skip"}}


# --- 1. asserts ------------------------------------------------------------------------------------------


def assert_problems(nb) -> list[str]:
    problems, total = [], 0
    for index, cell in enumerate(nb["cells"]):
        if _visible_code(cell):
            count = len(re.findall(r"^\s*assert\b", _source(cell), re.MULTILINE))
            total += count
            if count > MAX_ASSERTS_PER_CELL:
                problems.append(f"cell {index} ({cell.get('id', '?')}): {count} asserts in a visible cell")
    if total > MAX_ASSERTS_PER_NOTEBOOK:
        problems.append(f"{total} asserts in visible cells (at most {MAX_ASSERTS_PER_NOTEBOOK})")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem[:2] for p in NOTEBOOKS])
def test_visible_cells_hold_few_asserts(path):
    problems = assert_problems(_load(path))
    assert not problems, f"{path.name}: move the evidence into check cells:\n" + "\n".join(problems)


def test_assert_rule_can_fail():
    four = "assert a\nassert b\n  assert c\nassert d"
    assert assert_problems(_nb(("code", four)))
    assert not assert_problems(_nb(("code", four, CHECK_META)))  # a check cell may hold them
    assert assert_problems(_nb(*[("code", "assert x\nassert y")] * 7))  # 14 in a notebook


# --- 2. bookkeeping --------------------------------------------------------------------------------------

BOOKKEEPING = re.compile(
    r"\basserted\b|\bprinted (?:above|below)\b|\(printed\b|\bthe check cell\b|\bsix (?:training )?seeds\b",
    re.IGNORECASE,
)
TOOLS = re.compile(r"\bseed[ _-]sweep\b|\btools/\w+", re.IGNORECASE)


def bookkeeping_problems(nb, honesty_paragraphs: int = 0) -> list[str]:
    """Markdown paragraphs that narrate bookkeeping; ``honesty_paragraphs`` may name tools (00's one)."""
    problems, naming_tools = [], []
    for index, text in enumerate(_markdown(nb)):
        text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)  # e.g. "written by tools/launch_buttons.py"
        for paragraph in re.split(r"\n\s*\n", text):
            if found := BOOKKEEPING.findall(paragraph):
                problems.append(f"markdown cell {index}: {found} in {paragraph[:70]!r}...")
            if found := TOOLS.findall(paragraph):
                naming_tools.append(f"markdown cell {index}: {found} in {paragraph[:70]!r}...")
    return problems + naming_tools[honesty_paragraphs:]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem[:2] for p in NOTEBOOKS])
def test_prose_says_findings_not_bookkeeping(path):
    problems = bookkeeping_problems(_load(path), honesty_paragraphs=1 if path.name.startswith("00_") else 0)
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_bookkeeping_rule_can_fail():
    assert bookkeeping_problems(_nb(("markdown", "The loss falls (asserted).")))
    assert bookkeeping_problems(_nb(("markdown", "As printed above, it held for six seeds.")))
    tools = _nb(("markdown", "The seed sweep (`tools/seed_sweep.py`) runs them.\n\nAgain tools/bench.py."))
    assert len(bookkeeping_problems(tools, honesty_paragraphs=1)) == 1
    assert not bookkeeping_problems(_nb(("markdown", "Across training seeds it lands between 0.8 and 0.9.")))


# --- 3. quoted numbers -----------------------------------------------------------------------------------

NOT_PROSE = re.compile(
    r"\$\$.*?\$\$|(?<!\\)\$.*?(?<!\\)\$|```.*?```|`[^`]*`|<!--.*?-->|\]\([^)]*\)|https?://\S+", re.DOTALL
)
QUOTED_NUMBER = re.compile(r"(?<![\w.,/-])(\d+(?:\.\d+)?)(?![\d.,]\d|\d)(?:(\s?%)|([x×])(?!\w))?")


def quoted_numbers(markdown: str) -> list[str]:
    """The decimal numbers, percentages and ratios of a markdown text, outside math and code."""
    prose, found = NOT_PROSE.sub(" ", markdown), []
    for match in QUOTED_NUMBER.finditer(prose):
        number, percent, ratio = match.groups()
        if "." in number or percent or ratio:
            found.append(match.group(0).replace(" ", ""))
    return found


def _literals(code: str) -> set[float]:
    lines = [("" if line.lstrip().startswith(("%", "!")) else line) for line in code.splitlines()]
    values = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type == tokenize.NUMBER:
                try:
                    values.add(float(token.string.replace("_", "").rstrip("jJ")))
                except ValueError:
                    pass
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return values


def number_evidence(nb) -> tuple[str, str, set[float]]:
    """(text of the ``# quoted:`` comments of check cells, all code source, numeric literals of the code)."""
    code = [_source(c) for c in nb["cells"] if c.get("cell_type") == "code"]
    quoted = "\n".join(
        m for c in nb["cells"] if "check" in _tags(c) for m in re.findall(r"#\s*quoted:\s*(.*)", _source(c))
    )
    return quoted, "\n".join(code), set().union(*map(_literals, code)) if code else set()


def is_backed(text: str, evidence, allowed=()) -> bool:
    quoted, code, literals = evidence
    if text in allowed or text in quoted or re.search(rf"(?<![\w.]){re.escape(text)}(?![\d])", code):
        return True
    value = float(re.match(r"\d+(?:\.\d+)?", text).group(0))
    candidates = [value, value / 100] if text.endswith("%") else [value]
    return any(math.isclose(c, v, rel_tol=1e-9) for c in candidates for v in literals)


def _quoted_cases():
    cases = []
    for path in NOTEBOOKS:
        nb = _load(path)
        seen = set()
        for text in (t for markdown in _markdown(nb) for t in quoted_numbers(markdown)):
            if text not in seen:
                seen.add(text)
                cases.append(pytest.param(path, text, id=f"{path.stem[:2]}-{text}"))
    return cases


_EVIDENCE: dict = {}


@pytest.mark.parametrize(("path", "text"), _quoted_cases())
def test_every_quoted_number_is_computed_or_checked(path, text):
    if path not in _EVIDENCE:
        _EVIDENCE[path] = number_evidence(_load(path))
    allowed = {t for (number, t) in ALLOWED if number == path.name[:2]}
    assert is_backed(text, _EVIDENCE[path], allowed), (
        f"{path.name} quotes {text!r}: print it in a visible cell, or pin it in a check cell with an assert "
        f"ending '# quoted: {text}', or add it to ALLOWED with a reason"
    )


def test_quoted_number_rule_can_fail():
    assert quoted_numbers("It fell by 46% to 0.0297, 5.8x less; $T = 0.5$ and `lr=0.1`, Python 3.11.2, 2017.") == [
        "46%",
        "0.0297",
        "5.8x",
    ]
    nb = _nb(
        ("markdown", "The error is 0.0297, 46% lower; the rate 0.005; 90% of the data."),
        ("code", "lr = 5e-3\nsplit = 0.9\nerror = fit(lr)"),
        ("code", "# Check: the error\nassert round(error, 4) == 0.0297  # quoted: 0.0297", CHECK_META),
    )
    evidence = number_evidence(nb)
    backed = {t: is_backed(t, evidence) for t in quoted_numbers(_markdown(nb)[0])}
    assert backed == {"0.0297": True, "46%": False, "0.005": True, "90%": True}


# --- 4. check cells ---------------------------------------------------------------------------------------


def check_cell_problems(nb) -> list[str]:
    problems = []
    for index, cell in enumerate(nb["cells"]):
        meta, first = cell.get("metadata", {}), (_source(cell).splitlines() or [""])[0]
        if "check" in _tags(cell):
            if cell.get("cell_type") != "code":
                problems.append(f"cell {index}: a check cell must be a code cell")
            if not meta.get("jupyter", {}).get("source_hidden"):
                problems.append(f"cell {index}: check cell without jupyter.source_hidden")
            if meta.get("slideshow", {}).get("slide_type") != "skip":
                problems.append(f"cell {index}: check cell not skipped in the slides")
            if not first.startswith("# Check: "):
                problems.append(f"cell {index}: check cell's first line is not '# Check: ...': {first!r}")
        elif cell.get("cell_type") == "code" and first.startswith("# Check"):
            problems.append(f"cell {index}: opens with '# Check' but is not tagged check")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem[:2] for p in NOTEBOOKS])
def test_check_cells_carry_their_metadata(path):
    problems = check_cell_problems(_load(path))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_check_cell_rule_can_fail():
    assert not check_cell_problems(_nb(("code", "# Check: x\nassert x", CHECK_META)))
    assert len(check_cell_problems(_nb(("code", "assert x", {"tags": ["check"]})))) == 3
    assert check_cell_problems(_nb(("code", "# Check: x\nassert x")))


# --- 5. going further -------------------------------------------------------------------------------------


def _heading2(cell) -> str | None:
    if cell.get("cell_type") != "markdown":
        return None
    match = re.match(r"##\s+(.*)", _source(cell).lstrip())
    return match.group(1) if match else None


def going_further_problems(nb) -> list[str]:
    problems, inside, seen = [], False, False
    for index, cell in enumerate(nb["cells"]):
        heading = _heading2(cell)
        if heading is not None:
            inside = heading.startswith("Going further: ")
            seen |= inside
            if seen and not inside and re.match(r"\d+\.\s", heading) and "Exercises" not in heading:
                problems.append(f"cell {index}: core section {heading!r} after a Going further section")
        tagged = "going-further" in _tags(cell)
        if inside and not tagged:
            problems.append(f"cell {index}: inside a Going further section but not tagged going-further")
        if tagged and not inside:
            problems.append(f"cell {index}: tagged going-further outside a Going further section")
    if not seen:
        problems.append("no '## Going further: ' section")
    return problems


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem[:2] for p in NUMBERED])
def test_going_further_is_marked_and_after_the_core(path):
    problems = going_further_problems(_load(path))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_going_further_rule_can_fail():
    gf = {"tags": ["going-further"]}
    good = _nb(
        ("markdown", "## 1. Core"),
        ("code", "x = 1"),
        ("markdown", "## Going further: more", gf),
        ("code", "y = 2", gf),
        ("markdown", "## 2. Exercises"),
        ("markdown", "## Summary"),
    )
    assert not going_further_problems(good)
    assert going_further_problems(_nb(("markdown", "## 1. Core"), ("code", "x = 1")))
    untagged = _nb(("markdown", "## Going further: more", gf), ("code", "y = 2"))
    assert going_further_problems(untagged)
    late = _nb(("markdown", "## Going further: more", gf), ("markdown", "## 3. Core again"))
    assert going_further_problems(late)
    stray = _nb(("markdown", "## 1. Core"), ("code", "x = 1", gf), ("markdown", "## Going further: a", gf))
    assert going_further_problems(stray)


# --- 6. times ---------------------------------------------------------------------------------------------


def time_problems(nb, readme: str, number: str) -> list[str]:
    stored = nb.get("metadata", {}).get("attention_lab", {}).get("minutes")
    if not (isinstance(stored, dict) and set(stored) == {"core", "full"}):
        return [f"metadata.attention_lab.minutes is {stored!r}"]
    problems = []
    if not all(isinstance(v, int) and v > 0 and v % 5 == 0 for v in stored.values()) or stored["core"] > stored["full"]:
        problems.append(f"the times {stored} are not multiples of 5 with core <= full")
    first = next(_source(c) for c in nb["cells"] if c.get("cell_type") == "markdown")
    if lesson_times.time_line(stored) not in first.splitlines():
        problems.append(f"the first cell does not say {lesson_times.time_line(stored)!r}")
    row = next((line for line in readme.splitlines() if line.startswith(f"| {number} |")), "")
    if f"| {lesson_times.readme_cell(stored)} |" not in row:
        problems.append(f"the README's row does not say {lesson_times.readme_cell(stored)!r}")
    return problems


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem[:2] for p in NUMBERED])
def test_first_cell_and_readme_state_the_stored_times(path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    problems = time_problems(_load(path), readme, path.name[:2])
    problems += lesson_times.stale(_load(path))
    assert not problems, f"{path.name}: run python -m tools.lesson_times --write\n" + "\n".join(problems)


def test_lesson_times_check_passes(capsys):
    status = lesson_times.main(["--check"])
    assert status == 0, capsys.readouterr().err


def test_time_rule_can_fail(tmp_path, capsys):
    nb = _nb(
        ("markdown", "# 01 · A\n\nTime: about 5 minutes.\n"), ("code", "x = 1"), ("code", "y", {"tags": ["exercise"]})
    )
    readme = "| 01 | [A](a.ipynb) | a | 5 min | go |\n"
    assert time_problems(nb, readme, "01")
    times = lesson_times.apply(nb)
    assert times == {"core": 10, "full": 10}  # 1 + 8 minutes and a few words, rounded up
    assert lesson_times.stale(nb) == []
    assert time_problems(nb, readme, "01") == [f"the README's row does not say {lesson_times.readme_cell(times)!r}"]
    assert not time_problems(nb, lesson_times.write_readme(readme, {"01": times}), "01")
    path, readme_path = tmp_path / "01_a.ipynb", tmp_path / "README.md"
    path.write_text(json.dumps(_nb(("markdown", "# 01 · A\n\nno time here\n"))), encoding="utf-8")
    readme_path.write_text(readme, encoding="utf-8")
    assert lesson_times.main(["--check", "--readme", str(readme_path), str(path)]) == 1
    assert len(capsys.readouterr().err.splitlines()) == 1  # one line per stale notebook
    with pytest.raises(SystemExit) as exit_:
        lesson_times.main(["--write", "--readme", str(readme_path), str(path)])
    assert exit_.value.code == 2 and "one line beginning 'Time:'" in capsys.readouterr().err


# --- 7. glossary: one symbol, one meaning ---------------------------------------------------------------------

GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi rho "
    "sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega"
).split()
DECORATIONS = ("hat", "tilde", "bar", "vec", "mathcal", "boldsymbol", "mathbf")
WORDS = ("text", "mathrm", "operatorname", "textbf", "textit", "mbox", "mathit")
INDEX = re.compile(r"^(?:[ijtmrnl0-9*+\-:,\s]|\\ast|\\dots|\\ldots|\^)+$")  # subscripts that count, not name
NAMES = {"PE", "LN", "FFN", "MLP", "KL", "LOO", "CDF", "MSE", "SGD", "GRU", "RNN", "Var", "Cov", "O"}  # O: Landau
CONSTANTS = {"pi"}  # \pi is the number (a Gaussian's 1/sqrt(2 pi)), not a symbol of the course
# The glossary's one-meaning rule for symbols that only these notebooks use with that meaning
RESERVED = {
    r"\Delta": {"02"},  # the probability simplex; 07's offset is \delta
    "J": {"02"},  # 02's expected loss; 05's Jacobian is written with partial derivatives
    "L": {"02"},  # L_i, 02's loss of choosing key i; sequence length is n, the layers n_layers
    r"\gamma": {"08", "09"},  # layer normalisation's gain
    r"\beta": {"08", "09"},  # layer normalisation's shift; 02's slope is b, 03's smoothness \nu
    "s": {"01", "06", "07", "09"},  # the decoder state (01 and 07 name 06's s_{t-1}); a variance is sigma^2 or Var
    "b": {"02"},  # 02's position slope; a layer's biases are b_1, b_2 (names, see LAYER_NAMED)
    "f": {"03", "04"},  # the true regression function only
    r"\delta": {"07"},  # 07's offset between positions (a Kronecker delta would be a second meaning)
    "m": {"07", "09"},  # a head index only
}
LAYER_NAMED = {"W", "b"}  # W_1, b_2: the weights and biases of layer 1, 2 (names, not indices of a family)
PROBABILITY = re.compile(r"P(?=\\big\(|\\left\(|\()")  # P(y | x), P\big(...): the probability operator
DIFFERENTIAL = re.compile(r"d([A-Za-z])\s*/\s*d([A-Za-z])(?![A-Za-z])")  # dH/dT: a derivative's d's


def _group(text: str, start: int) -> tuple[str, int]:
    """The TeX group at text[start:] (a {...} group, a command or one character) and the index after it."""
    if start >= len(text):
        return "", start
    if text[start] == "{":
        depth = 0
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                return text[start + 1 : end], end + 1
        return text[start + 1 :], len(text)
    if text[start] == "\\":
        match = re.match(r"\\[A-Za-z]+|\\.", text[start:])
        return match.group(0), start + len(match.group(0))
    return text[start], start + 1


def _subscript_name(sub: str) -> str | None:
    """The name a subscript adds to its symbol (d_{\\text{model}} -> "model", d_k -> "k"), None for an index."""
    sub = sub.strip()
    words = re.fullmatch(rf"\\(?:{'|'.join(WORDS)})\s*\{{([^{{}}]*)\}}", sub)
    if words:
        return words.group(1).strip().replace(" ", "_")
    if INDEX.match(sub):
        return None
    if re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", sub):
        return sub
    return None  # an expression (t-1, i^*, \text{top}-1 ...): an index


def _skip_subscript(text: str, i: int) -> int:
    return _group(text, i + 1)[1] if text[i : i + 1] == "_" else i


def math_symbols(latex: str) -> set[str]:
    """The symbols of a piece of TeX math, by a heuristic.

    A symbol is a single Latin letter or a Greek letter (``\\lambda``), with its decoration if any
    (``\\hat f``, ``\\tilde s``, ``\\mathcal{L}``), and its subscript when the subscript is a name rather
    than an index: ``d_{\\text{model}}`` -> ``d_model``, ``k_{\\text{top}}`` -> ``k_top``, ``d_k`` -> ``d_k``,
    ``W_q`` -> ``W_q``; but ``\\lambda_{ij}``, ``k_i``, ``e_j``, ``s_{t-1}``, ``K_{1:t}`` -> ``\\lambda``,
    ``k``, ``e``, ``s``, ``K`` (index subscripts: the letters i, j, t, m, r, n, l, digits and expressions).
    Left out: commands that are operators or functions (``\\sum``, ``\\log``, ``\\operatorname{softmax}``,
    ``\\text{...}``, ``\\mathrm{...}`` outside a subscript), ``\\mathbb`` sets, environment names, runs of
    three or more plain letters (words written in math, ``softmax``) and the names in :data:`NAMES` (PE, LN,
    KL, ...), the constant \\pi and Euler's e (an e followed by ^), the d's of a derivative (``dH/dT`` has H
    and T) and of an integral's differential (``\\int \\kappa(u)^2\\,du`` has u), and the probability operator
    (``P(y \\mid x)``, a P directly followed by a parenthesis; ``P (QK^\\top)`` and ``PX`` are a matrix P).
    Letters in superscripts count (``10000^{-2r/d}`` has r and d). The digit subscripts of W and b name a
    layer (``W_1``, ``b_2``: :data:`LAYER_NAMED`); other digit subscripts count (``\\lambda_1`` -> ``\\lambda``).
    Known weaknesses: a two-letter product (``XW``) is read as two symbols, as it should be, but so would be
    a two-letter name not listed in NAMES; a bound variable (the x of ``e^x``) counts like any symbol.
    """
    text = re.sub(r"\\(?:begin|end)\{[^}]*\}", " ", latex)
    text = re.sub(r"\\mathbb\s*\{[^}]*\}|\\mathbb\s*\w", " ", text)
    symbols, i = set(), 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            command, i = _group(text, i)
            name = command[1:]
            if name in WORDS:
                _, i = _group(text, i + (text[i : i + 1] == " "))
                i = _skip_subscript(text, i)
                continue
            if name in DECORATIONS:
                while text[i : i + 1] == " ":
                    i += 1
                inner, i = _group(text, i)
                inner = inner.strip()
                base = f"\\{name}{{{inner}}}" if name == "mathcal" else f"\\{name} {inner}"
                if not re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", inner):
                    symbols |= math_symbols(inner)
                    continue
            elif (name in GREEK or name == "ell") and name not in CONSTANTS:  # \ell: a Latin letter
                base = command
            else:
                i = _skip_subscript(text, i)  # \sum_{i=1}, \max_j: an operator's subscript holds an index
                continue
        elif char.isalpha():
            run = re.match(r"[A-Za-z]+", text[i:]).group(0)
            if derivative := DIFFERENTIAL.match(text, i):  # dH/dT: H and T, not d
                symbols |= set(derivative.groups())
                i = derivative.end()
                continue
            if (
                len(run) == 2
                and run[0] == "d"
                and r"\int" in text
                and text[:i].rstrip().endswith(("\\", "}", ")", "=", ","))
            ):
                symbols.add(run[1])  # \int \kappa(u)^2\,du: the differential du, a bound u and no d
                i += 2
                continue
            if run == "P" and PROBABILITY.match(text, i):  # P(y \mid x): the probability operator
                i += 1
                continue
            if len(run) >= 3 or run in NAMES:
                i = _skip_subscript(text, i + len(run))
                continue
            if char == "e" and text[i + 1 : i + 2] == "^":  # e^x: Euler's number, not e_j
                i += 1
                continue
            base, i = char, i + 1
        else:
            i += 1
            continue
        if text[i : i + 1] == "_":
            sub, after = _group(text, i + 1)
            name = _subscript_name(sub)
            if name is None and base in LAYER_NAMED and sub.strip().isdigit():
                name = sub.strip()  # W_1, b_2: layer 1's weights, layer 2's biases
            if name is not None:
                base, i = f"{base}_{name.lstrip(chr(92))}", after
            else:
                symbols |= {s for s in math_symbols(sub) if len(s) > 1 and s not in "ijtmrnl"}
                i = after
        symbols.add(base)
    return symbols


MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$", re.DOTALL)


def notebook_symbols(nb) -> set[str]:
    out = set()
    for text in _markdown(nb):
        text = re.sub(r"```.*?```|`[^`]*`", " ", text, flags=re.DOTALL)
        for display, inline in MATH.findall(text):
            out |= math_symbols(display or inline)
    return out


def glossary_rows(markdown: str) -> tuple[list, list]:
    """(global rows, local rows) of the glossary: global (symbols, meaning), local (symbols, notebooks, meaning).

    A row defines the symbol of each math group of its first column whose head (left of "=", without an
    argument list) is one symbol; it covers (lists) every symbol of that math. "$Q = XW_q$" defines Q and
    covers Q, X and W_q.
    """

    def rows(title):
        if title not in markdown:
            return []
        table = markdown.split(title, 1)[1].split("\n## ", 1)[0]
        out = []
        for line in table.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) < 2 or cells[0] in ("symbol", "---") or set(cells[0]) <= {"-", ":"}:
                continue
            heads, covered = set(), set()
            for group in re.findall(r"\$([^$]+)\$", cells[0]):
                head = re.sub(r"\((?:[^()]|\([^()]*\))*\)$", "", group.split("=", 1)[0].strip())
                if len(math_symbols(head)) == 1:  # "$Q = XW_q$" defines Q; "$\sum_i \lambda_i v_i$" defines none
                    heads |= math_symbols(head)
                covered |= math_symbols(group)
            out.append((heads, covered, cells[1:]))
        return out

    return rows("## Symbols and their names in code"), rows("## Local symbols")


def glossary_problems(markdown: str, symbols_by_notebook: dict[str, set[str]]) -> list[str]:
    """Symbols of the notebooks missing from the glossary, and symbols with two rows."""
    global_rows, local_rows = glossary_rows(markdown)
    defined: dict[str, list[str]] = {}
    covered, local, first_in = set(), {}, {}
    for heads, symbols, cells in global_rows:
        covered |= symbols
        first = sorted(re.findall(r"\b\d\d\b", cells[-1])) if len(cells) >= 3 else []
        for symbol in heads:
            defined.setdefault(symbol, []).append(cells[0][:50])
            if first:
                first_in[symbol] = first[0]
    for heads, symbols, cells in local_rows:
        notebooks = set(re.findall(r"\d\d", cells[0])) if cells else set()
        for symbol in heads | symbols:
            local.setdefault(symbol, set()).update(notebooks)
        for symbol in heads:
            defined.setdefault(symbol, []).append(cells[-1][:50] if cells else "")
    problems = [f"{s} has {len(m)} rows: {m}" for s, m in sorted(defined.items()) if len(m) > 1]
    for number, symbols in sorted(symbols_by_notebook.items()):
        missing = sorted(s for s in symbols if s not in covered and number not in local.get(s, ()))
        for symbol in sorted(symbols):
            if symbol in RESERVED and number not in RESERVED[symbol]:
                problems.append(
                    f"notebook {number} uses {symbol}, which the glossary gives another meaning (used in "
                    f"{sorted(RESERVED[symbol])})"
                )
            # 00, the course map, previews symbols before the notebook that introduces them
            if "00" < number < first_in.get(symbol, number) and number not in local.get(symbol, ()):
                problems.append(
                    f"notebook {number} uses {symbol} before its glossary row's 'first in' {first_in[symbol]}"
                )
        if missing:
            problems.append(f"notebook {number} uses symbols the glossary does not list: {' '.join(missing)}")
    return problems


def test_symbol_heuristic():
    assert math_symbols(r"\lambda_{ij} = \operatorname{softmax}_j(\alpha_{ij})") == {r"\lambda", r"\alpha"}
    assert math_symbols(r"k_{\text{top}}, d_{\text{model}}, d_k, W_q^\top, \hat f(x), \mathcal{L}") == {
        "k_top",
        "d_model",
        "d_k",
        "W_q",
        r"\hat f",
        "x",
        r"\mathcal{L}",
    }
    assert math_symbols(r"\omega_r = 10000^{-2r/d_{\text{model}}}, s_{t-1}, K_{1:t}") == {
        r"\omega",
        "r",
        "d_model",
        "s",
        "K",
    }
    assert math_symbols(r"\operatorname{LN}(x + \operatorname{SelfAttention}(x)), \text{out}_t, PE(\mathrm{pos})") == {
        "x"
    }
    assert math_symbols(r"\sum_{i=1}^{n} \lambda_i v_i, \mathbb{R}^d") == {"n", r"\lambda", "v", "d"}
    assert math_symbols(r"e^{\alpha_j} / \sqrt{2\pi}, e_j, O(n^2 d)") == {r"\alpha", "e", "n", "d"}
    assert math_symbols(
        r"dH/dT = \operatorname{Var}_p(\alpha)/T^3, R(\kappa) = \int \kappa(u)^2\,du, dy = -e^{-x}dx"
    ) == {"H", r"\alpha", "T", "R", r"\kappa", "u", "y", "x"}
    assert math_symbols(r"P(y \mid x), P\big(u \le 1\big), P (Q K^\top) P^\top, PX") == {
        "y",
        "x",
        "u",
        "P",
        "Q",
        "K",
        "X",
    }
    assert math_symbols(r"\ell = \lfloor\nu\rfloor") == {r"\ell", r"\nu"}
    assert math_symbols(r"\max(0, x W_1 + b_1) W_2 + b_2, \lambda_1, d\,x") == {
        "x",
        "W_1",
        "b_1",
        "W_2",
        "b_2",
        r"\lambda",
        "d",
    }


def test_glossary_check_finds_missing_and_doubled_symbols():
    glossary = (
        "## Symbols and their names in code\n\n| symbol | meaning | in code | first in |\n|---|---|---|---|\n"
        "| $\\Delta$ | the simplex | | 02 |\n| $\\Delta$ | an offset | `delta` | 07 |\n| $k_i$ | a key | `k` | 01 |\n"
        "\n## Local symbols\n\n| symbol | notebook | meaning |\n|---|---|---|\n| $u$ | 03 | a uniform number |\n"
    )
    problems = glossary_problems(glossary, {"01": {"k", r"\Delta", "J"}, "03": {"u"}, "05": {"u"}})
    assert any(p.startswith("\\Delta has 2 rows") for p in problems)
    assert "notebook 01 uses symbols the glossary does not list: J" in problems
    assert "notebook 05 uses symbols the glossary does not list: u" in problems  # local to 03 only
    assert not any("notebook 03" in p for p in problems)
    glossary = glossary.replace("| a key | `k` | 01 |", "| a key | `k` | 03 |")
    early = glossary_problems(glossary, {"00": {"k"}, "01": {"k"}, "05": {"L"}})
    assert "notebook 01 uses k before its glossary row's 'first in' 03" in early
    assert not any(p.startswith("notebook 00") for p in early)
    assert any(p.startswith("notebook 05 uses L, which the glossary gives another meaning") for p in early)
    kinds = glossary_problems(glossary, {"04": {r"\delta"}, "05": {"b"}, "01": {"s"}})  # Kronecker; a bias
    assert any(p.startswith("notebook 04 uses \\delta, which the glossary gives another meaning") for p in kinds)
    assert any(p.startswith("notebook 05 uses b, which the glossary gives another meaning") for p in kinds)
    assert not any("notebook 01 uses s, which" in p for p in kinds)  # 01 names 06's decoder state


def test_every_symbol_of_the_notebooks_is_in_the_glossary_once():
    symbols = {path.name[:2]: notebook_symbols(_load(path)) for path in NOTEBOOKS}
    problems = glossary_problems(GLOSSARY.read_text(encoding="utf-8"), symbols)
    assert not problems, "\n".join(problems)


def test_notebook_09_symbols_are_in_the_glossary():
    """The part of the test above that holds in this branch already (09's symbols); the rest waits for 00-08."""
    path = next(p for p in NOTEBOOKS if p.name.startswith("09_"))
    problems = glossary_problems(GLOSSARY.read_text(encoding="utf-8"), {"09": notebook_symbols(_load(path))})
    assert not [p for p in problems if p.startswith("notebook 09")], problems


def test_writing_the_times_leaves_them_true():
    """The "Time:" line is not counted as reading, so writing it cannot change the times it states."""
    nb = {
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "# 01 · Title\n\nTime: about 5 minutes.\n\n" + "word " * 230,
            },
            {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": []},
        ],
        "metadata": {},
    }
    times = lesson_times.apply(nb)
    assert times == {"core": 5, "full": 5} and lesson_times.stale(nb) == []  # 233 words and 1 cell: 4.9 minutes
