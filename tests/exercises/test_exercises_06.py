"""The exercise checks of notebook 06: reference answers pass, typical mistakes get their own hint, garbage gets
feedback and never an exception, and no feedback gives the answer away."""

import numpy as np
import pytest
import torch
from helpers import load_solution, raises, stub_test, text

from attention_lab import exercises as ex
from attention_lab.translation_data import Vocab


@pytest.fixture(scope="module")
def nb06():
    return load_solution("notebook_06")


FUNCTION_CHECKS = [ex.check_luong_attentional_state, ex.check_greedy_decode]
CHOICE_CHECKS = [ex.check_uniform_attention_prediction, ex.check_forward_encoder_prediction]


def test_reference_answers_pass(nb06):
    assert ex.check_luong_attentional_state(nb06.luong_attentional_state).passed
    assert ex.check_uniform_attention_prediction(nb06.UNIFORM_PREDICTION).passed
    assert ex.check_forward_encoder_prediction(nb06.FORWARD_ENCODER_PREDICTION).passed
    assert ex.check_greedy_decode(nb06.greedy_decode).passed


def test_right_answers_offer_no_hint(nb06):
    for feedback in (
        ex.check_luong_attentional_state(nb06.luong_attentional_state),
        ex.check_uniform_attention_prediction(nb06.UNIFORM_PREDICTION),
        ex.check_greedy_decode(nb06.greedy_decode),
    ):
        shown = repr(feedback) + feedback._repr_markdown_() + feedback._repr_html_()
        assert feedback.passed and not any(word in shown for word in (".hint()", ".fix()", "<details>"))


test_stubs_are_not_attempted = stub_test(FUNCTION_CHECKS, CHOICE_CHECKS)


GARBAGE_FUNCTIONS = [
    lambda *a: "text",
    lambda *a: {"a": 1},
    lambda *a: np.full(3, np.nan),
    lambda *a: np.full(3, np.inf),
    lambda *a: np.zeros((2, 2, 2)),
    lambda *a: np.ones(3) * (1 + 1j),
    lambda *a: torch.ones(3, requires_grad=True),
    lambda *a: torch.ones(4, 6, requires_grad=True) * 2,
    lambda *a: [[1, 2], [3]],
    raises,
    42,
    "my_function",
]


@pytest.mark.parametrize("check", FUNCTION_CHECKS)
@pytest.mark.parametrize("answer", GARBAGE_FUNCTIONS)
def test_garbage_gets_feedback_not_an_exception(check, answer):
    feedback = check(answer)
    assert not feedback.passed and feedback.attempted and feedback.messages
    assert "Traceback" not in text(feedback)


@pytest.mark.parametrize("check", CHOICE_CHECKS)
@pytest.mark.parametrize("answer", [42, "E", "", "BC", {"B": 1}, np.nan, float("inf"), 1 + 2j, torch.tensor(1.0), b"B"])
def test_choice_garbage_gets_feedback(check, answer):
    feedback = check(answer)
    assert not feedback.passed and ("one letter" in text(feedback) or "one option" in text(feedback))


def test_choices_are_read_leniently():
    assert ex.check_uniform_attention_prediction(" c ").passed
    assert ex.check_forward_encoder_prediction("B)").passed


# --- Luong's attentional state ----------------------------------------------------------------------------------


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def luong(order="cs", squash=np.tanh, weights=softmax):
    def answer(s, E, W, W_c):
        c = weights(E @ W.T @ s) @ E
        return squash(W_c @ (np.concatenate([c, s]) if order == "cs" else np.concatenate([s, c])))

    return answer


@pytest.mark.parametrize(
    "answer, hint",
    [
        (luong(order="sc"), "the state followed by the context"),
        (luong(squash=lambda x: x), "also goes through tanh"),
        (luong(weights=lambda a: a), "raw scores were used as weights"),
        (luong(weights=lambda a: np.full(a.shape, 1 / a.size)), "plain average"),
        (lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([E.mean(axis=0), s]))[:2], "shape (3,)"),
        (
            lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([E.T @ softmax(E @ W.T @ s), s])) + 5,
            "lies between -1 and 1",
        ),
        (lambda s, E, W, W_c: np.full(3, np.nan), "NaN"),
    ],
)
def test_luong_mistakes_are_explained(answer, hint):
    feedback = ex.check_luong_attentional_state(answer)
    assert not feedback.passed and hint in text(feedback)


def test_luong_feedback_never_prints_the_answer(nb06):
    rng = np.random.default_rng(11)
    s, E, W, W_c = rng.normal(size=3), rng.normal(size=(5, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 7)) / 2
    expected = nb06.luong_attentional_state(s, E, W, W_c)
    for answer in (luong(order="sc"), luong(squash=lambda x: x), lambda *a: np.zeros(3), lambda *a: np.ones(3) * 0.1):
        shown = text(ex.check_luong_attentional_state(answer))
        assert not any(f"{v:.3f}"[:5] in shown for v in expected)


def test_luong_step_in_numpy_is_the_library_decoder_step(nb06):
    """The reference answer is the library's LuongDecoder attention step, s~_t = tanh(W_c [c_t; s_t])."""
    from attention_lab.seq2seq import Seq2Seq

    torch.manual_seed(3)
    model = Seq2Seq(9, 8, embed_size=4, num_hiddens=5, decoder="luong", score="general").double()
    src, lens = torch.tensor([[4, 5, 6, 2]]), torch.tensor([4])
    memory = model.encode(src, lens)
    decoder = model.decoder
    state, attentional = decoder.start(memory.summary)
    _, (s_t, tilde), _ = decoder.step(torch.tensor([Vocab.BOS]), (state, attentional), memory)
    mine = nb06.luong_attentional_state(
        s_t[0].detach().numpy(),
        memory.states[0].detach().numpy(),
        decoder.attention.W.weight.detach().numpy(),
        decoder.combine.weight.detach().numpy(),
    )
    np.testing.assert_allclose(mine, tilde[0].detach().numpy(), atol=1e-10)


# --- the two predictions ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "check, letters", [(ex.check_uniform_attention_prediction, "AB"), (ex.check_forward_encoder_prediction, "ACD")]
)
def test_wrong_choices_get_a_reason_not_the_answer(check, letters):
    right = {ex.check_uniform_attention_prediction: "C", ex.check_forward_encoder_prediction: "B"}[check]
    seen = set()
    for letter in letters:
        feedback = check(letter)
        assert feedback.attempted and not feedback.passed
        message = text(feedback)
        assert len(message) > 40 and message not in seen
        assert f"'{right}'" not in message and f" {right})" not in message and f"({right})" not in message
        seen.add(message)


def test_forward_encoder_prediction_is_what_a_forward_gru_does():
    """Option B, checked on the library's encoder: changing x_7 changes e_j exactly for j >= 7."""
    from attention_lab.seq2seq import Encoder

    torch.manual_seed(0)
    encoder = Encoder(20, 8, 6, bidirectional=False)
    a = torch.tensor([[4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 2]])
    b = a.clone()
    b[0, 7] = 15
    lens = torch.tensor([11])
    with torch.no_grad():
        changed = (encoder(a, lens)[0] - encoder(b, lens)[0]).abs().amax(dim=-1)[0]  # (n,)
    assert torch.all(changed[:7] == 0) and torch.all(changed[7:] > 0)


# --- greedy decoding --------------------------------------------------------------------------------------------


def loop(feed_back=True, update=True, first=Vocab.BOS, transpose=False, logits_out=False, with_bos=False):
    def answer(model, memory, max_len):
        state = model.decoder.start(memory.summary)
        token = torch.full((memory.states.shape[0],), first)
        ids, all_logits = ([token] if with_bos else []), []
        for _ in range(max_len):
            logits, new_state, _ = model.decoder.step(token, state, memory)
            state = new_state if update else state
            chosen = logits.argmax(dim=-1)
            ids.append(chosen)
            all_logits.append(logits)
            token = chosen if feed_back else token
        if logits_out:
            return torch.stack(all_logits, dim=1)
        return torch.stack(ids, dim=0 if transpose else 1)

    return answer


GREEDY = [  # (a student's greedy loop, the words its first message must contain)
    (loop(feed_back=False), "feed the token chosen"),
    (loop(update=False), "what does your loop pass to the next step?"),
    (loop(first=Vocab.EOS), "not <eos>"),
    (loop(first=Vocab.PAD), "not padding"),
    (loop(transpose=True), "wrong layout"),
    (loop(logits_out=True), "logits"),
    (loop(with_bos=True), "without the <bos>"),
    (lambda model, memory, max_len: torch.zeros(4, 6, dtype=torch.long), "Not the model's greedy output yet"),
    (lambda model, memory, max_len: torch.rand(4, 6), "whole numbers"),
    (lambda model, memory, max_len: torch.zeros(4, 3), "(4, 6)"),
]
CATALOGUES = {"check_greedy_decode": GREEDY}


@pytest.mark.parametrize(("answer", "hint"), GREEDY)
def test_greedy_fix_is_the_loop_and_only_the_third_step(answer, hint):
    feedback = ex.check_greedy_decode(answer)
    assert "for _ in range" in feedback.fix() and "for _ in range" not in text(feedback)  # the loop: step 3 only


def test_the_luong_fix_calls_a_softmax_the_notebook_has():
    fix = ex.check_luong_attentional_state(lambda s, E, W, W_c: np.tanh(W_c @ np.concatenate([E.mean(0), s]))).fix()
    assert "al.softmax(alpha)" in fix and " softmax(" not in fix


def test_greedy_reference_is_the_library_greedy(nb06):
    from attention_lab.exercises.notebook_06 import _small_model

    model, memory = _small_model()
    src = torch.randint(4, 12, (4, 7), generator=torch.Generator().manual_seed(2))
    lens = torch.tensor([7, 5, 3, 6])
    src[torch.arange(7)[None, :] >= lens[:, None]] = 0
    with torch.no_grad():
        torch.testing.assert_close(nb06.greedy_decode(model, memory, 6), model.greedy(src, lens, max_len=6)[0])


def test_greedy_mistakes_give_different_outputs_on_the_check_model():
    """Each hint is reachable: on the check's small model every typical mistake decodes something different."""
    import itertools

    from attention_lab.exercises.notebook_06 import _decode, _small_model

    model, memory = _small_model()
    outputs = [
        _decode(model, memory, 6),
        _decode(model, memory, 6, feed_back=False),
        _decode(model, memory, 6, update=False),
        _decode(model, memory, 6, first=Vocab.EOS),
        _decode(model, memory, 6, first=Vocab.PAD),
    ]
    assert all(not np.array_equal(a, b) for a, b in itertools.combinations(outputs, 2))


def bos_kept_in_max_len(model, memory, max_len):  # <bos> as the first output, the last step cut off
    return loop(with_bos=True)(model, memory, max_len)[:, :max_len]


def test_greedy_with_bos_kept_gets_a_diagnosis_not_the_algorithm():
    feedback = ex.check_greedy_decode(bos_kept_in_max_len)
    assert not feedback.passed and "first column is the <bos>" in text(feedback)
    assert "decoder.step" not in text(feedback)  # the loop itself is in the fix, not the first step


def luong_no_shift(s, E, W, W_c):  # right on small scores, overflows on huge ones
    e = np.exp(E @ W.T @ s)
    return np.tanh(W_c @ np.concatenate([e / e.sum() @ E, s]))


def luong_transposed_E(s, E, W, W_c):  # a shape error: W @ E instead of E @ W.T
    return np.tanh(W_c @ np.concatenate([softmax(W @ E @ s) @ E, s]))


@pytest.mark.parametrize(
    ("fn", "words"),
    [(luong_no_shift, "NaN or inf"), (luong_transposed_E, "E=ndarray of shape (5, 4)")],
)
def test_luong_overflow_and_shape_errors_are_explained_in_the_students_terms(fn, words):
    feedback = ex.check_luong_attentional_state(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)
