"""A folder written whole or not at all: the static site and the student copy both build in a staging folder.

:func:`staged` yields a new temporary folder beside ``final``. When the ``with`` block ends normally, the
staging folder takes the place of ``final`` (a previous ``final`` is moved aside, then removed); when it
raises, the staging folder is removed and ``final`` is left as it was, so a failure never leaves half a
folder behind.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

__all__ = ["staged"]


@contextlib.contextmanager
def staged(final: Path, cannot_write: str):
    """A staging folder for ``final``; ``cannot_write`` starts the ValueError raised if none can be made there."""
    final = Path(final)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-staging-", dir=final.parent))
    except OSError as error:
        raise ValueError(f"{cannot_write} {final.parent}: {error.strerror or error}") from None
    try:
        yield staging
        old = None
        if final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{final.name}-old-", dir=final.parent))
            final.rename(old / final.name)
        staging.rename(final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
