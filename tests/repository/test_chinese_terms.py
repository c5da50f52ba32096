"""One term per concept in the Chinese edition: the glossary's "One term per concept" table lists, per concept,
the term the edition uses and the variants it does not write; no variant appears in the zh notebooks, the
library's Chinese messages or README.zh.md. Chinese typography in the prose (a code cell's comments keep the
shapes and names of the English code they annotate): full-width punctuation beside Chinese, no space around
full-width quotes."""

import json
import re

import pytest
from helpers import ROOT, ZH_NOTEBOOKS

GLOSSARY = ROOT / "notebooks" / "glossary.md"
PO = ROOT / "src" / "attention_lab" / "locale" / "zh" / "LC_MESSAGES" / "attention_lab.po"
HAN = r"[\u4e00-\u9fff]"


def variants() -> dict[str, str]:
    """variant -> the term the edition writes instead, from the glossary's table."""
    table = GLOSSARY.read_text(encoding="utf-8").split("**One term per concept.**")[1].split("\n\n")[1]
    found = {}
    for row in table.splitlines()[2:]:
        _, used, not_written = (cell.strip() for cell in row.strip("|").split("|"))
        for variant in re.split(r"\s*[,/]\s*", not_written):
            found[variant] = used
    return found


def zh_texts(*, code: bool = True):
    """(where, text) for every Chinese text a reader sees: notebook cells (``code``: code cells too), catalogue
    entries, README.zh.md."""
    for path in ZH_NOTEBOOKS:
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if code or cell["cell_type"] == "markdown":
                yield f"{path.name} cell {index}", "".join(cell["source"])
    for block in PO.read_text(encoding="utf-8").split("\n\n"):
        if "msgstr" in block:
            yield "attention_lab.po", "".join(re.findall(r'"(.*)"', block.split("msgstr", 1)[1]))
    yield "README.zh.md", (ROOT / "README.zh.md").read_text(encoding="utf-8")
    guide = ROOT / "notebooks" / "zh" / "LECTURERS.md"
    if guide.exists():
        yield "notebooks/zh/LECTURERS.md", guide.read_text(encoding="utf-8")
    for path in ZH_NOTEBOOKS:  # the lecture decks' Chinese marks: titles, quoted phrases, questions, speaker notes
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            marks = cell.get("metadata", {}).get("lecture", {}).get("zh")
            if marks:
                yield f"{path.name} cell {index} (lecture marks)", "\n\n".join(_strings(marks))


def _strings(value):
    """Every string inside a JSON value (a mark's title, phrases, notes, question)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_the_glossary_names_the_variants():
    found = variants()
    assert len(found) >= 10 and found["检验"] == "检查" and found["热力图"] == "热图"


def test_no_variant_of_a_term_in_the_chinese_edition():
    table = variants()
    pattern = re.compile("|".join(map(re.escape, sorted(table, key=len, reverse=True))))
    hits = [
        f"{where}: {m.group()} (write {table[m.group()]})" for where, text in zh_texts() for m in pattern.finditer(text)
    ]
    assert not hits, f"{len(hits)} variant(s):\n" + "\n".join(hits[:30])


def _prose(text: str) -> str:
    """A Chinese text without its code and maths: fenced code, `code`, $maths$, links' targets, HTML tags."""
    text = re.sub(r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|<[^>]*>", "X", text, flags=re.S)
    return text


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("让所有权重相等的温度: 尚未作答", True),
        ("温度：尚未作答", False),
        ("把 “I am” 译出", True),
        ("把“I am”译出", False),
        ("见 `a: b` 与 $x, y$", False),
        ("权重, 分数", True),
    ],
)
def test_the_typography_rule(text, bad):
    assert bool(typography_problems(text)) == bad


def typography_problems(text: str) -> list[str]:
    prose = _prose(text)
    found = re.findall(f"{HAN}[,:;?!](?=\\s|{HAN}|$)|{HAN}[,:;?!]\\s", prose)
    found += re.findall(r"[ \t][“”‘’]|[“”‘’][ \t](?![\s\-|#*>])", prose)  # a line may start or end with one
    return found


def test_chinese_typography_in_the_zh_notebooks_and_messages():
    problems = [f"{where}: {found[:3]}" for where, text in zh_texts(code=False) if (found := typography_problems(text))]
    assert not problems, (
        f"{len(problems)} text(s) with half-width punctuation beside Chinese or spaces around “”:\n"
        + "\n".join(problems[:30])
    )


def test_every_launch_link_of_a_zh_notebook_opens_a_zh_notebook():
    launch = re.compile(
        r"https://(?:colab\.research\.google\.com|mybinder\.org|github\.com)/[^)\s\"]*?\d\d_[\w-]+\.ipynb"
    )
    found = [
        (path.name, url)
        for path in ZH_NOTEBOOKS
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "markdown"
        for url in launch.findall("".join(cell["source"]))
    ]
    assert len(found) > 3 * len(ZH_NOTEBOOKS)
    english = [f"{name}: {url}" for name, url in found if "/notebooks/zh/" not in url]
    assert not english, "launch links to the English notebooks:\n" + "\n".join(english)
