"""The two planes enclosing the terrain around a flying rock
(:func:`tumble.rockfall.step.surface.plane_envelope`): the one above lets a flight skip the contact
search, the one below bounds the jump height. Both rigorous bounds, tight at a sample, and the
surface itself on a planar slope."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall.step.surface import PLANE_MARGIN, bilinear, plane_envelope

X0, Y0, DX, DY = -3.0, 2.0, 1.0, 0.75


def rough_grid(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = X0 + DX * np.arange(40)
    y = Y0 + DY * np.arange(30)
    slope = 0.8 * x[None, :] - 0.3 * y[:, None]
    return np.ascontiguousarray(slope + rng.normal(0.0, 0.4, (30, 40)))


@pytest.mark.parametrize("seed", [3, 5])
def test_no_point_of_the_square_lies_outside_the_two_planes(seed):
    """On a rough slope, 20000 random points of 200 random squares lie between the two planes
    (within round-off), and each plane touches the terrain at a sample of the touched cells (it
    is not needlessly far): the largest and the smallest sample above the plane through the
    centre are the planes' offsets."""
    heights = rough_grid(seed)
    rng = np.random.default_rng(seed + 4)
    tight = 0
    for _ in range(200):
        half = rng.uniform(0.1, 3.0)
        x = rng.uniform(X0 + half, X0 + 39 * DX - half)
        y = rng.uniform(Y0 + half, Y0 + 29 * DY - half)
        a, b, g_x, g_y, ok = plane_envelope(heights, X0, Y0, DX, DY, x, y, half)
        assert ok and b < a
        px = x + rng.uniform(-half, half, 100)
        py = y + rng.uniform(-half, half, 100)
        above = -math.inf
        below = math.inf
        for u, v in zip(px, py, strict=True):
            z, inside = bilinear(heights, X0, Y0, DX, DY, u, v)
            assert inside
            plane = g_x * (u - x) + g_y * (v - y)
            above = max(above, z - (a + plane))
            below = min(below, z - (b + plane))
        assert above <= 0.0 <= below
        i = np.arange(int((x - half - X0) // DX), int((x + half - X0) // DX) + 2)
        j = np.arange(int((y - half - Y0) // DY), int((y + half - Y0) // DY) + 2)
        nodes = heights[np.ix_(j, i)] - g_x * (X0 + DX * i[None, :] - x)
        nodes -= g_y * (Y0 + DY * j[:, None] - y)
        tight += abs(nodes.max() - a) < 1e-6 and abs(nodes.min() - b) < 1e-6
    assert tight == 200


def test_on_a_planar_slope_both_planes_are_the_surface():
    """z = 2 + 0.84 x - 0.2 y: slope and offsets exact, moved by the margin only."""
    x = X0 + DX * np.arange(20)
    y = Y0 + DY * np.arange(20)
    heights = np.ascontiguousarray(2.0 + 0.84 * x[None, :] - 0.2 * y[:, None])
    a, b, g_x, g_y, ok = plane_envelope(heights, X0, Y0, DX, DY, 5.3, 8.1, 1.5)
    assert ok
    assert abs(g_x - 0.84) < 1e-12
    assert abs(g_y + 0.2) < 1e-12
    z, _ = bilinear(heights, X0, Y0, DX, DY, 5.3, 8.1)
    assert 0.0 < a - z < 10 * PLANE_MARGIN * (1.0 + abs(a) + 5.0)
    assert 0.0 < z - b < 10 * PLANE_MARGIN * (1.0 + abs(b) + 5.0)


def test_no_planes_beyond_the_grid_or_over_a_hole():
    heights = rough_grid()
    assert not plane_envelope(heights, X0, Y0, DX, DY, X0 + 0.5, 10.0, 1.0)[4]
    holed = heights.copy()
    holed[10, 20] = np.nan
    x, y = X0 + 20 * DX, Y0 + 10 * DY
    assert plane_envelope(heights, X0, Y0, DX, DY, x + 0.3, y + 0.2, 1.0)[4]
    assert not plane_envelope(holed, X0, Y0, DX, DY, x + 0.3, y + 0.2, 1.0)[4]
