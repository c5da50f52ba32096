"""Run once per test run, share the result: for work that several pytest-xdist workers need (a notebook's run,
the static site). pytest-xdist's documented recipe ("Making session-scoped fixtures execute only once"): the
result is a file in a folder every worker sees, made under a :class:`filelock.FileLock` by the first worker
that takes the lock; the others wait on the lock, then read it.

- :func:`shared_dir`: a folder every worker of this run sees;
- :func:`run_key`: the name under which a notebook's run is shared;
- :func:`requested`: whether any test of this run uses a fixture (the site: what a notebook runs for);
- :func:`once`: ``make()`` run once, its result (or its failure) shared; a worker that would wait may do other
  work first (``meanwhile``).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["shared_dir", "run_key", "requested", "once"]


def shared_dir(tmp_path_factory, name: str) -> Path:
    """A folder every pytest-xdist worker of this run sees (the run's own temporary folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    shared.mkdir(exist_ok=True)
    return shared


def run_key(path: Path, root: Path) -> str:
    """A notebook run's name in the shared folder: its path inside ``root`` (the repository), so that a second
    folder of notebooks (``notebooks/zh/01_x.ipynb`` beside ``notebooks/01_x.ipynb``) gets runs of its own."""
    path, root = Path(path).resolve(), Path(root).resolve()
    inside = path.relative_to(root) if path.is_relative_to(root) else path.relative_to(path.anchor)
    return inside.with_suffix("").as_posix().replace("/", "--")


def requested(items, fixture: str) -> bool:
    """Whether any of the collected test ``items`` (after ``-m``/``-k``) uses ``fixture``, directly or not."""
    return any(fixture in getattr(item, "fixturenames", ()) for item in items)


def once(shared: Path, key: str, make, *, wait: bool = True, meanwhile=None):
    """``make()`` run by the first worker that takes ``key``'s lock; the others read its (pickled) result.

    A failure is recorded too, so the other workers fail with its message instead of running it again.
    With ``wait=False`` a worker that finds ``key`` taken or done returns None at once. ``meanwhile()``: called
    once before waiting, when another worker holds the lock (to do other work that will be needed).
    """
    done, failed = shared / f"{key}.pickle", shared / f"{key}.failed"
    lock = FileLock(str(shared / f"{key}.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:  # another worker is making it
        if not wait:
            return None
        if meanwhile is not None:
            meanwhile()
        lock.acquire(timeout=1800)
    try:
        if not wait and (done.exists() or failed.exists()):
            return None
        if failed.exists():
            raise RuntimeError(f"{key} failed in another worker: {failed.read_text(encoding='utf-8')}")
        if done.exists():
            return pickle.loads(done.read_bytes())
        try:
            result = make()
        except BaseException as error:
            failed.write_text(f"{type(error).__name__}: {error}", encoding="utf-8")
            raise
        done.write_bytes(pickle.dumps(result))
        return result
    finally:
        lock.release()
