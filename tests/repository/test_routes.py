"""The routes to the course besides a local install: Colab's first cell, the CI and Pages workflows, the hub link."""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
import yaml
from helpers import NOTEBOOKS, ROOT

from tools.colab_cell import TAG, add_colab_cell, cell_source
from tools.hub_link import hub_link

README = (ROOT / "README.md").read_text(encoding="utf-8")
REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]


# --- Colab ----------------------------------------------------------------------------------------------------


def test_colab_cell_is_inserted_first_once_and_updated_in_place(tmp_path):
    for path in NOTEBOOKS[:2]:
        shutil.copy(path, tmp_path / path.name)
    copy = tmp_path / NOTEBOOKS[1].name
    bare = nbformat.read(copy, as_version=4)  # the notebook as it was before the cell existed
    bare.cells = [c for c in bare.cells if TAG not in c.get("metadata", {}).get("tags", [])]
    nbformat.write(bare, copy)
    assert add_colab_cell(copy) is True
    first = nbformat.read(copy, as_version=4)
    code = [c for c in first.cells if c.cell_type == "code"]
    assert TAG in code[0].metadata.tags and code[0].source == cell_source()
    assert not code[0].outputs and code[0].execution_count is None
    assert add_colab_cell(copy) is False, "a second run must change nothing"
    assert nbformat.read(copy, as_version=4) == first
    assert add_colab_cell(copy, repository="https://example.org/fork/attention-from-hard-to-soft") is True
    updated = nbformat.read(copy, as_version=4)
    assert len(updated.cells) == len(first.cells), "updated in place, not inserted again"
    assert "https://example.org/fork/" in [c for c in updated.cells if c.cell_type == "code"][0].source


# The stand-in for Colab: a google.colab module whose widget manager call leaves a mark, the course not
# importable (the editable install of this checkout is hidden), every command recorded, pip run with --dry-run.
COLAB_STANDIN = """
import importlib, importlib.util, json, os, subprocess, sys
sys.path[:] = [p for p in sys.path if os.path.realpath(p) != os.path.realpath({src!r})]
importlib.invalidate_caches()
assert importlib.util.find_spec("attention_lab") is None, "the course must not be importable before the cell"
if {hide_anywidget}:
    real_find_spec = importlib.util.find_spec
    importlib.util.find_spec = lambda name, *a: None if name == "anywidget" else real_find_spec(name, *a)
commands, real_run = [], subprocess.run
def recording_run(command, *args, **kwargs):
    command = list(command)
    commands.append(command)
    if command[1:4] == ["-m", "pip", "install"]:
        command = command[:4] + ["--dry-run", "--no-index", "--no-build-isolation"] + command[4:]
    return real_run(command, *args, **kwargs)
subprocess.run = recording_run
"""
AFTER_CELL = """
import attention_lab, attention_lab.paths
json.dump({{"commands": commands, "cwd": os.getcwd(), "module": attention_lab.__file__,
            "root": str(attention_lab.paths.repo_root())}}, open({report!r}, "w"))
"""


def _run_cell(tmp_path, *, colab: bool, hide_anywidget: bool = False):
    standin = tmp_path / "standin"
    if colab:
        (standin / "google" / "colab").mkdir(parents=True)
        (standin / "google" / "__init__.py").write_text("", encoding="utf-8")
        (standin / "google" / "colab" / "__init__.py").write_text("", encoding="utf-8")
        (standin / "google" / "colab" / "output.py").write_text(
            f"def enable_custom_widget_manager():\n    open({str(tmp_path / 'widgets-on')!r}, 'w').close()\n",
            encoding="utf-8",
        )
    bare = tmp_path / "course.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(ROOT), str(bare)], check=True)
    report = tmp_path / "report.json"
    script = (
        COLAB_STANDIN.format(src=str(ROOT / "src"), hide_anywidget=hide_anywidget)
        + "\n"
        + cell_source()
        + "\n"
        + AFTER_CELL.format(report=str(report))
    )
    work = tmp_path / "content"
    work.mkdir()
    env = {**os.environ, "ATTENTION_LAB_REPOSITORY": str(bare), "PYTHONPATH": str(standin)}
    env.pop("ATTENTION_LAB_ROOT", None)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=300, encoding="utf-8"
    )
    return result, json.loads(report.read_text(encoding="utf-8")) if report.exists() else None, work


@pytest.mark.slow
@pytest.mark.parametrize("hide_anywidget", [False, True], ids=["colab-with-anywidget", "colab-without-anywidget"])
def test_colab_cell_clones_installs_only_the_course_and_makes_it_importable(tmp_path, hide_anywidget):
    result, report, work = _run_cell(tmp_path, colab=True, hide_anywidget=hide_anywidget)
    assert result.returncode == 0, result.stderr[-3000:]
    clone = work / REPOSITORY.rsplit("/", 1)[-1]
    git, pip = report["commands"]
    assert git[:2] == ["git", "clone"] and git[-2:] == [str(tmp_path / "course.git"), str(clone)]
    assert pip[:4] == [sys.executable, "-m", "pip", "install"]
    packages = [arg for arg in pip[4:] if not arg.startswith("-")]
    assert "--no-deps" in pip and packages == [str(clone), *(["anywidget"] if hide_anywidget else [])]
    assert not {"torch", "numpy", "matplotlib"} & set(packages), "Colab's own packages must be kept"
    assert Path(report["cwd"]) == clone / "notebooks"
    assert Path(report["module"]).resolve() == (clone / "src" / "attention_lab" / "__init__.py").resolve()
    assert Path(report["root"]) == clone and (clone / "data").is_dir()
    assert (tmp_path / "widgets-on").exists(), "the cell must turn on Colab's widget manager"


@pytest.mark.slow
def test_colab_cell_does_nothing_elsewhere(tmp_path):
    script = cell_source() + "\nimport os, sys\nprint(os.getcwd())\nprint('attention_lab' in sys.modules)\n"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, timeout=60, encoding="utf-8"
    )
    assert result.returncode == 0 and not result.stderr, result.stderr
    assert result.stdout.split() == [str(tmp_path), "False"] and list(tmp_path.iterdir()) == []


def test_readme_and_start_page_links_open_in_colab():
    slug = REPOSITORY.removeprefix("https://github.com/")
    for path in NOTEBOOKS:
        link = f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{path.name}"
        assert link in README, f"README lacks the Colab link of {path.name}"


# --- CI and the published site ------------------------------------------------------------------------------------


def _runs(workflow: str, job: str | None = None) -> list[str]:
    jobs = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text(encoding="utf-8"))["jobs"]
    chosen = jobs.values() if job is None else [jobs[job]]
    return [step["run"].strip() for each in chosen for step in each["steps"] if "run" in step]


def _readme_commands(heading: str) -> list[str]:
    section = README.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    return [
        line.strip()
        for block in re.findall(r"```bash\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def test_test_workflow_runs_the_readmes_test_command_like_ci():
    readme_test = next(c for c in _readme_commands("Set-up: two commands") if "pytest" in c)
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    runs = _runs("tests.yml", "test")
    assert readme_test in ci, ".ci/run no longer runs the README's test command"
    assert runs[-1] == readme_test, "the workflow's last step must be the README's test command, verbatim"
    assert any("apt-get install" in run and "chromium" in run for run in runs[:-1])


DURATIONS = "--durations=30 --durations-file=test-artifacts/durations.txt"


def test_ci_publishes_where_the_time_went():
    steps = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8"))["jobs"]["test"]
    steps = steps["steps"]
    assert [s for s in steps if "run" in s][-1]["env"]["PYTEST_ADDOPTS"] == DURATIONS
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "test-artifacts/"
    assert f'export PYTEST_ADDOPTS="{DURATIONS}"' in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_durations_file_gives_time_per_file_and_the_slowest_tests(tmp_path):
    target = tmp_path / "out" / "durations.txt"
    tests = ["tests/core/test_examples.py", "tests/tools/test_notebook_check.py"]
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
            *tests,
            f"--durations-file={target}",
        ],
        cwd=ROOT,
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTEST_ADDOPTS": ""},
    )
    assert result.returncode == 0, result.stdout[-2000:]
    passed = int(re.search(r"(\d+) passed", result.stdout).group(1))
    head, files, slowest = target.read_text(encoding="utf-8").split("\n\n")
    assert head.startswith(f"{passed} tests ({passed} passed); ") and "s from start to end" in head
    assert sorted(line.split()[-1] for line in files.splitlines()[1:]) == tests
    listed = [line.split()[-1] for line in slowest.splitlines()[1:]]
    assert len(listed) == min(30, passed) and all(name.split("::")[0] in tests for name in listed)


def test_test_workflow_runs_every_nox_session_and_the_other_systems():
    import importlib.util

    spec = importlib.util.spec_from_file_location("noxfile", ROOT / "noxfile.py")
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    matrix = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8"))
    include = matrix["jobs"]["matrix"]["strategy"]["matrix"]["include"]
    runs = {(entry["os"].split("-")[0], entry["session"]) for entry in include}
    assert runs == {("ubuntu", "oldest"), ("ubuntu", "newest"), ("macos", "locked"), ("windows", "locked")}
    assert set(noxfile.nox.options.sessions) == {"locked", "oldest", "newest"}
    assert "nox -s ${{ matrix.session }}" in _runs("tests.yml", "matrix")[0]


def test_pages_workflow_builds_the_site_with_the_readmes_command_and_publishes_it():
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    build = _readme_commands("Reading without a kernel: static pages")
    runs = _runs("pages.yml")
    assert build and build[0].split("#")[0].strip() in runs
    for action in (
        "actions/checkout@v4",
        "actions/setup-python@v5",
        "actions/upload-pages-artifact@v3",
        "actions/deploy-pages@v4",
    ):
        assert f"uses: {action}" in workflow
    owner, name = REPOSITORY.removeprefix("https://github.com/").split("/")
    assert f"https://{owner}.github.io/{name}/" in README and f"https://{owner}.github.io/{name}/" in workflow
    tests_workflow = (ROOT / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8")
    assert "secrets." not in workflow and "secrets." not in tests_workflow


# --- JupyterHub --------------------------------------------------------------------------------------------------


def test_hub_link_has_nbgitpullers_form():
    link = hub_link("https://hub.example.edu/", "03_nadaraya_watson.ipynb")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
    assert parse_qs(parts.query, strict_parsing=True) == {
        "repo": [REPOSITORY],
        "branch": ["main"],
        "urlpath": ["lab/tree/attention-from-hard-to-soft/notebooks/03_nadaraya_watson.ipynb"],
    }
    assert "/" not in parts.query and ":" not in parts.query, "every value is URL-encoded"
    folder = parse_qs(urlsplit(hub_link("http://localhost:8000")).query)["urlpath"]
    assert folder == ["lab/tree/attention-from-hard-to-soft/notebooks"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        [],
        ["hub.example.edu"],
        ["ftp://hub"],
        ["https://hub?x=1"],
        ["https://hub.example.edu", "99_nope.ipynb"],
        ["https://hub", "a", "b"],
    ],
)
def test_hub_link_bad_input_is_one_line_on_stderr_and_exit_2(args):
    result = subprocess.run(
        [sys.executable, "-m", "tools.hub_link", *args], cwd=ROOT, capture_output=True, timeout=60, encoding="utf-8"
    )
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.slow
def test_hub_link_command_prints_the_link():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.hub_link",
            "https://hub.example.edu",
            "01_queries_keys_values.ipynb",
        ],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        encoding="utf-8",
    )
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.strip() == hub_link("https://hub.example.edu", "01_queries_keys_values.ipynb")


def test_readme_tells_lecturers_how_to_run_a_class_on_a_hub():
    section = README.split("\n## A class on JupyterHub", 1)[1].split("\n## ", 1)[0]
    for needed in ("nbgitpuller", "repo2docker", "environment.yml", "python -m tools.hub_link", "1 GB", "2 GB"):
        assert needed in section
