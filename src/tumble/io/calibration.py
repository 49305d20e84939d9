"""A calibration file (``calibration.toml``, written by ``tumble rockfall calibrate``) read back:
the best soil set and the equivalent sets, every field as ``tumble rockfall soils`` names it.

``[soil]`` holds the best set (and ``[soil.scores]``), each ``[[sets]]`` table an equivalent set
(and ``[sets.scores]``)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from tumble.errors import DataError

#: the scores a calibration file keeps with each set
SCORE_KEYS = (
    "objective",
    "ks_pvalue",
    "ks_statistic",
    "median_ratio",
    "wasserstein_rel",
    "early_stop_share",
    "early_stops_ok",
    "stop_distance_median_m",
    "failed_share",
    "rocks",
)


def read_calibration(path: str | os.PathLike) -> dict[str, Any]:
    """``{"soil": field -> value, "sets": [field -> value, ...], "classes": code -> (field ->
    value), "path": str}`` of a calibration file; ``classes`` holds the best set of each class
    of a calibration of a soil map's classes (``[soil.classes.N]``; then ``soil`` is empty),
    and each of its ``sets`` a ``"classes"`` entry alike. DataError for a missing or malformed
    file."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"calibration file {path} does not exist")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{path} is not a calibration file: {err}") from None
    soil = data.get("soil")
    if not isinstance(soil, dict):
        raise DataError(f"{path} has no [soil] table: is it a calibration.toml?")
    sets = data.get("sets", [])
    return {
        "path": str(path),
        "soil": _values(soil, path, "[soil]"),
        "classes": _classes(soil, path, "[soil]"),
        "sets": [_set(s, path, f"[[sets]] {k + 1}") for k, s in enumerate(sets)],
    }


def _set(table: dict[str, Any], path: Path, where: str) -> dict[str, Any]:
    classes = _classes(table, path, where)
    return {**_values(table, path, where), **({"classes": classes} if classes else {})}


def _classes(table: dict[str, Any], path: Path, where: str) -> dict[int, dict[str, float]]:
    out = {}
    for code, values in table.get("classes", {}).items():
        try:
            key = int(code)
        except ValueError:
            raise DataError(f"{path}: {where} classes.{code} is not a class code") from None
        if not isinstance(values, dict):
            raise DataError(f"{path}: {where} classes.{code} is not a table")
        out[key] = _values(values, path, f"{where} classes.{code}")
    return out


def _values(table: dict[str, Any], path: Path, where: str) -> dict[str, float]:
    out = {}
    for name, value in table.items():
        if name in ("scores", "set", "classes"):
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DataError(f"{path}: {where} {name} = {value!r} is not a number")
        out[name] = float(value)
    return out
