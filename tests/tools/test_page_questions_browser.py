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
        page = (site / ("zh" if notebook.parent.name == "zh" else "") / f"{notebook.stem}.html").read_text(
            encoding="utf-8"
        )
        calls = page_questions.exercise_calls(json.loads(notebook.read_text(encoding="utf-8")))
        asked = [c["check"] for c in calls if c["check"] in page_questions.QUESTIONS]
        blocks = re.findall(r'<script class="pq-data" type="application/json">(.*?)</script>', page, re.S)
        found = [json.loads(b)["q"] for b in blocks]
        assert [q["check"] for q in found] == asked, notebook
        for q in found:
            records = q["answers"].values() if q["mode"] == "table" else q["answers"][q["fields"][0]["name"]].values()
            assert len({json.dumps(r) for r in records}) > 1, (notebook.name, q["check"])
        assert page.count('class="page-question pq-code"') == len(calls) - len(asked), notebook


def _standalone_page(folder, name, lang):
    """A page holding only the question of check ``name`` (one that needs nothing from its notebook)."""
    import attention_lab.exercises as exercises
    from attention_lab.i18n import set_language
    from tools import page_questions

    spec = page_questions.QUESTIONS[name]
    source = "".join(f"{p} = ...\n" for p in spec) + f"{name}({', '.join(f'{p}={p}' for p in spec)})\n"
    cell = {"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": source, "id": "q"}
    call = page_questions.exercise_calls({"cells": [cell]})[0]
    set_language(lang)
    try:
        check = getattr(exercises, name)
        question = page_questions.evaluate(check, call, {name: check})
        words = {"hint": "hint", "fix": "fix"}
    finally:
        set_language("en")
    body = page_questions.question_html(question, "q1", lang, words=words)
    page = f'<!DOCTYPE html><html lang="{lang}"><head><title>q</title></head><body><main>{body}</main></body></html>'
    path = folder / f"{name}-{lang}.html"
    path.write_text(page_questions.install(page), encoding="utf-8")
    page_questions.copy_script(folder)
    return path, question


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_of_several_position_sets_composes_the_checks_messages(chromium, tmp_path, lang):
    """Three sets of positions (each answered alone in the export): wrong in two, then all right."""
    path, question = _standalone_page(tmp_path, "check_causal_influence", lang)
    fields = question["fields"]
    right = [next(k for k, r in question["answers"][f["name"]].items() if r["passed"]) for f in fields]
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    outside, errors = files_only(page), console_errors(page)
    try:
        page.goto(path.as_uri())
        form = page.locator("form.page-question")
        for p in right[2].split(",") if right[2] else []:  # the first two left empty (wrong), the third right
            form.locator(f'[data-field="2"] input[value="{p}"]').check()
        form.locator("button").click()
        shown = form.locator(".pq-feedback").inner_text()
        for i in (0, 1):
            for message in question["answers"][fields[i]["name"]][""]["messages"]:
                assert message[:30] in shown
        for i in range(len(fields)):
            for p in right[i].split(",") if right[i] else []:
                form.locator(f'[data-field="{i}"] input[value="{p}"]').check()
        form.locator("button").press("Enter")
        passed = question["answers"][fields[0]["name"]][right[0]]
        assert passed["passed"] and passed["status"] in form.locator(".pq-feedback").inner_text()
        _, violations = axe_violations(page, WCAG_21_AA, preload=False)
        assert not violations
        assert outside == [] and errors == []
    finally:
        context.close()
