"""DIR.EM of Betsch & Steinmann 2001: the director-based energy-momentum scheme.

The body frame is described by three directors ``d_i = R e_i`` (the columns of the rotation
matrix, Betsch & Siebert 2009, eq. 15-16) with velocities ``v_i``, subject to the six constraints
``d_i . d_j = delta_ij`` (eq. 17). The mass matrix is ``diag(D_1, D_2, D_3)`` with the principal
values of the Euler tensor ``D_i = (I_j + I_k - I_i) / 2`` (eq. 19-20), so that
``T = 1/2 sum_i D_i |v_i|^2`` (eq. 18) and the spin is ``L = sum_i D_i d_i x v_i`` (eq. 23).
A heavy top adds ``V = M g e_z . (R c) = M g sum_i c_i d_i . e_z`` (section 5.2), linear in the
directors. The scheme (Betsch & Steinmann 2001; ``physics/integrators.md``)::

    d_i1 - d_i0 = dt/2 (v_i0 + v_i1)
    D_i (v_i1 - v_i0) = -dt sum_j Lambda_ij (d_j0 + d_j1)/2 - dt M g c_i e_z
    d_i1 . d_j1 = delta_ij,        Lambda symmetric (six multipliers)

The constraint gradients at the midpoint are the discrete gradients of the quadratic constraints
and the potential is linear, so energy and spin are kept exactly. With ``X`` the matrix of
directors, ``mu = dt^2/4 Lambda`` and ``H = dt X0^T V0 D - dt^2/2 M g X0^T e_z c^T``, the first two
lines combine to ``X1 (D + mu) = X0 (D - mu) + X0 H``. Writing ``X1 = X0 cay(a)`` with the Cayley
transform ``cay(a) = (1 - a~/2)^-1 (1 + a~/2)`` satisfies the six constraints identically and,
after multiplication by ``1 - a~/2``, turns the equation into one that is linear in ``a``::

    2 mu = H - a~ (D + H/2)
    skew(2 mu) = 0   <=>   1/2 ((tr M) 1 - M) a = axial(skew H),   M = D + H/2

(using ``a~ M + M^T a~ = (((tr M) 1 - M) a)~``). The reduced unknown is thus the Cayley vector
``a`` of the incremental rotation, found from a 3x3 linear system (Cramer's rule): no Newton
iteration is needed, the constraints hold to round-off and ``tol``/``max_iter`` are not used.
The velocities follow from the momentum update, ``v_i1 = v_i0 - (d_k0 + d_k1) (2 mu)_ki /
(dt D_i) - dt M g c_i e_z / D_i``, which keeps the round-off of the energy at the 1e-15 level
(``v1 = 2 (d1 - d0)/dt - v0`` would amplify it by 1/dt). ``X0^T`` is evaluated as ``X0^-1``
(the reciprocal basis ``d_j x d_k / det X0``), equal on the constraint manifold, so that the
round-off in the constraints does not feed a drift of the spin.

State: ``y[7:16]`` holds the directors and ``y[16:25]`` their velocities; both are carried from
step to step, since re-deriving the velocities from the angular velocity each step would break
the conservation. ``y[0:4]`` is the quaternion of the director frame (Shepperd's method, sign
kept continuous). The velocities satisfy the hidden constraints ``d_i . v_j + d_j . v_i = 0``
only to O(dt^2) (the scheme enforces the constraints on positions only), so ``y[4:7]`` is the
body angular velocity of the kinetic-metric projection of the ``v_i`` onto the tangent space,
``Theta W = R^T L``: the spin computed from ``(q, W)`` is then exactly ``L``. The kinetic energy
of that ``W`` falls short of ``T`` by the kinetic energy of the normal velocity component, which
is O(dt^4) and bounded; :func:`director_energy` and :func:`director_spin` evaluate the exact
invariants from the saved states.

Flat bodies. A lamina has ``A + B = C`` (the input check accepts it, and the textbook inertia
``(1, 2, 3)`` is one), so ``D_3 = 0``: the third director carries no inertia and the momentum
update cannot give its velocity. The scheme itself stays regular: ``v_3`` enters ``H``, ``T`` and
``L`` only multiplied by ``D_3``, the Cayley system is ``1/2 diag(I) + O(dt)`` whatever ``D_3``,
and the third momentum equation ``0 = -dt sum_j Lambda_3j (d_j0 + d_j1)/2`` is column 3 of the
combined equation, so it holds. The velocity of such a director is taken from the first line,
``v_i1 = 2 (d_i1 - d_i0)/dt - v_i0``, which in exact arithmetic is the same scheme (both lines
hold for every director), so nothing is regularised. The choice is made per director by its
round-off: the momentum update divides a residual of size ``eps I |W|`` by ``dt D_i``, the
position update amplifies the ``eps`` of the directors by ``2/dt`` but its error enters every
invariant multiplied by ``D_i``; below ``|D_i| <= MASSLESS_RATIO max_j |D_j|`` (1e-8) the
position update is the better conditioned (and the only one at ``D_i = 0``, or at the ``D_i``
of round-off size, even slightly negative, that moments computed in floating point give).

Order 2. Exact invariants: the director energy ``T (+ V)``, the spin ``L`` (its vertical
component with a heavy top), hence the spin from ``(q, W)``, the constraints and the unit
quaternion. Compared with QUAT.EM, QUAT.VI and ALGO_C1 in Betsch & Siebert 2009, section 5.

Betsch, P., Steinmann, P. (2001). Constrained integration of rigid body dynamics. Comput.
Methods Appl. Mech. Eng. 191:467-488.
Betsch, P., Siebert, R. (2009). Rigid body dynamics in terms of quaternions: Hamiltonian
formulation and conserving numerical integration. Int. J. Numer. Methods Eng. 79:444-473.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble._jit import jit
from tumble.freerot.base import PRIVATE, FreeRotationScheme, SchemeId
from tumble.rotation.quaternion import matrix_to_q, quat_to_matrix
from tumble.rotation.vec3 import Mat3, Vec3, cross, dot, solve3
from tumble.status import Status

#: offsets of the directors d_1, d_2, d_3 and of their velocities in the state vector
DIRECTORS = slice(PRIVATE, PRIVATE + 9)
VELOCITIES = slice(PRIVATE + 9, PRIVATE + 18)
#: a director whose Euler-tensor value is at most this fraction of the largest is advanced by
#: the position update (module docstring, "Flat bodies")
MASSLESS_RATIO = 1e-8


@jit
def euler_tensor(inertia: tuple[float, ...] | np.ndarray) -> Vec3:
    """Principal values ``D_i = (I_j + I_k - I_i) / 2`` of the Euler tensor (eq. 20)."""
    a, b, c = inertia[0], inertia[1], inertia[2]
    return (0.5 * (b + c - a), 0.5 * (a + c - b), 0.5 * (a + b - c))


@jit
def _column(m: Mat3, j: int) -> Vec3:
    return (m[0][j], m[1][j], m[2][j])


@jit
def _combine(d0: Vec3, d1: Vec3, d2: Vec3, x: Vec3) -> Vec3:
    """``X x`` for the matrix ``X`` of columns d0, d1, d2."""
    return (
        d0[0] * x[0] + d1[0] * x[1] + d2[0] * x[2],
        d0[1] * x[0] + d1[1] * x[1] + d2[1] * x[2],
        d0[2] * x[0] + d1[2] * x[1] + d2[2] * x[2],
    )


@jit
def _cayley_increment(a: Vec3, j: int) -> Vec3:
    """Column j of ``cay(a) - 1 = 4/(4 + |a|^2) (a~ + a~^2/2)``."""
    e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
    ae = cross(a, e)
    aae = cross(a, ae)
    f = 4.0 / (4.0 + dot(a, a))
    return (f * (ae[0] + 0.5 * aae[0]), f * (ae[1] + 0.5 * aae[1]), f * (ae[2] + 0.5 * aae[2]))


@jit
def _advance(d: Mat3, a: Vec3, j: int) -> Vec3:
    """Director j at the new step: ``d_j + X0 (cay(a) - 1) e_j``."""
    inc = _combine(d[0], d[1], d[2], _cayley_increment(a, j))
    return (d[j][0] + inc[0], d[j][1] + inc[1], d[j][2] + inc[2])


@jit
def _h_row(di: Vec3, v: Mat3, euler: Vec3, dt: float, weight: float, com: Vec3) -> Vec3:
    """Row i of ``H = dt X0^-1 V0 D - dt^2/2 M g X0^-1 e_z c^T``; ``di`` is row i of X0^-1."""
    k = 0.5 * dt * dt * weight * di[2]
    return (
        dt * euler[0] * dot(di, v[0]) - k * com[0],
        dt * euler[1] * dot(di, v[1]) - k * com[1],
        dt * euler[2] * dot(di, v[2]) - k * com[2],
    )


@jit
def dir_em_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    d = ((y[7], y[8], y[9]), (y[10], y[11], y[12]), (y[13], y[14], y[15]))
    v = ((y[16], y[17], y[18]), (y[19], y[20], y[21]), (y[22], y[23], y[24]))
    euler = euler_tensor(inertia)
    weight = potential[0]
    com = (potential[1], potential[2], potential[3])

    # the body-frame matrix H and M = D + H/2, with X0^-1 from the reciprocal basis
    r0 = cross(d[1], d[2])
    r1 = cross(d[2], d[0])
    r2 = cross(d[0], d[1])
    inv_det = 1.0 / dot(d[0], r0)
    h = (
        _h_row((r0[0] * inv_det, r0[1] * inv_det, r0[2] * inv_det), v, euler, dt, weight, com),
        _h_row((r1[0] * inv_det, r1[1] * inv_det, r1[2] * inv_det), v, euler, dt, weight, com),
        _h_row((r2[0] * inv_det, r2[1] * inv_det, r2[2] * inv_det), v, euler, dt, weight, com),
    )
    m = (
        (euler[0] + 0.5 * h[0][0], 0.5 * h[0][1], 0.5 * h[0][2]),
        (0.5 * h[1][0], euler[1] + 0.5 * h[1][1], 0.5 * h[1][2]),
        (0.5 * h[2][0], 0.5 * h[2][1], euler[2] + 0.5 * h[2][2]),
    )

    # Cayley vector: 1/2 ((tr M) 1 - M) a = axial(skew H)
    tr = m[0][0] + m[1][1] + m[2][2]
    lhs = (
        (0.5 * (tr - m[0][0]), -0.5 * m[0][1], -0.5 * m[0][2]),
        (-0.5 * m[1][0], 0.5 * (tr - m[1][1]), -0.5 * m[1][2]),
        (-0.5 * m[2][0], -0.5 * m[2][1], 0.5 * (tr - m[2][2])),
    )
    rhs = (0.5 * (h[2][1] - h[1][2]), 0.5 * (h[0][2] - h[2][0]), 0.5 * (h[1][0] - h[0][1]))
    a, ok = solve3(lhs, rhs)
    if not ok:
        return Status.SINGULAR_MATRIX

    # multipliers 2 mu = H - a~ M (symmetric up to round-off; symmetrised)
    am0 = cross(a, _column(m, 0))
    am1 = cross(a, _column(m, 1))
    am2 = cross(a, _column(m, 2))
    s00 = h[0][0] - am0[0]
    s11 = h[1][1] - am1[1]
    s22 = h[2][2] - am2[2]
    s01 = 0.5 * (h[0][1] - am1[0] + h[1][0] - am0[1])
    s02 = 0.5 * (h[0][2] - am2[0] + h[2][0] - am0[2])
    s12 = 0.5 * (h[1][2] - am2[1] + h[2][1] - am1[2])
    mu2 = ((s00, s01, s02), (s01, s11, s12), (s02, s12, s22))

    # directors: X1 = X0 + X0 (cay(a) - 1)
    n0 = _advance(d, a, 0)
    n1 = _advance(d, a, 1)
    n2 = _advance(d, a, 2)
    d_new = (n0, n1, n2)
    s0 = (d[0][0] + n0[0], d[0][1] + n0[1], d[0][2] + n0[2])
    s1 = (d[1][0] + n1[0], d[1][1] + n1[1], d[1][2] + n1[2])
    s2 = (d[2][0] + n2[0], d[2][1] + n2[1], d[2][2] + n2[2])

    # velocities by the momentum update, or by the position update for a director without
    # inertia (a lamina); spin L = sum D_i d_i x v_i
    spin = (0.0, 0.0, 0.0)
    light = MASSLESS_RATIO * max(abs(euler[0]), abs(euler[1]), abs(euler[2]))
    for j in range(3):
        dj = d_new[j]
        if abs(euler[j]) <= light:
            g = 2.0 / dt
            vj = (
                g * (dj[0] - d[j][0]) - v[j][0],
                g * (dj[1] - d[j][1]) - v[j][1],
                g * (dj[2] - d[j][2]) - v[j][2],
            )
        else:
            f = 1.0 / (dt * euler[j])
            corr = _combine(s0, s1, s2, _column(mu2, j))
            grav = dt * weight * com[j] / euler[j]
            vj = (v[j][0] - f * corr[0], v[j][1] - f * corr[1], v[j][2] - f * corr[2] - grav)
        for k in range(3):
            y_out[7 + 3 * j + k] = dj[k]
            y_out[16 + 3 * j + k] = vj[k]
        lj = cross(dj, vj)
        spin = (
            spin[0] + euler[j] * lj[0],
            spin[1] + euler[j] * lj[1],
            spin[2] + euler[j] * lj[2],
        )

    # attitude of the director frame, sign continuous with the previous step
    p = matrix_to_q(((n0[0], n1[0], n2[0]), (n0[1], n1[1], n2[1]), (n0[2], n1[2], n2[2])))
    if p[0] * y[0] + p[1] * y[1] + p[2] * y[2] + p[3] * y[3] < 0.0:
        p = (-p[0], -p[1], -p[2], -p[3])
    y_out[0], y_out[1], y_out[2], y_out[3] = p
    # body angular velocity of the projected velocities: Theta W = R^T L
    y_out[4] = dot(n0, spin) / inertia[0]
    y_out[5] = dot(n1, spin) / inertia[1]
    y_out[6] = dot(n2, spin) / inertia[2]
    return Status.OK


def _split(state: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    state = np.asarray(state, dtype=np.float64)
    if state.shape[-1] != DirEM.state_size:
        raise ValueError(
            f"DIR.EM states have {DirEM.state_size} entries in the last axis, got {state.shape}"
        )
    lead = state.shape[:-1]
    directors = state[..., DIRECTORS].reshape(*lead, 3, 3)
    velocities = state[..., VELOCITIES].reshape(*lead, 3, 3)
    return directors, velocities


def director_energy(
    state: ArrayLike,
    inertia: Sequence[float] | np.ndarray,
    potential: Sequence[float] | np.ndarray | None = None,
) -> np.ndarray:
    """``T = 1/2 sum D_i |v_i|^2`` (eq. 18) plus the heavy-top potential, from DIR.EM states."""
    directors, velocities = _split(state)
    euler = np.asarray(euler_tensor(tuple(float(x) for x in inertia)))
    energy = 0.5 * np.sum(euler * np.sum(velocities**2, axis=-1), axis=-1)
    if potential is not None and potential[0] != 0.0:
        com = np.asarray(potential[1:], dtype=np.float64)
        energy = energy + potential[0] * np.sum(com * directors[..., 2], axis=-1)
    return energy


def director_spin(state: ArrayLike, inertia: Sequence[float] | np.ndarray) -> np.ndarray:
    """``L = sum D_i d_i x v_i`` (eq. 23) from DIR.EM states, shape (..., 3)."""
    directors, velocities = _split(state)
    euler = np.asarray(euler_tensor(tuple(float(x) for x in inertia)))
    return np.sum(euler[:, None] * np.cross(directors, velocities), axis=-2)


@dataclass(frozen=True)
class DirEM(FreeRotationScheme):
    """Director-based energy-momentum scheme DIR.EM (Betsch & Steinmann 2001)."""

    order = 2
    preserves = frozenset({"director_energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = SchemeId.DIR_EM
    state_size = 25
    supports_potential = True

    def initial_state(
        self,
        inertia: np.ndarray,
        q0: np.ndarray,
        omega0: np.ndarray,
        dt: float,
        potential: np.ndarray,
    ) -> np.ndarray:
        """Directors ``d_i = R(q0) e_i`` and velocities ``v_i = R(q0) (omega0 x e_i)``."""
        y = super().initial_state(inertia, q0, omega0, dt, potential)
        r = quat_to_matrix(np.asarray(q0, dtype=np.float64))
        omega0 = np.asarray(omega0, dtype=np.float64)
        basis = np.eye(3)
        y[DIRECTORS] = r.T.reshape(9)
        y[VELOCITIES] = np.cross(omega0, basis).dot(r.T).reshape(9)
        return y
