"""Classroom and self-study delivery: static site, Binder environment, exercises, student copy, lecture mode."""

import re
import subprocess
import sys
import tomllib

import matplotlib as mpl
import nbformat
import pytest
import yaml
from helpers import NOTEBOOKS, ROOT

import attention_lab as al
from tools.student_copy import make_student_copy

NUMBERED = [p for p in NOTEBOOKS if re.match(r"0[1-9]_", p.name)]


# --- static site ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(built_site):
    return built_site


def test_site_has_an_index_and_a_page_per_notebook(site):
    out, written = site
    assert written[0] == out / "index.html"
    index = (out / "index.html").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        page = out / f"{path.stem}.html"
        assert page.exists(), f"no page for {path.name}"
        assert f'href="{path.stem}.html"' in index
    assert 'href="glossary.html"' in index and (out / "glossary.html").exists()


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem for p in NUMBERED])
def test_site_pages_have_figures_math_and_local_links_and_work_offline(site, path):
    out, _ = site
    page = (out / f"{path.stem}.html").read_text(encoding="utf-8")
    assert page.count("<img") >= 2, "the page should show the notebook's figures"
    assert 'src="mathjax/tex-chtml-full.js"' in page and (out / "mathjax" / "tex-chtml-full.js").exists()
    assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="https?://', page), "an external resource"
    assert not re.search(r'<script type="module">[^<]*https?://', page)
    assert 'href="glossary.html"' in page
    assert not re.search(r'href="(?!https://)[^"]*\.ipynb"', page), "a relative link to a notebook, not its page"
    assert 'href="../' not in page, "a relative link out of the site (the README is linked in the repository)"
    assert "application/vnd.jupyter.widget-view+json" not in page  # explorers appear as pictures
    assert "Traceback" not in page


# --- Binder environment -----------------------------------------------------------------------------------


def test_environment_yml_builds_the_cpu_course_on_binder():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    names = {entry.split("=")[0] for entry in env["dependencies"] if isinstance(entry, str)}
    pip = next(entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict))
    assert "pytorch-cpu" in names and not names & {"pytorch", "pytorch-gpu", "cudatoolkit", "cuda-version"}
    assert {"numpy", "matplotlib", "ipywidgets", "anywidget", "jupyterlab", "ipykernel"} <= names
    assert "-e ." in pip, "the project itself must be installed (pip: -e .)"
    imported = set()
    for path in NOTEBOOKS:
        source = path.read_text(encoding="utf-8")
        imported |= set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", source, flags=re.M))
    conda_name = {"torch": "pytorch-cpu"}
    third_party = imported - set(sys.stdlib_module_names) - {"attention_lab", "IPython"}
    assert {conda_name.get(m, m) for m in third_party} <= names, "a notebook imports a package Binder lacks"


def test_binder_offers_jupyterlab_in_chinese_as_the_chinese_readme_says():
    """JupyterLab's own Chinese interface: installed on Binder (pinned, pip section) and named in README.zh.md."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip = next(entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict))
    pack = [line for line in pip if line.lower().startswith("jupyterlab-language-pack-zh-cn")]
    assert len(pack) == 1 and re.fullmatch(r"jupyterlab-language-pack-zh-CN==[\w.]+", pack[0]), pack
    readme = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    assert "pip install jupyterlab-language-pack-zh-CN" in readme and "Binder" in readme


def test_readme_links_binder_for_the_repository_and_each_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    repository = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    slug = repository.removeprefix("https://github.com/")
    assert f"https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/{slug}/HEAD?urlpath=lab" in readme
    for path in NOTEBOOKS:
        assert f"https://mybinder.org/v2/gh/{slug}/HEAD?urlpath=lab/tree/notebooks/{path.name}" in readme
    for heading in ("Troubleshooting", "Cite", "Static pages", "Lecture mode", "student copy"):
        assert heading.lower() in readme.lower(), f"README lacks a section on {heading}"


# --- exercises, glossary, lecture mode ---------------------------------------------------------------------


@pytest.mark.parametrize("path", NUMBERED, ids=[p.stem for p in NUMBERED])
def test_every_numbered_notebook_has_four_checked_exercises_and_links_the_glossary(path):
    cells = nbformat.read(path, as_version=4).cells
    exercises = [c for c in cells if "exercise" in c.metadata.get("tags", [])]
    assert len(exercises) >= 4, f"{path.name} has {len(exercises)} exercise cells"
    assert all(re.search(r"\bcheck_\w+\(", c.source) for c in exercises), "every exercise is checked"
    assert "glossary.md" in cells[0].source
    setup = next(c for c in cells if c.cell_type == "code" and "colab-setup" not in c.metadata.get("tags", []))
    assert "use_course_style(lecture=" in setup.source, "each notebook applies the course style in its first cell"


def test_no_two_exercises_use_the_same_check():
    """Every exercise of the course is its own: no check is called by two exercise cells."""
    used = {}
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if "exercise" in cell.metadata.get("tags", []):
                for check in set(re.findall(r"\b(check_\w+)\(", cell.source)):
                    used.setdefault(check, []).append(path.stem)
    repeated = {check: where for check, where in used.items() if len(where) > 1}
    assert not repeated, f"exercises repeated across the course: {repeated}"


def test_glossary_maps_symbols_to_code_and_terms_to_chinese():
    glossary = (ROOT / "notebooks" / "glossary.md").read_text(encoding="utf-8")
    terms = ("硬性注意力", "软性注意力", "注意力汇聚", "查询", "评分函数", "核回归", "`bandwidth`", "`temperature`")
    for term in terms:
        assert term in glossary
    for path in NOTEBOOKS:
        assert f"({path.name})" in glossary


def test_lecture_mode_enlarges_and_goes_back():
    al.lecture_mode(False)
    normal = mpl.rcParams["font.size"], mpl.rcParams["lines.linewidth"]
    try:
        al.lecture_mode()
        assert mpl.rcParams["font.size"] >= 1.3 * normal[0] and mpl.rcParams["lines.linewidth"] >= 1.5 * normal[1]
    finally:
        al.lecture_mode(False)
    assert (mpl.rcParams["font.size"], mpl.rcParams["lines.linewidth"]) == normal


# --- student copy ------------------------------------------------------------------------------------------


# notebook 01's exercise tests (tests/exercises/ once the exercise tests mirror the library)
NOTEBOOK_01_EXERCISE_TESTS = next(
    name for name in ("tests/exercises/test_exercises_01.py", "tests/test_exercises.py") if (ROOT / name).exists()
)


@pytest.mark.slow
def test_student_copy_leaves_out_the_solutions(tmp_path):
    out = tmp_path / "course"
    copied = make_student_copy(out)
    assert not (out / "solutions").exists() and not any(name.startswith("solutions/") for name in copied)
    for needed in (
        "README.md",
        "environment.yml",
        "pyproject.toml",
        "notebooks/01_queries_keys_values.ipynb",
        "src/attention_lab/normalisers.py",
        "data/dates_train.csv",
        NOTEBOOK_01_EXERCISE_TESTS,
    ):
        assert (out / needed).exists(), needed
    # -n 0: one process is enough for these few tests (the copy's pyproject asks for one xdist worker per core)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            NOTEBOOK_01_EXERCISE_TESTS,
            "-k",
            "reference",
        ],
        cwd=out,
        capture_output=True,
        encoding="utf-8",
    )
    assert result.returncode == 0 and "skipped" in result.stdout and "passed" not in result.stdout, result.stdout
    with pytest.raises(ValueError, match="outdir must be a new or empty folder"):
        make_student_copy(out)


# --- one symbol, one meaning ----------------------------------------------------------------------------------------


def glossary_symbols(markdown: str) -> dict[str, list[str]]:
    """{symbol: [meanings]} from the glossary's symbol table, one entry per math group of its first column.

    A group's symbol is what stands left of its "=" (``$Q = XW_q$`` defines Q), without a trailing argument
    list (``$\\rho(x)$`` defines rho, ``$PE(\\mathrm{pos})$`` defines PE), so that p and p(x) are one symbol.
    """
    table = markdown.split("## Symbols and their names in code", 1)[1].split("\n## ", 1)[0]
    symbols: dict[str, list[str]] = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] in ("symbol", "---") or set(cells[0]) <= {"-"}:
            continue
        for group in re.findall(r"\$([^$]+)\$", cells[0]):
            symbol = re.sub(r"\((?:[^()]|\([^()]*\))*\)$", "", group.split("=", 1)[0].strip()).strip()
            symbols.setdefault(symbol, []).append(cells[1][:60])
    return symbols


def test_glossary_symbol_check_finds_a_symbol_defined_twice():
    table = (
        "## Symbols and their names in code\n\n| symbol | meaning | in code | first in |\n|---|---|---|---|\n"
        "| $p = \\operatorname{softmax}(\\alpha)$ | a distribution | `p` | 02 |\n"
        "| $p(x)$, $\\sigma$ | a density | `x` | 03 |\n| $Q = XW_q$, $K = XW_k$ | keys | `K` | 07 |\n"
        "| $K(u)$ | a kernel | `KERNELS` | 03 |\n\n## Terms\n"
    )
    twice = {s for s, meanings in glossary_symbols(table).items() if len(meanings) > 1}
    assert twice == {"p", "K"}


def test_every_glossary_symbol_has_one_meaning():
    symbols = glossary_symbols((ROOT / "notebooks" / "glossary.md").read_text(encoding="utf-8"))
    assert len(symbols) > 40, "the symbol table was not found or not parsed"
    twice = {symbol: meanings for symbol, meanings in symbols.items() if len(meanings) > 1}
    assert not twice, f"one symbol, one meaning: these are defined more than once {twice}"
