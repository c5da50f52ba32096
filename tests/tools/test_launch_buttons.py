"""Launch links and the questions footer: one tool writes them, from one repository address, for every notebook."""

import json
import shutil
import subprocess
import sys
import tomllib
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import ROOT

from tools.launch_buttons import (
    BEGIN,
    END,
    QUESTIONS_TAG,
    SLUG,
    issue_links,
    links,
    main,
    markdown_block,
    numbered_notebooks,
    page_buttons,
    problems,
    questions_source,
    update_notebook,
)

REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
NUMBERED = numbered_notebooks()


def test_the_tool_finds_every_numbered_notebook_by_its_pattern():
    on_disk = sorted(p for p in (ROOT / "notebooks").iterdir() if p.suffix == ".ipynb" and p.name[:2].isdigit())
    assert NUMBERED == on_disk and len(NUMBERED) >= 8


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem for p in NUMBERED])
def test_links_point_to_the_repository_and_the_notebooks_path(path):
    owner, name = REPOSITORY.removeprefix("https://github.com/").split("/")
    assert SLUG == f"{owner}/{name}"
    found = links(path.name)
    colab, binder, download = (urlsplit(found[k]) for k in ("colab", "binder", "download"))
    assert (colab.netloc, colab.path) == (
        "colab.research.google.com",
        f"/github/{owner}/{name}/blob/main/notebooks/{path.name}",
    )
    assert (binder.netloc, binder.path) == ("mybinder.org", f"/v2/gh/{owner}/{name}/HEAD")
    assert parse_qs(binder.query) == {"urlpath": [f"lab/tree/notebooks/{path.name}"]}
    assert (download.netloc, download.path) == ("github.com", f"/{owner}/{name}/raw/main/notebooks/{path.name}")
    assert (ROOT / "notebooks" / path.name).exists()


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem for p in NUMBERED])
def test_first_cell_has_the_buttons_and_the_last_cell_links_the_issue_forms(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[0]["source"])
    assert first.startswith("# ") and BEGIN in first and END in first
    block = first[first.index(BEGIN) : first.index(END)]
    for url in links(path.name).values():
        assert f"]({url})" in block, f"{path.name}: the first cell lacks {url}"
    assert first.index(BEGIN) < first.index("\n\n") + 4, "the buttons come right under the title"
    last = cells[-1]
    assert QUESTIONS_TAG in last["metadata"]["tags"] and last["cell_type"] == "markdown"
    for _, url in issue_links().values():
        assert url in "".join(last["source"])
    forms = {url.rsplit("=", 1)[1] for _, url in issue_links().values()}
    assert all((ROOT / ".github" / "ISSUE_TEMPLATE" / form).is_file() for form in forms)


def test_check_mode_passes_on_the_repository_and_the_readme_has_every_link(capsys):
    assert problems() == []
    assert main(["--check"]) == 0
    assert capsys.readouterr().out.strip() == "launch_buttons: all in step"


@pytest.mark.slow
def test_check_mode_passes_as_a_command():
    """The same through a new interpreter (the pre-commit hook's way): its exit status and its one line."""
    result = subprocess.run(
        [sys.executable, "-m", "tools.launch_buttons", "--check"],
        cwd=ROOT,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
    )
    assert result.returncode == 0 and result.stdout.strip() == "launch_buttons: all in step", result.stdout


def test_check_mode_finds_a_changed_link_a_new_notebook_and_a_readme_gap(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "notebooks", course / "notebooks")
    shutil.copy(ROOT / "README.md", course / "README.md")
    assert problems(course) == []
    nb_path = course / "notebooks" / NUMBERED[1].name
    text = nb_path.read_text(encoding="utf-8")
    nb_path.write_text(
        text.replace(f"/blob/main/notebooks/{NUMBERED[1].name}", "/blob/main/notebooks/x.ipynb"), encoding="utf-8"
    )
    new = course / "notebooks" / "99_new_topic.ipynb"
    shutil.copy(NUMBERED[2], new)
    found = problems(course)
    assert any(line.startswith(f"{NUMBERED[1].name}:") for line in found)
    assert any(line.startswith("99_new_topic.ipynb:") for line in found), "a new notebook is found by its pattern"
    assert any("README.md lacks the binder link of 99_new_topic.ipynb" in line for line in found)
    assert update_notebook(nb_path) is True and update_notebook(nb_path) is False
    assert nb_path.read_text(encoding="utf-8") == text, "the tool restores exactly what it wrote"


def test_page_buttons_carry_the_same_links():
    page = page_buttons(NUMBERED[3].name)
    for url in links(NUMBERED[3].name).values():
        assert f'href="{url}"' in page
    assert 'aria-label="' in page


@pytest.mark.parametrize("bad", ["", "../x.ipynb", "a b.ipynb", "notes.md", None])
def test_links_refuse_what_is_not_a_notebook_name(bad):
    with pytest.raises(ValueError, match="name must be a notebook's file name"):
        links(bad)


def test_the_zh_edition_gets_its_own_links_in_chinese_and_links_back():
    name = NUMBERED[1].name
    zh = links(name, "zh")
    assert all(f"/notebooks/zh/{name}" in url for url in zh.values())
    assert parse_qs(urlsplit(zh["binder"]).query) == {"urlpath": [f"lab/tree/notebooks/zh/{name}"]}
    block = markdown_block(name, "zh")
    assert block.startswith(BEGIN) and block.endswith(END) and f"](../{name})" in block and "在 Colab 中打开" in block
    assert f"](zh/{name})" in markdown_block(name, twin=True) and "zh/" not in markdown_block(name)
    assert "提问" in questions_source("zh")
    with pytest.raises(ValueError, match="lang must be one of"):
        links(name, "fr")
