"""Hazard rasters on the DEM grid, from one row per (rock, cell) with the rock's maxima there.

One value per DEM sample, i.e. per GeoTIFF pixel; a rock is in the cell of the sample nearest to
its centre of mass:

* ``passing_count``: rocks whose centre of mass was in the cell after some step;
  ``reach_probability`` = passing_count / n_rocks; ``deposit_count``: rocks that stopped there;
* per cell, over the rocks passing it, of each rock's maximum in the cell:
  ``kinetic_energy_{max,mean,p95,p99}`` (kJ, translation plus rotation), ``velocity_max`` (m/s),
  ``rotational_velocity_max`` (rot/s), and over the rocks that flew over it (no closed contact)
  ``jump_height_{max,p95}`` (m, centre of mass above the terrain below it). Cells no rock
  reached are NaN (nodata in the files). Percentiles interpolate linearly (numpy's default).

Every sum is ordered canonically (by cell, then rock), so the rasters do not depend on threads,
chunking or Dask. To add a raster: compute it in :func:`rasters_from_visits` and append its name
to :data:`RASTERS` (the order in which they are written).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble.rockfall.ensemble.kernels import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED

#: raster names in the order they are written
RASTERS = (
    "reach_probability",
    "passing_count",
    "deposit_count",
    "kinetic_energy_max",
    "kinetic_energy_mean",
    "kinetic_energy_p95",
    "kinetic_energy_p99",
    "velocity_max",
    "rotational_velocity_max",
    "jump_height_max",
    "jump_height_p95",
)


@dataclass(frozen=True)
class RasterInfo:
    """What a raster holds: a description (the band description of the file), its unit, and
    whether it is a count (written as unsigned integers)."""

    description: str
    unit: str
    count: bool = False


#: name -> what the raster holds; every name of :data:`RASTERS` has an entry
RASTER_INFO: dict[str, RasterInfo] = {
    "reach_probability": RasterInfo("fraction of released rocks whose centre passed the cell", "1"),
    "passing_count": RasterInfo("rocks whose centre passed the cell", "rocks", count=True),
    "deposit_count": RasterInfo("rocks that stopped in the cell", "rocks", count=True),
    "kinetic_energy_max": RasterInfo("maximum kinetic energy (translation + rotation)", "kJ"),
    "kinetic_energy_mean": RasterInfo(
        "mean over rocks of each rock's maximum kinetic energy", "kJ"
    ),
    "kinetic_energy_p95": RasterInfo(
        "95th percentile over rocks of the maximum kinetic energy", "kJ"
    ),
    "kinetic_energy_p99": RasterInfo(
        "99th percentile over rocks of the maximum kinetic energy", "kJ"
    ),
    "velocity_max": RasterInfo("maximum translational velocity of the centre of mass", "m/s"),
    "rotational_velocity_max": RasterInfo("maximum rotational velocity |omega| / 2 pi", "rev/s"),
    "jump_height_max": RasterInfo(
        "maximum height of the centre of mass above the terrain in flight", "m"
    ),
    "jump_height_p95": RasterInfo("95th percentile over rocks of the jump height in flight", "m"),
}


def _segments(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, keys.size))
    return starts, counts


def cell_percentile(cells: np.ndarray, values: np.ndarray, q: float, size: int) -> np.ndarray:
    """Per-cell percentile ``q`` of ``values`` (linear interpolation, as numpy's default);
    NaN values are left out, cells without values are NaN."""
    out = np.full(size, np.nan)
    keep = np.isfinite(values)
    cells, values = cells[keep], values[keep]
    if cells.size == 0:
        return out
    order = np.lexsort((values, cells))
    c, v = cells[order], values[order]
    starts, counts = _segments(c)
    pos = q / 100.0 * (counts - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, counts - 1)
    frac = pos - lo
    a, b = v[starts + lo], v[starts + hi]
    out[c[starts]] = np.where(frac >= 0.5, b - (b - a) * (1.0 - frac), a + (b - a) * frac)
    return out


def _cell_max(cells: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, -np.inf)
    keep = np.isfinite(values)
    np.maximum.at(out, cells[keep], values[keep])
    out[np.isneginf(out)] = np.nan
    return out


def rasters_from_visits(
    shape: tuple[int, int],
    n_rocks: int,
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_max: np.ndarray,
    deposit_cells: np.ndarray,
) -> dict[str, np.ndarray]:
    """The rasters of the module docstring from one row per (rock, cell) with the rock's maxima
    in the cell (kinetic energy J, speed, rotation rot/s, jump height or NaN)."""
    size = shape[0] * shape[1]
    order = np.lexsort((visit_rock, visit_cell))
    cells, values = visit_cell[order], visit_max[order]
    passing = np.bincount(cells, minlength=size).astype(np.float64)
    energy = values[:, Q_ENERGY] * 1e-3
    mean = np.full(size, np.nan)
    if cells.size:
        starts, counts = _segments(cells)
        mean[cells[starts]] = np.add.reduceat(energy, starts) / counts
    deposits = np.bincount(deposit_cells[deposit_cells >= 0], minlength=size).astype(np.float64)
    rasters = {
        "reach_probability": passing / n_rocks,
        "passing_count": passing,
        "deposit_count": deposits,
        "kinetic_energy_max": _cell_max(cells, energy, size),
        "kinetic_energy_mean": mean,
        "kinetic_energy_p95": cell_percentile(cells, energy, 95.0, size),
        "kinetic_energy_p99": cell_percentile(cells, energy, 99.0, size),
        "velocity_max": _cell_max(cells, values[:, Q_SPEED], size),
        "rotational_velocity_max": _cell_max(cells, values[:, Q_ROTATION], size),
        "jump_height_max": _cell_max(cells, values[:, Q_JUMP], size),
        "jump_height_p95": cell_percentile(cells, values[:, Q_JUMP], 95.0, size),
    }
    return {name: rasters[name].reshape(shape) for name in RASTERS}


def nearest_cells(terrain: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Index ``j nx + i`` of the sample nearest to each point, -1 off the grid (``terrain``: any
    object with ``heights``, ``x0``, ``y0``, ``dx``, ``dy``, such as a Terrain)."""
    ny, nx = terrain.heights.shape
    u = np.floor((np.asarray(x) - terrain.x0) / terrain.dx + 0.5)
    v = np.floor((np.asarray(y) - terrain.y0) / terrain.dy + 0.5)
    ok = (u >= 0) & (v >= 0) & (u < nx) & (v < ny)
    return np.where(ok, v * nx + u, -1).astype(np.int64)
