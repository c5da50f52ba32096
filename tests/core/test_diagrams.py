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
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.text import Text

import attention_lab as al
from attention_lab import diagrams
from attention_lab.diagrams import course, lookup

# the glossary's symbols each diagram must show (mathtext as written in the labels)
NOTATION = {
    "course_map": ["01", "09", r"\sum_i \lambda_i v_i", "$T$", "$h$", r"w = 1/h", r"a(q, k)", r"s_{t-1}", r"Q = XW_q"],
    "three_steps": [r"q", r"k_1", r"\alpha_1", r"\lambda_1", r"v_1", r"\sum_i \lambda_i v_i", "$T$"],
    "hard_vs_soft": [
        r"q",
        r"k_1",
        r"v_1",
        r"\lambda_{i^*}",
        r"\mathrm{argmax}_i",
        r"\mathrm{softmax}(\alpha / T)_i",
        "$T = 1$",
        r"\sum_i \lambda_i v_i",
    ],
    "nadaraya_watson_pooling": [
        r"x_i",
        r"y_i",
        r"\lambda_i(x)",
        r"\hat f(x)",
        r"\kappa((x - x_i)/h)",
        "$2h$",
        "query $x$",
    ],
    "leave_one_out": [r"x_i", r"x_j", r"\lambda_j(x_i)", r"2h = 2/w", "query $x_i$", r"n - 1", r"w \to \infty"],
    "scoring_functions": [
        r"q",
        r"k_i",
        r"W_q q",
        r"W_k k_i",
        r"w_v^\top",
        r"\tanh",
        r"\sqrt{d}",
        r"\alpha_i = a(q, k_i)",
        r"\lambda_i",
        r"d_h",
    ],
    "encoder_decoder": [r"e_1", r"s_{t-1}", r"s_t", r"\alpha_{tj}", r"\lambda_{tj}", r"c_t", r"y_{t-1}"],
    "multi_head": [
        r"W_q",
        r"W_k",
        r"W_v",
        r"W_o",
        r"Q_1",
        r"K_1",
        r"V_1",
        r"d_k",
        r"n_{\mathrm{heads}}",
        r"d_{\mathrm{model}}",
    ],
    "transformer_block": [r"d_{\mathrm{model}}", r"n_{\mathrm{heads}}", r"d_{\mathrm{ff}}", r"\mathrm{LN}"],
    "self_vs_cross": [
        r"Q = XW_q",
        r"K = XW_k",
        r"V = XW_v",
        r"K = EW_k",
        r"V = EW_v",
        "encoder's outputs $E$ (rows $e_j$)",
        "(n_queries, n_keys)",
        r"\sqrt{d_k}",
    ],
    "generation_loop": [
        r"y_1, \dots, y_t",
        r"y_{t+1}",
        r"\alpha",
        r"n_{\mathrm{vocab}}",
        r"\mathrm{softmax}(\alpha / T)",
        r"k_{\mathrm{top}}",
        r"p_{\mathrm{top}}",
        r"K_{1:t}",
        r"V_{1:t}",
    ],
}
# other sources' symbols the course does not use (glossary.md: "Beware when you read elsewhere")
FOREIGN = [r"h_j", r"h_t", r"h_{t", r"e_{ij}", r"a_{ij}", r"\alpha_{ij}", r"w_{ij}", r"\alpha_i v_i"]
# where each diagram is shown: the notebook, and a phrase of the markdown cell it follows
PLACES = {
    "course_map": ("00", "## The course map"),
    "three_steps": ("01", "## 2. A soft lookup in three steps"),
    "hard_vs_soft": ("02", "## 2. Hard attention: pick, don't blend"),
    "nadaraya_watson_pooling": ("03", "## 2. Average pooling, then Nadaraya-Watson"),
    "leave_one_out": ("04", "## 2. Which keys does a training point see?"),
    "scoring_functions": ("05", "## 1. Five ways to score a key"),
    "encoder_decoder": ("06", "## 2. A context per output step"),
    "multi_head": ("07", "## 5. Multi-head attention"),
    "transformer_block": ("08", "## 1. The Transformer block"),
    "self_vs_cross": ("07", "## 1. Self-attention is attention pooling over the sequence itself"),
    "generation_loop": ("09", "## 4. Generation: a character model that writes"),
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


def laid_out(figure: Figure):
    """The renderer, once the figure is laid out (constrained layout, tick labels) as a saved PNG would be."""
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    return renderer


def overlapping_texts(figure: Figure, margin: float = 1.0, renderer=None) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes (in pixels, ``margin`` pixels of slack) overlap (``renderer``: ``laid_out``'s,
    when the figure was just laid out)."""
    renderer = renderer or laid_out(figure)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts(figure)]
    clashes = []
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        if (
            min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0) > margin
            and min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0) > margin
        ):
            clashes.append((a, b))
    return clashes


def outside(figure: Figure, renderer=None) -> list[str]:
    """Texts that stick out of the figure (they would be cut off)."""
    renderer = renderer or laid_out(figure)
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
    renderer = laid_out(figure)  # one layout for both checks
    assert not (clashes := overlapping_texts(figure, renderer=renderer)), f"{name}: overlapping labels {clashes}"
    assert not (cut := outside(figure, renderer=renderer)), f"{name}: labels cut off at the edge {cut}"


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


def test_hard_vs_soft_shows_every_score_and_weight_in_both_panels(drawn):
    labels = [t.get_text() for t in texts(drawn["hard_vs_soft"].figure)]
    for i, score in enumerate(lookup.LOOKUP_SCORES, start=1):
        assert labels.count(f"$k_{i}, v_{i}$: $\\alpha_{i} = {score:g}$") == 2, f"score alpha_{i} not in both panels"
    hard, soft = al.hard_attention(lookup.LOOKUP_SCORES), al.softmax(lookup.LOOKUP_SCORES)
    assert sorted(label for label in labels if re.fullmatch(r"\d\.\d\d", label)) == sorted(
        f"{weight:.2f}" for weight in [*hard, *soft]
    ), "each panel writes its four weights"


def box_around(figure: Figure, label: str) -> FancyBboxPatch:
    """The box drawn around the text ``label`` (in the Axes' inches)."""
    (ax,) = figure.axes
    (position,) = [t.get_position() for t in ax.texts if t.get_text() == label]
    (patch,) = [p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_bbox().contains(*position)]
    return patch


def test_the_encoder_decoder_predicts_y_t_from_s_t_and_c_t(drawn):
    figure = drawn["encoder_decoder"].figure
    (ax,) = figure.axes
    (to_read_out,) = [p for p in ax.patches if p.get_gid() == "c_t to read-out"]
    start, end = to_read_out._posA_posB  # matplotlib keeps an arrow's two ends here
    context = box_around(figure, r"$c_t = \sum_j \lambda_{tj}\, e_j$").get_bbox().expanded(1.05, 1.05)
    read_out = box_around(figure, r"read-out" + "\n" + r"$W_{\mathrm{out}}[s_t; c_t]$").get_bbox().expanded(1.05, 1.05)
    assert context.contains(*start) and read_out.contains(*end), "an arrow goes from c_t to the read-out"


def test_a_dashed_arrow_means_weight_0_in_every_diagram(drawn):
    unused = int((al.hard_attention(lookup.LOOKUP_SCORES) == 0).sum())  # keys with weight 0 in the hard panel
    for name, diagram in drawn.items():
        arrows = [p for ax in diagram.figure.axes for p in ax.patches if isinstance(p, FancyArrowPatch)]
        dashed = [p for p in arrows if p.get_linestyle() not in ("-", "solid")]
        assert len(dashed) == (2 * unused if name == "hard_vs_soft" else 0), f"{name}: dashed arrows carry weight 0"


def test_self_vs_cross_projects_in_both_panels_and_speaks_the_transformers_words(drawn):
    labels = [t.get_text() for t in texts(drawn["self_vs_cross"].figure)]
    assert labels.count("$Q = XW_q$") == 2, "the cross-attention queries are projected too"
    assert not [label for label in labels if "state" in label], "'states' is the RNN's word (notebook 06)"
    alt = diagrams.ALT_TEXT["self_vs_cross"]
    for claim in ("K = E W_k", "V = E W_v", "(n_queries, n_keys)", "one head", "additive score", "s_{t-1}"):
        assert claim in alt, f"the alt text should say {claim!r}"


def test_multi_head_names_its_five_steps_and_colours_roles_as_the_legend(drawn):
    figure = drawn["multi_head"].figure
    headings = [t.get_text() for t in texts(figure) if t.get_fontweight() == "bold"]
    assert headings == ["project", "split", "attend", "concatenate", "project ($W_o$)"]
    assert "five steps: project, split, attend, concatenate, project" in diagrams.ALT_TEXT["multi_head"]
    roles = {
        "$XW_q$": "query",
        "$XW_k$": "key",
        "$XW_v$": "value",
        "$Q_1$": "query",
        "$K_1$": "key",
        "$V_1$": "value",
        r"$\mathrm{head}_1$": "output",
        r"$\mathrm{MultiHead}(X)$": "output",
    }
    for label, role in roles.items():
        edge = box_around(figure, label).get_edgecolor()
        assert np.allclose(edge, to_rgba(diagrams._draw.ROLE[role])), f"{label} should be drawn in the {role} colour"


def test_the_transformer_blocks_alt_text_adds_the_ffn_output_to_the_sum():
    alt = diagrams.ALT_TEXT["transformer_block"]
    assert "the FFN's output is added to that sum" in alt and "around the layer norm and the sub-layer" in alt


def test_the_nadaraya_watson_curve_passes_through_every_stem_tip(drawn):
    bottom = drawn["nadaraya_watson_pooling"].figure.axes[1]
    (curve,) = [line for line in bottom.lines if line.get_gid() == "normalised kernel"]
    (stems,) = [c for c in bottom.collections if c.get_gid() == "weights"]
    grid, heights = (np.asarray(a, dtype=float) for a in curve.get_data())
    tips = [segment[np.argmax(segment[:, 1])] for segment in stems.get_segments()]  # (x_i, lambda_i) of each stem
    assert np.allclose([y for _, y in tips], lookup._nw_example()[2]), "the stems are the library's weights"
    for x, y in tips:
        (at,) = np.flatnonzero(grid == x)  # the curve is drawn at every key
        assert abs(heights[at] - y) < 1e-9, f"the stem at x = {x} ends at {y}, the curve passes at {heights[at]}"


def test_leave_one_out_draws_the_library_weights_of_both_sets_of_keys():
    lam_all, lam_loo = lookup._loo_example()
    i = lookup.LOO_POINT
    assert np.isclose(lam_all.sum(), 1.0) and np.isclose(lam_loo.sum(), 1.0)
    assert np.argmax(lam_all) == i, "with every key, the point's own key (distance 0) has the largest weight"
    # leaving one key out renormalises the others: their weights keep their ratios
    assert np.allclose(lam_loo, np.delete(lam_all, i) / (1 - lam_all[i]))
    alt = diagrams.ALT_TEXT["leave_one_out"]
    assert f"the largest weight, {lam_all[i]:.2f}" in alt
    assert f"the largest, {np.delete(lam_all, i).max():.2f}, becomes {lam_loo.max():.2f}" in alt


def test_the_course_map_names_every_notebook_in_order():
    numbers = sorted(path.name[:2] for path in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb") if path.name[:2] != "00")
    assert [number for number, *_ in course.NOTEBOOKS] == numbers


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
