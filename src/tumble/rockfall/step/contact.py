"""Vertex contacts of a convex rock with the bilinear terrain, and the frictional impact problem.

Contact detection (Leine et al. 2014, section 3.3): every hull vertex P is placed at the midpoint
configuration of the step, ``r_P = r + A_IK(p) K_r_SP``; its gap to the bilinear surface is
``g_N = z_P - z(x_P, y_P)`` and the contact is closed when ``g_N <= 0`` (up to a tolerance of
a few nanometres against round-off). The search is in :mod:`tumble.rockfall.step.detection`
(:func:`tumble.rockfall.step.detection.find_contacts`): vertices that lie above a rigorous bound of
the terrain are open without evaluating the surface; the result is the same as evaluating every
vertex. This module holds the layout of the contact buffer and the impact problem.

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
in the singular direction (:func:`~tumble.rockfall.step.local_solutions.pair_setup`). The correction
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
from tumble.rockfall.step.local_solutions import (
    block_at,
    dot6_at,
    inverse3,
    is_symmetric,
    pair_setup,
    sliding,
    transpose3,
)
from tumble.rotation.vec3 import Mat3, matvec

#: the generalised velocity ``u = (v, omega)`` of a rock as the kernels pass it around
Vec6 = tuple[float, float, float, float, float, float]

#: buffer columns of the closed contact in row i: vertex index, gap, W (3 directions x
#: (3 translational + 3 rotational)), M^-1 W (same layout), gamma_N at the beginning of the step,
#: P (N, T1, T2), the diagonal block G_ii of the Delassus matrix and its inverse (row
#: major); and, in row k for vertex k, the percussion of vertex k in the previous step (C_WARM,
#: zero if it was not in contact), which starts the iteration; the vertices whose C_WARM columns
#: the last solve wrote (C_LAST of rows 0 .. n - 1, in their order) and their number n (C_N_LAST
#: of row 0), so that only those rows are cleared before the next solve writes its own
C_VERTEX = 0
C_GAP = 1
C_W = 2
C_MW = 20
C_GAMMA_B = 38
C_P = 39
C_G = 42
C_GINV = 51
C_WARM = 60
C_LAST = 63
C_N_LAST = 64
NCOL = 65


@jit_leaf
def prepare_contacts(
    contacts: np.ndarray, n: int, m_inv: float, rot_inv: Mat3, u_start: Vec6
) -> bool:
    """Fill ``M^-1 W``, the Delassus blocks ``G_ii`` and their inverses and gamma_N at
    ``u_start``; returns False if a block is singular. (The prox parameters r_N and r_T are
    taken from ``G_ii`` where :func:`solve_pgs` needs them, in its rare prox steps.)

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
                    # r_N = 1 / G_NN, r_T = 1 / max(G_T1T1, G_T2T2) (module docstring)
                    p_n = max(p_n0 - (1.0 / row[C_G]) * xi_n, 0.0)
                    r_t = 1.0 / max(row[C_G + 4], row[C_G + 8])
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
    # the warm start of the next step: only the vertices the last solve wrote can hold one
    # (forget_percussions clears the rest), so only their rows are cleared
    first = contacts[0]
    for i in range(int(first[C_N_LAST])):
        warm = contacts[int(contacts[i, C_LAST])]
        warm[C_WARM] = 0.0
        warm[C_WARM + 1] = 0.0
        warm[C_WARM + 2] = 0.0
    for i in range(n):
        row = contacts[i]
        vertex = row[C_VERTEX]
        warm = contacts[int(vertex)]
        warm[C_WARM] = row[C_P]
        warm[C_WARM + 1] = row[C_P + 1]
        warm[C_WARM + 2] = row[C_P + 2]
        row[C_LAST] = vertex
    first[C_N_LAST] = n
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
    if contacts.shape[0] > 0:
        contacts[0, C_N_LAST] = 0.0


@jit_leaf
def contact_work(contacts: np.ndarray, n: int, u_start: Vec6, u_end: Vec6) -> tuple[float, int]:
    """Work of the percussions, ``sum_i P_i . W_i^T (u_start + u_end) / 2`` (L14 eq. 54).

    Also returns the number of contacts that carry a positive normal percussion.
    """
    work = 0.0
    loaded = 0
    # the sums u_start + u_end, formed once for every direction of every contact
    s0 = u_start[0] + u_end[0]
    s1 = u_start[1] + u_end[1]
    s2 = u_start[2] + u_end[2]
    s3 = u_start[3] + u_end[3]
    s4 = u_start[4] + u_end[4]
    s5 = u_start[5] + u_end[5]
    for i in range(n):
        row = contacts[i]
        if row[C_P] > 0.0:
            loaded += 1
        for j in range(3):
            base = C_W + 6 * j
            g = 0.0
            g += row[base] * 0.5 * s0
            g += row[base + 1] * 0.5 * s1
            g += row[base + 2] * 0.5 * s2
            g += row[base + 3] * 0.5 * s3
            g += row[base + 4] * 0.5 * s4
            g += row[base + 5] * 0.5 * s5
            work += row[C_P + j] * g
    return work, loaded
