"""The plane above the terrain that lets a flight skip the contact search
(:func:`tumble.rockfall.step.surface.upper_plane`) and the parallel plane below it that bounds the
jump height (:func:`tumble.rockfall.step.surface.plane_envelope`): rigorous bounds, and the
surface itself on a planar slope."""

from __future__ import annotations

import math

import numpy as np

from tumble.rockfall.step.surface import PLANE_MARGIN, bilinear, plane_envelope, upper_plane

X0, Y0, DX, DY = -3.0, 2.0, 1.0, 0.75


def rough_grid(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = X0 + DX * np.arange(40)
    y = Y0 + DY * np.arange(30)
    slope = 0.8 * x[None, :] - 0.3 * y[:, None]
    return np.ascontiguousarray(slope + rng.normal(0.0, 0.4, (30, 40)))


def test_no_point_of_the_square_lies_above_the_plane():
    """On a rough slope, 20000 random points of random squares stay below the plane (within
    round-off); the plane touches the terrain at some sample (it is not needlessly high)."""
    heights = rough_grid()
    rng = np.random.default_rng(7)
    tight = 0
    for _ in range(200):
        half = rng.uniform(0.1, 3.0)
        x = rng.uniform(X0 + half, X0 + 39 * DX - half)
        y = rng.uniform(Y0 + half, Y0 + 29 * DY - half)
        a, g_x, g_y, ok = upper_plane(heights, X0, Y0, DX, DY, x, y, half)
        assert ok
        px = x + rng.uniform(-half, half, 100)
        py = y + rng.uniform(-half, half, 100)
        worst = -math.inf
        for u, v in zip(px, py, strict=True):
            z, inside = bilinear(heights, X0, Y0, DX, DY, u, v)
            assert inside
            worst = max(worst, z - (a + g_x * (u - x) + g_y * (v - y)))
        assert worst <= 0.0
        # the largest sample of the touched cells above the plane is the plane's offset
        i = np.arange(int((x - half - X0) // DX), int((x + half - X0) // DX) + 2)
        j = np.arange(int((y - half - Y0) // DY), int((y + half - Y0) // DY) + 2)
        nodes = heights[np.ix_(j, i)] - g_x * (X0 + DX * i[None, :] - x)
        nodes -= g_y * (Y0 + DY * j[:, None] - y)
        tight += abs(nodes.max() - a) < 1e-6
    assert tight == 200


def test_on_a_planar_slope_the_plane_is_the_surface():
    """z = 2 + 0.84 x - 0.2 y: slope and offset exact, the offset raised by the margin only."""
    x = X0 + DX * np.arange(20)
    y = Y0 + DY * np.arange(20)
    heights = np.ascontiguousarray(2.0 + 0.84 * x[None, :] - 0.2 * y[:, None])
    a, g_x, g_y, ok = upper_plane(heights, X0, Y0, DX, DY, 5.3, 8.1, 1.5)
    assert ok
    assert g_x == np.float64(0.84) or abs(g_x - 0.84) < 1e-12
    assert abs(g_y + 0.2) < 1e-12
    z, _ = bilinear(heights, X0, Y0, DX, DY, 5.3, 8.1)
    assert 0.0 < a - z < 10 * PLANE_MARGIN * (1.0 + abs(a) + 5.0)


def test_no_plane_beyond_the_grid_or_over_a_hole():
    heights = rough_grid()
    assert not upper_plane(heights, X0, Y0, DX, DY, X0 + 0.5, 10.0, 1.0)[3]
    holed = heights.copy()
    holed[10, 20] = np.nan
    x, y = X0 + 20 * DX, Y0 + 10 * DY
    assert upper_plane(heights, X0, Y0, DX, DY, x + 0.3, y + 0.2, 1.0)[3]
    assert not upper_plane(holed, X0, Y0, DX, DY, x + 0.3, y + 0.2, 1.0)[3]


def test_no_point_of_the_square_lies_below_the_lower_plane():
    """The lower plane of the envelope: 20000 random points of random squares on the rough slope
    stay above it (within round-off), it touches the lowest sample of the touched cells, and the
    upper plane is that of :func:`upper_plane` to the bit."""
    heights = rough_grid(5)
    rng = np.random.default_rng(11)
    tight = 0
    for _ in range(200):
        half = rng.uniform(0.1, 3.0)
        x = rng.uniform(X0 + half, X0 + 39 * DX - half)
        y = rng.uniform(Y0 + half, Y0 + 29 * DY - half)
        a, b, g_x, g_y, ok = plane_envelope(heights, X0, Y0, DX, DY, x, y, half)
        assert ok and b < a
        assert (a, g_x, g_y, ok) == upper_plane(heights, X0, Y0, DX, DY, x, y, half)
        px = x + rng.uniform(-half, half, 100)
        py = y + rng.uniform(-half, half, 100)
        lowest = math.inf
        for u, v in zip(px, py, strict=True):
            z, inside = bilinear(heights, X0, Y0, DX, DY, u, v)
            assert inside
            lowest = min(lowest, z - (b + g_x * (u - x) + g_y * (v - y)))
        assert lowest >= 0.0
        i = np.arange(int((x - half - X0) // DX), int((x + half - X0) // DX) + 2)
        j = np.arange(int((y - half - Y0) // DY), int((y + half - Y0) // DY) + 2)
        nodes = heights[np.ix_(j, i)] - g_x * (X0 + DX * i[None, :] - x)
        nodes -= g_y * (Y0 + DY * j[:, None] - y)
        tight += abs(nodes.min() - b) < 1e-6
    assert tight == 200


def test_on_a_planar_slope_both_planes_are_the_surface():
    x = X0 + DX * np.arange(20)
    y = Y0 + DY * np.arange(20)
    heights = np.ascontiguousarray(2.0 + 0.84 * x[None, :] - 0.2 * y[:, None])
    a, b, _, _, ok = plane_envelope(heights, X0, Y0, DX, DY, 5.3, 8.1, 1.5)
    z, _ = bilinear(heights, X0, Y0, DX, DY, 5.3, 8.1)
    assert ok
    assert 0.0 < z - b < 10 * PLANE_MARGIN * (1.0 + abs(b) + 5.0)
    assert 0.0 < a - z < 10 * PLANE_MARGIN * (1.0 + abs(a) + 5.0)
