"""The static pages as a course site, for every reader: accessible (WCAG 2.1 AA), quiet, keyboard-operable, readable.

- axe-core (shipped inside the ``axe-playwright-python`` wheel; nothing is downloaded) finds no WCAG 2.1 A/AA
  violation on any page, and no page logs a console error when opened from ``file://``;
- every figure has an alt text saying what it shows; Chinese text carries ``lang="zh"``;
- every control of every live explorer is reached with Tab, shows where the focus is, and moves its figure with
  keys alone;
- Chinese draws with the shipped font where the system has none (pixels: two different characters must not
  render as the same box);
- each page has the launch buttons of its notebook at the top, the Colab cell closed, the questions footer;
- the Chinese edition (``zh/``): the same checks on its pages (``<html lang="zh-CN">``, the zh notebooks' launch
  buttons, the footer in Chinese), its course home from ``README.zh.md``, and every page linked to its twin in
  the other edition and back (``hreflang``), the links resolving on disk.

The site is the test session's one build (``built_site``). Chromium missing: skipped; under CI a failure.
"""

import functools
import html
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from helpers import MATHS_DONE, MATHS_ERRORS, NOTEBOOKS, ZH_NOTEBOOKS, axe_violations, console_errors

from tools.build_site import MATHJAX
from tools.launch_buttons import issue_links, links, numbered_notebooks

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FIRST_LOAD_MB = 5  # as test_site.py's: what a page loads before its load event, in either edition
PAGES = [*(p.stem for p in NOTEBOOKS), "glossary", "index"]
ZH_PAGES = [*(f"zh/{p.stem}" for p in ZH_NOTEBOOKS), "zh/index"]  # the Chinese edition, in the site's zh/
PLACEHOLDER_ALT = "No description has been provided for this image"


@functools.cache
def _diagram_alt_texts() -> frozenset:
    """The alt texts of the course's diagrams (attention_lab.diagrams), each written to say what it shows."""
    from attention_lab.diagrams import DIAGRAMS

    return frozenset(draw().alt for draw in DIAGRAMS.values())


@pytest.fixture(scope="module")
def site(built_site):
    return built_site[0]


def _page_text(site, stem: str) -> str:
    return (site / f"{stem}.html").read_text(encoding="utf-8")


# --- the pages as written (no browser) -------------------------------------------------------------------------


@pytest.mark.parametrize("stem", PAGES + ZH_PAGES)
def test_every_image_has_an_alt_text_saying_what_it_shows(site, stem):
    page = _page_text(site, stem)
    images = re.findall(r"<img\b[^>]*>", page)
    for tag in images:
        alt = re.search(r"""\balt=(?:"([^"]*)"|'([^']*)')""", tag)
        assert alt, f"an image without alt: {tag[:120]}"
        text = html.unescape(alt.group(1) or alt.group(2) or "")
        assert text and text != PLACEHOLDER_ALT, f"{stem}: an image whose alt says nothing: {tag[:120]}"
        described = text.startswith("Figure") or re.match(r"[A-Z]\w+Explorer|TrainingScrubber", text)
        if stem.startswith("zh/"):  # the zh kernel's figures and diagrams describe themselves in Chinese
            described = described or text.startswith("图") or re.search(r"[\u4e00-\u9fff]{4}", text)
        assert described or text in _diagram_alt_texts(), text


@pytest.mark.parametrize("stem", PAGES)
def test_chinese_text_is_marked_as_chinese(site, stem):
    page = _page_text(site, stem)
    body = re.sub(r"<(script|style|title|option)\b.*?</\1>", "", page, flags=re.S)
    text_only = re.sub(r"<span lang=\"zh\">[^<]*</span>", "", body)
    text_only = re.sub(r"<[^>]*>", "", text_only)
    assert not re.search(r"[\u4e00-\u9fff]", text_only), 'Chinese text outside a lang="zh" span'
    if re.search(r"[\u4e00-\u9fff]", body):
        assert '<span lang="zh">' in page


@pytest.mark.parametrize("path", numbered_notebooks(), ids=[p.stem for p in numbered_notebooks()])
def test_each_page_has_its_buttons_at_the_top_a_closed_colab_cell_and_the_questions(site, path):
    page = _page_text(site, path.stem)
    nav = re.search(r'<nav\b[^>]*class="launch-buttons"[^>]*>(.*?)</nav>', page, re.S)
    assert nav, "no launch buttons"
    assert page.index("<h1") < nav.start() < page.index('class="jp-Cell jp-CodeCell'), "buttons under the title"
    for url in links(path.name).values():
        assert f'href="{html.escape(url)}"' in nav.group(1)
    details = re.findall(r'<details class="colab-setup"( open)?><summary>([^<]+)</summary>', page)
    assert len(details) == 1 and details[0][0] == "", "the Colab cell is one closed <details>"
    assert "Colab" in details[0][1] and "\n" not in details[0][1]
    for _, url in issue_links().values():
        assert html.escape(url) in page


@pytest.mark.parametrize("stem", ZH_PAGES)
def test_zh_pages_are_chinese_pages(site, stem):
    page = _page_text(site, stem)
    assert re.search(r'<html lang="zh-CN"[ >]', page), "a page of the Chinese edition says so in <html lang>"
    assert not re.search(r'\b(?:src|href|data-frames)="(?:mathjax|fonts|frames|reveal\.js)/', page), (
        "the shared files are one folder up"
    )
    footer = [label for label, _ in issue_links().values()]
    assert not any(label in page for label in footer), "the questions footer in Chinese"
    assert all(html.escape(url) in page for _, url in issue_links().values())


@pytest.mark.parametrize("path", ZH_NOTEBOOKS, ids=[p.stem for p in ZH_NOTEBOOKS])
def test_each_zh_page_has_the_zh_notebooks_buttons_at_the_top(site, path):
    page = _page_text(site, f"zh/{path.stem}")
    nav = re.search(r'<nav\b[^>]*class="launch-buttons"[^>]*>(.*?)</nav>', page, re.S)
    assert nav, "no launch buttons"
    assert page.index("<h1") < nav.start() < page.index('class="jp-Cell jp-CodeCell'), "buttons under the title"
    for kind, url in links(path.name, "zh").items():
        assert f"notebooks/zh/{path.name}" in url
        assert f'href="{html.escape(url)}"' in nav.group(1), kind
    assert "Open in Colab" not in nav.group(1) and "在 Colab 中打开" in nav.group(1)
    details = re.findall(r'<details class="colab-setup"( open)?><summary>([^<]+)</summary>', page)
    assert len(details) == 1 and details[0][0] == "", "the Colab cell is one closed <details>"


def _switch(page: str):
    """(the visible link to the twin: href, hreflang; the head's alternate link's href), or None."""
    switch = re.search(r'<nav class="edition-switch"[^>]*><a href="([^"]+)" hreflang="([^"]+)"', page)
    alternate = re.search(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', page)
    if not switch:
        return None
    return switch.group(1), switch.group(2), alternate and (alternate.group(1), alternate.group(2))


TWINNED = [*PAGES, *ZH_PAGES, *(f"{p.stem}.slides" for p in NOTEBOOKS), *(f"zh/{p.stem}.slides" for p in ZH_NOTEBOOKS)]


@pytest.mark.parametrize("stem", [s for s in TWINNED if s != "glossary"])
def test_every_page_links_its_twin_in_the_other_edition_and_back(site, stem):
    """English page -> 中文, zh page -> English: a visible link with hreflang, the same in the head; the link
    resolves to a file of the site, which links back to this page (the glossary, one bilingual page, has none)."""
    found = _switch(_page_text(site, stem))
    assert found, f"{stem}: no link to its twin"
    href, hreflang, alternate = found
    zh = stem.startswith("zh/")
    assert hreflang == ("en" if zh else "zh-CN") and alternate == (hreflang, href)
    twin = (site / f"{stem}.html").parent / href
    assert twin.resolve().is_file(), f"{stem}: its twin link {href} leads nowhere"
    back = _switch(twin.read_text(encoding="utf-8"))
    assert back and (twin.parent / back[0]).resolve() == (site / f"{stem}.html").resolve(), f"{stem}: no way back"
    label = re.search(r'class="edition-switch"[^>]*><a [^>]*>(.*?)</a>', _page_text(site, stem)).group(1)
    assert re.sub(r"<[^>]+>", "", label) == ("English" if zh else "中文")


def test_the_zh_home_is_the_chinese_readme_with_every_page_and_deck(site):
    page = _page_text(site, "zh/index")
    assert "<h2" in page and "学完本课程，你将能够" in page, "README.zh.md's text"
    for path in ZH_NOTEBOOKS:
        assert f'href="{path.stem}.html"' in page and (site / "zh" / f"{path.stem}.html").is_file()
        assert f'href="{path.stem}.slides.html"' in page and (site / "zh" / f"{path.stem}.slides.html").is_file()
    assert 'href="../glossary.html"' in page
    assert not re.search(r'href="(?!https?:|#|\.\./glossary)[^"]*\.(?:md|ipynb)', page), "every link resolves"
    assert not re.search(r"<img\b[^>]*src=\"https?:", page), "the Binder badge is a link, not an image"


def test_index_is_a_course_home(site):
    page = _page_text(site, "index")
    for heading in ("What you will learn", "The notebooks, in order", "Run it on your machine"):
        assert f"<h2>{heading}</h2>" in page
    for path in numbered_notebooks():
        assert f'href="{path.stem}.html"' in page and f'href="{html.escape(links(path.name)["binder"])}"' in page
    assert re.search(r"<td>\d+ min( \(\d+ with everything\))?</td>", page), "the notebooks' study times"
    assert "requirements/course.txt" in page and (site / "fonts" / "course-cjk.ttf").is_file()
    assert (site / "fonts" / "LICENSE-Apache-2.0.txt").is_file(), "the font travels with its licence"
    for stem in ("index", "glossary"):  # the pages without a notebook end with the questions footer
        assert all(html.escape(url) in _page_text(site, stem) for _, url in issue_links().values()), stem


# --- in Chromium, from disk ------------------------------------------------------------------------------------------


def _open(chromium, site, stem, loaded=None):
    """(the page ``stem`` opened from disk with MathJax done, the list of what it logged as errors); ``loaded``:
    a list that gets the ``file://`` URLs the page had loaded by its ``load`` event (its first load)."""
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    errors = console_errors(page)
    finished = []
    page.on("requestfinished", lambda request: finished.append(request.url))
    page.goto((site / f"{stem}.html").as_uri(), wait_until="load")
    if loaded is not None:
        loaded.extend(url for url in finished if url.startswith("file://"))
    page.wait_for_function(MATHS_DONE, timeout=60_000)
    return page, errors


def _first_load_bytes(urls) -> int:
    paths = {Path(unquote(url.removeprefix("file://"))) for url in urls}
    return sum(path.stat().st_size for path in paths if path.is_file())


@pytest.mark.parametrize("stem", PAGES + ZH_PAGES)
def test_page_has_no_wcag_21_aa_violation_and_no_console_error(site, chromium, stem, record_property):
    loaded = []  # the same load tells the first load's size: the zh pages' is checked here, not by a second load
    page, errors = _open(chromium, site, stem, loaded)
    try:
        page.wait_for_timeout(500)  # late font and frame loads report their errors by now
        version, violations = axe_violations(page, WCAG_21_AA)
        maths_errors = page.evaluate(MATHS_ERRORS)
    finally:
        page.close()
    record_property("axe_violations", len(violations))
    record_property("console_errors", len(errors))
    first_load = _first_load_bytes(loaded)
    record_property("first_load_mb", round(first_load / 1e6, 2))
    assert version.startswith("4."), "axe-core 4 (WCAG 2.1 rules)"
    assert not violations, f"axe-core {version} finds: " + "; ".join(violations)
    assert not errors, f"console errors from file://: {errors[:5]}"
    assert first_load <= FIRST_LOAD_MB * 1e6, f"first load {first_load / 1e6:.1f} MB"
    assert maths_errors == 0, "MathJax could not typeset some maths"


FOCUS_STATE = """() => {
  const el = document.activeElement;
  if (el && el.closest('mjx-container')) return {maths: true};  // formulas are not in the Tab order
  const root = el && el.closest('.live-explorer');
  if (!root) return null;
  const ring = el.type === 'radio' ? el.closest('label') : el;  // a radio shows its focus on its label
  const style = getComputedStyle(ring);
  const visible = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
  return {explorer: root.id, control: el.dataset.control, kind: el.type || el.tagName.toLowerCase(),
          visible: visible, frame: root.dataset.frame};
}"""


BACK = {"ArrowRight": "ArrowLeft", "ArrowDown": "ArrowUp", "ArrowLeft": "ArrowRight", "ArrowUp": "ArrowDown"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_live_explorer_works_by_keyboard_alone(site, chromium, path):
    page, _ = _open(chromium, site, path.stem)
    try:
        explorers = page.evaluate(
            "() => [...document.querySelectorAll('.live-explorer')].map(r => [r.id, "
            "JSON.parse(r.querySelector('script.live-manifest').textContent).controls.length])"
        )
        wanted = {(root, str(i)) for root, n in explorers for i in range(n)}
        reached, moved, invisible, maths = set(), set(), [], 0
        stops = page.evaluate("() => document.querySelectorAll('a[href], input, select, [tabindex]').length")
        for _ in range(stops + 10):  # Tab through the whole page once, from the top
            page.keyboard.press("Tab")
            state = page.evaluate(FOCUS_STATE)
            maths += bool(state and state.get("maths"))
            if state is None or state.get("maths") or (state["explorer"], state["control"]) in reached:
                continue
            key = (state["explorer"], state["control"])
            reached.add(key)
            if not state["visible"]:
                invisible.append(key)
            before = state["frame"]
            for press, back in BACK.items():  # sliders, lists and radio groups
                page.keyboard.press(press)
                if page.evaluate(FOCUS_STATE)["frame"] != before:
                    moved.add(key)
                    # and back: the next control starts from the notebook's choice, where its options have frames
                    page.keyboard.press(back)
                    break
    finally:
        page.close()
    assert reached == wanted, f"controls never reached with Tab: {sorted(wanted - reached)}"
    assert maths == 0, f"Tab stopped at a formula {maths} times"
    assert not invisible, f"focus not visible on {invisible}"
    assert moved == wanted, f"controls whose keys never changed the figure: {sorted(wanted - moved)}"


GLYPH = """([char, family]) => {
  document.querySelectorAll('#glyph-probe').forEach((old) => old.remove());
  const span = document.createElement('span');
  span.id = 'glyph-probe';
  span.textContent = char;
  span.style.cssText = 'position:fixed;left:0;top:0;z-index:9999;font-size:64px;line-height:1;padding:4px;'
    + 'background:#fff;color:#000;' + (family ? 'font-family:' + family : '');
  document.body.append(span);
}"""


def _glyphs(page, chars, family=""):
    """Each character drawn alone at the same place (64 px), as PNG bytes: equal bytes, equal pictures."""
    shots = []
    for char in chars:
        page.evaluate(GLYPH, [char, family])
        shots.append(page.locator("#glyph-probe").screenshot())
    return shots


def _system_has_chinese_font() -> bool:
    try:
        return bool(
            subprocess.run(["fc-list", ":lang=zh"], capture_output=True, encoding="utf-8", timeout=30).stdout.strip()
        )
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.parametrize("stem", ["glossary", "index", "zh/index"])
def test_chinese_draws_with_the_shipped_font_without_a_system_one(site, chromium, stem):
    chars = ["术", "语", "查"]
    page, _ = _open(chromium, site, stem)
    try:
        page.evaluate("() => document.fonts.ready")
        shipped = _glyphs(page, chars)  # the page's own font stack, which names the shipped font
        tofu = _glyphs(page, chars, "sans-serif")  # without it
        loaded = page.evaluate("(c) => document.fonts.check('64px \"Course CJK\"', c)", chars[0])
    finally:
        page.close()
    assert loaded, "the page did not load the Course CJK font (fonts/course-cjk.ttf)"
    assert len(set(shipped)) == len(chars), "different characters drew the same picture: boxes, not glyphs"
    if not _system_has_chinese_font():  # the control: without the shipped font this machine draws boxes
        assert len(set(tofu)) == 1, "without the font these characters should all be the same box here"
    assert set(shipped).isdisjoint(tofu)


def test_axe_finds_poor_contrast_in_code_and_maths_where_look_alikes_are_checked_once(chromium, tmp_path):
    """Code is judged once per look (``helpers.SAME_LOOK``): a token with a poor colour and the same tokens on a
    darker code block are still found among hundreds of look-alikes, and so is a visible look-alike of a first
    element that is cut off. Maths typeset by the site's MathJax is judged formula by formula
    (``helpers.MATHS_CONTRAST``): faint formulas, a faint part of a formula and faint Chinese in a formula are found
    among dark ones; formulas that failed are counted (``helpers.MATHS_ERRORS``)."""
    from tools import site_kit

    tokens = '<span class="k">def</span> <span class="n">total</span>' * 200
    bad = tokens + '<span class="n" style="color:#bbb">faint</span>' + tokens
    maths = (
        "$q_i^\\top k_j$ " * 100
        + '<span style="color:#ccc">$z w$</span> ' * 3
        + "$\\color{#ddd}{x} + y$ "
        + '<span style="color:#eee">$\\text{注意力}$</span>'  # characters MathJax's fonts lack: drawn as text
    )
    broken = "<p>$\\foo$ $\\frac{a}$ and $x^{$ left as it was</p>"  # an unknown macro, a TeX error, TeX never found
    # the first of these look-alikes is cut out of its box, so axe does not judge it: the second is judged
    clipped = (
        f'<div class="highlight" style="width:80px;overflow:hidden;white-space:nowrap"><pre>{"x" * 40}'
        f'<span class="s" style="color:#ddd">hidden</span></pre></div>'
        '<div class="highlight" style="width:80px;overflow:hidden"><pre>'
        '<span class="s" style="color:#ddd">shown</span></pre></div>'
    )
    mathjax = (MATHJAX / "tex-chtml-full.js").as_uri()  # the copy the site ships
    page_html = (
        "<!doctype html><html lang='en'><head><title>t</title><style>.highlight{background:#f5f5f5}"
        f".dark{{background:#555}}.k{{color:#008000}}.n{{color:#212121}}</style>{site_kit.MATHJAX_CONFIG}"
        f'<script src="{mathjax}"></script></head><body><main>'
        f"<div class='highlight'><pre>{bad}</pre></div><div class='highlight dark'><pre>{tokens}</pre></div>"
        f"<p>{maths}</p>{clipped}</main></body></html>"
    )
    (tmp_path / "contrast.html").write_text(page_html, encoding="utf-8")
    page = chromium.new_page()
    try:
        page.goto((tmp_path / "contrast.html").as_uri())
        page.wait_for_function(MATHS_DONE, timeout=60_000)
        typeset = page.evaluate("document.querySelectorAll('mjx-container').length")
        clean = page.evaluate(MATHS_ERRORS)
        _, violations = axe_violations(page, WCAG_21_AA)
        marked = page.evaluate("document.querySelectorAll('.axe-same-look').length")
        (tmp_path / "broken.html").write_text(page_html.split("<main>")[0] + f"<main>{broken}</main>", encoding="utf-8")
        page.goto((tmp_path / "broken.html").as_uri())
        page.wait_for_function(MATHS_DONE, timeout=60_000)
        errors = page.evaluate(MATHS_ERRORS)
    finally:
        page.close()
    assert marked >= 800 and typeset == 105 and clean == 0, "the look-alikes were grouped, the maths typeset"
    assert errors == 3, "an unknown macro, a TeX error and TeX MathJax never found are each counted"
    (contrast,) = [v for v in violations if v.startswith("color-contrast")]
    # the faint token, the dark block's two looks (its first def and its first total), shown
    assert ", 4 elements," in contrast, contrast
    (faint_maths,) = [v for v in violations if v.startswith("maths-contrast")]
    assert ", 5 elements," in faint_maths, faint_maths  # the three faint formulas, the faint x, the faint Chinese


def test_alt_and_lang_checks_can_fail(tmp_path):
    """The static checks above catch a placeholder alt and unmarked Chinese (they are not true by construction)."""
    bad = tmp_path / "bad.html"
    bad.write_text(f'<html><body><img src="x.png" alt="{PLACEHOLDER_ALT}"><p>中文</p></body></html>', encoding="utf-8")
    with pytest.raises(AssertionError):
        test_every_image_has_an_alt_text_saying_what_it_shows(tmp_path, "bad")
    with pytest.raises(AssertionError):
        test_chinese_text_is_marked_as_chinese(tmp_path, "bad")


def test_a_zh_page_finds_the_shared_files_one_folder_up_and_its_own_links():
    """No site needed: what ``finish_page`` and ``local_links`` make of a zh page, and what they leave alone."""
    from tools import site_kit

    page = (
        '<html lang="en"><head><script src="mathjax/tex-chtml-full.js"></script></head><body><main>'
        '<div class="live-explorer" data-frames="frames/"><img src="frames/ab.png"></div>'
        '<a href="../glossary.md">g</a> <a href="01_x.ipynb#s">n</a> <a href="../../README.zh.md#c">r</a>'
        '<a href="https://example.org/frames/x.png">x</a><a href="../01_x.ipynb">en</a></main></body></html>'
    )
    english = site_kit.local_links('<a href="zh/01_x.ipynb">zh</a><a href="../README.md">r</a>', lambda s: s + ".html")
    assert 'href="zh/01_x.html"' in english and "blob/main/README.md" in english
    page = site_kit.local_links(page, lambda stem: f"{stem}.html", "zh")
    done = site_kit.finish_page(page, lang="zh", twin="../01_x.html", footer=True)
    assert done.startswith('<html lang="zh-CN">') and "<span lang" not in done.split("</head>")[1].split("<footer")[0]
    assert 'src="../mathjax/tex-chtml-full.js"' in done and 'data-frames="../frames/"' in done
    assert 'src="../frames/ab.png"' in done and 'url("../fonts/course-cjk.ttf")' in done
    assert 'href="https://example.org/frames/x.png"' in done, "an address elsewhere is left alone"
    assert 'href="../glossary.html"' in done and 'href="01_x.html#s"' in done and 'href="../01_x.html"' in done
    assert 'href="https://github.com/' in done and "README.zh.md#c" in done
    assert '<nav class="edition-switch"' in done and 'hreflang="en"' in done and "提问" in done
    with pytest.raises(ValueError, match="lang must be one of"):
        site_kit.finish_page(page, lang="fr")


def test_the_builder_refuses_a_zh_notebook_named_alone(tmp_path):
    """A zh notebook is built with its English twin, into zh/: named alone it is refused before anything runs."""
    from tools import build_site

    with pytest.raises(ValueError, match="notebooks must be English notebooks"):
        build_site.build_site(tmp_path / "site", [ZH_NOTEBOOKS[0]])
    assert not (tmp_path / "site").exists()
    assert [p.name for p in build_site.zh_twins(NOTEBOOKS)] == [p.name for p in ZH_NOTEBOOKS]
