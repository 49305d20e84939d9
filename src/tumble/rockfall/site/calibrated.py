"""A run's soil from a calibration file (``[soil] calibration``, written by ``tumble rockfall
calibrate``): its best set, with the numbers the configuration gives over it, or with
``soil.uncertainty = "sets"`` one of its equivalent sets per rock; on a soil map, the best set
of each class the file calibrated."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tumble.errors import ConfigError, DataError
from tumble.io.calibration import read_calibration
from tumble.rockfall.site.soil_draws import SoilDraws, calibration_soil_table
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
    try:
        data = read_calibration(path)
    except DataError as err:
        raise ConfigError(str(err), "soil.calibration") from None
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
