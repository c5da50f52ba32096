"""The library speaks Chinese: attention_lab.i18n and its gettext catalogues.

Every message the code marks (``_()``, ``ngettext()``, ``N_()``) has a Chinese translation with the same
placeholders; the compiled .mo says what the .po says; set_language and ATTENTION_LAB_LANG select the language,
English stays the default, and a figure's text changes with it.
"""

import gettext
import io
import re
import subprocess
import sys

import numpy as np
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from helpers import ROOT
from matplotlib.figure import Figure

import attention_lab as al
from attention_lab import diagrams, i18n
from attention_lab.figure_text import describe
from attention_lab.versions import report

LOCALE = ROOT / "src" / "attention_lab" / "locale"
PO = LOCALE / "zh" / "LC_MESSAGES" / "attention_lab.po"
MO = PO.with_suffix(".mo")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")  # str.format fields, and the braces of TeX, which must survive too


@pytest.fixture
def chinese():
    al.set_language("zh")
    try:
        yield
    finally:
        al.set_language("en")


def _catalogue() -> dict:
    """The .po's messages by msgid; one with a context (pgettext) by (context, msgid)."""
    return {(m.context, m.id) if m.context else m.id: m for m in read_po(io.BytesIO(PO.read_bytes())) if m.id}


def _extracted() -> set:
    """Every message the package's code marks, as pybabel extract finds it with babel.cfg's map."""
    found = set()
    tables = ("exercises/**.py", "attention_lab.exercises.catalogue:extract")  # babel.cfg's map
    for _, _, message, _, _ in extract_from_dir(str(ROOT / "src" / "attention_lab"), [tables, ("**.py", "python")]):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def test_every_marked_message_has_a_chinese_translation_with_the_same_placeholders():
    catalogue, marked = _catalogue(), _extracted()
    assert len(marked) > 80
    msgids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogue.values()}
    missing = sorted(str(m) for m in marked if (m if isinstance(m, str) else m[0]) not in msgids)
    assert not missing, f"not in the .po (pybabel extract, then update, CONTRIBUTING.md): {missing[:5]}"
    for message in catalogue.values():
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        assert all(strings) and not message.fuzzy, f"untranslated or fuzzy: {message.id!r}"
        for text in strings:
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(ids[0])), (message.id, text)
            assert re.search(r"[\u4e00-\u9fff，。：；？！（）“”、]", text) or text == ids[0], f"not Chinese: {text!r}"
    used = {x if isinstance(x, str) else x[0] for x in marked}
    stale = sorted(str(m.id) for m in catalogue.values() if (m.id if isinstance(m.id, str) else m.id[0]) not in used)
    assert not stale, f"messages no code uses any more (pybabel update drops them): {stale[:5]}"


def test_the_compiled_catalogue_says_what_the_po_says():
    compiled = gettext.GNUTranslations(io.BytesIO(MO.read_bytes()))
    for message in _catalogue().values():
        found = compiled.pgettext(message.context, message.id) if message.context else compiled.gettext(message.id)
        assert found == message.string, f"the .mo is stale (pybabel compile): {message.id!r}"


def test_english_is_the_default_and_set_language_switches_a_figures_text(chinese):
    al.set_language("en")
    english = [t.get_text() for t in diagrams.course_map().figure.axes[0].texts]
    assert "queries, keys, values" in english and al.get_language() == "en"
    al.set_language("zh")
    chinese_texts = [t.get_text() for t in diagrams.course_map().figure.axes[0].texts]
    assert "查询、键和值" in chinese_texts and "queries, keys, values" not in chinese_texts
    assert diagrams.three_steps().alt.startswith("注意力的三个步骤")  # a diagram's alt text too


def test_the_alt_texts_with_computed_numbers_speak_chinese_too(chinese):
    alts = {
        name: getattr(diagrams, name)().alt for name in ("hard_vs_soft", "nadaraya_watson_pooling", "leave_one_out")
    }
    assert "0.13、0.58、0.08 和 0.21" in alts["hard_vs_soft"]  # the numbers of the English, listed the Chinese way
    assert all(re.search(r"[\u4e00-\u9fff]", alt) and alt != diagrams.ALT_TEXT[name] for name, alt in alts.items())
    al.set_language("en")
    assert diagrams.leave_one_out().alt == diagrams.ALT_TEXT["leave_one_out"]


def test_a_figures_title_and_its_alt_text_follow_the_language(chinese):
    from attention_lab.training import LiveLoss

    live = LiveLoss(3, show=False)
    assert live.ax.get_title() == "训练" and live.ax.get_xlabel() == "轮次"
    live.update(0, train=1.0)
    assert live.ax.get_title() == "训练，轮次 1/3"
    fig = Figure()
    ax = fig.add_subplot()
    ax.set_title("t")
    assert describe(fig) == "图：“t”。"


def test_the_version_report_speaks_chinese(chinese):
    out = io.StringIO()
    report(out)
    assert "PyTorch 在 CPU 上运行" in out.getvalue() or "不知道" in out.getvalue()


def test_chinese_labels_mixed_with_math_draw_without_missing_glyphs(chinese, recwarn):
    """Mathtext draws the text around $...$ in one font: the shipped subset must hold every glyph it needs."""
    import logging

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("matplotlib.mathtext").addHandler(handler)
    try:
        for make in diagrams.DIAGRAMS.values():
            make().figure.canvas.draw()
    finally:
        logging.getLogger("matplotlib.mathtext").removeHandler(handler)
    assert not [r.getMessage() for r in records if "does not have a glyph" in r.getMessage()]


@pytest.mark.parametrize("bad", ["fr", "", None, 3, "chinese"])
def test_an_unknown_language_is_a_value_error_naming_the_argument(bad):
    with pytest.raises(ValueError, match="language must be one of en, zh"):
        al.set_language(bad)
    assert al.get_language() == "en"


def test_locale_names_select_the_language(chinese):
    for name in ("zh_CN", "zh-Hans", "ZH", "zh_CN.UTF-8"):
        al.set_language(name)
        assert al.get_language() == "zh"
    al.set_language("en_GB")
    assert al.get_language() == "en" and i18n._("epoch") == "epoch"


@pytest.mark.slow
@pytest.mark.parametrize(("value", "expected"), [("zh", "zh"), ("zh_CN.UTF-8", "zh"), ("en", "en"), ("", "en")])
def test_the_environment_variable_selects_the_language(value, expected):
    code = "import attention_lab.i18n as i; print(i.get_language(), i._('epoch'))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        env={**__import__("os").environ, "ATTENTION_LAB_LANG": value},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [expected, "轮次" if expected == "zh" else "epoch"]


@pytest.mark.slow
def test_a_bad_environment_variable_names_it():
    result = subprocess.run(
        [sys.executable, "-c", "import attention_lab.i18n"],
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        env={**__import__("os").environ, "ATTENTION_LAB_LANG": "klingon"},
    )
    assert result.returncode != 0 and "ATTENTION_LAB_LANG must be one of en, zh" in result.stderr


@pytest.mark.slow
def test_the_catalogues_load_from_a_non_editable_install(tmp_path, wheel):
    """A wheel carries the .po and .mo, and an install of it (not the source tree) speaks Chinese."""
    target = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        encoding="utf-8",
    )
    assert installed.returncode == 0, installed.stderr
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import attention_lab.i18n as i; "
        "assert i.__file__.startswith(sys.argv[1]), i.__file__; i.set_language('zh'); print(i._('epoch'))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(target)], capture_output=True, encoding="utf-8", timeout=300, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "轮次"
    assert (target / "attention_lab" / "locale" / "zh" / "LC_MESSAGES" / "attention_lab.po").is_file()


def _no_shift(scores, temperature=1.0):  # a student's softmax without the max shift: NaN on huge scores
    e = np.exp(np.asarray(scores) / temperature)
    return e / e.sum(axis=-1, keepdims=True)


def test_exercise_feedback_speaks_chinese_at_every_step_of_the_ladder(chinese):
    from attention_lab.exercises import check_softmax

    feedback = check_softmax(_no_shift)
    first, html = feedback.messages[0], feedback._repr_html_()
    assert not feedback.passed and re.search(r"[\u4e00-\u9fff]", first) and "[nan, nan, nan]" in first
    assert "{" not in first and "，你返回了" in first  # the case's name joined as Chinese joins it
    assert re.search(r"[\u4e00-\u9fff]", feedback.hint()) and "还不对" in repr(feedback)
    assert "<summary>进一步提示</summary>" in html and "A further hint" not in html
    assert "尚未作答" in repr(check_softmax(...))


def test_exercise_feedback_stays_english_by_default():
    from attention_lab.exercises import check_softmax

    first = check_softmax(_no_shift).messages[0]
    assert first.startswith("For the huge scores [1000, 1001, 999] at T = 1, you returned [nan, nan, nan].")


def test_the_table_extractor_finds_messages_not_code():
    from attention_lab.exercises.catalogue import table_messages

    source = """
WHY = "Which axis holds the keys here?"
check = implement("a title for the student", [Case((1,), "For one key")], ref, [
    Mistake.of(f, "{where} you returned {got}: what did the shift do?", WHY, fix="`x - x.max()`"),
], doc="Exercise: the docstring, not feedback.", success="Right on every case.", shape="one weight per key")
np.argsort(a, kind="stable")
"""
    found = {message for _, message in table_messages(source)}
    assert found == {
        "a title for the student",
        "For one key",
        "{where} you returned {got}: what did the shift do?",
        "Which axis holds the keys here?",
        "Right on every case.",
        "one weight per key",
    }


def test_speaking_holds_inside_its_block_only():
    """An explorer draws a later frame in the language it was built in; then the process speaks its own again,
    even when the drawing fails."""
    i18n.set_language("en")
    with i18n.speaking("zh"):
        assert i18n.get_language() == "zh" and i18n._("0 (hard)") != "0 (hard)"
    assert i18n.get_language() == "en" and i18n._("0 (hard)") == "0 (hard)"
    with pytest.raises(RuntimeError), i18n.speaking("zh"):
        raise RuntimeError("a frame that failed")
    assert i18n.get_language() == "en"
