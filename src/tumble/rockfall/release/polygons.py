"""Plane polygons as the release areas and the typed-in release polygons need them: the area of a
ring (shoelace formula), the even-odd point-in-region test over a polygon's rings (holes and the
parts of a MultiPolygon count right), a lattice of points that stands for a region's area
(:func:`lattice_points`), the same test for many points at once on a grid of cells that know their
side (:class:`EvenOddGrid`), and how much of a region or a line lies on the valid cells of a DEM
(:func:`on_cells`, exact, with shapely). Rings are ``(n, 2)`` arrays of x, y, closed or open."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def ring_area(ring: np.ndarray) -> float:
    """Unsigned area of a closed or open ring (shoelace formula), m^2."""
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def inside_rings(x: np.ndarray, y: np.ndarray, rings: Sequence[np.ndarray]) -> np.ndarray:
    """Whether each point (x, y) lies inside the region bounded by ``rings`` (even-odd rule over
    all of them: holes and separate parts count right)."""
    inside = np.zeros(np.shape(x), dtype=bool)
    for ring in rings:
        xa, ya = ring[:, 0], ring[:, 1]
        xb, yb = np.roll(xa, -1), np.roll(ya, -1)
        crosses = (ya[None, :] > y[:, None]) != (yb[None, :] > y[:, None])
        with np.errstate(divide="ignore", invalid="ignore"):
            at = xa[None, :] + (y[:, None] - ya[None, :]) * (xb - xa)[None, :] / (yb - ya)[None, :]
        inside ^= (np.count_nonzero(crosses & (x[:, None] < at), axis=1) % 2).astype(bool)
    return inside


#: points tested against the rings at a time by :func:`lattice_points` (memory: times the
#: number of ring vertices)
_LATTICE_BLOCK = 4096
#: cells along the longer side of the bounding box of an :class:`EvenOddGrid`
GRID_CELLS = 256
#: an :class:`EvenOddGrid` cell counts as crossed by an edge that passes within this share of
#: the largest coordinate of the rings (far above the round-off of :func:`inside_rings`, some
#: 1e-15 of it, and far below a cell)
GRID_MARGIN = 1e-9


class EvenOddGrid:
    """:func:`inside_rings` for many points, the same booleans, fast: a grid of
    :data:`GRID_CELLS` square cells over the rings' bounding box knows the side of every cell
    that no edge crosses (the even-odd parity is constant on such a cell, taken at its centre);
    only points in crossed cells, or beyond the grid, are tested against the edges.

    A cell counts as crossed when an edge passes within ``GRID_MARGIN`` times the largest
    coordinate of the rings of it (:meth:`_mark_edges`; a few more may be marked). A point of an
    uncrossed cell lies farther than that from every edge, so the rounding of the crossing
    abscissa in :func:`inside_rings` (a few units of the last place of the coordinates) cannot
    change its count: the test by the grid and the test over the edges agree exactly
    (``tests/rockfall/release/test_polygons.py`` compares them near edges and vertices)."""

    def __init__(self, rings: Sequence[np.ndarray]) -> None:
        self.rings = [np.asarray(r, dtype=np.float64)[:, :2] for r in rings]
        corners = np.vstack(self.rings) if self.rings else np.zeros((1, 2))
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        self.origin = lo
        self.side = float((hi - lo).max()) / GRID_CELLS
        #: per cell (row j, column i): 0 outside, 1 inside, 2 crossed by an edge
        self.cells = np.full((1, 1), 2, dtype=np.int8)
        if not (math.isfinite(self.side) and self.side > 0.0):
            return  # rings of no extent: every point is tested against the edges
        nx, ny = np.maximum(np.ceil((hi - lo) / self.side), 1).astype(np.int64)
        margin = GRID_MARGIN * max(1.0, float(np.abs(corners).max()))
        crossed = np.zeros((ny, nx), dtype=bool)
        for ring in self.rings:
            self._mark_edges(crossed, ring, margin)
        centre_x = lo[0] + (np.arange(nx) + 0.5) * self.side
        centre_y = lo[1] + (np.arange(ny) + 0.5) * self.side
        parity = _row_parity(centre_x, centre_y, self.rings)
        self.cells = np.where(crossed, 2, parity).astype(np.int8)

    def _mark_edges(self, crossed: np.ndarray, ring: np.ndarray, margin: float) -> None:
        """Mark in ``crossed`` every cell an edge of ``ring`` passes within ``margin`` of: the
        edges cut into pieces of at most half a cell, each marking the cells its bounding box
        widened by ``margin`` touches (at most three by three)."""
        ny, nx = crossed.shape
        a, b = ring, np.roll(ring, -1, axis=0)
        pieces = np.maximum(np.ceil(np.abs(b - a).max(axis=1) / (0.5 * self.side)), 1)
        edge = np.repeat(np.arange(ring.shape[0]), pieces.astype(np.int64))
        first = np.concatenate([[0], np.cumsum(pieces)[:-1]]).astype(np.int64)
        k = np.arange(edge.size) - first[edge]
        s0, s1 = k / pieces[edge], (k + 1) / pieces[edge]
        p0 = a[edge] + s0[:, None] * (b - a)[edge]
        p1 = a[edge] + s1[:, None] * (b - a)[edge]
        low = (np.minimum(p0, p1) - margin - self.origin) / self.side
        high = (np.maximum(p0, p1) + margin - self.origin) / self.side
        i0, j0 = np.floor(low).astype(np.int64).T
        i1, j1 = np.floor(high).astype(np.int64).T
        for di in range(3):
            for dj in range(3):
                i, j = i0 + di, j0 + dj
                keep = (i <= i1) & (j <= j1) & (i >= 0) & (i < nx) & (j >= 0) & (j < ny)
                crossed[j[keep], i[keep]] = True

    def inside(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``inside_rings(x, y, rings)``, bit for bit (class docstring)."""
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        ny, nx = self.cells.shape
        fx = (x - self.origin[0]) / self.side if self.side > 0.0 else np.zeros_like(x)
        fy = (y - self.origin[1]) / self.side if self.side > 0.0 else np.zeros_like(y)
        on_grid = (fx >= 0.0) & (fx <= nx) & (fy >= 0.0) & (fy <= ny)
        i = np.clip(np.where(on_grid, fx, 0.0).astype(np.int64), 0, nx - 1)
        j = np.clip(np.where(on_grid, fy, 0.0).astype(np.int64), 0, ny - 1)
        state = np.where(on_grid, self.cells[j, i], 2)
        out = state == 1
        near = np.flatnonzero(state == 2)
        for start in range(0, near.size, _LATTICE_BLOCK):
            part = near[start : start + _LATTICE_BLOCK]
            out[part] = inside_rings(x[part], y[part], self.rings)
        return out


def _row_parity(x: np.ndarray, y: np.ndarray, rings: Sequence[np.ndarray]) -> np.ndarray:
    """The even-odd side of the grid points ``(x[i], y[j])`` as (len(y), len(x)) 0/1, the
    count of :func:`inside_rings` taken once per row: the crossing abscissae of the row's edges,
    sorted, against every point of the row."""
    out = np.zeros((y.size, x.size), dtype=np.int8)
    for ring in rings:
        xa, ya = ring[:, 0], ring[:, 1]
        xb, yb = np.roll(xa, -1), np.roll(ya, -1)
        for row, yj in enumerate(y):
            crosses = (ya > yj) != (yb > yj)
            at = np.sort(xa[crosses] + (yj - ya[crosses]) * (xb - xa)[crosses] / (yb - ya)[crosses])
            # points left of the crossing: x < at
            beyond = at.size - np.searchsorted(at, x, side="right")
            out[row] ^= (beyond % 2).astype(np.int8)
    return out


def lattice_points(rings: Sequence[np.ndarray], area: float, n: int = 1024) -> np.ndarray:
    """About ``n`` points of a square lattice inside the region of ``rings`` (even-odd rule), each
    standing for an equal share of its ``area`` (m^2): the centres of the squares of side
    ``sqrt(area / n)`` tiling the rings' bounding box that fall inside. The side is halved while
    fewer than ``n / 4`` centres fall inside (a thin region), as long as the lattice over the box
    has at most ``256 n`` points; a region no lattice finds is represented by its ring vertices.
    Shape (k, 2), k >= 1."""
    corners = np.vstack([np.asarray(r, dtype=np.float64)[:, :2] for r in rings])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    side = float(np.sqrt(area / n)) if area > 0.0 else 0.0
    found = corners
    while side > 0.0:
        counts = np.maximum(np.ceil((hi - lo) / side), 1).astype(np.int64)
        if int(counts.prod()) > 256 * n:
            break
        xs = lo[0] + (np.arange(counts[0]) + 0.5) * side
        ys = lo[1] + (np.arange(counts[1]) + 0.5) * side
        gx, gy = (g.ravel() for g in np.meshgrid(xs, ys))
        keep = np.zeros(gx.size, dtype=bool)
        for start in range(0, gx.size, _LATTICE_BLOCK):
            stop = start + _LATTICE_BLOCK
            keep[start:stop] = inside_rings(gx[start:stop], gy[start:stop], rings)
        if keep.any():
            found = np.column_stack([gx[keep], gy[keep]])
        if np.count_nonzero(keep) >= max(1, n // 4):
            break
        side /= 2.0
    return found


def region(rings: Sequence[np.ndarray]) -> Any:
    """The shapely geometry of the region bounded by ``rings`` by the even-odd rule (the
    symmetric difference of the rings' polygons: holes and separate parts count right)."""
    import shapely

    shapes = [shapely.make_valid(shapely.Polygon(np.asarray(r, dtype=np.float64))) for r in rings]
    out = shapes[0]
    for shape in shapes[1:]:
        out = shapely.symmetric_difference(out, shape)
    return out


def cell_boxes(
    valid: np.ndarray, x0: float, y0: float, dx: float, dy: float, window: Any = None
) -> Any:
    """The valid cells of a grid as disjoint shapely boxes, one per run of valid cells along a
    row: ``valid[j, i]`` is the cell ``x0 + [i, i + 1] dx`` by ``y0 + [j, j + 1] dy``.
    ``window`` ``(x_min, y_min, x_max, y_max)`` keeps the cells touching it only."""
    import shapely

    ny, nx = valid.shape
    i0, i1, j0, j1 = 0, nx, 0, ny
    if window is not None:
        x_min, y_min, x_max, y_max = window
        # every cell touching the window, also along its edges (a window of no height)
        i0 = int(np.clip(np.ceil((x_min - x0) / dx) - 1, 0, nx))
        i1 = int(np.clip(np.floor((x_max - x0) / dx) + 1, 0, nx))
        j0 = int(np.clip(np.ceil((y_min - y0) / dy) - 1, 0, ny))
        j1 = int(np.clip(np.floor((y_max - y0) / dy) + 1, 0, ny))
    part = valid[j0:j1, i0:i1]
    if part.size == 0:
        return np.empty(0, dtype=object)
    padded = np.zeros((part.shape[0], part.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = part
    steps = np.diff(padded, axis=1)
    rows, starts = np.nonzero(steps == 1)
    _, ends = np.nonzero(steps == -1)  # row-major order: the k-th end closes the k-th start
    left = x0 + (i0 + starts) * dx
    right = x0 + (i0 + ends) * dx
    bottom = y0 + (j0 + rows) * dy
    return shapely.box(left, bottom, right, bottom + dy)


def on_cells(
    geometry: Any, valid: np.ndarray, x0: float, y0: float, dx: float, dy: float
) -> tuple[float, float, float]:
    """How much of ``geometry`` (a shapely region, measured by its area, or line, by its
    length) lies on a grid: ``(whole, on the grid's rectangle, on its valid cells)``, exact up
    to round-off. ``valid`` as in :func:`cell_boxes`."""
    import shapely

    ny, nx = valid.shape
    measure = shapely.area if shapely.get_dimensions(geometry) == 2 else shapely.length
    rectangle = shapely.box(x0, y0, x0 + nx * dx, y0 + ny * dy)
    whole = float(measure(geometry))
    inside = float(measure(shapely.intersection(geometry, rectangle)))
    boxes = cell_boxes(valid, x0, y0, dx, dy, shapely.bounds(geometry))
    if len(boxes) == 0:
        return whole, inside, 0.0
    if measure is shapely.length:  # a line along a cell edge touches two boxes: their union
        on = float(measure(shapely.intersection(geometry, shapely.union_all(boxes))))
    else:  # the boxes are disjoint but for their edges, which have no area
        on = float(np.sum(measure(shapely.intersection(geometry, boxes))))
    return whole, inside, min(on, inside)
