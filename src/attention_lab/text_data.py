"""The course's text for generation (notebook 09): the opening of Shakespeare's *Coriolanus*, shipped in ``data/``.

``data/shakespeare.txt`` is the beginning of ``data/tinyshakespeare/input.txt`` of the public repository
karpathy/char-rnn (commit d1d7aa34fdb3626174bce1d753e6cc6845ce7087), a compilation of Shakespeare's plays:
its first 48,000 characters cut back to the last blank line, 47,906 characters of plain ASCII. Shakespeare's
text is in the public domain (``data/README.md``). ``python -m attention_lab.text_data INPUT [OUTDIR]``
derives the file from a copy of ``input.txt``; the tests check that the shipped file is exactly that
(its SHA-256 below). Nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from .paths import data_path, repo_root

__all__ = ["TEXT_FILE", "TEXT_SHA256", "REGENERATE_TEXT", "subset", "load_text"]

TEXT_FILE = "shakespeare.txt"
TEXT_SHA256 = "760cce0d462264abc73e7385579f264f713d35cb879f67591978174bcaac08cf"
REGENERATE_TEXT = "python -m attention_lab.text_data path/to/tinyshakespeare/input.txt"
FIRST_CHARACTERS = 48_000


def subset(text: str, characters: int = FIRST_CHARACTERS) -> str:
    """The first ``characters`` characters of ``text``, cut back to just after its last blank line."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    head = text[:characters]
    end = head.rfind("\n\n")
    if end < 0:
        raise ValueError(f"text has no blank line in its first {characters} characters to cut at")
    return head[: end + 1]


def load_text(name: str = TEXT_FILE) -> str:
    """The text of ``data/<name>`` (UTF-8), or a FileNotFoundError saying how to regenerate it."""
    return data_path(name, regenerate=REGENERATE_TEXT).read_text(encoding="utf-8")


def _main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(f"usage: {REGENERATE_TEXT} [OUTDIR]", file=sys.stderr)
        return 2
    source = Path(argv[0])
    if not source.is_file():
        print(f"error: no file {source}", file=sys.stderr)
        return 1
    text = subset(source.read_text(encoding="utf-8"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if digest != TEXT_SHA256:
        print(f"error: {source} is not the expected input.txt (its subset has SHA-256 {digest})", file=sys.stderr)
        return 1
    out = (Path(argv[1]) if len(argv) == 2 else repo_root() / "data") / TEXT_FILE
    out.write_text(text, encoding="utf-8", newline="\n")
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
