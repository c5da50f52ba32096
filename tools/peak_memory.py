"""This process's peak resident memory, on Linux, macOS and Windows: :func:`peak_mb`.

Run inside a notebook's kernel (by the site builder and the benchmark) to report what the notebook took; the
kernel imports it as ``tools.peak_memory`` (it starts with ``tools.kernel_env()``).
"""

from __future__ import annotations

import sys

__all__ = ["peak_mb"]


def peak_mb() -> float | None:
    """Peak resident memory of this process in MB, or None where the platform does not say.

    - Linux: ``VmHWM`` from ``/proc/self/status`` (the process's own high-water mark; ``ru_maxrss`` would
      also count the forked parent's pages from before the kernel's ``exec``).
    - Windows: the peak working set, from psutil.
    - macOS: ``ru_maxrss`` (bytes there; a kernel is started by ``posix_spawn``, so nothing is inherited).
    """
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/self/status", encoding="ascii") as status:
                return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
        except (OSError, StopIteration, ValueError):
            return None
    if sys.platform == "win32":
        try:
            import psutil
        except ImportError:
            return None
        return psutil.Process().memory_info().peak_wset / 2**20
    if sys.platform == "darwin":
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return None
