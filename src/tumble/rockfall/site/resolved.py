"""The configuration of a run as it was used, every default written as its value: what
``provenance.json`` records under ``config.resolved`` and the report shows
(:func:`resolved_config`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tumble.io.config import RockfallConfig
from tumble.rockfall.site.from_config import DEFAULT_SCENARIO, RunSetup, effective_preset
from tumble.rockfall.site.landcover import ForestDrag
from tumble.rockfall.soil import FIELDS, Soil


def resolved_config(config: RockfallConfig, setup: RunSetup, run: dict[str, Any]) -> dict:
    """The configuration as it was used, every default written as its value (no nulls): the
    solver settings of the ensemble's options, the release with the scenario's defaults, the
    rock's mass, density and volume, the soil's values, and the ``run`` settings given (chunk
    size, threads, cluster). Keys that do not apply (a box size for an EOTA rock) are left out.
    """
    ensemble = setup.ensemble
    data = config.model_dump()
    options = ensemble.options
    # every solver setting of the options record, those the configuration has no key for too
    data["solver"] = {
        f.name: getattr(options, f.name)
        for f in dataclasses.fields(options)
        if f.name not in ("scheme", "dt", "t_max")
    }
    data["scheme"], data["dt"], data["t_max"] = options.scheme, options.dt, options.t_max
    if data["dem"] is None and data["scenario"] is None:
        data["scenario"] = DEFAULT_SCENARIO
    release = dataclasses.asdict(setup.release)
    data["release"] = {k: _plain(v) for k, v in release.items() if v is not None}
    rock = ensemble.shapes[0]
    data["rock"] = {
        **{k: v for k, v in data["rock"].items() if v is not None},
        "mass": float(rock.mass),
        "density": float(rock.density),
        "volume_m3": float(rock.volume),
        "inertia_kg_m2": [float(v) for v in rock.inertia],
    }
    soil = {}
    for name in FIELDS:
        given = data["soil"].get(name)
        value = getattr(ensemble.soil, name)
        if isinstance(value, float) or isinstance(given, str):
            soil[name] = given if isinstance(given, str) else float(value)
        else:
            soil[name] = "per cell, from the forest map"
    # the preset the run used: a built-in terrain's own soil where the configuration names none
    data["soil"] = {"preset": effective_preset(config), **soil}
    if data["soil"]["preset"] is None:
        del data["soil"]["preset"]
    if config.soil.uncertainty != "none":
        data["soil"]["uncertainty"] = config.soil.uncertainty
        data["soil"].update(_drawn(data["soil"].get("preset"), config.soil.uncertainty))
    _resolved_landcover(data, config)
    data["output"]["sample_every"] = ensemble.sample_every
    data["barrier"] = [
        {**{k: v for k, v in entry.items() if v is not None}, "uphill": barrier.uphill}
        for entry, barrier in zip(data["barrier"], ensemble.barriers, strict=True)
    ]
    design = setup.design.as_dict()
    if design.get("mass_kg") is None:
        design["mass_kg"] = "the largest rock mass crossing each barrier"
    data["design"] = design
    data["run"] = {**{k: v for k, v in data["run"].items() if v is not None}, **run}
    _resolved_site(data, setup)
    return {k: v for k, v in data.items() if v is not None}


def _drawn(preset: str | None, mode: str) -> dict[str, str]:
    """The fields a category's rocks draw (``soil.uncertainty``), each described in words in
    place of the category's own value: the values of its equivalent sets (``"sets"``), or the
    range of its spread (``"category"``)."""
    from tumble.rockfall.soil import CATALOGUE

    entry = CATALOGUE.get(preset or "")
    if entry is None or mode == "none":
        return {}
    if mode == "category":
        return {
            name: f"drawn per rock: uniform in [{low:g}, {high:g}]"
            for name, (low, high) in entry.spread.items()
        }
    return {
        name: "drawn per rock: one of the equivalent sets' " + ", ".join(f"{v:g}" for v in values)
        for name, values in entry.set_values().items()
    }


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _resolved_landcover(data: dict[str, Any], config: RockfallConfig) -> None:
    """The soil and forest class tables of the resolved configuration, every class written out
    in full (its preset's values with the overrides)."""
    if config.soil.map is not None:
        classes = {}
        for code, entry in (config.soil.classes or {}).items():
            fields = (
                {"preset": entry} if isinstance(entry, str) else entry.model_dump(exclude_none=True)
            )
            preset = fields.pop("preset")
            mode = fields.pop("uncertainty", config.soil.uncertainty)
            soil = Soil.preset(preset, **fields)
            classes[str(code)] = {"preset": preset, **{n: float(getattr(soil, n)) for n in FIELDS}}
            if mode != "none":
                classes[str(code)]["uncertainty"] = mode
                classes[str(code)].update(_drawn(preset, mode))
        data["soil"] = {"map": config.soil.map, "classes": classes}
    if config.forest.map is not None:
        data["forest"] = {
            "map": config.forest.map,
            "classes": {
                str(code): dataclasses.asdict(
                    ForestDrag.preset(entry)
                    if isinstance(entry, str)
                    else ForestDrag(**entry.model_dump())
                )
                for code, entry in config.forest.classes.items()
            },
        }
    elif config.forest.stems_per_ha is not None or config.forest.trees is not None:
        # rock-tree impacts (tumble.rockfall.forest): the keys as given, unset ones left out
        data["forest"] = config.forest.model_dump(exclude={"map", "classes"}, exclude_none=True)
    else:
        data.pop("forest", None)


def _resolved_site(data: dict, setup: RunSetup) -> None:
    """The release areas and rock classes in the resolved configuration ``data``, in place:
    the areas' file and fields with every area's name, rocks, frequency, weight and size; each
    class's shape, share and mass or volume distribution."""
    release = data.get("release", {})
    areas = release.pop("areas", None)
    if areas is not None:
        release.update(areas.description)
        release["sources"] = areas.summary()
    if setup.classes:
        data["rock"] = {"classes": [c.describe() for c in setup.classes]}
