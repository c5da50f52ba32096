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


# Fonts and the pictures the page shows (not those it loads lazily, further down) have loaded, or failed and said so
# on the console.
LOADED = (
    "() => document.fonts.status === 'loaded' && "
    "[...document.images].every((img) => img.complete || img.loading === 'lazy')"
)

# Code and typeset maths hold most of a page's elements (about 14,000 of 16,000 on a notebook page), in a few
# dozen looks. A text element's contrast depends only on its look: its colour, size, weight and shadow, whether it
# is drawn at all, and the backgrounds and opacities behind it. Of the elements with text that look alike there,
# axe-core checks the first; the others (marked ``axe-same-look``) would give its answer again. Everything else on
# the page is checked element by element, and every other rule sees every element.
SAME_LOOK = """() => {
  const painted = new Map();  // element -> what is painted behind its text: background colours, images, opacities
  const behind = (el) => {
    if (!el) return 'page';
    if (painted.has(el)) return painted.get(el);
    const s = getComputedStyle(el);
    const own = s.backgroundColor + ' ' + s.backgroundImage + ' ' + s.opacity + ' ' + s.mixBlendMode;
    const value = own + ' / ' + behind(el.parentElement);
    painted.set(el, value);
    return value;
  };
  const seen = new Set();
  let checked = 0, same = 0;
  for (const el of document.querySelectorAll('.highlight *, .MathJax *, .MathJax_Display *, .MathJax_SVG *')) {
    const text = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!text) continue;  // axe checks the contrast of elements with text of their own
    const s = getComputedStyle(el);
    const look = [s.color, s.fontSize, s.fontWeight, s.textShadow, s.visibility, s.clip, s.clipPath, s.position,
                  el.checkVisibility ? el.checkVisibility({opacityProperty: true}) : '',
                  !!el.closest('.MJX_Assistive_MathML'), behind(el)].join('|');
    if (seen.has(look)) { el.classList.add('axe-same-look'); same++; } else { seen.add(look); checked++; }
  }
  return [checked, same];
}"""


def axe_violations(page, tags, *, preload: bool = True) -> tuple[str, list]:
    """(axe-core's version, its violations of ``tags`` on ``page``, one line each), from the wheel's axe-core.

    The contrast of look-alike text in code and maths is checked once per look (:data:`SAME_LOOK`).
    ``preload=False``: axe does not fetch the page's style sheets itself (from ``file://`` it cannot, and
    logs the refusal as a console error).
    """
    from axe_playwright_python.base import AXE_SCRIPT

    page.evaluate(AXE_SCRIPT)
    page.evaluate(SAME_LOOK)
    page.evaluate("() => axe.configure({rules: [{id: 'color-contrast', selector: '*:not(.axe-same-look)'}]})")
    result = page.evaluate(
        "([tags, preload]) => axe.run(document, {runOnly: {type: 'tag', values: tags}, "
        "resultTypes: ['violations'], preload: preload})",
        [tags, preload],
    )
    violations = [
        f"{v['id']} ({v['impact']}, {len(v['nodes'])} elements, e.g. {v['nodes'][0]['target']})"
        for v in result["violations"]
    ]
    return result["testEngine"]["version"], violations
