"""A page's question answered in Chromium, offline, in both editions: wrong, then right, with the check's feedback.

The page is notebook 00's (the site's first notebook page, found by its number's place, not its name), at a phone's
size (390 x 844): the reader types an answer, presses Enter (the keyboard path), and the feedback that appears is
the verdict the notebook's check gave for that answer at build time (read from the page's own exported data, so
no wording is repeated here), the focus moved onto it; a right answer then reads as passed. Nothing is fetched
from outside the page's folder, nothing logs an error, and axe finds no WCAG 2.1 A/AA violation in the question.
"""

import json
import re

import pytest
from helpers import MATHS_DONE, axe_violations, console_errors, files_only

PHONE = {"width": 390, "height": 844}
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def _first_page_with_a_number_question(site, lang):
    folder = site / "zh" if lang == "zh" else site
    for page in sorted(folder.glob("[0-9][0-9]_*.html")):
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r'<script class="pq-data" type="application/json">(.*?)</script>', text, re.S):
            data = json.loads(block)
            fields = data["q"]["fields"]
            if data["q"]["mode"] == "table" and len(fields) == 1 and fields[0]["kind"] == "number":
                return page, data
    return None, None


def _answer(page, form, text):
    field = form.locator("input[type=text]")
    field.fill(text)
    field.press("Enter")
    feedback = form.locator(".pq-feedback")
    feedback.wait_for(state="visible")
    return feedback


def answer_wrong_then_right(chromium, site, lang, screenshot=None):
    """Answer the first one-number question of the edition's first page wrong, then right; check what it shows."""
    path, data = _first_page_with_a_number_question(site, lang)
    assert path is not None, f"no page of the {lang} edition asks for a number"
    question = data["q"]
    key = {k: json.loads(k)[0] for k in question["answers"]}
    wrong = next(k for k, r in question["answers"].items() if not r["passed"] and r["hint"])
    right = next(k for k, r in question["answers"].items() if r["passed"])
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    outside, errors = files_only(page), console_errors(page)
    try:
        page.goto(path.as_uri())
        page.wait_for_function(MATHS_DONE)
        form = page.locator("form.page-question", has=page.locator("input[type=text]")).first
        form.scroll_into_view_if_needed()
        feedback = _answer(page, form, key[wrong])
        expected = question["answers"][wrong]
        shown = feedback.inner_text()
        assert expected["status"] in shown
        for message in expected["messages"]:  # the check's own words, as exported
            assert re.sub(r"<[^>]+>", "", message).replace("&gt;", ">").replace("&lt;", "<")[:40] in shown
        assert page.evaluate("document.activeElement.classList.contains('pq-feedback')"), "focus on the feedback"
        assert feedback.get_attribute("aria-live") == "polite"
        hint = feedback.locator("details.pq-hint")
        assert not hint.evaluate("d => d.open"), "the hint is folded"
        hint.locator("summary").click()
        assert hint.evaluate("d => d.open")
        if screenshot:
            page.screenshot(path=str(screenshot))
        _, violations = axe_violations(page, WCAG_21_AA, preload=False)
        assert not [v for v in violations if "page-question" in v or "pq-" in v], violations
        feedback = _answer(page, form, key[right])
        assert question["answers"][right]["status"] in feedback.inner_text()
        assert outside == [] and errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_page_question_answered_wrong_then_right(chromium, built_site, lang):
    answer_wrong_then_right(chromium, built_site[0], lang)


def test_every_question_of_a_notebook_is_answerable_in_its_page(built_site):
    """Each exercise whose check the pages know (``QUESTIONS``) has its question in its page, in both editions,
    whose answers get different verdicts; each code exercise says where to run it."""
    from helpers import NOTEBOOKS, ZH_NOTEBOOKS

    from tools import page_questions

    site = built_site[0]
    for notebook in [*NOTEBOOKS, *ZH_NOTEBOOKS]:
        page = (site / ("zh" if notebook.parent.name == "zh" else "") / f"{notebook.stem}.html").read_text("utf-8")
        calls = page_questions.exercise_calls(json.loads(notebook.read_text(encoding="utf-8")))
        asked = [c["check"] for c in calls if c["check"] in page_questions.QUESTIONS]
        blocks = re.findall(r'<script class="pq-data" type="application/json">(.*?)</script>', page, re.S)
        found = [json.loads(b)["q"] for b in blocks]
        assert [q["check"] for q in found] == asked, notebook
        for q in found:
            records = q["answers"].values() if q["mode"] == "table" else q["answers"][q["fields"][0]["name"]].values()
            assert len({json.dumps(r) for r in records}) > 1, (notebook.name, q["check"])
        assert page.count('class="page-question pq-code"') == len(calls) - len(asked), notebook
