"""Vertex contacts of a convex rock with the bilinear terrain, and the frictional impact problem.

Contact detection (Leine et al. 2014, section 3.3): every hull vertex P is placed at the midpoint
configuration of the step, ``r_P = r + A_IK(p) K_r_SP``; its gap to the bilinear surface is
``g_N = z_P - z(x_P, y_P)`` and the contact is closed when ``g_N <= 0`` (up to a tolerance of
a few nanometres against round-off, see :func:`find_contacts`). Vertices that lie above a
rigorous bound of the terrain height within the rock's radius (:func:`terrain_ceiling`) are open
without evaluating the surface, so that a step in flight costs a few bounds instead of a surface
evaluation per vertex; the result is the same as evaluating every vertex.

Contact frame (L14 eq. 8): the unit upward normal n of eq. 7 at (x_P, y_P); the coordinate axis
e in {e_x, e_y, e_z} that minimises |e . n| gives ``t1 = n x e / |n x e|`` and ``t2 = n x t1``
(the opposite sign of L14's ``e x n``: any orthonormal tangent pair gives the same motion, since
the friction disc is isotropic; only the signs of the tangential percussions depend on it).

Force directions (L14 eq. 25-27): with ``A_IC = (n, t1, t2)`` the relative velocity of the contact
point is ``gamma = A_IC^T (v + A_IK (omega x K_r_SP)) = W^T u`` for ``u = (v, omega)``, so the
column of W for a direction d (in I) is ``(d, K_r_SP x A_KI d)``: translational part in the
inertial frame, rotational part in the body frame.

Frictional impact (L14 section 4; Moreau 1988): the velocity update of a step is linear in the
contact percussions P_i = (P_N, P_T1, P_T2), ``u_E = u_free + M^-1 sum_i W_i P_i`` with the
(drag-augmented) mass matrix M of the scheme. Newton's impact law with restitution eps_N
(eps_T = 0) and spatial Coulomb friction are written per contact as the proximal point equations::

    P_N = prox_{R+}(P_N - r_N xi_N),              xi_N = gamma_N,E + eps_N gamma_N,B
    P_T = prox_{|P_T| <= mu P_N}(P_T - r_T xi_T),  xi_T = gamma_T,E

and solved by projected Gauss-Seidel: contacts are visited in the fixed order of the hull
vertices, the iteration starts from the percussions of the same vertices in the previous step
(projected on the current friction cones; a warm start, zero for new contacts), and each update
of P_i is applied to u at once (no Delassus matrix is formed, so the cost and the memory are
linear in the number of contacts). The parameters are the inverses of the diagonal of the
Delassus block ``G_ii = W_i^T M^-1 W_i``: ``r_N = 1 / G_NN`` and ``r_T = 1 / max(G_T1T1,
G_T2T2)`` (one value for both tangential components, so that the fixed point of the disc
projection is Coulomb's law). Three cases of the local problem of contact i (the others held
fixed, ``xi_i = G_ii P_i + b_i``) are solved exactly instead of by one prox step, since the
normal and tangential components of one vertex contact are strongly coupled through the lever
arm and the componentwise iteration then crawls: an opening contact (``b_N >= 0``: ``P_i = 0``),
a sticking one (``P_i = -G_ii^-1 b_i`` inside the friction cone) and a sliding one
(``xi_N = 0``, ``P_T = -mu P_N xi_T / |xi_T|``, by Newton's method on the direction of P_T;
when it does not converge, one prox step is taken instead). All are fixed points of
the prox equations, so the solution is unchanged. The sweep stops when no percussion changed by
more than ``tol`` times the largest normal percussion, or after ``max_iter`` sweeps; a single
contact stops after its first sweep, since its local solution is then the solution.

Two contacts (a rock on an edge) are coupled so strongly that this iteration crawls: the two
vertices of a short edge see nearly the same velocity, the 6x6 Delassus matrix of the pair is
singular (percussions along the edge that cancel move nothing) and nearly singular in a second
direction, and a sweep reduces the error only by a factor of about 0.85 for the EOTA221 rock.
Each sweep of a step with two closed contacts therefore first tries both as sticking at once:
``(G + tau 1) x = -xi`` for the corrections x of both percussions, with xi the current
velocities of the two contacts and a regularisation ``tau`` of 1e-10 times the largest diagonal
entry of the Delassus blocks, which keeps the solve finite and leaves the percussions unchanged
in the singular direction (:func:`~tumble.rockfall.local_solutions.pair_setup`). The correction
is kept if both normal percussions stay positive and both tangential ones inside their friction
discs, and dropped for the rest of the step otherwise; the per-contact updates of the sweep
follow as before. It only accelerates: the sweep stops on the same criterion of the per-contact
updates, so the solution is a fixed point of the same prox equations.

The contact buffer of a rock is one float64 array of shape ``(n_vertices, NCOL)`` allocated once;
the column layout is given by the ``C_*`` constants. Because it carries the warm start from step
to step it belongs to the state of the rock: clear it (:func:`forget_percussions`) before the first
step of a rock, so that a rock's trajectory never depends on what the buffer held before.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rockfall.local_solutions import (
    block_at,
    dot6_at,
    inverse3,
    is_symmetric,
    pair_setup,
    sliding,
    transpose3,
)
from tumble.rockfall.surface import bilinear, surface
from tumble.rotation.quaternion import Quat, q_to_matrix
from tumble.rotation.vec3 import Mat3, Vec3, cross, matvec

#: the generalised velocity ``u = (v, omega)`` of a rock as the kernels pass it around
Vec6 = tuple[float, float, float, float, float, float]

#: buffer columns of the closed contact in row i: vertex index, gap, W (3 directions x
#: (3 translational + 3 rotational)), M^-1 W (same layout), r_N, r_T, gamma_N at the beginning of
#: the step, P (N, T1, T2), the diagonal block G_ii of the Delassus matrix and its inverse (row
#: major); and, in row k for vertex k, the percussion of vertex k in the previous step (C_WARM,
#: zero if it was not in contact), which starts the iteration
C_VERTEX = 0
C_GAP = 1
C_W = 2
C_MW = 20
C_RN = 38
C_RT = 39
C_GAMMA_B = 40
C_P = 41
C_G = 44
C_GINV = 53
C_WARM = 62
NCOL = 65

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
    tangents are computed for closed contacts only.
    """
    x0, y0, dx, dy = grid[0], grid[1], grid[2], grid[3]
    a = q_to_matrix(p)  # its last row gives the heights of the vertices for the bound
    radius2 = 0.0
    for k in range(vertices.shape[0]):
        radius2 = max(
            radius2,
            vertices[k, 0] * vertices[k, 0]
            + vertices[k, 1] * vertices[k, 1]
            + vertices[k, 2] * vertices[k, 2],
        )
    z_top, bounded = terrain_ceiling(heights, x0, y0, dx, dy, r[0], r[1], math.sqrt(radius2))
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
    (:func:`tumble.rockfall.surface.upper_plane`) whose square holds every vertex: returns
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
    z, normal, inside = surface(heights, x0, y0, dx, dy, px, py)
    if not inside:
        return 0, False
    gap = r[2] + dz - z
    if gap > gap_tol:
        return 0, True
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


@jit_leaf
def prepare_contacts(
    contacts: np.ndarray, n: int, m_inv: float, rot_inv: Mat3, u_start: Vec6
) -> bool:
    """Fill ``M^-1 W``, the Delassus blocks ``G_ii`` and their inverses, the prox parameters
    r_N, r_T and gamma_N at ``u_start``; returns False if a block is singular.

    ``m_inv`` is the inverse translational mass (a scalar), ``rot_inv`` the inverse of the
    rotational matrix of the scheme (three row tuples), ``u_start`` the 6-tuple ``(v, omega)`` at
    the beginning of the step (the pre-impact velocity of Newton's law).
    """
    diagonal = (
        rot_inv[0][1] == 0.0
        and rot_inv[0][2] == 0.0
        and rot_inv[1][0] == 0.0
        and rot_inv[1][2] == 0.0
        and rot_inv[2][0] == 0.0
        and rot_inv[2][1] == 0.0
    )
    symmetric = (
        rot_inv[0][1] == rot_inv[1][0]
        and rot_inv[0][2] == rot_inv[2][0]
        and rot_inv[1][2] == rot_inv[2][1]
    )
    d0, d1, d2 = rot_inv[0][0], rot_inv[1][1], rot_inv[2][2]
    for i in range(n):
        row = contacts[i]
        for j in range(3):
            base = C_W + 6 * j
            mb = C_MW + 6 * j
            ww0, ww1, ww2 = row[base + 3], row[base + 4], row[base + 5]
            row[mb + 0] = m_inv * row[base]
            row[mb + 1] = m_inv * row[base + 1]
            row[mb + 2] = m_inv * row[base + 2]
            if diagonal:
                row[mb + 3] = d0 * ww0
                row[mb + 4] = d1 * ww1
                row[mb + 5] = d2 * ww2
            else:
                row[mb + 3] = rot_inv[0][0] * ww0 + rot_inv[0][1] * ww1 + rot_inv[0][2] * ww2
                row[mb + 4] = rot_inv[1][0] * ww0 + rot_inv[1][1] * ww1 + rot_inv[1][2] * ww2
                row[mb + 5] = rot_inv[2][0] * ww0 + rot_inv[2][1] * ww1 + rot_inv[2][2] * ww2
        # G_ii = W_i^T M^-1 W_i, symmetric when M^-1 is
        for j in range(3):
            for k in range(3):
                if symmetric and k < j:
                    row[C_G + 3 * j + k] = row[C_G + 3 * k + j]
                else:
                    row[C_G + 3 * j + k] = dot6_at(row, row, C_W + 6 * j, C_MW + 6 * k)
        g = (
            (row[C_G], row[C_G + 1], row[C_G + 2]),
            (row[C_G + 3], row[C_G + 4], row[C_G + 5]),
            (row[C_G + 6], row[C_G + 7], row[C_G + 8]),
        )
        g_inv, ok = inverse3(g)
        if not ok:
            return False
        for j in range(3):
            for k in range(3):
                row[C_GINV + 3 * j + k] = g_inv[j][k]
        row[C_RN] = 1.0 / g[0][0]
        row[C_RT] = 1.0 / max(g[1][1], g[2][2])
        row[C_GAMMA_B] = (
            row[C_W] * u_start[0]
            + row[C_W + 1] * u_start[1]
            + row[C_W + 2] * u_start[2]
            + row[C_W + 3] * u_start[3]
            + row[C_W + 4] * u_start[4]
            + row[C_W + 5] * u_start[5]
        )
    return True


@jit_leaf
def _gamma(
    row: np.ndarray, j: int, u0: float, u1: float, u2: float, u3: float, u4: float, u5: float
) -> float:
    base = C_W + 6 * j
    return (
        row[base] * u0
        + row[base + 1] * u1
        + row[base + 2] * u2
        + row[base + 3] * u3
        + row[base + 4] * u4
        + row[base + 5] * u5
    )


@jit_leaf
def _coupling(a: np.ndarray, b: np.ndarray) -> Mat3:
    """The off-diagonal Delassus block ``W_a^T M^-1 W_b`` of the contacts in rows a and b."""
    return (
        (
            dot6_at(a, b, C_W, C_MW),
            dot6_at(a, b, C_W, C_MW + 6),
            dot6_at(a, b, C_W, C_MW + 12),
        ),
        (
            dot6_at(a, b, C_W + 6, C_MW),
            dot6_at(a, b, C_W + 6, C_MW + 6),
            dot6_at(a, b, C_W + 6, C_MW + 12),
        ),
        (
            dot6_at(a, b, C_W + 12, C_MW),
            dot6_at(a, b, C_W + 12, C_MW + 6),
            dot6_at(a, b, C_W + 12, C_MW + 12),
        ),
    )


@jit_leaf
def solve_pgs(
    contacts: np.ndarray,
    n: int,
    u_free: Vec6,
    mu: float,
    eps_n: float,
    tol: float,
    max_iter: int,
) -> tuple[Vec6, int, bool]:
    """Projected Gauss-Seidel on the proximal point equations; returns ``(u_E, sweeps, ok)``.

    Starts from the previous step's percussions (``C_WARM``) projected on the friction cones and
    leaves the final ones there for the next step. ``u_E = u_free + sum_i M^-1 W_i P_i`` is
    recomputed from the final percussions (not accumulated), so that it matches P to round-off.
    ``ok`` is False when ``max_iter`` sweeps did not reach the tolerance (the last iterate is
    used).
    """
    for i in range(n):
        row = contacts[i]
        warm = contacts[int(row[C_VERTEX])]
        p_n = max(warm[C_WARM], 0.0)
        p_t1 = warm[C_WARM + 1]
        p_t2 = warm[C_WARM + 2]
        size = math.sqrt(p_t1 * p_t1 + p_t2 * p_t2)
        if size > mu * p_n:
            f = mu * p_n / size
            p_t1 *= f
            p_t2 *= f
        row[C_P] = p_n
        row[C_P + 1] = p_t1
        row[C_P + 2] = p_t2
    u0, u1, u2, u3, u4, u5 = _apply(contacts, n, u_free)
    pair = n == 2
    if pair:
        a = contacts[0]
        b = contacts[1]
        g00 = block_at(a, C_G)
        g11 = block_at(b, C_G)
        g01 = _coupling(a, b)
        if is_symmetric(g00) and is_symmetric(g11):
            # prepare_contacts found M^-1 symmetric: G_10 = G_01^T
            g10 = transpose3(g01)
        else:
            g10 = _coupling(b, a)
        h, k, s_inv, pair = pair_setup(g00, g11, g01, g10)
    sweeps = 0
    ok = False
    for _ in range(max_iter):
        sweeps += 1
        if pair:
            # both contacts sticking: their joint problem at once (module docstring)
            a = contacts[0]
            b = contacts[1]
            xa = (
                _gamma(a, 0, u0, u1, u2, u3, u4, u5) + eps_n * a[C_GAMMA_B],
                _gamma(a, 1, u0, u1, u2, u3, u4, u5),
                _gamma(a, 2, u0, u1, u2, u3, u4, u5),
            )
            xb = (
                _gamma(b, 0, u0, u1, u2, u3, u4, u5) + eps_n * b[C_GAMMA_B],
                _gamma(b, 1, u0, u1, u2, u3, u4, u5),
                _gamma(b, 2, u0, u1, u2, u3, u4, u5),
            )
            kx = matvec(k, xa)
            db = matvec(s_inv, (kx[0] - xb[0], kx[1] - xb[1], kx[2] - xb[2]))
            gd = matvec(g01, db)
            da = matvec(h, (-xa[0] - gd[0], -xa[1] - gd[1], -xa[2] - gd[2]))
            pa = (a[C_P] + da[0], a[C_P + 1] + da[1], a[C_P + 2] + da[2])
            pb = (b[C_P] + db[0], b[C_P + 1] + db[1], b[C_P + 2] + db[2])
            if (
                pa[0] > 0.0
                and pb[0] > 0.0
                and pa[1] * pa[1] + pa[2] * pa[2] <= (mu * pa[0]) ** 2
                and pb[1] * pb[1] + pb[2] * pb[2] <= (mu * pb[0]) ** 2
            ):
                for row, p, d in ((a, pa, da), (b, pb, db)):
                    row[C_P] = p[0]
                    row[C_P + 1] = p[1]
                    row[C_P + 2] = p[2]
                    mb = C_MW
                    u0 += row[mb] * d[0] + row[mb + 6] * d[1] + row[mb + 12] * d[2]
                    u1 += row[mb + 1] * d[0] + row[mb + 7] * d[1] + row[mb + 13] * d[2]
                    u2 += row[mb + 2] * d[0] + row[mb + 8] * d[1] + row[mb + 14] * d[2]
                    u3 += row[mb + 3] * d[0] + row[mb + 9] * d[1] + row[mb + 15] * d[2]
                    u4 += row[mb + 4] * d[0] + row[mb + 10] * d[1] + row[mb + 16] * d[2]
                    u5 += row[mb + 5] * d[0] + row[mb + 11] * d[1] + row[mb + 17] * d[2]
            else:
                pair = False
        change = 0.0
        largest = 0.0
        exact = True
        for i in range(n):
            row = contacts[i]
            p_n0 = row[C_P]
            p_t10 = row[C_P + 1]
            p_t20 = row[C_P + 2]
            xi_n = _gamma(row, 0, u0, u1, u2, u3, u4, u5) + eps_n * row[C_GAMMA_B]
            xi_t1 = _gamma(row, 1, u0, u1, u2, u3, u4, u5)
            xi_t2 = _gamma(row, 2, u0, u1, u2, u3, u4, u5)
            # the contact's velocity without its own percussion: b = xi - G_ii P
            g = C_G
            b_n = xi_n - (row[g] * p_n0 + row[g + 1] * p_t10 + row[g + 2] * p_t20)
            b_t1 = xi_t1 - (row[g + 3] * p_n0 + row[g + 4] * p_t10 + row[g + 5] * p_t20)
            b_t2 = xi_t2 - (row[g + 6] * p_n0 + row[g + 7] * p_t10 + row[g + 8] * p_t20)
            gi = C_GINV
            s_n = -(row[gi] * b_n + row[gi + 1] * b_t1 + row[gi + 2] * b_t2)
            s_t1 = -(row[gi + 3] * b_n + row[gi + 4] * b_t1 + row[gi + 5] * b_t2)
            s_t2 = -(row[gi + 6] * b_n + row[gi + 7] * b_t1 + row[gi + 8] * b_t2)
            if b_n >= 0.0:
                # opening contact
                p_n = 0.0
                p_t1 = 0.0
                p_t2 = 0.0
            elif s_n > 0.0 and s_t1 * s_t1 + s_t2 * s_t2 <= (mu * s_n) ** 2:
                # sticking contact
                p_n = s_n
                p_t1 = s_t1
                p_t2 = s_t2
            else:
                p_n, p_t1, p_t2, ok_slide = sliding(
                    block_at(row, C_G), b_n, b_t1, b_t2, s_t1, s_t2, mu
                )
                if not ok_slide:
                    # one prox step: normal on R+, tangential on the disc of radius mu P_N
                    exact = False
                    p_n = max(p_n0 - row[C_RN] * xi_n, 0.0)
                    r_t = row[C_RT]
                    p_t1 = p_t10 - r_t * xi_t1
                    p_t2 = p_t20 - r_t * xi_t2
                    limit = mu * p_n
                    size = math.sqrt(p_t1 * p_t1 + p_t2 * p_t2)
                    if size > limit:
                        f = limit / size
                        p_t1 *= f
                        p_t2 *= f
            d0 = p_n - p_n0
            d1 = p_t1 - p_t10
            d2 = p_t2 - p_t20
            row[C_P] = p_n
            row[C_P + 1] = p_t1
            row[C_P + 2] = p_t2
            if d0 != 0.0 or d1 != 0.0 or d2 != 0.0:
                mb = C_MW
                u0 += row[mb] * d0 + row[mb + 6] * d1 + row[mb + 12] * d2
                u1 += row[mb + 1] * d0 + row[mb + 7] * d1 + row[mb + 13] * d2
                u2 += row[mb + 2] * d0 + row[mb + 8] * d1 + row[mb + 14] * d2
                u3 += row[mb + 3] * d0 + row[mb + 9] * d1 + row[mb + 15] * d2
                u4 += row[mb + 4] * d0 + row[mb + 10] * d1 + row[mb + 16] * d2
                u5 += row[mb + 5] * d0 + row[mb + 11] * d1 + row[mb + 17] * d2
            change = max(change, abs(d0), abs(d1), abs(d2))
            largest = max(largest, p_n)
        # a single contact is solved by its exact local solution in one sweep
        if change <= tol * largest or (n == 1 and exact):
            ok = True
            break
    forget_percussions(contacts)
    for i in range(n):
        row = contacts[i]
        warm = contacts[int(row[C_VERTEX])]
        warm[C_WARM] = row[C_P]
        warm[C_WARM + 1] = row[C_P + 1]
        warm[C_WARM + 2] = row[C_P + 2]
    return _apply(contacts, n, u_free), sweeps, ok


@jit_leaf
def _apply(contacts: np.ndarray, n: int, u: Vec6) -> Vec6:
    """``u + sum_i M^-1 W_i P_i`` over the closed contacts."""
    u0, u1, u2, u3, u4, u5 = u
    for i in range(n):
        row = contacts[i]
        p_n = row[C_P]
        p_t1 = row[C_P + 1]
        p_t2 = row[C_P + 2]
        mb = C_MW
        u0 += row[mb] * p_n + row[mb + 6] * p_t1 + row[mb + 12] * p_t2
        u1 += row[mb + 1] * p_n + row[mb + 7] * p_t1 + row[mb + 13] * p_t2
        u2 += row[mb + 2] * p_n + row[mb + 8] * p_t1 + row[mb + 14] * p_t2
        u3 += row[mb + 3] * p_n + row[mb + 9] * p_t1 + row[mb + 15] * p_t2
        u4 += row[mb + 4] * p_n + row[mb + 10] * p_t1 + row[mb + 16] * p_t2
        u5 += row[mb + 5] * p_n + row[mb + 11] * p_t1 + row[mb + 17] * p_t2
    return (u0, u1, u2, u3, u4, u5)


@jit_leaf
def forget_percussions(contacts: np.ndarray) -> None:
    """Clear the warm start of every vertex (before a rock's first step, or after a flight step)."""
    for k in range(contacts.shape[0]):
        contacts[k, C_WARM] = 0.0
        contacts[k, C_WARM + 1] = 0.0
        contacts[k, C_WARM + 2] = 0.0


@jit_leaf
def contact_work(contacts: np.ndarray, n: int, u_start: Vec6, u_end: Vec6) -> tuple[float, int]:
    """Work of the percussions, ``sum_i P_i . W_i^T (u_start + u_end) / 2`` (L14 eq. 54).

    Also returns the number of contacts that carry a positive normal percussion.
    """
    work = 0.0
    loaded = 0
    for i in range(n):
        row = contacts[i]
        if row[C_P] > 0.0:
            loaded += 1
        for j in range(3):
            base = C_W + 6 * j
            g = 0.0
            for k in range(6):
                g += row[base + k] * 0.5 * (u_start[k] + u_end[k])
            work += row[C_P + j] * g
    return work, loaded
