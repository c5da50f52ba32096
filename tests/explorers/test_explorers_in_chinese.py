"""Every explorer speaks Chinese after ``al.set_language("zh")``: its controls, tooltips, legends, titles and
axis labels, and the notes of the pages built from a Chinese kernel's frames; English stays the default.

Each explorer of the registry is built once per language (``example()``, as its notebook builds it), and every
word it shows is read: a Chinese explorer may show only math, numbers, code names (softmax), names of people
and the data a model reads (tokens, dates), never an English word; notebook 01's fruit and queries, and notebook
03's kernels, are shown in Chinese while the code keeps their English names. No two of its texts overlap.
"""

import itertools
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
# Words a Chinese explorer keeps: code names, tokens, symbols, names of people.
KEPT_WORDS = {
    "softmax",
    "sparsemax",
    "argmax",
    "top",
    "eos",
    "bos",
    "PE",
    "pos",
    "Python",
    "Gumbel",  # names
    "Epanechnikov",
    "log",  # functions and units
    "sin",
    "cos",
    "mg",
}
# Control labels that are symbols or code names, the same in every language.
SYMBOL_LABELS = {"T", "h", "top-k", "top-p"}
# Lists whose options are the examples a model reads (a date, digits): its data, the same in every language.
DATA_CONTROLS = {("AlignmentExplorer", "example"), ("HeadExplorer", "example")}


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
        words = [] if (cls.__name__, control["name"]) in DATA_CONTROLS else control["labels"]
        for label in words:  # the positions offered: numbers, code names, or Chinese ("0（硬性）", "樱桃")
            assert not english_words(label), (control["name"], label)


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


def shown_texts(figure) -> list:
    """Every non-empty text drawn in ``figure``: titles, axis labels, the tick labels inside the axes' limits,
    legends, texts on the axes and on the figure."""
    texts = list(figure.texts) + [t for legend in figure.legends for t in legend.get_texts()]
    for ax in figure.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
        for ticks, labels, limits in [
            (ax.get_xticks(), ax.get_xticklabels(), ax.get_xlim()),
            (ax.get_yticks(), ax.get_yticklabels(), ax.get_ylim()),
        ]:
            low, high = sorted(limits)
            texts += [label for tick, label in zip(ticks, labels, strict=True) if low - 1e-9 <= tick <= high + 1e-9]
    return [t for t in dict.fromkeys(texts) if t.get_visible() and t.get_text().strip()]


def overlapping(explorer) -> list:
    """The pairs of texts of ``explorer``'s figure, drawn at its controls' values, whose boxes overlap."""
    explorer.frame(explorer.index())
    renderer = explorer.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown_texts(explorer.figure)]
    return [(a, b) for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2) if box_a.overlaps(box_b)]


def in_chinese(build):
    al.set_language("zh")
    try:
        return build()
    finally:
        al.set_language("en")


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_no_two_texts_of_a_chinese_explorer_overlap(cls):
    explorer = in_chinese(lambda: cls.example(interactive=False))
    assert not overlapping(explorer)


# notebook 01 (zh) builds its explorer with its own Chinese names of the axes and values, and English labels
ZH_FEATURES = ("甜度 (0-10)", "酸度 (0-10)")
ZH_VALUES = ["糖 (g)", "维生素 C (mg)", "膳食纤维 (g)"]


def test_the_fruit_boxes_speak_chinese_and_answer_to_their_english_names():
    from attention_lab.examples import fruit_boxes
    from attention_lab.explorers import LookupExplorer, lookup_small_multiples

    boxes = fruit_boxes()
    explorer = in_chinese(
        lambda: LookupExplorer(
            boxes.keys,
            boxes.values,
            boxes.labels,
            boxes.queries,
            feature_names=ZH_FEATURES,
            value_names=ZH_VALUES,
            interactive=False,
        )
    )
    assert not overlapping(explorer)  # the values' names on the output panel, side by side
    query = explorer.manifest()["controls"][0]
    assert len(query["labels"]) == len(boxes.queries) and all(CJK.search(label) for label in query["labels"])
    ticks = [t.get_text() for t in explorer.ax_scores.get_xticklabels()]
    assert len(ticks) == len(boxes.labels) and all(CJK.search(t) and not english_words(t) for t in ticks), ticks
    explorer.set(query="sweet and sour")  # the code keeps the English names
    assert explorer.control_values()["query"] == "sweet and sour"
    _alpha, weights, _output = explorer.compute("cherry", 1.0)
    assert int(weights.argmax()) == boxes.labels.index("cherry")
    figure = in_chinese(lambda: lookup_small_multiples(boxes.keys, boxes.values, boxes.labels, [7.5, 6.0]))
    names = [t.get_text() for ax in figure.axes for t in ax.get_xticklabels()]
    assert names and all(CJK.search(t) and not english_words(t) for t in names), names
