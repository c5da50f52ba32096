"""The set-up promises: ranges in pyproject, the tested set in the lock, conda/Binder in step, README commands, lint."""

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
import tomllib

import pytest
import yaml
from helpers import NOTEBOOKS, ROOT
from packaging.requirements import Requirement

CONDA_NAMES = {"pytorch-cpu": "torch"}  # conda-forge name -> pip name
SETUP_COMMAND = "python -m pip install -r requirements/course.txt && jupyter lab notebooks/"
TEST_COMMAND = "python -m pip install -r requirements/test.txt && python -m pytest"
REQUIREMENTS = ROOT / "requirements"


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def declared(extra: str | None = None) -> dict[str, Requirement]:
    """pyproject's runtime dependencies (or an extra's) by lower-case name."""
    texts = _project()["dependencies"] if extra is None else _project()["optional-dependencies"][extra]
    return {(r := Requirement(text)).name.lower(): r for text in texts}


def pinned(path) -> dict[str, str]:
    """{name: version} of the ``name==version`` lines of a requirements or constraints file."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{path.name}: {line!r} is not an exact pin"
            pins[requirement.name.lower().replace("_", "-")] = spec.version
    return pins


def conda_specs():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    specs, pip_section = {}, []
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            pip_section += entry.get("pip", [])
            continue
        name, _, version = entry.partition("=")
        specs[CONDA_NAMES.get(name, name)] = version
    return env, specs, pip_section


def test_pyproject_declares_ranges_whose_lower_bounds_are_the_oldest_session():
    """Ranges, not pins: each dependency has a lower bound, which requirements/oldest.txt installs exactly."""
    oldest = pinned(REQUIREMENTS / "oldest.txt")
    for requirement in [*declared().values(), *declared("test").values()]:
        operators = {spec.operator for spec in requirement.specifier}
        assert ">=" in operators and "==" not in operators, f"{requirement}: a range with a lower bound, not a pin"
        (lower,) = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert oldest.get(requirement.name.lower()) == lower, f"oldest.txt must install {requirement.name}=={lower}"
    assert set(oldest) == set(declared()) | set(declared("test")), "oldest.txt pins exactly the declared packages"


def test_the_lock_pins_everything_declared_inside_its_range():
    lock = pinned(REQUIREMENTS / "lock.txt")
    for name, requirement in {**declared(), **declared("test")}.items():
        assert name in lock, f"requirements/lock.txt does not pin {name}"
        assert requirement.specifier.contains(lock[name]), f"the lock's {name}=={lock[name]} is outside {requirement}"
    assert lock["torch"] == "2.13.0"  # the CPU wheel on this machine's disk; "+cpu" comes from the CPU index


def test_the_readme_installs_use_the_lock_and_the_cpu_index():
    for name, extra in (("course.txt", "-e ."), ("test.txt", "-e .[test]")):
        lines = [
            line.strip()
            for line in (REQUIREMENTS / name).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        assert lines == ["--extra-index-url https://download.pytorch.org/whl/cpu", "-c lock.txt", extra], lines


def test_environment_yml_pins_the_locked_versions():
    env, specs, pip_section = conda_specs()
    assert env["channels"] == ["conda-forge"]
    assert re.fullmatch(r"3\.11(\.\d+)?", specs.pop("python")), "python must be pinned to 3.11"
    specs.pop("pip")
    lock = pinned(REQUIREMENTS / "lock.txt")
    assert set(specs) == set(declared()), f"conda has {sorted(specs)}, pyproject declares {sorted(declared())}"
    for name, conda_version in specs.items():
        assert conda_version == lock[name], f"{name}: the lock has {lock[name]}, environment.yml {conda_version!r}"
    assert "pytorch" not in specs and "cudatoolkit" not in specs  # the CPU-only build, nothing GPU-sized
    assert "-e ." in pip_section, "environment.yml must install the project itself (pip: -e .)"


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SETUP_COMMAND in readme
    assert TEST_COMMAND in readme
    assert "conda env create -f environment.yml" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in ci, ".ci/run must run the README's test command verbatim"


def test_every_notebook_imports_only_declared_packages():
    pins = set(declared()) | {"attention_lab", "ipympl", "matplotlib", "mpl_toolkits"}
    stdlib = set(sys.stdlib_module_names)
    for path in NOTEBOOKS:
        for module in re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", path.read_text(encoding="utf-8"), flags=re.M):
            assert module in pins or module in stdlib or module in {"IPython"}, f"{path.name} imports {module}"


@pytest.mark.slow
def test_ruff_is_clean():
    names = ("src", "tests", "tools", "solutions", "notebooks", "noxfile.py")
    targets = [name for name in names if (ROOT / name).exists()]
    for command in (["check"], ["format", "--check"]):  # lint, and the layout ruff format writes
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *command, *targets], cwd=ROOT, capture_output=True, encoding="utf-8"
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_import_floors_hold(monkeypatch):
    """CONTRIBUTING's floors, as import-linter checks them (``lint-imports``, CI's first step)."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    assert lint_imports(no_cache=True) == 0, "run lint-imports: an import breaks the floors of CONTRIBUTING.md"


def test_the_cjk_font_subset_covers_every_chinese_character_drawn():
    """Figures draw the data's and notebooks' Chinese with the packaged course-cjk.ttf; it must have every glyph."""
    from fontTools.ttLib import TTFont

    from attention_lab.plots import CJK_FONT
    from tools import make_font_subset

    cmap = TTFont(CJK_FONT).getBestCmap()
    missing = [c for c in make_font_subset.characters() if ord(c) not in cmap]
    assert not missing, f"rebuild the font with python -m tools.make_font_subset; missing {missing}"


@pytest.mark.slow
def test_a_non_editable_wheel_ships_the_font_and_nothing_of_the_repository(wheel):
    """``pip install .`` must give a working library: the font it draws Chinese with is package data;
    repository tooling (tools/), tests, notebooks and solutions stay out of the package."""
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "attention_lab/fonts/course-cjk.ttf" in names
    packaged = {"explorers/base.py", "exercises/feedback.py", "nn/layers.py", "paths.py"}
    assert {f"attention_lab/{name}" for name in packaged} <= set(names)
    assert not [n for n in names if n.startswith(("tools/", "tests/", "solutions/", "notebooks/", "data/"))]
    assert not [n for n in names if n.endswith(("site.py", "student_copy.py", "bench.py", "browser.py"))]


def statement_lines(source: str) -> int:
    """Lines as a reader meets them, whatever the layout: a statement that ``ruff format`` spreads over several
    lines (one argument per line) counts once; blank lines, comments and each line of a docstring count."""
    count = depth = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
            count += 1
        elif token.type == tokenize.STRING and token.start[0] != token.end[0]:
            count += token.end[0] - token.start[0]
    return count


def test_statement_lines_do_not_depend_on_the_layout():
    compact = 'x = f(1, 2,\n      3)  # one statement\n"""a\ndocstring"""\n'
    spread = 'x = f(\n    1,\n    2,\n    3,\n)  # one statement\n"""a\ndocstring"""\n'
    assert statement_lines(compact) == statement_lines(spread) == 3


@pytest.mark.slow
def test_no_library_module_is_much_over_300_lines_and_import_stays_light():
    modules = sorted((ROOT / "src" / "attention_lab").rglob("*.py"))
    lengths = {str(m.relative_to(ROOT)): statement_lines(m.read_text(encoding="utf-8")) for m in modules}
    long = {name: n for name, n in lengths.items() if n > 300}
    assert not long, f"split these modules (one concept each): {long}"
    code = "import sys, attention_lab; print(sorted({'torch', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, encoding="utf-8")
    assert result.stdout.strip() == "[]", "import attention_lab must not load torch or ipywidgets"


def text_io_without_encoding(source: str) -> list[int]:
    """Lines that open, read or write a text file, or decode a subprocess's output, without an encoding.

    Without one Python uses the platform's default: cp1252 on Windows, where the course's Chinese text and
    even its "·" would be garbled or raise.
    """
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg in ("encoding", None) for k in node.keywords):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        keywords = {k.arg: k.value for k in node.keywords}
        owner = getattr(node.func.value, "id", "") if isinstance(node.func, ast.Attribute) else ""
        if name == "open" and owner not in ("os", "Image"):  # os.open: a descriptor; PIL's Image.open: binary
            mode = node.args[1] if len(node.args) > 1 else keywords.get("mode", ast.Constant("r"))
            if not (isinstance(mode, ast.Constant) and "b" in str(mode.value)):
                lines.append(node.lineno)
        elif name in ("read_text", "write_text"):
            lines.append(node.lineno)
        elif name in ("run", "check_output", "Popen") and {"text", "universal_newlines"} & set(keywords):
            lines.append(node.lineno)
    return lines


def test_the_encoding_check_finds_what_it_should():
    found = text_io_without_encoding(
        "open(p)\nopen(p, 'rb')\np.read_text()\np.write_text(s, encoding='utf-8')\n"
        "subprocess.run(a, text=True)\nopen(p, 'w', encoding='utf-8')\nopen(p, mode='wb')\nos.open(p, os.O_CREAT)\n"
        "Image.open(buffer)\n"
    )
    assert found == [1, 3, 5]


@pytest.mark.slow
def test_every_text_file_is_read_and_written_with_an_explicit_encoding():
    from IPython.core.inputtransformer2 import TransformerManager

    sources = {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for folder in ("src", "tools", "tests", "solutions")
        for p in (ROOT / folder).rglob("*.py")
    }
    sources["noxfile.py"] = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    to_python = TransformerManager().transform_cell
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(nb["cells"]):
            if cell["cell_type"] == "code":
                sources[f"{path.name} cell {index}"] = to_python("".join(cell["source"]))
    found = {where: lines for where, source in sources.items() if (lines := text_io_without_encoding(source))}
    assert not found, f"say encoding='utf-8' (Windows' default is cp1252) at these lines: {found}"
