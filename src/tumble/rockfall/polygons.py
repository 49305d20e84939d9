"""Plane polygons as the release areas and the typed-in release polygons need them: the area of a
ring (shoelace formula), the even-odd point-in-region test over a polygon's rings (holes and the
parts of a MultiPolygon count right), and a lattice of points that stands for a region's area
(:func:`lattice_points`). Rings are ``(n, 2)`` arrays of x, y, closed or open."""

from __future__ import annotations

from collections.abc import Sequence

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
