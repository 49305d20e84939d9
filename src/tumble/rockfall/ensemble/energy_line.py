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

A chunk's minima (:func:`chunk_minima`) take the angle of only the few rows per cell that can
hold the cell's minimum: the angle grows with the slope ``(z_k - h_c) / distance`` of the line,
so a compiled pass (:func:`angle_candidates`) keeps the rows whose slope lies within a relative
1e-9 of the cell's least and those whose distance lies within a relative 1e-9 of the spacing
(one row for several rocks released at the same point), and :func:`visit_angles` then takes
their angles as it would every row's. The minima are those of every row, bit for bit
(``tests/rockfall/ensemble/test_energy_line.py``): the angles of two rows differ in the order
of their slopes unless the slopes lie within a few units in the last place of each other, far
inside 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tumble._jit import jit

#: the relative width of the band of :func:`angle_candidates`: far beyond the round-off of a
#: slope, a distance or an angle (a few units in the last place, 1e-16)
CANDIDATE_BAND = 1e-9


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


@jit
def angle_candidates(
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    by_cell: np.ndarray,
    release_ground: np.ndarray,
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
) -> np.ndarray:
    """The rows ``(visit_rock, visit_cell)`` that can hold their cell's smallest angle, as
    indices in ``by_cell`` order (the rows cell-major: cells ascending): per cell the rows whose
    slope ``(z_k - h_c) / distance`` is within :data:`CANDIDATE_BAND` of the least slope of the
    rows farther than the spacing, and the rows whose distance is within the band of the
    spacing (near or not: :func:`visit_angles` decides); of consecutive such rows of rocks
    released at the same point, whose angles are equal, the first. Rows nearer than the
    spacing, or with a NaN slope (a release or a cell over nodata), give no angle and are left
    out."""
    nx = heights.shape[1]
    spacing = max(dx, dy)
    far = spacing * (1.0 + CANDIDATE_BAND)
    near = spacing * (1.0 - CANDIDATE_BAND)
    rows = by_cell.size
    slope = np.empty(rows)
    out = np.empty(rows, dtype=np.int64)
    k = 0
    r = 0
    while r < rows:
        cell = visit_cell[by_cell[r]]
        j = cell // nx
        i = cell - j * nx
        x = x0 + i * dx
        y = y0 + j * dy
        h = heights[j, i]
        least = math.inf
        e = r
        while e < rows and visit_cell[by_cell[e]] == cell:
            rock = visit_rock[by_cell[e]]
            off_x = x - release_ground[rock, 0]
            off_y = y - release_ground[rock, 1]
            distance = math.sqrt(off_x * off_x + off_y * off_y)
            if distance >= far:
                slope[e] = (release_ground[rock, 2] - h) / distance
                if slope[e] < least:  # a NaN slope (a release over nodata) never is
                    least = slope[e]
            elif distance > near:
                slope[e] = -math.inf  # on the spacing: always a candidate
            else:
                slope[e] = math.nan  # nearer than the spacing: no angle
            e += 1
        limit = least + CANDIDATE_BAND * (abs(least) + 1.0)
        kept = -1  # the rock of the last row kept for this cell
        for t in range(r, e):
            if slope[t] <= limit:
                rock = visit_rock[by_cell[t]]
                if kept >= 0 and (
                    release_ground[rock, 0] == release_ground[kept, 0]
                    and release_ground[rock, 1] == release_ground[kept, 1]
                    and release_ground[rock, 2] == release_ground[kept, 2]
                ):
                    continue  # released where the last one kept was: the same angle
                out[k] = by_cell[t]
                k += 1
                kept = rock
        r = e
    return out[:k].copy()


def chunk_minima(
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    by_cell: np.ndarray,
    release_ground: np.ndarray,
    heights: np.ndarray,
    grid: tuple[float, float, float, float],
) -> dict[str, np.ndarray]:
    """:func:`cell_minima` of the angles (:func:`visit_angles`) of the rows ``(visit_rock,
    visit_cell)``, ``by_cell`` their cell-major order (:func:`tumble.rockfall.ensemble.visits.
    reduce_visits`), from the angles of the candidate rows only (module docstring)."""
    x0, y0, dx, dy = grid
    rows = angle_candidates(
        np.asarray(visit_rock, dtype=np.int64),
        np.asarray(visit_cell, dtype=np.int64),
        np.asarray(by_cell, dtype=np.int64),
        np.ascontiguousarray(release_ground, dtype=np.float64),
        np.ascontiguousarray(heights, dtype=np.float64),
        float(x0),
        float(y0),
        float(dx),
        float(dy),
    )
    cell = np.asarray(visit_cell)[rows]
    angle = visit_angles(np.asarray(visit_rock)[rows], cell, release_ground, heights, grid)
    return cell_minima(cell, angle)


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
