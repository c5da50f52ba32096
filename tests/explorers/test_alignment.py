"""Notebook 06's alignment explorer, headless: every step redraws in place, and bad input is named."""

import numpy as np
import pytest
import torch
from explorer_inputs import ALIGNMENTS, OUTPUTS, SOURCES, bad_control_tests
from helpers import artist_count, pixels

from attention_lab import nn as aln
from attention_lab.explorers import AlignmentExplorer, alignment_small_multiples


def test_alignment_explorer_in_place(interactive):
    sources = [list("29 Nov 2026") + ["<eos>"], list("2026年11月29日") + ["<eos>"]]
    outputs = [list("2026-11-29") + ["<eos>"]] * 2
    rng = np.random.default_rng(0)
    alignments = [aln.masked_softmax(torch.tensor(rng.normal(size=(11, len(s))))).numpy() for s in sources]
    explorer = AlignmentExplorer(sources, outputs, alignments, interactive=interactive)
    count, before = artist_count(explorer), pixels(explorer)
    for example in (0, 1):
        for step in range(11):
            if (example, step) == (0, 0):
                continue  # where it starts
            explorer.set(example=example, step=step)
            heights = [b.get_height() for b in explorer.bars]
            np.testing.assert_allclose(heights[: len(sources[example])], alignments[example][step])
            assert explorer.step_tokens[0].get_text() == sources[example][0]
            assert f"output '{outputs[example][step]}'" in explorer.step_title.get_text()
            assert explorer.row_box.get_width() == len(sources[example])  # the outline ends at its last token
            now = pixels(explorer)
            assert not np.array_equal(now, before)
            before = now
    assert artist_count(explorer) == count
    with pytest.raises(ValueError, match=r"alignments\[0\] must have shape"):
        AlignmentExplorer(sources, outputs, [np.zeros((2, 2)), alignments[1]], interactive=False)
    fig = alignment_small_multiples(sources, outputs, alignments, columns=2)
    assert fig.axes[0].get_xlabel() == "input token"


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorers.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("alignment")
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS[:1], interactive=False), r"one entry per example"),
        (lambda: AlignmentExplorer([], [], [], interactive=False), r"one entry per example"),
        (lambda: AlignmentExplorer("ab", OUTPUTS, ALIGNMENTS, interactive=False), r"sources must be a list"),
        (
            lambda: AlignmentExplorer([[], list("cde")], OUTPUTS, ALIGNMENTS, interactive=False),
            r"sources\[0\] must be a non-empty list of token strings",
        ),
        (lambda: AlignmentExplorer([[1, 2], list("cde")], OUTPUTS, ALIGNMENTS, interactive=False), r"token strings"),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), np.nan), ALIGNMENTS[1]], interactive=False),
            r"alignments\[0\] must not contain NaN",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), 2.0), ALIGNMENTS[1]], interactive=False),
            r"weights in \[0, 1\]",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, [np.full((3, 2), "a"), ALIGNMENTS[1]], interactive=False),
            r"alignments\[0\] must be an array of numbers",
        ),
        (
            lambda: AlignmentExplorer(SOURCES, OUTPUTS, ALIGNMENTS, labels=["one"], interactive=False),
            r"labels must be a list of 2",
        ),
    ],
)
def test_constructor_data_is_validated(call, message):
    with pytest.raises(ValueError, match=message):
        call()
