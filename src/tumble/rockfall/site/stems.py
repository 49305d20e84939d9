"""The stems of ``[forest]`` (:mod:`tumble.rockfall.forest`) from the configuration's inputs.

Stands: ``stems_per_ha``, ``dbh_cm`` and ``energy_factor`` are numbers or rasters on any grid,
extent and CRS, brought onto the DEM's samples by nearest-neighbour resampling like the soil map
(:func:`tumble.io.resample.resample_to_grid`); 0 or nodata stems, or nodata DBH, is no forest.
Single trees: ``trees`` is a vector file of points (any format the release areas take) with the
DBH in cm in ``dbh_field`` and optionally the energy factor in ``factor_field``; points in
another CRS than the DEM's are transformed to it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import ConfigError, DataError
from tumble.io.vectors import read_points, transform_xy
from tumble.rockfall.forest import Forest


def _values(value: Any, terrain: Any, base: Path, key: str) -> Any:
    """A number, or a raster file resampled onto the DEM grid (NaN for nodata)."""
    if not isinstance(value, str):
        return float(value)
    path = Path(value)
    path = path if path.is_absolute() else base / path
    try:
        return terrain.resample(path, key)
    except (ValueError, OSError) as err:
        raise ConfigError(str(err), key) from err


def stems_from_config(c: Any, terrain: Any, base: Path) -> Forest | None:
    """The :class:`~tumble.rockfall.forest.Forest` of the ``[forest]`` section ``c``, or None
    when it gives no stems. ConfigError names the key of a wrong or missing input."""
    height = math.inf if c.stem_height is None else float(c.stem_height)
    stand = c.stems_per_ha is not None or c.dbh_cm is not None
    if stand and c.trees is not None:
        raise ConfigError(
            "forest: give stands (stems_per_ha, dbh_cm) or single trees (trees), not both",
            "forest.trees",
        )
    if c.map is not None and (stand or c.trees is not None):
        raise ConfigError(
            "forest: the drag layer (map, classes) and rock-tree impacts (stems_per_ha, dbh_cm "
            "or trees) are two models of the same forest; give one",
            "forest.map",
        )
    if stand:
        for key in ("stems_per_ha", "dbh_cm"):
            if getattr(c, key) is None:
                raise ConfigError(
                    f"forest.{key} is needed with stands: stems per hectare and mean DBH (cm), "
                    "each a number or a raster",
                    f"forest.{key}",
                )
        stems = _values(c.stems_per_ha, terrain, base, "forest.stems_per_ha")
        dbh = _values(c.dbh_cm, terrain, base, "forest.dbh_cm")
        factor = _values(c.energy_factor, terrain, base, "forest.energy_factor")
        try:
            return Forest.stand(terrain, stems, dbh, factor, height)
        except ValueError as err:
            raise ConfigError(str(err), "forest.stems_per_ha") from None
    if c.trees is None:
        return None
    path = Path(c.trees)
    path = path if path.is_absolute() else base / path
    fields = [c.dbh_field] + ([c.factor_field] if c.factor_field else [])
    try:
        x, y, attributes, crs = read_points(path, fields)
    except DataError as err:
        raise ConfigError(str(err), "forest.trees") from None
    if crs is not None and terrain.crs is not None:
        try:
            x, y = transform_xy(x, y, crs, terrain.crs)
        except ValueError as err:
            raise ConfigError(f"{path}: {err}", "forest.trees") from None

    def column(name: str) -> np.ndarray:
        values = attributes[name]
        bad = [k for k, v in enumerate(values) if not isinstance(v, int | float) or not v > 0]
        if bad:
            raise ConfigError(
                f"{path}: tree {bad[0] + 1} has {name} = {values[bad[0]]!r}; every tree needs a "
                f"positive number",
                "forest.dbh_field" if name == c.dbh_field else "forest.factor_field",
            )
        return np.asarray(values, dtype=np.float64)

    if x.size == 0:
        raise ConfigError(f"{path} holds no points", "forest.trees")
    dbh = column(c.dbh_field)
    factor = column(c.factor_field) if c.factor_field else float(c.energy_factor)
    if isinstance(factor, str):
        raise ConfigError("with trees give energy_factor as a number", "forest.energy_factor")
    try:
        return Forest.trees(terrain, x, y, dbh, factor, height)
    except ValueError as err:
        raise ConfigError(f"{path}: {err}", "forest.trees") from None
