"""The energy line (travel angle) of the rocks per cell: the smallest angle, over the rocks that
reached a cell, of the line from the rock's release point down to the cell.

For rock k released above the terrain point ``(x_k, y_k, z_k)`` (``z_k`` the terrain height
below its centre of mass at release) and a DEM sample ``(x_c, y_c, h_c)`` its centre of mass
passed (the cell of :mod:`tumble.rockfall.ensemble.rasters`), the angle is::

    phi_k(c) = atan2(z_k - h_c, hypot(x_c - x_k, y_c - y_k))      (degrees)

both ends on the terrain surface, as the geometric ("energy line", "Fahrboeschung" or shadow
angle) method draws it from the source to the farthest point a rock reaches (A. Heim, Bergsturz
und Menschenleben, Fretz & Wasmuth, Zuerich 1932; S. G. Evans, O. Hungr, The assessment of
rockfall hazard at the base of talus slopes, Can. Geotech. J. 30 (1993) 620-636; M. Jaboyedoff,
V. Labiouse, Technical note: preliminary estimation of rockfall runout zones, Nat. Hazards Earth
Syst. Sci. 11 (2011) 819-828). A cell's value is ``min_k phi_k(c)`` over the rocks that reached
it: the flattest line from a release point that a rock of the run followed to the cell, the number
a geometric method's angle (27-35 degrees in the references above) is compared with.

Cells closer to a rock's release point than one DEM spacing (``max(dx, dy)``) are left out for
that rock: the line has no length there and its angle says nothing. A chunk keeps one row per
cell (:func:`cell_minima`: ``angle_cell`` sorted, ``angle_min``); the
rows of several chunks merge by a minimum (:func:`merge_minima`), which is exact and does not
depend on the order: the same raster for any chunking, threads or Dask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def travel_angle(
    release_x: np.ndarray,
    release_y: np.ndarray,
    release_z: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
) -> np.ndarray:
    """``atan2(release_z - z, horizontal distance)`` in degrees, elementwise (module docstring)."""
    distance = np.hypot(np.asarray(x) - release_x, np.asarray(y) - release_y)
    return np.degrees(np.arctan2(np.asarray(release_z) - z, distance))


def visit_angles(
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    release_ground: np.ndarray,
    heights: np.ndarray,
    grid: tuple[float, float, float, float],
) -> np.ndarray:
    """The angle ``phi_k(c)`` of every row ``(rock k, cell c)`` (cells ``j nx + i`` of the
    ``heights`` grid ``(x0, y0, dx, dy)``; ``release_ground`` (n, 3): the terrain point below
    each rock's release)."""
    x0, y0, dx, dy = grid
    rock = np.asarray(visit_rock, dtype=np.int64)
    cell = np.asarray(visit_cell, dtype=np.int64)
    j, i = np.divmod(cell, heights.shape[1])
    start = release_ground[rock]
    x, y = x0 + i * dx, y0 + j * dy
    angle = travel_angle(start[:, 0], start[:, 1], start[:, 2], x, y, heights.reshape(-1)[cell])
    near = np.hypot(x - start[:, 0], y - start[:, 1]) < max(dx, dy)
    return np.where(near, np.nan, angle)


def cell_minima(cells: np.ndarray, values: np.ndarray) -> dict[str, np.ndarray]:
    """The smallest finite value per cell: ``angle_cell`` (sorted) and ``angle_min``."""
    cells = np.asarray(cells, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    keep = np.isfinite(values)
    unique, inverse = np.unique(cells[keep], return_inverse=True)
    out = np.full(unique.size, np.inf)
    np.minimum.at(out, inverse, values[keep])
    return {"angle_cell": unique, "angle_min": out}


def merge_minima(parts: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The cell minima of several chunks (exact: a minimum)."""
    cells = [np.zeros(0, dtype=np.int64), *(np.asarray(p["angle_cell"]) for p in parts)]
    values = [np.zeros(0), *(np.asarray(p["angle_min"]) for p in parts)]
    return cell_minima(np.concatenate(cells), np.concatenate(values))


def ground_below(terrain: Any, position: np.ndarray) -> np.ndarray:
    """The terrain point ``(x, y, height)`` below each position (n, 3); NaN height off the
    terrain."""
    x, y = (
        np.asarray(position[:, 0], dtype=np.float64),
        np.asarray(position[:, 1], dtype=np.float64),
    )
    z = np.full(x.size, np.nan)
    if x.size:
        on = np.asarray(terrain.contains(x, y), dtype=bool)
        if on.any():
            z[on] = terrain.height(x[on], y[on])
    return np.column_stack([x, y, z])
