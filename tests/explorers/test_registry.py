"""The registry every explorer joins when it is built: what the static site's frames export."""

import explorer_inputs as small

from attention_lab.explorers import live_explorers


def test_built_explorers_are_registered_in_the_order_they_were_built():
    before = live_explorers()
    first, second = small.FACTORIES["positional"](), small.FACTORIES["temperature"]()
    assert live_explorers()[len(before) :] == [first, second]
