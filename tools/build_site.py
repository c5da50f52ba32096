"""The course as static web pages, for reading without a kernel: ``python -m tools.build_site OUTDIR``.

Executes every notebook in ``notebooks/`` in a fresh kernel and writes ``OUTDIR/index.html``, one page
per notebook (``OUTDIR/NAME.html``) and ``OUTDIR/glossary.html``. Figures are the notebooks' own
images. Each interactive explorer stays live: after the notebook's last cell the explorers draw a frame
for each position of their controls (``explorer_frames.py``), and the page shows the same controls and
swaps frames with a few lines of JavaScript (``live_pages.py``, ``live_explorers.js``); its static
small-multiples twin follows in the notebook. Math is rendered by a copy of MathJax in
``OUTDIR/mathjax``, links between notebooks point to the pages, and nothing is fetched from the network:
the pages work offline, from ``file://`` or any static host. Each notebook is also a reveal.js slide
deck, ``OUTDIR/NAME.slides.html`` (``decks.py``; ``--no-slides`` leaves them out), linked from the index, and
its PDFs, ``NAME.slides.pdf`` and ``NAME.slides-notes.pdf`` (printed by headless Chromium; ``--no-pdf`` leaves
them out).

The Chinese edition (``notebooks/zh/``, ``tools/translate.py``) is built alike into ``OUTDIR/zh/``: its course
home from ``README.zh.md``, a page and a deck per zh notebook, each run in its own kernel (which selects
Chinese, so its figures and explorer frames are drawn in Chinese), ``<html lang="zh-CN">``, the launch buttons
of the zh notebooks, and a link on every page to its twin in the other edition and back. The editions share
MathJax, the font, the script, reveal.js and the frames (named by their content: a frame without words is one
file for both).
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
from pathlib import Path

import nbformat

from attention_lab.paths import repo_root
from tools import browser, live_pages, page_questions, site_kit
from tools import decks as slide_decks
from tools.execute import Executed, execute
from tools.explorer_frames import AFTER_NOTEBOOK
from tools.lecture_figures import BEFORE_NOTEBOOK
from tools.lecture_figures import MIME as LECTURE_PNG
from tools.staging import staged

__all__ = ["NOTEBOOK_DIR", "zh_twins", "build_site"]

ROOT = repo_root(Path(__file__).parent)
NOTEBOOK_DIR = ROOT / "notebooks"
WIDGET_VIEW, MATHJAX_URL = site_kit.WIDGET_VIEW, site_kit.MATHJAX_URL  # shared with the decks
MATHJAX = ROOT / "tools" / "vendor" / "mathjax"  # MathJax 3: the files the pages load (its README)
TEMPLATES = ROOT / "tools" / "templates"


def execute_page(path: Path, timeout: int = 600) -> Executed:
    """Execute one notebook for its page and its deck, then render its explorers' frames in the same kernel.

    Each figure it shows also carries its lecture-style picture for the deck (``lecture_figures``). The test
    suite shares these executions with its notebook harness; the frames come back apart from the notebook's
    outputs (``Executed.after_outputs``).
    """
    after = AFTER_NOTEBOOK + page_questions.after_code(path)  # the frames, then the page's questions
    return execute(path, timeout=timeout, before=BEFORE_NOTEBOOK, after=after)


def _questions(nb, payload: dict | None, name: str, lang: str, page: str) -> int:
    """Under each exercise cell, its question in the page (``page_questions``: the check's verdicts, exported in the
    notebook's kernel) or, for a code exercise, what to write and where to run it; return the questions added."""
    if not payload:
        return 0
    by_cell = {q["cell"]: q for q in payload["questions"]}
    count = 0
    for cell in nb.cells:
        question = by_cell.get(cell.get("id"))
        if cell.cell_type != "code" or question is None:
            continue
        if question["mode"] == "code":
            block = page_questions.code_note_html(name, lang)
        else:
            count += 1
            block = page_questions.question_html(question, f"{page}-question-{count}", lang, words=payload["words"])
        cell.outputs.append(nbformat.v4.new_output("display_data", data={"text/html": block}))
    return count


def _static(nb, explorers: dict | None = None, page: str = "page"):
    """Make the outputs static-page ready.

    Each explorer's widget becomes its live block (``explorers``: manifests by widget model id, see
    ``live_pages``); any other live widget becomes its picture, or nothing if it has none (a bare slider).
    stderr is dropped, and so is the widget state (it would need a CDN to render).
    """
    explorers = explorers or {}
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            data.pop(LECTURE_PNG, None)  # the deck's picture (a deck puts it in place of image/png first)
            if WIDGET_VIEW in data:
                manifest = explorers.get(data[WIDGET_VIEW].get("model_id"))
                if manifest is not None:
                    count += 1
                    output["data"] = {"text/html": live_pages.explorer_html(manifest, f"{page}-explorer-{count}")}
                    output["metadata"] = {}
                    kept.append(output)
                    continue
                data.pop(WIDGET_VIEW)
                data.pop("text/plain", None)
                if not data:  # a widget without a picture (a bare slider): nothing to show on a page
                    continue
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                continue
            kept.append(output)
        cell.outputs = kept
    nb.metadata.pop("widgets", None)
    return nb


def _offline(page: str) -> str:
    """No script from the network (``site_kit.offline``)."""
    page = site_kit.offline(page)
    found = site_kit.external_resources(page)
    if found:  # a new nbconvert whose template loads something else from the network must not pass unseen
        raise RuntimeError(f"the page would load {found[0]} from the network")
    return page


def _exporter():
    from nbconvert import HTMLExporter

    # nbconvert's lab template with the site's MathJax (tools/templates/course_page)
    exporter = HTMLExporter(
        template_name="course_page", extra_template_basedirs=[str(TEMPLATES)], filters={"clean_html": site_kit.own_html}
    )
    exporter.mathjax_url = MATHJAX_URL
    return exporter


def _twin(name: str, lang: str, twins) -> str | None:
    """The address of page ``name`` (``01_x.html``) in the other edition, from this one; None without a twin."""
    if twins is None or Path(name).name.split(".")[0] not in twins:
        return None
    return f"zh/{name}" if lang == "en" else f"../{name}"


def _write_page(exporter, nb, path: Path, title: str, *, footer: bool = False, lang: str = "en", twin=None):
    resources = {"metadata": {"name": title}, "mathjax_config": site_kit.MATHJAX_CONFIG}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    page = live_pages.install(_offline(site_kit.local_links(body, lambda stem: f"{stem}.html", lang)))
    page = page_questions.install(page)  # (site_kit.finish_page points a zh page one folder up)
    path.write_text(site_kit.finish_page(page, footer=footer, lang=lang, twin=twin), encoding="utf-8")


GUIDE = "LECTURERS.md"  # the lecturer's guide, in notebooks/ and notebooks/zh/: the site's lecturers.html


def _guides(exporter, outdir: Path, zh: bool) -> list:
    """The lecturer's guide as the site's ``lecturers.html`` (and ``zh/lecturers.html``), its links the site's."""
    written = []
    for source, target, lang, title in (
        (NOTEBOOK_DIR / GUIDE, outdir / "lecturers.html", "en", "Teaching from the course: a lecturer's guide"),
        (NOTEBOOK_DIR / "zh" / GUIDE, outdir / "zh" / "lecturers.html", "zh", "讲课指南"),
    ):
        if not source.is_file() or (lang == "zh" and not zh):
            continue
        text = source.read_text(encoding="utf-8")
        text = text.replace(f"](zh/{GUIDE})", "](zh/lecturers.html)").replace(f"](../{GUIDE})", "](../lecturers.html)")
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text, id="lecturers")])
        twin = ("zh/lecturers.html" if lang == "en" else "../lecturers.html") if zh else None
        _write_page(exporter, nb, target, title, footer=True, lang=lang, twin=twin)
        written.append(target)
    return written


def _index(pages: list, outdir: Path, notebooks: dict, decks=(), twin=None, pdf=False):
    """The course home (``site_kit.index_page``), with a link to the slide deck of each notebook in ``decks``
    (``pdf``: and to its PDFs)."""
    links = {stem: slide_decks.index_link(stem, pdf) for stem in decks}
    page = site_kit.finish_page(site_kit.index_page(pages, notebooks, links), twin=twin)
    if decks and (NOTEBOOK_DIR / GUIDE).is_file():  # the lecturer's guide, before the glossary's line
        guide = '<p><a href="lecturers.html">Lecturer\'s guide</a>: 50- and 90-minute plans for the decks.</p>\n'
        page = page.replace('<p><a href="glossary.html">', guide + '<p><a href="glossary.html">', 1)
    outdir.joinpath("index.html").write_text(page, encoding="utf-8")


def _zh_index(exporter, outdir: Path, decks=(), twin=None) -> Path:
    """The Chinese course home, ``zh/index.html``, from ``README.zh.md`` (``site_kit.zh_home_markdown``)."""
    readme = (ROOT / "README.zh.md").read_text(encoding="utf-8")
    # a fixed cell id: two builds write the same page
    text = re.sub(
        r"\(https://[^)\s]*/notebooks/zh/LECTURERS\.md\)", "(lecturers.html)", site_kit.zh_home_markdown(readme, decks)
    )
    home = nbformat.v4.new_markdown_cell(text, id="zh-home")
    nb = nbformat.v4.new_notebook(cells=[home])
    title = site_kit.title(nb, "注意力：从硬性到软性")
    _write_page(exporter, nb, outdir / "index.html", title, footer=True, lang="zh", twin=twin)
    return outdir / "index.html"


def zh_twins(paths) -> list[Path]:
    """The Chinese twins (``zh/NAME.ipynb`` beside each of ``paths``) that exist, in order."""
    return [Path(p).parent / "zh" / Path(p).name for p in paths if (Path(p).parent / "zh" / Path(p).name).is_file()]


def build_site(
    outdir,
    notebooks=None,
    *,
    timeout: int = 600,
    log=print,
    executed=None,
    decks: bool = True,
    going_further: bool = False,
    pdf: bool = False,
) -> list:
    """Execute the notebooks and write the pages into ``outdir``; return the paths written (index first).

    ``decks``: also write each notebook's slide deck (``decks.py``: from the same run, lecture-style figures);
    ``pdf``: and print each deck to PDF, slides and slides with notes (``decks.write_pdfs``: headless Chromium);
    ``going_further``: the decks keep the "Going further" sections (left out by default; check cells always are).

    The pages are built in a temporary folder beside ``outdir`` and moved into place at the end, so a failed
    build leaves no half-written site (a previous site in ``outdir`` stays as it was). ``outdir`` must be new,
    empty, or a previous site (it has an ``index.html``); a bad argument is a ValueError naming it.
    """
    final = Path(outdir).resolve()
    if final.exists() and not final.is_dir():
        raise ValueError(f"outdir must be a folder, got {final}, which is a file")
    if final.is_dir() and any(final.iterdir()) and not (final / "index.html").is_file():
        raise ValueError(
            f"outdir must be new, empty or a previous site (with index.html), got {final}, which holds other files"
        )
    for path in notebooks or []:
        if Path(path).suffix != ".ipynb" or not Path(path).is_file():
            raise ValueError(f"notebooks must be existing .ipynb files, got {path}")
        if Path(path).parent.name == "zh":
            raise ValueError(
                f"notebooks must be English notebooks (their zh twins are built with them, into zh/), got {path}"
            )
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot write the site into {final.parent}: {error.strerror or error}") from None
    with staged(final, "cannot write the site into") as staging:
        written = _build_pages(
            staging,
            notebooks,
            timeout=timeout,
            log=log,
            executed=executed,
            decks=decks,
            going_further=going_further,
            pdf=pdf,
        )
    return [final / path.relative_to(staging) for path in written]


def _build_pages(
    outdir,
    notebooks=None,
    *,
    timeout: int = 600,
    log=print,
    executed=None,
    decks=True,
    going_further=False,
    pdf=False,
) -> list:
    """Execute the notebooks and write the pages; return the paths written (index first).

    ``executed``: a function path -> :class:`execute.Executed` to reuse executions made elsewhere (the test
    suite's); by default each notebook is executed here with :func:`execute_page`.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = sorted(Path(p) for p in notebooks) if notebooks else sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"no notebooks to build in {NOTEBOOK_DIR}")
    shutil.rmtree(outdir / "mathjax", ignore_errors=True)  # no file of an earlier copy left behind
    shutil.copytree(MATHJAX, outdir / "mathjax", ignore=shutil.ignore_patterns("README.md"))
    live_pages.copy_script(outdir)
    page_questions.copy_script(outdir)
    site_kit.copy_assets(outdir)
    exporter = _exporter()
    zh_paths = zh_twins(paths)
    twins = {p.stem for p in zh_paths}
    if decks:
        slide_decks.copy_reveal(outdir)
    deck_options = dict(going_further=going_further, exporter=slide_decks.deck_exporter()) if decks else None
    edition = dict(exporter=exporter, timeout=timeout, log=log, executed=executed, twins=twins, decks=deck_options)
    pages, written, runs = _edition(paths, outdir, "en", **edition)
    glossary = NOTEBOOK_DIR / "glossary.md"
    if glossary.exists():
        text = glossary.read_text(encoding="utf-8")
        # a fixed cell id: two builds write the same page
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text, id="glossary")])
        _write_page(exporter, nb, outdir / "glossary.html", "Glossary and notation", footer=True)
        written.append(outdir / "glossary.html")
    zh_written, zh_runs = [], []
    if zh_paths:
        (outdir / "zh").mkdir(exist_ok=True)
        _, zh_written, zh_runs = _edition(zh_paths, outdir / "zh", "zh", **edition)
    if decks:  # the lecturer's guide, beside the decks it plans (notebooks/LECTURERS.md and its zh twin)
        written += _guides(exporter, outdir, zh=bool(zh_paths))
    deck_stems = {path.stem for path, _ in runs} if decks else ()
    home_twin = "zh/index.html" if zh_paths else None
    pdf = pdf and bool(decks)
    if pdf and not browser.chromium_available():
        log(f"the decks' PDFs were not printed: no Chromium at {browser.CHROMIUM} ({browser.INSTALL_HINT})")
        pdf = False
    if pdf:
        deck_files = [p for p in [*written, *zh_written] if p.name.endswith(".slides.html")]
        written += slide_decks.write_pdfs(deck_files, log=log)
    _index(pages, outdir, {p.stem: p for p in paths}, deck_stems, twin=home_twin, pdf=pdf)
    if zh_paths:
        zh_decks = {path.stem for path, _ in zh_runs} if decks else ()
        written += [_zh_index(exporter, outdir / "zh", zh_decks, twin="../index.html"), *zh_written]
    return [outdir / "index.html", *written]


def _edition(paths, outdir: Path, lang: str, *, exporter, timeout, log, executed, twins, decks):
    """The pages of one edition (``lang``) into ``outdir`` (the site, or its ``zh/``), frames into the site's
    shared ``frames/``, and with ``decks`` (``write_decks``' options, or None) each page's deck as soon as its page;
    return (index rows, pages then decks written, (path, run) pairs)."""
    site = outdir if lang == "en" else outdir.parent
    pages, written, runs, deck_files = [], [], [], []
    for path in paths:
        run = executed(path) if executed is not None else execute_page(path, timeout)
        if run.problems:
            raise RuntimeError(f"{path.name} did not run cleanly:\n" + "\n".join(run.problems))
        manifests, images, measured = live_pages.frames_of(run.after_outputs)
        new_bytes = live_pages.write_frames(images, site)
        explorers = {manifest["model_id"]: manifest for manifest in manifests}
        nb, seconds = _static(copy.deepcopy(run.nb), explorers, path.stem), run.seconds
        site_kit.prepare_notebook(nb, path.name, lang)
        asked = page_questions.questions_of(run.after_outputs)
        count = _questions(nb, asked, path.name, lang, path.stem)
        title = site_kit.title(nb, path.stem)
        twin = _twin(f"{path.stem}.html", lang, twins)
        _write_page(exporter, nb, outdir / f"{path.stem}.html", title, lang=lang, twin=twin)
        pages.append((path.stem, title, seconds))
        runs.append((path, run))
        written.append(outdir / f"{path.stem}.html")
        frames = sum(len(m["frames"]) for m in manifests)
        peak = measured["kernel_peak_mb"]
        shown = f"zh/{path.stem}" if lang == "zh" else path.stem
        log(
            f"{shown}.ipynb: executed in {seconds:.1f} s; {len(manifests)} explorers drew {frames} frames in "
            f"{measured['seconds']:.1f} s ({measured['cpu_seconds']:.1f} s of CPU), {len(images)} distinct, "
            f"{new_bytes / 1e6:.1f} MB new; kernel peak {'?' if peak is None else f'{peak:.0f} MB'}; "
            f"{count} questions ({(asked or {}).get('seconds', 0):.1f} s) -> {shown}.html"
        )
        if decks is not None:  # now, not after the last run: little is left to do once the last run is in
            deck_files += slide_decks.write_decks(
                [(path, run)], outdir, static=_static, log=log, lang=lang, twins=twins, **decks
            )
    return pages, written + deck_files, runs


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], usage="%(prog)s [options] outdir [notebooks ...]"
    )
    parser.add_argument("outdir", type=Path, help="folder for the pages (created if missing)")
    parser.add_argument("notebooks", nargs="*", type=Path, help="only these notebooks (default: all)")
    parser.add_argument("--no-slides", action="store_true", help="pages only, no slide decks")
    parser.add_argument("--further", action="store_true", help="the slide decks keep the 'Going further' sections")
    parser.add_argument("--no-pdf", action="store_true", help="no PDFs of the decks (they need Chromium)")
    args = parser.parse_args(argv)
    try:
        written = build_site(
            args.outdir,
            args.notebooks or None,
            decks=not args.no_slides,
            going_further=args.further,
            pdf=not args.no_pdf and not args.no_slides,
        )
    except (ValueError, OSError) as error:
        parser.error(str(error).splitlines()[0])  # one line on stderr and exit status 2, no traceback
    except RuntimeError as error:  # a notebook that did not run cleanly: say which, in one line
        parser.error(f"the site was not built: {str(error).splitlines()[0]} (run it to see why)")
    print(f"wrote {len(written)} pages; open {args.outdir / 'index.html'}")


if __name__ == "__main__":
    main()
