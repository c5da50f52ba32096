"""What makes the static pages a course site: launch buttons, the collapsed Colab cell, alt texts, the CJK font,
``lang`` on Chinese text, readable contrast and focus, the questions footer, and the course home page.

``build_site.py`` calls :func:`prepare_notebook` on each executed notebook before export, :func:`finish_page` on
each exported page, :func:`copy_assets` once, and :func:`index_page` for ``index.html``. Everything here works
from ``file://``: the font is a file beside the pages, loaded by a relative URL.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

from attention_lab.paths import repo_root
from tools import launch_buttons

__all__ = [
    "FONT_FAMILY",
    "STYLE",
    "WIDGET_VIEW",
    "MATHJAX_URL",
    "CHECK_TAG",
    "FURTHER_TAG",
    "own_html",
    "local_links",
    "title",
    "offline",
    "external_resources",
    "widget_views",
    "copy_assets",
    "prepare_notebook",
    "finish_page",
    "lang_zh",
    "EDITIONS",
    "shared_assets",
    "edition_switch",
    "study_time",
    "index_page",
    "zh_home_markdown",
]

ROOT = repo_root(Path(__file__).parent)
FONT_SOURCE = ROOT / "src" / "attention_lab" / "fonts"
FONT_FILES = ("course-cjk.ttf", "LICENSE-Apache-2.0.txt", "README.md")
FONT_FAMILY = "Course CJK"
COLAB_TAG = "colab-setup"
CHECK_TAG = "check"  # evidence beside the lesson: folded on the pages, left out of the decks
FURTHER_TAG = "going-further"  # graduate material: a labelled box on the pages, left out of the decks by default
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# MathJax 3 from the site's copy (tools/vendor/mathjax: its CommonHTML output and fonts): pages and decks
MATHJAX_URL = "mathjax/tex-chtml-full.js"
# CJK ideographs and their punctuation: the runs that get lang="zh" and the shipped font
CJK = "\u2e80-\u2fff\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK_RUN = re.compile(f"[{CJK}](?:[{CJK}\\s·]*[{CJK}])?")

_SANS = (
    "system-ui, -apple-system, blinkmacsystemfont, 'Segoe UI', helvetica, arial, sans-serif, "
    "'Apple Color Emoji', 'Segoe UI Emoji', 'Segoe UI Symbol'"
)
_MONO = "menlo, consolas, 'DejaVu Sans Mono', monospace"

STYLE = f"""<style id="site-kit">
@font-face {{font-family: "{FONT_FAMILY}"; src: url("fonts/course-cjk.ttf") format("truetype");
  unicode-range: U+2E80-2FFF, U+3000-303F, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FF00-FFEF; font-display: block}}
:root {{--jp-ui-font-family: "{FONT_FAMILY}", {_SANS}; --jp-content-font-family: "{FONT_FAMILY}", {_SANS};
  --jp-code-font-family: {_MONO}, "{FONT_FAMILY}"; --jp-code-font-family-default: {_MONO}, "{FONT_FAMILY}"}}
body {{font-family: "{FONT_FAMILY}", {_SANS}}}
select, option, input, button, output {{font-family: inherit}}
/* WCAG 2.1 AA contrast on the code background (#f5f5f5) and the white page */
.highlight .c, .highlight .c1, .highlight .cm, .highlight .ch, .highlight .cs, .highlight .cpf {{color: #2e6161}}
.highlight .m, .highlight .mf, .highlight .mi, .highlight .mh, .highlight .mo, .highlight .mb, .highlight .il
  {{color: #006400}}
.highlight .ow, .highlight .nd {{color: #7a00c2}}
:root {{--jp-cell-prompt-not-active-opacity: 1; --jp-cell-prompt-not-active-font-color: #616161}}
/* links in running text are underlined, not told apart by colour alone */
.jp-RenderedHTMLCommon a:not(.launch-button), .site-home a:not(.launch-button) {{text-decoration: underline !important}}
:focus-visible {{outline: 3px solid #B35900; outline-offset: 2px}}
.live-controls input[type=range]:focus-visible, .live-controls select:focus-visible
  {{outline: 3px solid #B35900; outline-offset: 2px}}
/* inline maths with a deep subscript on a cell's last line reaches a few pixels below the text: room for it, so
   that the cell does not become a scrolling region */
.jp-RenderedMarkdown {{padding-bottom: .25em}}
.launch-buttons {{display: flex; flex-wrap: wrap; gap: .5rem; margin: .6rem 0 1rem}}
.jp-RenderedHTMLCommon .launch-buttons a.launch-button, a.launch-button {{display: inline-block; padding: .3rem .8rem;
  border-radius: 4px; background: #005A8C; color: #fff; text-decoration: none; font-weight: 600}}
a.launch-button:hover {{background: #00466E}}
a.launch-button.launch-download {{background: #fff; color: #005A8C; border: 2px solid #005A8C}}
details.colab-setup {{margin: .3rem 0; padding: .2rem .6rem; border-left: 3px solid #bbb; color: #333}}
details.colab-setup summary {{cursor: pointer}}
details.check-cell {{margin: .3rem 0; padding: .2rem .6rem; border-left: 3px solid #bbb; color: #333}}
details.check-cell summary {{cursor: pointer; font-family: {_MONO}}}
/* a "Going further" section: one box, its label first (site_kit.prepare_notebook) */
.jp-Cell.celltag_going-further, .jp-Cell:has(> .jp-Cell-inputWrapper .celltag_going-further)
  {{background: #f3f7fb; border-left: 4px solid #005A8C; padding-left: .5rem}}
.going-further-label {{font-weight: 700; color: #00466E; text-transform: uppercase; letter-spacing: .04em;
  font-size: .85rem; margin: .2rem 0}}
.questions-footer {{margin: 2rem auto 1rem; padding-top: .6rem; border-top: 1px solid #ccc; max-width: 60rem}}
</style>
"""

# MathJax 3, set before its script loads: nbconvert's delimiters and AMS equation numbers; a TeX error shown as its
# message (mjx-merror) rather than as the TeX source (noerrors), and an unknown macro as an error too rather than
# in red (noundefined), so that the tests find both; the "safe" extension (a formula's links, styles and classes
# filtered: no javascript: link); characters MathJax's fonts lack (Chinese) in the shipped CJK font. No menu: its
# explorer and other renderers need files the copy does not ship, and it would be for the mouse alone (formulas
# are not in the Tab order). Screen readers read each formula's hidden MathML, which MathJax adds.
MATHJAX_CONFIG = (
    "<script>window.MathJax = {loader: {load: ['ui/safe']}, "
    "tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], "
    "processEscapes: true, processEnvironments: true, tags: 'ams', packages: {'[-]': ['noerrors', 'noundefined']}}, "
    f"chtml: {{unknownFamily: \"'{FONT_FAMILY}', serif\"}}, options: {{enableMenu: false}}}};</script>\n"
)


def own_html(html) -> str:
    """nbconvert's ``clean_html`` filter for the course's own notebooks, pages and decks alike. With ``sanitize_html``
    off (its default) nbconvert's templates still pass each code cell's highlighted source (and raw cells, and SVG
    sent as bytes) through bleach; Markdown and outputs never were. The source is this repository's own, and bleach
    changed nothing in it: it is passed on as it is (bytes decoded, as ``clean_html`` does)."""
    return html.decode("utf-8") if isinstance(html, bytes) else str(html)


def local_links(page: str, href, lang: str = "en") -> str:
    """Links to a notebook (``NAME.ipynb#anchor``) point to ``href(NAME)`` (its page or its deck); links to the
    glossary to its page; links to a file of the repository outside ``notebooks/`` (``../README.md#...``), which
    the site does not copy, to that file in the repository.

    A link to the notebook's twin in the other edition (``zh/NAME.ipynb`` from English, ``../NAME.ipynb`` from
    zh) points to the twin's page or deck. ``lang="zh"``: a page of ``notebooks/zh/`` (written to ``zh/`` in the
    site): the glossary is the one
    bilingual page one folder up, and the repository's files are two folders up (``../../README.zh.md``).
    """
    # a notebook of this edition, or its twin in the other (zh/NAME.ipynb, ../NAME.ipynb: the launch block's line)
    twin = "../" if lang == "zh" else "zh/"
    page = re.sub(
        rf'href="((?:{re.escape(twin)})?)([\w\-]+)\.ipynb(#[^"]*)?"',
        lambda m: f'href="{m.group(1)}{href(m.group(2))}{m.group(3) or ""}"',
        page,
    )
    blob = f"https://github.com/{launch_buttons.SLUG}/blob/{launch_buttons.BRANCH}/"
    if lang == "zh":
        page = re.sub(r'href="\.\./\.\./([\w\-./]+\.md(?:#[^"]*)?)"', lambda m: f'href="{blob}{m.group(1)}"', page)
        return page.replace('href="../glossary.md"', 'href="../glossary.html"')
    page = re.sub(r'href="\.\./([\w\-./]+\.md(?:#[^"]*)?)"', lambda m: f'href="{blob}{m.group(1)}"', page)
    return page.replace('href="glossary.md"', 'href="glossary.html"')


def title(nb, fallback: str) -> str:
    """The notebook's title: its first ``# `` heading, or ``fallback``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if match:
                return match.group(1).strip()
    return fallback


def offline(page: str) -> str:
    """The page without the template's scripts from the network (require.js, the widget renderer, mermaid's
    loader: nothing here needs them); :func:`external_resources` then finds nothing, or the page is refused."""
    page = re.sub(r'<script[^>]+src="https?://[^"]+"[^>]*>\s*</script>', "", page)
    return re.sub(
        r'<script type="module">(?:(?!</script>).)*?https?://(?:(?!</script>).)*</script>', "", page, flags=re.S
    )


def external_resources(page: str) -> list[str]:
    """URLs on the network that the page would load: scripts, style sheets, imports, fonts, images, frames."""
    found = re.findall(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["\']?((?:https?:)?//[^"\'\s>]+)', page)
    found += re.findall(r'@import\s+(?:url\()?\s*["\']?((?:https?:)?//[^"\')\s]+)', page)
    found += re.findall(r'\bimport\s[^;]*?from\s+["\']((?:https?:)?//[^"\']+)', page)
    return found


def widget_views(nb) -> list[str]:
    """The model ids of the widgets the notebook's outputs show, in order."""
    return [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    ]


def copy_assets(outdir: Path) -> None:
    """The CJK font, with its licence and README, into ``outdir/fonts/``."""
    folder = Path(outdir) / "fonts"
    folder.mkdir(parents=True, exist_ok=True)
    for name in FONT_FILES:
        shutil.copyfile(FONT_SOURCE / name, folder / name)


def _colab_markdown(source: str) -> str:
    first, _, _ = source.partition("\n")
    summary = html.escape(first.lstrip("# ").strip())
    return f'<details class="colab-setup"><summary>{summary}</summary>\n\n```python\n{source}\n```\n\n</details>'


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def _check_markdown(cell) -> str:
    """A check cell as a closed ``<details>``: its first comment line as the summary, its code and what it printed."""
    source = cell.source
    first = next((line for line in source.splitlines() if line.strip()), "# Check")
    printed = "".join(
        o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", "")
        for o in cell.get("outputs", [])
    )
    shown = f"\n\n```\n{printed.rstrip()}\n```" if printed.strip() else ""
    return (
        f'<details class="check-cell"><summary>{html.escape(first.strip())}</summary>\n\n```python\n{source}\n```'
        f"{shown}\n\n</details>"
    )


def _folds(cell) -> bool:
    """A check cell is folded into a ``<details>`` when all it shows is text (a figure would be lost)."""
    outputs = cell.get("outputs", [])
    return all(o.get("output_type") == "stream" or set(o.get("data", {})) <= {"text/plain"} for o in outputs)


def _img(png: str, alt: str, meta: dict) -> str:
    size = "".join(f' {k}="{int(meta[k])}"' for k in ("width", "height") if isinstance(meta.get(k), int | float))
    return f'<img src="data:image/png;base64,{png.strip()}" alt="{html.escape(alt)}"{size}>'


def prepare_notebook(nb, name: str, lang: str = "en"):
    """The executed notebook ``nb`` (page of ``name``, e.g. ``01_x.ipynb``, in ``notebooks/`` or, for
    ``lang="zh"``, ``notebooks/zh/``) made ready for its page, in place.

    - the launch block under the title becomes the page's buttons (:func:`launch_buttons.page_buttons`);
    - the Colab set-up cell becomes a closed ``<details>`` whose one visible line says what it is;
    - a check cell (tagged ``check``) becomes a closed ``<details>`` showing its first comment line;
    - each run of cells tagged ``going-further`` sits in one box (the style sheet's) that opens with a label;
    - a figure whose output carries an ``alt`` (``attention_lab.figure_text``) becomes an image with that alt.
    """
    import nbformat

    if nb.cells and nb.cells[0].cell_type == "markdown" and launch_buttons.BEGIN in nb.cells[0].source:
        source = nb.cells[0].source
        start = source.index(launch_buttons.BEGIN)
        end = source.index(launch_buttons.END) + len(launch_buttons.END)
        nb.cells[0].source = source[:start] + launch_buttons.page_buttons(name, lang) + source[end:]
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and COLAB_TAG in cell.get("metadata", {}).get("tags", []):
            nb.cells[i] = nbformat.v4.new_markdown_cell(_colab_markdown(cell.source), id=cell.get("id", f"colab-{i}"))
            continue
        if cell.cell_type == "code" and CHECK_TAG in _tags(cell) and _folds(cell):
            folded = nbformat.v4.new_markdown_cell(_check_markdown(cell), id=cell.get("id", f"check-{i}"))
            folded.metadata["tags"] = _tags(cell)  # still in its Going further box, if it is in one
            nb.cells[i] = folded
            continue
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data, meta = output.get("data", {}), output.get("metadata", {})
            png_meta = meta.get("image/png", {}) if isinstance(meta.get("image/png"), dict) else {}
            alt = png_meta.get("alt") or meta.get("alt")
            if "image/png" in data and alt:
                output["data"] = {"text/html": _img(data["image/png"], alt, png_meta)}
                output["metadata"] = {}
    _label_going_further(nb, lang)
    return nb


FURTHER_LABEL = '<p class="going-further-label">Going further: beyond the core path, which does not depend on it</p>'
FURTHER_LABEL_ZH = '<p class="going-further-label">拓展（Going further）：主线之外的内容，主线不依赖它</p>'


def _label_going_further(nb, lang: str = "en") -> None:
    """Open each run of ``going-further`` cells with a label cell of the same tag (inside the same box)."""
    import nbformat

    cells, previous = [], False
    for i, cell in enumerate(nb.cells):
        further = FURTHER_TAG in _tags(cell)
        if further and not previous:
            text = FURTHER_LABEL_ZH if lang == "zh" else FURTHER_LABEL
            label = nbformat.v4.new_markdown_cell(text, id=f"going-further-label-{i}")
            label.metadata["tags"] = [FURTHER_TAG]
            cells.append(label)
        cells.append(cell)
        previous = further
    nb.cells = cells


def lang_zh(page: str) -> str:
    """Mark each run of Chinese text in the page's visible text with ``<span lang="zh">`` (not in scripts, styles,
    attributes, ``<title>`` or ``<option>``, where a span cannot go)."""
    out, skip = [], None
    for part in re.split(r"(<[^>]*>)", page):
        if part.startswith("<"):
            tag = re.match(r"</?\s*([a-zA-Z0-9]+)", part)
            name = tag.group(1).lower() if tag else ""
            if (
                skip is None
                and not part.startswith("</")
                and name in ("script", "style", "title", "option", "textarea")
            ):
                skip = name
            elif skip is not None and part.startswith("</") and name == skip:
                skip = None
            out.append(part)
        elif skip is None and CJK_RUN.search(part):
            out.append(CJK_RUN.sub(lambda m: f'<span lang="zh">{m.group(0)}</span>', part))
        else:
            out.append(part)
    return "".join(out)


# Each edition of the site: its folder in the site, the ``lang`` of its pages, the link to it from its twin.
EDITIONS = {
    "en": {"folder": "", "html_lang": "en", "switch": "English", "label": "English edition"},
    "zh": {"folder": "zh/", "html_lang": "zh-CN", "switch": "中文", "label": "中文版"},
}
# what every edition shares, at the site's top: MathJax, the font, the explorers' script, frames, reveal.js
SHARED_ASSETS = ("mathjax/", "fonts/", "frames/", "live_explorers.js", "page_questions.js", "reveal.js/")
_SHARED = "|".join(re.escape(a) for a in SHARED_ASSETS)


def shared_assets(page: str, up: str) -> str:
    """``page`` with its references to the site's shared files (:data:`SHARED_ASSETS`) prefixed with ``up``
    (``"../"`` for a page of ``zh/``): the editions share MathJax, the font, the script and the frames, which are
    stored once (frames are named by their content, so a frame without words is the same file in both)."""
    if not up:
        return page
    page = re.sub(rf'\b(src|href|data-frames)="(?=(?:{_SHARED}))', lambda m: f'{m.group(1)}="{up}', page)
    return re.sub(rf'url\((["\']?)(?=(?:{_SHARED}))', lambda m: f"url({m.group(1)}{up}", page)


def edition_switch(lang: str, twin: str) -> str:
    """The visible link from a page to its twin in the other edition (``twin``: its address from this page)."""
    other = "zh" if lang == "en" else "en"
    edition = EDITIONS[other]
    code = edition["html_lang"]
    aria = "其他语言" if lang == "zh" else "Other language"
    return (
        f'<nav class="edition-switch" aria-label="{aria}"><a href="{html.escape(twin)}" hreflang="{code}" '
        f'lang="{code}" title="{edition["label"]}">{edition["switch"]}</a></nav>'
    )


EDITION_STYLE = """<style id="edition-switch">
.edition-switch {text-align: right; max-width: 60rem; margin: .4rem auto 0; padding: 0 1rem; font-weight: 600}
.edition-switch a {color: #005A8C; text-decoration: underline}
.reveal-viewport .edition-switch {position: fixed; top: .3rem; right: .6rem; z-index: 40; margin: 0; padding: 0}
</style>
"""


def finish_page(page: str, *, footer: bool = False, lang: str = "en", twin: str | None = None) -> str:
    """The site's style in the head, ``lang="zh"`` on Chinese text, and (``footer``) the
    questions footer before ``</body>`` (notebook pages have it as their last cell).

    ``lang="zh"``: a page of the Chinese edition (in ``zh/``): ``<html lang="zh-CN">``, the footer in Chinese,
    and the shared files one folder up. ``twin``: the address of the same page in the other edition, linked
    visibly at the top (:func:`edition_switch`) and as ``<link rel="alternate" hreflang>`` in the head.
    """
    if lang not in EDITIONS:
        raise ValueError(f"lang must be one of {sorted(EDITIONS)}, got {lang!r}")
    head = STYLE
    if twin is not None:
        other = EDITIONS["zh" if lang == "en" else "en"]["html_lang"]
        head += EDITION_STYLE + f'<link rel="alternate" hreflang="{other}" href="{html.escape(twin)}">\n'
    page = page.replace("</head>", head + "</head>", 1)
    if twin is not None:
        switch = edition_switch(lang, twin)
        body = re.search(r"<main\b[^>]*>|<body\b[^>]*>", page)
        page = page[: body.end()] + switch + page[body.end() :] if body else page
    if footer:
        page = page.replace("</body>", launch_buttons.page_footer(lang) + "\n</body>", 1)
    if lang == "zh":  # the whole page is Chinese: no span per run, the page's own lang says it
        page = re.sub(r'<html\b[^>]*?\blang="[^"]*"', '<html lang="zh-CN"', page, count=1)
        if '<html lang="zh-CN"' not in page:
            page = re.sub(r"<html\b", '<html lang="zh-CN"', page, count=1)
        return shared_assets(page, "../")
    return lang_zh(page)


def study_time(notebook: Path) -> str:
    """The notebook's study time for the index, from ``metadata.attention_lab.minutes`` (``{"core": N, "full":
    M}``, written by ``tools/lesson_times.py``): "N min (M with everything)".

    A notebook without that metadata falls back to the "Time: about N minutes" line of its first cell.
    """
    import json

    nb = json.loads(notebook.read_text(encoding="utf-8"))
    minutes = nb.get("metadata", {}).get("attention_lab", {}).get("minutes")
    if isinstance(minutes, dict) and isinstance(minutes.get("core"), int):
        full = minutes.get("full")
        return f"{minutes['core']} min" + (f" ({full} with everything)" if isinstance(full, int) and full else "")
    first = "".join(nb["cells"][0]["source"])
    match = re.search(r"Time: about (\d+) minutes", first) or re.search(r"about (\d+) minutes", first)
    return f"{match.group(1)} min" if match else ""


def index_page(pages: list, notebooks: dict, links=None) -> str:
    """The course home: what you will learn, the map of the notebooks with their times and buttons, how to run it.

    ``pages``: (stem, title, seconds to run) per notebook page; ``notebooks``: stem -> notebook path; ``links``:
    stem -> HTML to put after the page's title (the link to its slide deck).
    """
    links = links or {}
    rows = []
    for stem, title, seconds in pages:
        path = notebooks.get(stem)
        minutes = study_time(path) if path is not None else ""
        buttons = launch_buttons.page_buttons(path.name) if path is not None else ""
        rows.append(
            f'<tr><td><a href="{html.escape(stem)}.html">{html.escape(title)}</a>{links.get(stem, "")}</td>'
            f"<td>{html.escape(minutes)}</td><td>{seconds:.0f} s</td><td>{buttons}</td></tr>"
        )
    repository = html.escape(launch_buttons.REPOSITORY)
    body = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Attention, from hard to soft</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{{max-width:60rem;margin:2.5rem auto;padding:0 1.2rem;line-height:1.55;color:#212121;font-size:17px}}
h1{{font-size:2rem;margin-bottom:.2rem}} .lead{{font-size:1.15rem;color:#333}}
table{{border-collapse:collapse;width:100%;margin:1rem 0}} th,td{{text-align:left;padding:.45rem .5rem;
border-bottom:1px solid #ddd;vertical-align:top}} th{{background:#f3f3f3}}
td .launch-buttons{{margin:0;gap:.3rem}} td a.launch-button{{padding:.1rem .45rem;font-size:.85rem}}
code,pre{{background:#f5f5f5;border-radius:3px}} pre{{padding:.6rem .8rem;overflow-x:auto}}
a{{color:#0b4f8a}}
</style>
</head>
<body class="site-home"><main>
<h1>Attention, from hard to soft</h1>
<p class="lead">An interactive course on the attention mechanism: from attention as a lookup to soft attention,
kernel regression, Bahdanau attention in a translation model and self-attention in a small Transformer.
These pages show every notebook executed, with its figures, formulas and results; the explorers stay live
(move a slider and the figure follows, without a kernel).</p>

<h2>What you will learn</h2>
<ul>
<li>compute attention by hand and in numpy: scores, softmax weights, the weighted average of the values;</li>
<li>explain softmax as the smooth version of argmax, and what temperature, bandwidth and sqrt(d) scaling do;</li>
<li>read kernel regression as attention pooling, choose its bandwidth, and learn it with PyTorch;</li>
<li>mask padding, batch attention, train a seq2seq model with Bahdanau attention and read its alignments;</li>
<li>build self-attention, positional encoding, the causal mask and multi-head attention, and train a tiny
Transformer;</li>
<li>put cross-attention inside an encoder-decoder Transformer, generate text with greedy decoding, temperature,
top-k and top-p sampling, and explain the KV cache and what the causal mask buys at generation time.</li>
</ul>
<p>Prerequisites: Python and numpy, a little calculus; for notebooks 04-09 a first look at PyTorch.</p>

<h2>The notebooks, in order</h2>
<table>
<thead><tr><th scope="col">notebook</th><th scope="col">time to study</th><th scope="col">time to run</th>
<th scope="col">run it yourself</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table>
<p><a href="glossary.html">Glossary and notation</a> (术语与记号): every symbol, its name
in code, and the terms in English and Chinese.</p>

<h2>Run it on your machine</h2>
<p>With Python 3.11 or newer, from a clone of <a href="{repository}">the repository</a>:</p>
<pre><code>python -m pip install -r requirements/course.txt &amp;&amp; jupyter lab notebooks/</code></pre>
<p>installs exactly the tested versions (PyTorch's CPU build on Linux) and opens the course in JupyterLab; run
the first cell of each notebook first. Colab and Binder need no install: use the buttons above.
<code>python -m pip install -r requirements/test.txt &amp;&amp; python -m pytest</code> runs all the tests.</p>
</main>
{launch_buttons.page_footer()}
</body></html>
"""
    return body


def zh_home_markdown(readme: str, decks=()) -> str:
    """The Chinese course home's text: ``README.zh.md`` (``readme``) with its links made the site's.

    The notebooks' links go to their pages in ``zh/`` (and, for the stems in ``decks``, a link to the deck after
    each), the glossary to its one bilingual page, the repository's other files to GitHub; the Binder badge (an
    image from the network) becomes a plain link.
    """
    blob = f"https://github.com/{launch_buttons.SLUG}/blob/{launch_buttons.BRANCH}/"
    text = re.sub(r"\[!\[[^\]]*\]\([^)]*\)\]\(([^)]*)\)", r"[在 Binder 上启动](\1)", readme)

    def notebook(match) -> str:
        stem = match.group(2)
        deck = f" · [幻灯片]({stem}.slides.html)" if stem in decks else ""
        return f"[{match.group(1)}]({stem}.html){deck}"

    text = re.sub(r"\[([^\]]+)\]\(notebooks/zh/([\w\-]+)\.ipynb\)", notebook, text)
    text = text.replace("](notebooks/glossary.md)", "](../glossary.html)")
    return re.sub(r"\]\((?!https?:|#|\.\./)([\w\-./]+\.(?:md|yml|txt)(?:#[^)]*)?)\)", rf"]({blob}\1)", text)
