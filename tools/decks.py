"""The notebooks as reveal.js slide decks, for a lecture: written by ``build_site.py`` beside the pages.

Each deck comes from the page's own run of the notebook (no second execution): its figures are the
lecture-style pictures that run drew beside the page's (``lecture_figures.py``: the projector style of
``plots.lecture_mode``), and its check cells and "Going further" sections are left out. It is exported by
nbconvert's SlidesExporter with the template in ``templates/course_reveal`` as ``NAME.slides.html``. Which cell starts a
slide is the notebook's own ``slideshow`` metadata (``slide_metadata.py``). Explorers stay live as in the
pages, with the pages' frames and script (``live_pages.py``), enlarged to the slide's width: drawn in the
normal style, in the layout they were designed for (lecture mode's larger fonts crowd their fixed pixel
size). A slider reached with Tab keeps the arrow keys while it has the focus; after a drag with the mouse the
focus goes back to the deck, so a presenter's clicker (ArrowRight, PageDown) turns the slide.

Offline like the pages: reveal.js is the copy in ``vendor/reveal.js`` (two files, MIT, see its README),
served from ``OUTDIR/reveal.js`` with the course's own small theme (no web fonts); math is the site's
MathJax; links to other notebooks open their decks. Keys: arrows or space to move, Esc for the overview,
F for full screen.
"""

from __future__ import annotations

import copy
import html
import re
import shutil
import textwrap
from pathlib import Path

from attention_lab.plots import CJK_FONT
from tools import live_pages, site_kit
from tools.execute import Executed
from tools.lecture_figures import MIME as LECTURE_PNG

__all__ = [
    "REVEAL",
    "THEME",
    "deck_name",
    "index_link",
    "lecture_run",
    "lecture_cells",
    "copy_reveal",
    "deck_html",
    "write_decks",
    "deck_exporter",
    "external_resources",
    "LECTURE_KEY",
    "cell_marks",
    "has_marks",
    "mark_problems",
    "lecture_slides",
    "lecture_plan",
    "lecture_notebook",
]

TOOLS = Path(__file__).resolve().parent
REVEAL = TOOLS / "vendor" / "reveal.js"
TEMPLATES = TOOLS / "templates"
REVEAL_FOLDER = "reveal.js"  # in the site

# The decks' theme: reveal.js's white theme without its web fonts, the course's colours, the course's CJK font
# for Chinese, and slides that scroll when a notebook cell is taller than the screen.
THEME = """/* the course's reveal.js theme (tools/decks.py) */
@font-face{font-family:"Course CJK";src:url("course-cjk.ttf") format("truetype")}
:root{--r-background-color:#fff;--r-main-color:#111;--r-heading-color:#111;--r-link-color:#0072B2;
--r-link-color-hover:#005a8c;--r-selection-background-color:#E69F00;--r-main-font-size:28px}
.reveal-viewport{background:#fff}
.reveal{font-family:"DejaVu Sans",system-ui,Arial,sans-serif,"Course CJK";color:#111}
.reveal .slides{text-align:left}
.reveal .slides section:not(.stack){height:100%;overflow-y:auto;overflow-x:hidden;box-sizing:border-box;
padding:0 .4em .6em}
.reveal a{color:#0072B2}
.reveal .progress{color:#0072B2;height:6px}
.reveal .controls{color:#0072B2}
.reveal .slide-number{font-size:18px;background:#0072B2}
.reveal img{max-width:100%;height:auto}
.reveal .live-figure{width:100%}
.reveal .jp-RenderedMarkdown h1,.reveal .jp-RenderedMarkdown h2{font-size:1.6em;margin:.2em 0 .4em}
.reveal .jp-RenderedMarkdown h3{font-size:1.25em}
.reveal .jp-InputPrompt,.reveal .jp-OutputPrompt{display:none}
/* the lecture decks condensed from marks: one idea a slide at 1280x720, text >= 24 px as shown, nothing scrolls */
.reveal.lecture{--jp-content-font-size1:31px;--jp-code-font-size:25px;--jp-content-line-height:1.35;
--jp-code-line-height:1.3}
.reveal.lecture .slides section:not(.stack){overflow:hidden;padding:0 .5em}
.reveal.lecture .jp-RenderedMarkdown,.reveal.lecture .jp-RenderedMarkdown p,.reveal.lecture .jp-RenderedMarkdown li,
.reveal.lecture .jp-RenderedMarkdown td,.reveal.lecture .jp-RenderedMarkdown th{font-size:31px;line-height:1.35}
.reveal.lecture .jp-RenderedMarkdown p{margin:.3em 0}
.reveal.lecture .jp-RenderedMarkdown h2{font-size:44px;margin:.25em 0 .35em;font-weight:bold}
.reveal.lecture .jp-RenderedMarkdown table{margin:.3em 0}
.reveal.lecture .jp-RenderedMarkdown td,.reveal.lecture .jp-RenderedMarkdown th{padding:.15em .6em}
.reveal.lecture .jp-InputArea pre,.reveal.lecture .jp-RenderedText pre{font-size:25px;line-height:1.3;
white-space:pre-wrap;overflow-wrap:anywhere}
.reveal.lecture .jp-RenderedText pre{margin:0}
.reveal.lecture .jp-InputArea pre,.reveal.lecture .jp-RenderedText pre,.reveal.lecture code{font-family:
"DejaVu Sans Mono",SFMono-Regular,Menlo,Consolas,monospace,"Course CJK"}
.reveal.lecture .jp-OutputArea-output img{max-height:440px;width:auto;max-width:100%;display:block;margin:.2em auto}
.reveal.lecture .fragment.visible{background:#fff4d6;border-left:6px solid #E69F00;padding-left:.4em}
.reveal.lecture .live-explorer{font-size:26px}
.reveal.lecture .live-controls{font-size:26px;margin:.1em 0 .2em}
.reveal.lecture .live-controls select{font-size:24px}
.reveal.lecture .live-controls input[type=range]{width:340px;height:28px}
.reveal.lecture .jp-OutputArea-output img.live-figure{width:100%;height:auto;max-height:520px;object-fit:contain}
.reveal.lecture .live-note{display:none}
:root{--jp-content-font-family:system-ui,-apple-system,"Segoe UI",helvetica,arial,sans-serif,"Course CJK";
--jp-ui-font-family:system-ui,-apple-system,"Segoe UI",helvetica,arial,sans-serif,"Course CJK"}
"""

MATHJAX_URL = site_kit.MATHJAX_URL  # the site's copy of MathJax, as the pages use it


def deck_name(stem: str) -> str:
    return f"{stem}.slides.html"


def index_link(stem: str, pdf: bool = False) -> str:
    """The link to a notebook's deck, for the site's index; ``pdf``: and to its PDFs (slides, with notes)."""
    link = f' · <a href="{html.escape(deck_name(stem))}">slides</a>'
    if pdf:
        deck = Path(deck_name(stem))
        link += f' (<a href="{pdf_name(deck).name}">PDF</a>, <a href="{pdf_name(deck, True).name}">PDF with notes</a>)'
    return link


def lecture_cells(nb, *, going_further: bool = False):
    """``nb`` with what a lecture leaves out dropped, in place: check cells (tagged ``check``) always, and the
    "Going further" sections (cells tagged ``going-further``) unless ``going_further``."""
    left_out = {site_kit.CHECK_TAG} | (set() if going_further else {site_kit.FURTHER_TAG})
    nb.cells = [c for c in nb.cells if not left_out & set(c.get("metadata", {}).get("tags", []))]
    return nb


def lecture_run(page_run: Executed) -> Executed:
    """The page's run with each figure's lecture-style picture (``lecture_figures``) in place of its page picture."""
    nb = copy.deepcopy(page_run.nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = output.get("data", {})
            if LECTURE_PNG in data:
                data["image/png"] = data.pop(LECTURE_PNG)  # its alt text, in the output's metadata, still fits
    return Executed(page_run.path, nb, list(page_run.problems), page_run.seconds, page_run.after_outputs)


def copy_reveal(outdir: Path) -> Path:
    """reveal.js, the theme and the CJK font into ``outdir/reveal.js``; returns that folder."""
    folder = Path(outdir) / REVEAL_FOLDER
    shutil.copytree(REVEAL / "dist", folder / "dist", dirs_exist_ok=True)
    shutil.copyfile(REVEAL / "LICENSE", folder / "LICENSE")
    shutil.copytree(REVEAL / "plugin", folder / "plugin", dirs_exist_ok=True)  # the notes plugin: the speaker view
    (folder / "dist" / "theme").mkdir(exist_ok=True)
    (folder / "dist" / "theme" / "course.css").write_text(THEME, encoding="utf-8")
    shutil.copyfile(CJK_FONT, folder / "dist" / "theme" / "course-cjk.ttf")
    return folder


def deck_exporter():
    """nbconvert's exporter for the decks (the course's reveal template, the site's MathJax), made once per build."""
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    exporter = SlidesExporter(
        template_name="course_reveal",
        extra_template_basedirs=[str(TEMPLATES)],
        reveal_url_prefix=REVEAL_FOLDER,
        reveal_theme="course",
        reveal_transition="none",
        reveal_number="c/t",
        reveal_width="1280",
        reveal_height="720",
        filters={"clean_html": site_kit.own_html},
    )
    # a lecture deck's figure slide shows the cell's output without its code
    exporter.register_preprocessor(TagRemovePreprocessor(remove_input_tags={OUTPUT_ONLY_TAG}), enabled=True)
    exporter.mathjax_url = MATHJAX_URL
    return exporter


def deck_html(
    nb, title: str, exporter=None, *, lang: str = "en", twin: str | None = None, lecture: bool = False
) -> str:
    """The deck of an executed, static-page-ready notebook (explorers already turned into live blocks).

    ``lang="zh"``: a deck of the Chinese edition (in ``zh/``, sharing reveal.js and the frames one folder up);
    ``twin``: the address of the same deck in the other edition (``site_kit.finish_page``); ``lecture``: a deck
    condensed from marks (:func:`lecture_notebook`), in the lecture style.
    """
    exporter = exporter or deck_exporter()
    resources = {"metadata": {"name": title}, "mathjax_config": site_kit.MATHJAX_CONFIG}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    # the pages' style sheet (contrast, underlined links, visible focus, the CJK font) and lang="zh"
    if lecture:  # the condensed deck's style (THEME's .reveal.lecture rules)
        body = body.replace('<div class="reveal">', '<div class="reveal lecture">', 1)
    body = site_kit.local_links(body, deck_name, lang)
    body = site_kit.finish_page(live_pages.install(site_kit.offline(body)), lang=lang, twin=twin)
    found = external_resources(body)
    if found:  # the template loads nothing from the network; a new nbconvert that does must not pass unseen
        raise RuntimeError(f"the deck {title!r} would load {found[0]} from the network")
    return body


external_resources = site_kit.external_resources  # what the tests call on a deck


def write_decks(
    pages, outdir: Path, *, static, log=print, going_further: bool = False, lang: str = "en", twins=(), exporter=None
) -> list[Path]:
    """Write each notebook's deck into ``outdir`` from its page's run; return the decks written.

    ``pages``: (path, run) pairs, ``run`` the notebook's :class:`execute.Executed` for its page: the deck shows
    its lecture-style figures (:func:`lecture_run`) and its explorers' frames (already in ``outdir/frames``;
    the explorers keep the layout they were designed for, and the deck's style sheet enlarges them).
    ``static(nb, explorers, uid)`` turns executed outputs into static-page outputs, as for the pages. Check
    cells are left out, and so are the "Going further" sections unless ``going_further`` (:func:`lecture_cells`).
    The caller copies reveal.js into the site first (:func:`copy_reveal`). ``lang="zh"``: the Chinese edition's
    decks, in the site's ``zh/`` (``outdir``), sharing the site's reveal.js one folder up; ``twins``: the stems
    whose deck in the other edition is linked (``site_kit.edition_switch``); ``exporter``: :func:`deck_exporter`'s,
    to reuse one.
    """
    outdir = Path(outdir)
    exporter = exporter or deck_exporter()
    written = []
    for path, page_run in pages:
        path = Path(path)
        run = lecture_run(page_run)
        manifests = {m["model_id"]: m for m in live_pages.frames_of(page_run.after_outputs)[0]}
        nb = lecture_cells(static(run.nb, manifests, f"{path.stem}-deck"), going_further=going_further)
        title = site_kit.title(nb, path.stem)
        lecture = has_marks(nb, lang)
        if lecture:  # the deck condensed from the notebook's marks
            problems = mark_problems(nb, f"{'zh/' if lang == 'zh' else ''}{path.name}", lang)
            if problems:
                raise RuntimeError(f"the lecture marks do not match the notebook: {problems[0]}")
            nb = lecture_notebook(nb, lang)
        target = outdir / deck_name(path.stem)
        twin = (
            (f"../{deck_name(path.stem)}" if lang == "zh" else f"zh/{deck_name(path.stem)}")
            if path.stem in twins
            else None
        )
        target.write_text(deck_html(nb, title, exporter, lang=lang, twin=twin, lecture=lecture), encoding="utf-8")
        written.append(target)
        shown = f"zh/{path.name}" if lang == "zh" else path.name
        log(f"{shown}: -> {'zh/' if lang == 'zh' else ''}{target.name} ({target.stat().st_size / 1e6:.1f} MB)")
    return written


# --- lecture decks condensed from the notebook by marks -----------------------------------------------------------
#
# A notebook whose cells carry marks gets a lecture deck built from the marks alone; one without marks keeps the
# paginated deck above. A cell's marks are ``metadata.lecture``, ``{"en": [mark, ...], "zh": [mark, ...]}``: the
# same metadata in a notebook and its Chinese twin (the Chinese edition's drift test compares them), each edition
# reading its own marks, whose phrases are its own text. A mark is a dict:
#
#   title     the slide's title (starts a slide; a mark without a title, or with "join": true, adds to the slide above)
#   show      phrases of the cell's own source shown on the slide, each found in it verbatim (whitespace aside):
#             a sentence, a bullet, a display formula "$$...$$" (or a part of one, between its own $$); a phrase
#             the source no longer holds fails the build
#   code      true (the cell's code) or an excerpt of it; at most CODE_LINES lines
#   output    true: the cell's outputs (its lecture-style figure, its live explorer, a printed result);
#             "printed": what the cell prints alone, when it also draws a figure (a result for a slide of its own)
#   question  {"ask": "...", "choices": [...], "answer": "...", "why": "..."}: a question for the room (its
#             question in bold under the phrases shown, then the choices), the answer and why on a fragment
#   notes     what to say, what to ask the room, the transition (the speaker view, S)
#   minutes   the slide's minutes in the lecture; "extension": true puts it in the 90-minute lecture only
#
# The first slide's notes get the plan: minutes per section, the 50-minute lecture and its extension to 90.

LECTURE_KEY = "lecture"
CODE_LINES = 12  # lines of code a slide shows at most
SLIDE_WORDS = 60  # words of prose a slide shows at most
CORE_MINUTES, FULL_MINUTES = 50, 90
PRINTED = "printed"  # "output": "printed": what the cell prints, not its figure
OUTPUT_ONLY_TAG = "deck-output-only"  # a code cell whose input the deck hides (nbconvert's TagRemovePreprocessor)
PLAN_WORDS = {  # the minutes' unit, the mark of an extension slide's notes, the answer's label
    "en": ("min", "EXTENSION (90-minute lecture only). ", "Answer"),
    "zh": ("分钟", "扩展内容（仅 90 分钟讲授）。", "答案"),
}


def _squash(text: str) -> str:
    return " ".join(str(text).split())


def _source_text(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def cell_marks(cell, lang: str = "en") -> list[dict]:
    """The slide marks of one cell in edition ``lang`` (``metadata.lecture[lang]``), [] if it has none."""
    return list(cell.get("metadata", {}).get(LECTURE_KEY, {}).get(lang, []))


def has_marks(nb, lang: str = "en") -> bool:
    """Whether the notebook's deck in edition ``lang`` is condensed from marks (any cell carries one)."""
    return any(cell_marks(cell, lang) for cell in nb.cells if isinstance(cell, dict))


def _section(cell) -> str | None:
    """The title of the section a ``##`` (or ``#``) heading opening ``cell`` starts, else None."""
    if cell.get("cell_type") != "markdown":
        return None
    first = _source_text(cell).lstrip().split("\n", 1)[0]
    match = re.match(r"#{1,2}\s+(.*)", first)
    return match.group(1).strip() if match else None


def _words(text: str) -> int:
    """Words a reader reads: TeX, markup and links stripped; a CJK character counts as half a word."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " x ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)|[*_`#\[\]|>-]", " ", text)
    cjk = len(re.findall(r"[\u3400-\u9fff]", text))
    return len(re.sub(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]", " ", text).split()) + (cjk + 1) // 2


def _formula_part(phrase: str) -> str:
    """What of ``phrase`` its cell must hold: all of it, or for a display formula ``$$...$$`` the formula inside
    (a slide may show part of a long display formula, as a display formula of its own)."""
    text = phrase.strip()
    return text[2:-2] if len(text) > 4 and text.startswith("$$") and text.endswith("$$") else phrase


def mark_problems(nb, name: str = "notebook", lang: str = "en") -> list[str]:
    """What is wrong with the notebook's marks, one line each ([] if nothing): a phrase or code excerpt its cell
    no longer holds (the slide's source is gone or changed), too much on a slide, a slide without notes or minutes,
    minutes that do not make the 50-minute lecture with its extension to 90."""
    problems, core, full, slides, titles = [], 0.0, 0.0, 0, set()
    for index, cell in enumerate(nb.cells):
        where = f"{name} cell {index} ({cell.get('id', '?')})"
        source = _squash(_source_text(cell))
        for mark in cell_marks(cell, lang):
            starts = bool(mark.get("title")) and not mark.get("join")
            slides += starts
            titles.add(mark.get("title")) if starts else None
            if isinstance(mark.get("join"), str) and mark["join"] not in titles:
                problems.append(f"{where}: joins a slide no earlier mark starts: {mark['join']!r}")
            for phrase in mark.get("show", []):
                if _squash(_formula_part(phrase)) not in source:
                    problems.append(f"{where}: the marked phrase is not in the cell: {_squash(phrase)[:60]!r}")
            code = mark.get("code")
            if code:
                if cell.get("cell_type") != "code":
                    problems.append(f"{where}: code is marked on a markdown cell")
                elif code is not True and _squash(code) not in source:
                    problems.append(f"{where}: the marked code is not in the cell: {_squash(code)[:60]!r}")
                shown = _source_text(cell) if code is True else code
                if len(shown.strip().splitlines()) > CODE_LINES:
                    problems.append(f"{where}: {len(shown.strip().splitlines())} lines of code (at most {CODE_LINES})")
            if mark.get("output") and cell.get("cell_type") != "code":
                problems.append(f"{where}: output is marked on a markdown cell")
            if mark.get("output") not in (None, False, True, PRINTED):
                problems.append(f"{where}: output must be true or {PRINTED!r}, got {mark['output']!r}")
            question = mark.get("question") or {}
            said = [
                *mark.get("show", []),
                *question.get("choices", []),
                question.get("answer", ""),
                question.get("why", ""),
            ]
            if _words(" ".join(said)) > SLIDE_WORDS:
                problems.append(f"{where}: more than {SLIDE_WORDS} words on the slide {mark.get('title')!r}")
            if starts and not _squash(mark.get("notes", "")):
                problems.append(f"{where}: the slide {mark.get('title')!r} has no speaker notes")
            minutes = mark.get("minutes", 0)
            if not isinstance(minutes, int | float) or minutes < 0:
                problems.append(f"{where}: minutes must be a number >= 0, got {minutes!r}")
                continue
            full += minutes
            core += 0 if mark.get("extension") else minutes
    if slides and (round(core, 3) != CORE_MINUTES or round(full, 3) != FULL_MINUTES):
        problems.append(
            f"{name}: the slides' minutes make {core:g} (core) and {full:g} (with the extension), "
            f"expected {CORE_MINUTES} and {FULL_MINUTES}"
        )
    return problems


def lecture_slides(nb, lang: str = "en") -> list[dict]:
    """The slides the marks make, in order: title, section, parts (("text"|"code"|"output", ...)), question,
    notes, minutes, extension."""
    slides, section = [], None
    for cell in nb.cells:
        section = _section(cell) or section
        for mark in cell_marks(cell, lang):
            named = [slide for slide in slides if isinstance(mark.get("join"), str) and slide["title"] == mark["join"]]
            if not named and (mark.get("title") and not mark.get("join") or not slides):
                slides.append(
                    dict(
                        title=mark.get("title", ""),
                        section=section,
                        parts=[],
                        question=None,
                        notes=[],
                        minutes=0.0,
                        extension=bool(mark.get("extension")),
                    )
                )
            slide = named[-1] if named else slides[-1]  # "join": a title adds to that slide, else to the last
            slide["parts"] += [("text", phrase) for phrase in mark.get("show", [])]
            if mark.get("code"):
                code = _source_text(cell) if mark["code"] is True else mark["code"]
                code = textwrap.dedent(code.strip("\n"))  # an excerpt from inside a loop, at the margin
                code = re.sub(r"(?m)(\S) {3,}#", r"\1  #", code)  # comments aligned far right: two spaces in
                slide["parts"].append(("code", code, cell if mark.get("output") else None))
            elif mark.get("output"):
                slide["parts"].append(("output", cell, mark["output"] == PRINTED))
            if mark.get("question"):
                slide["question"] = mark["question"]
            if mark.get("notes"):
                slide["notes"].append(mark["notes"])
            slide["minutes"] += mark.get("minutes", 0)
    return slides


PLAN = {
    "en": (
        "**Plan**: 50-minute lecture, {core:g} min; extension to 90 minutes (+{extra:g} min).",
        "- {name}: {core:g} min",
        " (+{extra:g} min)",
    ),
    "zh": (
        "**讲课计划**：50 分钟讲授，共 {core:g} 分钟；扩展到 90 分钟（+{extra:g} 分钟）。",
        "- {name}：{core:g} 分钟",
        "（+{extra:g} 分钟）",
    ),
}


def _short(section: str) -> str:
    """A section's title for the plan, one line in the speaker view: up to its subtitle (": ...") or its
    parenthesis."""
    return re.split(r": | \(|（", section, maxsplit=1)[0].strip() or section


def lecture_plan(slides, lang: str = "en") -> str:
    """The first slide's notes' plan: minutes per section, the core lecture and its extension."""
    head, row, more = PLAN[lang]
    sections: dict[str, list[float]] = {}
    for slide in slides:
        minutes = sections.setdefault(slide["section"] or slide["title"], [0.0, 0.0])
        minutes[1 if slide["extension"] else 0] += slide["minutes"]
    rows = [  # "1. A section" escaped: a bullet of its own, not an empty bullet around a numbered list
        row.format(name=re.sub(r"^(\d+)\.", r"\1\\.", _short(name).replace("$", "")), core=core)
        + (more.format(extra=extra) if extra else "")
        for name, (core, extra) in sections.items()
    ]
    core, extra = sum(c for c, _ in sections.values()), sum(e for _, e in sections.values())
    return head.format(core=core, extra=extra) + "\n\n" + "\n".join(rows)


def _escaped(text: str) -> str:
    """Authored notes or question text for markdown with ``<``, ``>`` and ``&`` shown as written (``<bos>`` is a
    token, not a tag); TeX ``$...$`` and code spans are left as they are (their renderers escape them)."""
    parts = re.split(r"(\$\$.*?\$\$|\$[^$]*\$|`[^`]*`)", text, flags=re.S)
    return "".join(part if i % 2 else html.escape(part, quote=False) for i, part in enumerate(parts))


def _shown_outputs(outputs, printed: bool = False) -> list:
    """A cell's outputs for its figure slide: its figures and live explorers alone if it shows any (what it
    prints stays in the notebook), else all of them (a printed result is the slide's point); ``printed``: what
    it prints on standard output alone (a result printed beside a figure, for a slide of its own)."""
    if printed:
        return copy.deepcopy([o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout"])
    pictures = [o for o in outputs if {"image/png", "image/svg+xml", "text/html"} & set(o.get("data", {}))]
    return copy.deepcopy(pictures or list(outputs))


def lecture_notebook(nb, lang: str = "en"):
    """The deck's notebook condensed from the marks of executed ``nb`` (its outputs already static): a cell per
    part of each slide, notes cells, the question's answer on a fragment."""
    import nbformat

    words = PLAN_WORDS[lang]
    slides = lecture_slides(nb, lang)
    cells = []
    for number, slide in enumerate(slides):
        text = [f"## {slide['title']}"] if slide["title"] else []
        first = True

        def add(cell, kind=None):
            nonlocal first
            cell.metadata["slideshow"] = {"slide_type": kind or ("slide" if first else "-")}
            first = False
            cells.append(cell)

        for part in slide["parts"]:
            if part[0] == "text":
                text.append(part[1])
                continue
            if text:
                add(nbformat.v4.new_markdown_cell("\n\n".join(text)))
                text = []
            if part[0] == "code":
                code = nbformat.v4.new_code_cell(part[1])
                code.outputs = copy.deepcopy(part[2].get("outputs", [])) if part[2] is not None else []
                add(code)
            else:
                shown = nbformat.v4.new_code_cell(_source_text(part[1]))
                shown.outputs = _shown_outputs(part[1].get("outputs", []), part[2])
                shown.metadata["tags"] = [OUTPUT_ONLY_TAG]
                add(shown)
        question = {key: _escaped(v) if isinstance(v, str) else v for key, v in (slide["question"] or {}).items()}
        if question:
            text += [f"**{question['ask']}**"] if question.get("ask") else []
            choices = [f"**{chr(65 + i)}.** {_escaped(c)}" for i, c in enumerate(question.get("choices", []))]
            if choices:  # short choices on one line, long ones one a line
                text.append((" · " if sum(map(len, choices)) < 90 else "  \n").join(choices))
        if text:
            add(nbformat.v4.new_markdown_cell("\n\n".join(text)))
        notes = _escaped("\n\n".join(slide["notes"]))
        if slide["extension"]:
            notes = words[1] + notes
        if number == 0:
            notes = lecture_plan(slides, lang) + "\n\n" + notes
        minutes = f"*({slide['minutes']:g} {words[0]})* " if slide["minutes"] else ""
        # the notes before the answer's fragment: inside it, the speaker view would hide them until the reveal
        add(nbformat.v4.new_markdown_cell(minutes + notes), "notes")
        if question:
            add(
                nbformat.v4.new_markdown_cell(
                    f"**{words[2]}{'：' if lang == 'zh' else ': '}{question['answer']}** {question.get('why', '')}"
                ),
                "fragment",
            )
    out = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(dict(nb.metadata)))
    for i, cell in enumerate(out.cells):
        cell["id"] = f"deck-{i}"
    return out


# What a browser test (and ``deck_pdf``) measures on the slide shown, in a page with the deck loaded: whether the
# slide scrolls, what crosses its edges or is cut off, the smallest text (CSS pixels as rendered, reveal's scale
# applied) of its prose, code and printed results, its lines of code, its words of prose, and its notes' words.
SLIDE_AUDIT = """() => {
  const scale = Reveal.getScale();
  const slide = Reveal.getCurrentSlide();
  const edge = document.querySelector('.reveal .slides').getBoundingClientRect();
  const shown = el => !el.closest('aside.notes') && el.getClientRects().length > 0;
  const crossing = [];
  for (const el of slide.querySelectorAll('*')) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width && r.height && (r.right > edge.right + 2 || r.bottom > edge.bottom + 2 || r.left < edge.left - 2
        || r.top < edge.top - 2)) crossing.push(el.tagName.toLowerCase() + '.' + String(el.className).split(' ')[0]);
    if ((el.tagName === 'PRE' || el.tagName === 'TABLE') && el.scrollWidth > el.clientWidth + 1)
      crossing.push('cut off: ' + el.tagName.toLowerCase());
  }
  const sizes = [];
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !shown(el) || el.closest('mjx-container, .live-explorer, .live-figure')) continue;
    if (!el.closest('.jp-RenderedMarkdown, .jp-InputArea, .jp-RenderedText, .jp-RenderedHTMLCommon')) continue;
    sizes.push(parseFloat(getComputedStyle(el).fontSize) * scale);
  }
  const code = [...slide.querySelectorAll('.jp-InputArea pre')].filter(shown)
    .map(pre => pre.textContent.replace(/\\n$/, '').split('\\n').length).reduce((a, b) => a + b, 0);
  const prose = [...slide.querySelectorAll('.jp-RenderedMarkdown')].filter(shown).map(el => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('mjx-container, h1, h2').forEach(m => m.replaceWith(' x '));
    return copy.textContent;
  }).join(' ');
  const cjk = (prose.match(/[\\u3400-\\u9fff]/g) || []).length;
  const words = prose.replace(/[\\u3400-\\u9fff\\u3000-\\u303f\\uff00-\\uffef]/g, ' ').split(/\\s+/)
    .filter(w => /\\w/.test(w)).length + Math.ceil(cjk / 2);
  const notes = slide.querySelector('aside.notes');
  return {
    scrolls: slide.scrollHeight > slide.clientHeight + 1 || slide.scrollWidth > slide.clientWidth + 1,
    crossing: [...new Set(crossing)].slice(0, 5),
    smallest: sizes.length ? Math.min(...sizes) : null,
    code_lines: code,
    words: words,
    notes: notes ? notes.textContent.trim().split(/\\s+/).length : 0,
  };
}"""


# --- the decks as PDF, printed by headless Chromium from reveal.js's print layout ---------------------------------

PDF_SUFFIXES = {False: ".pdf", True: "-notes.pdf"}  # NAME.slides.pdf, NAME.slides-notes.pdf
TYPESET = """() => document.readyState === 'complete' && window.Reveal && Reveal.isReady()
  && (!window.MathJax || !MathJax.startup || !MathJax.startup.promise || window.__typeset === true
      || (MathJax.startup.promise.then(() => { window.__typeset = true; }), false))"""


def pdf_name(deck: Path, notes: bool = False) -> Path:
    """Where the PDF of ``deck`` (``NAME.slides.html``) goes: ``NAME.slides.pdf``; with notes
    ``NAME.slides-notes.pdf``."""
    deck = Path(deck)
    return deck.with_name(deck.name.removesuffix(".html") + PDF_SUFFIXES[notes])


def deck_pdf(page, deck: Path, notes: bool = False, target: Path | None = None) -> Path:
    """Print ``deck`` to ``target`` (default :func:`pdf_name`) with a Playwright Chromium ``page``: reveal.js's
    print layout (``?print-pdf``), one page per slide, a question's answer on its slide's page; ``notes``: each
    slide's page followed by a page of its speaker notes. Returns the PDF's path."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(Path(deck).resolve().as_uri() + ("?print-pdf&notes" if notes else "?print-pdf"), wait_until="load")
    page.wait_for_function(TYPESET, timeout=120_000)
    page.wait_for_timeout(300)  # the frames' and figures' images decode
    target = Path(target) if target is not None else pdf_name(deck, notes)
    page.pdf(path=str(target), prefer_css_page_size=True, print_background=True)
    return target


def pdf_pages(path: Path) -> int:
    """The number of pages of a PDF that Chromium wrote (its page objects)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", Path(path).read_bytes()))


def write_pdfs(decks, *, log=print) -> list[Path]:
    """Each of ``decks`` printed to PDF twice (:func:`deck_pdf`: slides; slides with notes) by the headless
    Chromium of ``tools.browser`` through Playwright, offline; returns the PDFs written."""
    from playwright.sync_api import sync_playwright

    from tools import browser

    written = []
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser.CHROMIUM, args=browser.CHROMIUM_ARGS)
        try:
            for deck in decks:
                page = chromium.new_page()
                try:
                    for notes in (False, True):
                        written.append(deck_pdf(page, deck, notes))
                        log(f"{deck.name}: -> {written[-1].name} ({pdf_pages(written[-1])} pages)")
                finally:
                    page.close()
        finally:
            chromium.close()
    return written
