"""Plane polygons as the release areas and the typed-in release polygons need them: the area of a
ring (shoelace formula) and the even-odd point-in-region test over a polygon's rings (holes and the
parts of a MultiPolygon count right). Rings are ``(n, 2)`` arrays of x, y, closed or open."""

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
