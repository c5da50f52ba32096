"""The Chinese edition: ``python -m tools.translate [--check]`` builds ``notebooks/zh/`` from the English.

Each English notebook ``notebooks/NN_name.ipynb`` that has a translation file ``translations/zh/NN_name.json``
(its format: CONTRIBUTING.md, "Updating the Chinese edition") gets a twin ``notebooks/zh/NN_name.ipynb``:

- the same cells, in the same order, with the same ids and metadata, and the notebook's metadata (kernelspec);
  no outputs;
- a markdown cell's source is the Chinese of its translation entry;
- a code cell is the English code with each ``[english, chinese]`` fragment of its entry replaced wherever the
  English fragment occurs, and only inside a comment or a string literal (a fragment found elsewhere is an
  error): the code itself is never translated;
- the set-up cell (the first code cell with the line ``import attention_lab as al``) gets
  ``al.set_language("zh")`` right after that line, so the library's figures and feedback speak Chinese;
- relative links are rewritten for the folder one level down: ``glossary.md`` -> ``../glossary.md``,
  ``../README.md#a`` -> ``../../README.zh.md#a`` where the Chinese README has the anchor, else
  ``../../README.md#a``; a link to another notebook stays when that notebook has a zh twin, and a launch link
  (Colab, Binder, the download) to a notebook with a zh twin opens that twin;
- the launch block and the questions footer are written by ``tools/launch_buttons.py`` for the zh path, with a
  link back to the English twin (and ``launch_buttons`` links each English notebook to its zh twin).

Every entry holds ``source_sha``, the hash (:func:`source_sha`) of the English cell it was translated from.
``--check`` writes nothing and lists, one line each naming the notebook and the cell, every stale entry (the
English changed since), every English cell without an entry, every entry without an English cell, every
fragment that is not inside one comment or string, and every zh notebook that differs from what the command
builds; it exits 1 if there is any. Without ``--check`` it rebuilds every zh notebook (a stale entry is still
used, a cell without an entry stays English) and exits 1 if it listed a stale, missing or extra cell. Bad input
(an unreadable or malformed translation file): one line on stderr, exit 2, nothing written. ``--terms`` lists, for
a reader's review, each glossary term whose first use in a zh notebook lacks the English in parentheses
(advisory: it exits 0).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import re
import sys
import tokenize
from pathlib import Path

from attention_lab.paths import repo_root
from tools import launch_buttons

__all__ = [
    "SET_LANGUAGE",
    "source_sha",
    "load_translation",
    "literal_spans",
    "drift",
    "fragment_problems",
    "build",
    "translated_pairs",
    "problems",
    "rebuild",
    "glossary_terms",
    "first_use_problems",
]

ROOT = repo_root(Path(__file__).parent)
SET_LANGUAGE = 'al.set_language("zh")'
SETUP_IMPORT = "import attention_lab as al"
# the English notebook's link to its zh twin (launch_buttons.TWIN_ZH), set aside by the drift hash: it appears
# when the twin is built, and must not make every first cell look changed
_TWIN_LINE = re.compile(r"\n\n" + re.escape(launch_buttons.TWIN_ZH.split("(")[0]) + r"\(zh/[\w\-]+\.ipynb\)")
_LINK = re.compile(r"(\]\(|href=\")([^)\"\s]+)")
_NOTEBOOK = re.compile(r"[0-9][0-9]_[\w\-]+\.ipynb")


def source_sha(source: str) -> str:
    """The drift hash of an English cell's source: sha256 of its text (the zh-twin link aside), 16 hex digits."""
    return hashlib.sha256(_TWIN_LINE.sub("", source).encode("utf-8")).hexdigest()[:16]


def _text(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def load_translation(path: Path) -> dict:
    """The translation file at ``path``, checked for its shape (ValueError naming the file and what is wrong)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path.name} is not valid JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path.name} must be an object with a 'cells' list")
    if data.get("notebook") != path.stem + ".ipynb":
        raise ValueError(f"{path.name}: 'notebook' must be {path.stem + '.ipynb'!r}, got {data.get('notebook')!r}")
    for i, entry in enumerate(data["cells"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise ValueError(f"{path.name}: entry {i} must be an object with an 'id' string")
        if not isinstance(entry.get("source_sha"), str):
            raise ValueError(f"{path.name}: entry {i} ({entry['id']}) lacks its 'source_sha'")
        if "markdown" in entry:
            if not (isinstance(entry["markdown"], list) and all(isinstance(x, str) for x in entry["markdown"])):
                raise ValueError(f"{path.name}: entry {i} ({entry['id']}): 'markdown' must be a list of strings")
        elif "code" in entry:
            pairs = entry["code"]
            if not isinstance(pairs, list) or not all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) and x for x in p) for p in pairs
            ):
                raise ValueError(f"{path.name}: entry {i} ({entry['id']}): 'code' must be a list of [english, chinese]")
        else:
            raise ValueError(f"{path.name}: entry {i} ({entry['id']}) has neither 'markdown' nor 'code'")
    return data


def literal_spans(source: str) -> list[tuple[int, int]]:
    """The (start, end) character offsets of every comment and string literal of a code cell's ``source``
    (IPython's ``%magic`` and ``!shell`` lines count as comments)."""
    masked = re.sub(r"(?m)^(\s*)[%!]", r"\1#", source)
    offsets = [0]
    for line in masked.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(masked).readline):
            if token.type in (tokenize.COMMENT, tokenize.STRING):
                (r0, c0), (r1, c1) = token.start, token.end
                spans.append((offsets[r0 - 1] + c0, offsets[r1 - 1] + c1))
    except (tokenize.TokenError, SyntaxError, IndentationError) as error:
        raise ValueError(f"cannot tokenize the cell: {error}") from None
    return spans


def _occurrences(source: str, fragment: str) -> list[int]:
    found, start = [], source.find(fragment)
    while start >= 0:
        found.append(start)
        start = source.find(fragment, start + 1)
    return found


def _where(notebook: str, index: int, cell_id: str) -> str:
    return f"{notebook} cell {index} (id {cell_id})"


def drift(english: dict, translation: dict, notebook: str) -> list[str]:
    """Stale, missing and extra cells of ``translation`` against the English notebook, one line each."""
    entries = {entry["id"]: entry for entry in translation["cells"]}
    ids = [cell.get("id") for cell in english["cells"]]
    found = []
    for i, cell in enumerate(english["cells"]):
        entry = entries.get(cell.get("id"))
        if entry is None:
            found.append(f"{_where(notebook, i, cell.get('id'))}: missing, the English cell has no translation")
        elif entry["source_sha"] != source_sha(_text(cell)):
            found.append(
                f"{_where(notebook, i, cell['id'])}: stale, the English changed since its translation "
                f"(source_sha {entry['source_sha']}, now {source_sha(_text(cell))})"
            )
        elif ("markdown" in entry) != (cell["cell_type"] != "code"):
            found.append(f"{_where(notebook, i, cell['id'])}: stale, the cell is {cell['cell_type']} now")
    for entry in translation["cells"]:
        if entry["id"] not in ids:
            found.append(f"{notebook} translation entry {entry['id']}: extra, the English has no cell with this id")
    order = [entry["id"] for entry in translation["cells"] if entry["id"] in ids]
    if order != [i for i in ids if i in entries]:
        found.append(f"{notebook}: the translation's entries are not in the English cells' order")
    return found


def _replacements(source: str, pairs, where: str) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Where each fragment goes: (start, end, chinese) inside a comment or string, and the fragments that are not."""
    spans = literal_spans(source)
    chosen: list[tuple[int, int, str]] = []
    problems_found = []
    for english, chinese in sorted(pairs, key=lambda pair: -len(pair[0])):  # the longer fragment wins an overlap
        starts = _occurrences(source, english)
        if not starts:
            problems_found.append(f"{where}: fragment not in the English source: {english[:60]!r}")
        for start in starts:
            end = start + len(english)
            if not any(a <= start and end <= b for a, b in spans):
                problems_found.append(f"{where}: fragment not inside one comment or string: {english[:60]!r}")
                break
            if not any(start < e and s < end for s, e, _ in chosen):
                chosen.append((start, end, chinese))
    return sorted(chosen), problems_found


def fragment_problems(english: dict, translation: dict, notebook: str) -> list[str]:
    """Every code fragment of ``translation`` that is not in its English cell inside one comment or string."""
    cells = {cell.get("id"): (i, cell) for i, cell in enumerate(english["cells"])}
    found = []
    for entry in translation["cells"]:
        if "code" in entry and entry["id"] in cells:
            i, cell = cells[entry["id"]]
            where = _where(notebook, i, entry["id"])
            try:
                found += _replacements(_text(cell), entry["code"], where)[1]
            except ValueError as error:
                found.append(f"{where}: {error}")
    return found


def translated_pairs(source: str, pairs) -> str:
    """``source`` with each English fragment replaced by its Chinese, inside comments and strings only."""
    chosen, _ = _replacements(source, pairs, "")
    for start, end, chinese in reversed(chosen):
        source = source[:start] + chinese + source[end:]
    return source


def _with_set_language(source: str) -> str:
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == SETUP_IMPORT:
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = line if line.endswith("\n") else line + "\n"
            lines.insert(i + 1, f"{indent}{SET_LANGUAGE}" + ("\n" if i + 1 < len(lines) else ""))
            return "".join(lines)
    return source


def _readme_zh_anchors(root: Path) -> set[str] | None:
    """The anchors of README.zh.md (explicit ``id``/``name`` attributes and GitHub's heading slugs), or None."""
    path = Path(root) / "README.zh.md"
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    anchors = set(re.findall(r"(?:id|name)=\"([^\"]+)\"", text))
    for heading in re.findall(r"(?m)^#{1,6}\s+(.+?)\s*$", text):
        anchors.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", heading.lower())))
    return anchors


# a launch link (Colab, Binder, the raw download) to a course notebook: ".../notebooks/NN_name.ipynb"
_LAUNCH = re.compile(
    r"^https://(?:colab\.research\.google\.com|mybinder\.org|github\.com)/.*?(/notebooks/)(\d\d_[\w-]+\.ipynb)"
)


def _relinked(text: str, twins: set[str], readme_anchors: set[str] | None) -> str:
    """Links of a markdown cell written for ``notebooks/``, rewritten for ``notebooks/zh/``: relative links one folder
    up (a notebook with a zh twin: the twin), and launch links (Colab, Binder, download) to the zh twin."""

    def one(match):
        opener, target = match.groups()
        launch = _LAUNCH.search(target)
        if launch and launch.group(2) in twins:  # a Colab, Binder or download link opens the zh twin
            return opener + target[: launch.start(2)] + "zh/" + target[launch.start(2) :]
        if re.match(r"[a-z][a-z0-9+.\-]*:|#|/", target):  # absolute addresses and in-page anchors stay
            return match.group(0)
        path, _, anchor = target.partition("#")
        if _NOTEBOOK.fullmatch(path) and path in twins:
            return match.group(0)  # its zh twin, beside this one
        if path == "../README.md" and readme_anchors is not None and (not anchor or anchor in readme_anchors):
            return opener + "../../README.zh.md" + (f"#{anchor}" if anchor else "")
        return opener + "../" + target

    return _LINK.sub(one, text)


def build(english: dict, translation: dict, notebook: str, *, twins=(), root: Path = ROOT) -> dict:
    """The zh notebook (JSON) built from the English notebook and its translation (see the module's doc)."""
    entries = {entry["id"]: entry for entry in translation["cells"]}
    readme_anchors = _readme_zh_anchors(root)
    nb = copy.deepcopy(english)
    setup_done = False
    for cell in nb["cells"]:
        entry = entries.get(cell.get("id"))
        source = _text(cell)
        if cell["cell_type"] == "code":
            if entry is not None and "code" in entry:
                source = translated_pairs(source, entry["code"])
            if not setup_done and any(line.strip() == SETUP_IMPORT for line in source.splitlines()):
                source, setup_done = _with_set_language(source), True
            cell["outputs"], cell["execution_count"] = [], None
        elif entry is not None and "markdown" in entry:
            source = _relinked("".join(entry["markdown"]), set(twins), readme_anchors)
        cell["source"] = source.splitlines(keepends=True)
    return launch_buttons.updated(nb, notebook, "zh")


def _pairs(root: Path):
    """(English notebook path, translation path, zh notebook path) of every translated notebook."""
    root = Path(root)
    for path in sorted((root / "translations" / "zh").glob("*.json")):
        english = root / "notebooks" / (path.stem + ".ipynb")
        if not english.exists():
            raise ValueError(f"{path.name}: there is no English notebook notebooks/{english.name}")
        yield english, path, root / "notebooks" / "zh" / english.name


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _built(root: Path) -> list[tuple[Path, str, list[str]]]:
    """Every zh notebook as the command builds it: (path, text, drift lines), read and built before anything
    is written (ValueError on a malformed translation file)."""
    if not (Path(root) / "notebooks").is_dir():
        raise ValueError(f"{root} is not the course repository: it has no notebooks/ folder")
    plan = list(_pairs(root))
    twins = {english.name for english, _, _ in plan}
    out = []
    for english_path, translation_path, zh_path in plan:
        english = json.loads(english_path.read_text(encoding="utf-8"))
        translation = load_translation(translation_path)
        name = english_path.name
        lines = drift(english, translation, name) + fragment_problems(english, translation, name)
        out.append((zh_path, _dump(build(english, translation, name, twins=twins, root=root)), lines))
    return out


def problems(root: Path = ROOT) -> list[str]:
    """Everything ``--check`` lists: drift, misplaced fragments, zh notebooks out of step, and extra zh notebooks."""
    root = Path(root)
    found, expected = [], set()
    for zh_path, text, lines in _built(root):
        expected.add(zh_path.name)
        found += lines
        if not zh_path.exists() or zh_path.read_text(encoding="utf-8") != text:
            found.append(f"notebooks/zh/{zh_path.name}: differs from what `python -m tools.translate` builds")
    for path in sorted((root / "notebooks" / "zh").glob("*.ipynb")):
        if path.name not in expected:
            found.append(f"notebooks/zh/{path.name}: has no translation file translations/zh/{path.stem}.json")
    return found


def rebuild(root: Path = ROOT) -> list[str]:
    """Write every zh notebook; the drift lines (stale, missing, extra cells; misplaced fragments) it found.

    Everything is built before anything is written, and every changed notebook is first written beside its
    place (``.partial``), then all are moved into place: an error leaves the zh notebooks as they were."""
    plan = _built(root)
    folder = Path(root) / "notebooks" / "zh"
    folder.mkdir(exist_ok=True)
    changed = [(zh, text) for zh, text, _ in plan if not zh.exists() or zh.read_text(encoding="utf-8") != text]
    partials = []
    try:
        for zh_path, text in changed:
            partials.append(zh_path.with_suffix(".partial"))
            partials[-1].write_text(text, encoding="utf-8")
    except OSError:
        for partial in partials:
            partial.unlink(missing_ok=True)
        raise
    for partial, (zh_path, _) in zip(partials, changed, strict=True):
        partial.replace(zh_path)
    found = []
    for zh_path, _, lines in plan:
        found += lines
        done = "written" if any(zh_path == path for path, _ in changed) else "already up to date"
        print(f"notebooks/zh/{zh_path.name}: {done}")
        english = Path(root) / "notebooks" / zh_path.name
        if launch_buttons.update_notebook(english):  # the English notebook links its new twin
            print(f"notebooks/{english.name}: its launch block now links notebooks/zh/{english.name}")
    return found


def glossary_terms(root: Path = ROOT) -> dict[str, str]:
    """{Chinese term: its English} from the glossary's Terms table (each of a row's "/"- or ","-separated terms)."""
    text = (Path(root) / "notebooks" / "glossary.md").read_text(encoding="utf-8")
    table = text.split("## Terms", 1)[1].split("\n\n", 2)[1]
    terms = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        english = re.sub(r"\s*\(.*?\)", "", cells[0])
        for term in re.split(r"\s*/\s*|,\s*", re.sub(r"\s*\(.*?\)", "", cells[1])):
            if len(re.findall(r"[\u4e00-\u9fff]", term)) >= 2:
                terms.setdefault(term.strip(), english)
    return terms


def first_use_problems(nb: dict, notebook: str, terms: dict[str, str]) -> list[str]:
    """Glossary terms whose first use in the zh notebook's prose is not followed by the English in parentheses
    ("查询（query）"); advisory (a term inside a longer one, or in a heading, is listed too)."""
    prose = "".join(_text(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    prose = re.sub(re.escape(launch_buttons.BEGIN) + ".*?" + re.escape(launch_buttons.END), "", prose, flags=re.S)
    found = []
    for term, english in sorted(terms.items()):
        start = prose.find(term)
        if start >= 0 and not prose[start + len(term) :].lstrip("*").startswith(("（", "(")):  # **term**（...）
            where = prose[max(0, start - 12) : start + len(term) + 12].replace("\n", " ")
            found.append(f"{notebook}: first use of {term} ({english}) without the English: ...{where}...")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; list what is out of step, exit 1")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    parser.add_argument(
        "--terms", action="store_true", help="list glossary terms first used without the English (advisory, exit 0)"
    )

    def one_line_error(message):
        print(f"translate: {message} (usage: python -m tools.translate [--check] [--root DIR])", file=sys.stderr)
        sys.exit(2)

    parser.error = one_line_error
    args = parser.parse_args(argv)
    if args.terms:
        terms = glossary_terms(args.root)
        for path in sorted((Path(args.root) / "notebooks" / "zh").glob("*.ipynb")):
            for line in first_use_problems(json.loads(path.read_text(encoding="utf-8")), path.name, terms):
                print(line)
        return 0
    try:
        found = problems(args.root) if args.check else rebuild(args.root)
    except (ValueError, OSError, KeyError, TypeError) as error:
        print(f"translate: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2
    for line in found:
        print(line)
    if args.check:
        print(f"translate: {len(found)} out of step" if found else "translate: all in step")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
