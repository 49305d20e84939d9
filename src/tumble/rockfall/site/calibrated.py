"""A run's soil from a calibration file (``[soil] calibration``, written by ``tumble rockfall
calibrate``): its best set, with the numbers the configuration gives over it, or with
``soil.uncertainty = "sets"`` one of its equivalent sets per rock; on a soil map, the best set
of each class the file calibrated, or with ``"sets"`` one of its equivalent sets per rock for
every class it calibrated."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.errors import ConfigError, DataError
from tumble.io.calibration import read_calibration
from tumble.rockfall.site.soil_draws import SoilDraws, calibration_soil_table
from tumble.rockfall.site.soil_uncertainty import set_index, soil_uniforms
from tumble.rockfall.soil import FIELDS, Soil

if TYPE_CHECKING:
    from tumble.io.config import RockfallConfig


def calibration_draws(
    config: RockfallConfig, given: list[str], finish: Callable[[Soil], Soil]
) -> SoilDraws:
    """``soil.uncertainty = "sets"`` with ``soil.calibration``: each rock draws one of the
    calibration's equivalent sets (:func:`.soil_draws.calibration_soil_table`)."""
    if given:
        raise ConfigError(
            "soil.uncertainty draws from the calibration's equivalent sets: give no field of "
            f"the soil's own ({', '.join(given)})",
            "soil.uncertainty",
        )
    assert isinstance(config.rocks, int)
    try:
        soils, row, values, described = calibration_soil_table(
            str(config.soil.calibration),
            config.seed,
            config.rocks,
            finish,
        )
    except (ValueError, DataError) as err:
        raise ConfigError(str(err), "soil.calibration") from None
    return SoilDraws(soils, row, {"soil": values}, described)


def calibrated_soil(config: RockfallConfig, given: dict[str, Any]) -> Soil:
    """The best set of ``soil.calibration``, with the numbers the configuration gives over it."""
    c = config.soil
    if "preset" in c.model_fields_set and c.preset is not None:
        raise ConfigError(
            "soil.calibration gives every field of the soil: give it or soil.preset, not both",
            "soil.calibration",
        )
    if c.uncertainty == "category":
        raise ConfigError(
            "soil.uncertainty = 'category' with soil.calibration: a calibration has equivalent "
            "sets, not a uniform spread; use 'sets' (each rock draws one of them) or 'none' "
            "(the best set)",
            "soil.uncertainty",
        )
    if any(isinstance(getattr(c, n), str) for n in FIELDS):
        raise ConfigError("soil rasters with soil.calibration are not supported", "soil")
    try:
        best = Soil.from_calibration(str(c.calibration))
        return dataclasses.replace(best, **given)
    except ValueError as err:
        raise ConfigError(str(err), "soil.calibration") from None


def calibrated_classes(path: str, classes: dict[int, Soil]) -> dict[int, Soil]:
    """The soil of each class of a calibration of a soil map's classes (``[soil.classes.N]``
    of the file): ConfigError for a file of a single soil or a class the configuration's map
    does not have."""
    data = _read(path)
    if not data["classes"]:
        raise ConfigError(
            f"{path} calibrates a single soil, not the classes of a soil map: use it without "
            "soil.map, or calibrate on the configuration with the map",
            "soil.calibration",
        )
    unknown = sorted(set(data["classes"]) - set(classes))
    if unknown:
        raise ConfigError(
            f"{path} calibrates soil class {unknown[0]}, which [soil.classes] does not have "
            f"(the classes: {', '.join(map(str, sorted(classes)))})",
            "soil.calibration",
        )
    out = {}
    for code, values in data["classes"].items():
        try:
            out[code] = Soil(**values)
        except (TypeError, ValueError) as err:
            raise ConfigError(f"{path}: soil class {code}: {err}", "soil.calibration") from None
    return out


def calibrated_map_draws(
    config: RockfallConfig,
    classes: Mapping[int, Soil],
    build: Callable[[Mapping[int, Soil]], Soil],
) -> SoilDraws:
    """``soil.uncertainty`` of a soil map with a calibration of its classes (``classes``: the
    soil of every class, the calibrated ones at the file's best set, :func:`calibrated_classes`;
    ``build`` turns the classes' soils into the map's soil, called only for the sets drawn, so
    that the map is read only then). ``"none"``: no draws. ``"sets"``:
    each rock draws one of the file's equivalent sets, set ``floor(n u_0)`` of ``n`` (``u_0`` the
    first uniform of its soil stream, the rule of a single soil's sets), and every class the
    file calibrated takes that set's values (a field the set does not give, the best set's);
    the other classes keep theirs. A class of ``[soil.classes]`` that draws on its own and
    ``"category"`` are refused: the calibration's sets are joint over its classes."""
    c = config.soil
    own = [
        code
        for code, e in (c.classes or {}).items()
        if getattr(e, "uncertainty", None) not in (None, "none")
    ]
    if own:
        raise ConfigError(
            f"soil class {own[0]} draws on its own beside soil.calibration: the calibration's "
            "equivalent sets hold every class it calibrated together; give soil.uncertainty = "
            "'sets' (each rock draws one set for every class) and no uncertainty per class",
            f"soil.classes.{own[0]}.uncertainty",
        )
    if c.uncertainty == "none":
        return SoilDraws()
    path = str(c.calibration)
    if c.uncertainty != "sets":
        raise ConfigError(
            f"soil.uncertainty = {c.uncertainty!r} with a calibration of a soil map's classes: "
            "a calibration has equivalent sets, not a uniform spread; use 'sets' or 'none'",
            "soil.uncertainty",
        )
    data = _read(path)
    if not data["sets"]:
        raise ConfigError(
            f"{path} has no equivalent sets ([[sets]]) to draw from: the run takes its best set "
            "with soil.uncertainty = 'none'",
            "soil.uncertainty",
        )
    codes = sorted(data["classes"])
    set_soils = []
    for k, one in enumerate(data["sets"]):
        soils = {}
        for code in codes:
            values = {**data["classes"][code], **one.get("classes", {}).get(code, {})}
            try:
                soils[code] = Soil(**values)
            except (TypeError, ValueError) as err:
                raise ConfigError(
                    f"{path}: set {k + 1}, soil class {code}: {err}", "soil.calibration"
                ) from None
        set_soils.append(soils)
    assert isinstance(config.rocks, int)
    index = set_index(soil_uniforms(config.seed, config.rocks)[:, 0], len(set_soils))
    used, first = np.unique(index, return_index=True)
    order = used[np.argsort(first)]  # the sets in the order the rocks first draw them
    position = {int(k): r for r, k in enumerate(order)}
    row = np.array([position[int(k)] for k in index], dtype=np.int64)
    try:
        table = tuple(build({**classes, **set_soils[int(k)]}) for k in order)
    except ValueError as err:
        raise ConfigError(str(err), "soil.map") from None
    values = {
        f"class {code}": np.array(
            [[float(getattr(one[code], f)) for f in FIELDS] for one in set_soils]
        )[index]
        for code in codes
    }
    entry = {
        "category": "calibration",
        "calibration": path,
        "mode": "sets",
        "source": f"the equivalent sets of the calibration {path}",
        "sets": len(set_soils),
    }
    described = {"mode": "sets", "categories": {f"class {code}": dict(entry) for code in codes}}
    return SoilDraws(table, row, values, described)


def _read(path: str) -> dict[str, Any]:
    """:func:`tumble.io.calibration.read_calibration`, a bad file a ConfigError of
    ``soil.calibration``."""
    try:
        return read_calibration(path)
    except DataError as err:
        raise ConfigError(str(err), "soil.calibration") from None
