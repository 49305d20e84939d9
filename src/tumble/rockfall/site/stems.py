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
from tumble.rockfall.forest import Forest, StandInputError, stem_capacity_J


def _values(value: Any, terrain: Any, base: Path, key: str) -> Any:
    """A number, or a raster file resampled onto the DEM grid (NaN for nodata)."""
    if not isinstance(value, str):
        return float(value)
    not_a_number(value, key)
    path = Path(value)
    path = path if path.is_absolute() else base / path
    try:
        return terrain.resample(path, key)
    except (ValueError, OSError) as err:
        raise ConfigError(str(err), key) from err


def not_a_number(value: str, key: str) -> None:
    """ConfigError for a number given as text where a text is a raster file's name."""
    try:
        float(value)
    except ValueError:
        return
    raise ConfigError(
        f"{key} = {value!r} is text, which names a raster file; give the number without quotes "
        "(or the name of a raster file)",
        key,
    )


#: a mean DBH below this (cm) is taken for a value in the wrong unit and warned about
THIN_DBH_CM = 5.0


def _stand_warnings(stems: Any, dbh: Any, terrain: Any) -> list[str]:
    """Samples with stems but no DBH (nodata: no forest there), and DBH too thin for cm."""
    shape = terrain.heights.shape
    n = np.broadcast_to(np.asarray(stems, dtype=np.float64), shape)
    d = np.broadcast_to(np.asarray(dbh, dtype=np.float64), shape)
    warnings = []
    lost = np.isfinite(n) & (n > 0.0) & ~np.isfinite(d)
    if lost.any():
        warnings.append(
            f"forest: {int(lost.sum())} DEM samples with stems have no DBH (nodata in "
            "forest.dbh_cm): they hold no forest in this run"
        )
    thin = np.isfinite(n) & (n > 0.0) & np.isfinite(d) & (d > 0.0) & (d < THIN_DBH_CM)
    if thin.any():
        warnings.append(
            f"forest: {int(thin.sum())} DEM samples of stand have a mean DBH below "
            f"{THIN_DBH_CM:g} cm (smallest {float(d[thin].min()):g} cm; a stem of 1 cm takes "
            f"{stem_capacity_J(1.0) * 1e-3:.3g} kJ): forest.dbh_cm is in centimetres, not metres"
        )
    return warnings


def stems_from_config(c: Any, terrain: Any, base: Path) -> tuple[Forest | None, list[str]]:
    """The :class:`~tumble.rockfall.forest.Forest` of the ``[forest]`` section ``c`` (None
    when it gives no stems) and warnings about its inputs. ConfigError names the key of a wrong
    or missing input."""
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
            forest = Forest.stand(terrain, stems, dbh, factor, height)
        except StandInputError as err:
            raise ConfigError(str(err), f"forest.{err.field}") from None
        return forest, _stand_warnings(stems, dbh, terrain)
    if c.trees is None:
        return None, []
    if isinstance(c.energy_factor, str) and not c.factor_field:
        raise ConfigError(
            "with single trees give energy_factor as a number, or the trees' own factors in "
            f"factor_field (a raster, {c.energy_factor!r}, is for stands)",
            "forest.energy_factor",
        )
    path = Path(c.trees)
    path = path if path.is_absolute() else base / path
    fields = [c.dbh_field] + ([c.factor_field] if c.factor_field else [])
    try:
        x, y, attributes, crs = read_points(path, fields)
    except DataError as err:
        raise ConfigError(str(err), "forest.trees") from None
    warnings = []
    if crs is None and terrain.crs is not None:
        warnings.append(f"forest.trees: {path} has no CRS; its points are taken in the DEM's CRS")
    if crs is not None and terrain.crs is not None:
        try:
            x, y = transform_xy(x, y, crs, terrain.crs)
        except ValueError as err:
            raise ConfigError(
                f"{path}: its points cannot be brought from its CRS to the DEM's ({err}); check "
                "the file's CRS label",
                "forest.trees",
            ) from None

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
    if np.any(dbh < THIN_DBH_CM):
        warnings.append(
            f"forest: {int(np.sum(dbh < THIN_DBH_CM))} trees have a DBH below {THIN_DBH_CM:g} cm "
            f"(smallest {float(dbh.min()):g} cm): {c.dbh_field} is read in centimetres, not metres"
        )
    try:
        return Forest.trees(terrain, x, y, dbh, factor, height), warnings
    except ValueError as err:
        raise ConfigError(f"{path}: {err}", "forest.trees") from None
