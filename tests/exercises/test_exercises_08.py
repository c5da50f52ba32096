"""Notebook 08's exercises: the pre-LN block as an nn.Module, the training step of the tiny model, and the
prediction for a model without positions.

Each catalogue entry is a block or a step a student plausibly writes instead; each is rejected, and named
where the check names it (the words the first message must contain)."""

import numpy as np
import pytest
import torch
from helpers import load_solution, stub, stub_test, text

from attention_lab import exercises as ex
from attention_lab.nn import MultiHeadAttention, PositionWiseFFN
from attention_lab.training import train_step

F = torch.nn.functional


class Block(torch.nn.Module):
    """The parts every catalogue block shares; ``forward`` is each entry's mistake."""

    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(d_model, d_ff), torch.nn.ReLU(), torch.nn.Linear(d_ff, d_model))

    def att(self, y, mask):
        return self.attention(y, y, y, mask)


def block(forward, base=Block):
    return type(forward.__name__, (base,), {"forward": forward})


def post_ln(self, x, mask=None):
    x = self.norm1(x + self.att(x, mask))
    return self.norm2(x + self.ffn(x))


def residual_of_ln(self, x, mask=None):
    x = self.norm1(x)
    x = x + self.att(x, mask)
    x = self.norm2(x)
    return x + self.ffn(x)


def ln_overwrites_x(self, x, mask=None):  # a reader's block: the first half's residual carries LN(x)
    x = self.norm1(x)
    x = x + self.attention(x, x, x, mask)
    return x + self.ffn(self.norm2(x))


def ln_overwrites_x_in_ffn_half(self, x, mask=None):
    x = x + self.att(self.norm1(x), mask)
    x = self.norm2(x)
    return x + self.ffn(x)


def no_residual_attention(self, x, mask=None):
    x = self.att(self.norm1(x), mask)
    return x + self.ffn(self.norm2(x))


def no_residual_ffn(self, x, mask=None):
    x = x + self.att(self.norm1(x), mask)
    return self.ffn(self.norm2(x))


def no_residuals(self, x, mask=None):
    return self.ffn(self.norm2(self.att(self.norm1(x), mask)))


def ffn_half_post_ln(self, x, mask=None):
    x = x + self.att(self.norm1(x), mask)
    return self.norm2(x + self.ffn(x))


def one_norm(self, x, mask=None):
    x = x + self.att(self.norm1(x), mask)
    return x + self.ffn(self.norm1(x))


def no_norm2(self, x, mask=None):
    x = x + self.att(self.norm1(x), mask)
    return x + self.ffn(x)


def parallel(self, x, mask=None):
    return x + self.att(self.norm1(x), mask) + self.ffn(self.norm2(x))


def keys_not_normalised(self, x, mask=None):
    x = x + self.attention(self.norm1(x), x, x, mask)
    return x + self.ffn(self.norm2(x))


def mask_ignored(self, x, mask=None):
    y = self.norm1(x)
    x = x + self.attention(y, y, y)
    return x + self.ffn(self.norm2(x))


def ffn_first(self, x, mask=None):
    x = x + self.ffn(self.norm1(x))
    return x + self.att(self.norm2(x), mask)


def extra_final_norm(self, x, mask=None):
    y = self.norm1(x)
    x = x + self.att(y, mask)
    return self.norm2(x + self.ffn(self.norm2(x)))


class WithDropout(Block):
    def __init__(self, d_model, num_heads, d_ff):
        super().__init__(d_model, num_heads, d_ff)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x, mask=None):
        y = self.norm1(x)
        x = x + self.drop(self.att(y, mask))
        return x + self.drop(self.ffn(self.norm2(x)))


class OwnNames(torch.nn.Module):
    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.mlp = PositionWiseFFN(d_model, d_ff)

    def forward(self, x, mask=None):
        y = self.ln_1(x)
        x = x + self.attn(y, y, y, mask)
        return x + self.mlp(self.ln_2(x))


class SizesSwapped(Block):
    def __init__(self, d_model, num_heads, d_ff):
        super().__init__(d_model, num_heads, d_ff)
        self.ffn = torch.nn.Sequential(
            torch.nn.Linear(d_model, d_model), torch.nn.ReLU(), torch.nn.Linear(d_model, d_model)
        )

    forward = load_solution("notebook_08").PreLNBlock.forward


def _right_forward(self, x, mask=None):
    y = self.norm1(x)
    x = x + self.att(y, mask)
    return x + self.ffn(self.norm2(x))


class Unpicklable(Block):
    def forward(self, x, mask=None):
        return x[..., :4]  # the wrong shape


BLOCKS = [  # (the block, the words its first message must contain)
    (block(post_ln), "post-LN"),
    (block(residual_of_ln), "adds the attention's output to LN(x)"),
    (block(ln_overwrites_x), "adds the attention's output to LN(x)"),
    (block(ln_overwrites_x_in_ffn_half), "adds the FFN's output to LN2"),
    (block(no_residual_attention), "attention half has no residual"),
    (block(no_residual_ffn), "feed-forward half has no residual"),
    (block(no_residuals), "not the pre-LN block's"),
    (block(ffn_half_post_ln), "normalises after its residual sum"),
    (block(one_norm), "same layer normalisation"),
    (block(no_norm2), "second layer normalisation is missing"),
    (block(parallel), "side by side"),
    (block(keys_not_normalised), "keys and values from x itself"),
    (block(mask_ignored), "the mask never reaches"),
    (block(ffn_first), "not the pre-LN block's"),
    (block(extra_final_norm), "not the pre-LN block's"),
    (WithDropout, "two different outputs"),
    (OwnNames, "named differently"),
    (SizesSwapped, "Which size did you pass where"),
    (Unpicklable, "shape"),
]
CATALOGUES = {"check_transformer_block": BLOCKS}


@pytest.mark.parametrize(("cls", "words"), BLOCKS, ids=[b[0].__name__ for b in BLOCKS])
def test_block_check_names_each_mistake(cls, words):
    feedback = ex.check_transformer_block(cls)
    assert not feedback.passed and words in text(feedback), text(feedback)
    assert "self.norm1(x)\nx = x +" not in " ".join(feedback.messages)  # the first step never holds the fix


def test_right_blocks_pass():
    assert ex.check_transformer_block(load_solution("notebook_08").PreLNBlock).passed
    assert ex.check_transformer_block(block(_right_forward)).passed

    class LibraryParts(torch.nn.Module):  # PositionWiseFFN's names (ffn.net.0) are fine too
        def __init__(self, d_model, num_heads, d_ff):
            super().__init__()
            self.attention, self.ffn = MultiHeadAttention(d_model, num_heads), PositionWiseFFN(d_model, d_ff)
            self.norm1, self.norm2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)

        forward = _right_forward
        att = Block.att

    assert ex.check_transformer_block(LibraryParts).passed


def test_unfinished_block_is_not_attempted():
    class Stub(torch.nn.Module):
        def __init__(self, d_model, num_heads, d_ff):
            super().__init__()

        def forward(self, x, mask=None): ...

    assert not ex.check_transformer_block(Stub).attempted
    assert not ex.check_transformer_block(...).attempted
    feedback = ex.check_transformer_block(lambda x: x)
    assert not feedback.passed and "class itself" in text(feedback)


# --- the training step ------------------------------------------------------------------------------------------


def step(order="zbs", loss=lambda logits, targets: F.cross_entropy(logits.reshape(-1, 6), targets.reshape(-1))):
    def train_step(model, optimizer, inputs, targets):
        value = loss(model(inputs), targets)
        for c in order:
            {"z": optimizer.zero_grad, "b": value.backward, "s": optimizer.step}[c]()
        return value.item()

    return train_step


def under_no_grad(model, optimizer, inputs, targets):
    with torch.no_grad():
        logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, 6), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def returns_nothing(model, optimizer, inputs, targets):
    step()(model, optimizer, inputs, targets)


def returns_tensor(model, optimizer, inputs, targets):  # right, but the loss tensor itself is returned
    loss = F.cross_entropy(model(inputs).reshape(-1, 6), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


STEPS = [
    (step("bzs"), "no update happened"),
    (step("zb"), "no update happened"),
    (step("zs"), "no update happened"),
    (step("bs"), "added to the ones before"),
    (step("szb"), "ran before backward()"),
    (step("zsb"), "no update happened"),
    (step(loss=lambda lg, t: F.cross_entropy(lg.reshape(-1, 6), t.reshape(-1), reduction="sum")), "sum or the mean"),
    (
        step(loss=lambda lg, t: F.cross_entropy(torch.softmax(lg, -1).reshape(-1, 6), t.reshape(-1))),
        "softmax is applied twice",
    ),
    (step(loss=lambda lg, t: F.nll_loss(lg.reshape(-1, 6), t.reshape(-1))), "log-probabilities"),
    (step(loss=lambda lg, t: F.cross_entropy(lg[:, -1], t[:, -1])), "only the last position"),
    (step(loss=lambda lg, t: F.cross_entropy(lg.transpose(0, 1).reshape(-1, 6), t.reshape(-1))), "different orders"),
    (step(loss=lambda lg, t: F.cross_entropy(lg, t)), "reads dimension 1"),
    (under_no_grad, "no gradient to follow back"),
    (step("zbbs"), "backward() ran twice"),
    (step(loss=lambda lg, t: F.mse_loss(lg, F.one_hot(t, 6).double())), "not in one of the usual ways"),
    (returns_nothing, "returns None"),
    (lambda *a: torch.as_tensor(step()(*a)), "as a tensor"),
    (returns_tensor, "as a tensor"),
]
CATALOGUES["check_train_step"] = STEPS


@pytest.mark.parametrize(("fn", "words"), STEPS, ids=[str(i) for i in range(len(STEPS))])
def test_train_step_check_names_each_mistake(fn, words):
    feedback = ex.check_train_step(fn)
    assert not feedback.passed and words in text(feedback), text(feedback)
    assert "optimizer.zero_grad()\nloss.backward()" not in " ".join(feedback.messages)


def test_right_steps_pass():
    assert ex.check_train_step(load_solution("notebook_08").train_step).passed
    assert ex.check_train_step(train_step).passed  # the library's step, which notebook 08 trains with afterwards
    assert ex.check_train_step(step("bsz")).passed  # zero_grad after the step is right too
    transposed = step(loss=lambda lg, t: F.cross_entropy(lg.transpose(1, 2), t))  # classes on dim 1: also right
    assert ex.check_train_step(transposed).passed


# --- exercise 3: predict the accuracy without positions ---------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "passed", "hint"),
    [
        (0.0, True, "permutation-equivariant"),
        (0.01, True, "4! * 2^4"),
        (np.float32(0.03), True, "next cell"),
        (0.5, False, "Too optimistic"),
        (1.0, False, "Too optimistic"),
        (30, False, "fraction between 0 and 1"),
        (-0.1, False, "between 0 and 1"),
        (torch.tensor(0.0), True, "equivariant"),
    ],
)
def test_prediction_feedback(prediction, passed, hint):
    feedback = ex.check_no_position_prediction(prediction)
    assert feedback.passed is passed and hint in text(feedback), text(feedback)


@pytest.mark.parametrize(
    "answer",
    [
        None,
        ...,
        "0.1",
        {"p": 0},
        [0.1, 0.2],
        float("nan"),
        float("inf"),
        -0.2,
        1.5e9,
        1j,
        torch.tensor(0.0, requires_grad=True),
        stub,
        np.array([[0.0]]),
    ],
)
def test_prediction_garbage_gets_feedback(answer):
    feedback = ex.check_no_position_prediction(answer)
    assert isinstance(text(feedback), str)
    if answer is not None and answer is not ...:
        assert feedback.messages


test_prediction_stub_is_not_attempted = stub_test([], [ex.check_no_position_prediction])


def test_prediction_reference_passes_and_never_shows_the_number():
    assert ex.check_no_position_prediction(load_solution("notebook_08").PREDICTED_EXACT_MATCH_WITHOUT_POSITIONS).passed
    assert "0.0" not in text(ex.check_no_position_prediction(0.7))  # never the expected number


# --- exercise 1: layer normalisation by hand ----------------------------------------------------------------


def _ln(mean_axis=-1, var=lambda c, axis: (c**2).mean(axis=axis, keepdims=True), eps_inside=True, affine=True):
    def f(x, gamma, beta, eps):
        c = x - x.mean(axis=mean_axis, keepdims=True)
        v = var(c, mean_axis)
        x_hat = c / (np.sqrt(v + eps) if eps_inside else np.sqrt(v) + eps)
        return gamma * x_hat + beta if affine else x_hat

    return f


LAYER_NORMS = [  # (a layer_norm a student plausibly writes, the words its first message must contain)
    (_ln(mean_axis=0), "batch normalisation"),
    (_ln(mean_axis=1), "positions of each sequence"),
    (_ln(mean_axis=None), "whole array"),
    (_ln(var=lambda c, axis: (c**2).sum(axis=axis, keepdims=True) / (c.shape[-1] - 1)), "d_model - 1"),
    (_ln(eps_inside=False), "after the square root"),
    (_ln(affine=False), "learnable scale and shift"),
    (lambda x, g, b, eps: g * (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True) + b, "no eps"),
    (lambda x, g, b, eps: g * (x - x.mean(-1, keepdims=True)) / (x.var(-1, keepdims=True) + eps) + b, "variance"),
    (lambda x, g, b, eps: g * x / np.sqrt(x.var(-1, keepdims=True) + eps) + b, "subtract the mean"),
    (lambda x, g, b, eps: b * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + g, "swapped"),
    (
        lambda x, g, b, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + b,
        "not the scale",
    ),
    (
        lambda x, g, b, eps: g * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps),
        "not the shift",
    ),
]

CATALOGUES["check_layer_norm"] = LAYER_NORMS


def test_layer_norm_reference_passes_and_agrees_with_torch():
    layer_norm = load_solution("notebook_08").layer_norm
    assert ex.check_layer_norm(layer_norm).passed
    x = np.random.default_rng(0).normal(size=(2, 3, 4))
    norm = torch.nn.LayerNorm(4, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 2.0)
        norm.bias.uniform_(-1.0, 1.0)
        expected = norm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(
        layer_norm(x, norm.weight.detach().numpy(), norm.bias.detach().numpy(), norm.eps), expected
    )


test_layer_norm_stub_is_not_attempted = stub_test([ex.check_layer_norm], [])


def test_a_block_whose_layer_norms_lack_scale_and_shift_is_told_so():
    """Issue 42: such a block was told "a parameter name is missing"; it is told what its LayerNorms lack."""

    class NoAffine(load_solution("notebook_08").PreLNBlock):
        def __init__(self, d_model, num_heads, d_ff):
            super().__init__(d_model, num_heads, d_ff)
            self.norm1 = torch.nn.LayerNorm(d_model, elementwise_affine=False)
            self.norm2 = torch.nn.LayerNorm(d_model, elementwise_affine=False)

    feedback = ex.check_transformer_block(NoAffine)
    assert not feedback.passed and feedback.attempted
    assert "learnable scale and shift" in text(feedback)
    assert "no parameter" not in text(feedback) and "missing or named differently" not in text(feedback)


def test_an_untouched_training_step_reads_as_not_attempted():
    """Issue 42: the stub (its body ``...``) said "not yet" where every other check says "not attempted yet"."""

    def train_step(model, optimizer, inputs, targets): ...

    feedback = ex.check_train_step(train_step)
    assert not feedback.passed and not feedback.attempted
    assert "not attempted yet" in str(feedback) and "❌" not in str(feedback)
