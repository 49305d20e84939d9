"""The soils of a run with parameter uncertainty: a table of soils and each rock's row in it.

``[soil] uncertainty`` (and ``uncertainty`` of a class of a soil map) chooses how each rock
draws its parameters from its category (:mod:`tumble.rockfall.site.soil_uncertainty`). The draws of
all rocks are turned into a small table of :class:`~tumble.rockfall.soil.Soil` (equal draws
share a row) and one row index per rock, which the ensemble hands to the kernel
(``Ensemble(soils=..., soil_row=...)``).

* One soil (``[soil] preset``): one row per distinct draw; with ``"category"`` every rock has
  its own row.
* A soil map: each distinct combination of the classes' draws is one soil on the DEM grid
  (:func:`tumble.rockfall.site.landcover.soil_from_class_map`). With ``"sets"`` the rocks share
  ``u_0``, so there are at most as many combinations as the largest number of sets; continuous
  ``"category"`` draws would need a soil map per rock and are refused on a map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tumble.io.calibration import read_calibration
from tumble.rockfall.site.soil_uncertainty import check_mode, draw_values, soil_uniforms
from tumble.rockfall.soil import CATALOGUE, FIELDS, Soil, SoilPreset

#: the most distinct soil maps of a run with uncertainty on a map
MAX_MAP_SOILS = 64


@dataclass(frozen=True, eq=False)
class SoilDraws:
    """The soils of a run's rocks: ``soils`` (the table; None without uncertainty), ``row``
    (n,) each rock's row, ``values`` per soil that draws (``"soil"``, ``"class 3"``) each rock's
    parameters (n, len(FIELDS)), ``described`` what summary.json says
    (:func:`tumble.rockfall.site.soil_uncertainty.describe`)."""

    soils: tuple[Soil, ...] | None = None
    row: np.ndarray | None = None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    described: dict[str, Any] = field(default_factory=lambda: {"mode": "none", "categories": {}})

    def columns(self) -> dict[str, np.ndarray]:
        """Per-rock columns of deposits.csv: the row (``soil_draw``) and every drawn field
        (``soil_<field>``, ``soil_<class>_<field>`` on a map); none without uncertainty."""
        if self.row is None:
            return {}
        out = {"soil_draw": self.row}
        for where, values in self.values.items():
            prefix = "soil" if where == "soil" else "soil_" + where.replace(" ", "")
            for j, name in enumerate(FIELDS):
                if np.ptp(values[:, j]) > 0.0:
                    out[f"{prefix}_{name}"] = values[:, j]
        return out


def _rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``values`` (n, m) in order of first appearance, and each rock's row."""
    unique, first, inverse = np.unique(values, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return unique[order], rank[inverse.reshape(-1)].astype(np.int64)


def uniform_soil_table(
    preset: str, mode: str, seed: int, n: int, finish: Callable[[Soil], Soil] = lambda s: s
) -> tuple[tuple[Soil, ...], np.ndarray, np.ndarray]:
    """``(soils, row, values)`` of ``n`` rocks drawing from category ``preset`` in ``mode``;
    ``values`` (n, len(FIELDS)) are each rock's drawn parameters; ``finish`` is applied to
    every soil of the table (the forest layer)."""
    check_mode(CATALOGUE[preset], preset, mode)
    values = draw_values(CATALOGUE[preset], mode, soil_uniforms(seed, n))
    table, row = _rows(values)
    soils = tuple(finish(Soil(**dict(zip(FIELDS, r, strict=True)))) for r in table)
    return soils, row, values


def calibration_preset(path: str) -> SoilPreset:
    """The equivalent sets of a calibration file (``tumble rockfall calibrate``) as a category
    to draw from: its best set as the values and its ``[[sets]]`` as the sets, every set with
    every field (a field a set does not give takes the best set's value). ValueError for a file
    without equivalent sets."""
    data = read_calibration(path)
    if data["classes"]:
        raise ValueError(
            f"{path} calibrates the classes of a soil map: drawing its sets is not supported; "
            "use soil.uncertainty = 'none'"
        )
    best = {f: float(data["soil"].get(f, 0.0)) for f in FIELDS}
    sets = tuple({f: float(one.get(f, best[f])) for f in FIELDS} for one in data["sets"])
    if not sets:
        raise ValueError(
            f"{path} has no equivalent sets ([[sets]]) to draw from: the run takes its best set "
            "with soil.uncertainty = 'none'"
        )
    return SoilPreset(
        best,
        f"calibration {path}",
        "a site's calibration (tumble rockfall calibrate)",
        sets=sets,
        spread_source=f"the equivalent sets of the calibration {path}",
    )


def calibration_soil_table(
    path: str, seed: int, n: int, finish: Callable[[Soil], Soil] = lambda s: s
) -> tuple[tuple[Soil, ...], np.ndarray, np.ndarray, dict[str, Any]]:
    """``(soils, row, values, described)`` of ``n`` rocks each drawing one of the equivalent
    sets of the calibration file ``path`` from its soil stream (as a category's sets are drawn,
    :func:`tumble.rockfall.site.soil_uncertainty.preset_set_index`); ``described`` is what
    summary.json says."""
    preset = calibration_preset(path)
    values = draw_values(preset, "sets", soil_uniforms(seed, n))
    table, row = _rows(values)
    soils = tuple(finish(Soil(**dict(zip(FIELDS, r, strict=True)))) for r in table)
    described = {
        "mode": "sets",
        "categories": {
            "soil": {
                "category": "calibration",
                "calibration": str(path),
                "mode": "sets",
                "source": preset.spread_source,
                "sets": len(preset.sets),
            }
        },
    }
    return soils, row, values, described


def map_soil_table(
    classes: Mapping[int, tuple[str, str]],
    build: Callable[[Mapping[int, Soil]], Soil],
    seed: int,
    n: int,
) -> tuple[tuple[Soil, ...], np.ndarray, dict[int, np.ndarray]]:
    """``(soils, row, values)`` of ``n`` rocks on a soil map whose class ``code`` draws from
    category ``classes[code] = (preset, mode)``; ``build`` turns the soils of the classes into
    the map's soil; ``values[code]`` (n, len(FIELDS)) are each rock's parameters in the class.
    ValueError for a continuous draw (``"category"``) and for more than
    :data:`MAX_MAP_SOILS` distinct maps."""
    for code, (preset, mode) in classes.items():
        check_mode(CATALOGUE[preset], preset, mode)
        if mode == "category":
            raise ValueError(
                f"soil class {code}: uncertainty = 'category' draws continuous values, which on a "
                "soil map would need one map per rock; use 'sets' or 'none' for the classes of a "
                "map, or a single soil (no map) for 'category'"
            )
    uniforms = soil_uniforms(seed, n)
    codes = list(classes)
    per_class = {c: draw_values(CATALOGUE[classes[c][0]], classes[c][1], uniforms) for c in codes}
    joint = np.concatenate([per_class[c] for c in codes], axis=1)
    table, row = _rows(joint)
    if table.shape[0] > MAX_MAP_SOILS:
        raise ValueError(
            f"the classes' draws give {table.shape[0]} distinct soil maps, more than "
            f"{MAX_MAP_SOILS}"
        )
    width = len(FIELDS)
    soils = []
    for r in table:
        soil_of: dict[int, Any] = {
            c: Soil(**dict(zip(FIELDS, r[i * width : (i + 1) * width], strict=True)))
            for i, c in enumerate(codes)
        }
        soils.append(build(soil_of))
    return tuple(soils), row, per_class
