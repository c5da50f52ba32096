"""Execute a notebook in a fresh kernel, once, for everything that needs it run.

The test harness (``tests/nbcheck.py``) and the static site (``tools/build_site.py``) both use
:func:`execute`, so a test run executes each notebook once and the site is built from those executions.
``after`` is code run in the same kernel after the notebook's last cell (the site uses it to render the
explorers' frames); its output is returned apart and never counts as the notebook's.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

from tools import kernel_env

__all__ = ["Executed", "execute", "kernel_config", "run_problems"]

TIMEOUT_PER_CELL = 180  # seconds; a guard against hangs, not a performance target


@dataclass
class Executed:
    """An executed notebook: the notebook with outputs, what went wrong, the run time, the ``after`` outputs."""

    path: Path
    nb: nbformat.NotebookNode
    problems: list = field(default_factory=list)
    seconds: float = 0.0
    after_outputs: list = field(default_factory=list)


def run_problems(nb, *, errors: bool = True) -> list:
    """What an executed notebook's outputs show went wrong: anything written to stderr, and (``errors``) errors."""
    problems = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                problems.append(f"cell {index} wrote to stderr (a warning?):\n{output.get('text', '')[:1000]}")
            if errors and output.get("output_type") == "error":
                problems.append(f"cell {index} raised {output.get('ename')}: {output.get('evalue')}")
    return problems


def execute(
    path,
    *,
    nb=None,
    workdir=None,
    before: str | None = None,
    after: str | None = None,
    timeout: int = TIMEOUT_PER_CELL,
) -> Executed:
    """Run ``path`` (or ``nb``) top to bottom in a fresh python3 kernel, in ``workdir`` (default: its folder).

    ``before``: code run in the kernel before the first cell, its outputs dropped (the decks' lecture figures).
    """
    path = Path(path)
    nb = nbformat.read(path, as_version=4) if nb is None else nb
    workdir = Path(workdir) if workdir is not None else path.parent
    with kernel_config() as config:
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3", config=config, resources={"metadata": {"path": str(workdir)}}
        )
        return _run(client, path, nb, before, after)


@contextlib.contextmanager
def kernel_config():
    """Configuration for the kernel: on Linux and macOS it talks over local sockets in a private folder.

    Over TCP (Windows has no other choice), ipykernel 7 warns on stderr that the connection is unencrypted:
    harmless on one machine, but a command that builds the site would print it for every notebook.
    """
    config = Config()
    if os.name != "posix":
        yield config
        return
    with tempfile.TemporaryDirectory(prefix="attention-lab-kernel-") as folder:
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = os.path.join(folder, "kernel")
        yield config


def _extra(client: NotebookClient, nb, code: str, index: int) -> list:
    """Run ``code`` as a cell at ``index`` of ``nb`` (taken out again) without a history entry; its outputs."""
    extra = nbformat.v4.new_code_cell(code)
    nb.cells.insert(index, extra)  # nbclient writes the executed cell back into nb.cells at its index
    try:
        client.execute_cell(extra, index, store_history=False)
    finally:
        extra = nb.cells.pop(index)
    return extra.outputs


def _run(client: NotebookClient, path: Path, nb, before: str | None, after: str | None) -> Executed:
    result = Executed(path, nb)
    start = time.perf_counter()
    with client.setup_kernel(env=kernel_env()):  # code run ``after`` may import tools
        info = client.wait_for_reply(client.kc.kernel_info())
        nb.metadata["language_info"] = info["content"]["language_info"]
        try:
            if before is not None:
                _extra(client, nb, before, 0)
                client.code_cells_executed = 0  # the notebook's own cells count from 1
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        except CellExecutionError as error:
            result.problems.append(f"a cell raised an error:\n{str(error)[-2000:]}")
        result.seconds = time.perf_counter() - start
        client.set_widgets_metadata()
        if after is not None and not result.problems:
            try:
                result.after_outputs = _extra(client, nb, after, len(nb.cells))
            except CellExecutionError as error:
                result.problems.append(f"the code run after the notebook failed:\n{str(error)[-2000:]}")
    # a CellExecutionError already reported the failing cell with its traceback: add only the stderr problems then
    result.problems += run_problems(nb, errors=not result.problems)
    return result
