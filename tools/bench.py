"""Latency and memory benchmark of the course's explorers: ``python -m tools.bench [--steps N] [--only NAME]``.

For every explorer class (``explorers.explorer_classes()``, each built by its ``example()``, stepping its
``benched`` control), in real JupyterLab and headless Chromium (needs the test extra and Debian's
Chromium), side by side with the naive version of the same figure (``ipywidgets.interact`` rebuilding
it with the inline backend):

- key press to the new figure on screen (the first animation frame showing it): median and p95 over a first
  pass of N steps to positions not shown yet and a second pass back over the same positions;
- a burst of 10 quick steps: time from the last key press until the figure stops changing;
- in the kernel: the cost of drawing one new position split into compute, draw and PNG encoding;
- each notebook's kernel peak memory after Run All;
- the library's overhead against the plain formulas (``tools/overhead.py``'s ``overhead_report()``, where
  that module exists).

Results are printed and written to ``bench-results/bench.json`` and, as the tables the README points to,
``bench-results/bench.md`` (every explorer of ``EXPLORERS``, every notebook in ``notebooks/``, the host and the
date). A benchmark, not a test: the numbers depend on the machine and its load; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from attention_lab.paths import repo_root

ROOT = repo_root(Path(__file__).parent)


def _benched() -> dict:
    """Every explorer class (``explorers.explorer_classes()``), as "Class (notebook)" -> the class."""
    from attention_lab.explorers import explorer_classes

    return {f"{cls.__name__} ({cls.notebook})": cls for cls in explorer_classes()}


CLASSES = _benched()
EXPLORERS = list(CLASSES)


def build_explorer(name: str, value=None, *, interactive: bool = True):
    """Explorer ``name`` as its notebook builds it (``example()``), its benched control at ``value`` (default:
    where the notebook starts it). PyTorch on one thread, as the notebooks set it (tiny steps, shared cores)."""
    import torch

    torch.set_num_threads(1)
    cls = CLASSES[name]
    arguments = {"interactive": interactive} if value is None else {cls.benched: value, "interactive": interactive}
    return cls.example(**arguments)


def current_position(control) -> int:
    """Index, among ``positions(control)``, of the control's value (the nearest one for a float slider)."""
    from attention_lab.explorers.controls import positions

    values = [value for _, value in positions(control)]
    if isinstance(control.value, float):
        return int(np.argmin([abs(v - control.value) for v in values]))
    return values.index(control.value)


def walk(control, count: int) -> list:
    """``count`` successive positions of ``control`` from its current one, back and forth, as a reader steps."""
    from attention_lab.explorers.controls import positions

    values = [value for _, value in positions(control)]
    here, path, step = current_position(control), [], 1
    for _ in range(count):
        if not 0 <= here + step < len(values):
            step = -step
        here += step
        path.append(values[here])
    return path


def _bench_notebook(name: str) -> dict:
    """A notebook with the fast explorer, then the naive interact version of the same figure."""
    import nbformat

    control = CLASSES[name].benched
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(source)
        for source in [
            "%matplotlib inline\nfrom tools.bench import build_explorer, current_position",
            f"explorer = build_explorer({name!r})\nexplorer",
            # the naive version: interact rebuilds the figure at every step of a slider over the same positions
            "import ipywidgets as widgets\nfrom IPython.display import display\n"
            "from attention_lab.explorers.controls import positions\n"
            f"control = explorer.controls[{control!r}]\n"
            "slider = widgets.SelectionSlider(options=positions(control), index=current_position(control))\n"
            f"def naive(value):\n    display(build_explorer({name!r}, value, interactive=False).figure)\n"
            "widgets.interact(naive, value=slider);",
        ]
    ]
    return nb


# In the page: from a key press on a control to the first animation frame that shows a new figure (the fast
# path's <img>, named by its position in ``data-shown``; the naive version's <img> src), polled every frame.
WATCH = """([output, selector]) => {
    const read = () => {
        const el = output.querySelector(selector);
        return !el ? "" : (el.dataset && el.dataset.shown !== undefined ? el.dataset.shown : el.src);
    };
    const state = {changes: [], presses: [], last: read()};
    if (window.__bench) window.__bench.stop = true;
    window.__bench = state;
    output.addEventListener("keydown", () => state.presses.push(performance.now()), true);
    const poll = () => {
        const now = read();
        if (now !== state.last) { state.changes.push(performance.now()); state.last = now; }
        if (!state.stop) requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
}"""


def _step(page, element, key: str, timeout_ms: float = 5000) -> float | None:
    """Press ``key`` on ``element``; ms from the key press to the new figure on screen (None: it never changed)."""
    seen = page.evaluate("window.__bench.changes.length")
    element.press(key)
    try:
        page.wait_for_function("n => window.__bench.changes.length > n", arg=seen, timeout=timeout_ms, polling="raf")
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: this step never changed the figure
        return None
    return page.evaluate("window.__bench.changes[window.__bench.changes.length - 1] - window.__bench.presses.at(-1)")


def _burst(page, element, key: str, steps: int = 10, quiet_ms: int = 1500) -> float:
    """Press ``key`` ``steps`` times as fast as possible; ms from the last press until the figure stops changing."""
    for _ in range(steps):
        element.press(key)
    page.wait_for_timeout(quiet_ms)
    changes, last = page.evaluate("[window.__bench.changes, window.__bench.presses.at(-1)]")
    return max(0.0, (changes[-1] if changes else last) - last)


def _summary(latencies: list) -> dict:
    found = [x for x in latencies if x is not None]
    return {
        "median_ms": float(np.median(found)) if found else None,
        "p95_ms": float(np.percentile(found, 95)) if found else None,
        "steps": len(found),
        "missed": len(latencies) - len(found),
    }


def _passes(page, output, element, steps: int, size: int, start: int, pause_ms: int = 150) -> dict:
    """A first pass of ``steps`` steps away from the start (positions not shown yet), then a second pass back over
    the same positions; a hand's pause between steps. Then a burst of 10 steps."""
    forward, back = (
        ("ArrowRight", "ArrowLeft") if start + steps < size or start < size / 2 else ("ArrowLeft", "ArrowRight")
    )
    steps = min(steps, max(start, size - 1 - start))
    first, second = [], []
    for latencies, key in ((first, forward), (second, back)):
        for _ in range(steps):
            latencies.append(_step(page, element, key))
            page.wait_for_timeout(pause_ms)
    return {"first": _summary(first), "second": _summary(second), "burst_settle_ms": _burst(page, element, forward)}


def browser_latency(steps: int, names: list | None = None) -> dict:
    """Slider step to changed pixels of each explorer (its fast path, two passes) and its naive twin, in JupyterLab.

    The first pass starts once the explorer has been on screen for 1.5 s (what an idle kernel draws ahead
    in that time is part of the fast path); the second pass revisits the same positions.
    """
    import nbformat

    from tools import browser

    results = {}
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as root:
        for name in names or EXPLORERS:
            nbformat.write(_bench_notebook(name), Path(root) / f"{name.split()[0]}.ipynb")
        with browser.jupyterlab(Path(root)) as lab, browser.chromium() as page:
            for name in names or EXPLORERS:
                page.goto("about:blank")
                lab.shutdown_kernels()
                browser.open_notebook(page, lab, f"{name.split()[0]}.ipynb")
                browser.run_all(page)
                page.wait_for_timeout(1500)
                outputs = page.locator(browser.OUTPUT)
                control = CLASSES[name].benched
                row = {}
                for i in range(outputs.count()):
                    output = outputs.nth(i)
                    if output.locator(".live-explorer").count():
                        manifest = json.loads(output.locator("script.live-manifest").text_content())
                        index = [c["name"] for c in manifest["controls"]].index(control)
                        entry = manifest["controls"][index]
                        element = output.locator(f'[data-control="{index}"]').first
                        if entry["kind"] == "buttons":
                            element = output.locator(f'input[data-control="{index}"]:checked')
                        element.scroll_into_view_if_needed()
                        page.evaluate(WATCH, [output.element_handle(), ".live-explorer"])
                        row["fast"] = _passes(page, output, element, steps, len(entry["labels"]), entry["current"])
                    elif output.locator(browser.SLIDER_HANDLE).count() and output.locator("img").count():
                        handle = output.locator(browser.SLIDER_HANDLE).first
                        handle.scroll_into_view_if_needed()
                        size = int(float(handle.get_attribute("aria-valuemax"))) + 1
                        start = int(float(handle.get_attribute("aria-valuenow")))
                        page.evaluate(WATCH, [output.element_handle(), "img"])
                        row["naive"] = _passes(page, output, handle, steps, size, start)
                results[name] = row
    return results


def kernel_costs(repeats: int = 30, names: list | None = None) -> dict:
    """Per update, inside the kernel: compute (artist data), draw (blit the changing artists), encode (PNG diff)."""
    costs = {}
    for name in names or EXPLORERS:
        control = CLASSES[name].benched
        explorer = build_explorer(name)
        steps = [explorer.timed_step(**{control: value}) for value in walk(explorer.controls[control], repeats)]
        costs[name] = {
            key: float(np.median([step[key] for step in steps])) for key in ("compute_ms", "draw_ms", "encode_ms")
        }
        full = []
        for _ in range(min(5, repeats)):
            start = time.perf_counter()
            explorer.figure.canvas.draw()
            full.append(1000 * (time.perf_counter() - start))
        costs[name]["full_redraw_ms"] = float(np.median(full))
    return costs


# the kernel's own peak resident memory (tools/peak_memory.py: Linux, macOS, Windows)
PEAK_MEMORY = "from tools.peak_memory import peak_mb as _peak_mb\nprint(_peak_mb())\ndel _peak_mb\n"


def notebook_memory() -> dict:
    """Peak resident memory (MB) of each course notebook's kernel after running it top to bottom."""
    from tools.execute import execute

    memory = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        run = execute(path, after=PEAK_MEMORY, timeout=300)
        if run.problems:
            raise RuntimeError(f"{path.name} did not run cleanly: {run.problems[0]}")
        peak = run.after_outputs[0]["text"].strip()
        memory[path.name] = {"peak_mb": None if peak == "None" else float(peak), "run_all_s": run.seconds}
    return memory


def overhead() -> object | None:
    """The overhead report against the plain formulas (``tools/overhead.py``), or None where it does not exist."""
    try:
        from tools.overhead import overhead_report
    except ImportError:  # the hook for tools/overhead.py: the report joins bench.json and bench.md once it exists
        return None
    return overhead_report()


def _rows(header: list, rows: list) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def _cell(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _ms(value) -> str:
    return "n/a" if value is None else f"{value:.0f} ms"


def _ratio(slow, fast) -> str:
    return f"{slow / fast:.1f}x" if slow and fast else "n/a"


def browser_rows(browser: dict) -> tuple[list, list]:
    """The browser table: per explorer, the fast path's first and second pass (median / p95), its burst settle
    time, the naive version's median over both its passes, and how many times faster each pass is."""
    header = ["explorer", "first pass", "second pass", "burst of 10 settles", "naive", "first / second vs naive"]
    rows = []
    for name, row in browser.items():
        fast, naive = row.get("fast", {}), row.get("naive", {})
        passes = [fast.get(k, {}) for k in ("first", "second")]
        naive_all = [naive.get(k, {}).get("median_ms") for k in ("first", "second")]
        naive_median = float(np.mean([x for x in naive_all if x])) if any(naive_all) else None
        rows.append(
            [
                name,
                *(f"{_ms(p.get('median_ms'))} / {_ms(p.get('p95_ms'))}" for p in passes),
                _ms(fast.get("burst_settle_ms")),
                _ms(naive_median),
                " / ".join(_ratio(naive_median, p.get("median_ms")) for p in passes),
            ]
        )
    return header, rows


def markdown(report: dict) -> str:
    """The report as the Markdown tables the README points to (the host, the date, then one table a part)."""
    import datetime
    import os
    import platform

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    lines = [
        "# Benchmark report (written by python -m tools.bench)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()} {platform.system()}, "
        f"{os.cpu_count()} cores" + (f", load average {load:.1f}" if load is not None else "") + ".",
        "",
        "## In the kernel, per slider step (median)",
        "",
        *_rows(
            ["explorer", "compute", "draw", "encode", "full redraw"],
            [
                [name, *(f"{c[k]:.1f} ms" for k in ("compute_ms", "draw_ms", "encode_ms", "full_redraw_ms"))]
                for name, c in report["kernel"].items()
            ],
        ),
    ]
    if report.get("browser"):
        header, rows = browser_rows(report["browser"])
        lines += ["", "## Key press on a control to the new figure on screen, JupyterLab + Chromium", ""]
        lines += _rows(header, rows)
    if report.get("memory"):
        rows = [
            [name, "n/a" if m["peak_mb"] is None else f"{m['peak_mb']:.0f} MB", f"{m['run_all_s']:.1f} s"]
            for name, m in report["memory"].items()
        ]
        lines += ["", "## Each notebook's kernel: peak memory (VmHWM) after Run All, and its run time", ""]
        lines += _rows(["notebook", "peak memory", "Run All"], rows)
    if report.get("overhead") is not None:
        lines += ["", "## Overhead against the plain formulas (tools/overhead.py)", ""]
        value = report["overhead"]
        if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):  # overhead_report()
            header = list(value[0])
            lines += _rows(header, [[_cell(row.get(key)) for key in header] for row in value])
        elif isinstance(value, dict):
            lines += _rows(["case", "result"], [[str(k), _cell(v)] for k, v in value.items()])
        else:
            lines += ["```", str(value), "```"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12, help="slider steps per explorer (default 12)")
    parser.add_argument("--repeats", type=int, default=30, help="in-kernel steps per explorer (default 30)")
    parser.add_argument("--no-browser", action="store_true", help="skip the real-browser latency part")
    parser.add_argument("--no-memory", action="store_true", help="skip running every notebook for its peak memory")
    parser.add_argument("--no-overhead", action="store_true", help="skip the overhead against the plain formulas")
    parser.add_argument("--only", default="", help="only the explorers whose name contains this text")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "bench.json")
    args = parser.parse_args(argv)

    if args.steps < 1 or args.repeats < 1:
        parser.error(f"--steps and --repeats must be at least 1, got {args.steps} and {args.repeats}")
    names = [name for name in EXPLORERS if args.only in name]
    if not names:
        parser.error(f"--only must be part of an explorer's name ({', '.join(EXPLORERS)}), got {args.only!r}")
    report = {"kernel": kernel_costs(args.repeats, names), "memory": {} if args.no_memory else notebook_memory()}
    if not args.no_browser:
        report["browser"] = browser_latency(args.steps, names)
    if not args.no_overhead:
        report["overhead"] = overhead()

    print("\nIn-kernel cost per slider step (ms, median):")
    print(f"{'explorer':<26}{'compute':>9}{'draw':>7}{'encode':>8}{'full redraw':>13}")
    for name, c in report["kernel"].items():
        print(
            f"{name:<26}{c['compute_ms']:>9.1f}{c['draw_ms']:>7.1f}{c['encode_ms']:>8.1f}{c['full_redraw_ms']:>13.1f}"
        )
    if "browser" in report:
        print("\nKey press on a control to the new figure on screen, JupyterLab + Chromium:")
        header, rows = browser_rows(report["browser"])
        print("\n".join(_rows(header, rows)))
    print("\nKernel peak memory after Run All:")
    for name, m in report["memory"].items():
        peak = "    n/a" if m["peak_mb"] is None else f"{m['peak_mb']:7.0f}"
        print(f"  {name:<36} {peak} MB   ({m['run_all_s']:.1f} s)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
    print(f"\nwritten to {args.out} and {args.out.with_suffix('.md')}")
    return report


if __name__ == "__main__":
    main()
