"""Notebook 09's sampling explorer, headless: every control position redraws in place (new pixels, no new
artists), the bars are the library's distribution, the text is the continuation asked for, and the static
twin draws the same distributions."""

import numpy as np
import pytest
from explorer_inputs import LOGITS, TOKENS, bad_control_tests
from helpers import artist_count, pixels
from matplotlib.figure import Figure

from attention_lab import next_token_distribution
from attention_lab.explorers import TEMPERATURE_OPTIONS, SamplingExplorer, sampling_small_multiples
from attention_lab.explorers.sampling import TOP_P_OPTIONS, token_label, top_k_options


def written(temperature, top_k, top_p):
    return f"T={temperature} k={top_k} p={top_p}"


def test_every_control_moves_the_picture_in_place_and_shows_the_library_distribution(interactive):
    explorer = SamplingExplorer(LOGITS, TOKENS, prompt="ab", continuation=written, interactive=interactive)
    figure, count = explorer.figure, artist_count(explorer)
    order = np.argsort(-LOGITS, kind="stable")
    for name, options in (
        ("temperature", [v for _, v in TEMPERATURE_OPTIONS][::4]),
        ("top_k", [v for _, v in top_k_options(9)]),
        ("top_p", [v for _, v in TOP_P_OPTIONS]),
    ):
        before = pixels(explorer)
        for value in options[1:]:
            explorer.set(**{name: value})
            t, k, p = (explorer.controls[c].value for c in ("temperature", "top_k", "top_p"))
            heights = [bar.get_height() for bar in explorer.bars]
            np.testing.assert_allclose(heights, next_token_distribution(LOGITS, t, top_k=k, top_p=p)[order])
            assert explorer.text.get_text().replace("\n", "") == f"ab▕{written(t, k, p)}"
            now = pixels(explorer)
            assert not np.array_equal(now, before) or name == "top_p", (name, value)  # top-p may keep the same set
            before = now
        explorer.set(temperature=1.0, top_k=9, top_p=1.0)
    assert explorer.figure is figure and artist_count(explorer) == count


def test_the_limits_greedy_and_uniform():
    explorer = SamplingExplorer(LOGITS, TOKENS, interactive=False)
    explorer.set(temperature=0.0)
    heights = np.array([bar.get_height() for bar in explorer.bars])
    assert heights[0] == 1 and np.all(heights[1:] == 0)  # sorted by logit: the largest first
    explorer.set(temperature=np.inf, top_k=3)
    heights = np.array([bar.get_height() for bar in explorer.bars])
    np.testing.assert_allclose(heights, [1 / 3] * 3 + [0] * 6)
    assert "3 token(s) kept" in explorer.title.get_text()


def test_labels_show_newline_and_space_and_options_fit_the_vocabulary():
    explorer = SamplingExplorer(LOGITS, TOKENS, interactive=False)
    assert {"⏎", "␣"} <= set(explorer.labels) and token_label("x") == "x"
    assert [v for _, v in top_k_options(9)] == [1, 2, 3, 5, 9] and top_k_options(2) == [("1", 1), ("all (2)", 2)]


def test_the_continuation_is_asked_once_per_setting():
    calls = []

    def counted(*args):
        calls.append(args)
        return "x"

    explorer = SamplingExplorer(LOGITS, TOKENS, continuation=counted, interactive=False)
    for _ in range(3):
        explorer.set(temperature=0.5)
        explorer.set(temperature=1.0)
    assert len(calls) == len(set(calls)) == 2


def test_bad_values_are_refused():
    explorer = SamplingExplorer(LOGITS, TOKENS, interactive=False)
    for bad in ({"top_k": 4}, {"top_p": 0.0}, {"temperature": -1.0}, {"top_p": "1"}):
        with pytest.raises(ValueError):
            explorer.set(**bad)
    for args, kwargs, match in (
        ((LOGITS, TOKENS[:3]), {}, "tokens must be a list of 9 strings"),
        (([1.0], ["a"]), {}, "V >= 2"),
        ((LOGITS, TOKENS), {"continuation": "text"}, "continuation must be a function"),
        ((LOGITS, TOKENS), {"prompt": 3}, "prompt must be a string"),
    ):
        with pytest.raises(ValueError, match=match):
            SamplingExplorer(*args, interactive=False, **kwargs)


def test_static_twin_draws_the_same_distributions():
    settings = ((0.0, None, 1.0), (1.0, 2, 1.0), (np.inf, None, 0.5))
    fig = sampling_small_multiples(LOGITS, TOKENS, settings, shown=5)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    order = np.argsort(-LOGITS, kind="stable")[:5]
    for ax, (t, k, p) in zip(fig.axes, settings, strict=True):
        heights = [patch.get_height() for patch in ax.patches]
        np.testing.assert_allclose(heights, next_token_distribution(LOGITS, t, top_k=k, top_p=p)[order])


# Every control refuses bad values, in the constructor and in set(), and the explorer keeps working: the two
# tests are written once, in explorer_inputs.py, and run here for this file's explorer.
test_constructor_refuses_a_bad_control_value, test_set_refuses_every_bad_value_and_the_explorer_keeps_working = (
    bad_control_tests("sampling")
)
