"""Words for screen readers: the figures' alt texts and the explorers' control descriptions."""

import matplotlib.pyplot as plt
import pytest
from explorer_inputs import FACTORIES, KINDS, example

from attention_lab.explorers.controls import describe_control, tooltip_trait
from attention_lab.figure_text import describe, describe_figures_in_ipython


def test_describe_reads_titles_labels_and_legends_without_tex_marks():
    fig, axes = plt.subplots(1, 2)
    try:
        axes[0].plot([0, 1], [1, 0], label=r"$\lambda_i$ at $T = 1$")
        axes[0].legend()
        axes[0].set_title("Softmax weights")
        axes[1].set_xlabel(r"key $\mathrm{index}\ i$")
        axes[1].set_ylabel("score")
        fig.suptitle("Temperature")
        text = describe(fig)
    finally:
        plt.close(fig)
    assert text.startswith('Figure "Temperature" with 2 panels: panel 1: "Softmax weights"')
    assert 'legend: "lambda_i at T = 1"' in text and 'panel 2: x: "key index i"; y: "score"' in text
    assert "$" not in text and "\\" not in text


def test_describe_says_when_a_figure_has_no_words_and_stays_short():
    fig, ax = plt.subplots()
    try:
        assert describe(fig) == "Figure (no titles or axis labels)."
        ax.set_title("x" * 2000)
        assert len(describe(fig)) <= 600 and describe(fig).endswith("…")
    finally:
        plt.close(fig)


@pytest.mark.parametrize("bad", [None, "figure", plt])
def test_describe_refuses_what_is_not_a_figure(bad):
    with pytest.raises(ValueError, match="fig must be a matplotlib Figure"):
        describe(bad)


def test_outside_ipython_nothing_is_wrapped():
    assert describe_figures_in_ipython() is False


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_every_explorer_control_has_a_description_and_a_tooltip(kind):
    explorer = example(KINDS[kind])  # shared with test_every_explorer.py: this test only reads it
    for name, control in explorer.controls.items():
        assert control.description, f"{kind}: control {name} has no description (its visible label)"
        tooltip = getattr(control, tooltip_trait(control))  # ipywidgets 8's tooltip, 7's description_tooltip
        assert tooltip.startswith(f"{type(explorer).__name__}, {control.description}: "), tooltip
        assert "keys" in tooltip or "Tab" in tooltip, "the tooltip says how to use it by keyboard"


def test_a_tooltip_already_set_is_kept():
    import ipywidgets as widgets

    slider = widgets.IntSlider(description="n")
    setattr(slider, tooltip_trait(slider), "mine")  # the trait the front end shows, in ipywidgets 7 and 8
    assert describe_control(slider, "X") == "mine"
    bare = widgets.IntSlider()
    assert describe_control(bare, "X").startswith("X, control: a slider")


def test_the_live_loss_picture_carries_its_alt_text():
    from attention_lab.training import LiveLoss

    live = LiveLoss(3, title="kernel width", show=False)
    live.update(0, train=1.0)
    live.update(2, train=0.5)
    png, metadata = live._image()._repr_png_()
    assert png[:4] in (b"\x89PNG", "iVBO")  # bytes or base64 text, by IPython version
    assert metadata["alt"] == describe(live.figure)
    assert metadata["alt"].startswith('Figure: "kernel width, epoch 3/3"; x: "epoch"; y: "mean squared error"')


def test_tex_commands_read_as_words():
    fig, ax = plt.subplots()
    try:
        ax.set_ylabel(r"$|\partial\lambda / \partial\alpha|$ with $\alpha = q^\top k / \sqrt{d}$")
        assert describe(fig) == 'Figure: y: "|partial lambda / partial alpha| with alpha = q^top k / sqrt d".'
    finally:
        plt.close(fig)
