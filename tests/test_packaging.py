"""The set-up promises: pinned dependencies, conda/Binder environment in step with pip, README commands, lint."""

import re
import subprocess
import sys
import tomllib

import yaml
from conftest import NOTEBOOKS, ROOT

CONDA_NAMES = {"pytorch-cpu": "torch"}  # conda-forge name -> pip name
SETUP_COMMAND = 'python -m pip install -e . && jupyter lab notebooks/'
TEST_COMMAND = 'python -m pip install -e ".[test]" && python -m pytest'


def pip_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {}
    for requirement in project["dependencies"]:
        name, _, version = requirement.partition("==")
        assert version, f"runtime dependency {requirement!r} is not pinned with =="
        pins[name.strip().lower()] = version.strip()
    return pins


def conda_specs():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    specs, pip_section = {}, []
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            pip_section += entry.get("pip", [])
            continue
        name, _, version = entry.partition("=")
        specs[CONDA_NAMES.get(name, name)] = version
    return env, specs, pip_section


def test_torch_is_pinned_exactly_to_the_cpu_wheel_on_disk():
    assert pip_pins()["torch"] == "2.13.0"


def test_test_extra_is_pinned():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert all("==" in requirement for requirement in extra), extra
    assert {"pytest", "hypothesis", "playwright"} <= {r.split("==")[0] for r in extra}


def test_environment_yml_matches_pyproject():
    env, specs, pip_section = conda_specs()
    assert env["channels"] == ["conda-forge"]
    assert re.fullmatch(r"3\.11(\.\d+)?", specs.pop("python")), "python must be pinned to 3.11"
    specs.pop("pip")
    pins = pip_pins()
    assert set(specs) == set(pins), f"conda has {sorted(specs)}, pip has {sorted(pins)}"
    for name, version in pins.items():
        conda_version = specs[name]
        assert conda_version and (version == conda_version or version.startswith(conda_version + ".")), (
            f"{name}: pyproject pins {version}, environment.yml asks for {conda_version!r}"
        )
    assert "pytorch" not in specs and "cudatoolkit" not in specs  # the CPU-only build, nothing GPU-sized
    assert "-e ." in pip_section, "environment.yml must install the project itself (pip: -e .)"


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert SETUP_COMMAND in readme
    assert TEST_COMMAND in readme
    assert "conda env create -f environment.yml" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST_COMMAND in ci, ".ci/run must run the README's test command verbatim"


def test_every_notebook_imports_only_declared_packages():
    pins = set(pip_pins()) | {"attention_lab", "ipympl", "matplotlib", "mpl_toolkits"}
    stdlib = set(sys.stdlib_module_names)
    for path in NOTEBOOKS:
        for module in re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", path.read_text(), flags=re.M):
            assert module in pins or module in stdlib or module in {"IPython"}, f"{path.name} imports {module}"


def test_ruff_is_clean():
    targets = [name for name in ("src", "tests", "tools", "solutions", "notebooks") if (ROOT / name).exists()]
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *targets], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_cjk_font_subset_covers_every_chinese_character_drawn():
    """Figures draw the data's and notebooks' Chinese with the packaged course-cjk.ttf; it must have every glyph."""
    import make_font_subset
    from fontTools.ttLib import TTFont

    from attention_lab.plots import CJK_FONT

    cmap = TTFont(CJK_FONT).getBestCmap()
    missing = [c for c in make_font_subset.characters() if ord(c) not in cmap]
    assert not missing, f"rebuild the font with python tools/make_font_subset.py; missing {missing}"


def test_a_non_editable_wheel_ships_the_font_and_nothing_of_the_repository(tmp_path):
    """``pip install .`` must give a working library: the font it draws Chinese with is package data;
    repository tooling (tools/), tests, notebooks and solutions stay out of the package."""
    import zipfile

    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                             "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("attention_lab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "attention_lab/fonts/course-cjk.ttf" in names
    packaged = {"explorers/base.py", "exercises/feedback.py", "nn/layers.py", "paths.py"}
    assert {f"attention_lab/{name}" for name in packaged} <= set(names)
    assert not [n for n in names if n.startswith(("tools/", "tests/", "solutions/", "notebooks/", "data/"))]
    assert not [n for n in names if n.endswith(("site.py", "student_copy.py", "bench.py", "browser.py"))]


def test_no_library_module_is_much_over_300_lines_and_import_stays_light():
    modules = sorted((ROOT / "src" / "attention_lab").rglob("*.py"))
    long = {str(m.relative_to(ROOT)): n for m in modules if (n := len(m.read_text().splitlines())) > 330}
    assert not long, f"split these modules (one concept each): {long}"
    code = "import sys, attention_lab; print(sorted({'torch', 'ipywidgets'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", "import attention_lab must not load torch or ipywidgets"
