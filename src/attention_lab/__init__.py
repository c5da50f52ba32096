"""attention_lab: the small, tested library behind the course "Attention, from hard to soft".

Notation (used in every notebook, docstring and variable name):
query q, keys k_i, values v_i, scores alpha_i, weights lambda_i, temperature T, bandwidth h, w = 1/h.
"""

from . import diagrams, plots
from .attention import attention
from .i18n import get_language, set_language
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
from .sampling import greedy_tokens, next_token_distribution, sample_tokens, top_k_mask, top_p_mask
from .scores import SCORES, cosine_score, dot_score, gaussian_score, scaled_dot_score
from .seeding import manual_seed, seeded_generator, seeded_rng

__version__ = "0.1.0"

__all__ = [
    "KERNELS",
    "SCORES",
    "RegressionData",
    "attention",
    "cosine_score",
    "diagrams",
    "dot_score",
    "effective_keys",
    "entropy",
    "gaussian_score",
    "get_language",
    "greedy_tokens",
    "gumbel_softmax",
    "hard_attention",
    "lecture_mode",
    "logsumexp",
    "loo_bandwidth",
    "loo_errors",
    "manual_seed",
    "make_regression_data",
    "nadaraya_watson",
    "next_token_distribution",
    "plots",
    "sample_attention",
    "sample_tokens",
    "scaled_dot_score",
    "seeded_generator",
    "seeded_rng",
    "set_language",
    "softmax",
    "sparsemax",
    "top_k_mask",
    "top_p_mask",
    "true_function",
    "use_course_style",
]
