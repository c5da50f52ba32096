"""Interactive explorers: a figure built once whose artists are updated in place when a widget moves.

One module per explorer, each with its static small-multiples twin (for a slide or a page without a
kernel); :mod:`.base` holds the :class:`Explorer` machinery (blitting, the PNG fallback, ``set``) and
:mod:`.controls` the shared temperature slider and the rule every control value must pass.

======================================  ==========  ====================
explorer                                notebook    module
======================================  ==========  ====================
:class:`LookupExplorer`                 01          :mod:`.lookup`
:class:`TemperatureExplorer`            02          :mod:`.temperature`
:class:`GumbelExplorer`                 02          :mod:`.gumbel`
:class:`KernelExplorer`                 03          :mod:`.kernel`
:class:`TrainingScrubber`               04          :mod:`.scrubber`
:class:`DimensionExplorer`              05          :mod:`.dimension`
:class:`AlignmentExplorer`              06          :mod:`.alignment`
:class:`PositionalEncodingExplorer`     07          :mod:`.positional`
:class:`HeadExplorer`                   08          :mod:`.heads`
:class:`SamplingExplorer`               09          :mod:`.sampling`
======================================  ==========  ====================
"""

from .alignment import AlignmentExplorer, alignment_small_multiples, plot_alignment
from .base import Explorer, explorer_classes, live_explorers
from .controls import TEMPERATURE_OPTIONS, nearest_temperature, temperature_slider
from .dimension import DIMENSIONS, DimensionExplorer, ScoreSample, scaling_small_multiples
from .gumbel import GumbelExplorer, gumbel_small_multiples
from .heads import HeadExplorer, heads_small_multiples, plot_head
from .kernel import BANDWIDTH_RANGE, TRAIN_SIZES, KernelExplorer, kernel_small_multiples
from .lookup import LookupExplorer, lookup_small_multiples
from .positional import PositionalEncodingExplorer, offset_dot_products, positional_small_multiples
from .sampling import SamplingExplorer, sampling_small_multiples
from .scrubber import TrainingScrubber, training_small_multiples
from .temperature import TemperatureExplorer, temperature_small_multiples

__all__ = [
    "Explorer",
    "live_explorers",
    "explorer_classes",
    "TEMPERATURE_OPTIONS",
    "nearest_temperature",
    "temperature_slider",
    "LookupExplorer",
    "lookup_small_multiples",
    "TemperatureExplorer",
    "temperature_small_multiples",
    "GumbelExplorer",
    "gumbel_small_multiples",
    "KernelExplorer",
    "kernel_small_multiples",
    "BANDWIDTH_RANGE",
    "TRAIN_SIZES",
    "TrainingScrubber",
    "training_small_multiples",
    "DimensionExplorer",
    "ScoreSample",
    "DIMENSIONS",
    "scaling_small_multiples",
    "AlignmentExplorer",
    "alignment_small_multiples",
    "plot_alignment",
    "PositionalEncodingExplorer",
    "positional_small_multiples",
    "offset_dot_products",
    "HeadExplorer",
    "heads_small_multiples",
    "plot_head",
    "SamplingExplorer",
    "sampling_small_multiples",
]
