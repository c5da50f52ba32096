"""The lecture decks' marks (``tools/decks.py``): a deck condensed from the notebook's own cells, whose slides
fail the build when their source text changes and they do not; notes, minutes, questions."""

import copy
from html.parser import HTMLParser

import nbformat
import pytest
from helpers import NOTEBOOKS, ZH_NOTEBOOKS

from tools import decks


def _lang(path):
    return "zh" if path.parent.name == "zh" else "en"


MARKED = [p for p in [*NOTEBOOKS, *ZH_NOTEBOOKS] if decks.has_marks(nbformat.read(p, as_version=4), _lang(p))]
IDS = [("zh/" if p.parent.name == "zh" else "") + p.stem for p in MARKED]


def _lecture(path):
    return decks.lecture_cells(nbformat.read(path, as_version=4))


def _first_shown(nb):
    """The first cell with a mark that shows a phrase of it, and that phrase."""
    for cell in nb.cells:
        for mark in decks.cell_marks(cell):
            for phrase in mark.get("show", []):
                if not phrase.startswith("$"):
                    return cell, mark, phrase
    raise AssertionError("no marked phrase")


def _notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def _markdown(source, marks):
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata["lecture"] = {"en": marks}
    return cell


def test_some_decks_are_condensed_from_marks():
    assert MARKED, "no notebook carries lecture marks"


@pytest.mark.parametrize("path", MARKED, ids=IDS)
def test_every_mark_finds_its_text_and_the_lecture_makes_50_and_90_minutes(path):
    """The drift test: a slide's phrase, code or formula its cell no longer holds fails here (and the site build)."""
    assert decks.mark_problems(_lecture(path), path.name, _lang(path)) == []


@pytest.mark.parametrize("path", MARKED, ids=IDS)
def test_every_slide_has_a_title_notes_and_at_most_12_lines_of_code(path):
    slides = decks.lecture_slides(_lecture(path), _lang(path))
    assert len(slides) >= 8
    for slide in slides:
        assert slide["title"] and " ".join(slide["notes"]).strip(), slide["title"]
        code = [part[1] for part in slide["parts"] if part[0] == "code"]
        assert sum(len(c.splitlines()) for c in code) <= decks.CODE_LINES, slide["title"]
    assert sum(s["minutes"] for s in slides if not s["extension"]) == decks.CORE_MINUTES
    assert sum(s["minutes"] for s in slides) == decks.FULL_MINUTES


def test_a_changed_sentence_fails_until_its_slide_changes_and_the_slide_shows_the_new_text():
    nb = _lecture(MARKED[0])
    cell, mark, phrase = _first_shown(nb)
    words = phrase.split()
    changed = " ".join([*words[:-1], "CHANGED", words[-1]])
    edited = copy.deepcopy(nb)
    target = next(c for c in edited.cells if c.get("id") == cell.get("id"))
    target.source = decks._source_text(cell).replace(phrase, changed) if phrase in cell.source else None
    assert target.source and changed in target.source, "the phrase is in the cell as written"
    problems = decks.mark_problems(edited)
    assert any(cell.get("id") in p and "not in the cell" in p for p in problems), problems
    # the author changes the mark with the text: the slide shows the new sentence
    marks = copy.deepcopy(decks.cell_marks(target))
    for m in marks:
        m["show"] = [changed if p == phrase else p for p in m.get("show", [])]
    target.metadata["lecture"] = {"en": marks}
    assert decks.mark_problems(edited) == []
    deck = decks.lecture_notebook(edited)
    assert any(changed in c.source for c in deck.cells if c.cell_type == "markdown")


def test_a_phrase_matches_across_line_breaks_and_part_of_a_formula_is_allowed():
    source = "Intro line.\nA sentence that the author\nwrapped.\n\n$$a = b + c, \\qquad d = e.$$"
    cell = _markdown(
        source,
        [dict(title="T", notes="say", minutes=50, show=["A sentence that the author wrapped.", "$$a = b + c,$$"])],
    )
    cell.metadata["lecture"]["en"][0]["minutes"] = 50
    extra = _markdown("More.", [dict(title="U", notes="say", minutes=40, extension=True, show=["More."])])
    assert decks.mark_problems(_notebook(cell, extra)) == []
    cell.metadata["lecture"]["en"][0]["show"] = ["$$a = b - c,$$"]
    assert any("not in the cell" in p for p in decks.mark_problems(_notebook(cell, extra)))


def test_the_deck_has_notes_on_every_slide_the_plan_first_and_the_answer_on_a_fragment():
    nb = _notebook(
        _markdown(
            "# Title\n\nThe one idea.",
            [dict(title="Title", show=["The one idea."], notes="Say the idea.", minutes=20)],
        ),
        _markdown(
            "## 1. A section\n\nWhich is larger, 2 or 3?",
            [
                dict(
                    title="Predict",
                    show=["Which is larger, 2 or 3?"],
                    question=dict(choices=["2", "3"], answer="B, 3", why="3 > 2."),
                    notes="Vote first.",
                    minutes=30,
                ),
                dict(title="More", show=["A section"], notes="Only in the long lecture.", minutes=40, extension=True),
            ],
        ),
    )
    assert decks.mark_problems(nb) == [] and not decks.has_marks(nb, "zh")
    deck = decks.lecture_notebook(nb)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in deck.cells]
    assert kinds.count("slide") == 3 and kinds.count("notes") == 3
    fragment = deck.cells[kinds.index("fragment")]
    assert "B, 3" in fragment.source and "3 &gt; 2." in fragment.source  # shown as written, not a tag
    notes = [c.source for c in deck.cells if c.metadata["slideshow"]["slide_type"] == "notes"]
    assert "50 min" in notes[0] and "+40 min" in notes[0] and "Say the idea." in notes[0]
    assert "1\\. A section: 30 min (+40 min)" in notes[0]
    assert notes[2].startswith("*(40 min)* EXTENSION") and "Only in the long lecture." in notes[2]
    html = decks.deck_html(deck, "probe", lecture=True)
    assert html.count('<aside class="notes">') == 3 and "plugin/notes/notes.js" in html
    assert '<div class="reveal lecture">' in html and "RevealNotes" in html


@pytest.mark.parametrize(
    "mark, problem",
    [
        (dict(title="T", notes="n", minutes=50, code="x = 1\n" * 13), "13 lines of code"),
        (dict(title="T", minutes=50, show=["The one idea."]), "has no speaker notes"),
        (dict(title="T", notes="n", minutes=50, show=["The one idea. " * 25]), "words on the slide"),
        (dict(title="T", notes="n", minutes=-1), "minutes must be a number >= 0"),
        (dict(title="T", notes="n", minutes=45), "make 45 (core)"),
        (dict(join="Nowhere", notes="n", minutes=50), "joins a slide no earlier mark starts"),
    ],
)
def test_a_mark_that_breaks_a_rule_is_named(mark, problem):
    source = "The one idea. " * 25 + ("\n" + "x = 1\n" * 13)
    cell = _markdown(source, [mark])
    if "code" in mark:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["lecture"] = {"en": [mark]}
    extra = _markdown("More.", [dict(title="U", notes="say", minutes=40, extension=True)])
    problems = decks.mark_problems(_notebook(cell, extra))
    assert any(problem in p for p in problems), problems


def test_a_figure_slide_shows_the_figure_not_what_the_cell_prints():
    cell = nbformat.v4.new_code_cell("print(1)\nplt.show()")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
    ]
    cell.metadata["lecture"] = {"en": [dict(title="A figure", output=True, notes="Point.", minutes=50)]}
    extra = _markdown("More.", [dict(title="U", notes="say", minutes=40, extension=True)])
    deck = decks.lecture_notebook(_notebook(cell, extra))
    shown = [c for c in deck.cells if c.cell_type == "code"]
    assert len(shown) == 1 and [o.output_type for o in shown[0].outputs] == ["display_data"]
    assert decks.OUTPUT_ONLY_TAG in shown[0].metadata["tags"]


class _Nesting(HTMLParser):
    """Each ``<aside class="notes">`` of a deck's HTML with the classes of the elements around it, and the text
    of each ``<li>`` the notes hold."""

    VOID = {"br", "img", "hr", "input", "meta", "link", "source", "wbr", "col", "area", "base", "embed", "track"}

    def __init__(self):
        super().__init__()
        self.open, self.notes, self.items = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = dict(attrs).get("class") or ""
        if tag == "aside" and "notes" in classes.split():
            self.notes.append([c for _, c in self.open])
        if tag == "li" and any(t == "aside" for t, _ in self.open):
            self.items.append("")
        self.open.append((tag, classes))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self.items and any(t == "li" for t, _ in self.open):
            self.items[-1] += data


def _question_deck():
    return _notebook(
        _markdown(
            "## 1. A section\n\nWhich is larger, 2 or 3?",
            [
                dict(
                    title="Predict",
                    show=["Which is larger, 2 or 3?"],
                    question=dict(choices=["2", "3"], answer="B, 3", why="3 > 2 & <bos> < 4."),
                    notes="Vote first. The decoder starts from <bos> & reads `<eos>` and $a < b$.",
                    minutes=50,
                ),
                dict(title="More", show=["A section"], notes="Later.", minutes=40, extension=True),
            ],
        )
    )


def _parsed(nb):
    parser = _Nesting()
    parser.feed(decks.deck_html(decks.lecture_notebook(nb), "probe", lecture=True))
    return parser


def test_a_question_slides_notes_are_in_the_speaker_view_before_the_answer():
    """reveal.js's speaker view shows a slide's notes only if they are outside its fragments (B1)."""
    parser = _parsed(_question_deck())
    assert len(parser.notes) == 2
    assert not any("fragment" in classes.split() for around in parser.notes for classes in around)


def test_notes_show_angle_brackets_and_ampersands_as_written():
    deck = decks.lecture_notebook(_question_deck())
    html = decks.deck_html(deck, "probe", lecture=True)
    assert "from &lt;bos&gt; &amp; reads" in html and "<bos>" not in html
    assert "&lt;eos&gt;</code>" in html, "a code span shows its text once, not escaped twice"
    assert "2 &amp; &lt;bos&gt; &lt; 4" in html


def test_the_plan_lists_each_section_as_one_bullet_with_its_name():
    """A section named "1. A section" must not become an empty bullet around a numbered list (B5)."""
    parser = _parsed(_question_deck())
    assert [item.strip() for item in parser.items] == ["1. A section: 50 min (+40 min)"]


def test_a_result_printed_beside_a_figure_gets_a_slide_of_its_own():
    cell = nbformat.v4.new_code_cell("print(1)\nplt.show()")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="exact match 97.0%\n"),
        nbformat.v4.new_output("stream", name="stderr", text="a warning\n"),
        nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
    ]
    cell.metadata["lecture"] = {
        "en": [
            dict(title="A figure", output=True, notes="Point.", minutes=30),
            dict(title="Its numbers", output="printed", notes="Read them.", minutes=20),
        ]
    }
    extra = _markdown("More.", [dict(title="U", notes="say", minutes=40, extension=True)])
    nb = _notebook(cell, extra)
    assert decks.mark_problems(nb) == []
    shown = [c for c in decks.lecture_notebook(nb).cells if c.cell_type == "code"]
    assert [[o.output_type for o in c.outputs] for c in shown] == [["display_data"], ["stream"]]
    assert shown[1].outputs[0].text == "exact match 97.0%\n"
    cell.metadata["lecture"]["en"][1]["output"] = "text"
    assert any("output must be true or 'printed'" in p for p in decks.mark_problems(nb))


def test_the_plan_names_a_section_up_to_its_subtitle():
    nb = _notebook(
        _markdown(
            "## 2. Bias and variance: what $h$ trades\n\nOne.", [dict(title="T", show=["One."], notes="n", minutes=50)]
        ),
        _markdown("## 3. A context (Bahdanau, 2015)\n\nTwo.", [dict(title="U", notes="n", minutes=40, extension=True)]),
    )
    plan = decks.lecture_plan(decks.lecture_slides(nb))
    assert "- 2\\. Bias and variance: 50 min\n- 3\\. A context: 0 min (+40 min)" in plan
