"""The shipped text of notebook 09: exactly the documented subset, and the command that derives it."""

import hashlib
import subprocess
import sys

import pytest
from helpers import ROOT

from attention_lab.text_data import FIRST_CHARACTERS, TEXT_FILE, TEXT_SHA256, load_text, subset


def test_the_shipped_text_is_the_documented_subset():
    raw = (ROOT / "data" / TEXT_FILE).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == TEXT_SHA256
    text = load_text()
    assert text.encode("utf-8") == raw and text.isascii() and len(text) == 47_906
    rest = "\nFirst Officer:\nIf he did not care whether he had their love or no,\nhe waved indifferently 'twixt"
    assert len(text + rest) > FIRST_CHARACTERS and subset(text + rest + "\n\nmore") == text  # the cut rule
    assert text.startswith("First Citizen:\nBefore we proceed") and text.endswith("them plainly see't.\n")
    assert (ROOT / "data" / "README.md").read_text(encoding="utf-8").count(TEXT_SHA256) == 1


def test_subset_cuts_at_the_last_blank_line():
    assert subset("a\n\nb\nc\n\nd", 8) == "a\n\nb\nc\n"
    with pytest.raises(ValueError, match="no blank line"):
        subset("abc", 3)
    with pytest.raises(ValueError, match="text must be a string"):
        subset(b"a\n\nb")


@pytest.mark.slow  # a command in a subprocess (CONTRIBUTING: left out of the fast loop)
def test_the_command_checks_its_input_and_fails_in_one_line(tmp_path):
    wrong = tmp_path / "input.txt"
    wrong.write_text("Not Shakespeare.\n\nAt all.\n", encoding="utf-8")
    for args, expected in (
        ([str(wrong), str(tmp_path)], "is not the expected input.txt"),
        ([str(tmp_path / "missing.txt")], "no file"),
        ([], "usage:"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "attention_lab.text_data", *args], capture_output=True, encoding="utf-8", cwd=ROOT
        )
        assert result.returncode != 0 and expected in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / TEXT_FILE).exists()
