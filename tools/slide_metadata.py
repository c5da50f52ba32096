"""Slide metadata for the notebooks, derived from their headings: ``python -m tools.slide_metadata [--check]``.

Every notebook is also a reveal.js slide deck (``build_site.py`` writes them with ``decks.py``). Which cell
starts a slide is stored in each cell's ``metadata.slideshow.slide_type``, as JupyterLab's property
inspector and RISE store it, and this tool sets it from the structure the notebook already has:

- a ``#`` or ``##`` heading starts a slide, a ``###`` heading a sub-slide (below it in reveal.js);
- the set-up cells (Colab's, tagged ``colab-setup``, and the imports that apply the course style) and the
  check cells (tagged ``check``) are skipped: they run, but a lecture does not show them;
- any other cell joins the slide above it, unless the slide would then be taller than :data:`BUDGET`
  lines (estimated from the source: wrapped text, display math, code lines, a figure's height): then it
  starts a sub-slide. A cell taller than the budget on its own gets a sub-slide of its own.

A cell that continues a slide carries no slide metadata (``-`` is the default). With ``--check`` nothing is
written: the command lists the notebooks whose metadata differs from what it would write and exits 1 (the
test suite runs it, so a new or edited notebook gets its slides). After editing a notebook, run the tool.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import re
import sys
from pathlib import Path

from attention_lab.paths import repo_root

__all__ = ["BUDGET", "slide_types", "apply", "differences", "main"]

ROOT = repo_root(Path(__file__).parent)
BUDGET = 26  # lines of a 700-pixel slide at the decks' text size, about 26 pixels a line
TEXT_WIDTH = 95  # characters of prose a slide line holds
FIGURE_LINES = 15  # a figure, a diagram or an explorer shown by a cell
SKIPPED_TAGS = {"colab-setup", "check"}


def _figure_makers() -> re.Pattern:
    """What a code cell calls to show a figure: ``plt.show()``, a ``plot_*`` function, or one of the library's
    figure makers as its packages export them (the explorer classes and their ``*_small_multiples`` twins in
    ``attention_lab.explorers.__all__``, the functions that return a ``Diagram`` in ``attention_lab.diagrams``)."""
    from attention_lab import diagrams, explorers

    def shown(module, name):
        value = getattr(module, name)
        if isinstance(value, type):  # an explorer class
            return issubclass(value, explorers.Explorer) and value is not explorers.Explorer
        if module is diagrams:  # a diagram-drawing function
            return callable(value) and inspect.signature(value).return_annotation in ("Diagram", diagrams.Diagram)
        return name.endswith("_small_multiples")  # an explorer's static twin

    names = [n for n in explorers.__all__ if shown(explorers, n)] + [n for n in diagrams.__all__ if shown(diagrams, n)]
    alternatives = "|".join(sorted(set(names), key=len, reverse=True))
    return re.compile(rf"plt\.show\(\)|\b(?:{alternatives})\(|\bdiagrams\.\w+\(|plot_\w+\(")


SHOWS_A_FIGURE = _figure_makers()


def _heading(cell) -> int:
    """The level of the markdown heading that opens the cell (1 for ``#``), 0 if it opens with none."""
    if cell.get("cell_type") != "markdown":
        return 0
    match = re.match(r"(#{1,6})\s", _source(cell).lstrip())
    return len(match.group(1)) if match else 0


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _is_setup(cell) -> bool:
    source = _source(cell)
    if SKIPPED_TAGS & set(cell.get("metadata", {}).get("tags", [])):
        return True
    # the course-style cell, until it carries a tag of its own
    return cell.get("cell_type") == "code" and "use_course_style(" in source


def height(cell) -> int:
    """Estimated lines the cell takes on a slide: its text wrapped, its display math, its code, its figure."""
    source = _source(cell)
    if cell.get("cell_type") == "markdown":
        lines = sum(max(1, math.ceil(len(line) / TEXT_WIDTH)) for line in source.splitlines() if line.strip())
        return lines + source.count("$$") + 1  # a display formula: about two lines more than its source
    lines = len(source.splitlines()) + 1
    return lines + (FIGURE_LINES if SHOWS_A_FIGURE.search(source) else 0)


def slide_types(cells) -> list[str]:
    """The reveal.js slide type of each cell: "slide", "subslide", "skip" or "-" (continue the slide above)."""
    types, used = [], BUDGET + 1  # the first shown cell always starts a slide
    for cell in cells:
        level, tall = _heading(cell), height(cell)
        if _is_setup(cell):
            kind = "skip"
        elif level in (1, 2) or not types or all(t == "skip" for t in types):
            kind, used = "slide", tall
        elif level == 3 or used + tall > BUDGET:
            kind, used = "subslide", tall
        else:
            kind, used = "-", used + tall
        types.append(kind)
    return types


def apply(nb: dict) -> int:
    """Set the slide metadata of the notebook's cells (a JSON dict, changed in place); return the cells changed."""
    changed = 0
    for cell, kind in zip(nb["cells"], slide_types(nb["cells"]), strict=True):
        metadata = cell.setdefault("metadata", {})
        before = metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "-":
            metadata.pop("slideshow", None)
        else:
            metadata["slideshow"] = {"slide_type": kind}
        changed += before != kind
    return changed


def differences(nb: dict) -> list[str]:
    """Cells whose stored slide type differs from the derived one, as "cell N: stored -> derived"."""
    return [
        f"cell {i}: {cell.get('metadata', {}).get('slideshow', {}).get('slide_type', '-')} -> {kind}"
        for i, (cell, kind) in enumerate(zip(nb["cells"], slide_types(nb["cells"]), strict=True))
        if cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-") != kind
    ]


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"notebooks must be readable .ipynb files, got {path}: {error}") from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook needs the tool")
    parser.add_argument("notebooks", nargs="*", type=Path, help="these notebooks (default: all in notebooks/)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    try:
        for path in paths:
            if path.suffix != ".ipynb" or not path.is_file():
                raise ValueError(f"notebooks must be existing .ipynb files, got {path}")
        notebooks = {path: _read(path) for path in paths}  # all read before any is written
    except ValueError as error:
        parser.error(str(error))
    stale = {path: differences(nb) for path, nb in notebooks.items() if differences(nb)}
    if args.check:
        for path, cells in stale.items():
            print(
                f"{path.name}: slide metadata out of date ({'; '.join(cells[:3])}"
                f"{'; ...' if len(cells) > 3 else ''}); run python -m tools.slide_metadata",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for path in stale:
        nb = notebooks[path]
        print(f"{path.name}: {apply(nb)} cells changed")
        text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
    if not stale:
        print(f"{len(paths)} notebooks: slide metadata up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
