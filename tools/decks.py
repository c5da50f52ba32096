"""The notebooks as reveal.js slide decks, for a lecture: written by ``build_site.py`` beside the pages.

Each deck comes from the page's own run of the notebook (no second execution): its figures are the
lecture-style pictures that run drew beside the page's (``lecture_figures.py``: the projector style of
``plots.lecture_mode``), and its check cells and "Going further" sections are left out. It is exported by
nbconvert's SlidesExporter with the template in ``templates/course_reveal`` as ``NAME.slides.html``. Which cell starts a
slide is the notebook's own ``slideshow`` metadata (``slide_metadata.py``). Explorers stay live as in the
pages, with the pages' frames and script (``live_pages.py``), enlarged to the slide's width: drawn in the
normal style, in the layout they were designed for (lecture mode's larger fonts crowd their fixed pixel
size). A slider keeps the arrow keys while it has the focus, so moving it does not turn the slide.

Offline like the pages: reveal.js is the copy in ``vendor/reveal.js`` (two files, MIT, see its README),
served from ``OUTDIR/reveal.js`` with the course's own small theme (no web fonts); math is the site's
MathJax; links to other notebooks open their decks. Keys: arrows or space to move, Esc for the overview,
F for full screen.
"""

from __future__ import annotations

import copy
import html
import shutil
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
:root{--jp-content-font-family:system-ui,-apple-system,"Segoe UI",helvetica,arial,sans-serif,"Course CJK";
--jp-ui-font-family:system-ui,-apple-system,"Segoe UI",helvetica,arial,sans-serif,"Course CJK"}
"""

MATHJAX_URL = site_kit.MATHJAX_URL  # the site's copy of MathJax, as the pages use it


def deck_name(stem: str) -> str:
    return f"{stem}.slides.html"


def index_link(stem: str) -> str:
    """The link to a notebook's deck, for the site's index."""
    return f' · <a href="{html.escape(deck_name(stem))}">slides</a>'


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
    (folder / "dist" / "theme").mkdir(exist_ok=True)
    (folder / "dist" / "theme" / "course.css").write_text(THEME, encoding="utf-8")
    shutil.copyfile(CJK_FONT, folder / "dist" / "theme" / "course-cjk.ttf")
    return folder


def deck_exporter():
    """nbconvert's exporter for the decks (the course's reveal template, the site's MathJax), made once per build."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(
        template_name="course_reveal",
        extra_template_basedirs=[str(TEMPLATES)],
        reveal_url_prefix=REVEAL_FOLDER,
        reveal_theme="course",
        reveal_transition="none",
        reveal_number="c/t",
        reveal_width="1280",
        reveal_height="800",
        filters={"clean_html": site_kit.own_html},
    )
    exporter.mathjax_url = MATHJAX_URL
    return exporter


def deck_html(nb, title: str, exporter=None, *, lang: str = "en", twin: str | None = None) -> str:
    """The deck of an executed, static-page-ready notebook (explorers already turned into live blocks).

    ``lang="zh"``: a deck of the Chinese edition (in ``zh/``, sharing reveal.js and the frames one folder up);
    ``twin``: the address of the same deck in the other edition (``site_kit.finish_page``).
    """
    exporter = exporter or deck_exporter()
    resources = {"metadata": {"name": title}, "mathjax_config": site_kit.MATHJAX_CONFIG}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    # the pages' style sheet (contrast, underlined links, visible focus, the CJK font) and lang="zh"
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
        target = outdir / deck_name(path.stem)
        twin = (
            (f"../{deck_name(path.stem)}" if lang == "zh" else f"zh/{deck_name(path.stem)}")
            if path.stem in twins
            else None
        )
        target.write_text(deck_html(nb, title, exporter, lang=lang, twin=twin), encoding="utf-8")
        written.append(target)
        shown = f"zh/{path.name}" if lang == "zh" else path.name
        log(f"{shown}: -> {'zh/' if lang == 'zh' else ''}{target.name} ({target.stat().st_size / 1e6:.1f} MB)")
    return written
