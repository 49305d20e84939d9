"""Exact solutions of the local problems of the contact solver (:mod:`.contact`).

The projected Gauss-Seidel iteration of :func:`tumble.rockfall.step.contact.solve_pgs` visits one
contact at a time and solves its local problem exactly instead of by one prox step (Leine et al.
2014, section 4): :func:`sliding` gives the percussion of a sliding contact (Newton's method on
the direction of the tangential percussion), :func:`pair_setup` the factors of the joint sticking
problem of two contacts, which that iteration would otherwise approach only slowly. The matrices
are 3x3 tuples of rows; the Delassus blocks are ``G_ab = W_a^T M^-1 W_b`` with the
normal-tangent-tangent order of each contact frame. The small helpers that read such blocks
from a row of the contact buffer (:func:`block_at`, :func:`dot6_at`) live here too.

Citation: R. I. Leine, A. Schweizer, M. Christen, J. Glover, P. Bartelt, W. Gerber, Simulation of
rockfall trajectories with consideration of rock shape, Multibody Syst. Dyn. 32 (2014) 241-271.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rotation.vec3 import Mat3, cross

#: cap of the Newton iteration of the local sliding solution
SLIDING_ITER = 20
#: regularisation of the joint solution of two contacts (:func:`pair_setup`), relative to the
#: largest diagonal entry of their Delassus blocks
PAIR_REGULARISATION = 1e-10


@jit_leaf
def block_at(row: np.ndarray, col: int) -> Mat3:
    """The 3x3 matrix stored row major from column ``col`` of a contact row."""
    return (
        (row[col], row[col + 1], row[col + 2]),
        (row[col + 3], row[col + 4], row[col + 5]),
        (row[col + 6], row[col + 7], row[col + 8]),
    )


@jit_leaf
def dot6_at(a: np.ndarray, b: np.ndarray, ia: int, ib: int) -> float:
    """``a[ia:ia+6] . b[ib:ib+6]``, summed in index order."""
    return (
        a[ia] * b[ib]
        + a[ia + 1] * b[ib + 1]
        + a[ia + 2] * b[ib + 2]
        + a[ia + 3] * b[ib + 3]
        + a[ia + 4] * b[ib + 4]
        + a[ia + 5] * b[ib + 5]
    )


@jit_leaf
def is_symmetric(m: Mat3) -> bool:
    """True if the 3x3 matrix equals its transpose exactly."""
    return m[0][1] == m[1][0] and m[0][2] == m[2][0] and m[1][2] == m[2][1]


@jit_leaf
def transpose3(m: Mat3) -> Mat3:
    """The transpose of a 3x3 matrix (row tuples)."""
    return (
        (m[0][0], m[1][0], m[2][0]),
        (m[0][1], m[1][1], m[2][1]),
        (m[0][2], m[1][2], m[2][2]),
    )


@jit_leaf
def inverse3(m: Mat3) -> tuple[Mat3, bool]:
    """Inverse of a 3x3 matrix (row tuples) by the adjugate: returns ``(rows, ok)``."""
    c0 = cross(m[1], m[2])
    c1 = cross(m[2], m[0])
    c2 = cross(m[0], m[1])
    det = m[0][0] * c0[0] + m[0][1] * c0[1] + m[0][2] * c0[2]
    if not (abs(det) > 1e-300) or not math.isfinite(det):
        zero = (0.0, 0.0, 0.0)
        return (zero, zero, zero), False
    f = 1.0 / det
    return (
        (c0[0] * f, c1[0] * f, c2[0] * f),
        (c0[1] * f, c1[1] * f, c2[1] * f),
        (c0[2] * f, c1[2] * f, c2[2] * f),
    ), True


@jit_leaf
def matmul3(a: Mat3, b: Mat3) -> Mat3:
    """The product of two 3x3 matrices (row tuples)."""
    return (
        (
            a[0][0] * b[0][0] + a[0][1] * b[1][0] + a[0][2] * b[2][0],
            a[0][0] * b[0][1] + a[0][1] * b[1][1] + a[0][2] * b[2][1],
            a[0][0] * b[0][2] + a[0][1] * b[1][2] + a[0][2] * b[2][2],
        ),
        (
            a[1][0] * b[0][0] + a[1][1] * b[1][0] + a[1][2] * b[2][0],
            a[1][0] * b[0][1] + a[1][1] * b[1][1] + a[1][2] * b[2][1],
            a[1][0] * b[0][2] + a[1][1] * b[1][2] + a[1][2] * b[2][2],
        ),
        (
            a[2][0] * b[0][0] + a[2][1] * b[1][0] + a[2][2] * b[2][0],
            a[2][0] * b[0][1] + a[2][1] * b[1][1] + a[2][2] * b[2][1],
            a[2][0] * b[0][2] + a[2][1] * b[1][2] + a[2][2] * b[2][2],
        ),
    )


@jit_leaf
def sliding(
    g: Mat3, b_n: float, b_t1: float, b_t2: float, s_t1: float, s_t2: float, mu: float
) -> tuple[float, float, float, bool]:
    """Local sliding solution of one contact: ``xi_N = 0`` and ``P_T = mu P_N t`` on the rim of
    the friction disc, with the sliding velocity ``xi_T`` opposite to ``t = (cos a, sin a)``.

    Newton's method on the angle a (started from the direction of the sticking trial ``s_T``;
    ``t`` itself is turned by each step, so that no angle is stored) for
    ``f(a) = xi_T(a) x t(a) = 0``, where ``P_N(a) = -b_N / (G_NN + mu G_NT . t)`` and
    ``xi_T(a) = P_N (G_TN + mu G_TT t) + b_T``. Returns ``(P_N, P_T1, P_T2, ok)``; ``ok`` is False
    if the iteration did not converge to a solution with ``P_N > 0`` and ``xi_T . t <= 0``.
    """
    size = math.sqrt(s_t1 * s_t1 + s_t2 * s_t2)
    if size == 0.0:
        return 0.0, 0.0, 0.0, False
    # t = (cos a, sin a) is carried along and turned by each Newton step
    c = s_t1 / size
    s = s_t2 / size
    for _ in range(SLIDING_ITER):
        den = g[0][0] + mu * (g[0][1] * c + g[0][2] * s)
        if not den > 0.0:
            return 0.0, 0.0, 0.0, False
        den_a = mu * (g[0][2] * c - g[0][1] * s)
        p_n = -b_n / den
        p_n_a = -p_n * den_a / den
        v1 = g[1][0] + mu * (g[1][1] * c + g[1][2] * s)
        v2 = g[2][0] + mu * (g[2][1] * c + g[2][2] * s)
        v1_a = mu * (g[1][2] * c - g[1][1] * s)
        v2_a = mu * (g[2][2] * c - g[2][1] * s)
        xi1 = p_n * v1 + b_t1
        xi2 = p_n * v2 + b_t2
        xi1_a = p_n_a * v1 + p_n * v1_a
        xi2_a = p_n_a * v2 + p_n * v2_a
        f = xi1 * s - xi2 * c
        f_a = xi1_a * s + xi1 * c - xi2_a * c + xi2 * s
        if f_a == 0.0:
            return 0.0, 0.0, 0.0, False
        step = f / f_a
        # a -> a - step: cos and sin of the step by their Taylor series when it is small (the
        # first omitted terms are below 1e-16 for |step| <= 5e-3)
        if abs(step) <= 5e-3:
            step2 = step * step
            cos_step = 1.0 - step2 * (0.5 - step2 / 24.0)
            sin_step = step * (1.0 - step2 * (1.0 / 6.0 - step2 / 120.0))
        else:
            cos_step = math.cos(step)
            sin_step = math.sin(step)
        c, s = c * cos_step + s * sin_step, s * cos_step - c * sin_step
        if abs(step) <= 1e-13:
            den = g[0][0] + mu * (g[0][1] * c + g[0][2] * s)
            if not den > 0.0:
                return 0.0, 0.0, 0.0, False
            p_n = -b_n / den
            xi1 = p_n * (g[1][0] + mu * (g[1][1] * c + g[1][2] * s)) + b_t1
            xi2 = p_n * (g[2][0] + mu * (g[2][1] * c + g[2][2] * s)) + b_t2
            if p_n > 0.0 and xi1 * c + xi2 * s <= 0.0:
                return p_n, mu * p_n * c, mu * p_n * s, True
            return 0.0, 0.0, 0.0, False
    return 0.0, 0.0, 0.0, False


@jit_leaf
def pair_setup(g00: Mat3, g11: Mat3, g01: Mat3, g10: Mat3) -> tuple[Mat3, Mat3, Mat3, bool]:
    """Factors of the joint sticking problem of two contacts a = 0 and b = 1.

    With the Delassus blocks ``G_ab = W_a^T M^-1 W_b`` and ``tau`` the regularisation
    (:data:`PAIR_REGULARISATION` times the largest diagonal entry of G_00 and G_11), the system
    ``(G + tau 1) x = -xi`` of both contacts is solved by the Schur complement of the first:
    returns ``(H, K, S^-1, ok)`` with ``H = (G_00 + tau 1)^-1``, ``K = G_10 H`` and
    ``S = G_11 + tau 1 - K G_01``, so that ``x_1 = S^-1 (K xi_0 - xi_1)`` and
    ``x_0 = -H (xi_0 + G_01 x_1)``; ``ok`` is False if a block is singular.
    """
    tau = PAIR_REGULARISATION * max(
        g00[0][0], g00[1][1], g00[2][2], g11[0][0], g11[1][1], g11[2][2]
    )
    h, ok_h = inverse3(
        (
            (g00[0][0] + tau, g00[0][1], g00[0][2]),
            (g00[1][0], g00[1][1] + tau, g00[1][2]),
            (g00[2][0], g00[2][1], g00[2][2] + tau),
        )
    )
    k = matmul3(g10, h)
    kg = matmul3(k, g01)
    s_inv, ok_s = inverse3(
        (
            (g11[0][0] + tau - kg[0][0], g11[0][1] - kg[0][1], g11[0][2] - kg[0][2]),
            (g11[1][0] - kg[1][0], g11[1][1] + tau - kg[1][1], g11[1][2] - kg[1][2]),
            (g11[2][0] - kg[2][0], g11[2][1] - kg[2][1], g11[2][2] + tau - kg[2][2]),
        )
    )
    return h, k, s_inv, ok_h and ok_s
