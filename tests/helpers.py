"""Small helpers shared by the tests (fixtures and settings are in ``conftest.py``).

- ``ROOT``, ``NOTEBOOK_DIR``, ``NOTEBOOKS``, ``ZH_NOTEBOOKS``: the repository, its course notebooks and their zh twins;
- ``load_solution(name)``: the reference answers of one notebook (skipped where solutions/ is left out);
- ``text(feedback)``, ``stub`` and ``raises``: for the exercise-check tests, and two of the tests every
  notebook's checks pass, for a test file to bind to ``test_*`` names: ``stub_test`` (a stub reads as not
  attempted) and ``garbage_test`` (garbage gets feedback, never an exception);
- ``pixels`` and ``artist_count``: a picture signature of an explorer and a count of its artists, to show
  that a figure changes in place (new pixels, no new artists);
- ``examples(n)``: a property's own number of examples, scaled as the Hypothesis profile in use scales the
  default (all ``n`` at 100 examples a property, a quarter in the fast loop's ``--hypothesis-profile=fast``);
- ``trained_snapshots(data)``: notebook 04's kernel regression trained for a few epochs, one snapshot each;
- for the tests in Chromium: ``chromium_or_skip()``, ``files_only(page)`` (what left the disk),
  ``console_errors(page)`` (what the page logged as an error) and ``axe_violations(page, tags)``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from attention_lab.paths import repo_root

__all__ = [
    "ROOT",
    "NOTEBOOK_DIR",
    "NOTEBOOKS",
    "ZH_NOTEBOOKS",
    "load_solution",
    "text",
    "stub",
    "raises",
    "stub_test",
    "garbage_test",
    "pixels",
    "artist_count",
    "examples",
    "trained_snapshots",
    "chromium_or_skip",
    "files_only",
    "console_errors",
    "axe_violations",
    "MATHS_DONE",
    "MATHS_ERRORS",
]

ROOT = repo_root(Path(__file__).parent)  # the library's one repository-root lookup
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
ZH_NOTEBOOKS = sorted((NOTEBOOK_DIR / "zh").glob("*.ipynb"))  # the Chinese edition (tools/translate.py)


def examples(n: int) -> int:
    """``n`` examples for a property, as the profile in use scales Hypothesis's default of 100: ``n`` in the
    ``dev`` and ``ci`` profiles, a quarter of it in the fast loop's (``fast``: 25). A test's own
    ``@settings(max_examples=n)`` would otherwise ignore the profile. Read when the test module is imported,
    after the profile is loaded."""
    return max(1, round(n * settings.default.max_examples / 100))


def load_solution(name: str):
    """The reference answers ``solutions/<name>.py`` as a module; the test is skipped in a student copy."""
    path = ROOT / "solutions" / f"{name}.py"
    if not path.exists():
        pytest.skip("solutions/ is left out of this copy of the course (a student copy)")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text(feedback) -> str:
    """All the messages of an exercise's feedback, as one string to search."""
    return " ".join(feedback.messages)


def stub(*args):
    """An exercise function left as the notebook hands it out: its body is ``...``."""
    ...


def raises(*args):
    """A student's function that fails: the check must show the error as feedback, not raise it."""
    raise RuntimeError("boom")


def stub_test(function_checks: list, other_checks: list):
    """The test that a stub reads as not attempted: ``stub``, ``...`` or None for a function an exercise asks
    for (``function_checks``), ``...`` or None for an answer that is a value (``other_checks``)."""

    @pytest.mark.parametrize("check", function_checks + other_checks)
    def test(check):
        for answer in (stub, ..., None) if check in function_checks else (..., None):
            feedback = check(answer)
            assert not feedback.passed and not feedback.attempted

    return test


def garbage_test(function_checks: list, garbage: list):
    """The test that each of ``function_checks`` fed each answer of ``garbage`` gives feedback, never raises."""

    @pytest.mark.parametrize("check", function_checks)
    @pytest.mark.parametrize("answer", garbage)
    def test(check, answer):
        feedback = check(answer)
        assert not feedback.passed
        assert feedback.messages and all(isinstance(m, str) and m for m in feedback.messages)

    return test


def pixels(explorer) -> np.ndarray:
    """The explorer's current picture as an RGBA array (a copy)."""
    return np.asarray(explorer.canvas.buffer_rgba()).copy()


def artist_count(explorer) -> int:
    """How many artists the figure holds: updates in place must not add any."""
    return sum(len(ax.get_children()) for ax in explorer.figure.axes)


def trained_snapshots(data, epochs: int = 12) -> list:
    """A snapshot (``attention_lab.training.snapshot``) of notebook 04's model before and after each of
    ``epochs`` epochs of Adam on ``data``'s leave-one-out loss."""
    import torch

    from attention_lab import nn as aln
    from attention_lab.training import snapshot

    x, y = torch.tensor(data.x_train, dtype=torch.float32), torch.tensor(data.y_train, dtype=torch.float32)
    keys, values = aln.leave_one_out(x, y)
    model = aln.NWKernelRegression(1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.5)
    snaps = [snapshot(model, 0, float("nan"), data)]
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = torch.mean((model(x, keys, values) - y) ** 2)
        loss.backward()
        optimizer.step()
        snaps.append(snapshot(model, epoch + 1, loss.item(), data))
    return snaps


# --- in Chromium (tools/browser.py is importable once conftest.py has put tools/ on the path) -------------------


def chromium_or_skip() -> None:
    """Skip a test that needs Chromium where there is none; under CI (which installs it) fail instead."""
    from tools import browser

    if not browser.chromium_available():
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"CI needs Chromium at {browser.CHROMIUM}: {browser.INSTALL_HINT}")
        pytest.skip(f"Chromium not found at {browser.CHROMIUM}; {browser.INSTALL_HINT}")


def files_only(page) -> list:
    """Let ``page`` load only ``file://`` and ``data:`` URLs; the list it returns fills with every other URL
    asked for (each refused)."""
    outside = []

    def route(request_route):
        if request_route.request.url.startswith(("file://", "data:")):
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    return outside


def console_errors(page) -> list:
    """The list it returns fills with what ``page`` logs as an error on its console, and its uncaught errors."""
    errors = []
    page.on(
        "console",
        lambda m: errors.append(f"{m.text[:200]} ({m.location.get('url', '')})") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    return errors


# The page's maths typeset: MathJax 3's start-up promise has settled (pages and decks load the site's copy), or the
# page loads no MathJax (a copy that failed to load never settles: the wait times out). A polling predicate, so that
# Playwright's wait keeps its timeout.
MATHS_DONE = """() => {
  if (document.readyState !== 'complete') return false;
  if (!document.querySelector('script[src*="mathjax/"]')) return true;
  if (!window.MathJax || !MathJax.startup) return false;
  if (!window.__mathsDone) {
    window.__mathsDone = 'waiting';
    MathJax.startup.promise.then(() => { window.__mathsDone = 'done'; });
  }
  return window.__mathsDone === 'done';
}"""
# Formulas MathJax could not typeset (a TeX error or an unknown macro: the site's set-up shows both as errors), and
# TeX it never found (unbalanced delimiters leave the source as text): text outside formulas and code that still
# holds a $...$, $$, \(, \[ or \begin{. (The notebooks write no escaped dollar, which would show as a bare "$".)
MATHS_ERRORS = r"""() => {
  let found = document.querySelectorAll('mjx-merror').length;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const skip = 'mjx-container, pre, code, script, style, textarea, .jp-OutputArea';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (/\$[^$]+\$|\$\$|\\\(|\\\[|\\begin\{/.test(node.textContent) && !node.parentElement.closest(skip)) found += 1;
  }
  return found;
}"""


# Code holds most of a notebook page's elements with text, in far fewer looks. Of the elements with text there (and
# in formulas: characters MathJax's fonts lack, its hidden MathML) that look alike (colour, size, weight, shadow,
# stroke, visibility, clip, position, whether it is drawn inside the box that clips it, the backgrounds and
# opacities of the elements it sits in, and how much text it holds: none but punctuation, one character, more),
# axe-core's colour-contrast rule judges the first; the others (marked ``axe-same-look``) are judged too when it
# could not judge the first (an "incomplete" answer: text clipped, overlapped, or on an image). Everything else on
# the page is checked element by element, and every other rule sees every element.
SAME_LOOK = r"""() => {
  const painted = new Map();  // element -> what is painted behind its text: background colours, images, opacities
  const behind = (el) => {
    if (!el) return 'page';
    if (painted.has(el)) return painted.get(el);
    const s = getComputedStyle(el);
    const own = [s.backgroundColor, s.backgroundImage, s.opacity, s.mixBlendMode, s.filter].join(' ');
    const value = own + ' / ' + behind(el.parentElement);
    painted.set(el, value);
    return value;
  };
  const clipping = new Map();  // element -> its nearest ancestor that clips what overflows it (or null)
  const clipper = (el) => {
    const parent = el.parentElement;
    if (!parent) return null;
    if (!clipping.has(parent)) {
      const s = getComputedStyle(parent);
      clipping.set(parent, s.overflowX !== 'visible' || s.overflowY !== 'visible' ? parent : clipper(parent));
    }
    return clipping.get(parent);
  };
  const inside = (el) => {  // drawn inside its clipping box (text scrolled or cut out of it is not judged)
    const box = clipper(el);
    if (!box) return true;
    const r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    return r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  };
  const firsts = new Map();  // look -> its first element
  window.__lookAlikes = new Map();  // first element -> the others
  for (const el of document.querySelectorAll('.highlight *, mjx-container *')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('');
    const letters = [...own.replace(/[\p{P}\p{S}\s]/gu, '')].length;
    if (!own.trim()) continue;  // axe judges the contrast of elements with text of their own
    const s = getComputedStyle(el);
    const look = [s.color, s.fontSize, s.fontWeight, s.textShadow, s.webkitTextStroke, s.webkitTextFillColor,
                  s.visibility, s.clip, s.clipPath, s.position,
                  letters === 0 ? 'marks' : letters === 1 ? 'one' : 'more',
                  el.checkVisibility ? el.checkVisibility({opacityProperty: true}) : '',
                  !!el.closest('mjx-assistive-mml'), inside(el), behind(el)].join('|');
    const first = firsts.get(look);
    if (first) { el.classList.add('axe-same-look'); window.__lookAlikes.get(first).push(el); }
    else { firsts.set(look, el); window.__lookAlikes.set(el, []); }
  }
  return firsts.size;
}"""

# MathJax 3 draws a formula's characters from its fonts as CSS generated content, which axe-core's colour-contrast
# rule does not read: this rule judges each formula (and each part of it with a colour of its own) by the colour
# one of its characters is drawn in against what is behind that character, with axe-core's own colour functions,
# at the threshold for normal text (for large text, 24 px and more, 3:1). Where axe cannot tell the background
# (a formula over an image), the answer is "incomplete", as for text. As for code (SAME_LOOK), formulas that look
# alike (colour, size, the backgrounds, opacities, filters and clipping of the elements they sit in) share the
# first one's answer when it is a pass or a fail; after an "incomplete", each look-alike is judged itself.
MATHS_CONTRAST = """() => {
  const painted = new Map();  // element -> what is painted behind it and what clips it, up to the page
  const behind = (el) => {
    if (!el) return 'page';
    if (!painted.has(el)) {
      const s = getComputedStyle(el);
      const own = [s.backgroundColor, s.backgroundImage, s.opacity, s.mixBlendMode, s.filter, s.overflowX,
                   s.overflowY, s.position].join(' ');
      painted.set(el, own + ' / ' + behind(el.parentElement));
    }
    return painted.get(el);
  };
  const answers = new Map();  // look -> [result, data] of its first formula, if axe could judge it
  axe.configure({
    checks: [{id: 'maths-contrast-check', evaluate: function (node) {
      // one of its own characters (a leaf: a formula's boxes overlap, which axe would take for something in front)
      const part = 'mjx-container, mjx-container [style*="color"]';
      // (mjx-utext: characters MathJax's fonts lack, drawn as text in the page's font)
      const glyph = [...node.querySelectorAll('mjx-c, mjx-utext')].find((c) => c.parentElement.closest(part) === node);
      if (!glyph) return true;  // every character is in a part with a colour of its own, judged as that part
      const style = getComputedStyle(glyph);
      const look = [style.color, style.fontSize, style.visibility, behind(glyph)].join('|');
      if (answers.has(look)) {
        const [result, data] = answers.get(look);
        this.data(data);
        return result;
      }
      let result, data = {};
      if (!axe.commons.dom.isVisibleOnScreen(glyph)) {
        result = true;  // not drawn: nothing to read
      } else {
        const bg = axe.commons.color.getBackgroundColor(glyph, []);
        const fg = bg && axe.commons.color.getForegroundColor(glyph, false, bg);
        if (!bg || !fg) return undefined;  // not remembered: each look-alike is judged itself
        const ratio = axe.commons.color.getContrast(bg, fg);
        const needed = parseFloat(style.fontSize) >= 24 ? 3 : 4.5;
        data = {ratio: Math.round(ratio * 100) / 100, needed: needed};
        result = ratio >= needed;
      }
      answers.set(look, [result, data]);
      this.data(data);
      return result;
    }}],
    rules: [{id: 'maths-contrast', selector: 'mjx-container, mjx-container [style*="color"]',
             // the drawn formula is aria-hidden (screen readers read MathJax's hidden MathML): judged all the same
             excludeHidden: false, tags: ['wcag2aa', 'wcag143'], any: ['maths-contrast-check'], impact: 'serious',
             metadata: {description: 'typeset maths has enough contrast with what is behind it',
                        help: 'maths must have sufficient colour contrast'}}]
  });
}"""


AXE_RUN = """async ([tags, preload]) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags},
    resultTypes: ['violations', 'incomplete'], preload: preload, elementRef: true});
  // a look whose first element axe could not judge: judge each of its look-alikes
  // (text too short to judge is too short in each of them: one character is part of the look)
  const short = (node) => node.any.some((check) => check.data && check.data.messageKey === 'shortTextContent');
  const unsure = (result.incomplete.find((r) => r.id === 'color-contrast') || {nodes: []}).nodes
    .filter((node) => !short(node));
  const again = unsure.flatMap((node) => window.__lookAlikes.get(node.element) || []);
  let violations = result.violations;
  if (again.length) {
    again.forEach((el) => el.classList.remove('axe-same-look'));
    const more = await axe.run({include: again},
      {runOnly: {type: 'rule', values: ['color-contrast']}, resultTypes: ['violations'], preload: preload});
    for (const found of more.violations) {
      const known = violations.find((v) => v.id === found.id);
      if (known) known.nodes = known.nodes.concat(found.nodes); else violations = violations.concat([found]);
    }
  }
  const line = (v) => ({id: v.id, impact: v.impact, count: v.nodes.length, target: v.nodes[0].target});
  return {version: result.testEngine.version, again: again.length, violations: violations.map(line)};
}"""


def axe_violations(page, tags, *, preload: bool = True) -> tuple[str, list]:
    """(axe-core's version, its violations of ``tags`` on ``page``, one line each), from the wheel's axe-core.

    The contrast of look-alike text in code is judged once per look where axe can judge it (:data:`SAME_LOOK`), and
    typeset maths by one more rule (:data:`MATHS_CONTRAST`). ``preload=False``: axe does not fetch the page's style
    sheets itself (from ``file://`` it cannot, and logs the refusal as a console error).
    """
    from axe_playwright_python.base import AXE_SCRIPT

    page.evaluate(AXE_SCRIPT)
    page.evaluate(SAME_LOOK)
    page.evaluate("() => axe.configure({rules: [{id: 'color-contrast', selector: '*:not(.axe-same-look)'}]})")
    page.evaluate(MATHS_CONTRAST)
    result = page.evaluate(AXE_RUN, [tags, preload])
    violations = [f"{v['id']} ({v['impact']}, {v['count']} elements, e.g. {v['target']})" for v in result["violations"]]
    return result["version"], violations
