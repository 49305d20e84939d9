"""The bilinear surface of a DEM (Leine et al. 2014, section 3.3): compiled kernels.

Grid: ``values[j, i]`` at ``x = x0 + i dx``, ``y = y0 + j dy`` (:mod:`tumble.rockfall.terrain`).
The surface is the bilinear interpolant of the samples (L14 section 3.3). For a point (x, y) in
cell ``k = floor((x - x0)/dx)``, ``l = floor((y - y0)/dy)`` with local coordinates
``eta = (x - x0)/dx - k``, ``xi = (y - y0)/dy - l``::

    z = h00 (1 - eta)(1 - xi) + h10 eta (1 - xi) + h01 (1 - eta) xi + h11 eta xi

and the upward normal is the normalised L14 eq. 7::

    n ~ ( -[(h10 - h00)(1 - xi) + (h11 - h01) xi] dy,
          -[(h01 - h00)(1 - eta) + (h11 - h10) eta] dx,
          dx dy )

i.e. ``(-dz/dx, -dz/dy, 1)`` scaled by ``dx dy``. The surface is continuous across cell edges,
its normal jumps there. It is defined on the rectangle spanned by the outer sample centres,
``[x0, x0 + (nx - 1) dx] x [y0, y0 + (ny - 1) dy]``, which is half a cell smaller on each side
than a GeoTIFF's pixel extent (points up to :data:`EDGE_SLACK` of a cell beyond it still count,
so that round-off never puts a point on the boundary outside). Cells may be non-square.

Holes: a sample that is NaN (a nodata cell of the DEM) takes the cells it is a corner of out of
the domain. A point in such a cell is outside, exactly like a point beyond the edge of the grid,
so a rock that reaches a hole leaves the domain there (:data:`tumble.status.LEFT_DOMAIN`) and the
surface is never evaluated from a NaN sample.

Citation: R. I. Leine, A. Schweizer, M. Christen, J. Glover, P. Bartelt, W. Gerber, Simulation of
rockfall trajectories with consideration of rock shape, Multibody Syst. Dyn. 32 (2014) 241-271.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit, jit_leaf
from tumble.rotation.vec3 import Vec3

#: Points up to this fraction of a cell beyond the outer samples still count as on the grid, so
#: that the rounding of ``(x - x0) / dx`` never puts a point on :attr:`Terrain.bounds` outside;
#: the surface is extrapolated linearly over that sliver.
EDGE_SLACK = 1e-9


@jit_leaf
def cell_at(
    values: np.ndarray, x0: float, y0: float, dx: float, dy: float, x: float, y: float
) -> tuple[float, float, float, float, float, float, bool]:
    """The four samples of the cell holding (x, y) and the local coordinates (eta, xi) in it.

    Returns ``(h00, h10, h01, h11, eta, xi, inside)`` (L14 section 3.3 notation); ``inside``
    is False beyond the grid and in a cell with a NaN corner (a hole).
    """
    return _cell_uv(values, (x - x0) / dx, (y - y0) / dy)


@jit_leaf
def _cell_uv(
    values: np.ndarray, u: float, v: float
) -> tuple[float, float, float, float, float, float, bool]:
    """:func:`cell_at` at the grid coordinates ``u = (x - x0) / dx``, ``v = (y - y0) / dy``."""
    nx = values.shape[1]
    ny = values.shape[0]
    if not (
        u >= -EDGE_SLACK
        and v >= -EDGE_SLACK
        and u <= nx - 1 + EDGE_SLACK
        and v <= ny - 1 + EDGE_SLACK
    ):
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False
    k = min(int(u), nx - 2)
    l = min(int(v), ny - 2)
    h00 = values[l, k]
    h10 = values[l, k + 1]
    h01 = values[l + 1, k]
    h11 = values[l + 1, k + 1]
    if math.isnan(h00) or math.isnan(h10) or math.isnan(h01) or math.isnan(h11):
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False
    return h00, h10, h01, h11, u - k, v - l, True


@jit_leaf
def sample_cell(nx: int, ny: int, u: float, v: float) -> int:
    """Index ``j nx + i`` of the DEM sample nearest to the point at the grid coordinates
    ``u = (x - x0) / dx``, ``v = (y - y0) / dy`` (its pixel), -1 off the grid."""
    u += 0.5
    v += 0.5
    if not (u >= 0.0 and v >= 0.0 and u < nx and v < ny):
        return -1
    return int(v) * nx + int(u)


@jit_leaf
def bilinear(
    values: np.ndarray, x0: float, y0: float, dx: float, dy: float, x: float, y: float
) -> tuple[float, bool]:
    """Bilinear interpolation of a grid ``values[j, i]`` at (x, y); returns ``(value, inside)``."""
    return bilinear_uv(values, (x - x0) / dx, (y - y0) / dy)


@jit_leaf
def bilinear_uv(values: np.ndarray, u: float, v: float) -> tuple[float, bool]:
    """:func:`bilinear` at the grid coordinates ``u = (x - x0) / dx``, ``v = (y - y0) / dy``
    (for a caller that needs them for something else too)."""
    h00, h10, h01, h11, eta, xi, inside = _cell_uv(values, u, v)
    if not inside:
        return 0.0, False
    z = (
        h00 * (1.0 - eta) * (1.0 - xi)
        + h10 * eta * (1.0 - xi)
        + h01 * (1.0 - eta) * xi
        + h11 * eta * xi
    )
    return z, True


@jit_leaf
def surface(
    heights: np.ndarray, x0: float, y0: float, dx: float, dy: float, x: float, y: float
) -> tuple[float, Vec3, bool]:
    """Bilinear height and unit upward normal at (x, y) (L14 eq. 7).

    Returns ``(z, (n_x, n_y, n_z), inside)``; outside the grid ``inside`` is False and the other
    values are meaningless.
    """
    h00, h10, h01, h11, eta, xi, inside = cell_at(heights, x0, y0, dx, dy, x, y)
    if not inside:
        return 0.0, (0.0, 0.0, 1.0), False
    z = cell_height(h00, h10, h01, h11, eta, xi)
    return z, cell_normal(h00, h10, h01, h11, eta, xi, dx, dy), True


@jit_leaf
def cell_height(h00: float, h10: float, h01: float, h11: float, eta: float, xi: float) -> float:
    """The bilinear height in a cell at the local coordinates (eta, xi) (:func:`surface`)."""
    return (
        h00 * (1.0 - eta) * (1.0 - xi)
        + h10 * eta * (1.0 - xi)
        + h01 * (1.0 - eta) * xi
        + h11 * eta * xi
    )


@jit_leaf
def cell_normal(
    h00: float, h10: float, h01: float, h11: float, eta: float, xi: float, dx: float, dy: float
) -> Vec3:
    """The unit upward normal in a cell at the local coordinates (eta, xi) (:func:`surface`):
    L14 eq. 7, ``(-dz/dx dx dy, -dz/dy dx dy, dx dy)`` normalised."""
    n_x = -((h10 - h00) * (1.0 - xi) + (h11 - h01) * xi) * dy
    n_y = -((h01 - h00) * (1.0 - eta) + (h11 - h10) * eta) * dx
    n_z = dx * dy
    inv = 1.0 / math.sqrt(n_x * n_x + n_y * n_y + n_z * n_z)
    return (n_x * inv, n_y * inv, n_z * inv)


#: relative round-off margin of :func:`plane_envelope`
PLANE_MARGIN = 1e-9


@jit_leaf
def plane_envelope(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    x: float,
    y: float,
    half: float,
) -> tuple[float, float, float, float, bool]:
    """Two parallel planes enclosing the surface over the square ``[x - half, x + half] x
    [y - half, y + half]``.

    Returns ``(a, b, g_x, g_y, ok)``: ``b + s <= z(x', y') <= a + s`` with ``s = g_x (x' - x) +
    g_y (y' - y)`` for every point of the square. The slope ``(g_x, g_y)`` is the surface's
    gradient at (x, y), so that on a planar slope both planes are the surface itself; ``a``
    (``b``) is the largest (smallest) height of a sample of the cells touching the square above
    the plane through (x, y) with that slope. A bilinear cell minus a plane is bilinear, whose
    extremes over the cell lie at its corners, so no point of those cells lies outside the two
    planes. ``a`` is raised and ``b`` lowered by a round-off margin. ``ok`` is False when the
    square is not inside the grid or touches a hole (a NaN sample).
    """
    nx = heights.shape[1]
    ny = heights.shape[0]
    u_lo = (x - half - x0) / dx
    u_hi = (x + half - x0) / dx
    v_lo = (y - half - y0) / dy
    v_hi = (y + half - y0) / dy
    if not (u_lo >= 0.0 and v_lo >= 0.0 and u_hi <= nx - 1 and v_hi <= ny - 1):
        return 0.0, 0.0, 0.0, 0.0, False
    h00, h10, h01, h11, eta, xi, inside = cell_at(heights, x0, y0, dx, dy, x, y)
    if not inside:
        return 0.0, 0.0, 0.0, 0.0, False
    g_x = ((h10 - h00) * (1.0 - xi) + (h11 - h01) * xi) / dx
    g_y = ((h01 - h00) * (1.0 - eta) + (h11 - h10) * eta) / dy
    i_lo = min(int(u_lo), nx - 2)
    i_hi = min(int(u_hi), nx - 2) + 1
    j_lo = min(int(v_lo), ny - 2)
    j_hi = min(int(v_hi), ny - 2) + 1
    a = -math.inf
    b = math.inf
    for j in range(j_lo, j_hi + 1):
        rise_y = g_y * (y0 + j * dy - y)
        for i in range(i_lo, i_hi + 1):
            h = heights[j, i]
            if math.isnan(h):
                return 0.0, 0.0, 0.0, 0.0, False
            off = h - g_x * (x0 + i * dx - x) - rise_y
            a = max(a, off)
            b = min(b, off)
    reach = (abs(g_x) + abs(g_y)) * (half + dx + dy)
    a += PLANE_MARGIN * (1.0 + abs(a) + reach)
    b -= PLANE_MARGIN * (1.0 + abs(b) + reach)
    return a, b, g_x, g_y, True


@jit
def bilinear_batch(
    values: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    x: np.ndarray,
    y: np.ndarray,
    out: np.ndarray,
    inside: np.ndarray,
) -> int:
    """:func:`bilinear` at the points ``(x[p], y[p])`` into ``out``, ``inside``; returns the
    number of points outside the grid."""
    outside = 0
    for p in range(x.shape[0]):
        value, ok = bilinear(values, x0, y0, dx, dy, x[p], y[p])
        out[p] = value
        inside[p] = ok
        if not ok:
            outside += 1
    return outside


@jit
def surface_batch(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    x: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    normal: np.ndarray,
    inside: np.ndarray,
) -> int:
    """:func:`surface` at the points ``(x[p], y[p])`` into ``z``, ``normal[p, :]``, ``inside``;
    returns the number of points outside the grid."""
    outside = 0
    for p in range(x.shape[0]):
        zp, n, ok = surface(heights, x0, y0, dx, dy, x[p], y[p])
        z[p] = zp
        normal[p, 0] = n[0]
        normal[p, 1] = n[1]
        normal[p, 2] = n[2]
        inside[p] = ok
        if not ok:
            outside += 1
    return outside
