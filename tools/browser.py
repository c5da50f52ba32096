"""Drive the course in real JupyterLab and headless Chromium (for the UI tests and the latency benchmark).

Needs the test extra (Playwright for Python) and Debian's Chromium at ``/usr/bin/chromium``
(``apt-get install -y chromium``); Playwright's own browser download is not used. The tests launch it through
pytest-playwright's ``browser`` fixture with :data:`CHROMIUM` and :data:`CHROMIUM_ARGS` (``tests/conftest.py``);
:func:`chromium_browser` and :func:`chromium` launch it the same way for the benchmark.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from tools import kernel_env

CHROMIUM = os.environ.get("ATTENTION_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
INSTALL_HINT = "install Debian's Chromium with: apt-get install -y chromium (as root)"

# CSS selectors in JupyterLab 4 / ipywidgets 8
OUTPUT = ".jp-OutputArea-output"
STDERR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
FIGURE = ".widget-image"  # an explorer's fallback: the picture the kernel draws where the front end cannot load
CANVAS = ".live-figure"  # the figure an explorer's front end shows
SLIDER_HANDLE = ".widget-slider .noUi-handle"
DIALOG = ".jp-Dialog"
# a code cell's execution prompt; a collapsed cell shows a placeholder prompt instead, which never gets a count
PROMPT = ".jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)"
PLACEHOLDER = ".jp-InputPlaceholder"


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


@dataclass
class LabServer:
    url: str
    token: str
    process: subprocess.Popen

    def shutdown_kernels(self) -> int:
        """Shut down every running kernel (a finished notebook's kernel would otherwise keep its memory)."""
        auth = {"Authorization": f"token {self.token}"}
        with urllib.request.urlopen(urllib.request.Request(f"{self.url}/api/kernels", headers=auth), timeout=10) as r:
            kernels = json.load(r)
        for kernel in kernels:
            request = urllib.request.Request(f"{self.url}/api/kernels/{kernel['id']}", headers=auth, method="DELETE")
            urllib.request.urlopen(request, timeout=30).close()
        return len(kernels)

    def notebook_url(self, relative_path: str) -> str:
        """A fresh workspace per page, so that JupyterLab does not restore (and re-run) the last notebook."""
        return f"{self.url}/lab/workspaces/{uuid.uuid4().hex}/tree/{relative_path}?reset&token={self.token}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def other_cpu_capability() -> str | None:
    """An ATen CPU capability of this machine other than the one PyTorch picks by itself, or None.

    PyTorch runs its CPU kernels in the best instruction set the CPU has (AVX-512, AVX2, or the portable
    DEFAULT code), and the last bits of a result can differ between them. The harness's kernels run with
    the machine's own choice; the real-browser tests' JupyterLab starts its kernels one step down
    (``ATEN_CPU_CAPABILITY``), so one test run covers two code paths: AVX-512 -> AVX2, AVX2 -> default.
    """
    import torch

    current = torch.backends.cpu.get_cpu_capability().lower()
    if current == "avx512":
        return "avx2"
    return None if current == "default" else "default"


@contextlib.contextmanager
def jupyterlab(root: Path, *, timeout: float = 60.0, cpu_capability: str | None = None):
    """Start JupyterLab on 127.0.0.1 with a random token, serving ``root``; stop it afterwards.

    ``cpu_capability``: the ATen CPU capability its kernels run with (``ATEN_CPU_CAPABILITY``, inherited
    from the server), e.g. from :func:`other_cpu_capability`; None leaves PyTorch's own choice.
    """
    port, token = _free_port(), secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="attention-lab-jupyter-") as home:
        settings = Path(home) / "settings" / "@jupyterlab" / "notebook-extension"
        settings.mkdir(parents=True)
        # render every cell, also those far down the page (JupyterLab virtualises long notebooks by default)
        (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}), encoding="utf-8")
        # never save: Run All fills the notebooks with outputs, and autosave would write them into the course
        docmanager = Path(home) / "settings" / "@jupyterlab" / "docmanager-extension"
        docmanager.mkdir(parents=True)
        (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}), encoding="utf-8")
        env = {
            **kernel_env(),  # the kernels inherit it: a benchmark notebook imports tools.bench
            "JUPYTERLAB_SETTINGS_DIR": str(Path(home) / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(Path(home) / "workspaces"),
            "JUPYTER_RUNTIME_DIR": home,
        }
        if cpu_capability is not None:
            env["ATEN_CPU_CAPABILITY"] = cpu_capability
        log = open(Path(home) / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={port}",
                f"--IdentityProvider.token={token}",
                "--LabApp.expose_app_in_browser=True",
                f"--ServerApp.root_dir={root}",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                        break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        log.flush()
                        raise RuntimeError(
                            "JupyterLab did not start:\n"
                            + (Path(home) / "server.log").read_text(encoding="utf-8")[-3000:]
                        ) from None
                    time.sleep(0.3)
            yield LabServer(url, token, process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
            log.close()


@contextlib.contextmanager
def chromium_browser():
    """A headless Debian Chromium driven by Playwright: open pages with ``new_page`` (each its own context)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000):
    """A headless Debian Chromium page driven by Playwright."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


def wait_idle(page, timeout_ms: int = 120_000):
    page.wait_for_selector("#jp-main-statusbar >> text=Idle", timeout=timeout_ms)


def open_notebook(page, server: LabServer, relative_path: str):
    page.goto(server.notebook_url(relative_path))
    page.wait_for_selector(".jp-NotebookPanel", timeout=60_000)
    wait_idle(page)


def run_all(page, timeout_ms: int = 180_000):
    """Run All, then wait until every code cell of the notebook on show has an execution count and the kernel is idle.

    Only the notebook in the current tab counts: a notebook restored from the workspace in another tab keeps
    its cells without counts, and counting those made a finished Run All look stalled.

    A cell whose input is collapsed (the Colab set-up cell) shows a placeholder prompt without a count: it is
    not waited for (the cell runs all the same). Run All stops at a cell that raises, leaving the cells below
    it unrun: that is reported at once with the error shown, instead of waiting out the timeout. A timeout
    names the cells still waiting or running.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    try:
        state = page.wait_for_function(
            """([stderr, prompt]) => {
                const shown = window.jupyterapp && jupyterapp.shell.currentWidget;
                const prompts = [...(shown ? shown.node : document).querySelectorAll(prompt)];
                if (prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent))) return 'done';
                const running = prompts.some(p => p.textContent.includes('*'));
                return !running && document.querySelector(stderr) ? 'stopped' : false;
            }""",
            arg=[STDERR, PROMPT],
            timeout=timeout_ms,
        ).json_value()
    except PlaywrightTimeout as error:  # say which cells never finished
        raise AssertionError(f"Run All did not finish in {timeout_ms / 1000:.0f} s; {_unfinished(page)}") from error
    if state == "stopped":
        shown = "; ".join(page_problems(page))
        raise AssertionError(f"Run All stopped at an error: {shown}; {_unfinished(page)}")
    wait_idle(page)


def _unfinished(page) -> str:
    prompts = page.evaluate(
        "(prompt) => { const shown = window.jupyterapp && jupyterapp.shell.currentWidget;"
        " return [...(shown ? shown.node : document).querySelectorAll(prompt)].map(p => p.textContent.trim()); }",
        PROMPT,
    )
    left = [
        f"code cell {i + 1} {text or '[ ]'}" for i, text in enumerate(prompts) if not any(c.isdigit() for c in text)
    ]
    return f"{len(left)} of {len(prompts)} code cells without an execution count: " + ", ".join(left[:8])


SHOWN_PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook in the current tab, not one restored behind it


def page_problems(page) -> list[str]:
    """What a student would see as broken in the notebook on show: errors, stderr, failed widgets, dialogs."""
    problems = []
    for element in page.query_selector_all(f"{SHOWN_PANEL} {STDERR}"):
        problems.append("stderr or error output: " + element.inner_text()[:500])
    shown_outputs = page.locator(f"{SHOWN_PANEL} .jp-OutputArea-output")
    if shown_outputs.filter(has_text="Error displaying widget").count():  # not in prose
        problems.append("a widget failed to render ('Error displaying widget')")
    if page.locator(DIALOG).count():
        problems.append("a dialog is open: " + page.locator(DIALOG).first.inner_text()[:200])
    return problems


# JavaScript: step a slider with the keyboard and time until the figure's pixels change.
WATCH_CANVAS = """([outputSelector, area, canvasSelector]) => {
    const output = document.querySelectorAll(outputSelector)[area];
    const read = () => {  // query again each time: the naive version replaces its <img> on every step
        const el = output.querySelector(canvasSelector);
        return !el ? '' : (el.tagName === 'IMG' ? el.src : el.toDataURL());
    };
    const state = {start: performance.now(), changes: [], last: read()};
    const poll = () => {
        const now = read();
        if (now !== state.last) { state.changes.push(performance.now() - state.start); state.last = now; }
        if (!state.stop) requestAnimationFrame(poll);
    };
    window.__watch = state;
    requestAnimationFrame(poll);
}"""


def step_and_time(
    page, area: int, handle, key: str = "ArrowRight", canvas_selector: str = CANVAS, timeout_s: float = 5.0
) -> float | None:
    """Press ``key`` on a slider handle; milliseconds until the figure in output ``area`` changed (None: never)."""
    page.evaluate(WATCH_CANVAS, [OUTPUT, area, canvas_selector])
    handle.press(key)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        changes = page.evaluate("window.__watch.changes")
        if changes:
            page.evaluate("window.__watch.stop = true")
            return changes[0]
        time.sleep(0.005)
    page.evaluate("window.__watch.stop = true")
    return None


def burst_and_settle(
    page,
    area: int,
    handle,
    steps: int = 10,
    key: str = "ArrowRight",
    canvas_selector: str = CANVAS,
    quiet_s: float = 1.5,
) -> float:
    """Press ``key`` ``steps`` times as fast as possible; ms from the last press until the last change."""
    page.evaluate(WATCH_CANVAS, [OUTPUT, area, canvas_selector])
    for _ in range(steps):
        handle.press(key)
    last_press = page.evaluate("performance.now() - window.__watch.start")
    time.sleep(quiet_s)
    changes = page.evaluate("window.__watch.changes")
    page.evaluate("window.__watch.stop = true")
    return max(0.0, (changes[-1] if changes else last_press) - last_press)
