"""One way to seed the course's random runs, and a switch to re-run them all with other seeds.

A trained model's trajectory changes with the CPU's floating-point kernels the way it changes with the
seed: the last bits of a sum differ between AVX2, AVX-512 and ARM, and after a few hundred steps so do the
weights. A claim about a trained model (or about any random experiment) is therefore only as good as the
seeds it holds for. The notebooks seed every training run and Monte Carlo experiment through this module;
``tools/seed_sweep.py`` sets the environment variable ``ATTENTION_LAB_SEED_OFFSET`` to run the whole
course again with other seeds and counts, for every assert, how many seeds it holds for.

With the variable unset (offset 0) every seed is the notebook's own, so the course's printed numbers do
not change. Offset ``k`` turns seed ``s`` into ``s + 1000 k``: two different seeds of one notebook never
meet under any offset. Data sets (the regression data, the dates, the digit sequences) are seeded
directly, not through here: they are the same on every CPU and for every sweep.
"""

from __future__ import annotations

import os

from ._checks import check_count

__all__ = ["OFFSET_VARIABLE", "seed_offset", "course_seed", "manual_seed", "seeded_generator", "seeded_rng"]

OFFSET_VARIABLE = "ATTENTION_LAB_SEED_OFFSET"
STRIDE = 1000  # seeds a notebook may use per offset: 0 .. 999


def seed_offset() -> int:
    """The sweep's offset k from ``ATTENTION_LAB_SEED_OFFSET`` (0 when it is unset)."""
    raw = os.environ.get(OFFSET_VARIABLE, "").strip()
    if not raw:
        return 0
    try:
        offset = int(raw)
    except ValueError:
        offset = -1
    if offset < 0:
        raise ValueError(f"{OFFSET_VARIABLE} must be a whole number >= 0 (0: the course's own seeds), got {raw!r}")
    return offset


def course_seed(seed: int = 0) -> int:
    """The seed actually used for the notebook's ``seed``: ``seed + 1000 * offset``."""
    # below STRIDE: the sweep shifts seeds by multiples of it
    return check_count(seed, "seed", 0, STRIDE - 1) + STRIDE * seed_offset()


def manual_seed(seed: int = 0) -> None:
    """Seed PyTorch's global generator (model initialisation, dropout) for a run: ``torch.manual_seed``."""
    import torch

    torch.manual_seed(course_seed(seed))


def seeded_generator(seed: int = 0):
    """A ``torch.Generator`` for a run's own randomness (batch order, sampled keys), seeded like :func:`manual_seed`."""
    import torch

    return torch.Generator().manual_seed(course_seed(seed))


def seeded_rng(seed: int = 0):
    """A ``numpy.random.Generator`` for a Monte Carlo experiment, seeded like :func:`manual_seed`."""
    import numpy as np

    return np.random.default_rng(course_seed(seed))
