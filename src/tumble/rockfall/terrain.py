"""Terrain: a regular DEM with the bilinear surface of Leine et al. 2014, section 3.3.

Grid convention: ``heights[j, i]`` is the height at ``x = x0 + i dx``, ``y = y0 + j dy`` (sample
points are pixel centres of a GeoTIFF; rows run south to north, i.e. y grows with j).
"""

from __future__ import annotations

import math

from tumble._jit import jit


@jit
def bilinear(values, x0, y0, dx, dy, x, y):
    """Bilinear interpolation of a grid ``values[j, i]`` at (x, y); returns ``(value, inside)``."""
    u = (x - x0) / dx
    v = (y - y0) / dy
    nx = values.shape[1]
    ny = values.shape[0]
    if not (u >= 0.0 and v >= 0.0 and u <= nx - 1 and v <= ny - 1):
        return 0.0, False
    k = min(int(u), nx - 2)
    l = min(int(v), ny - 2)
    eta = u - k
    xi = v - l
    h00 = values[l, k]
    h10 = values[l, k + 1]
    h01 = values[l + 1, k]
    h11 = values[l + 1, k + 1]
    z = (
        h00 * (1.0 - eta) * (1.0 - xi)
        + h10 * eta * (1.0 - xi)
        + h01 * (1.0 - eta) * xi
        + h11 * eta * xi
    )
    return z, True


@jit
def surface(heights, x0, y0, dx, dy, x, y):
    """Bilinear height and unit upward normal at (x, y) (L14 eq. 7).

    Returns ``(z, (n_x, n_y, n_z), inside)``; outside the grid ``inside`` is False and the other
    values are meaningless.
    """
    u = (x - x0) / dx
    v = (y - y0) / dy
    nx = heights.shape[1]
    ny = heights.shape[0]
    if not (u >= 0.0 and v >= 0.0 and u <= nx - 1 and v <= ny - 1):
        return 0.0, (0.0, 0.0, 1.0), False
    k = min(int(u), nx - 2)
    l = min(int(v), ny - 2)
    eta = u - k
    xi = v - l
    h00 = heights[l, k]
    h10 = heights[l, k + 1]
    h01 = heights[l + 1, k]
    h11 = heights[l + 1, k + 1]
    z = (
        h00 * (1.0 - eta) * (1.0 - xi)
        + h10 * eta * (1.0 - xi)
        + h01 * (1.0 - eta) * xi
        + h11 * eta * xi
    )
    # unnormalised normal of L14 eq. 7: (-dz/dx dx dy, -dz/dy dx dy, dx dy)
    n_x = -((h10 - h00) * (1.0 - xi) + (h11 - h01) * xi) * dy
    n_y = -((h01 - h00) * (1.0 - eta) + (h11 - h10) * eta) * dx
    n_z = dx * dy
    inv = 1.0 / math.sqrt(n_x * n_x + n_y * n_y + n_z * n_z)
    return z, (n_x * inv, n_y * inv, n_z * inv), True
