"""PyTorch pieces of the course (imported on demand: ``from attention_lab import nn``).

- :mod:`.gumbel`: Gumbel-softmax, relaxed and straight-through (notebook 02);
- :mod:`.kernel_regression`: Nadaraya-Watson with a learnable width (notebook 04);
- :mod:`.layers`: masked softmax and the attention layers (notebooks 05-06);
- :mod:`.transformer`: positional encoding, causal mask, multi-head attention, the Transformer block (notebooks 07-08);
- :mod:`.encoder_decoder`: the decoder block with cross-attention, an encoder-decoder Transformer (notebook 09);
- :mod:`.language_model`: a causal character model with a KV cache, and text generation (notebook 09).

Shapes are written next to each line. Only what the notebooks train lives here. Each layer checks its
inputs at its door; a model checks its token ids and lets its layers trust them (:func:`checks`, a switch
like scikit-learn's ``assume_finite``). A query with no allowed key gets weights 0 and output 0 (before any
output projection), as in :mod:`attention_lab.normalisers`.
"""

from ._checks import checks, checks_enabled
from .encoder_decoder import DecoderBlock, TransformerSeq2Seq
from .gumbel import gumbel_softmax
from .kernel_regression import AdaptiveNWKernelRegression, NWKernelRegression, leave_one_out
from .language_model import CharTransformer, KVCache, generate
from .layers import (
    AdditiveAttention,
    AttentionPooling,
    DotProductAttention,
    GeneralAttention,
    masked_softmax,
    padding_mask,
)
from .pooling import DotAttentionPooling
from .transformer import (
    MultiHeadAttention,
    PositionWiseFFN,
    TinyTransformer,
    TransformerBlock,
    causal_mask,
    reversal_data,
    sinusoidal_positional_encoding,
)

__all__ = [
    "checks",
    "checks_enabled",
    "gumbel_softmax",
    "NWKernelRegression",
    "AdaptiveNWKernelRegression",
    "leave_one_out",
    "masked_softmax",
    "padding_mask",
    "DotProductAttention",
    "AdditiveAttention",
    "GeneralAttention",
    "AttentionPooling",
    "sinusoidal_positional_encoding",
    "causal_mask",
    "MultiHeadAttention",
    "PositionWiseFFN",
    "TransformerBlock",
    "TinyTransformer",
    "reversal_data",
    "DotAttentionPooling",
    "DecoderBlock",
    "TransformerSeq2Seq",
    "CharTransformer",
    "KVCache",
    "generate",
]
