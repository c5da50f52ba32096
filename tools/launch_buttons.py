"""Launch buttons and the questions footer of every notebook: ``python -m tools.launch_buttons [--check]``.

One place makes every "run this" link of the course, from one repository address (``pyproject.toml``'s
``Repository``) and the notebook's path:

- the first cell of each numbered notebook (``notebooks/[0-9][0-9]_*.ipynb``, found by the pattern, so a new
  notebook is covered) gets, under its title, a line with **Open in Colab**, **Launch on Binder** and
  **Download the notebook**, between two HTML comments that mark it as written by this tool;
- each of those notebooks ends with a cell (tagged ``questions``) linking the repository's issue forms: a
  question, an error in the text, a bug;
- the static pages (``build_site.py``) show the same links as buttons at the top of each page and the same
  footer (:func:`page_buttons`, :func:`page_footer`);
- the README's table links the same Binder and Colab addresses (``--check`` says if one is missing);
- the Chinese edition (``notebooks/zh/``, built by ``tools/translate.py``) gets the same block and footer in
  Chinese (``lang="zh"``) with a link back to its English twin, and an English notebook that has a zh twin
  links it on a line of its own inside its block (``TWIN_ZH``; the translation's drift hash sets that line aside).

Without options it writes the notebooks (stripped, as committed); running it twice changes nothing.
``--check`` writes nothing and exits 1 with one line per notebook or README link that is out of step.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import tomllib
from pathlib import Path

from attention_lab.paths import repo_root

__all__ = [
    "REPOSITORY",
    "SLUG",
    "NOTEBOOK_PATTERN",
    "numbered_notebooks",
    "links",
    "issue_links",
    "markdown_block",
    "questions_source",
    "page_buttons",
    "page_footer",
    "update_notebook",
    "problems",
]

ROOT = repo_root(Path(__file__).parent)
REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
SLUG = REPOSITORY.removeprefix("https://github.com/").rstrip("/")
BRANCH = "main"
NOTEBOOK_PATTERN = "[0-9][0-9]_*.ipynb"
BEGIN = "<!-- launch-buttons: written by tools/launch_buttons.py, do not edit by hand -->"
END = "<!-- /launch-buttons -->"
QUESTIONS_TAG = "questions"
ISSUE_FORMS = {
    "question": ("Ask a question", "question.yml"),
    "error": ("Report an error in the text", "error-in-text.yml"),
    "bug": ("Report a bug", "bug.yml"),
}


def numbered_notebooks(folder: Path = ROOT / "notebooks") -> list[Path]:
    """The course's notebooks, in order: every ``NN_*.ipynb`` in ``folder``."""
    return sorted(Path(folder).glob(NOTEBOOK_PATTERN))


LANGUAGES = {"en": "notebooks", "zh": "notebooks/zh"}  # the folder of each edition's notebooks


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {sorted(LANGUAGES)}, got {lang!r}")


def links(name: str, lang: str = "en") -> dict[str, str]:
    """The Colab, Binder and download addresses of notebook ``name`` (a file name in ``notebooks/``, or in
    ``notebooks/zh/`` for ``lang="zh"``)."""
    if not re.fullmatch(r"[\w\-]+\.ipynb", str(name)):
        raise ValueError(f"name must be a notebook's file name like 01_queries_keys_values.ipynb, got {name!r}")
    _check_lang(lang)
    folder = LANGUAGES[lang]
    return {
        "colab": f"https://colab.research.google.com/github/{SLUG}/blob/{BRANCH}/{folder}/{name}",
        "binder": f"https://mybinder.org/v2/gh/{SLUG}/HEAD?urlpath=lab/tree/{folder}/{name}",
        "download": f"https://github.com/{SLUG}/raw/{BRANCH}/{folder}/{name}",
    }


LABELS = {"colab": "Open in Colab", "binder": "Launch on Binder", "download": "Download the notebook"}
LABELS_ZH = {"colab": "在 Colab 中打开", "binder": "在 Binder 上启动", "download": "下载本笔记本"}
TWIN_ZH = "[中文版（Chinese edition）](zh/{name})"  # the English notebook's link to its zh twin
TWIN_EN = "[English edition（英文原版）](../{name})"  # the zh notebook's link back


def issue_links() -> dict[str, tuple[str, str]]:
    """{kind: (label, address)} of the repository's issue forms (``.github/ISSUE_TEMPLATE/``)."""
    return {
        kind: (label, f"https://github.com/{SLUG}/issues/new?template={form}")
        for kind, (label, form) in ISSUE_FORMS.items()
    }


def markdown_block(name: str, lang: str = "en", *, twin: bool = False) -> str:
    """The launch line of a notebook's first cell, between its two marker comments; with ``twin``, a line
    linking the other edition (an English notebook's zh twin; a zh notebook always links its English one)."""
    if lang == "zh":
        line = " · ".join(f"[{LABELS_ZH[kind]}]({url})" for kind, url in links(name, "zh").items())
        line += "（Colab 和 Binder 在云端运行，无需安装）\n\n" + TWIN_EN.format(name=name)
        return f"{BEGIN}\n\n{line}\n\n{END}"
    line = " · ".join(f"[{LABELS[kind]}]({url})" for kind, url in links(name).items())
    line += " (Colab and Binder run it in the cloud; no install)"
    if twin:
        line += "\n\n" + TWIN_ZH.format(name=name)
    return f"{BEGIN}\n\n{line}\n\n{END}"


def questions_source(lang: str = "en") -> str:
    _check_lang(lang)
    if lang == "zh":
        forms = " · ".join(f"[{ISSUE_LABELS_ZH[kind]}]({url})" for kind, (_, url) in issue_links().items())
        return (
            "---\n\n**提问与勘误。** " + forms + "（GitHub 的 issue 表单，需要 GitHub 账号；可以用中文写）。"
            "请写明是哪个笔记本、哪个单元格。"
        )
    forms = " · ".join(f"[{label}]({url})" for label, url in issue_links().values())
    return (
        "---\n\n**Questions and errors.** " + forms + " (GitHub's issue forms; a GitHub account is needed). "
        "Say which notebook and which cell."
    )


def page_buttons(name: str, lang: str = "en") -> str:
    """The launch links of notebook ``name`` (in ``notebooks/``, or ``notebooks/zh/`` for ``lang="zh"``) as the
    buttons at the top of its static page (HTML), labelled in the page's language."""
    labels = LABELS_ZH if lang == "zh" else LABELS
    items = "".join(
        f'<a class="launch-button launch-{kind}" href="{html.escape(url)}">{labels[kind]}</a>'
        for kind, url in links(name, lang).items()
    )
    aria = "运行或下载本笔记本" if lang == "zh" else "Run or download this notebook"
    return f'<nav class="launch-buttons" aria-label="{aria}">{items}</nav>'


ISSUE_LABELS_ZH = {"question": "提问", "error": "报告文中的错误", "bug": "报告程序错误"}


def page_footer(lang: str = "en") -> str:
    """The questions footer of every static page (HTML), in the page's language (``"en"`` or ``"zh"``)."""
    _check_lang(lang)
    if lang == "zh":
        forms = " · ".join(
            f'<a href="{html.escape(url)}">{ISSUE_LABELS_ZH[kind]}</a>' for kind, (_, url) in issue_links().items()
        )
        return (
            f'<footer class="questions-footer"><p><strong>提问与勘误。</strong>{forms}'
            "（GitHub 的 issue 表单，需要 GitHub 账号；可以用中文写）。</p></footer>"
        )
    forms = " · ".join(f'<a href="{html.escape(url)}">{label}</a>' for label, url in issue_links().values())
    return (
        f'<footer class="questions-footer"><p><strong>Questions and errors.</strong> {forms} '
        "(GitHub's issue forms; a GitHub account is needed).</p></footer>"
    )


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _with_block(source: str, name: str, lang: str = "en", twin: bool = False) -> str:
    """``source`` (a first cell) with the launch block right under its title line, replacing an old one."""
    block = markdown_block(name, lang, twin=twin)
    if BEGIN in source and END in source:
        start, end = source.index(BEGIN), source.index(END) + len(END)
        return source[:start] + block + source[end:]
    lines = source.split("\n")
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), -1)
    rest = lines[title + 1 :]
    while rest and not rest[0].strip():  # one blank line between the block and what follows
        rest = rest[1:]
    return "\n".join([*lines[: title + 1], "", block, *([""] + rest if rest else [])])


def _is_questions(cell) -> bool:
    return QUESTIONS_TAG in cell.get("metadata", {}).get("tags", [])


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def updated(nb: dict, name: str, lang: str = "en", *, twin: bool = False) -> dict:
    """A copy of notebook ``nb`` (JSON) with its launch block and questions cell as this tool writes them
    (``lang="zh"``: the Chinese edition's; ``twin``: an English notebook that has a zh twin links it)."""
    _check_lang(lang)
    nb = json.loads(json.dumps(nb))
    cells = nb["cells"]
    if not cells or cells[0]["cell_type"] != "markdown":
        raise ValueError(
            f"{name}: the first cell must be the markdown title cell, got "
            f"{cells[0]['cell_type'] if cells else 'no cells'}"
        )
    cells[0]["source"] = _lines(_with_block(_source(cells[0]), name, lang, twin))
    # a fixed cell id (nbformat 4.5 wants one): the tool's output is the same on every run
    questions = {
        "cell_type": "markdown",
        "id": QUESTIONS_TAG,
        "metadata": {"tags": [QUESTIONS_TAG]},
        "source": _lines(questions_source(lang)),
    }
    tagged = [i for i, cell in enumerate(cells) if _is_questions(cell)]
    if tagged:  # metadata other tools own (the slide type of tools/slide_metadata.py) is kept
        questions["metadata"] = {**cells[tagged[0]].get("metadata", {}), "tags": [QUESTIONS_TAG]}
        cells[tagged[0]] = questions
        if tagged[0] != len(cells) - 1:  # the footer is always the last cell
            cells.append(cells.pop(tagged[0]))
    else:
        cells.append(questions)
    return nb


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def update_notebook(path: Path, *, write: bool = True) -> bool:
    """Bring one notebook's launch block and questions cell up to date; True if it changed (or would)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    twin = (path.parent / "zh" / path.name).exists()  # the English notebook links its Chinese twin
    new = _dump(updated(json.loads(text), path.name, twin=twin))
    if new != text and write:
        path.write_text(new, encoding="utf-8")
    return new != text


def problems(root: Path = ROOT) -> list[str]:
    """Every notebook or README link out of step with what this tool makes, one line each."""
    found = []
    for path in numbered_notebooks(Path(root) / "notebooks"):
        if update_notebook(path, write=False):
            found.append(f"{path.name}: its launch links or questions cell differ from what the tool writes")
    readme = (Path(root) / "README.md").read_text(encoding="utf-8")
    for path in numbered_notebooks(Path(root) / "notebooks"):
        for kind in ("binder", "colab"):
            if links(path.name)[kind] not in readme:
                found.append(f"README.md lacks the {kind} link of {path.name}: {links(path.name)[kind]}")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is out of step")

    def one_line_error(message):
        print(f"launch_buttons: {message} (usage: python -m tools.launch_buttons [--check])", file=sys.stderr)
        sys.exit(2)

    parser.error = one_line_error
    args = parser.parse_args(argv)
    try:
        if args.check:
            found = problems()
            for line in found:
                print(line)
            print(f"launch_buttons: {len(found)} out of step" if found else "launch_buttons: all in step")
            return 1 if found else 0
        for path in numbered_notebooks():
            print(f"{path.name}: {'updated' if update_notebook(path) else 'already up to date'}")
        missing = [line for line in problems() if line.startswith("README")]
        for line in missing:
            print(line)
        return 1 if missing else 0
    except (ValueError, OSError, json.JSONDecodeError) as error:
        print(f"launch_buttons: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
