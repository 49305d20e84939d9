"""ALGO_C1 of Simo & Wong 1991: the energy-momentum midpoint Lie algorithm for the free body.

The unknown is the incremental rotation vector ``Theta``, equal to the midpoint rule applied to
the body angular velocity::

    Theta = dt/2 (W0 + W1)
    R1 = R0 exp(Theta~)                     (q1 = q0 (x) exp(Theta / 2) in quaternions)
    Theta W1 = exp(Theta~)^T Theta W0        (Theta on the left: the inertia, diag(A, B, C))

Eliminating ``W1`` leaves three equations for ``Theta``, solved by Newton's method::

    F(Theta) = diag(A, B, C) Theta - dt/2 (m0 + c(Theta)) = 0,   m0 = Theta W0,
    c(Theta) = exp(-Theta~) m0,
    dF/dTheta = diag(A, B, C) - dt/2 c~ J_r(Theta),
    J_r(Theta) = 1 - (1 - cos t)/t^2 Theta~ + (t - sin t)/t^3 Theta~^2,   t = |Theta|

(``J_r`` is the right Jacobian of the exponential map: ``exp((Theta + dTheta)~) = exp(Theta~)
exp((J_r dTheta)~)`` to first order). The new body momentum is taken as the rotated ``c(Theta)``
itself, so that its magnitude and the spatial momentum ``R1 m1 = R0 m0`` hold to round-off.

Order 2. Exact invariants: the spatial angular momentum (hence its magnitude), the kinetic energy
(``m1 - m0`` is normal to ``Theta``, the axis of the rotation taking ``m0`` to ``m1``, so
``T1 - T0 = (m1 - m0) . Theta / dt = 0``) and the unit quaternion. Formulas as in
``physics/integrators.md``; compared with QUAT.EM in Betsch & Siebert 2009, section 5.1.2.

Simo, J. C., Wong, K. K. (1991). Unconditionally stable algorithms for rigid body dynamics that
exactly preserve energy and momentum. Int. J. Numer. Methods Eng. 31:19-52.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme, SchemeId
from tumble.rotation.quaternion import q_exp, q_mul, q_normalize, q_rotate_inverse
from tumble.rotation.vec3 import Vec3, Vec3Like, cross, mul_diag, norm, solve3
from tumble.status import Status


@jit
def right_jacobian_apply(theta: Vec3, v: Vec3) -> Vec3:
    """``J_r(theta) v`` for the right Jacobian of the exponential map of SO(3)."""
    t2 = theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]
    t = math.sqrt(t2)
    if t < 1e-2:
        # Taylor series; truncation below 1e-16 at t = 1e-2
        a = 0.5 - t2 / 24.0 + t2 * t2 / 720.0
        b = 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0
    else:
        a = (1.0 - math.cos(t)) / t2
        b = (t - math.sin(t)) / (t2 * t)
    tv = cross(theta, v)
    ttv = cross(theta, tv)
    return (
        v[0] - a * tv[0] + b * ttv[0],
        v[1] - a * tv[1] + b * ttv[1],
        v[2] - a * tv[2] + b * ttv[2],
    )


@jit
def incremental_rotation(
    inertia: Vec3Like, w0: Vec3, dt: float, tol: float, max_iter: int
) -> tuple[Vec3, Vec3, int]:
    """Solve ``F(Theta) = 0`` by Newton's method: returns ``(Theta, c(Theta), status)``.

    Convergence when the Newton update is below ``tol`` times |Theta| (or 1e-300).
    """
    m0 = mul_diag(inertia, w0)
    h = 0.5 * dt
    # predictor: midpoint of W0 and one explicit Euler step of Euler's equations
    g0 = cross(w0, m0)
    theta = (
        h * (2.0 * w0[0] - dt * g0[0] / inertia[0]),
        h * (2.0 * w0[1] - dt * g0[1] / inertia[1]),
        h * (2.0 * w0[2] - dt * g0[2] / inertia[2]),
    )
    for _ in range(max_iter):
        c = q_rotate_inverse(q_exp(theta), m0)
        r = (
            inertia[0] * theta[0] - h * (m0[0] + c[0]),
            inertia[1] * theta[1] - h * (m0[1] + c[1]),
            inertia[2] * theta[2] - h * (m0[2] + c[2]),
        )
        # columns of c~ J_r, one unit vector at a time
        k0 = cross(c, right_jacobian_apply(theta, (1.0, 0.0, 0.0)))
        k1 = cross(c, right_jacobian_apply(theta, (0.0, 1.0, 0.0)))
        k2 = cross(c, right_jacobian_apply(theta, (0.0, 0.0, 1.0)))
        jac = (
            (inertia[0] - h * k0[0], -h * k1[0], -h * k2[0]),
            (-h * k0[1], inertia[1] - h * k1[1], -h * k2[1]),
            (-h * k0[2], -h * k1[2], inertia[2] - h * k2[2]),
        )
        d, ok = solve3(jac, r)
        if not ok:
            return theta, c, Status.SINGULAR_MATRIX
        theta = (theta[0] - d[0], theta[1] - d[1], theta[2] - d[2])
        size = norm(theta)
        if norm(d) <= tol * size or size < 1e-300:
            return theta, q_rotate_inverse(q_exp(theta), m0), Status.OK
    return theta, c, Status.NEWTON_NOT_CONVERGED


@jit
def algo_c1_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    p0 = (y[0], y[1], y[2], y[3])
    w0 = (y[4], y[5], y[6])
    theta, m1, status = incremental_rotation(inertia, w0, dt, tol, max_iter)
    if status != Status.OK:
        return status
    p1 = q_normalize(q_mul(p0, q_exp(theta)))
    y_out[0], y_out[1], y_out[2], y_out[3] = p1
    y_out[4] = m1[0] / inertia[0]
    y_out[5] = m1[1] / inertia[1]
    y_out[6] = m1[2] / inertia[2]
    return Status.OK


@dataclass(frozen=True)
class AlgoC1(FreeRotationScheme):
    """Energy-momentum midpoint Lie algorithm ALGO_C1 (Simo & Wong 1991)."""

    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = SchemeId.ALGO_C1
