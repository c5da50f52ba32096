"""The slide decks: slide metadata from the headings (``tools/slide_metadata.py``), the decks the site builds
(``tools/decks.py``: offline, lecture mode, live explorers), and a deck paged through in real Chromium."""

import contextlib
import hashlib
import json
import logging
import re

import matplotlib.pyplot as plt
import nbformat
import pytest
from helpers import (
    MATHS_DONE,
    MATHS_ERRORS,
    NOTEBOOKS,
    ROOT,
    ZH_NOTEBOOKS,
    axe_violations,
    console_errors,
    files_only,
)
from test_site_access import WCAG_21_AA

import attention_lab as al
from tools import slide_metadata
from tools.build_site import MATHJAX
from tools.decks import REVEAL, deck_html, deck_name, external_resources, has_marks, lecture_cells, lecture_slides

# the vendored reveal.js files (tools/vendor/reveal.js/README.md says where they come from)
REVEAL_FILES = {
    "dist/reveal.js": "46538b52db48724192f59bf46f5e851a18e302777c46f4a34c32709d010d6a29",
    "dist/reveal.css": "68f915a11ebf7203c0446576b7e952ff61c5dd02134a8a226ffaf62ed42136d2",
    "plugin/notes/notes.js": "df1201d19d03241a2897d39c3d38768177df1cbd4bde06327b321cb83461ae89",
}
# the vendored MathJax files (tools/vendor/mathjax/README.md): the fonts hashed together, in name order
MATHJAX_FILES = {
    "tex-chtml-full.js": "91b005503c5d1f0958bf4d73ada1a3be33596b2c4ab5da22277f1b0d3149b5a4",
    "ui/safe.js": "9fef48d868277a8bc1852f7ba796b33ead812d38916a7131b0a29ea48961a6a4",
    "fonts": "142f8a69d97768d841847e71af896961da33ffa0a500fe6b950c7f31c6334a92",
}
# the height in pixels of each formula on the slide shown; where the slides with maths are ([h, v] each)
SLIDE_MATHS_HEIGHTS = (
    "() => [...Reveal.getCurrentSlide().querySelectorAll('mjx-container')].map(c => c.getBoundingClientRect().height)"
)
SLIDES_WITH_MATHS = (
    "() => Reveal.getSlides().filter(s => s.querySelector('mjx-container'))"
    ".map(s => { const i = Reveal.getIndices(s); return [i.h, i.v || 0]; })"
)


def _markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code(source, tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)} if tags else {}, "source": source, "outputs": []}


# --- slide metadata ----------------------------------------------------------------------------------------------


def test_slide_types_follow_the_headings_and_skip_the_setup():
    cells = [
        _markdown("# 01 · Title\n\nWhat you will learn."),
        _code("# On Google Colab: ...", tags=["colab-setup"]),
        _code("import attention_lab as al\nal.use_course_style(lecture=False)"),
        _markdown("## 1. A section\n\nShort text."),
        _code("x = 1"),
        _markdown("### A subsection"),
        _code("\n".join(f"line_{i} = {i}" for i in range(40))),  # taller than a slide: a sub-slide of its own
        _code("y = 2"),
        _markdown("Not a heading, though it mentions ## in the middle."),
    ]
    assert slide_metadata.slide_types(cells) == [
        "slide",
        "skip",
        "skip",
        "slide",
        "-",
        "subslide",
        "subslide",
        "subslide",
        "-",
    ]


def test_cells_join_a_slide_until_it_is_full():
    cells = [_markdown("## Section"), *[_code("\n".join(["a = 1"] * 9)) for _ in range(4)]]
    kinds = slide_metadata.slide_types(cells)
    assert kinds[0] == "slide" and "subslide" in kinds[1:] and "-" in kinds[1:]
    heights = [slide_metadata.height(c) for c in cells]
    shown, used = [], 0
    for kind, tall in zip(kinds, heights, strict=True):  # every slide but one-cell slides stays within the budget
        used = tall if kind != "-" else used + tall
        shown.append(used)
    assert all(u <= slide_metadata.BUDGET for u, k in zip(shown, kinds, strict=True) if k == "-")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_carries_its_slide_metadata(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert not slide_metadata.differences(nb), f"run python -m tools.slide_metadata: {slide_metadata.differences(nb)}"
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in nb["cells"]]
    assert kinds[0] == "slide" and kinds.count("slide") >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_heading_starts_its_cell_so_every_section_starts_a_slide(path):
    """Slides start at a cell: a heading in the middle of a markdown cell would not start one."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    buried = [
        (index, line)
        for index, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()[1:]
        if re.match(r"#{1,3} ", line)
    ]
    assert not buried, f"headings inside a cell (split the cell there): {buried[:3]}"


def test_the_tool_writes_exactly_the_committed_notebooks_and_check_fails_without_them(tmp_path, capsys):
    original = NOTEBOOKS[1]
    nb = json.loads(original.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        cell["metadata"].pop("slideshow", None)
    copy_path = tmp_path / original.name
    copy_path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert slide_metadata.main(["--check", str(copy_path)]) == 1
    assert original.name in capsys.readouterr().err
    assert slide_metadata.main([str(copy_path)]) == 0
    assert copy_path.read_bytes() == original.read_bytes(), "the tool must write the notebook as committed"
    assert slide_metadata.main(["--check", str(copy_path)]) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["README.md"], "must be existing .ipynb files"),
        (["notebooks/missing.ipynb"], "must be existing .ipynb files"),
    ],
)
def test_the_tool_fails_in_one_line_on_bad_input(args, message, capsys):
    with pytest.raises(SystemExit) as raised:
        slide_metadata.main([str(ROOT / a) for a in args])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# --- lecture mode, the network, the vendored reveal.js -----------------------------------------------------------


def test_lecture_mode_draws_bold_text_without_a_font_warning(caplog):
    """Lecture mode's bold titles used to make matplotlib warn on stderr (no bold CJK face): decks run in it."""
    al.lecture_mode(True)
    try:
        with caplog.at_level(logging.WARNING, logger="matplotlib.font_manager"):
            fig, ax = plt.subplots()
            ax.set_title("attention 注意力", fontsize=17.3)  # a size no other test uses: findfont's cache is cold
            fig.canvas.draw()
            plt.close(fig)
    finally:
        al.lecture_mode(False)
    assert not [r for r in caplog.records if "Failed to find font" in r.getMessage()]


def test_external_resources_finds_what_would_load_from_the_network():
    page = (
        '<script src="https://unpkg.com/reveal.js/dist/reveal.js"></script><link rel="stylesheet" '
        'href="//cdn.example/x.css"><style>@import url(https://fonts.example/css);</style>'
        '<script type="module">import mermaid from "https://cdn.example/m.mjs";</script>'
        '<script src="reveal.js/dist/reveal.js"></script><a href="https://example.org">a link</a>'
    )
    assert external_resources(page) == [
        "https://unpkg.com/reveal.js/dist/reveal.js",
        "//cdn.example/x.css",
        "https://fonts.example/css",
        "https://cdn.example/m.mjs",
    ]


def test_decks_use_only_nbconvert_public_names_and_get_its_slide_structure():
    """The template names no private nbconvert class: its conf.json inherits the reveal template's preprocessors
    (which cell starts a slide, a sub-slide, a fragment). Run in every nox session, so across the supported
    nbconvert releases: the structure the decks rely on comes from the public template."""
    private = re.compile(r"nbconvert[\w.]*\._[A-Za-z]")
    sources = [p for p in (ROOT / "tools").rglob("*") if p.suffix in {".py", ".json", ".j2"}]
    assert not [p.name for p in sources if private.search(p.read_text(encoding="utf-8"))]
    conf = json.loads((ROOT / "tools" / "templates" / "course_reveal" / "conf.json").read_text(encoding="utf-8"))
    assert conf["base_template"] == "reveal" and "preprocessors" not in conf
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("## One", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("a sub-slide", metadata={"slideshow": {"slide_type": "subslide"}}),
        nbformat.v4.new_markdown_cell("same slide"),
        nbformat.v4.new_markdown_cell("never shown", metadata={"slideshow": {"slide_type": "skip"}}),
    ]
    deck = deck_html(nb, "probe")
    assert deck.count("<section") == 2 * 2 + 1 and "never shown" not in deck and "same slide" in deck


def test_the_vendored_reveal_js_is_the_registrys_with_its_licence():
    for name, digest in REVEAL_FILES.items():
        assert hashlib.sha256((REVEAL / name).read_bytes()).hexdigest() == digest, name
    assert "MIT" in (REVEAL / "README.md").read_text(encoding="utf-8")
    assert "Permission is hereby granted" in (REVEAL / "LICENSE").read_text(encoding="utf-8")


def test_the_vendored_mathjax_is_the_registrys_with_its_licence():
    def digest(*paths):
        return hashlib.sha256(b"".join(path.read_bytes() for path in paths)).hexdigest()

    fonts = sorted((MATHJAX / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert len(fonts) == 23
    assert digest(MATHJAX / "tex-chtml-full.js") == MATHJAX_FILES["tex-chtml-full.js"]
    assert digest(MATHJAX / "ui" / "safe.js") == MATHJAX_FILES["ui/safe.js"]
    assert digest(*fonts) == MATHJAX_FILES["fonts"]
    assert "Apache License 2.0" in (MATHJAX / "README.md").read_text(encoding="utf-8")
    assert "Apache License" in (MATHJAX / "LICENSE").read_text(encoding="utf-8")


# --- the decks of the built site -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(built_site):
    return built_site[0]


def test_the_site_has_a_deck_per_notebook_linked_from_the_index(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert (site / deck_name(path.stem)).is_file(), path.name
        assert f'href="{deck_name(path.stem)}"' in index
    assert (site / "reveal.js" / "dist" / "reveal.js").is_file()
    assert (site / "reveal.js" / "dist" / "theme" / "course.css").is_file()


def test_the_zh_edition_has_a_deck_per_zh_notebook_sharing_reveal_js(site):
    assert ZH_NOTEBOOKS, "the Chinese edition's notebooks (notebooks/zh/)"
    for path in ZH_NOTEBOOKS:
        deck = (site / "zh" / deck_name(path.stem)).read_text(encoding="utf-8")
        assert '<html lang="zh-CN"' in deck and 'src="../reveal.js/dist/reveal.js"' in deck
        assert 'src="../mathjax/tex-chtml-full.js"' in deck and not external_resources(deck)
        assert not re.search(r'href="(?!https?:)[^"]*\.ipynb', deck), "links to notebooks open their decks"
        assert f'href="../{deck_name(path.stem)}"' in deck, "the launch block's English twin: its deck"
        for frame in re.findall(r'src="\.\./(frames/[0-9a-f]+\.png)"', deck):
            assert (site / frame).is_file()
    assert not (site / "zh" / "reveal.js").exists(), "one copy of reveal.js for both editions"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_each_deck_is_offline_in_lecture_mode_with_its_slides_figures_and_explorers(site, path, record_property):
    deck = (site / deck_name(path.stem)).read_text(encoding="utf-8")
    record_property("deck_mb", round(len(deck.encode("utf-8")) / 1e6, 2))
    assert not external_resources(deck), f"loads from the network: {external_resources(deck)[:3]}"
    assert 'src="reveal.js/dist/reveal.js"' in deck and 'href="reveal.js/dist/reveal.css"' in deck
    assert 'src="mathjax/tex-chtml-full.js"' in deck and "Reveal.initialize" in deck
    nb = lecture_cells(nbformat.read(path, as_version=4))  # what a deck shows: no check, no Going further
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in nb.cells]
    # a slide is a <section> holding a <section> per sub-slide, its first part included; a lecture deck condensed
    # from marks has one slide per mark that starts one (tests/repository/test_lecture_decks.py)
    lang = "zh" if path.parent.name == "zh" else "en"
    expected = (
        2 * len(lecture_slides(nb, lang)) if has_marks(nb, lang) else 2 * kinds.count("slide") + kinds.count("subslide")
    )
    assert deck.count("<section") == expected
    assert "On Google Colab" not in deck, "the set-up cells are skipped"
    page = (site / f"{path.stem}.html").read_text(encoding="utf-8")
    further = any("going-further" in c.metadata.get("tags", []) for c in nbformat.read(path, as_version=4).cells)
    live = deck.count('class="live-explorer"')
    condensed = further or has_marks(nb, "en")  # a lecture deck shows the explorers its marks name
    assert live <= page.count('class="live-explorer"') if condensed else live == page.count('class="live-explorer"')
    for frame in re.findall(r'src="(frames/[0-9a-f]+\.png)"', deck):
        assert (site / frame).is_file()
    assert "Traceback" not in deck
    assert not re.search(r'href="(?!https?:)[^"]*\.ipynb', deck), "links to notebooks open their decks"
    if path.stem != "00_start_here":
        assert deck.count("<img") >= 2


# --- in real Chromium, from disk -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _deck_page(chromium):
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    try:
        yield page
    finally:
        page.close()


def test_a_deck_pages_with_the_keyboard_offline_in_chromium(site, chromium):
    deck = site / deck_name("01_queries_keys_values")
    with _deck_page(chromium) as page:
        outside, errors = files_only(page), console_errors(page)
        page.goto(deck.as_uri(), wait_until="load")
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=30_000)
        page.wait_for_function(MATHS_DONE, timeout=30_000)  # MathJax typesets every slide, the hidden ones too
        total = page.evaluate("Reveal.getTotalSlides()")
        assert total >= 10
        seen, fragments = [], page.evaluate("document.querySelectorAll('.fragment').length")
        shown = "() => [Reveal.getSlidePastCount(), document.querySelectorAll('.fragment.visible').length]"
        for _ in range(total - 1 + fragments):
            before = page.evaluate(shown)
            page.keyboard.press("ArrowRight")  # the next slide, or the next fragment (a question's answer)
            page.wait_for_function(
                f"b => ({shown})()[0] === b[0] + 1 || ({shown})()[1] === b[1] + 1", arg=before, timeout=5_000
            )
            seen.append(page.evaluate("Reveal.getSlidePastCount()"))
        assert sorted(set(seen)) == list(range(1, total)) and seen == sorted(seen), "ArrowRight walks the whole deck"
        assert page.evaluate(shown)[1] == fragments, "every answer shown on the way"
        assert page.evaluate("Reveal.isLastSlide()")
        # a jump (the overview, a slide number typed in the URL) to a slide with maths shows it typeset at its size,
        # though the slide was hidden when MathJax typeset it (MathJax 2 drew such slides at zero size)
        with_maths = page.evaluate(SLIDES_WITH_MATHS)
        assert len(with_maths) >= 3, with_maths
        for h, v in (with_maths[0], with_maths[len(with_maths) // 2], with_maths[-1]):
            page.evaluate("([h, v]) => Reveal.slide(h, v)", [h, v])
            assert page.evaluate("[Reveal.getIndices().h, Reveal.getIndices().v]") == [h, v]
            heights = page.evaluate(SLIDE_MATHS_HEIGHTS)
            assert heights and all(height >= 10 for height in heights), ((h, v), heights)
        assert page.evaluate(MATHS_ERRORS) == 0, "MathJax could not typeset some maths"
        # a live explorer: its slider takes the arrow keys while focused, and the slide stays
        root = page.locator(".live-explorer").first
        page.evaluate(
            "el => Reveal.slide(...Object.values(Reveal.getIndices(el.closest('section'))))", root.element_handle()
        )
        slide = page.evaluate("Reveal.getSlidePastCount()")
        frame = root.get_attribute("data-frame")
        root.locator("input[type=range]").first.focus()
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("r => r.dataset.shown === r.dataset.frame", arg=root.element_handle())
        assert root.get_attribute("data-frame") != frame, "the slider moved the explorer's picture"
        assert page.evaluate("Reveal.getSlidePastCount()") == slide, "the slide stayed while the slider moved"
    assert not outside, f"requests left the deck: {outside[:5]}"
    assert not errors, f"console errors: {errors[:5]}"


DECKS = [*NOTEBOOKS, *ZH_NOTEBOOKS]  # each edition's decks: zh/NAME.slides.html for notebooks/zh/NAME.ipynb


@pytest.mark.parametrize("path", DECKS, ids=[("zh/" if p.parent.name == "zh" else "") + p.stem for p in DECKS])
def test_deck_has_no_wcag_21_aa_violation_and_no_console_error(site, path, record_property, chromium):
    """Every slide at once: reveal.js's print layout (``?print-pdf``) shows them all, so axe-core sees each."""
    folder = site / "zh" if path.parent.name == "zh" else site
    with _deck_page(chromium) as page:
        errors = console_errors(page)
        page.goto((folder / deck_name(path.stem)).as_uri() + "?print-pdf", wait_until="load")
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=30_000)
        page.wait_for_function(MATHS_DONE, timeout=60_000)
        page.wait_for_timeout(500)  # late font and frame loads report their errors by now
        shown = page.evaluate("document.querySelectorAll('.pdf-page').length")
        # preload=False: axe cannot fetch the deck's style sheets from file:// (it would log that as an error)
        version, violations = axe_violations(page, WCAG_21_AA, preload=False)
        math_errors = page.evaluate(MATHS_ERRORS)
    record_property("axe_violations", len(violations))
    record_property("console_errors", len(errors))
    nb = lecture_cells(nbformat.read(path, as_version=4))  # what a deck shows: no check, no Going further
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in nb.cells]
    lang = "zh" if path.parent.name == "zh" else "en"
    slides = len(lecture_slides(nb, lang)) if has_marks(nb, lang) else kinds.count("slide") + kinds.count("subslide")
    assert shown >= slides, "every slide laid out for axe to see"
    assert version.startswith("4."), "axe-core 4 (WCAG 2.1 rules)"
    assert not violations, f"axe-core {version} finds: " + "; ".join(violations)
    assert not errors, f"console errors from file://: {errors[:5]}"
    assert math_errors == 0, "MathJax could not typeset some math"
