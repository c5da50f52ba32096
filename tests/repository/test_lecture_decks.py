"""The lecture decks condensed from marks (``tools/decks.py``), in real Chromium, from the built site on disk:
every slide at 1280x720 fits (nothing scrolls, nothing crosses the slide's edge or is cut off), its text is
at least 24 px as shown, it holds at most 12 lines of code and about 60 words and it has speaker notes; at
1920x1080 it still fits; the speaker view opens offline with S; the PDF has one page per slide."""

import contextlib

import nbformat
import pytest
from helpers import NOTEBOOKS, ZH_NOTEBOOKS, console_errors

from tools import decks


def _lang(path):
    return "zh" if path.parent.name == "zh" else "en"


MARKED = [p for p in [*NOTEBOOKS, *ZH_NOTEBOOKS] if decks.has_marks(nbformat.read(p, as_version=4), _lang(p))]
IDS = [("zh/" if p.parent.name == "zh" else "") + p.stem for p in MARKED]
MIN_TEXT_PX, MAX_WORDS = 24, 60
SLIDE_INDICES = "() => Reveal.getSlides().map(s => { const i = Reveal.getIndices(s); return [i.h, i.v || 0]; })"


def _deck(site, path):
    return (site / "zh" if path.parent.name == "zh" else site) / decks.deck_name(path.stem)


@contextlib.contextmanager
def _opened(chromium, deck, width=1280, height=720):
    """The deck in a page of ``width`` x ``height`` that may load only files; yields (page, requests refused)."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    outside = []

    def route(request_route):
        if request_route.request.url.startswith(("file://", "data:", "about:")):
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    try:
        page.goto(deck.as_uri(), wait_until="load")
        page.wait_for_function(decks.TYPESET, timeout=60_000)
        yield page, outside
    finally:
        context.close()


def audit_deck(page) -> list[str]:
    """Every slide of the deck open in ``page`` measured by ``decks.SLIDE_AUDIT``; what breaks a rule, one line
    per slide (also used by hand: ``tests/repository/test_lecture_decks.py`` has no other state)."""
    found = []
    for h, v in page.evaluate(SLIDE_INDICES):
        page.evaluate("([h, v]) => Reveal.slide(h, v)", [h, v])
        page.wait_for_function(
            "([h, v]) => Reveal.getIndices().h === h && (Reveal.getIndices().v || 0) === v", arg=[h, v]
        )
        page.wait_for_timeout(50)  # the slide's images laid out
        a = page.evaluate(decks.SLIDE_AUDIT)
        broken = [
            "scrolls" if a["scrolls"] else "",
            f"crosses the edge: {a['crossing']}" if a["crossing"] else "",
            f"text {a['smallest']:.1f} px" if a["smallest"] is not None and a["smallest"] < MIN_TEXT_PX else "",
            f"{a['code_lines']} lines of code" if a["code_lines"] > decks.CODE_LINES else "",
            f"{a['words']} words" if a["words"] > MAX_WORDS else "",
            "no notes" if not a["notes"] else "",
        ]
        if any(broken):
            found.append(f"slide {h + 1}: " + ", ".join(b for b in broken if b))
    return found


@pytest.mark.parametrize("path", MARKED, ids=IDS)
def test_every_slide_fits_at_1280x720_in_large_text_with_notes(built_site, chromium, path):
    with _opened(chromium, _deck(built_site[0], path)) as (page, outside):
        errors = console_errors(page)
        assert page.evaluate("Reveal.getTotalSlides()") == len(
            decks.lecture_slides(decks.lecture_cells(nbformat.read(path, as_version=4)), _lang(path))
        )
        broken = audit_deck(page)
    assert not broken, "\n".join(broken)
    assert not outside and not errors, (outside[:3], errors[:3])


@pytest.mark.parametrize("path", MARKED, ids=IDS)
def test_every_slide_fits_at_1920x1080(built_site, chromium, path):
    with _opened(chromium, _deck(built_site[0], path), 1920, 1080) as (page, _):
        broken = [line for line in audit_deck(page) if "scrolls" in line or "crosses" in line]
    assert not broken, "\n".join(broken)


def test_the_speaker_view_opens_offline_with_s_and_shows_the_notes(built_site, chromium, tmp_path):
    deck = _deck(built_site[0], MARKED[0])
    with _opened(chromium, deck) as (page, outside):
        first_notes = page.evaluate("Reveal.getSlideNotes(Reveal.getSlides()[0])")
        assert "50" in first_notes and "90" in first_notes, "the plan, in the first slide's notes"
        with page.expect_popup() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        speaker.wait_for_selector(".speaker-controls-notes", timeout=30_000)
        speaker.wait_for_function(
            "() => document.querySelector('.speaker-controls-notes .value')?.textContent.trim().length > 20",
            timeout=30_000,
        )
        shown = speaker.inner_text(".speaker-controls-notes .value")
        page.keyboard.press("ArrowRight")
        speaker.wait_for_function(
            "t => document.querySelector('.speaker-controls-notes .value').innerText !== t", arg=shown, timeout=10_000
        )
        assert speaker.locator("iframe").count() >= 2, "the current and the upcoming slide"
        speaker.screenshot(path=str(tmp_path / "speaker-view.png"))
    assert "Plan" in shown or "计划" in shown
    assert not outside, f"requests left the deck: {outside[:3]}"


@pytest.mark.parametrize("path", MARKED[:1], ids=IDS[:1])
def test_the_pdf_has_one_page_per_slide_and_the_notes_pdf_a_notes_page_each(built_site, chromium, path, tmp_path):
    deck = _deck(built_site[0], path)
    with _opened(chromium, deck) as (page, _):
        total = page.evaluate("Reveal.getTotalSlides()")
        slides = decks.deck_pdf(page, deck, target=tmp_path / "slides.pdf")
        with_notes = decks.deck_pdf(page, deck, notes=True, target=tmp_path / "notes.pdf")
    assert decks.pdf_pages(slides) == total
    assert decks.pdf_pages(with_notes) >= 2 * total


def test_a_clicker_turns_the_slide_after_a_drag_on_a_slider(chromium, tmp_path):
    """After the mouse lets go of a slider on a slide, ArrowRight and PageDown (what a presenter's clicker sends)
    turn the slide and leave the slider's value alone (B3)."""
    cell = nbformat.v4.new_code_cell("explorer")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"text/html": '<input type="range" min="0" max="10" value="5" id="h">'}
        )
    ]
    cell.metadata["lecture"] = {"en": [dict(title="Explore", output=True, notes="Drag h.", minutes=50)]}
    more = nbformat.v4.new_markdown_cell("More.\n\nAnd more.")
    more.metadata["lecture"] = {
        "en": [
            dict(title="Next", show=["More."], notes="n", minutes=0),
            dict(title="Last", show=["And more."], notes="n", minutes=40, extension=True),
        ]
    }
    decks.copy_reveal(tmp_path)
    deck = tmp_path / "probe.slides.html"
    nb = decks.lecture_notebook(nbformat.v4.new_notebook(cells=[cell, more]))
    deck.write_text(decks.deck_html(nb, "probe", lecture=True), encoding="utf-8")
    with _opened(chromium, deck) as (page, _):
        slider = page.locator("#h")
        box = slider.bounding_box()
        page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
        page.mouse.up()
        dragged = slider.input_value()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => Reveal.getIndices().h === 1", timeout=5_000)
        page.keyboard.press("PageDown")
        page.wait_for_function("() => Reveal.getIndices().h === 2", timeout=5_000)
        assert slider.input_value() == dragged != "5"
