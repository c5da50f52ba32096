"""The pages' questions (tools/page_questions.py): what a page shows for an answer is the check's own verdict.

- every exercise of every notebook (both editions) is either a question of the pages or code (its cell defines
  the function or class it passes), and every question the pages know is asked by some notebook;
- for every check whose other arguments the notebook does not supply (the tables and the checks with defaults),
  the exported verdict of every answer the page can take (each option or set of options, each catalogued number,
  the right ones) equals the check called on that answer, in English and in Chinese; the keys are the ones the
  page's script builds.
"""

import inspect
import json
import math

import pytest
from helpers import NOTEBOOKS, ZH_NOTEBOOKS

import attention_lab.exercises as exercises
from attention_lab.i18n import set_language
from tools import page_questions


def _calls():
    for path in [*NOTEBOOKS, *ZH_NOTEBOOKS]:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for call in page_questions.exercise_calls(nb):
            yield path, call


def test_every_exercise_is_a_page_question_or_code():
    asked = set()
    for path, call in _calls():
        if call["check"] in page_questions.QUESTIONS:
            asked.add(call["check"])
            check = getattr(exercises, call["check"])
            bound = page_questions._bind(check, call)
            missing = [p for p in page_questions.QUESTIONS[call["check"]] if p not in bound]
            assert not missing, f"{path.name}: {call['check']} is called without {missing}"
        else:
            assert call["defines"], f"{path.name}: {call['check']} takes no code; add it to QUESTIONS"
    assert asked == set(page_questions.QUESTIONS), set(page_questions.QUESTIONS) - asked


def _standalone():
    """The questions whose check needs nothing from the notebook but the asked answers."""
    for name, spec in page_questions.QUESTIONS.items():
        check = getattr(exercises, name)
        parameters = inspect.signature(check).parameters
        needed = [p for p, v in list(parameters.items())[1:] if v.default is inspect.Parameter.empty]
        if all(p in spec and spec[p]["kind"] not in ("solution", "from") for p in needed) and all(
            s.get("from") is None and s["kind"] not in ("solution", "left") for s in spec.values()
        ):
            yield name


STANDALONE = sorted(_standalone())


def _answer(field, key):
    """The value the page's key stands for, as the check is given it."""
    if field["kind"] == "number":
        value = float(key)
        return int(value) if field.get("integer") else value
    if field["kind"] == "numbers" or key.startswith("["):
        return json.loads(key)
    if field["kind"] == "positions":
        return [int(p) for p in key.split(",")] if key else []
    return key


def test_the_standalone_questions_cover_choices_numbers_and_positions():
    kinds = {f["kind"] for n in STANDALONE for f in page_questions.QUESTIONS[n].values()}
    assert {"choice", "number", "positions"} <= kinds


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", STANDALONE)
def test_the_exported_verdicts_are_the_checks_own(name, lang):
    check = getattr(exercises, name)
    spec = page_questions.QUESTIONS[name]
    source = "".join(f"{p} = ...\n" for p in spec) + f"{name}({', '.join(f'{p}={p}' for p in spec)})\n"
    call = page_questions.exercise_calls(
        {"cells": [{"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": source, "id": "x"}]}
    )[0]
    set_language(lang)
    try:
        question = page_questions.evaluate(check, call, {name: check})
        fields = question["fields"]
        if question["mode"] == "table":
            assert len(question["answers"]) == math.prod(len(f["keys"]) for f in fields)
            for key, record in question["answers"].items():
                values = {f["name"]: _answer(f, k) for f, k in zip(fields, json.loads(key), strict=True)}
                assert record == check(**values).record(html=True), (key, values)
            assert any(r["passed"] for r in question["answers"].values()), "some answer is right"
        else:
            for field in fields:  # each argument alone, the others at their right answer
                records = question["answers"][field["name"]]
                assert set(records) == set(field["keys"])
                passed = [k for k, r in records.items() if r["passed"]]
                assert len(passed) == 1
            right = {}
            for f in fields:
                right[f["name"]] = _answer(f, next(k for k, r in question["answers"][f["name"]].items() if r["passed"]))
            for field in fields:
                for key, record in question["answers"][field["name"]].items():
                    values = {**right, field["name"]: _answer(field, key)}
                    assert record == check(**values).record(html=True), (field["name"], key)
    finally:
        set_language("en")


def test_every_number_question_has_a_right_and_a_catalogued_wrong_value():
    for name, spec in page_questions.QUESTIONS.items():
        for parameter, field in spec.items():
            if field["kind"] == "number":
                assert len(field["probes"]) >= 2, (name, parameter)
