"""How long each numbered notebook takes, from one rule: ``python -m tools.lesson_times [--write | --check]``.

The rule (stated once for readers in the README and in notebook 00):

- **reading**: the words of the markdown cells at 60 words a minute, the pace of mathematical prose read
  with care (HTML comments, link targets, the "Time:" line and the questions footer are not counted, so that
  writing the times does not change them);
- **code**: 1 minute for each visible code cell, to read it, run it and look at what it shows (check cells,
  hidden cells and the Colab set-up cell are not counted);
- **exercises**: 8 minutes for each exercise cell (tagged ``exercise``);
- the **core** time counts the cells not tagged ``going-further``, the **full** time every cell; each is
  rounded up to a multiple of 5 minutes.

Calibration: before the core path and "Going further" were separated, a second-year student took about 2
hours for each of notebooks 03-08 and 3 hours for 02, where the rule gave 118 minutes on average for 03-08 and
140 for 02. After the separation two fresh readers, working as second-year students, estimated the core path
without its exercises at 30-35 minutes for 01, 70-80 for 02, 55-65 for each of 03-05 and 65-75 for each of
06-08; the rule's reading and code minutes (which also count the exercises' prompts) are within about 10 minutes
of that for 01, 03, 04, 06 and 08, 5-15 below it for 02, and 15-25 above it for 05 and 07.

The times live in each notebook's ``metadata.attention_lab.minutes = {"core": N, "full": M}``. ``--write``
stores them, rewrites the first markdown cell's line beginning "Time:" to "Time: about N minutes for the
core path, M minutes with everything." and the time column of the README's notebook table to
"N min (M with Going further)". ``--check`` changes nothing and prints one line per stale notebook (exit 1).
Without an option the tool prints the times. Bad input (an unreadable notebook, a first cell without a line
beginning "Time:", a README without the notebook table): one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

from attention_lab.paths import repo_root

__all__ = [
    "WORDS_PER_MINUTE",
    "MINUTES_PER_CODE_CELL",
    "MINUTES_PER_EXERCISE",
    "minutes",
    "time_line",
    "readme_cell",
    "stale",
    "apply",
    "main",
]

ROOT = repo_root(Path(__file__).parent)
WORDS_PER_MINUTE = 60
MINUTES_PER_CODE_CELL = 1
MINUTES_PER_EXERCISE = 8
NUMBERED = re.compile(r"0[1-9]_.*\.ipynb$")
TIME_LINE = re.compile(r"^Time:.*$", re.MULTILINE)
NOT_READ = re.compile(r"<!--.*?-->|\]\([^)]*\)", re.DOTALL)  # HTML comments, link targets
README_ROW = re.compile(r"^\| (0[1-9]) \|")


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _cell_minutes(cell) -> float:
    """The rule, for one cell."""
    tags = _tags(cell)
    if cell.get("cell_type") == "markdown":
        text = TIME_LINE.sub(" ", NOT_READ.sub(" ", _source(cell)))  # the "Time:" line itself is not counted
        return 0.0 if "questions" in tags else len(text.split()) / WORDS_PER_MINUTE
    if cell.get("cell_type") != "code":
        return 0.0
    if "exercise" in tags:
        return MINUTES_PER_EXERCISE
    hidden = cell.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)
    return 0.0 if hidden or "check" in tags or "colab-setup" in tags else MINUTES_PER_CODE_CELL


def _round_up(value: float) -> int:
    return 5 * max(1, math.ceil(value / 5 - 1e-9))


def minutes(nb: dict) -> dict:
    """{"core": N, "full": M}: the rule applied to the notebook's cells (a JSON dict)."""
    core = sum(_cell_minutes(c) for c in nb["cells"] if "going-further" not in _tags(c))
    full = sum(_cell_minutes(c) for c in nb["cells"])
    return {"core": _round_up(core), "full": _round_up(full)}


def time_line(times: dict) -> str:
    return f"Time: about {times['core']} minutes for the core path, {times['full']} minutes with everything."


def readme_cell(times: dict) -> str:
    return f"{times['core']} min ({times['full']} with Going further)"


def _first_markdown(nb: dict) -> dict:
    return next(c for c in nb["cells"] if c.get("cell_type") == "markdown")


def stale(nb: dict) -> list[str]:
    """What is out of date in the notebook: its metadata, its first cell's "Time:" line."""
    times, problems = minutes(nb), []
    stored = nb.get("metadata", {}).get("attention_lab", {}).get("minutes")
    if stored != times:
        problems.append(f"metadata.attention_lab.minutes is {stored}, the rule gives {times}")
    lines = TIME_LINE.findall(_source(_first_markdown(nb)))
    if lines != [time_line(times)]:
        problems.append(
            f"the first cell says {lines[0]!r}" if lines else "the first cell has no line beginning 'Time:'"
        )
    return problems


def apply(nb: dict) -> dict:
    """Write the times into the notebook (a JSON dict, changed in place); return them."""
    times, first = minutes(nb), _first_markdown(nb)
    text = _source(first)
    if len(TIME_LINE.findall(text)) != 1:
        raise ValueError("the first markdown cell must have one line beginning 'Time:' (the tool rewrites it)")
    first["source"] = TIME_LINE.sub(time_line(times), text).splitlines(keepends=True)
    nb.setdefault("metadata", {}).setdefault("attention_lab", {})["minutes"] = times
    return times


def readme_stale(readme: str, times: dict[str, dict]) -> dict[str, str]:
    """{number: problem} for the rows of the README's notebook table whose time differs from ``times``."""
    found, problems = set(), {}
    for line in readme.splitlines():
        match = README_ROW.match(line)
        if match and match.group(1) in times:
            number, cells = match.group(1), line.split("|")
            found.add(number)
            if len(cells) < 6 or cells[4].strip() != readme_cell(times[number]):
                problems[number] = f"the README's table says {cells[4].strip() if len(cells) >= 6 else '?'!r}"
    if found != set(times):
        raise ValueError(f"README.md's notebook table has no row for notebooks {sorted(set(times) - found)}")
    return problems


def write_readme(readme: str, times: dict[str, dict]) -> str:
    out = []
    for line in readme.splitlines(keepends=True):
        match = README_ROW.match(line)
        if match and match.group(1) in times:
            cells = line.split("|")
            cells[4] = f" {readme_cell(times[match.group(1)])} "
            line = "|".join(cells)
        out.append(line)
    return "".join(out)


def _read(path: Path) -> dict:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no list of cells")
        _first_markdown(nb)
        return nb
    except (OSError, ValueError, AttributeError, StopIteration) as error:
        raise ValueError(f"notebooks must be readable .ipynb files with a markdown cell, got {path}: {error}") from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="%(prog)s [--write | --check] [--readme FILE] [notebook ...]"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="store the times in the notebooks and the README")
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a time is out of date")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md", help="the README with the notebook table")
    parser.add_argument("notebooks", nargs="*", type=Path, help="these notebooks (default: notebooks/01..09)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(p for p in (ROOT / "notebooks").glob("*.ipynb") if NUMBERED.match(p.name))
    try:
        for path in paths:
            if path.suffix != ".ipynb" or not path.is_file():
                raise ValueError(f"notebooks must be existing .ipynb files, got {path}")
        notebooks = {path: _read(path) for path in paths}  # all read before any is written
        times = {path: minutes(nb) for path, nb in notebooks.items()}
        numbered = {path.name[:2]: t for path, t in times.items() if NUMBERED.match(path.name)}
        try:
            readme = args.readme.read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"--readme must be a readable file, got {args.readme}: {error}") from None
        readme_problems = readme_stale(readme, numbered)
        if args.write:
            for path, nb in notebooks.items():
                try:
                    apply(nb)
                except ValueError as error:
                    raise ValueError(f"{path.name}: {error}") from None
    except ValueError as error:
        parser.error(str(error))
    if args.check:
        lines = []
        for path, nb in notebooks.items():
            problems = stale(nb) + ([readme_problems[path.name[:2]]] if path.name[:2] in readme_problems else [])
            if problems:
                lines.append(f"{path.name}: {'; '.join(problems)}; run python -m tools.lesson_times --write")
        for line in lines:
            print(line, file=sys.stderr)
        return 1 if lines else 0
    if args.write:
        for path, nb in notebooks.items():
            path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        args.readme.write_text(write_readme(readme, numbered), encoding="utf-8")
    for path, t in times.items():
        print(f"{path.name}: {readme_cell(t)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
