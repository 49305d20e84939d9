"""Contact detection: the closed vertex contacts of a convex rock with the bilinear terrain.

The contact model is that of :mod:`tumble.rockfall.step.contact` (Leine et al. 2014, section 3.3):
every hull vertex P at the midpoint configuration, its gap ``g_N = z_P - z(x_P, y_P)`` to the
bilinear surface, closed for ``g_N <= gap_tol``; the contact frame of L14 eq. 8 and the force
directions of eq. 25-27 go to the rows of the contact buffer (``C_*`` layout of
:mod:`tumble.rockfall.step.contact`). Vertices that cannot touch are left out without evaluating the
surface below them: above :func:`terrain_ceiling` within the rock's radius
(:func:`find_contacts`), or above a plane that lies above the terrain
(:func:`find_contacts_below`, the plane of the step's flights); the result is the same as
evaluating every vertex.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rockfall.step.contact import C_GAP, C_VERTEX, C_W
from tumble.rockfall.step.surface import bilinear, cell_at, cell_height, cell_normal
from tumble.rotation.quaternion import Quat, q_to_matrix
from tumble.rotation.vec3 import Mat3, Vec3, cross

#: relative round-off margin of :func:`terrain_ceiling`
CEILING_MARGIN = 1e-9


@jit_leaf
def tangent_frame(n: Vec3) -> tuple[Vec3, Vec3]:
    """Tangents ``(t1, t2)`` for the unit normal ``n``: ``t1 = n x e / |n x e|`` with ``e`` the
    axis least aligned with ``n``, ``t2 = n x t1`` (module docstring)."""
    ax, ay, az = abs(n[0]), abs(n[1]), abs(n[2])
    if ax <= ay and ax <= az:
        t = (0.0, n[2], -n[1])  # n x e_x
    elif ay <= az:
        t = (-n[2], 0.0, n[0])  # n x e_y
    else:
        t = (n[1], -n[0], 0.0)  # n x e_z
    inv = 1.0 / math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    t1 = (t[0] * inv, t[1] * inv, t[2] * inv)
    return t1, cross(n, t1)


@jit_leaf
def bounding_radius(vertices: np.ndarray) -> float:
    """The largest distance of a hull vertex (body frame) from the centre of mass."""
    radius2 = 0.0
    for k in range(vertices.shape[0]):
        radius2 = max(
            radius2,
            vertices[k, 0] * vertices[k, 0]
            + vertices[k, 1] * vertices[k, 1]
            + vertices[k, 2] * vertices[k, 2],
        )
    return math.sqrt(radius2)


@jit_leaf
def terrain_ceiling(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    x: float,
    y: float,
    reach: float,
) -> tuple[float, bool]:
    """An upper bound of the terrain height within the horizontal distance ``reach`` of (x, y).

    Returns ``(z_top, ok)``. The cells touching the square ``[x - reach, x + reach] x
    [y - reach, y + reach]`` give two bounds: the highest of their samples (the bilinear surface
    lies between its corner values) and ``z(x, y) + G reach``, where G bounds the slope of those
    cells, ``|dz/dx| <= max(|h10 - h00|, |h11 - h01|) / dx`` and likewise along y, so that no
    point of the disc lies higher than either. The smaller one is returned, raised by a
    round-off margin. ``ok`` is False when the square is not inside the grid or touches a hole
    (a NaN sample): then there is no bound and every vertex is evaluated.
    """
    nx = heights.shape[1]
    ny = heights.shape[0]
    u_lo = (x - reach - x0) / dx
    u_hi = (x + reach - x0) / dx
    v_lo = (y - reach - y0) / dy
    v_hi = (y + reach - y0) / dy
    if not (u_lo >= 0.0 and v_lo >= 0.0 and u_hi <= nx - 1 and v_hi <= ny - 1):
        return 0.0, False
    i_lo = min(int(u_lo), nx - 2)
    i_hi = min(int(u_hi), nx - 2)
    j_lo = min(int(v_lo), ny - 2)
    j_hi = min(int(v_hi), ny - 2)
    z_max = -math.inf
    slope_x = 0.0
    slope_y = 0.0
    for j in range(j_lo, j_hi + 1):
        for i in range(i_lo, i_hi + 1):
            h00 = heights[j, i]
            h10 = heights[j, i + 1]
            h01 = heights[j + 1, i]
            h11 = heights[j + 1, i + 1]
            if math.isnan(h00) or math.isnan(h10) or math.isnan(h01) or math.isnan(h11):
                return 0.0, False
            z_max = max(z_max, h00, h10, h01, h11)
            slope_x = max(slope_x, abs(h10 - h00), abs(h11 - h01))
            slope_y = max(slope_y, abs(h01 - h00), abs(h11 - h10))
    z_c, _ = bilinear(heights, x0, y0, dx, dy, x, y)
    slope = math.sqrt((slope_x / dx) ** 2 + (slope_y / dy) ** 2)
    z_top = min(z_max, z_c + slope * reach)
    return z_top + CEILING_MARGIN * (1.0 + abs(z_top) + slope * reach), True


@jit_leaf
def find_contacts(
    heights: np.ndarray,
    grid: np.ndarray,
    vertices: np.ndarray,
    r: Vec3,
    p: Quat,
    gap_tol: float,
    contacts: np.ndarray,
    radius: float = -1.0,
) -> tuple[int, bool]:
    """Closed vertex contacts at the configuration ``(r, p)``: returns ``(n_closed, inside)``.

    A contact counts as closed when ``g_N <= gap_tol`` (a few nanometres): a rock resting on the
    terrain has gaps of zero up to round-off, and a strict ``g_N <= 0`` would open and close such
    contacts at random. Rows ``0 .. n_closed-1`` of ``contacts`` receive the vertex index, the
    gap and the force directions W (L14 eq. 25-27). ``inside`` is False as soon as a vertex lies
    outside the DEM (the rows are then incomplete and must not be used).

    Most steps of a rockfall are flights, so the gaps are evaluated only where a contact is
    possible: a vertex higher than :func:`terrain_ceiling` within the rock's radius is open
    without evaluating the surface below it (when that square lies inside the grid, every vertex
    is inside too, so the result is the same as evaluating every vertex); the normal and the
    tangents are computed for closed contacts only. ``radius``: the hull's
    :func:`bounding_radius` when the caller keeps it (the step's bounds buffer), negative to
    compute it here.
    """
    x0, y0, dx, dy = grid[0], grid[1], grid[2], grid[3]
    a = q_to_matrix(p)  # its last row gives the heights of the vertices for the bound
    if radius < 0.0:
        radius = bounding_radius(vertices)
    z_top, bounded = terrain_ceiling(heights, x0, y0, dx, dy, r[0], r[1], radius)
    z_open = z_top + gap_tol - r[2]
    n = 0
    for k in range(vertices.shape[0]):
        rk = (vertices[k, 0], vertices[k, 1], vertices[k, 2])
        dz = a[2][0] * rk[0] + a[2][1] * rk[1] + a[2][2] * rk[2]
        if bounded and dz > z_open:
            continue
        closed, inside = _vertex_contact(heights, x0, y0, dx, dy, r, a, rk, k, gap_tol, contacts, n)
        if not inside:
            return n, False
        n += closed
    return n, True


@jit_leaf
def find_contacts_below(
    heights: np.ndarray,
    grid: np.ndarray,
    vertices: np.ndarray,
    r: Vec3,
    a: Mat3,
    plane: tuple[float, float, float, float],
    gap_tol: float,
    contacts: np.ndarray,
) -> int:
    """:func:`find_contacts` for a rock over a plane above the terrain
    (:func:`tumble.rockfall.step.surface.plane_envelope`) whose square holds every vertex: returns
    ``n_closed``. ``a`` is ``A_IK(p)``; ``plane = (m_0, m_1, m_2, h)`` gives the height of
    vertex K_r_SP above the plane, ``h + m . K_r_SP`` (``m = A_IK^T (-g_x, -g_y, 1)``, ``h`` the
    height of r above it). A vertex higher than ``gap_tol`` above the plane is open without
    evaluating the surface (the terrain lies below the plane); the others are evaluated as by
    :func:`find_contacts`, in the same order, so the rows are the same."""
    x0, y0, dx, dy = grid[0], grid[1], grid[2], grid[3]
    m0, m1, m2, above = plane
    n = 0
    for k in range(vertices.shape[0]):
        rk = (vertices[k, 0], vertices[k, 1], vertices[k, 2])
        if above + (m0 * rk[0] + m1 * rk[1] + m2 * rk[2]) > gap_tol:
            continue
        closed, _ = _vertex_contact(heights, x0, y0, dx, dy, r, a, rk, k, gap_tol, contacts, n)
        n += closed
    return n


@jit_leaf
def _vertex_contact(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    r: Vec3,
    a: Mat3,
    rk: Vec3,
    k: int,
    gap_tol: float,
    contacts: np.ndarray,
    n: int,
) -> tuple[int, bool]:
    """Vertex ``k`` (body frame ``rk``) of the rock at ``(r, A_IK = a)``: if its gap is at most
    ``gap_tol``, its vertex index, gap and force directions go to row ``n`` of ``contacts``.
    Returns ``(1 if closed else 0, inside)``."""
    dz = a[2][0] * rk[0] + a[2][1] * rk[1] + a[2][2] * rk[2]
    px = r[0] + (a[0][0] * rk[0] + a[0][1] * rk[1] + a[0][2] * rk[2])
    py = r[1] + (a[1][0] * rk[0] + a[1][1] * rk[1] + a[1][2] * rk[2])
    # the surface of :func:`tumble.rockfall.step.surface.surface`, its normal for a closed
    # contact only
    h00, h10, h01, h11, eta, xi, inside = cell_at(heights, x0, y0, dx, dy, px, py)
    if not inside:
        return 0, False
    gap = r[2] + dz - cell_height(h00, h10, h01, h11, eta, xi)
    if gap > gap_tol:
        return 0, True
    normal = cell_normal(h00, h10, h01, h11, eta, xi, dx, dy)
    t1, t2 = tangent_frame(normal)
    row = contacts[n]
    row[C_VERTEX] = k
    row[C_GAP] = gap
    for j in range(3):
        if j == 0:
            d = normal
        elif j == 1:
            d = t1
        else:
            d = t2
        # the direction in the body frame, A_KI d = A_IK^T d
        dk = (
            a[0][0] * d[0] + a[1][0] * d[1] + a[2][0] * d[2],
            a[0][1] * d[0] + a[1][1] * d[1] + a[2][1] * d[2],
            a[0][2] * d[0] + a[1][2] * d[1] + a[2][2] * d[2],
        )
        base = C_W + 6 * j
        row[base + 0] = d[0]
        row[base + 1] = d[1]
        row[base + 2] = d[2]
        row[base + 3] = rk[1] * dk[2] - rk[2] * dk[1]
        row[base + 4] = rk[2] * dk[0] - rk[0] * dk[2]
        row[base + 5] = rk[0] * dk[1] - rk[1] * dk[0]
    return 1, True
