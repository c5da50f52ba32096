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


def _standalone_question(name, lang="en"):
    spec = page_questions.QUESTIONS[name]
    source = "".join(f"{p} = ...\n" for p in spec) + f"{name}({', '.join(f'{p}={p}' for p in spec)})\n"
    cell = {"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": source, "id": "x"}
    call = page_questions.exercise_calls({"cells": [cell]})[0]
    check = getattr(exercises, name)
    set_language(lang)
    try:
        return check, page_questions.evaluate(check, call, {name: check})
    finally:
        set_language("en")


@pytest.mark.parametrize("name", ["check_bandwidth_rate", "check_smooth_max_gap"])
def test_a_number_question_exports_the_checks_own_range_of_right_answers(name):
    """Just inside each exported range the check passes, just outside it fails (the others at their right value)."""
    check, question = _standalone_question(name)
    passing = next(json.loads(k) for k, r in question["answers"].items() if r["passed"])
    right = {f["name"]: _answer(f, k) for f, k in zip(question["fields"], passing, strict=True)}
    numbers = [f for f in question["fields"] if f["kind"] == "number"]
    assert numbers
    for field in numbers:
        assert len(field["right"]) == 1
        low, high = field["right"][0]
        width = high - low
        assert 0 < width < 0.1
        for inside in (low + width * 1e-3, high - width * 1e-3):
            assert check(**{**right, field["name"]: inside}).passed, (field["name"], inside)
        for outside in (low - width * 1e-2, high + width * 1e-2):
            assert not check(**{**right, field["name"]: outside}).passed, (field["name"], outside)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_whose_rest_is_measured_in_the_notebook_marks_its_right_answer(lang):
    """03's noise: the right prediction with h_noisy left to the notebook is marked ``left``, a wrong one is not;
    on a zh page its words show in Chinese, beside the word the check takes."""
    import numpy as np

    from attention_lab.kernels import loo_bandwidth

    check = exercises.check_noise_prediction
    x = np.linspace(0, 5, 60)
    y = np.sin(x) + np.random.default_rng(0).normal(0, 0.6, x.size)
    h_calm = loo_bandwidth(x, np.sin(x) + np.random.default_rng(0).normal(0, 0.3, x.size))
    namespace = {"check_noise_prediction": check, "x": x, "y": y, "h_calm": h_calm}
    source = "prediction = ...\nh_noisy = ...\ncheck_noise_prediction(prediction, h_noisy, x, y, h_calm)\n"
    cell = {"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": source, "id": "x"}
    set_language(lang)
    try:
        question = page_questions.evaluate(check, page_questions.exercise_calls({"cells": [cell]})[0], namespace)
    finally:
        set_language("en")
    assert question["left"] == ["h_noisy"]
    field = question["fields"][0]
    if lang == "zh":
        assert all(o in label and label != o for o, label in zip(field["options"], field["labels"], strict=True))
    else:
        assert "labels" not in field
    marked = {json.loads(k)[0]: bool(r.get("left")) for k, r in question["answers"].items()}
    assert sum(marked.values()) == 1, marked
    assert not any(r["passed"] for r in question["answers"].values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_answered_with_the_courses_function_says_nothing_of_the_readers(lang):
    """05: the page runs the course's function, so no verdict tells the reader "your function is right"; a
    prediction of ln 8 as the page prints it (2.08, uniform) is read as a prediction, not rejected as out of range."""
    from attention_lab.exercises import notebook_05
    from attention_lab.i18n import _

    check = exercises.check_unscaled_entropy
    source = "predicted_entropy = ...\ncheck_unscaled_entropy(predicted_entropy, unscaled_attention_weights)\n"
    cell = {"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": source, "id": "x"}
    call = page_questions.exercise_calls({"cells": [cell]})[0]
    solution = page_questions._solution_module(check)
    namespace = {"check_unscaled_entropy": check, "unscaled_attention_weights": solution.unscaled_attention_weights}
    set_language(lang)
    try:
        said = _(notebook_05.FUNCTION_RIGHT)
        question = page_questions.evaluate(check, call, namespace, solution)
        in_the_notebook = check(2.08, solution.unscaled_attention_weights)
    finally:
        set_language("en")
    assert question["solution"]
    assert said in in_the_notebook.record()["messages"], "the notebook tells its reader the function is right"
    records = question["answers"]
    assert not [k for k, r in records.items() if any(said in m for m in r["messages"])]
    assert records['["2.08"]']["attempted"] and records['["2.08"]']["hint"], "2.08 is judged as a prediction"
