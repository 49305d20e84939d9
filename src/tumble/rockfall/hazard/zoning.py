"""Rockfall hazard zoning: annual frequencies of exceeding energy thresholds per cell, and the
intensity x probability matrix of Swiss practice.

**Per-cell annual frequency of exceeding an energy E.** Every release area (source) s carries an
onset frequency ``f_s`` (events per year; each event releases one block, a draw from the run's
rock classes). Of the ``N_s`` rocks the run released from s, ``n_s(c, E)`` reached cell c with
a kinetic energy above E there, where a rock's energy in a cell is its maximum kinetic energy
(translation + rotation) over the steps its centre of mass was in the cell (the per-rock,
per-cell maxima of :mod:`tumble.rockfall.ensemble.reduce`; cells are the DEM samples, as for the
hazard rasters). The simulated probability that a block from s reaches c above E is
``n_s(c, E) / N_s``, and the annual frequency of exceeding E in c is the sum over sources::

    F_E(c) = sum_s  f_s * n_s(c, E) / N_s          (1/year)

``F_0`` (E = 0, every rock that reached the cell) is the reach frequency. A source with no rocks
adds nothing. The counts ``n_s(c, E)`` are integers kept by every chunk of a run
(:func:`tumble.rockfall.ensemble.counts.exceedance_counts`, summed by
:func:`~tumble.rockfall.ensemble.counts.merge_counts`, which every chunk of a run configured
with the sources as its count groups keeps), and the frequencies add the sources
in their order (:func:`frequencies_from_counts`), so the rasters are the same for any threads or
chunking, and no chunk keeps its visits. The return period of exceeding E is ``1 / F_E``.

**Intensity and probability classes** (Raetzo, Lateltin, Bollinger & Tripet 2002, "Hazard
assessment in Switzerland - Codes of Practice for mass movements", Bull. Eng. Geol. Env. 61:
263-268; BAFU 2016, "Protection against Mass Movement Hazards", section on hazard assessment):
rockfall intensity from the kinetic energy of a block, strong ``E > 300 kJ``, medium
``30 kJ < E <= 300 kJ``, weak ``E <= 30 kJ``; probability from the return period T, high
``T <= 30 years``, medium ``30 < T <= 100``, low ``100 < T <= 300``; beyond 300 years the
residual hazard, which this zoning leaves at 0 (the guideline's yellow-white hatched residual
zone is not drawn).

**Zone of a cell** (:data:`ZONE_MATRIX`, the nine-field intensity x probability diagram of the
Swiss federal recommendations, BRP/BWW/BUWAL 1997, reproduced in Raetzo et al. 2002)::

                 probability:  high    medium   low
    strong intensity           red     red      red
    medium intensity           red     blue     blue
    weak intensity             blue    yellow   yellow

A cell is assessed for each intensity i with the frequency of an intensity *at least* i: strong
with ``F_300``, medium with ``F_30``, weak with ``F_0``; its zone is the highest of the three
(red over blue over yellow). Codes: 0 none, 1 yellow, 2 blue, 3 red (:data:`ZONE_NAMES`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tumble.rockfall.ensemble.counts import exceedance_counts

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain

#: energy thresholds between weak, medium and strong intensity, kJ
ENERGY_THRESHOLDS_KJ = (30.0, 300.0)
#: return periods bounding the high, medium and low probability classes, years
RETURN_PERIODS_YEARS = (30.0, 100.0, 300.0)
#: zone codes of the hazard_zone raster
ZONE_NAMES = {0: "none", 1: "yellow", 2: "blue", 3: "red"}
#: nodata value of the uint8 hazard zone raster (no cell takes it)
ZONE_NODATA = 255
#: zone by intensity (rows: strong, medium, weak) and probability (columns: high, medium, low)
ZONE_MATRIX = np.array(
    [
        [3, 3, 3],
        [3, 2, 2],
        [2, 1, 1],
    ],
    dtype=np.uint8,
)


@dataclass(frozen=True)
class ZoningRaster:
    """What a zoning raster holds: band description, unit, and its integer type (or None)."""

    description: str
    unit: str
    dtype: str = "float32"


#: the zoning rasters of a run with release frequencies, in the order they are written
ZONING_RASTERS: dict[str, ZoningRaster] = {
    "hazard_zone": ZoningRaster(
        "rockfall hazard zone, intensity x probability (0 none, 1 yellow, 2 blue, 3 red)",
        "class",
        "uint8",
    ),
    "reach_frequency": ZoningRaster("annual frequency of a block reaching the cell", "1/year"),
    "frequency_exceeding_30kJ": ZoningRaster(
        "annual frequency of a block above 30 kJ in the cell", "1/year"
    ),
    "frequency_exceeding_300kJ": ZoningRaster(
        "annual frequency of a block above 300 kJ in the cell", "1/year"
    ),
}


#: the energy levels of the zoning counts, kJ: every visit (reach), above 30 kJ, above 300 kJ
ENERGY_LEVELS_KJ: tuple[float | None, ...] = (None, *ENERGY_THRESHOLDS_KJ)


def frequencies_from_counts(
    counts: Mapping[str, np.ndarray],
    rock_source: np.ndarray,
    frequency: Sequence[float],
    size: int,
    n_levels: int = len(ENERGY_LEVELS_KJ),
) -> np.ndarray:
    """``F_E`` (n_levels, size) of the module docstring from the counts of
    :func:`exceedance_counts`: ``sum_s f_s n_s(c, E) / N_s``, the sources added in their order
    (so the same counts give the same numbers), 1/year."""
    f = np.asarray(frequency, dtype=np.float64)
    n_sources = f.size
    released = np.bincount(np.asarray(rock_source, dtype=np.int64), minlength=n_sources)
    keys = np.asarray(counts["exceed_key"], dtype=np.int64)
    n = np.asarray(counts["exceed_count"], dtype=np.int64)
    level_source, cell = np.divmod(keys, size)
    level, source = np.divmod(level_source, n_sources)
    out = np.zeros((n_levels, size))
    for s in range(n_sources):
        if released[s] == 0:
            continue
        mine = source == s
        # one key per (level, cell) and source: no sum depends on an order
        out[level[mine], cell[mine]] += f[s] * n[mine] / float(released[s])
    return out


def exceedance_frequency(
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_energy_kJ: np.ndarray,
    rock_source: np.ndarray,
    frequency: Sequence[float],
    size: int,
    threshold_kJ: float | None,
) -> np.ndarray:
    """``F_E`` of the module docstring on ``size`` cells (flat), 1/year, for one threshold
    (``threshold_kJ`` None counts every visit: the reach frequency ``F_0``), from one row per
    (rock, cell) with the rock's maximum energy there (kJ); ``rock_source[k]`` the source of
    rock k; ``frequency[s]`` the onset frequency of source s."""
    n_sources = len(frequency)
    counts = exceedance_counts(
        visit_rock, visit_cell, visit_energy_kJ, rock_source, n_sources, size, (threshold_kJ,)
    )
    return frequencies_from_counts(counts, rock_source, frequency, size, n_levels=1)[0]


#: a return period equal to a class limit up to this relative round-off is on the limit: a
#: frequency summed as ``f_s n_s / N_s`` (``0.35 * 3 / 315``) lands a few units in the last place
#: on either side of ``1/300``, and ``T <= 300 y`` must hold for it
BOUNDARY_RTOL = 1e-9


def zoning_record(zone: np.ndarray, cell_area_m2: float, holes: np.ndarray) -> dict:
    """``summary.json["zoning"]``: the area of each zone (m^2 and hectares, the DEM samples of
    the zone times the cell area; the DEM's nodata holes are no zone) and the classes used."""
    zone = np.asarray(zone)
    data = ~np.asarray(holes, dtype=bool)
    areas = {}
    for code, name in ZONE_NAMES.items():
        if code == 0:
            continue
        cells = int(np.sum((zone == code) & data))
        areas[name] = {"cells": cells, "m2": cells * cell_area_m2, "ha": cells * cell_area_m2 / 1e4}
    return {
        "areas": areas,
        "energy_thresholds_kJ": list(ENERGY_THRESHOLDS_KJ),
        "return_periods_years": list(RETURN_PERIODS_YEARS),
        "source": "Raetzo et al. 2002, Bull. Eng. Geol. Env. 61:263-268 (Swiss practice)",
    }


def probability_class(frequency: np.ndarray) -> np.ndarray:
    """Column of :data:`ZONE_MATRIX` per cell: 0 high (T <= 30 y), 1 medium (T <= 100 y), 2 low
    (T <= 300 y), 3 residual or none (T > 300 y, or never), with ``T = 1 / frequency``."""
    f = np.asarray(frequency, dtype=np.float64)
    out = np.full(f.shape, 3, dtype=np.int64)
    for column, period in reversed(list(enumerate(RETURN_PERIODS_YEARS))):
        out[f * period >= 1.0 - BOUNDARY_RTOL] = column
    return out


def hazard_zone(f_reach: np.ndarray, f_medium: np.ndarray, f_strong: np.ndarray) -> np.ndarray:
    """Zone code per cell (module docstring) from the frequencies of an intensity at least weak
    (``F_0``), at least medium (``F_30``) and strong (``F_300``), 1/year."""
    padded = np.concatenate([ZONE_MATRIX, np.zeros((3, 1), dtype=np.uint8)], axis=1)
    zone = np.zeros(np.shape(f_reach), dtype=np.uint8)
    for row, f in enumerate((f_strong, f_medium, f_reach)):
        zone = np.maximum(zone, padded[row][probability_class(f)])
    return zone


def zoning_rasters(
    shape: tuple[int, int],
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_energy_kJ: np.ndarray,
    rock_source: np.ndarray,
    frequency: Sequence[float],
) -> dict[str, np.ndarray]:
    """Every raster of :data:`ZONING_RASTERS` on a grid of ``shape`` (module docstring), from
    the (rock, cell) visits."""
    size = shape[0] * shape[1]
    counts = exceedance_counts(
        visit_rock, visit_cell, visit_energy_kJ, rock_source, len(frequency), size, ENERGY_LEVELS_KJ
    )
    return zoning_rasters_from_counts(shape, counts, rock_source, frequency)


def zoning_rasters_from_counts(
    shape: tuple[int, int],
    counts: Mapping[str, np.ndarray],
    rock_source: np.ndarray,
    frequency: Sequence[float],
) -> dict[str, np.ndarray]:
    """Every raster of :data:`ZONING_RASTERS` on a grid of ``shape`` from the counts of
    :func:`exceedance_counts` (levels :data:`ENERGY_LEVELS_KJ`) of all rocks."""
    size = shape[0] * shape[1]
    reach, medium, strong = frequencies_from_counts(counts, rock_source, frequency, size)
    rasters = {
        "hazard_zone": hazard_zone(reach, medium, strong),
        "reach_frequency": reach,
        "frequency_exceeding_30kJ": medium,
        "frequency_exceeding_300kJ": strong,
    }
    return {name: rasters[name].reshape(shape) for name in ZONING_RASTERS}


def write_zoning_rasters(
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    directory: str | os.PathLike,
    ascii: bool = False,
) -> list[Path]:
    """The zoning rasters of :data:`tumble.rockfall.hazard.zoning.ZONING_RASTERS` as labelled
    cloud-optimised GeoTIFFs on the terrain's grid: ``hazard_zone.tif`` uint8 (0 none, 1 yellow,
    2 blue, 3 red; nodata 255 in the DEM's nodata holes only: every other cell is zoned) and the
    annual frequencies (float32, 1/year; 0 where no rock came, nodata in the DEM's holes), and
    with ``ascii`` their ESRI ASCII copies (``NAME.asc``). Returns the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    holes = ~np.isfinite(np.asarray(terrain.heights))
    written = []
    for name, info in ZONING_RASTERS.items():
        integer = info.dtype != "float32"
        values = np.where(holes, np.nan, np.asarray(rasters[name], dtype=np.float64))
        written.append(
            terrain.write_raster(
                directory / f"{name}.tif",
                values,
                nodata=ZONE_NODATA if integer else math.nan,
                dtype=info.dtype,
                description=info.description,
                unit=info.unit,
                cog=True,
                overviews="max",  # zoomed out: the highest zone and frequency of a block
            )
        )
        if ascii:
            written.append(terrain.write_raster(directory / f"{name}.asc", values))
    return written
