"""Controls shared by the explorers: the log-scale temperature slider, and the rule every value must pass.

:func:`positions` lists every position a control offers (label shown, value stored), for the static
pages and the benchmark. A value set from code (``explorer.set(...)`` or a constructor argument) is
checked by :func:`check_control_value` before it is stored: it must be one of a selection's options, or a finite
number inside a slider's range, or a bool for a toggle. A control may add its own ``coerce(value)`` hook
(the temperature slider snaps a valid temperature to its nearest position); nothing invalid is clamped
or snapped, it is refused with a ValueError naming the control.

A temperature set through an explorer is checked once, by the slider: the explorers compute what they
show at each of the slider's positions when they are built (:func:`at_each_temperature`), so a step looks
it up instead of handing the value to the core, which would check it again.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from .._checks import check_real, check_temperature, describe
from ..i18n import N_, _

__all__ = [
    "TEMPERATURE_OPTIONS",
    "temperature_label",
    "nearest_temperature",
    "TemperatureSlider",
    "at_each_temperature",
    "temperature_slider",
    "temperature_axis_position",
    "temperature_axis",
    "positions",
    "check_control_value",
    "positions_or_none",
    "index_of",
    "describe_control",
    "tooltip_trait",
    "widget_bundle",
    "control_entries",
    "SLIDERS",
]


def temperature_label(t: float, translate=_) -> str:
    """How a temperature reads on the slider and in the titles, in the current language (``translate=N_``:
    in English)."""
    if t == 0:
        return translate(N_("0 (hard)"))
    if t == np.inf:
        return translate(N_("∞ (uniform)"))
    return f"{t:.3g}"


# T = 0, then 41 log-spaced values from 0.01 to 100, then T = inf: the slider reaches both limits exactly.
# The labels here are English; a slider takes them in the language of the moment it is built.
TEMPERATURE_OPTIONS = [
    (temperature_label(t, N_), float(t)) for t in [0.0, *np.round(10.0 ** np.linspace(-2, 2, 41), 6), np.inf]
]


def nearest_temperature(value: float, name: str = "temperature") -> float:
    """The slider position closest to temperature ``value`` (on the log scale; 0 and inf exactly)."""
    value = check_temperature(value, name)
    values = [v for _, v in TEMPERATURE_OPTIONS]
    wanted = temperature_axis_position(value)
    return values[int(np.argmin([abs(temperature_axis_position(v) - wanted) for v in values]))]


class TemperatureSlider(widgets.SelectionSlider):
    """A selection slider over :data:`TEMPERATURE_OPTIONS` whose ``coerce`` snaps a valid T to a position."""

    def coerce(self, value, name: str = "temperature") -> float:
        return nearest_temperature(value, name)


def at_each_temperature(compute) -> dict:
    """``{T: compute(T)}`` for every position T of the temperature slider (:data:`TEMPERATURE_OPTIONS`).

    An explorer's temperature is always one of these positions, so it computes what it shows at each one
    when it is built (the core checks these 43 values then): the reader's value is checked once, by the
    slider, and a step is a look-up, ``table[T]``.
    """
    return {t: compute(t) for _, t in TEMPERATURE_OPTIONS}


def temperature_slider(value: float = 1.0, description: str = "T") -> TemperatureSlider:
    """A log-scale temperature slider from 0 (hard) through 0.01 ... 100 to inf (uniform), labelled in the
    current language."""
    return TemperatureSlider(
        options=[(temperature_label(t), t) for _label, t in TEMPERATURE_OPTIONS],
        value=nearest_temperature(value),
        description=description,
        continuous_update=True,
        layout=widgets.Layout(width="460px"),
    )


def temperature_axis_position(t: float) -> float:
    """Where temperature T sits on a log10 axis that also shows T = 0 (at -2.8) and T = inf (at 2.8)."""
    if t == 0:
        return -2.8
    if t == np.inf:
        return 2.8
    return float(np.log10(t))


def temperature_axis(ax, label=None):
    """A log10 temperature axis with T = 0 and T = inf at its ends; ``label`` default: the translated one."""
    ticks = [-2.8, -2, -1, 0, 1, 2, 2.8]
    ax.set_xticks(ticks, ["0", "0.01", "0.1", "1", "10", "100", "∞"])
    ax.set_xlim(-3.05, 3.05)
    ax.set_xlabel(_("temperature T (log scale)") if label is None else label)


def positions(control) -> list[tuple[str, object]]:
    """Every position of ``control`` as (label shown, value stored), in the order the control offers them.

    A selection (dropdown, toggle buttons, selection slider): its options; a toggle (checkbox, toggle
    button): off and on; a slider over numbers: every step of its grid (a log slider's on the log scale).
    """
    if _is_selection(control):
        options = control.options.items() if isinstance(control.options, dict) else control.options
        return [
            (str(option[0]), option[1]) if isinstance(option, tuple) else (str(option), option) for option in options
        ]
    if isinstance(control.value, bool):
        return [(_("off"), False), (_("on"), True)]
    if isinstance(control, widgets.IntSlider):
        return [(str(v), v) for v in range(control.min, control.max + 1, control.step)]
    if isinstance(control, widgets.FloatLogSlider | widgets.FloatSlider):
        count = int(math.floor((control.max - control.min) / control.step + 1e-9)) + 1
        steps = [control.min + control.step * k for k in range(count)]  # the slider's grid
        if isinstance(control, widgets.FloatLogSlider):  # min and max are exponents
            low, high = control.base**control.min, control.base**control.max
            values = [min(max(control.base**s, low), high) for s in steps]
        else:
            values = [min(s, control.max) for s in steps]
        return [(format(v, control.readout_format), float(v)) for v in values]
    raise TypeError(f"a control of type {type(control).__name__} has no positions the page can offer")


def _is_selection(control) -> bool:
    """Dropdown, ToggleButtons, SelectionSlider, RadioButtons, ...: a control choosing among ``options``."""
    return hasattr(control, "options") and not hasattr(control, "min")


def check_control_value(name: str, control, value):
    """``value`` as ``control`` would store it, or a ValueError naming the control (nothing is stored here)."""
    coerce = getattr(control, "coerce", None)
    if coerce is not None:
        value = coerce(value, name)
    if _is_selection(control):
        options = [value for _, value in positions(control)]
        for option in options:
            same_type = isinstance(value, str) == isinstance(option, str) and not isinstance(value, bool)
            if same_type and value == option:
                return option
        raise ValueError(f"{name} must be one of {options}, got {describe(value)}")
    if isinstance(control.value, bool):  # Checkbox, ToggleButton
        if not isinstance(value, bool | np.bool_):
            raise ValueError(f"{name} must be True or False, got {describe(value)}")
        return bool(value)
    if isinstance(control.value, int | float) and hasattr(control, "min"):  # a slider or box over numbers
        number = check_real(value, name)
        integral = isinstance(control.value, int)
        if not np.isfinite(number) or (integral and number != int(number)):
            kind = "a whole number" if integral else "a finite number"
            raise ValueError(f"{name} must be {kind}, got {describe(value)}")
        low, high = control.min, control.max
        inside = low <= number <= high
        if hasattr(control, "base"):  # FloatLogSlider: min and max are exponents; 10**log10(5) is 5 + 1 ulp
            inside = number > 0 and low - 1e-12 <= np.log(number) / np.log(control.base) <= high + 1e-12
            low, high = (float(f"{control.base**end:.12g}") for end in (low, high))
        if not inside:
            raise ValueError(f"{name} must be between {low:g} and {high:g} (the slider's range), got {describe(value)}")
        return int(number) if integral else number
    return value


HOW_TO_USE = {
    "buttons": N_("buttons: Tab to one, Enter or Space chooses it"),
    "list": N_("a list: the arrow keys choose"),
    "slider": N_("a slider: the arrow keys step it, Home and End go to its ends"),
}


def _how_to_use(control) -> str:
    if isinstance(control, widgets.ToggleButtons):
        return _(HOW_TO_USE["buttons"])
    if isinstance(control, widgets.Dropdown):
        return _(HOW_TO_USE["list"])
    return _(HOW_TO_USE["slider"])


def tooltip_trait(control) -> str:
    """The name of the widget's tooltip trait: ``tooltip`` in ipywidgets 8, ``description_tooltip`` in 7.x
    (Colab's release), where a plain ``tooltip`` attribute would never reach the front end."""
    return "tooltip" if control.has_trait("tooltip") else "description_tooltip"


def describe_control(control, owner: str) -> str:
    """Give ``control`` a tooltip a screen reader can read (ipywidgets shows it as the label's title): what it
    sets, how to move it from the keyboard, that the figure follows. A tooltip already set is kept."""
    trait = tooltip_trait(control)
    if not getattr(control, trait, None):
        name = getattr(control, "description", "") or _("control")
        text = _("{owner}, {name}: {how}; the figure below follows").format(
            owner=owner, name=name, how=_how_to_use(control)
        )
        setattr(control, trait, text)
    return getattr(control, trait)


def widget_bundle(widget, **kwargs) -> dict:
    """The display bundle of an ipywidgets widget, in ipywidgets 8 (JupyterLab 4) and 7.7 (Colab's release).

    The adapter for ipywidgets, public names only: ipywidgets 8 builds the bundle in ``_repr_mimebundle_``
    (IPython's display protocol); ipywidgets 7 has no such method (it displays through
    ``_ipython_display_``), so the same bundle is written here from the widget's public ``model_id``.
    """
    if hasattr(widget, "_repr_mimebundle_"):
        return widget._repr_mimebundle_(**kwargs)
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return {"text/plain": repr(widget), "application/vnd.jupyter.widget-view+json": view}


def positions_or_none(control) -> list | None:
    """The control's positions, or None for a control that cannot be enumerated (it keeps the kernel path)."""
    try:
        return positions(control)
    except TypeError:
        return None


KINDS = {widgets.Dropdown: "select"}  # how the front end draws a control that is not a slider nor buttons
SLIDERS = (widgets.SelectionSlider, widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)


def control_entries(controls: dict, every: dict, offered: dict | None = None) -> list[dict]:
    """Each control as the front end shows it: name, label, kind, the labels of the positions offered
    (``offered[name]``: indices into ``every[name]``, its positions; default all), the current one, how many."""
    entries = []
    for name, control in controls.items():
        chosen = (offered or {}).get(name, range(len(every[name])))
        here = index_of(every[name], control.value)
        kind = "slider" if isinstance(control, SLIDERS) else KINDS.get(type(control), "buttons")
        entries.append(
            {
                "name": name,
                "label": control.description or name,
                "kind": kind,
                "labels": [every[name][j][0] for j in chosen],
                "current": list(chosen).index(here) if here in chosen else 0,
                "positions": len(every[name]),
                "tooltip": getattr(control, tooltip_trait(control), None) or "",
            }
        )
    return entries


def index_of(options: list, value) -> int:
    """Index of ``value`` among ``options`` (label, value) pairs: the nearest for a float, else the equal one."""
    if isinstance(value, float) and not isinstance(value, bool):
        gaps = [abs(v - value) if isinstance(v, float) else np.inf for _, v in options]
        return int(np.argmin(gaps))
    return next((i for i, (_, v) in enumerate(options) if v == value and type(v) is type(value)), 0)
