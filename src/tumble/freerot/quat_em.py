"""QUAT.EM: the quaternion energy-momentum scheme of Betsch & Siebert 2009, section 4.

Configuration ``q`` in R^4 with the unit-length constraint ``g(q) = (q.q - 1)/2`` (eq. 37) and
the conjugate quaternion momentum ``p = M4(q) q'`` (section 4.1). The 4x4 mass matrix of eq. 32,
``M4(q) = 4 Ql(q) J4 Ql(q)^T``, is built from the extended inertia ``J4 = diag(J0, J1, J2, J3)``
with the free fourth moment ``J0 = tr(J)/2``; it is non-singular, so the Hamiltonian is
``H = 1/8 pi . J4^-1 pi + V(q) + lambda g(q)`` with the invariants ``pi = Ql(q)^T p = conj(q) p``
(eq. 46-48). With ``q' = 1/2 q (x) (0, Omega)`` (eq. 3) the Legendre map and its inverse are::

    p = 2 q (x) (0, J Omega),        Omega = 1/2 J^-1 G(q) p,        J = 1/2 E(q) p  (eq. 35, 45)

where ``G(q) p`` is the vector part of ``conj(q) (x) p`` and ``E(q) p`` that of ``p (x) conj(q)``;
``J`` is the spin in the inertial frame. The scheme is the Gonzalez discrete-gradient method of
eq. 51, in the form of eq. 52::

    q1 - q0 =  dt/8 Ql(qm) J4^-1 [Ql(q0)^T p0 + Ql(q1)^T p1]
    p1 - p0 = -dt/8 Ql(pm) J4^-1 [Ql(p0)^T q0 + Ql(p1)^T q1] - dt grad V(qm) - dt lambda qm
    0 = g(q1),        qm = (q0 + q1)/2,  pm = (p0 + p1)/2

Discrete null space method (section 4.5): premultiplying the momentum equation by ``G(qm)``
removes the constraint force (eq. 53, ``G(qm) qm = 0``), and the reparametrisation
``q1 = exp((0, theta/2)) (x) q0`` (eq. 54) satisfies the constraint identically. The seven
reduced equations (eq. 52_1 and 53) in the seven unknowns ``(theta, p1)`` are solved by the Newton
iteration of Appendix D (residual and tangent blocks ``K_q theta, K_qp, K_p theta, K_pp``, eq. D1,
with ``dq1 = 1/2 E(q1)^T H(theta) dtheta``, eq. D2). The 7x7 system is solved by block
elimination: ``K_qp = -dt/8 Ql(qm) J4^-1 Ql(q1)^T`` is inverted in closed form (Ql of a
quaternion is a multiple of an orthogonal matrix, eq. A4), which leaves a 3x3 Schur complement for
``dtheta`` (Cramer's rule). Convergence: ``|dtheta| <= tol`` (theta rotates a unit quaternion, so
this is relative) and ``|dp| <= tol (|p1| + 8 J0 / dt)``, where ``8 J0 / dt`` is the momentum
whose update moves the quaternion equation by one unit: below it the component of ``p`` along
``q`` (zero in exact arithmetic, eq. 40) is fixed only to round-off amplified by ``1/dt``.

Potential: for the heavy top ``V(q) = M g e_z . R(q) c`` (section 5.2, with the centre of mass
``c`` in the body frame, gravity along -z), so ``grad V(q) = -2 M g (0, e_z) (x) q (x) (0, c)``
(for ``c = L e_3`` this is the paper's ``-2 M g L e3bar E(q)^T e_3``). ``V`` is a quadratic form in
``q``, hence the midpoint gradient ``grad V(qm)`` that the paper chooses is an exact discrete
gradient, ``V(q1) - V(q0) = grad V(qm) . (q1 - q0)``, and the total energy stays exact.

Order 2. Exact invariants (Appendix C): the total energy, the spin vector (for the heavy top its
vertical component, the potential being invariant under rotations about e_z), the unit quaternion
(by eq. 54) and the hidden constraint ``q . p = 0`` (section 4.4). State: ``y[7:11] = p``; after
each step ``y[4:7]`` is set to ``Omega = 1/2 J^-1 G(q) p`` of the new state, so that the kinetic
energy and spin read from ``y[0:7]`` are those of ``(q, p)``.

Cost: as many Newton iterations as QUAT.VI or ALGO_C1 (3 to 4 per step), each about eight times
dearer (about 500 ns against 60-75 ns): the three Schur columns apply K_qq, K_pq, K_qp^-1 and K_pp
with the exponential's derivative, about forty quaternion products per iteration
(``benchmarks/freerot_intermediate.py``, ``docs/free_rotation.md``).

Betsch, P. & Siebert, R. (2009), Rigid body dynamics in terms of quaternions: Hamiltonian
formulation and conserving numerical integration, Int. J. Numer. Meth. Engng 79:444-473.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tumble._jit import jit
from tumble.freerot.base import OMEGA, PRIVATE, FreeRotationScheme, Q, SchemeId
from tumble.rotation.quaternion import Quat, q_conj, q_exp, q_mul, q_rotate
from tumble.rotation.vec3 import Vec3, Vec3Like, solve3
from tumble.status import Status

# ----------------------------------------------------------------------------------------------
# quaternion arithmetic on 4-tuples (R^4 as a vector space)


@jit
def q_add(a: Quat, b: Quat) -> Quat:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


@jit
def q_sub(a: Quat, b: Quat) -> Quat:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])


@jit
def q_scale(s: float, a: Quat) -> Quat:
    return (s * a[0], s * a[1], s * a[2], s * a[3])


@jit
def q_dot(a: Quat, b: Quat) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@jit
def q_len(a: Quat) -> float:
    return math.sqrt(q_dot(a, a))


@jit
def pure(v: Vec3) -> Quat:
    """The pure quaternion ``(0, v)``."""
    return (0.0, v[0], v[1], v[2])


@jit
def j4_inverse(inertia: Vec3Like, a: Quat) -> Quat:
    """``J4^-1 a`` with ``J4 = diag(tr(J)/2, J1, J2, J3)`` (section 4)."""
    j0 = 0.5 * (inertia[0] + inertia[1] + inertia[2])
    return (a[0] / j0, a[1] / inertia[0], a[2] / inertia[1], a[3] / inertia[2])


@jit
def j4_times(inertia: Vec3Like, a: Quat) -> Quat:
    """``J4 a``."""
    j0 = 0.5 * (inertia[0] + inertia[1] + inertia[2])
    return (a[0] * j0, a[1] * inertia[0], a[2] * inertia[1], a[3] * inertia[2])


# ----------------------------------------------------------------------------------------------
# Legendre map and potential


@jit
def quaternion_momentum(inertia: Vec3Like, q: Quat, omega: Vec3) -> Quat:
    """``p = M4(q) q' = 2 q (x) (0, J Omega)`` for ``q' = 1/2 q (x) (0, Omega)``, unit ``q``."""
    j_omega = (
        2.0 * inertia[0] * omega[0],
        2.0 * inertia[1] * omega[1],
        2.0 * inertia[2] * omega[2],
    )
    return q_mul(q, pure(j_omega))


@jit
def body_angular_velocity(inertia: Vec3Like, q: Quat, p: Quat) -> Vec3:
    """``Omega = 1/2 J^-1 G(q) p``, with ``G(q) p`` the vector part of ``conj(q) (x) p``."""
    pi = q_mul(q_conj(q), p)
    return (0.5 * pi[1] / inertia[0], 0.5 * pi[2] / inertia[1], 0.5 * pi[3] / inertia[2])


@jit
def gravity_gradient(potential: np.ndarray, x: Quat) -> Quat:
    """``grad V(x) = -2 M g (0, e_z) (x) x (x) (0, c)`` of ``V(q) = M g e_z . R(q) c``.

    ``V`` is the quadratic form of eq. 8 on all of R^4, so the gradient is linear in ``x`` and
    this function is also its Hessian applied to ``x``.
    """
    t = q_mul((0.0, 0.0, 0.0, 1.0), x)
    t = q_mul(t, (0.0, potential[1], potential[2], potential[3]))
    return q_scale(-2.0 * potential[0], t)


# ----------------------------------------------------------------------------------------------
# Newton iteration of Appendix D


@jit
def exp_tangent(theta: Vec3, v: Vec3) -> Vec3:
    """``H(theta) v`` of eq. D4: the tangent of ``exp((0, theta/2))`` in the spatial frame."""
    a2 = theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]
    a = math.sqrt(a2)
    if a < 1e-2:
        # Taylor series; the first neglected terms are below a^6 / 5040 < 2e-16
        c_sin = 1.0 - a2 / 6.0 + a2 * a2 / 120.0
        c_cos = 0.5 - a2 / 24.0 + a2 * a2 / 720.0
        c_sym = 1.0 / 6.0 - a2 / 120.0 + a2 * a2 / 5040.0
    else:
        c_sin = math.sin(a) / a
        c_cos = (1.0 - math.cos(a)) / a2
        c_sym = (1.0 - c_sin) / a2
    td = theta[0] * v[0] + theta[1] * v[1] + theta[2] * v[2]
    return (
        c_sin * v[0] + c_cos * (theta[1] * v[2] - theta[2] * v[1]) + c_sym * td * theta[0],
        c_sin * v[1] + c_cos * (theta[2] * v[0] - theta[0] * v[2]) + c_sym * td * theta[1],
        c_sin * v[2] + c_cos * (theta[0] * v[1] - theta[1] * v[0]) + c_sym * td * theta[2],
    )


@jit
def _residual_momentum(
    dt: float, potential: np.ndarray, p0: Quat, p1: Quat, qm: Quat, k4: Quat
) -> Quat:
    """``R_p`` of Appendix D: ``p1 - p0 + dt/8 Ql(pm) J4^-1 [...] + dt grad V(qm)``."""
    pm = q_scale(0.5, q_add(p0, p1))
    r = q_add(q_sub(p1, p0), q_scale(0.25 * dt, q_mul(pm, k4)))
    if potential[0] != 0.0:
        r = q_add(r, q_scale(dt, gravity_gradient(potential, qm)))
    return r


@jit
def _apply_k_qq(inertia: Vec3Like, dt: float, qm: Quat, p1: Quat, w4: Quat, dq: Quat) -> Quat:
    """``K_qq dq = dq - dt/8 (Qr(w4) dq + Ql(qm) J4^-1 conj(dq) (x) p1)``."""
    t = q_add(q_mul(dq, w4), q_mul(qm, j4_inverse(inertia, q_mul(q_conj(dq), p1))))
    return q_sub(dq, q_scale(0.125 * dt, t))


@jit
def _apply_k_pq(
    inertia: Vec3Like,
    dt: float,
    potential: np.ndarray,
    qm: Quat,
    pm: Quat,
    p1: Quat,
    r_p: Quat,
    dq: Quat,
) -> Vec3:
    """``K_pq dq``: derivative of ``G(qm) R_p`` with respect to ``q1`` (both ``qm`` and ``R_p``
    depend on ``q1``)."""
    d_rp = q_scale(0.125 * dt, q_mul(pm, j4_inverse(inertia, q_mul(q_conj(p1), dq))))
    if potential[0] != 0.0:
        d_rp = q_add(d_rp, q_scale(0.5 * dt, gravity_gradient(potential, dq)))
    t = q_add(q_mul(q_conj(qm), d_rp), q_scale(0.5, q_mul(q_conj(dq), r_p)))
    return (t[1], t[2], t[3])


@jit
def _apply_k_pp(
    inertia: Vec3Like, dt: float, qm: Quat, pm: Quat, q1: Quat, k4: Quat, dp: Quat
) -> Vec3:
    """``K_pp dp = G(qm) (dp + dt/8 (Qr(k4) dp + Ql(pm) J4^-1 conj(dp) (x) q1))``."""
    t = q_add(q_mul(dp, k4), q_mul(pm, j4_inverse(inertia, q_mul(q_conj(dp), q1))))
    t = q_mul(q_conj(qm), q_add(dp, q_scale(0.125 * dt, t)))
    return (t[1], t[2], t[3])


@jit
def _solve_k_qp(inertia: Vec3Like, dt: float, qm: Quat, q1: Quat, x: Quat) -> Quat:
    """``K_qp^-1 x`` for ``K_qp = -dt/8 Ql(qm) J4^-1 Ql(q1)^T``, using Ql(a)^-1 = Ql(a)^T/|a|^2."""
    s = -8.0 / (dt * q_dot(qm, qm) * q_dot(q1, q1))
    return q_scale(s, q_mul(q1, j4_times(inertia, q_mul(q_conj(qm), x))))


@jit
def _schur_column(
    inertia: Vec3Like,
    dt: float,
    potential: np.ndarray,
    theta: Vec3,
    q1: Quat,
    p1: Quat,
    qm: Quat,
    pm: Quat,
    w4: Quat,
    k4: Quat,
    r_p: Quat,
    j: int,
) -> Vec3:
    """Column ``j`` of the Schur complement ``K_p theta - K_pp K_qp^-1 K_q theta``."""
    e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
    dq = q_scale(0.5, q_mul(pure(exp_tangent(theta, e)), q1))  # eq. D2
    kq = _apply_k_qq(inertia, dt, qm, p1, w4, dq)
    kp = _apply_k_pq(inertia, dt, potential, qm, pm, p1, r_p, dq)
    kpp = _apply_k_pp(inertia, dt, qm, pm, q1, k4, _solve_k_qp(inertia, dt, qm, q1, kq))
    return (kp[0] - kpp[0], kp[1] - kpp[1], kp[2] - kpp[2])


@jit
def quat_em_solve(
    inertia: Vec3Like,
    q0: Quat,
    p0: Quat,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
) -> tuple[Quat, Quat, int]:
    """Solve eq. 52_1 and 53 for ``(q1, p1)``; returns ``(q1, p1, status)``."""
    pi0 = q_mul(q_conj(q0), p0)
    # predictor: rotate q0 and p0 together by dt times the spatial angular velocity at t0
    omega0 = (0.5 * pi0[1] / inertia[0], 0.5 * pi0[2] / inertia[1], 0.5 * pi0[3] / inertia[2])
    w_space = q_rotate(q0, omega0)
    theta = (dt * w_space[0], dt * w_space[1], dt * w_space[2])
    rot = q_exp(theta)
    q1 = q_mul(rot, q0)
    p1 = q_mul(rot, p0)
    p_floor = 8.0 * 0.5 * (inertia[0] + inertia[1] + inertia[2]) / dt
    for _ in range(max_iter):
        qm = q_scale(0.5, q_add(q0, q1))
        pm = q_scale(0.5, q_add(p0, p1))
        # Appendix D's omega = 1/2 J4^-1 (pi_n + pi_n+1) and k = 1/2 J4^-1 (Ql(p)^T q terms),
        # the latter being the conjugate of the former since Ql(p)^T q = conj(Ql(q)^T p)
        w4 = q_scale(0.5, j4_inverse(inertia, q_add(pi0, q_mul(q_conj(q1), p1))))
        k4 = q_conj(w4)
        r_q = q_sub(q_sub(q1, q0), q_scale(0.25 * dt, q_mul(qm, w4)))
        r_p = _residual_momentum(dt, potential, p0, p1, qm, k4)
        r2 = q_mul(q_conj(qm), r_p)
        # block elimination of eq. D1: dp = K_qp^-1 (-R_q - K_q theta dtheta), then
        # (K_p theta - K_pp K_qp^-1 K_q theta) dtheta = -G(qm) R_p + K_pp K_qp^-1 R_q
        rhs_p = _solve_k_qp(inertia, dt, qm, q1, q_scale(-1.0, r_q))
        kr = _apply_k_pp(inertia, dt, qm, pm, q1, k4, rhs_p)
        rhs = (-r2[1] - kr[0], -r2[2] - kr[1], -r2[3] - kr[2])
        c0 = _schur_column(inertia, dt, potential, theta, q1, p1, qm, pm, w4, k4, r_p, 0)
        c1 = _schur_column(inertia, dt, potential, theta, q1, p1, qm, pm, w4, k4, r_p, 1)
        c2 = _schur_column(inertia, dt, potential, theta, q1, p1, qm, pm, w4, k4, r_p, 2)
        schur = ((c0[0], c1[0], c2[0]), (c0[1], c1[1], c2[1]), (c0[2], c1[2], c2[2]))
        d_theta, ok = solve3(schur, rhs)
        if not ok:
            return q1, p1, Status.SINGULAR_MATRIX
        dq = q_scale(0.5, q_mul(pure(exp_tangent(theta, d_theta)), q1))
        kq = _apply_k_qq(inertia, dt, qm, p1, w4, dq)
        d_p = q_sub(rhs_p, _solve_k_qp(inertia, dt, qm, q1, kq))
        theta = (theta[0] + d_theta[0], theta[1] + d_theta[1], theta[2] + d_theta[2])
        p1 = q_add(p1, d_p)
        q1 = q_mul(q_exp(theta), q0)
        size_theta = math.sqrt(d_theta[0] ** 2 + d_theta[1] ** 2 + d_theta[2] ** 2)
        if size_theta <= tol and q_len(d_p) <= tol * (q_len(p1) + p_floor):
            return q1, p1, Status.OK
    return q1, p1, Status.NEWTON_NOT_CONVERGED


@jit
def quat_em_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    q0 = (y[0], y[1], y[2], y[3])
    p0 = (y[7], y[8], y[9], y[10])
    q1, p1, status = quat_em_solve(inertia, q0, p0, dt, tol, max_iter, potential)
    if status != Status.OK:
        return status
    omega1 = body_angular_velocity(inertia, q1, p1)
    y_out[0], y_out[1], y_out[2], y_out[3] = q1
    y_out[4], y_out[5], y_out[6] = omega1
    y_out[7], y_out[8], y_out[9], y_out[10] = p1
    return Status.OK


def momentum_state(inertia: np.ndarray, q0: np.ndarray, omega0: np.ndarray) -> np.ndarray:
    """The state ``(q0, Omega0, p0)`` of the quaternion schemes, with the conjugate momentum
    from the Legendre map ``p0 = 2 q0 (x) (0, J Omega0)`` as private state."""
    y = np.zeros(PRIVATE + 4)
    y[Q] = q0
    y[OMEGA] = omega0
    y[PRIVATE : PRIVATE + 4] = quaternion_momentum(
        (float(inertia[0]), float(inertia[1]), float(inertia[2])),
        (float(q0[0]), float(q0[1]), float(q0[2]), float(q0[3])),
        (float(omega0[0]), float(omega0[1]), float(omega0[2])),
    )
    return y


@dataclass(frozen=True)
class QuatEM(FreeRotationScheme):
    """Quaternion energy-momentum scheme (Betsch & Siebert 2009, eq. 51-54, Appendix D)."""

    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = SchemeId.QUAT_EM
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
        """``(q0, Omega0, p0)`` with the Legendre map ``p0 = 2 q0 (x) (0, J Omega0)``."""
        return momentum_state(inertia, q0, omega0)
