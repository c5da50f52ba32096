"""Licence files, the machine-readable citation and the issue forms: present, parseable, in step with pyproject."""

import re
import tomllib

import pytest
import yaml
from helpers import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# Citation File Format 1.2.0: the keys a valid file must have, and the keys each author entry may use
CFF_REQUIRED = {"cff-version", "message", "title", "authors"}
PERSON_OR_ENTITY = {"given-names", "family-names", "name"}
SPDX_USED = {"MIT", "CC-BY-4.0"}
TEMPLATES = {"question.yml", "error-in-text.yml", "bug.yml"}


def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def cff_problems(cff) -> list[str]:
    """What makes ``cff`` (parsed YAML) an invalid CFF 1.2.0 file, in words; [] if nothing."""
    if not isinstance(cff, dict):
        return [f"the file must be a YAML mapping, got {type(cff).__name__}"]
    problems = [f"missing required key {key!r}" for key in sorted(CFF_REQUIRED - set(cff))]
    if cff.get("cff-version") != "1.2.0":
        problems.append(f"cff-version must be '1.2.0' (a string), got {cff.get('cff-version')!r}")
    for key in ("message", "title"):
        if key in cff and not (isinstance(cff[key], str) and cff[key].strip()):
            problems.append(f"{key} must be a non-empty string")
    authors = cff.get("authors")
    if "authors" in cff and not (isinstance(authors, list) and authors):
        problems.append("authors must be a non-empty list")
    for author in authors if isinstance(authors, list) else []:
        if not isinstance(author, dict) or not PERSON_OR_ENTITY & set(author):
            problems.append(f"each author needs a name, or given-names/family-names, got {author!r}")
    date = cff.get("date-released")
    if date is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(date)):
        problems.append(f"date-released must be YYYY-MM-DD, got {date!r}")
    return problems


def test_citation_cff_is_valid_cff_1_2_0():
    assert cff_problems(citation()) == []


@pytest.mark.parametrize(
    "broken, expected",
    [
        ({"message": "m", "title": "t", "authors": [{"name": "a"}]}, "missing required key 'cff-version'"),
        ({"cff-version": 1.2, "message": "m", "title": "t", "authors": [{"name": "a"}]}, "cff-version must be"),
        ({"cff-version": "1.2.0", "message": "m", "title": "t", "authors": []}, "authors must be a non-empty list"),
        ({"cff-version": "1.2.0", "message": "m", "title": "t", "authors": [{"email": "x"}]}, "each author needs"),
        (["not", "a", "mapping"], "YAML mapping"),
    ],
)
def test_the_cff_check_finds_what_is_missing(broken, expected):
    assert any(expected in problem for problem in cff_problems(broken))


def test_citation_agrees_with_pyproject_and_the_licence_files():
    cff = citation()
    assert cff["repository-code"] == PROJECT["urls"]["Repository"]
    assert cff["version"] == PROJECT["version"]
    assert set(cff["license"]) == SPDX_USED
    assert PROJECT["license"]["text"].startswith("MIT")


def test_licence_files_hold_the_licences_they_name():
    mit = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert mit.startswith("MIT License") and "Permission is hereby granted, free of charge" in mit
    cc_by = (ROOT / "LICENSES" / "CC-BY-4.0.txt").read_text(encoding="utf-8")
    assert cc_by.startswith("Attribution 4.0 International")
    assert "Creative Commons Attribution 4.0 International Public License" in cc_by
    assert "ShareAlike" not in cc_by.split("Section 1", 1)[1], "this must be CC BY, not CC BY-SA"
    font_dir = ROOT / "src" / "attention_lab" / "fonts"
    apache = (font_dir / "LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")
    assert "Apache License" in apache and "Version 2.0, January 2004" in apache
    assert "Apache License 2.0" in (font_dir / "README.md").read_text(encoding="utf-8")
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "fonts/LICENSE-Apache-2.0.txt" in package_data["package-data"]["attention_lab"], "the font's licence ships"


def test_readme_names_the_licence_files_and_what_was_rewritten():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Licence", 1)[1].split("\n## ", 1)[0]
    for needed in (
        "(LICENSE)",
        "LICENSES/CC-BY-4.0.txt",
        "LICENSE-Apache-2.0.txt",
        "CITATION.cff",
        "CC BY-SA",
        "Rewritten, not copied",
    ):
        assert needed in section, f"the README's licence section lacks {needed}"


def test_issue_forms_parse_and_ask_where():
    folder = ROOT / ".github" / "ISSUE_TEMPLATE"
    assert TEMPLATES <= {path.name for path in folder.glob("*.yml")}
    for name in TEMPLATES:
        form = yaml.safe_load((folder / name).read_text(encoding="utf-8"))
        assert {"name", "description", "body"} <= set(form), name
        ids = [item["id"] for item in form["body"] if "id" in item]
        assert "where" in ids and len(ids) == len(set(ids)), name
        assert all(item["type"] in {"input", "textarea", "markdown", "dropdown", "checkboxes"} for item in form["body"])
        assert any(item.get("validations", {}).get("required") for item in form["body"]), name
