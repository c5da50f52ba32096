"""Diagrams of the course: the pictures that are not plots, drawn from code (matplotlib patches, arrows, text).

One function per diagram, each returning a :class:`Diagram` (its figure and its alt text) that a notebook
shows by calling it in a cell, e.g. ``al.diagrams.three_steps()``. The labels use the course's notation
(glossary.md) and the role colours of ``_draw.ROLE``; text is never smaller than :data:`FONT_SIZE` points.

======================  ========  ===============================================================
function                notebook  shows
======================  ========  ===============================================================
course_map              00        notebooks 01-09 as a path, each box naming its notebook
three_steps             01        score -> softmax -> weighted sum
hard_vs_soft            02        one-hot weights (pick one value) against softmax weights (blend)
nadaraya_watson_pooling 03        kernel weights over keys on the x-axis for one query
leave_one_out           04        the keys a training point sees: all n (itself too) or the other n - 1
scoring_functions       05        the additive score against the scaled dot product
encoder_decoder         06        Bahdanau's decoder step: the previous decoder state is the query
multi_head              07        project, split, attend, concatenate, project
transformer_block       08        the pre-LN block with its residual connections
self_vs_cross           07        where Q, K, V come from in self- and in cross-attention
generation_loop         09        autoregressive generation: score, sample, append, again
======================  ========  ===============================================================
"""

from . import course, generation, lookup, models, scoring
from ._draw import FONT_SIZE, Diagram
from .course import course_map
from .generation import generation_loop
from .lookup import hard_vs_soft, leave_one_out, nadaraya_watson_pooling, three_steps
from .models import encoder_decoder, multi_head, self_vs_cross, transformer_block
from .scoring import scoring_functions

__all__ = [
    "ALT_TEXT",
    "DIAGRAMS",
    "FONT_SIZE",
    "Diagram",
    "course_map",
    "encoder_decoder",
    "generation_loop",
    "hard_vs_soft",
    "leave_one_out",
    "multi_head",
    "nadaraya_watson_pooling",
    "scoring_functions",
    "self_vs_cross",
    "three_steps",
    "transformer_block",
]

MODULES = (course, lookup, scoring, models, generation)  # in the order of the notebooks
ALT_TEXT = {name: alt for module in MODULES for name, alt in module.ALT_TEXT.items()}
DIAGRAMS = {name: getattr(module, name) for module in MODULES for name in module.ALT_TEXT}
