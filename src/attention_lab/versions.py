"""Which versions this kernel runs, against the ranges the course supports: ``report()``.

The course is tested with exactly the versions of ``requirements/lock.txt`` and with the lower bounds of
the ranges in ``pyproject.toml``. Colab, a JupyterHub image or a student's own environment bring their own
releases; notebook 00's set-up cell (and Colab's set-up cell in every notebook) prints what it found, so
that a problem can be traced to a version, and names any of :data:`PACKAGES` missing or outside its range.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, requires, version

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from .i18n import _

__all__ = ["PACKAGES", "supported_ranges", "installed_versions", "outside_range", "report"]

# what a notebook imports, in the order a reader looks for them
PACKAGES = ("numpy", "torch", "matplotlib", "ipywidgets", "anywidget", "ipykernel")


def supported_ranges() -> dict[str, str]:
    """{package: range} from the course's own metadata (pyproject.toml's dependencies, as installed)."""
    try:
        declared = requires("attention-lab") or []
    except PackageNotFoundError:  # the source tree on sys.path without an install: no ranges to compare
        return {}
    ranges = {}
    for text in declared:
        requirement = Requirement(text)
        if requirement.marker is None:  # the test extra's tools carry an 'extra == "test"' marker
            ranges[requirement.name.lower()] = str(requirement.specifier)
    return ranges


def installed_versions(packages=PACKAGES) -> dict[str, str | None]:
    """{package: installed version, or None where it is missing}."""
    found = {}
    for name in packages:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def outside_range(found: dict | None = None, ranges: dict | None = None) -> dict[str, str]:
    """{package: what is wrong} for every package that is missing or outside the course's range."""
    found = installed_versions() if found is None else found
    ranges = supported_ranges() if ranges is None else ranges
    problems = {}
    for name, have in found.items():
        wanted = ranges.get(name, "")
        if have is None:
            problems[name] = _("not installed (the course needs {name}{wanted})").format(name=name, wanted=wanted)
            continue
        try:
            # a local build label (torch 2.13.0+cpu) is the same release for a range
            inside = Version(have).public in SpecifierSet(wanted) if wanted else True
        except InvalidVersion:
            inside = False
        if not inside:
            problems[name] = _("{have} is outside the supported range {wanted}").format(have=have, wanted=wanted)
    return problems


def report(file=None) -> None:
    """Print Python, the course's packages and torch's CPU code path; name anything outside its range."""
    file = sys.stdout if file is None else file
    found = installed_versions()
    missing = _("missing")
    line = ", ".join(f"{name} {have or missing}" for name, have in found.items())
    head = _("Python {python} on {system} {machine}: {packages}").format(
        python=platform.python_version(), system=platform.system(), machine=platform.machine(), packages=line
    )
    print(head, file=file)
    if found.get("torch"):
        import torch

        capability = torch.backends.cpu.get_cpu_capability()
        print(_("PyTorch runs on the CPU with its {capability} kernels").format(capability=capability), file=file)
    ranges = supported_ranges()
    if not ranges:
        print(_("the course is not installed as a package here, so its supported ranges are unknown"), file=file)
        return
    problems = outside_range(found, ranges)
    if problems:
        for name, problem in problems.items():
            print(f"  {name}: {problem}", file=file)
        advice = _(
            "The notebooks may still run; if one fails, install the tested versions "
            "(README: set-up) and say which versions you had when you report it."
        )
        print("  " + advice, file=file)
    else:
        print(_("every package is within the course's supported ranges"), file=file)
