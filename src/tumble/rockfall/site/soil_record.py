"""The soils of a run named with their values: what the start line, ``report.html``,
``summary.json`` (``soil``) and ``provenance.json`` (``config.soil``) say about the soil.

A study's verdict must not change without a word because a preset took other numbers: a run
says which preset each of its soils is (the single soil, or each class of a soil map), which
fields the configuration gave over it, and every value it used. :func:`soil_record` gives::

    {"presets": {"medium": {"mu_min": 0.55, ...}},              every field of each preset named,
                                                                its values in this release
     "soils": {"soil": {"preset": "medium",                      each soil of the run: "soil", or
                        "given": {"rolling_resistance": 0.15},   "class 3" of a soil map
                        "values": {"mu_min": 0.55, ...}}}}       every field as the run used it

A field given as a raster has the value ``"raster <file>"``; a soil whose rocks draw their
parameters (``soil.uncertainty``) has ``"uncertainty"`` (the draws are in
``summary.json["soil"]["uncertainty"]``), and with a forest map each soil has ``"forest"``
(:data:`FOREST_NOTE`; the forest's classes are in the resolved configuration).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tumble.rockfall.soil import FIELDS, RETIRED, Soil
from tumble.rockfall.soil_values import soil_values, values_text

if TYPE_CHECKING:
    from tumble.io.config import RockfallConfig

#: what a forest map does to the values of a soil
FOREST_NOTE = "the forest map's drag layers replace drag, drag_torque and drag_height in its cells"


def soil_record(config: RockfallConfig, preset: str | None) -> dict[str, Any]:
    """The record of the module docstring for a validated configuration whose presets exist;
    ``preset``: that of its single soil, as the run resolved it
    (:func:`tumble.rockfall.site.from_config.effective_preset`)."""
    c = config.soil
    entries: dict[str, tuple[str | None, dict[str, Any], str]] = {}
    if c.map is not None:
        for code, entry in (c.classes or {}).items():
            if isinstance(entry, str):
                entries[f"class {code}"] = (entry, {}, c.uncertainty)
            else:
                given = entry.model_dump(exclude_none=True)
                of_class = given.pop("preset")
                mode = given.pop("uncertainty", c.uncertainty)
                entries[f"class {code}"] = (of_class, given, mode)
    else:
        given = {f: getattr(c, f) for f in FIELDS if getattr(c, f) is not None}
        if c.calibration is not None:
            from tumble.io.calibration import read_calibration

            # the calibration's best set stands for the preset, every field given
            given = {**read_calibration(c.calibration)["soil"], **given}
            preset = None
        entries["soil"] = (preset, given, c.uncertainty)
    presets: dict[str, dict[str, Any]] = {}
    soils: dict[str, dict[str, Any]] = {}
    for where, (name, given, mode) in entries.items():
        base: dict[str, Any] = dict.fromkeys(FIELDS, 0.0)
        if name is not None:
            base = soil_values(Soil.preset(name))
            presets[name] = base
        values = {
            f: f"raster {given[f]}" if isinstance(given.get(f), str) else given.get(f, base[f])
            for f in FIELDS
        }
        soils[where] = {
            "preset": name,
            "given": {f: v if isinstance(v, str) else float(v) for f, v in given.items()},
            "values": {f: v if isinstance(v, str) else float(v) for f, v in values.items()},
        }
        if mode != "none":
            soils[where]["uncertainty"] = mode
        if config.forest.map is not None:
            soils[where]["forest"] = FOREST_NOTE
    record: dict[str, Any] = {"presets": presets, "soils": soils}
    if c.calibration is not None:
        record["calibration"] = str(c.calibration)
    return record


def soil_text(record: Mapping[str, Any]) -> str:
    """The soils of a :func:`soil_record` in one line: ``soil: medium (mu_min 0.55, ...)``, a
    preset with the fields given over it (``medium with rolling_resistance 0.15``), or a soil
    map's classes (``soil map: class 1 medium (...); class 2 authume_hard (...)``)."""
    parts = []
    for where, soil in record.get("soils", {}).items():
        preset, given = soil.get("preset"), soil.get("given") or {}
        name = "no preset"
        if record.get("calibration") and where == "soil":
            name = f"calibration {record['calibration']}"
        elif preset is not None:
            name = preset + (f" with {values_text(given, zeros=True)}" if given else "")
        drawn = soil.get("uncertainty")
        note = f"; drawn per rock: {drawn}" if drawn else ""
        note += f"; {soil['forest']}" if soil.get("forest") else ""
        text = f"{name} ({values_text(soil.get('values') or {})}{note})"
        parts.append(text if where == "soil" else f"{where} {text}")
    if len(parts) == 1 and "soil" in record.get("soils", {}):
        return f"soil: {parts[0]}"
    return "soil map: " + "; ".join(parts)


def retired_warnings(record: Mapping[str, Any]) -> list[str]:
    """A warning for each retired preset a run names: it runs with the values it was released
    with, and another name is the model to use now (:data:`tumble.rockfall.soil.RETIRED`)."""
    return [
        f"soil preset {name!r} is retired: use {RETIRED[name]}; it runs with the values it was "
        f"released with ({values_text(values)})"
        for name, values in record.get("presets", {}).items()
        if name in RETIRED
    ]
