"""The diagrams (``attention_lab.diagrams``): each builds, has alt text, speaks the course's notation, keeps its
text apart and at a projector's size, and is placed in the notebook that needs it."""

import base64
import itertools
import re

import matplotlib as mpl
import nbformat
import numpy as np
import pytest
from helpers import NOTEBOOK_DIR
from matplotlib.figure import Figure
from matplotlib.text import Text

import attention_lab as al
from attention_lab import diagrams
from attention_lab.diagrams import lookup

# the glossary's symbols each diagram must show (mathtext as written in the labels)
NOTATION = {
    "three_steps": [r"q", r"k_1", r"\alpha_1", r"\lambda_1", r"v_1", r"\sum_i \lambda_i v_i", "$T$"],
    "hard_vs_soft": [r"q", r"k_1", r"v_1", r"\lambda_{i^*}", r"\mathrm{softmax}(\alpha)_i", r"\sum_i \lambda_i v_i"],
    "nadaraya_watson_pooling": [
        r"x_i",
        r"y_i",
        r"\lambda_i(x)",
        r"\hat f(x)",
        r"\kappa((x - x_i)/h)",
        "$2h$",
        "query $x$",
    ],
    "encoder_decoder": [r"e_1", r"s_{t-1}", r"s_t", r"\alpha_{tj}", r"\lambda_{tj}", r"c_t", r"y_{t-1}"],
    "multi_head": [r"W_q", r"W_k", r"W_v", r"W_o", r"d_k", r"n_{\mathrm{heads}}", r"d_{\mathrm{model}}"],
    "transformer_block": [r"d_{\mathrm{model}}", r"n_{\mathrm{heads}}", r"d_{\mathrm{ff}}", r"\mathrm{LN}"],
    "self_vs_cross": [r"Q = XW_q", r"K = XW_k", r"V = XW_v", r"e_j", r"\sqrt{d_k}"],
}
# other sources' symbols the course does not use (glossary.md: "Beware when you read elsewhere")
FOREIGN = [r"h_j", r"h_t", r"h_{t", r"e_{ij}", r"a_{ij}", r"\alpha_{ij}", r"w_{ij}", r"\alpha_i v_i"]
# where each diagram is shown: the notebook, and a phrase of the markdown cell it follows
PLACES = {
    "three_steps": ("01", "## 2. A soft lookup in three steps"),
    "hard_vs_soft": ("02", "## 2. Hard attention: pick, don't blend"),
    "nadaraya_watson_pooling": ("03", "## 2. Average pooling, then Nadaraya-Watson"),
    "encoder_decoder": ("06", "## 2. A context per output step"),
    "multi_head": ("07", "## 5. Multi-head attention"),
    "transformer_block": ("07", "## 7. The Transformer block"),
    "self_vs_cross": ("07", "## 1. Self-attention is attention pooling over the sequence itself"),
}


def texts(figure: Figure) -> list[Text]:
    """The figure's drawn, non-empty text artists (labels, the tick labels in view, annotations)."""
    ticks, shown = set(), set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks |= {label for tick in axis.majorTicks + axis.minorTicks for label in (tick.label1, tick.label2)}
            low, high = sorted(axis.get_view_interval())
            if ax.axison:  # the labels of ticks in view, on a side that shows them
                shown |= {
                    label
                    for tick in axis.majorTicks + axis.minorTicks
                    if low <= tick.get_loc() <= high
                    for label in (tick.label1, tick.label2)
                    if label.get_visible()
                }
    return [
        t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip() and (t not in ticks or t in shown)
    ]


def overlapping_texts(figure: Figure, margin: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes (in pixels, ``margin`` pixels of slack) overlap."""
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)  # lays out the figure (constrained layout, tick labels) as a saved PNG would be
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts(figure)]
    clashes = []
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        if (
            min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0) > margin
            and min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0) > margin
        ):
            clashes.append((a, b))
    return clashes


def outside(figure: Figure) -> list[str]:
    """Texts that stick out of the figure (they would be cut off)."""
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    bounds = figure.bbox
    return [
        t.get_text()
        for t in texts(figure)
        if not bounds.contains(*t.get_window_extent(renderer).p0)
        or not bounds.contains(*t.get_window_extent(renderer).p1)
    ]


@pytest.fixture(scope="module")
def drawn():
    return {name: make() for name, make in diagrams.DIAGRAMS.items()}


def test_every_diagram_is_listed_with_alt_text_and_a_place():
    assert set(diagrams.DIAGRAMS) == set(diagrams.ALT_TEXT) == set(NOTATION) == set(PLACES)
    for name, alt in diagrams.ALT_TEXT.items():
        assert len(alt.split()) >= 30, f"{name}: the alt text should say what the diagram shows"


@pytest.mark.parametrize("name", list(NOTATION))
def test_diagram_builds_and_displays_once_with_its_alt_text(drawn, name):
    diagram = drawn[name]
    assert isinstance(diagram.figure, Figure) and diagram.name == name and diagram.alt == diagrams.ALT_TEXT[name]
    data, metadata = diagram._repr_mimebundle_()
    png = base64.b64decode(data["image/png"])
    assert png.startswith(b"\x89PNG")
    assert f'alt="{diagram.alt}"' in data["text/html"].replace("&#x27;", "'")
    assert data["text/plain"] == diagram.alt and metadata["image/png"]["alt"] == diagram.alt
    width = metadata["image/png"]["width"]
    assert width == round(diagram.figure.get_size_inches()[0] * 100) and 700 <= width <= 1400


@pytest.mark.parametrize("name", list(NOTATION))
def test_diagram_labels_use_the_glossary_notation(drawn, name):
    labels = " ".join(t.get_text() for t in texts(drawn[name].figure))
    missing = [symbol for symbol in NOTATION[name] if symbol not in labels]
    assert not missing, f"{name} lacks {missing}"
    foreign = [symbol for symbol in FOREIGN if symbol in labels]
    assert not foreign, f"{name} uses notation the course does not: {foreign}"


@pytest.mark.parametrize("name", list(NOTATION))
def test_diagram_text_does_not_overlap_and_stays_inside(drawn, name):
    figure = drawn[name].figure
    assert not overlapping_texts(figure), f"{name}: overlapping labels {overlapping_texts(figure)}"
    assert not outside(figure), f"{name}: labels cut off at the edge {outside(figure)}"


@pytest.mark.parametrize("name", list(NOTATION))
def test_diagram_text_is_at_least_the_lecture_size(drawn, name):
    al.lecture_mode(True)
    try:
        lecture = mpl.rcParams["font.size"]  # the base text of lecture mode, the projector style
    finally:
        al.lecture_mode(False)
    sizes = {t.get_text(): t.get_fontsize() for t in texts(drawn[name].figure)}
    small = {label: size for label, size in sizes.items() if size < lecture}
    assert not small, f"{name}: text below lecture mode's {lecture} pt: {small}"


def test_the_checks_catch_overlapping_small_and_cut_off_text():
    figure, ax = diagrams._draw.canvas(4, 2)
    ax.text(1, 1, "first label", fontsize=15)
    ax.text(1.2, 1.05, "second label", fontsize=15)
    ax.text(3.9, 1.9, "off the edge", fontsize=9)
    assert ("first label", "second label") in overlapping_texts(figure)
    assert outside(figure) == ["off the edge"]


def test_the_diagrams_numbers_come_from_the_library():
    assert "0.13, 0.58, 0.08 and 0.21" in diagrams.ALT_TEXT["hard_vs_soft"]
    assert np.allclose(al.softmax(lookup.LOOKUP_SCORES).round(2), [0.13, 0.58, 0.08, 0.21])
    values, prediction, weights = lookup._nw_example()
    assert np.isclose(prediction, weights @ values) and np.isclose(weights.sum(), 1.0)
    near = np.abs(lookup.NW_KEYS - lookup.NW_QUERY) <= lookup.NW_BANDWIDTH
    assert f"{weights[near].sum():.0%} of the weight" in diagrams.ALT_TEXT["nadaraya_watson_pooling"]


def test_a_diagram_shown_twice_under_the_course_style_draws_without_a_warning():
    al.use_course_style()  # constrained layout on, as in every notebook (pytest turns warnings into errors)
    try:
        diagram = diagrams.multi_head()
        diagram._repr_mimebundle_()
        diagram._repr_mimebundle_()
        assert diagram.figure.get_layout_engine() is None and not overlapping_texts(diagram.figure)
    finally:
        al.lecture_mode(False)


def test_diagrams_leave_the_style_and_pyplot_alone(drawn):
    import matplotlib.pyplot as plt

    before = dict(mpl.rcParams)
    diagrams.three_steps()
    assert dict(mpl.rcParams) == before
    assert plt.get_fignums() == [], "a diagram must not open a pyplot figure (it would be shown twice)"


@pytest.mark.parametrize("name", list(PLACES))
def test_each_diagram_is_shown_in_its_notebook_after_the_text_that_needs_it(name):
    number, heading = PLACES[name]
    path = next(NOTEBOOK_DIR.glob(f"{number}_*.ipynb"))
    cells = nbformat.read(path, as_version=4).cells
    calls = [
        i for i, c in enumerate(cells) if c.cell_type == "code" and re.search(rf"\bdiagrams\.{name}\(\)", c.source)
    ]
    assert len(calls) == 1, f"{path.name} should call al.diagrams.{name}() in one cell, found {len(calls)}"
    introduced = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and heading in c.source]
    assert introduced and introduced[0] < calls[0], f"{name} comes before the text that introduces it"
    later = [
        i
        for i in range(introduced[0] + 1, len(cells))
        if cells[i].cell_type == "markdown" and cells[i].source.lstrip().startswith("## ")
    ]
    assert not later or calls[0] < later[0], f"{name} is shown after its section ended"
    assert cells[calls[0]].source.strip() == f"al.diagrams.{name}()", "the cell shows the diagram and nothing else"
