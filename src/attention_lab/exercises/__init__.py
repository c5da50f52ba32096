"""Exercise checks, one module per notebook (mirroring ``solutions/notebook_0N.py``), all re-exported here.

Every ``check_*`` returns a :class:`Feedback` and never raises; most are tables run by :mod:`.runner`.
"""

from .feedback import Feedback
from .notebook_00 import check_uniform_temperature
from .notebook_01 import check_copies_weight, check_dot_product_winner, check_reachable_outputs, check_softmax
from .notebook_02 import (
    check_logsumexp,
    check_positional_attention,
    check_reinforce,
    check_smooth_max_gap,
    check_temperature_for_weight,
    check_top_k,
)
from .notebook_03 import (
    check_bandwidth_rate,
    check_bandwidth_search,
    check_knn_regression,
    check_noise_prediction,
    check_small_h_limit,
)
from .notebook_04 import (
    check_gradient_w,
    check_laplace_prediction,
    check_laplace_sgd_step,
    check_loo_predictions,
    check_no_loo_prediction,
    check_sgd_settings,
    check_w_symmetry,
)
from .notebook_05 import (
    check_additive_scores,
    check_padded_attention,
    check_query_jacobian,
    check_unscaled_entropy,
)
from .notebook_06 import (
    check_forward_encoder_prediction,
    check_greedy_decode,
    check_luong_attentional_state,
    check_uniform_attention_prediction,
)
from .notebook_07 import (
    check_causal_influence,
    check_head_score_variance,
    check_no_position_prediction,
    check_self_attention,
    check_split_heads,
    check_tempting_reshape,
    check_train_step,
    check_transformer_block,
)
from .notebook_08 import (
    check_cross_attention_cache,
    check_kv_cache_bytes,
    check_reheat,
    check_top_p,
    check_window_mask,
)

# Names of replaced exercises that the setup cells of notebooks 01, 03 and 04 (lesson cells) still import;
# not in __all__, to be dropped once those imports go: each exercise cell imports its own check.
check_scores_for_weights = check_copies_weight
check_gaussian_weights = check_knn_regression
check_bandwidth_choice = check_bandwidth_search
check_laplace_forward = check_laplace_sgd_step

__all__ = [
    "Feedback",
    "check_uniform_temperature",
    "check_dot_product_winner",
    "check_softmax",
    "check_reachable_outputs",
    "check_copies_weight",
    "check_logsumexp",
    "check_top_k",
    "check_temperature_for_weight",
    "check_smooth_max_gap",
    "check_reinforce",
    "check_positional_attention",
    "check_knn_regression",
    "check_bandwidth_search",
    "check_small_h_limit",
    "check_bandwidth_rate",
    "check_noise_prediction",
    "check_w_symmetry",
    "check_no_loo_prediction",
    "check_loo_predictions",
    "check_gradient_w",
    "check_sgd_settings",
    "check_laplace_prediction",
    "check_laplace_sgd_step",
    "check_additive_scores",
    "check_padded_attention",
    "check_unscaled_entropy",
    "check_query_jacobian",
    "check_luong_attentional_state",
    "check_uniform_attention_prediction",
    "check_forward_encoder_prediction",
    "check_greedy_decode",
    "check_self_attention",
    "check_causal_influence",
    "check_head_score_variance",
    "check_split_heads",
    "check_tempting_reshape",
    "check_no_position_prediction",
    "check_transformer_block",
    "check_train_step",
    "check_top_p",
    "check_reheat",
    "check_kv_cache_bytes",
    "check_window_mask",
    "check_cross_attention_cache",
]
