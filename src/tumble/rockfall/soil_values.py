"""The numbers of a soil as a run states them: every field of a preset that a release fixes
(:func:`resolved_values`, what ``released_soils.json`` records), every field of a soil
(:func:`soil_values`), one line of them with units (:func:`values_text`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tumble.rockfall.soil import CATALOGUE, FIELDS, Soil, unknown_preset

#: the unit of each soil field that has one, as the start line and the report of a run print it
#: (the others are dimensionless)
UNITS = {
    "kappa": "1/m",
    "beta": "1/s",
    "drag": "kg/s",
    "drag_torque": "kg m^2/s",
    "drag_height": "m",
    "scar_strength": "kN/m^2",
}


def resolved_values(name: str) -> dict[str, Any]:
    """The numbers of preset ``name`` that a release fixes (``released_soils.json``,
    :mod:`tumble.rockfall.released_soils`): ``values``, every field of :data:`FIELDS` with its
    value in ``Soil.preset(name)`` (a field the preset does not give at its default); and, if the
    preset has them, ``sets`` (each equivalent set with every field), ``set_stride`` and
    ``set_joint`` (how the rocks draw them), and ``spread`` (field -> ``[low, high]``)."""
    if name not in CATALOGUE:
        raise ValueError(unknown_preset(name))
    preset = CATALOGUE[name]
    out: dict[str, Any] = {"values": soil_values(Soil.preset(name))}
    if preset.sets:
        out["sets"] = [soil_values(Soil(**values)) for values in preset.sets]
        out["set_stride"] = preset.set_stride
        out["set_joint"] = preset.set_joint
    if preset.spread:
        out["spread"] = {f: [float(low), float(high)] for f, (low, high) in preset.spread.items()}
    return out


def soil_values(soil: Soil) -> dict[str, float | str]:
    """Every field of ``soil`` in the order of :data:`FIELDS`: a number, or ``"raster"`` for a
    field given as a raster."""
    return {
        f: "raster" if isinstance(getattr(soil, f), np.ndarray) else float(getattr(soil, f))
        for f in FIELDS
    }


def values_text(values: dict[str, Any], zeros: bool = False) -> str:
    """Soil values in one line with their units, the fields that are 0 left out unless
    ``zeros``: ``mu_min 0.55, mu_max 2, kappa 3 1/m, beta 185 1/s, rolling_resistance 0.1; the
    other fields 0``."""
    shown = []
    for name, value in values.items():
        if not zeros and isinstance(value, int | float) and value == 0.0:
            continue
        unit = f" {UNITS[name]}" if name in UNITS and not isinstance(value, str) else ""
        text = f"{value:g}" if isinstance(value, int | float) else str(value)
        shown.append(f"{name} {text}{unit}")
    zero = len(shown) < len(values)
    if not shown:
        return "every field 0"
    return ", ".join(shown) + ("; the other fields 0" if zero else "")
