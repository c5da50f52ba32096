"""Garbage where numbers are expected: every numeric function of the library refuses each with a ValueError.

Used by the bad-input tests beside each core module's other tests (tests/core/test_<module>.py): each binds
``garbage_test(takers)`` to its ``test_garbage_is_refused_with_a_value_error``.
"""

import numpy as np
import pytest
import torch

GARBAGE = {
    "None": None,
    "text": "1.5",
    "text list": ["1", "2"],
    "dict": {"a": 1.0},
    "bool array": np.array([True, False]),
    "bool list": [True, False, True],
    "complex": np.array([1 + 2j, 3.0]),
    "complex scalar list": [1j, 2.0],
    "masked array": np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False]),
    "NaN": [1.0, np.nan],
    "+inf": [1.0, np.inf],
    "ragged": [[1.0, 2.0], [3.0]],
    "huge int": [10**400, 1],
    "tensor with grad": torch.ones(3, requires_grad=True),
    "object": object(),
    "mixed list": [1.0, "x"],
    "None in list": [1.0, None],
}


def assert_refused(call, value):
    """``call(value)`` raises a ValueError with a real message (not a traceback, not a word)."""
    with pytest.raises(ValueError) as error:
        call(value)
    assert "Traceback" not in str(error.value) and len(str(error.value)) > 10


def garbage_test(takers: dict):
    """The test that each of ``takers`` (name -> a call that passes its argument on) refuses every GARBAGE."""

    @pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
    @pytest.mark.parametrize("function", list(takers), ids=list(takers))
    def test(function, garbage):
        assert_refused(takers[function], GARBAGE[garbage])

    return test
