"""QUAT.VI: the quaternion variational integrator of Betsch & Siebert 2009, Appendix E.

The discrete Lagrangian (after Leyendecker et al., Wendlandt & Marsden) evaluates the quaternion
kinetic energy (eq. 29, mass matrix eq. 32) at the midpoint with the difference quotient::

    L_d(q0, q1) = dt T((q0 + q1)/2, (q1 - q0)/dt) - dt V((q0 + q1)/2)

which, on unit quaternions, reduces to ``T_d = 1/(2 dt) q1 . M4~(q0) q1 = 1/(2 dt) q0 . M4~(q1) q0``
with the singular ``M4~(q) = 4 G(q)^T J G(q)`` of Remark 4.1. The scheme is the discrete
Euler-Lagrange equation with the constraint force ``dt q_n lambda_n`` (eq. E1)::

    D2 L_d(q_{n-1}, q_n) + D1 L_d(q_n, q_{n+1}) - dt q_n lambda_n = 0,      |q_{n+1}| = 1
    D1 L_d(q0, q1) = 1/dt M4~(q1) q0 - dt/2 grad V(qm)
    D2 L_d(q0, q1) = 1/dt M4~(q0) q1 - dt/2 grad V(qm),        qm = (q0 + q1)/2

a two-step recursion in ``q``. It is carried as a one-step map on ``(q_n, mu_n)`` with the
discrete momentum ``mu_n = D2 L_d(q_{n-1}, q_n)`` in ``y[7:11]`` (this is the discrete Legendre
transform; it replaces ``q_{n-1}``). A step solves ``mu_n + D1 L_d(q_n, q_{n+1}) - dt q_n lambda_n
= 0`` for ``q_{n+1}`` and ``lambda_n`` and sets ``mu_{n+1} = D2 L_d(q_n, q_{n+1})``; inserting
``mu_n`` gives back eq. E1. The start ``mu_0 = p_0 = 2 q0 (x) (0, J Omega0)`` (the continuous
Legendre map) reproduces the paper's initialisation ``p_0 = -D1 L_d(q0, q1) + dt/2 q0 lambda_0``
exactly: the multiplier is free, so its factor dt/2 instead of dt only rescales it.

Solution of a step: premultiplying by ``G(q_n)`` removes the constraint force (``G(q) q = 0``,
eq. A1), and writing ``q_{n+1} = q_n (x) r`` with the body-frame increment ``r = (r0, r_v)``,
``r0 = sqrt(1 - |r_v|^2)``, keeps the unit length. With ``Pi_n = G(q_n) mu_n`` (the vector part of
``conj(q_n) (x) mu_n``), ``b = R(q_n)^T e_z`` and ``s = (1 + r0, r_v)`` the three equations are::

    Pi_n - 4/dt (r0 J r_v + r_v x J r_v) + dt M g/2 vec((0, b) (x) s (x) (0, c)) = 0

solved for ``r_v`` by Newton's method (3x3 Jacobian, Cramer's rule) to ``|dr_v| <= tol`` (``r``
is a unit quaternion, so this is relative). Then
``mu_{n+1} = 4/dt q_n (x) (0, J r_v) + dt M g/2 (0, e_z) (x) (q_n + q_{n+1}) (x) (0, c)``.
The body angular velocity written to ``y[4:7]`` is ``Omega_n = 1/2 J^-1 G(q_n) mu_n`` (the inverse
continuous Legendre map of :mod:`tumble.freerot.quat_em`). A step depends on ``mu_n`` only through
``Pi_n = 2 J Omega_n``. Quantities read off a quaternion (``Pi_n``, ``Omega_n``, the momentum map)
are divided by its norm, 1 up to round-off, so that round-off in the norm does not accumulate.

Order 2. Exact invariants: the discrete angular momentum map
``J^-(q_n, q_{n+1}) = 1/2 E(q_n) p^-_{n,n+1} = 1/2 E(q_n) mu_n`` (Appendix E; ``E(q) q = 0``
removes the multiplier), i.e. the vector part of ``mu_n (x) conj(q_n)`` over 2, for a free body
(its vertical component for the heavy top), and the unit quaternion. Since
``R(q_n) J Omega_n = 1/2 E(q_n) mu_n`` identically, the spin read from ``y[0:7]`` is this momentum
map, so the spin vector and its norm are kept as well. For the free body the kinetic energy
``1/8 Pi . J^-1 Pi`` is kept too: a step maps ``Pi_n = 4/dt (r0 a + r_v x a)`` to
``Pi_{n+1} = 4/dt (r0 a - r_v x a)`` with ``a = J r_v``, and both have the J^-1-norm
``(4/dt)^2 (r0^2 r_v . a + (r_v x a) . J^-1 (r_v x a))`` because ``(r_v x a) . J^-1 a = 0``
(as for the discrete Moser-Veselov scheme). With a potential the energy is only bounded. In
float64 the kept energy drifts by about 0.6 units of round-off per step, with a sign (7e-13 after
5000 steps, 7e-12 after 50 000): the rounding of the step's arithmetic is biased; in 34-digit
arithmetic the same steps keep it to 1e-30, whatever the Newton tolerance
(``benchmarks/quat_vi_roundoff.py``, ``docs/free_rotation.md``).

Betsch, P. & Siebert, R. (2009), Rigid body dynamics in terms of quaternions: Hamiltonian
formulation and conserving numerical integration, Int. J. Numer. Meth. Engng 79:444-473.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble._jit import jit
from tumble.freerot.base import PRIVATE, FreeRotationScheme, Q, SchemeId
from tumble.freerot.quat_em import momentum_state, q_add, q_dot, q_scale
from tumble.freerot.trajectory import Trajectory
from tumble.rotation.quaternion import (
    Quat,
    q_conj,
    q_mul,
    q_normalize,
    q_rotate_inverse,
    quat_conj,
    quat_mul,
)
from tumble.rotation.vec3 import Vec3, Vec3Like, cross, mul_diag, solve3
from tumble.status import Status


@jit
def _gravity_term(
    potential: np.ndarray, b: Vec3, r_v: Vec3, r0: float, d_r0: float, coef: float
) -> Vec3:
    """``coef vec((0, b) (x) s (x) (0, c))`` with ``s = (d_r0 + r0, r_v)``."""
    t = q_mul((0.0, b[0], b[1], b[2]), (d_r0 + r0, r_v[0], r_v[1], r_v[2]))
    t = q_mul(t, (0.0, potential[1], potential[2], potential[3]))
    return (coef * t[1], coef * t[2], coef * t[3])


@jit
def _jac_column(
    inertia: Vec3Like,
    potential: np.ndarray,
    b: Vec3,
    r_v: Vec3,
    r0: float,
    jr: Vec3,
    k: float,
    g_coef: float,
    gravity: bool,
    j: int,
) -> Vec3:
    """Column ``j`` of the Jacobian of the reduced equations with respect to ``r_v``."""
    e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
    d_r0 = -r_v[j] / r0
    je = mul_diag(inertia, e)
    rxje = cross(r_v, je)
    exjr = cross(e, jr)
    col = (
        -k * (r0 * je[0] + d_r0 * jr[0] + rxje[0] + exjr[0]),
        -k * (r0 * je[1] + d_r0 * jr[1] + rxje[1] + exjr[1]),
        -k * (r0 * je[2] + d_r0 * jr[2] + rxje[2] + exjr[2]),
    )
    if gravity:
        # derivative of s = (1 + r0, r_v) along e_j is (d_r0, e_j)
        gv = _gravity_term(potential, b, e, 0.0, d_r0, g_coef)
        col = (col[0] + gv[0], col[1] + gv[1], col[2] + gv[2])
    return col


@jit
def quat_vi_solve(
    inertia: Vec3Like,
    q0: Quat,
    mu0: Quat,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
) -> tuple[Quat, int]:
    """Solve the reduced eq. E1 for the body increment ``r``; returns ``(r, status)``."""
    pi = q_mul(q_conj(q0), mu0)
    s = 1.0 / math.sqrt(q_dot(q0, q0))
    pi_n = (s * pi[1], s * pi[2], s * pi[3])
    b = q_rotate_inverse(q0, (0.0, 0.0, 1.0))
    gravity = potential[0] != 0.0
    g_coef = 0.5 * dt * potential[0]
    k = 4.0 / dt
    # predictor: half the rotation vector dt Omega_n
    h = 0.25 * dt
    r_v = (h * pi_n[0] / inertia[0], h * pi_n[1] / inertia[1], h * pi_n[2] / inertia[2])
    for _ in range(max_iter):
        n2 = r_v[0] * r_v[0] + r_v[1] * r_v[1] + r_v[2] * r_v[2]
        if n2 >= 1.0:
            return (1.0, 0.0, 0.0, 0.0), Status.NO_SOLUTION
        r0 = math.sqrt(1.0 - n2)
        jr = mul_diag(inertia, r_v)
        gyro = cross(r_v, jr)
        f = (
            pi_n[0] - k * (r0 * jr[0] + gyro[0]),
            pi_n[1] - k * (r0 * jr[1] + gyro[1]),
            pi_n[2] - k * (r0 * jr[2] + gyro[2]),
        )
        if gravity:
            gv = _gravity_term(potential, b, r_v, r0, 1.0, g_coef)
            f = (f[0] + gv[0], f[1] + gv[1], f[2] + gv[2])
        # dF/dr_v = -k (r0 J - J r_v (x) r_v / r0 + r_v~ J - (J r_v)~) + gravity part
        c0 = _jac_column(inertia, potential, b, r_v, r0, jr, k, g_coef, gravity, 0)
        c1 = _jac_column(inertia, potential, b, r_v, r0, jr, k, g_coef, gravity, 1)
        c2 = _jac_column(inertia, potential, b, r_v, r0, jr, k, g_coef, gravity, 2)
        jac = ((c0[0], c1[0], c2[0]), (c0[1], c1[1], c2[1]), (c0[2], c1[2], c2[2]))
        d, ok = solve3(jac, f)
        if not ok:
            return (r0, r_v[0], r_v[1], r_v[2]), Status.SINGULAR_MATRIX
        r_v = (r_v[0] - d[0], r_v[1] - d[1], r_v[2] - d[2])
        if math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= tol:
            n2 = r_v[0] * r_v[0] + r_v[1] * r_v[1] + r_v[2] * r_v[2]
            if n2 >= 1.0:
                return (1.0, 0.0, 0.0, 0.0), Status.NO_SOLUTION
            return (math.sqrt(1.0 - n2), r_v[0], r_v[1], r_v[2]), Status.OK
    return (1.0, 0.0, 0.0, 0.0), Status.NEWTON_NOT_CONVERGED


@jit
def quat_vi_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    q0 = (y[0], y[1], y[2], y[3])
    mu0 = (y[7], y[8], y[9], y[10])
    r, status = quat_vi_solve(inertia, q0, mu0, dt, tol, max_iter, potential)
    if status != Status.OK:
        return status
    # |q_{n+1}| = 1 in exact arithmetic; normalising stops the round-off of |q| from piling up
    q1 = q_normalize(q_mul(q0, r))
    # mu_{n+1} = D2 L_d(q_n, q_{n+1}) = 1/dt M4~(q_n) q_{n+1} - dt/2 grad V(qm). The factor
    # |r| / |q_n| (1 in exact arithmetic) keeps the momentum map free of the round-off in these
    # norms, which would otherwise accumulate into a drift of the momentum map.
    f = 4.0 / dt * math.sqrt(q_dot(r, r) / q_dot(q0, q0))
    mu1 = q_mul(q0, (0.0, f * inertia[0] * r[1], f * inertia[1] * r[2], f * inertia[2] * r[3]))
    if potential[0] != 0.0:
        t = q_mul((0.0, 0.0, 0.0, 1.0), q_add(q0, q1))
        t = q_mul(t, (0.0, potential[1], potential[2], potential[3]))
        mu1 = q_add(mu1, q_scale(0.5 * dt * potential[0], t))
    pi = q_mul(q_conj(q1), mu1)
    s = 0.5 / math.sqrt(q_dot(q1, q1))
    omega1 = (s * pi[1] / inertia[0], s * pi[2] / inertia[1], s * pi[3] / inertia[2])
    y_out[0], y_out[1], y_out[2], y_out[3] = q1
    y_out[4], y_out[5], y_out[6] = omega1
    y_out[7], y_out[8], y_out[9], y_out[10] = mu1
    return Status.OK


def discrete_momentum_map(q: ArrayLike, mu: ArrayLike) -> np.ndarray:
    """``J = 1/2 E(q_n) mu_n``, the vector part of ``mu_n (x) conj(q_n)`` over 2 (Appendix E).

    ``q`` and ``mu`` have shape (n, 4); the result has shape (n, 3).
    """
    q = np.asarray(q, dtype=np.float64)
    scale = 0.5 / np.linalg.norm(q, axis=-1, keepdims=True)
    return scale * quat_mul(mu, quat_conj(q))[..., 1:]


@dataclass(frozen=True)
class QuatVI(FreeRotationScheme):
    """Quaternion variational integrator (Betsch & Siebert 2009, Appendix E)."""

    order = 2
    preserves = frozenset({"energy", "momentum_map", "spin", "spin_norm", "unit_quaternion"})
    implicit = True
    scheme_id = SchemeId.QUAT_VI
    state_size = 11
    supports_potential = True

    def initial_state(
        self,
        inertia: np.ndarray,
        q0: np.ndarray,
        omega0: np.ndarray,
        dt: float,
        potential: np.ndarray,
    ) -> np.ndarray:
        """``(q0, Omega0, mu0)`` with ``mu0 = p0 = 2 q0 (x) (0, J Omega0)``."""
        return momentum_state(inertia, q0, omega0)

    def momentum_map(self, traj: Trajectory) -> np.ndarray:
        """The discrete momentum map of every saved sample of a QUAT.VI trajectory, (n, 3)."""
        state = getattr(traj, "state", None)
        if state is None or state.ndim != 2 or state.shape[1] != self.state_size:
            raise ValueError(
                f"momentum_map needs the full state of a {self.name} trajectory "
                f"(shape (n, {self.state_size})), got {None if state is None else state.shape}"
            )
        return discrete_momentum_map(state[:, Q], state[:, PRIVATE : PRIVATE + 4])
