"""Everything an exercise says back reaches the Chinese reader in Chinese.

Two halves: the catalogue's extractor finds every kind of message an exercise module holds (one word in ``_()``,
a choice's options assigned inside a check, a module table of rates), so the .po test in ``tests/core/test_i18n.py``
can demand a translation for each; and the zh notebooks, run as a student gets them, show their checks' feedback
without an English sentence (code, maths and names aside).
"""

import re

import pytest
from helpers import ZH_NOTEBOOKS

from attention_lab.exercises.catalogue import table_messages

# What may stay in Latin letters inside Chinese feedback: code (in backticks or not), maths, names and units.
_CODE = re.compile(
    r"```.*?```|`[^`]*`|<code>.*?</code>|<pre>.*?</pre>"  # code spans and blocks, as text and as HTML
    r"|\b[A-Za-z_][\w]*(?:\.[\w]+)+(?:\(\))?"  # dotted names: np.argmax, F.cross_entropy, .hint()
    r"|\b\w+\([^()]*\)"  # calls and functions of maths: exp(alpha_i / T), softmax(x)
    r"|\b[A-Za-z]+_[\w]+"  # names with an underscore: d_k, n_c, zero_grad
    r"|<[^>]*>",  # tags
    flags=re.S,
)
_NAMES = {
    # people, libraries and terms the Chinese edition keeps in Latin letters (the glossary's 中文 column says so)
    "pytorch",
    "numpy",
    "torch",
    "gumbel",
    "nadaraya",
    "watson",
    "laplace",
    "softmax",
    "logsumexp",
    "argmax",
    "argmin",
    "top",
    "transformer",
    "bahdanau",
    "luong",
    "adam",
    "sgd",
    "nan",
    "inf",
    "exp",
    "log",
    "sqrt",
    "max",
    "min",
    "sum",
    "mean",
    "dtype",
    "float",
    "tensor",
    "shape",
    "grad",
    "backward",
    "step",
    "logits",
    "batch",
    "vocab",
    "nats",
    "keepdims",
    "axis",
    "true",
    "false",
    "none",
    "relu",
    "tanh",
    "gru",
    "rnn",
    "loo",
    "mse",
    "kv",
    "layernorm",
    "rmsnorm",
    "qkv",
    "cdf",
    "ffn",
    "bos",
    "eos",
    "hint",
    "fix",
    "stable",
    "reinforce",
    "reshape",
    "transpose",
    "permute",
    "mergesort",
    "quicksort",
    "kind",
}


def english_words(text: str) -> list[str]:
    """The words of ``text`` that read as English prose: code, maths, names and single letters aside."""
    prose = _CODE.sub(" ", text)
    words = re.findall(r"[A-Za-z]{3,}", prose)
    return [w for w in words if w.lower() not in _NAMES]


def test_the_detector_finds_english_and_leaves_code_and_maths():
    assert english_words("✅ correct") == ["correct"]
    assert english_words("A: right.") == ["right"]
    assert english_words("从固定的起点开始，your first step is right") == ["your", "first", "right"]
    assert english_words("对 d_k = 16，`np.argsort(-alpha)[:k]` 与 exp(alpha_i / T) 相同；用 .hint()。") == []
    assert english_words("softmax 权重之和为 1（PyTorch 的 F.scaled_dot_product_attention）") == []


def test_the_extractor_finds_every_kind_of_message_and_no_code():
    source = '''
"""A module docstring: not feedback."""
RATES = {-1: "1/n is the rate without bias: what does the bias do?", 0.8: "A positive exponent: which sign?"}
FRAGMENTS = (("Expected target size", "Expected 2D"), "F.cross_entropy could not pair the logits with the targets.")
STEPS = [("bs", "mean", "your first step is right, the later ones are not.", "PyTorch accumulates gradients.")]


def check(answer):
    """A check's docstring."""
    options = {}
    options["A"] = "it lies outside the range of the values. Can an average exceed the largest value?"
    verdict = "✅ " + _("correct")
    kept = _("{kept}: right.")
    if answer == "stable words here":
        return np.argsort(answer, kind="stable")
    return implement("a short title", [], ref, doc="Exercise: the docstring, not feedback.")
'''
    found = {message for _, message in table_messages(source)}
    assert found == {
        "1/n is the rate without bias: what does the bias do?",
        "A positive exponent: which sign?",
        "F.cross_entropy could not pair the logits with the targets.",
        "your first step is right, the later ones are not.",
        "PyTorch accumulates gradients.",
        "it lies outside the range of the values. Can an average exceed the largest value?",
        "correct",
        "{kept}: right.",
        "a short title",
    }


def _feedback_outputs(nb):
    """(cell index, text) of each output that is an exercise's feedback (its verdict mark leads its title)."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = (
                data.get("text/html") or data.get("text/markdown") or data.get("text/plain") or output.get("text", "")
            )
            text = "".join(text) if isinstance(text, list) else text
            if any(mark in text for mark in ("✅", "❌", "✏️")):
                yield index, text


@pytest.mark.parametrize("path", ZH_NOTEBOOKS, ids=[p.name for p in ZH_NOTEBOOKS])
def test_a_zh_notebooks_exercise_feedback_is_chinese(path, executed):
    found = list(_feedback_outputs(executed(path).nb))
    assert found, f"{path.name}: no exercise feedback in its outputs"
    english = {index: english_words(text) for index, text in found}
    english = {index: words for index, words in english.items() if words}
    assert not english, f"{path.name}: English in the feedback of cells " + "; ".join(
        f"{index}: {' '.join(words[:8])}" for index, words in english.items()
    )
