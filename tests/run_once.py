"""Run once per test run, share the result: for work that several pytest-xdist workers need (a notebook's run,
the static site), whichever worker asks first does it and the others read its pickled result from disk.

- :func:`shared_dir`: a folder every worker of this run sees;
- :func:`run_key`: the name under which a notebook's run is shared;
- :func:`requested`: whether any test of this run uses a fixture (the site: what a notebook runs for);
- :func:`once`: ``make()`` run by the first worker that claims a key, its result (or its failure) shared; a
  worker that would wait may do other work first (``meanwhile``).
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

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


def _claim(shared: Path, key: str) -> bool:
    """Claim ``key`` for this worker; False if a worker (maybe this one) has claimed it already."""
    try:
        os.close(os.open(shared / f"{key}.claim", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def once(shared: Path, key: str, make, *, wait: bool = True, meanwhile=None):
    """``make()`` run by the first worker that asks for ``key``; the others wait for its (pickled) result.

    A failure is recorded too, so the waiting workers fail with its message instead of waiting forever.
    With ``wait=False`` a worker that finds ``key`` claimed returns None at once instead of waiting.
    ``meanwhile()``: called once before waiting, when another worker has claimed ``key`` and is still at it
    (to do other work that will be needed, instead of waiting idle).
    """
    done, failed = shared / f"{key}.pickle", shared / f"{key}.failed"
    if not _claim(shared, key):  # another worker makes it (or has made it): wait for its result
        if not wait:
            return None
        if meanwhile is not None and not done.exists() and not failed.exists():
            meanwhile()
        deadline = time.monotonic() + 1800
        while not done.exists():
            if failed.exists():
                raise RuntimeError(f"{key} failed in another worker: {failed.read_text(encoding='utf-8')}") from None
            if time.monotonic() > deadline:
                raise TimeoutError(f"{key} was claimed by another worker but never finished") from None
            time.sleep(0.5)
        return pickle.loads(done.read_bytes())
    try:
        result = make()
    except BaseException as error:
        failed.write_text(f"{type(error).__name__}: {error}", encoding="utf-8")
        raise
    partial = done.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(result))
    partial.rename(done)  # atomic: a waiting worker never reads half a file
    return result
