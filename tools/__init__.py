"""Repository tooling (site builder, student copy, benchmark, browser driver, Colab cell): a package, run from
the repository root as ``python -m tools.NAME`` (``python -m tools.build_site site/``), imported by the tests
as ``from tools import build_site`` (pytest's ``pythonpath`` puts the root on the path).

No notebook imports it. Code that the tools run inside a notebook's kernel (the explorers' frames, the peak
memory) imports it too: :func:`kernel_env` is the environment such a kernel, or a JupyterLab server's kernels,
start with, the repository root first on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT", "kernel_env"]

ROOT = Path(__file__).resolve().parent.parent  # the folder that holds tools/


def kernel_env(env: dict | None = None) -> dict:
    """``env`` (default: this process's environment) with the repository root first on ``PYTHONPATH``."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env
