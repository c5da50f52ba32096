"""The Chinese edition (notebooks/zh/) cannot drift silently from the English.

- every translation file is in step with its English notebook: no stale, missing or extra cell (the drift test;
  a changed English cell fails it, naming notebook and cell, shown below on a copy);
- the committed zh notebooks are what ``python -m tools.translate`` builds;
- the code is the English code: with comments and strings set aside (and the set-language line), the token
  streams of each zh code cell and its English twin are equal; every translated fragment lies inside one comment
  or string;
- the Chinese is translated, not copied from the original posts (the README's machine check, here for
  notebooks/zh/ and translations/zh/ when the posts are at hand).
"""

import io
import json
import os
import re
import shutil
import tokenize
from pathlib import Path

import pytest
from helpers import NOTEBOOK_DIR, NOTEBOOKS, ROOT, ZH_NOTEBOOKS

from tools import translate

TRANSLATIONS = sorted((ROOT / "translations" / "zh").glob("*.json"))


def _cells(path: Path) -> list[dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    return "".join(cell["source"])


def test_every_translation_is_in_step_with_its_english_notebook():
    """The drift test: a stale, missing or extra cell is named with its notebook and cell."""
    assert TRANSLATIONS, "no translation file in translations/zh/"
    drift = []
    for path in TRANSLATIONS:
        english = json.loads((NOTEBOOK_DIR / f"{path.stem}.ipynb").read_text(encoding="utf-8"))
        drift += translate.drift(english, translate.load_translation(path), f"{path.stem}.ipynb")
    assert not drift, "edit translations/zh/ for these cells, then python -m tools.translate:\n" + "\n".join(drift)


def test_the_committed_zh_notebooks_are_what_the_command_builds():
    assert translate.problems() == []
    assert [p.name for p in ZH_NOTEBOOKS] == [f"{p.stem}.ipynb" for p in TRANSLATIONS]


def _code_tokens(source: str) -> list[tuple[int, str]]:
    """The tokens of a code cell with comments, strings and line breaks set aside (magics read as comments)."""
    masked = re.sub(r"(?m)^(\s*)[%!]", r"\1#", source)
    skipped = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER}
    return [
        (t.type, t.string)
        for t in tokenize.generate_tokens(io.StringIO(masked).readline)
        if t.type not in skipped and t.type != getattr(tokenize, "FSTRING_MIDDLE", -1)
    ]


@pytest.mark.parametrize("path", ZH_NOTEBOOKS, ids=[p.stem for p in ZH_NOTEBOOKS])
def test_the_zh_code_is_the_english_code(path):
    """Same cells, ids and metadata; outputs stripped; code tokens equal once comments and strings are set aside
    (the set-up cell's one added line, al.set_language("zh"), aside)."""
    english_nb = json.loads((NOTEBOOK_DIR / path.name).read_text(encoding="utf-8"))
    zh_nb = json.loads(path.read_text(encoding="utf-8"))
    assert zh_nb["metadata"]["kernelspec"] == english_nb["metadata"]["kernelspec"]
    english, zh = english_nb["cells"], zh_nb["cells"]
    assert [(c["id"], c["cell_type"]) for c in zh] == [(c["id"], c["cell_type"]) for c in english]
    set_language = 0
    for e, z in zip(english, zh, strict=True):
        assert z["metadata"] == e["metadata"], f"{path.name} cell {z['id']}: metadata differ"
        if e["cell_type"] != "code":
            continue
        assert z["outputs"] == [] and z["execution_count"] is None, f"{path.name} cell {z['id']}: outputs"
        lines = _source(z).splitlines(keepends=True)
        kept = [line for line in lines if line.strip() != translate.SET_LANGUAGE]
        set_language += len(lines) - len(kept)
        assert _code_tokens("".join(kept)) == _code_tokens(_source(e)), f"{path.name} cell {z['id']}: code changed"
    assert set_language == 1, f"{path.name}: the set-up cell must select Chinese exactly once"


@pytest.mark.parametrize("path", TRANSLATIONS, ids=[p.stem for p in TRANSLATIONS])
def test_every_fragment_lies_inside_one_comment_or_string(path):
    english = json.loads((NOTEBOOK_DIR / f"{path.stem}.ipynb").read_text(encoding="utf-8"))
    assert translate.fragment_problems(english, translate.load_translation(path), path.stem) == []


def test_the_zh_set_up_cell_selects_chinese_right_after_the_import():
    for path in ZH_NOTEBOOKS:
        for cell in _cells(path):
            lines = _source(cell).splitlines()
            if translate.SETUP_IMPORT in lines:
                assert lines[lines.index(translate.SETUP_IMPORT) + 1] == translate.SET_LANGUAGE, path.name
                break
        else:
            pytest.fail(f"{path.name}: no set-up cell")


def test_relative_links_point_from_the_zh_folder():
    for path in ZH_NOTEBOOKS:
        text = "".join(_source(c) for c in _cells(path) if c["cell_type"] == "markdown")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:|#", target):
                continue
            file = target.split("#")[0]
            assert (path.parent / file).resolve().is_file(), f"{path.name}: broken link {target}"
        assert f"](../{path.name})" in text, f"{path.name}: no link to its English twin"
        english = _source(_cells(NOTEBOOK_DIR / path.name)[0])
        assert f"](zh/{path.name})" in english, f"{path.name}: the English notebook does not link its zh twin"


# --- the drift test fails when it should, on a copy of the repository's files ---------------------------------


def _mini_repository(tmp_path: Path) -> Path:
    """A copy of what the command reads and writes: notebooks/ (English, zh, glossary), translations/,
    README.zh.md; the first translated notebook is the one the tests change."""
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    shutil.copytree(ROOT / "translations", tmp_path / "translations")
    if (ROOT / "README.zh.md").exists():
        shutil.copy(ROOT / "README.zh.md", tmp_path / "README.zh.md")
    return tmp_path


def _first(root: Path, folder: str, suffix: str) -> Path:
    return root / folder / f"{TRANSLATIONS[0].stem}{suffix}"


def _edit_english(root: Path, change) -> tuple[str, int, str]:
    path = _first(root, "notebooks", ".ipynb")
    nb = json.loads(path.read_text(encoding="utf-8"))
    index, cell_id = change(nb["cells"])
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path.name, index, cell_id


def _reword_first_markdown(cells):
    index = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and i > 0)
    cells[index]["source"][-1] += " A sentence added in English."
    return index, cells[index]["id"]


def test_a_changed_english_cell_fails_the_drift_check_naming_notebook_and_cell(tmp_path, capsys):
    root = _mini_repository(tmp_path)
    assert translate.problems(root) == []
    name, index, cell_id = _edit_english(root, _reword_first_markdown)
    found = translate.problems(root)
    assert found and found[0].startswith(f"{name} cell {index} (id {cell_id}): stale"), found
    assert translate.main(["--check", "--root", str(root)]) == 1
    assert f"{name} cell {index} (id {cell_id}): stale" in capsys.readouterr().out


def test_an_added_or_removed_english_cell_is_named(tmp_path):
    root = _mini_repository(tmp_path)

    def add(cells):
        cells.insert(2, {"cell_type": "markdown", "id": "new-cell", "metadata": {}, "source": ["New."]})
        return 2, "new-cell"

    name, index, cell_id = _edit_english(root, add)
    assert f"{name} cell 2 (id new-cell): missing, the English cell has no translation" in translate.problems(root)

    def remove(cells):
        return 2, cells.pop(3)["id"]  # the cell after the new one: gone from the English

    name, _, removed = _edit_english(root, remove)
    assert any(line.startswith(f"{name} translation entry {removed}: extra") for line in translate.problems(root))


def test_a_code_fragment_outside_comments_and_strings_is_named(tmp_path):
    root = _mini_repository(tmp_path)
    path = _first(root, "translations/zh", ".json")
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = next(e for e in data["cells"] if "code" in e)
    entry["code"] = [["import", "导入（不该出现）"]]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert any("not inside one comment or string: 'import'" in line for line in translate.problems(root))
    english = json.loads((root / "notebooks" / f"{path.stem}.ipynb").read_text(encoding="utf-8"))
    built = translate.build(english, data, f"{path.stem}.ipynb", root=root)
    assert "导入（不该出现）" not in json.dumps(built, ensure_ascii=False), "a misplaced fragment was applied"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is not valid JSON"),
        ('{"notebook": "other.ipynb", "cells": []}', "'notebook' must be"),
        ('{"cells": [{"id": "x"}]}', "'notebook' must be"),
    ],
)
def test_a_malformed_translation_file_fails_in_one_line_and_writes_nothing(tmp_path, content, expected, capsys):
    root = _mini_repository(tmp_path)
    path = _first(root, "translations/zh", ".json")
    path.write_text(content, encoding="utf-8")
    zh = root / "notebooks" / "zh" / f"{path.stem}.ipynb"
    zh.unlink()
    assert translate.main(["--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1 and "Traceback" not in err
    assert not zh.exists() and not list((root / "notebooks" / "zh").glob("*.partial"))


def test_rebuild_writes_the_zh_notebook_and_is_a_fixed_point(tmp_path):
    root = _mini_repository(tmp_path)
    zh = _first(root, "notebooks/zh", ".ipynb")
    committed = zh.read_text(encoding="utf-8")
    zh.unlink()
    assert translate.rebuild(root) == []
    assert zh.read_text(encoding="utf-8") == committed
    assert translate.rebuild(root) == [] and zh.read_text(encoding="utf-8") == committed


# --- translated, not copied: the README's check against the original posts, for the Chinese edition -----------

POSTS = os.environ.get("ATTENTION_LAB_POSTS")  # the folder of the three original posts (not kept in the repository)


def copied_runs(text: str, post: str, *, chinese: int = 10, any_run: int = 40) -> list[str]:
    """Runs of ``post`` found in ``text``: of ``chinese`` characters at least half of them Chinese, or ``any_run``
    of any kind (whitespace collapsed), each copied stretch reported once. (The README's rule for the English
    text counts a run with any Chinese in it; in a Chinese text that would flag "用 softmax " and the like.)"""
    text, post = re.sub(r"\s+", " ", text), re.sub(r"\s+", " ", post)
    found = []
    for size, needs_chinese in ((chinese, True), (any_run, False)):
        windows = {text[i : i + size] for i in range(len(text) - size + 1)}
        i = 0
        while i + size <= len(post):
            run = post[i : i + size]
            if run in windows and (not needs_chinese or 2 * len(re.findall(r"[\u4e00-\u9fff]", run)) >= size):
                found.append(run)
                i += size
            else:
                i += 1
    return found


def test_the_copy_check_finds_a_copied_chinese_run_and_passes_a_translation():
    post = "注意力机制可以看作一种软寻址：查询与每个键计算相似度，再对值加权求和。"
    assert copied_runs("正文：查询与每个键计算相似度，再对值加权求和。", post)
    assert not copied_runs("我们把查询和所有键逐一比较，得到分数，再对值取加权平均。", post)


@pytest.mark.skipif(not POSTS, reason="set ATTENTION_LAB_POSTS to the folder of the original posts to compare")
def test_the_chinese_edition_copies_no_run_of_the_posts():
    posts = [p.read_text(encoding="utf-8") for p in sorted(Path(POSTS).glob("*.txt")) if p.name[0].isdigit()]
    assert posts, f"no post in {POSTS}"
    texts = {p: p.read_text(encoding="utf-8") for p in [*ZH_NOTEBOOKS, *TRANSLATIONS]}
    copied = {p.name: runs for p, text in texts.items() for runs in [sum((copied_runs(text, s) for s in posts), [])]}
    assert not any(copied.values()), {name: runs[:5] for name, runs in copied.items() if runs}


def test_the_terms_report_names_a_glossary_term_first_used_without_its_english():
    terms = translate.glossary_terms()
    assert terms["查询"].startswith("query") and terms["注意力汇聚"] == "attention pooling"
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["把**查询**（query）和键比较，得到注意力汇聚的结果；再谈查询。"]}
        ]
    }
    found = translate.first_use_problems(nb, "x.ipynb", terms)
    assert any("注意力汇聚 (attention pooling)" in line for line in found)
    assert not any("first use of 查询 " in line for line in found)


def test_the_chinese_readme_states_each_notebooks_times():
    """README.zh.md's table gives each notebook's times as the notebook stores them (tools/lesson_times.py)."""
    text = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        times = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("attention_lab", {}).get("minutes")
        if times is None or not re.match(r"0[1-9]_", path.name):
            continue
        row = re.search(rf"^\| {path.name[:2]} \|.*$", text, flags=re.M)
        assert row, f"README.zh.md has no row for {path.name}"
        assert f"| {times['core']} 分钟（含拓展部分 {times['full']} 分钟） |" in row.group(0), (path.name, times)
