"""Every explorer speaks Chinese after ``al.set_language("zh")``: its controls, tooltips, legends, titles and
axis labels, and the notes of the pages built from a Chinese kernel's frames; English stays the default.

Each explorer of the registry is built once per language (``example()``, as its notebook builds it), and every
word it shows is compared: a text that is the same in both languages may hold only math, numbers and the
course's data (fruit names, tokens, code names such as softmax), never an English word of the explorer's own.
"""

import re
import warnings
from functools import cache

import pytest
from matplotlib.text import Text

import attention_lab as al
from attention_lab.explorers import explorer_classes
from attention_lab.explorers.frames import NOTE_BROWSER, explorer_html

CLASSES = explorer_classes()
IDS = [cls.__name__ for cls in CLASSES]
CJK = re.compile(r"[\u4e00-\u9fff]")
MATH = re.compile(r"\$[^$]*\$")
# Words a Chinese explorer keeps: code names, the course's data (notebook 01's fruit, tokens), symbols.
KEPT_WORDS = {
    "softmax",
    "sparsemax",
    "argmax",
    "top",
    "apple",
    "orange",
    "pear",
    "cherry",
    "eos",
    "bos",
    "PE",
    "pos",
    "Python",
    "Gumbel",  # a name
    "log",  # functions and units
    "sin",
    "cos",
    "mg",
}
# Control labels that are symbols or code names, the same in every language.
SYMBOL_LABELS = {"T", "h", "top-k", "top-p"}
# Buttons that are code names: the kernels (the normalisers are in KEPT_WORDS).
DATA_LABELS = {"boxcar", "epanechnikov", "gaussian"}


@cache
def built(cls, language: str):
    """(manifest, every text of the figure, the frame's words) of ``cls.example()`` built in ``language``."""
    al.set_language(language)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a glyph missing from the shipped font would be a warning
            explorer = cls.example(interactive=False)
        written = getattr(explorer, "text", None)  # the sampling explorer's prompt and text: the model's, not ours
        data = {written.get_text()} if isinstance(written, Text) else set()
        texts = [a.get_text() for a in explorer.figure.findobj(lambda a: hasattr(a, "get_text"))]
        return explorer.manifest(), [t for t in texts if t and t not in data]
    finally:
        al.set_language("en")


def english_words(text: str) -> list[str]:
    """The English words of ``text`` outside its math, other than the ones every language keeps."""
    return [w for w in re.findall(r"[A-Za-z]{2,}", MATH.sub("", text)) if w not in KEPT_WORDS]


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_every_control_label_and_tooltip_is_chinese(cls):
    manifest = built(cls, "zh")[0]
    assert manifest["language"] == "zh"
    for control in manifest["controls"]:
        assert CJK.search(control["tooltip"]) and cls.__name__ in control["tooltip"], control
        if control["label"] not in SYMBOL_LABELS:
            assert CJK.search(control["label"]) and not english_words(control["label"]), control
        words = control["labels"] if control["kind"] != "select" else []  # a list offers data: dates, digits
        for label in words:  # the positions offered: numbers, code names, or Chinese ("0（硬性）")
            assert not english_words(label) or label in DATA_LABELS, (control["name"], label)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_every_word_of_the_figure_is_chinese(cls):
    chinese = built(cls, "zh")[1]
    left = [t for t in chinese if english_words(t)]  # a half-translated text fails too: no English word is left
    assert not left, f"English left in the Chinese {cls.__name__}: {left}"
    assert sum(bool(CJK.search(t)) for t in chinese) >= 3


def test_english_stays_the_default():
    """One explorer in both languages (each build costs time): the same controls, English words in English."""
    cls = CLASSES[0]
    (english, english_texts), (chinese, chinese_texts) = built(cls, "en"), built(cls, "zh")
    assert english["language"] == "en" and al.get_language() == "en"
    assert not any(CJK.search(t) for t in english_texts + [c["label"] + c["tooltip"] for c in english["controls"]])
    assert sum(bool(english_words(t)) for t in english_texts) >= 3
    assert [c["name"] for c in english["controls"]] == [c["name"] for c in chinese["controls"]]
    assert [len(c["labels"]) for c in english["controls"]] == [len(c["labels"]) for c in chinese["controls"]]
    assert set(english_texts) != set(chinese_texts)


def test_a_page_built_from_a_chinese_kernel_has_chinese_notes_in_an_english_process():
    manifest, _ = built(CLASSES[0], "zh")
    controls = [{**c, "labels": c["labels"][:2], "current": 0} for c in manifest["controls"]]  # thinned: noted
    page = {**manifest, "controls": controls, "frames": {",".join("0" * len(controls)): "x"}}
    block = explorer_html(page, "u")
    note = re.search(r'<p class="live-note">(.*?)</p>', block).group(1)
    assert al.get_language() == "en" and CJK.search(note) and not english_words(note), note
    assert "Live figure" in explorer_html({**page, "language": "en"}, "u")
    al.set_language("zh")
    try:
        assert CJK.search(al.i18n._(NOTE_BROWSER))
    finally:
        al.set_language("en")


def test_an_explorer_keeps_the_language_it_was_built_in():
    """Built in Chinese, then the process switches to English: its manifest, its later frames and its titles
    stay Chinese (one language per figure); and a reader's own axis names are drawn as given, never looked up."""
    from attention_lab.explorers import LookupExplorer, TemperatureExplorer

    al.set_language("zh")
    try:
        explorer = TemperatureExplorer.example(interactive=False)
        boxes = LookupExplorer.example(interactive=False, feature_names=["", "score"], value_names=["a", "b", "c"])
    finally:
        al.set_language("en")
    index = explorer.index()
    index[0] = (index[0] + 1) % explorer.manifest()["controls"][0]["positions"]
    explorer.frame(index)  # drawn while the process speaks English
    titles = [ax.get_title() for ax in explorer.figure.axes if ax.get_title()]
    assert explorer.manifest()["language"] == "zh" and al.get_language() == "en"
    assert sum(bool(CJK.search(t)) for t in titles) >= 2 and not [t for t in titles if english_words(t)], titles
    assert [boxes.ax_keys.get_xlabel(), boxes.ax_keys.get_ylabel()] == ["", "score"]
