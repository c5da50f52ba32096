"""Every exercise check, fed generated garbage, gives feedback in words and never raises.

The checks are discovered from ``attention_lab.exercises.__all__``, so a check added later is covered too.
A parameter named ``fn`` takes the student's function: it gets generated functions that return garbage,
raise, exit, return tensors that require grad, or take the wrong number of arguments. Every other
parameter gets generated garbage values. Each check is run twice: with every argument garbage, and with
only the answer garbage and plausible data in the other arguments (when the parameter's name is known
below), so that the garbage reaches the check's own logic instead of failing on the data.
"""

import inspect

import numpy as np
import pytest
import torch
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_lab import exercises as ex
from attention_lab import make_regression_data
from attention_lab.exercises.feedback import Feedback, exercise
from attention_lab.exercises.runner import Case, Mistake, check_function, to_float_array

CHECKS = sorted(name for name in ex.__all__ if name.startswith("check_"))
EXAMPLES = examples(40)

# --- garbage ------------------------------------------------------------------------------------------------

ODD_FLOATS = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e308, -1e308, 5e-324, 1e-300])
ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
)


class Weird:
    """An object whose repr, float and array conversion all fail."""

    def __repr__(self):
        raise RuntimeError("no repr")

    def __float__(self):
        raise RuntimeError("no float")

    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array")


def _tensor(draw_shape, dtype, requires_grad, fill):
    t = torch.full(draw_shape, fill if dtype.is_floating_point or dtype.is_complex else 1, dtype=dtype)
    return t.requires_grad_(requires_grad) if dtype.is_floating_point or dtype.is_complex else t


TENSORS = st.builds(
    _tensor,
    st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
    st.sampled_from([torch.float32, torch.float64, torch.int64, torch.bool, torch.complex64]),
    st.booleans(),
    st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32), st.just(1.0)),
)
VALUES = st.one_of(
    st.none(),
    st.just(Ellipsis),
    st.text(max_size=8),
    st.binary(max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sets(st.integers(), max_size=3),
    st.booleans(),
    st.integers(-(10**400), 10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    ODD_FLOATS,
    st.complex_numbers(allow_nan=True, allow_infinity=True),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6),
    st.lists(st.lists(st.floats(-5, 5), max_size=3), max_size=3),  # often ragged
    ARRAYS,
    TENSORS,
    st.just(np.ma.masked_array([1.0, 2.0], mask=[True, False])),
    st.builds(Weird),  # not just(Weird()): hypothesis writes repr(strategy) into notes, and that would raise
    st.just(print),
    st.just(lambda *args: 0.0),
)


TWO_LINES = "student's own mistake\nsecond line of the message"


def _raiser(kind):
    def fn(*args):
        if kind == "exit":
            raise SystemExit(3)
        if kind == "value":
            raise ValueError(TWO_LINES)
        if kind == "zero":
            return 1 / 0
        if kind == "recursion":
            return fn(*args)
        raise kind("student error")

    return fn


def _returns(value):
    return lambda *args: value


def _echo(*args):
    return args[0] if args else None


def _grad_tensor_like(*args):
    first = args[0] if args else 1.0
    tensor = torch.as_tensor(np.asarray(first, dtype=np.float64)) if not torch.is_tensor(first) else first.double()
    if not tensor.is_floating_point():
        return tensor
    return tensor * torch.tensor(2.0, dtype=tensor.dtype, requires_grad=True)


FUNCTIONS = st.one_of(
    VALUES.map(_returns),
    st.sampled_from(
        [
            "exit",
            "value",
            "zero",
            "recursion",
            TypeError,
            KeyError,
            IndexError,
            AttributeError,
            NotImplementedError,
            RuntimeError,
            AssertionError,
        ]
    ).map(_raiser),
    st.sampled_from(
        [
            _echo,
            _grad_tensor_like,
            lambda: 1.0,
            lambda a: a,
            lambda a, b, c, d, e, f, g: a,
            lambda *args: np.full((2, 2), np.nan),
            lambda *args: torch.full((3,), np.nan),
            lambda *args: np.asarray(args[0]) * np.nan if args else None,
            lambda *args: (x for x in range(3)),
        ]
    ),
    VALUES,  # not a function at all
)

# plausible data for parameters that are not the answer, by name (unknown names get garbage)
_DATA = make_regression_data(50, seed=0)
_VAL = make_regression_data(30, seed=1)
CONTEXT = {
    "scores": np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9]),
    "x_train": _DATA.x_train,
    "y_train": _DATA.y_train,
    "x_val": _VAL.x_train,
    "y_val": _VAL.y_train,
    "y_noisy": _DATA.y_train + 1.0,
    "h_noisy": 0.3,
    "h_calm": 0.3,
    "x": torch.tensor(_DATA.x_train, dtype=torch.float32),
    "y": torch.tensor(_DATA.y_train, dtype=torch.float32),
    "target_w": 3.0,
    "epochs": 10,
    "n": 6,
    "temperature": 0.5,
    "d": 256,
    "keys": np.array([[1.0, 0.0], [3.0, 3.0], [0.0, 1.0]]),
    "labels": ["a", "b", "c"],
    "query": np.array([1.0, 1.0]),
}


def _parameters(check):
    """(name, required) for each parameter after the check's title."""
    params = list(inspect.signature(check).parameters.values())[1:]
    return [(p.name, p.default is inspect.Parameter.empty) for p in params]


def _assert_feedback(feedback, check_name):
    assert isinstance(feedback, Feedback), f"{check_name} returned {type(feedback).__name__}"
    assert not feedback.passed, f"{check_name} passed garbage"
    assert feedback.messages and all(isinstance(m, str) and m.strip() for m in feedback.messages), feedback
    text = repr(feedback) + feedback._repr_markdown_()
    assert "Traceback" not in text, text


@pytest.mark.parametrize("check_name", CHECKS)
@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_check_turns_garbage_into_feedback(check_name, data):
    check = getattr(ex, check_name)
    params = _parameters(check)
    required = [(name, name == "fn") for name, needed in params if needed]
    everything_garbage = data.draw(st.booleans(), label="everything garbage")
    args = []
    for position, (name, is_function) in enumerate(required):
        if position > 0 and not everything_garbage and name in CONTEXT:
            args.append(CONTEXT[name])
        else:
            args.append(data.draw(FUNCTIONS if is_function else VALUES, label=name))
    feedback = check(*args)
    if args and (args[0] is None or args[0] is Ellipsis):
        assert isinstance(feedback, Feedback) and not feedback.attempted
        return
    if feedback.passed and not callable(args[0]) and to_float_array(args[0])[1] is None:
        return  # generated numbers can be a right answer (T = inf makes every weight equal; 0 % is a prediction)
    if feedback.passed and isinstance(args[0], str) and sum(c.isalnum() for c in args[0]) <= 2:
        return  # so can a generated letter, in a multiple-choice check ('B', or ':B\ufada': only B is a letter)
    _assert_feedback(feedback, check_name)


@pytest.mark.parametrize("check_name", [c for c in CHECKS if any(n == "fn" for n, _ in _parameters(getattr(ex, c)))])
@pytest.mark.parametrize("kind", ["exit", "value", "zero", "recursion", KeyError])
def test_a_student_error_is_shown_with_its_line(check_name, kind):
    check = getattr(ex, check_name)
    args = [_raiser(kind) if name == "fn" else CONTEXT.get(name, 0.5) for name, needed in _parameters(check) if needed]
    feedback = check(*args)
    _assert_feedback(feedback, check_name)
    text = " ".join(feedback.messages)
    assert "Your function raised" in text or "could not be checked" in text, text
    if kind == "value":
        assert "student's own mistake" in text and "second line" not in text
        assert "line " in text  # where in the student's code


def test_shared_helpers_never_raise_and_say_what_is_wrong():
    assert "complex" in to_float_array(torch.ones(2, dtype=torch.complex64))[1]
    assert "masked array" in to_float_array(np.ma.masked_array([1.0], mask=[True]))[1]
    assert "True/False" in to_float_array([True, False])[1]
    assert "not numbers" in to_float_array("1.5")[1]
    assert to_float_array(torch.ones(2, requires_grad=True))[1] is None  # detached, fine
    assert "could not be read" in to_float_array([[1.0], [1.0, 2.0]])[1]
    assert "not numbers" in to_float_array(Weird())[1] or "could not be read" in to_float_array(Weird())[1]
    table = ([Case((), "For no arguments")], lambda: np.array([1.0, 2.0]))
    rows = {"otherwise": Mistake("{where} not right."), "not_finite": Mistake("{where} NaN: look for 0/0.")}
    problem = check_function("t", lambda: np.array([1.0, np.nan]), *table, success="", **rows)
    assert problem.messages == ["For no arguments: NaN: look for 0/0."]
    assert check_function("t", lambda: np.array([1.0, 2.0]), *table, success="ok", **rows).passed
    problem = check_function("t", _raiser("exit"), *table, success="", **rows)
    assert "SystemExit" in problem.messages[0]

    @exercise(lambda answer: 1 / 0)  # a title that cannot be built
    def check_odd(name, answer):
        raise RuntimeError("the check itself fails")

    feedback = check_odd(3)
    assert feedback.exercise == "odd" and "could not be checked: RuntimeError" in feedback.messages[0]


def test_checks_write_no_warnings_even_for_overflowing_answers(recwarn):
    def naive_softmax(alpha, temperature):
        e = np.exp(alpha / temperature)  # overflows for the [1000, 1001, 999] case
        return e / e.sum(axis=-1, keepdims=True)

    feedback = ex.check_softmax(naive_softmax)
    assert not feedback.passed and len(recwarn) == 0
