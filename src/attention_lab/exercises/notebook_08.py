"""Exercise checks of notebook 08, the Transformer block and its training: the pre-LN block, the training step
and the prediction for a model without positions (reference answers: ``solutions/notebook_08.py``). The block is
checked against the library's ``TransformerBlock`` with the same parameters; the step against three steps of the
library's ``training.train_step``, with SGD and with Adam.
"""

from __future__ import annotations

import functools

import numpy as np

from ..i18n import _
from .answers import read_number
from .feedback import Feedback, exercise, not_attempted, quiet, unanswered
from .runner import Case, Mistake, check_function, implement, raised, show

__all__ = ["check_layer_norm", "check_transformer_block", "check_train_step", "check_no_position_prediction"]

# --- exercise 1: layer normalisation by hand --------------------------------------------------------------------


def layer_norm_reference(x, gamma, beta, eps):
    mu = x.mean(axis=-1, keepdims=True)  # (..., 1): each position's mean over its d_model features
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # (..., 1): its variance (divided by d_model)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta  # (..., d_model)


def _ln(normalise, affine=lambda x_hat, gamma, beta: gamma * x_hat + beta):
    return lambda x, gamma, beta, eps: affine(normalise(x, eps), gamma, beta)


def _standard(axis=-1, ddof=0, eps_inside=True, centre=True, root=True):
    def normalise(x, eps):
        mu = x.mean(axis=axis, keepdims=True)
        var = x.var(axis=axis, ddof=ddof, keepdims=True)
        spread = (np.sqrt(var + eps) if eps_inside else np.sqrt(var) + eps) if root else var + eps
        return ((x - mu) if centre else x) / spread

    return normalise


def _ln_cases():
    rng = np.random.default_rng(80)
    x = rng.normal(2.0, 3.0, size=(2, 3, 4))  # (batch, n, d_model): mean and spread far from 0 and 1
    gamma, beta = rng.normal(1.0, 0.5, size=4), rng.normal(0.0, 0.5, size=4)  # (d_model,) each
    flat = x.copy()
    flat[0, 1] = 5.0  # one position whose features are all equal: its variance is 0
    return [
        Case(
            (x, gamma, beta, 1e-5),
            "For x of shape (2, 3, 4) (batch, n, d_model), gamma and beta of shape (4,), eps = 1e-5,",
        ),
        Case((flat, gamma, beta, 1e-5), "When one position's 4 features are all equal (variance 0),"),
        Case((1e-3 * x, gamma, beta, 1e-5), "For x 1000 times smaller (variance about 1e-5, the size of eps),"),
        Case((x, gamma, beta, 0.5), "For eps = 0.5,"),
    ]


_LN_FIX = "```\nmu = x.mean(axis=-1, keepdims=True)\nvar = ((x - mu) ** 2).mean(axis=-1, keepdims=True)\nreturn gamma * (x - mu) / np.sqrt(var + eps) + beta\n```"
_PER_POSITION = "LN normalises each position's vector over its d_model features: the last axis, keepdims=True."

# fmt: off
check_layer_norm = implement("layer normalisation in numpy", _ln_cases, layer_norm_reference, [
    Mistake(wrong=_ln(_standard(axis=0)), says="{where} you averaged over the batch axis: each feature normalised across the sequences of the batch. That is batch normalisation; over which axis does layer normalisation average?", hint=_PER_POSITION),
    Mistake(wrong=_ln(_standard(axis=1)), says="{where} you averaged over the positions of each sequence (axis 1). Whose mean and variance does layer normalisation remove: a position's, or a feature's?", hint=_PER_POSITION),
    Mistake(wrong=_ln(_standard(axis=None)), says="{where} you took one mean and one variance of the whole array. Layer normalisation takes them for each position separately: over which axis?", hint=_PER_POSITION),
    Mistake(wrong=_ln(_standard(ddof=1)), says="{where} your variance divides by d_model - 1 (the unbiased estimate, as torch.var does by default). Which does layer normalisation use?", hint="The variance of the d_model features themselves: divide by d_model (np.var's default, torch.var(..., unbiased=False))."),
    Mistake(wrong=_ln(_standard(eps_inside=False)), says="{where} eps is added after the square root. Where does the formula put it?", hint="sqrt(Var(x) + eps): eps keeps the quantity under the root away from 0."),
    Mistake(wrong=lambda x, gamma, beta, eps: gamma * (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True) + beta, says="{where} your result has no eps: for a position whose features are all equal, what does it divide by?", hint="sqrt(Var(x) + eps), with the eps the function receives."),
    Mistake(wrong=_ln(_standard(root=False)), says="{where} you divided by the variance, not by its square root. What brings the spread of each position to 1?", hint="Divide by the standard deviation, sqrt(Var(x) + eps)."),
    Mistake(wrong=_ln(_standard(centre=False)), says="{where} you divided by the spread but did not subtract the mean. What should each position's mean be before the gain and shift?", hint="x - mu, then divide."),
    Mistake(wrong=_ln(_standard(), lambda x_hat, gamma, beta: x_hat), says="{where} your output has mean 0 and variance about 1 at every position, whatever gamma and beta: the learnable scale and shift are missing. What do gamma and beta do to the normalised vector?", hint="After normalising, LN multiplies by its learned gain gamma and adds its learned shift beta, one of each per feature."),
    Mistake(wrong=_ln(_standard(), lambda x_hat, gamma, beta: x_hat + beta), says="{where} the shift beta is there but not the scale gamma. What multiplies the normalised vector?", hint="gamma * x_hat + beta."),
    Mistake(wrong=_ln(_standard(), lambda x_hat, gamma, beta: gamma * x_hat), says="{where} the scale gamma is there but not the shift beta. What is added at the end?", hint="gamma * x_hat + beta."),
    Mistake(wrong=_ln(_standard(), lambda x_hat, gamma, beta: beta * x_hat + gamma), says="{where} gamma and beta are swapped: beta scales and gamma shifts. Which one multiplies?", hint="gamma is the gain (it multiplies), beta the shift (it is added)."),
    Mistake(wrong=_ln(_standard(), lambda x_hat, gamma, beta: gamma * (x_hat + beta)), says="{where} beta is added before the scale, so gamma scales it too. In which order do the gain and the shift act?", hint="Scale first, then shift: gamma * x_hat + beta."),
],
    shape="the input's shape (batch, n, d_model)",
    not_finite=Mistake("{where} your result has NaN or inf. Which division can reach 0, and what is eps for?", "sqrt(Var(x) + eps) is never 0 when eps > 0."),
    otherwise=Mistake("{where} the shape is right but the numbers are not, and not one of the usual slips. Compare, for one position, your mean, your variance and your normalised vector with the formula: which is the first to differ?", "mu and Var over the last axis (divided by d_model), (x - mu) / sqrt(Var + eps), then gamma * . + beta."),
    success="Each position's vector now has mean beta and spread gamma per feature, whatever the scale of x; with all features equal, eps keeps the division finite and the output is beta. That is torch.nn.LayerNorm's computation, with its weight as gamma and its bias as beta.",
    fix=_LN_FIX,
    doc="Exercise: ``fn(x, gamma, beta, eps)`` returns gamma * (x - mu) / sqrt(Var + eps) + beta over the last axis.")
# fmt: on


# --- exercise 2: the pre-LN block -----------------------------------------------------------------------------


BLOCK_SIZES = (8, 2, 16)  # d_model, num_heads, d_ff of the block the check builds
_PARTS = "norm1, attention (a MultiHeadAttention), norm2 and ffn (Linear, ReLU, Linear)"
_FORWARD_FIX = "```\ny = self.norm1(x)\nx = x + self.attention(y, y, y, mask)\nreturn x + self.ffn(self.norm2(x))\n```"
_INIT_FIX = "```\nself.norm1, self.norm2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)\nself.attention = MultiHeadAttention(d_model, num_heads)\nself.ffn = torch.nn.Sequential(torch.nn.Linear(d_model, d_ff), torch.nn.ReLU(),\n                               torch.nn.Linear(d_ff, d_model))\n```"  # fmt: skip


def reference_block():
    """The library's pre-LN block in float64, every parameter random and seeded (the LN gains and shifts too,
    so that a block that uses one LN for both halves, or none, shows)."""
    import torch

    from ..nn import TransformerBlock

    with torch.random.fork_rng():
        torch.manual_seed(7)
        block = TransformerBlock(*BLOCK_SIZES).double()
        with torch.no_grad():
            for p in block.parameters():
                p.copy_(0.5 * torch.randn_like(p) + (1.0 if p.dim() == 1 else 0.0))
    return block


_SAME_FORM = "Both halves have the form input + sub-layer(LN(input))."
_SECOND_HALF = "The second half is the first with the FFN for the attention and norm2 for norm1."
_KEEP_X = "Keep x and its normalised copy in two variables: the sub-layer reads the copy, the sum uses x."
_LN_RESIDUAL = "{where} your residual connection adds the attention's output to LN(x), not to x. What should travel unchanged along the residual path?"  # fmt: skip


def _block_mistakes(ref):
    """The blocks students write instead of the pre-LN one, built from the library block's parts."""
    A, F, N1, N2 = ref.attention, ref.ffn, ref.norm1, ref.norm2

    def att(z, m):
        return A(z, z, z, m)

    def pre(x, m, first=lambda x, m: x + att(N1(x), m)):  # the second half after ``first``
        return (lambda h: h + F(N2(h)))(first(x, m))

    # fmt: off
    return [
        Mistake.of(lambda x, m: (lambda h: N2(h + F(h)))(N1(x + att(x, m))),  # the paper's order
            "{where} your block computes LN(x + sub-layer(x)), the paper's post-LN. In pre-LN, what does each sub-layer read, and is the sum normalised?", "Pre-LN: each sub-layer reads a normalised copy of x; its output is added to x itself."),
        Mistake.of(lambda x, m: (lambda h: N2(h) + F(N2(h)))(N1(x) + att(N1(x), m)), _LN_RESIDUAL, _KEEP_X),  # x = norm1(x) ...
        Mistake.of(lambda x, m: pre(x, m, lambda x, m: N1(x) + att(N1(x), m)), _LN_RESIDUAL, _KEEP_X),  # ... in one half
        Mistake.of(lambda x, m: (lambda h: N2(h) + F(N2(h)))(x + att(N1(x), m)), "{where} your feed-forward half adds the FFN's output to LN2 of its input, not to the input itself. What should travel unchanged along the residual path?", _KEEP_X),
        Mistake.of(lambda x, m: pre(x, m, lambda x, m: att(N1(x), m)), "{where} the attention half has no residual connection: its output replaces x. What does x + F(x) keep?", _SAME_FORM),
        Mistake.of(lambda x, m: F(N2(x + att(N1(x), m))), "{where} the feed-forward half has no residual connection: what should the FFN's output be added to?", _SAME_FORM),
        Mistake.of(lambda x, m: (lambda h: N2(h + F(h)))(x + att(N1(x), m)), "{where} the feed-forward half normalises after its residual sum. Where does pre-LN's second LN sit?", _SECOND_HALF),
        Mistake.of(lambda x, m: (lambda h: h + F(N1(h)))(x + att(N1(x), m)), "{where} both halves go through the same layer normalisation, norm1. Which belongs to the FFN half?", "Each sub-layer has its own LN, with its own gain and shift (the check gives them different ones)."),
        Mistake.of(lambda x, m: (lambda h: h + F(h))(x + att(N1(x), m)), "{where} the FFN reads h un-normalised: the second layer normalisation is missing. Where does it go?", _SECOND_HALF),
        Mistake.of(lambda x, m: x + att(N1(x), m) + F(N2(x)), "{where} your attention and FFN both read the input, their outputs added side by side (GPT-J's parallel block). What does the FFN half read in the Transformer block?", "The FFN half starts from x after the attention half's residual sum."),
        Mistake.of(lambda x, m: pre(x, m, lambda x, m: x + A(N1(x), x, x, m)), "{where} your queries come from LN(x) but the keys and values from x itself. Which tensor do all three read?", "Self-attention: queries, keys and values all come from the same normalised tensor."),
        Mistake.of(lambda x, m: ref(x, None), "{where} your block gives the same output with the mask as without: the mask never reaches the attention. Which call inside forward should receive it?", "forward receives `mask`; MultiHeadAttention takes it as its fourth argument."),
    ]
    # fmt: on


def _load_weights(block, ref):
    """Copy the library block's weights into the student's by name (PositionWiseFFN's ``ffn.net.0`` may be the
    student's ``ffn.0``): None, or a sentence saying why they do not fit."""
    import torch

    theirs, mapped = block.state_dict(), {}
    for key, value in ref.state_dict().items():
        name = next((k for k in (key, key.replace("ffn.net.", "ffn.")) if k in theirs), None)
        if (
            name is None
            and key.startswith("norm")
            and isinstance(getattr(block, key.split(".")[0], None), torch.nn.LayerNorm)
        ):
            return _("Your {norm} is a LayerNorm without its learnable scale and shift (gamma and beta: its weight and bias), which the pre-LN block's layer normalisations have. What did you pass when you built it, and what does LayerNorm do with it?").format(norm=key.split(".")[0])  # fmt: skip
        if name is None:
            return _("The check gives your block the library block's weights, by name, and your block has no parameter {key} (yours: {yours}). It needs four parts named {parts}: which is missing or named differently?").format(key=key, yours=", ".join(theirs) or "none", parts=_PARTS)  # fmt: skip
        if tuple(theirs[name].shape) != tuple(value.shape):
            return _("Your {name} has shape {mine}; the block's is {theirs} for d_model, num_heads, d_ff = {sizes}. Which size did you pass where?").format(name=name, mine=tuple(theirs[name].shape), theirs=tuple(value.shape), sizes=BLOCK_SIZES)  # fmt: skip
        mapped[name] = value
    extra = sorted(set(theirs) - set(mapped))
    if extra:
        return _("Your block has parameters the pre-LN block does not have: {extra}. It has four parts, {parts}: what is the extra one for?").format(extra=", ".join(extra), parts=_PARTS)  # fmt: skip
    block.load_state_dict(mapped)
    return None


def _same_output(got, expected, *args):
    import torch

    return got.shape == expected.shape and bool(torch.allclose(got.double(), expected, rtol=1e-6, atol=1e-6))


def _block_cases():
    import torch

    from ..nn import causal_mask

    g = torch.Generator().manual_seed(70)
    x = torch.randn(2, 5, BLOCK_SIZES[0], generator=g, dtype=torch.float64)  # (b, n, d_model)
    padding = torch.tensor([True, True, True, False, False])[None, None, :].expand(2, 1, 5).clone()
    padding[1] = False  # the second sequence has no valid position: every row of its weights is fully masked
    return [
        Case((x, None), "For a batch of 2 sequences of 5 positions (d_model = 8) and no mask,"),
        Case((x, causal_mask(5)), "With the causal mask,"),
        Case((x, padding), "With a padding mask whose second sequence has no valid key (fully masked rows),"),
        Case((1000 * x, causal_mask(5)), "For inputs 1000 times larger (causal mask),"),
        Case((x / 1000, causal_mask(5)), "For inputs 1000 times smaller (causal mask),"),
    ]


@exercise("a pre-LN Transformer block, written as an nn.Module")
def check_transformer_block(title, cls) -> Feedback:
    """Exercise: ``cls(d_model, num_heads, d_ff)`` is a pre-LN block (parts norm1, attention, norm2, ffn) whose
    ``forward(x, mask=None)`` computes x + Attention(LN1(x)), then + FFN(LN2(.)). The check loads a random
    library block's weights into it and compares outputs with and without masks (a fully masked row included)."""
    import torch

    if not isinstance(cls, type):
        return Feedback(title, False, _("Pass your class itself (its name, no parentheses); got {got}.").format(got=show(cls)))  # fmt: skip
    ref = reference_block()
    try:
        with torch.random.fork_rng():
            block = cls(*BLOCK_SIZES)
            x, _mask = _block_cases()[0].args
            first = block.double()(x.clone())
    except Exception as error:  # noqa: BLE001 - the student's class, built and called once
        return Feedback(title, False, _("Building your block as `{name}(d_model=8, num_heads=2, d_ff=16)` and calling it on x of shape (2, 5, 8) raised {error}. Which part, or which line of forward, does that point to?").format(name=cls.__name__, error=raised(error)))  # fmt: skip
    if unanswered(first):
        return not_attempted(title)
    problem = _load_weights(block, ref)
    if problem is not None:
        return Feedback(title, False, problem, hint=_("The four parts: {parts}.").format(parts=_PARTS), fix=_INIT_FIX)
    with torch.no_grad(), torch.random.fork_rng():
        a, b = block(x.clone()), block(x.clone())
    if torch.is_tensor(a) and torch.is_tensor(b) and a.shape == b.shape and not torch.equal(a, b):
        # fmt: off
        return Feedback(title, False, "Your block gives two different outputs for the same input: something random runs inside it (dropout, in training mode, which is the default). This block, like the tiny models, has none: what makes two calls differ?", hint="Dropout is active whenever the module is in training mode; the block asked for has no dropout.",
            fix="Leave the Dropout layers out (or build them with p = 0).")
        # fmt: on
    with torch.no_grad():  # the student's block with the reference weights, against the library's
        # fmt: off
        return check_function(title, block, _block_cases(), ref, _block_mistakes(ref), tensor=True,
            compare=_same_output,
            shape="the input's shape (batch, n, d_model), so that blocks stack",
            otherwise=Mistake("{where} your block's output is not the pre-LN block's, and not one of the usual slips (post-LN, a missing residual, one LN for both halves, the mask left out). Which of the two halves is already right, if you compare it with the formula x + Attention(LN(x))?", "Compute the first half alone with the check's weights and compare it with the library block's norm1 and attention; then the second half."),
            success="Your block is the library's TransformerBlock: the same weights give the same output, with and without masks, for large and small inputs. From here on the notebook uses the library's class.",
            fix=_FORWARD_FIX)
        # fmt: on


def _step_variant(order="zbs", loss="mean"):
    """A training step that does its three calls in ``order`` (z = zero_grad, b = backward, s = step) with the loss
    ``loss``: the training steps students write instead of the library's ``training.train_step``."""
    import torch
    import torch.nn.functional as F

    def step(model, optimizer, inputs, targets):
        logits = model(inputs)  # (b, n, vocab)
        flat, labels = logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)
        value = {
            "mean": lambda: F.cross_entropy(flat, labels),
            "sum": lambda: F.cross_entropy(flat, labels, reduction="sum"),
            "softmax_first": lambda: F.cross_entropy(torch.softmax(flat, -1), labels),
            "nll_of_logits": lambda: F.nll_loss(flat, labels),
            "last_position": lambda: F.cross_entropy(logits[:, -1], targets[:, -1]),
            "misaligned": lambda: F.cross_entropy(logits.transpose(0, 1).reshape(flat.shape), labels),
        }[loss]()
        calls = {"z": optimizer.zero_grad, "b": value.backward, "s": optimizer.step}
        for c in order:
            calls[c]()
        return value.item()

    return step


def _step_setup(optimizer):
    import torch

    from ..nn import TinyTransformer

    with torch.random.fork_rng():
        torch.manual_seed(5)
        model = TinyTransformer(6, 5, d_model=8, num_heads=2, num_layers=1, d_ff=16).double()
    g = torch.Generator().manual_seed(6)
    inputs = torch.randint(0, 6, (3, 4, 5), generator=g)  # 3 batches of 4 sequences of 5 tokens
    make = {"SGD": lambda p: torch.optim.SGD(p, lr=0.5), "Adam": lambda p: torch.optim.Adam(p, lr=0.05)}
    return model, make[optimizer](model.parameters()), inputs, inputs.flip(-1)


def _run_steps(step, optimizer):
    """Three training steps with ``step`` from a fixed start: the three losses, then every parameter (flat)."""
    import torch

    model, opt, inputs, targets = _step_setup(optimizer)
    losses = [float(step(model, opt, x, y)) for x, y in zip(inputs, targets, strict=True)]
    return np.concatenate([losses, torch.cat([p.detach().flatten() for p in model.parameters()]).numpy()])


def _reference_steps(optimizer):
    from ..training import train_step

    return _run_steps(train_step, optimizer)


# fmt: off
_NO_UPDATE = "{where} your step leaves every parameter as it was: no update happened. Which of backward() and step() is missing, or what clears the gradients between them?"
_STEP_HINT = "One step: the cross-entropy over every position of every sequence, zero the gradients, backward, step; return the loss as a number."
_STEP_FIX = "```\nlogits = model(inputs)                                   # (batch, n, vocab)\nloss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))\noptimizer.zero_grad()\nloss.backward()\noptimizer.step()\nreturn loss.item()\n```"
_STEP_MISTAKES = [  # (order, loss, says, hint)
    ("bzs", "mean", _NO_UPDATE, "zero_grad() sets the gradients to zero: after it, step() has nothing to apply."),
    ("zb", "mean", _NO_UPDATE, "backward() only computes gradients; the optimizer's step() changes the parameters."),
    ("zs", "mean", _NO_UPDATE, "step() uses the gradients stored in each parameter's .grad; what fills them?"),
    ("bs", "mean", "{where} your first step is right, the later ones are not: each gradient is added to the ones before. What keeps earlier batches' gradients in .grad?", "PyTorch accumulates gradients in .grad until something sets them to zero."),
    ("zbs", "sum", "{where} your losses are 20 times the mean cross-entropy (4 sequences x 5 positions), and SGD's steps too. Which loss does training use: the sum or the mean over the positions?", "F.cross_entropy averages by default (reduction='mean')."),
    ("zbs", "softmax_first", "{where} your loss is computed from probabilities, not logits: the softmax is applied twice. What does F.cross_entropy expect as its input?", "F.cross_entropy = log_softmax + nll_loss: it takes raw scores."),
    ("zbs", "nll_of_logits", "{where} your loss is the negative raw logit of the right token (nll_loss expects log-probabilities). What turns logits into log-probabilities?", "nll_loss(log_softmax(logits), targets) is cross_entropy(logits, targets)."),
    ("zbs", "last_position", "{where} your loss uses only the last position of each sequence. Which positions have a target?", "The logits are (batch, n, vocab) and the targets (batch, n): every position has a target."),
    ("zbs", "misaligned", "{where} your logits and targets are flattened in different orders, so position i's scores meet another position's target. How must both be laid out?", "Flatten both the same way, keeping the batch axis first."),
]
_STEP_ERRORS = [  # (words in torch's message, what it means for the student's step)
    (("Expected target size", "Expected input batch_size", "Expected 2D"), "F.cross_entropy could not pair your logits with the targets: the model's logits are (batch, n, vocab) = (4, 5, 6), the targets (batch, n) = (4, 5), and cross_entropy reads dimension 1 of its input as the classes. How can each row of scores meet its one target?"),
    (("does not require grad",), "Your loss has no gradient to follow back: was it computed under torch.no_grad(), or from a value taken out of the graph (.item(), .detach(), an argmax)?"),
    (("modified by an inplace operation",), "backward() found the parameters changed since the forward pass: the optimizer's step() ran before backward(). Which of the two needs the other's result?"),
    (("backward through the graph a second time",), "backward() ran twice on the same loss; each step needs one forward pass and one backward()."),
]
# fmt: on


def _step_error(error, when) -> str:
    """A training step's exception in the student's terms, and when it happened."""
    said = next((says for words, says in _STEP_ERRORS if any(w in str(error) for w in words)), None)
    return _("{said} ({when})").format(said=said or _("Your function raised {error}. What did that line get?").format(error=raised(error)), when=when)  # fmt: skip


@exercise("the training step of the tiny model")
def check_train_step(title, fn) -> Feedback:
    """Exercise: ``fn(model, optimizer, inputs, targets)`` does one step (cross-entropy over every position, zero
    the gradients, backward, step) and returns the loss. Three steps from a fixed start are compared with the
    reference, parameter by parameter, with SGD (where the loss's scale shows) and with Adam."""
    if unanswered(fn):
        return not_attempted(title)
    if not callable(fn):
        return Feedback(title, False, _("Pass your function itself (its name, no parentheses); got {got}.").format(got=show(fn)))  # fmt: skip
    model, opt, inputs, targets = _step_setup("SGD")
    before = [p.detach().clone() for p in model.parameters()]
    try:
        with quiet():
            loss = fn(model, opt, inputs[0], targets[0])
    except Exception as error:  # noqa: BLE001 - a student's error, in words
        return Feedback(title, False, _step_error(error, "Your step was called on a TinyTransformer and a batch of (4, 5) tokens."), hint=_STEP_HINT, fix=_STEP_FIX)  # fmt: skip
    if unanswered(loss) and all(p.equal(q) for p, q in zip(model.parameters(), before, strict=True)):
        # the stub, whose body ``...`` returns None and changes nothing: not attempted, as every other check says
        return Feedback(title, False, _("Your function returned None: replace the `...` with your code, and end it with `return`."), attempted=False)  # fmt: skip
    if unanswered(loss):
        return Feedback(title, False, "Your step returns None: what should it return?", hint="The loss of the batch, as a number.", fix=_STEP_FIX)  # fmt: skip
    number, why = read_number(loss, "The loss your step returns")
    if why is not None:
        return Feedback(title, False, why)
    if hasattr(loss, "detach"):
        # fmt: off
        return Feedback(title, False, _("Your step returns the loss as a tensor ({got}, a {kind}), not as a number. What turns a one-element tensor into a Python float?").format(got=show(loss), kind=type(loss).__name__), hint="A returned tensor keeps its graph, the batch's whole computation, alive as long as it is stored.", fix="End the step with `return loss.item()`.")
        # fmt: on
    try:
        with quiet():
            _run_steps(fn, "SGD")
    except Exception as error:  # noqa: BLE001 - an error in a later step (a graph used twice, ...)
        return Feedback(title, False, _step_error(error, "In the second or third of three training steps."), hint=_STEP_HINT, fix=_STEP_FIX)  # fmt: skip
    mistakes = [
        Mistake.of(functools.partial(lambda o, k, opt: _run_steps(_step_variant(o, k), opt), order, kind), says, hint)
        for order, kind, says, hint in _STEP_MISTAKES
    ]
    # fmt: off
    return check_function(title, lambda optimizer: _run_steps(fn, optimizer), [
        Case(("SGD",), "Over three steps of SGD (learning rate 0.5) from a fixed start,"),
        Case(("Adam",), "Over three steps of Adam (learning rate 0.05) from a fixed start,"),
    ], _reference_steps, mistakes,
        otherwise=Mistake("{where} your losses or your updated parameters differ from one training step's, and not in one of the usual ways (zero_grad, backward and step missing or in another order, another loss). Are the losses you return already right?", _STEP_HINT),
        success="Your step is the course's training step: the same losses and the same parameters after three steps, with SGD and with Adam. Section 2 trains the reversal model with the library's al.training.train_step, which does the same.",
        fix=_STEP_FIX)
    # fmt: on


@exercise("predict: reversal without positional encoding")
def check_no_position_prediction(title, prediction) -> Feedback:
    """Exercise (predict, graded): the exact-match accuracy (0..1) of the reversal model without positions."""
    value, why = read_number(prediction, "Your prediction")
    if why is not None or callable(prediction):
        return Feedback(title, False, why or "Write your prediction as a number between 0 and 1, not a function.")
    if 1 < value <= 100:
        return Feedback(title, False, "An accuracy here is a fraction between 0 and 1 (write 0.3 for 30%).")
    if not 0 <= value <= 1:
        return Feedback(title, False, "An accuracy lies between 0 and 1.")
    # fmt: off
    if value <= 0.05:
        return Feedback(title, True, "Without positions the model is permutation-equivariant: the output at a position depends only on its own digit and on the multiset of digits (which digits, how often each), never on where it stands. For 8 distinct digits, one answer per digit reverses at most 4! * 2^4 = 384 of the 8! = 40320 orders of those digits, under one in a hundred. Run the next cell to measure it.")
    return Feedback(title, False, "Too optimistic. Permute the input digits: without positional encoding, what happens to the outputs? Could the model then know which digit belongs first? (Notebook 07, section 2, has the test.)", hint="Notebook 07, section 2: self-attention without positions gives the same set of outputs for any order of the inputs.",
        fix="Close to 0: a permutation-equivariant model cannot reverse a sequence it cannot order.")
    # fmt: on
