"""Latency and memory benchmark of the course's explorers: ``python tools/bench.py [--steps N]``.

For every explorer, in real JupyterLab and headless Chromium (needs the test extra and Debian's
Chromium), side by side with the naive version of the same figure (``ipywidgets.interact`` rebuilding
it with the inline backend):

- slider step to changed pixels: median and p95 over N keyboard steps;
- a burst of 10 quick steps: time from the last key press until the figure stops changing;
- in the kernel: the cost of one update split into compute, draw and PNG encoding;
- each notebook's kernel peak memory after Run All.

Results are printed and written to ``bench-results/bench.json``. A benchmark, not a test: the numbers
depend on the machine and its load; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from attention_lab.paths import repo_root

ROOT = repo_root(Path(__file__).parent)

# The explorers exactly as the notebooks build them (same data, same figure).
SETUP = textwrap.dedent("""
    import numpy as np
    from attention_lab.explorers import (AlignmentExplorer, DimensionExplorer, DIMENSIONS, GumbelExplorer,
                                         HeadExplorer, KernelExplorer, LookupExplorer, PositionalEncodingExplorer,
                                         TemperatureExplorer, TrainingScrubber)
    K = np.array([[6.0, 4.0], [5.0, 8.0], [5.5, 2.0], [9.0, 3.0]])
    VALUES = np.array([[10.4, 4.6, 2.4], [9.4, 53.2, 2.4], [9.8, 4.3, 3.1], [12.8, 7.0, 2.1]])
    LABELS = ["apple", "orange", "pear", "cherry"]
    QUERIES = {"cherry": [9.0, 3.0], "sweet and sour": [7.5, 6.0]}
    ALPHA = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])
    V2 = np.array([[0.0, 0.0], [4.0, 1.0], [1.0, 3.0], [3.0, 3.5], [-1.0, 2.0], [2.0, -1.0]])
    from attention_lab.training import snapshot
    # notebook 06's figure size: 29 input and 11 output tokens (random alignments draw the same)
    SOURCES = [list("Saturday, 20 September 1958") + ["<eos>"], list("1964年6月20日") + ["<eos>"]]
    OUTPUTS = [list("1958-09-20") + ["<eos>"], list("1964-06-20") + ["<eos>"]]
    _rng = np.random.default_rng(0)
    ALIGNMENTS = [_rng.dirichlet(np.ones(len(s)), size=11) for s in SOURCES]
    # notebook 07's head explorer: 2 layers x 4 heads over 3 reversal examples of 8 tokens + <bos>
    HEAD_TOKENS = [["<bos>", *"31415926"], ["<bos>", *"27182818"], ["<bos>", *"16180339"]]
    HEAD_WEIGHTS = _rng.dirichlet(np.ones(9), size=(3, 2, 4, 9))  # (examples, layers, heads, n, n)
    # notebook 04's scrubber: 100 epochs of Adam on the course data
    import torch
    from attention_lab import make_regression_data
    from attention_lab import nn as aln
    DATA = make_regression_data(50, seed=0)
    _x, _y = torch.tensor(DATA.x_train, dtype=torch.float32), torch.tensor(DATA.y_train, dtype=torch.float32)
    _keys, _values = aln.leave_one_out(_x, _y)
    _model = aln.NWKernelRegression(1.0)
    _opt = torch.optim.Adam(_model.parameters(), lr=0.5)
    SNAPSHOTS = [snapshot(_model, 0, 1.0, DATA)]
    for _epoch in range(100):
        _opt.zero_grad()
        _loss = torch.mean((_model(_x, _keys, _values) - _y) ** 2)
        _loss.backward()
        _opt.step()
        SNAPSHOTS.append(snapshot(_model, _epoch + 1, _loss.item(), DATA))
    # notebook 08's sampling explorer: a character model of its size (untrained: the same work per step)
    from attention_lab.explorers import SamplingExplorer
    from attention_lab.text_data import load_text
    CHARS, PROMPT_TEXT = sorted(set(load_text())), "MENENIUS:\\n"
    torch.set_num_threads(1)  # as notebook 08 does: tiny steps, and no thread contention on a shared machine
    torch.manual_seed(0)
    LM = aln.CharTransformer(len(CHARS), 128, d_model=64, num_heads=4, num_layers=2, d_ff=128).eval()
    PROMPT = torch.tensor([[CHARS.index(c) for c in PROMPT_TEXT]])
    with torch.no_grad():
        LOGITS = LM(PROMPT)[0, -1].double().numpy()
    def WRITE(temperature, top_k, top_p):
        out = aln.generate(LM, PROMPT, 40, temperature=temperature, top_k=top_k, top_p=top_p, rng=2)
        return "".join(CHARS[i] for i in out[0, PROMPT.shape[1]:].tolist())
""")
# name -> (expression building the explorer, with {value} for the benched control and {extra} for more
# arguments; the control the slider moves; the slider of the naive version)
TEMPERATURE = ("temperature", "temperature_slider(1.0)")
BANDWIDTH = ("bandwidth", "widgets.FloatLogSlider(value=0.3, base=10, min=np.log10(0.03), max=np.log10(5), step=0.05)")
EXPLORERS = {
    "LookupExplorer (01)": ("LookupExplorer(K, VALUES, LABELS, QUERIES, temperature={value}{extra})", *TEMPERATURE),
    "TemperatureExplorer (02)": ("TemperatureExplorer(ALPHA, V2, temperature={value}{extra})", *TEMPERATURE),
    "GumbelExplorer (02)": ("GumbelExplorer(ALPHA, temperature={value}{extra})", *TEMPERATURE),
    "KernelExplorer (03)": ("KernelExplorer(bandwidth={value}, n_train=1000{extra})", *BANDWIDTH),
    "TrainingScrubber (04)": ("TrainingScrubber(SNAPSHOTS, DATA, epoch={value}{extra})", "epoch",
                              "widgets.IntSlider(value=50, min=0, max=100)"),
    "DimensionExplorer (05)": ("DimensionExplorer(d={value}{extra})", "d",
                               "widgets.SelectionSlider(options=DIMENSIONS, value=16)"),
    "AlignmentExplorer (06)": ("AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS, step={value}{extra})", "step",
                               "widgets.IntSlider(value=5, min=0, max=10)"),
    "PositionalEncodingExplorer (07)": ("PositionalEncodingExplorer(64, 32, dimension=6, position={value}{extra})",
                                        "position", "widgets.IntSlider(value=20, min=0, max=63)"),
    "HeadExplorer (07)": ("HeadExplorer(HEAD_WEIGHTS, HEAD_TOKENS, head={value}{extra})", "head",
                          "widgets.IntSlider(value=0, min=0, max=3)"),
    "SamplingExplorer (08)": ("SamplingExplorer(LOGITS, CHARS, prompt=PROMPT_TEXT, continuation=WRITE, "
                              "temperature={value}{extra})", *TEMPERATURE),
}
START = {"temperature": 1.0, "bandwidth": 0.3, "epoch": 50, "d": 16, "step": 5, "position": 20, "head": 0}


def _positions(control: str, count: int) -> list:
    """``count`` successive slider positions of the benched control, as a reader would step through them."""
    if control == "temperature":
        from attention_lab.explorers import TEMPERATURE_OPTIONS

        return [value for _, value in TEMPERATURE_OPTIONS][5:5 + count]
    if control == "bandwidth":
        return list(10.0 ** (np.log10(0.05) + 0.05 * np.arange(count)))
    from attention_lab.explorers import DIMENSIONS

    cycle = {"epoch": list(range(101)), "d": DIMENSIONS, "step": list(range(11)), "position": list(range(64)),
             "head": [0, 1, 2, 3, 2, 1]}[control]
    return [cycle[i % len(cycle)] for i in range(count)]


def _bench_notebook(name: str) -> dict:
    """A notebook with the fast explorer, then the naive interact version of the same figure."""
    import nbformat

    expression, control, slider = EXPLORERS[name]
    fast = expression.format(value=START[control], extra="")
    naive = expression.format(value="value", extra=", interactive=False")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in [
        "%matplotlib inline\n" + SETUP,
        f"explorer = {fast}\nexplorer",
        "import ipywidgets as widgets\nfrom IPython.display import display\n"
        "from attention_lab.explorers import temperature_slider\n"
        f"def naive(value):\n    display({naive}.figure)\n"
        f"widgets.interact(naive, value={slider});",
    ]]
    return nb


def browser_latency(steps: int) -> dict:
    """Slider-to-pixels latency of each explorer and its naive twin, in real JupyterLab."""
    import browser
    import nbformat

    results = {}
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as root:
        for name in EXPLORERS:
            nbformat.write(_bench_notebook(name), Path(root) / f"{name.split()[0]}.ipynb")
        with browser.jupyterlab(Path(root)) as lab, browser.chromium() as page:
            for name in EXPLORERS:
                browser.open_notebook(page, lab, f"{name.split()[0]}.ipynb")
                browser.run_all(page)
                page.wait_for_timeout(1500)
                outputs = page.locator(browser.OUTPUT)
                areas = {}
                for i in range(outputs.count()):
                    if outputs.nth(i).locator(browser.FIGURE).count():
                        areas["fast"] = (i, browser.CANVAS)
                    elif outputs.nth(i).locator(browser.SLIDER_HANDLE).count():
                        areas["naive"] = (i, "img")
                row = {}
                for version, (area, selector) in areas.items():
                    handle = outputs.nth(area).locator(browser.SLIDER_HANDLE).first
                    handle.scroll_into_view_if_needed()
                    latencies = []
                    for step in range(steps):
                        key = "ArrowLeft" if (step // 6) % 2 == 0 else "ArrowRight"  # wander, never pin at an end
                        latency = browser.step_and_time(page, area, handle, key, selector)
                        if latency is not None:
                            latencies.append(latency)
                        page.wait_for_timeout(150)
                    settle = browser.burst_and_settle(page, area, handle, 10, "ArrowRight", selector)
                    row[version] = {"median_ms": float(np.median(latencies)) if latencies else None,
                                    "p95_ms": float(np.percentile(latencies, 95)) if latencies else None,
                                    "steps": len(latencies), "burst_settle_ms": settle}
                results[name] = row
    return results


def kernel_costs(repeats: int = 30) -> dict:
    """Per update, inside the kernel: compute (artist data), draw (blit the changing artists), encode (PNG diff)."""
    namespace: dict = {}
    exec(SETUP, namespace)  # noqa: S102 - our own constant setup code
    costs = {}
    for name, (expression, control, _) in EXPLORERS.items():
        values = _positions(control, repeats)
        explorer = eval(expression.format(value=values[0], extra=""), namespace)  # noqa: S307 - our own constant
        canvas = explorer.canvas
        canvas.syncing_data_url = False  # as if the browser view were connected
        timings = {"compute_ms": [], "draw_ms": [], "encode_ms": []}
        explorer.controls[control].unobserve_all()  # time the pieces one by one, not through the observer
        for value in values:
            explorer.controls[control].value = value
            start = time.perf_counter()
            explorer.update()
            drawn = time.perf_counter()
            canvas.restore_region(explorer._background)
            explorer._draw_animated()
            encoded = time.perf_counter()
            canvas._png_is_old = True
            canvas.get_diff_image()
            done = time.perf_counter()
            timings["compute_ms"].append(1000 * (drawn - start))
            timings["draw_ms"].append(1000 * (encoded - drawn))
            timings["encode_ms"].append(1000 * (done - encoded))
        full = []
        for _ in range(min(5, repeats)):
            start = time.perf_counter()
            explorer.figure.canvas.draw()
            full.append(1000 * (time.perf_counter() - start))
        costs[name] = {key: float(np.median(values)) for key, values in timings.items()}
        costs[name]["full_redraw_ms"] = float(np.median(full))
    return costs


# the kernel's own peak resident memory (tools/peak_memory.py: Linux, macOS, Windows)
PEAK_MEMORY = (f"import sys as _sys\n_sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
               "from peak_memory import peak_mb as _peak_mb\nprint(_peak_mb())\ndel _sys, _peak_mb")


def notebook_memory() -> dict:
    """Peak resident memory (MB) of each course notebook's kernel after running it top to bottom."""
    from execute import execute

    memory = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        run = execute(path, after=PEAK_MEMORY, timeout=300)
        if run.problems:
            raise RuntimeError(f"{path.name} did not run cleanly: {run.problems[0]}")
        peak = run.after_outputs[0]["text"].strip()
        memory[path.name] = {"peak_mb": None if peak == "None" else float(peak), "run_all_s": run.seconds}
    return memory


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12, help="slider steps per explorer (default 12)")
    parser.add_argument("--repeats", type=int, default=30, help="in-kernel steps per explorer (default 30)")
    parser.add_argument("--no-browser", action="store_true", help="skip the real-browser latency part")
    parser.add_argument("--no-memory", action="store_true", help="skip running every notebook for its peak memory")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "bench.json")
    args = parser.parse_args(argv)

    if args.steps < 1 or args.repeats < 1:
        parser.error(f"--steps and --repeats must be at least 1, got {args.steps} and {args.repeats}")
    report = {"kernel": kernel_costs(args.repeats), "memory": {} if args.no_memory else notebook_memory()}
    if not args.no_browser:
        report["browser"] = browser_latency(args.steps)

    print("\nIn-kernel cost per slider step (ms, median):")
    print(f"{'explorer':<26}{'compute':>9}{'draw':>7}{'encode':>8}{'full redraw':>13}")
    for name, c in report["kernel"].items():
        print(f"{name:<26}{c['compute_ms']:>9.1f}{c['draw_ms']:>7.1f}{c['encode_ms']:>8.1f}{c['full_redraw_ms']:>13.1f}")
    if "browser" in report:
        print("\nSlider step to changed pixels in JupyterLab + Chromium (ms):")
        print(f"{'explorer':<26}{'version':>8}{'median':>8}{'p95':>8}{'burst settle':>14}{'speed-up':>10}")
        for name, row in report["browser"].items():
            for version, r in row.items():
                ratio = ""
                if version == "fast" and row.get("naive", {}).get("median_ms") and r["median_ms"]:
                    ratio = f"{row['naive']['median_ms'] / r['median_ms']:.1f}x"
                median = f"{r['median_ms']:.0f}" if r["median_ms"] is not None else "n/a"
                p95 = f"{r['p95_ms']:.0f}" if r["p95_ms"] is not None else "n/a"
                print(f"{name:<26}{version:>8}{median:>8}{p95:>8}{r['burst_settle_ms']:>14.0f}{ratio:>10}")
    print("\nKernel peak memory after Run All:")
    for name, m in report["memory"].items():
        peak = "    n/a" if m["peak_mb"] is None else f"{m['peak_mb']:7.0f}"
        print(f"  {name:<36} {peak} MB   ({m['run_all_s']:.1f} s)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"\nwritten to {args.out}")
    return report


if __name__ == "__main__":
    main()
