"""attention_lab: the small, tested library behind the course "Attention, from hard to soft".

Notation (used in every notebook, docstring and variable name):
query q, keys k_i, values v_i, scores alpha_i, weights lambda_i, temperature T, bandwidth h, w = 1/h.
"""

from . import plots
from .attention import attention
from .kernels import KERNELS, loo_bandwidth, loo_errors, nadaraya_watson
from .normalisers import (
    effective_keys,
    entropy,
    gumbel_softmax,
    hard_attention,
    logsumexp,
    sample_attention,
    softmax,
    sparsemax,
)
from .plots import lecture_mode, use_course_style
from .regression_data import RegressionData, make_regression_data, true_function
from .scores import SCORES, cosine_score, dot_score, gaussian_score, scaled_dot_score
from .seeding import manual_seed, seeded_generator, seeded_rng

__version__ = "0.1.0"

__all__ = [
    "KERNELS",
    "SCORES",
    "RegressionData",
    "attention",
    "cosine_score",
    "dot_score",
    "effective_keys",
    "entropy",
    "gaussian_score",
    "gumbel_softmax",
    "hard_attention",
    "lecture_mode",
    "logsumexp",
    "loo_bandwidth",
    "loo_errors",
    "manual_seed",
    "make_regression_data",
    "nadaraya_watson",
    "plots",
    "sample_attention",
    "scaled_dot_score",
    "seeded_generator",
    "seeded_rng",
    "softmax",
    "sparsemax",
    "true_function",
    "use_course_style",
]
