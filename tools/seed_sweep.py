"""Re-run the notebooks with other seeds and count, for every assert, how many seeds it holds for.

``python -m tools.seed_sweep --seeds 5 [--notebooks 04 06] [--jobs 2] [--out bench-results/seed_sweep.json]``

A trained model's trajectory changes with the CPU the way it changes with the seed, so an assert about a
trained model (or any random experiment) must hold for other seeds, or say what range it holds in. The
notebooks seed their runs through :mod:`attention_lab.seeding`; this command runs each notebook once with
its own seeds (offset 0) and once for each of the offsets 1 .. N (``ATTENTION_LAB_SEED_OFFSET``), in a fresh
kernel each time, with every ``assert`` rewritten to record its outcome and carry on, so that one failing
assert neither hides the others nor stops the notebook. The table lists every assert that failed or was not
reached under some offset (``--all`` lists every assert), with "held / tried".

Not a test: it takes minutes (every notebook, N + 1 times). Its table goes into the closing notes of a change
that touches a trained model, and the asserts that do not hold everywhere are restated as what does hold.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root
from attention_lab.seeding import OFFSET_VARIABLE

ROOT = repo_root(Path(__file__).parent)
RECORD_VARIABLE = "ATTENTION_LAB_SWEEP_RECORD"

# The first cell of a swept notebook: rewritten asserts call this. It appends one JSON line per evaluation
# to the record file, so an assert that raises, or a kernel that dies, still leaves what ran before it.
RECORDER = """
def __sweep_assert__(key, condition):
    import json, os
    try:
        held, error = bool(condition()), None
    except Exception as exc:  # an assert whose condition raises has not held
        held, error = False, f"{type(exc).__name__}: {exc}"[:200]
    with open(os.environ["ATTENTION_LAB_SWEEP_RECORD"], "a", encoding="utf-8") as record:
        record.write(json.dumps({"key": key, "held": held, "error": error}) + "\\n")
"""


class _RecordAsserts(ast.NodeTransformer):
    """``assert test, msg`` -> ``__sweep_assert__(key, lambda: test)``: recorded, never raising."""

    def __init__(self, prefix: str, source: str):
        self.prefix, self.source, self.found = prefix, source, {}

    def visit_Assert(self, node):
        key = f"{self.prefix} line {node.lineno}"
        self.found[key] = ast.get_source_segment(self.source, node.test) or ast.unparse(node.test)
        call = ast.Call(
            ast.Name("__sweep_assert__", ast.Load()),
            [ast.Constant(key), ast.Lambda(ast.arguments([], [], None, [], [], None, []), node.test)],
            [],
        )
        return ast.copy_location(ast.Expr(call), node)


def instrument(nb, name: str) -> dict:
    """Rewrite every assert in ``nb``'s code cells (in place); return {key: assert source} in notebook order."""
    from IPython.core.inputtransformer2 import TransformerManager

    to_python = TransformerManager().transform_cell  # %magics -> get_ipython() calls, as the kernel would
    found = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        source = to_python(cell.source)
        try:
            tree = ast.parse(source)
        except SyntaxError:  # left as it is: the run will show the error
            continue
        rewriter = _RecordAsserts(f"{name} cell {index}", source)
        tree = ast.fix_missing_locations(rewriter.visit(tree))
        if rewriter.found:
            cell.source = ast.unparse(tree)
            found.update(rewriter.found)
    nb.cells.insert(0, nbformat.v4.new_code_cell(RECORDER))
    return found


def run_once(path: str, offset: int, timeout: int = 600) -> dict:
    """One notebook under one seed offset: {"asserts": {key: source}, "outcomes": {key: held}, "errors": [...]}."""
    from nbclient import NotebookClient

    from tools.execute import kernel_config

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    asserts = instrument(nb, path.stem[:2])
    with tempfile.TemporaryDirectory() as tmp, kernel_config() as config:
        record = Path(tmp) / "record.jsonl"
        record.touch()
        os.environ[OFFSET_VARIABLE], os.environ[RECORD_VARIABLE] = str(offset), str(record)
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            config=config,
            allow_errors=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        errors = []
        try:
            client.execute()
        except Exception as error:  # a timeout or a dead kernel: what was recorded so far still counts
            errors.append(f"the run stopped: {type(error).__name__}: {str(error)[:300]}")
        seconds = time.perf_counter() - start
        outcomes = {}
        for line in record.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            outcomes[entry["key"]] = outcomes.get(entry["key"], True) and entry["held"]
    for index, cell in enumerate(nb.cells[1:]):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                errors.append(f"cell {index} raised {output.get('ename')}: {output.get('evalue', '')[:200]}")
    return {
        "notebook": path.name,
        "offset": offset,
        "asserts": asserts,
        "outcomes": outcomes,
        "errors": errors,
        "seconds": round(seconds, 1),
    }


def summarise(runs: list[dict]) -> list[dict]:
    """Per assert: the offsets it held for, failed for, and was not reached for."""
    rows = {}
    for run in sorted(runs, key=lambda r: (r["notebook"], r["offset"])):
        for key, source in run["asserts"].items():
            row = rows.setdefault(key, {"assert": key, "source": source, "held": [], "failed": [], "not reached": []})
            outcome = run["outcomes"].get(key)
            row["held" if outcome else "not reached" if outcome is None else "failed"].append(run["offset"])

    def order(key):
        notebook, _, cell, _, line = key.split()
        return notebook, int(cell), int(line)

    return [rows[key] for key in sorted(rows, key=order)]


def table(rows: list[dict], *, everything: bool = False) -> str:
    lines = ["| assert | held / tried | failed for offsets | not reached for | source |", "|---|---|---|---|---|"]
    for row in rows:
        tried = len(row["held"]) + len(row["failed"]) + len(row["not reached"])
        if everything or len(row["held"]) < tried:
            source = " ".join(row["source"].split())[:90].replace("|", "\\|")
            lines.append(
                f"| {row['assert']} | {len(row['held'])} / {tried} | {row['failed'] or ''} | "
                f"{row['not reached'] or ''} | `{source}` |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="other seeds to try besides the course's own (default 5)")
    parser.add_argument("--notebooks", nargs="*", default=None, help="notebook numbers, e.g. 04 06 (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="notebook runs at once (default 2)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "seed_sweep.json")
    parser.add_argument("--all", action="store_true", help="list every assert, not only those that do not always hold")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.jobs < 1:
        parser.error(f"--seeds and --jobs must be at least 1, got --seeds {args.seeds} --jobs {args.jobs}")
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if args.notebooks:
        wanted = {n.zfill(2) for n in args.notebooks}
        unknown = wanted - {p.name[:2] for p in paths}
        if unknown:
            parser.error(f"no notebook numbered {sorted(unknown)}; there are {[p.name[:2] for p in paths]}")
        paths = [p for p in paths if p.name[:2] in wanted]
    tasks = [(str(p), offset) for offset in range(args.seeds + 1) for p in paths]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        runs = list(pool.map(run_once, *zip(*tasks, strict=False)))
    rows = summarise(runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_suffix(".partial")
    partial.write_text(json.dumps({"seeds": args.seeds, "runs": runs, "asserts": rows}, indent=1), encoding="utf-8")
    partial.replace(args.out)
    always = sum(len(r["held"]) == args.seeds + 1 for r in rows)
    print(
        f"{len(rows)} asserts in {len(paths)} notebooks, offsets 0-{args.seeds} (0: the course's own seeds); "
        f"{always} held for every seed; {time.perf_counter() - start:.0f} s"
    )
    for run in runs:
        for error in run["errors"]:
            print(f"{run['notebook']} offset {run['offset']}: {error}")
    print(table(rows, everything=args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
