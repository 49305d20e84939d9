"""The explicit (pseudo-implicit) scheme of RAMMS::ROCKFALL, Leine et al. 2021, section 4.1.

Angular velocity, eq. 45-46, with ``G(w) = Theta w~ + w~ Theta`` (skew-symmetric)::

    Theta (w1 - w0) + dt/2 G(w0) (w1 + w0) = 0
    =>  (Theta + dt/2 G(w0)) w1 = (Theta - dt/2 G(w0)) w0        (3x3 solve, Cramer's rule)

Orientation, eq. 47, a two-half-step quaternion update with ``F(p) w = 1/(2|p|) p (x) (0, w)``
(eq. 11-12)::

    p_half = p0 + dt/2 F(p0) w0
    p_pre  = p_half + dt/2 F(p_half) w1,     p1 = p_pre / |p_pre|

Order 1 in general (the gyroscopic term is frozen at w0). Exact invariants: the kinetic energy
(eq. 48-49, skew symmetry of G) and the unit norm of the quaternion. The spin is not kept, and
Leine et al. prove (eq. 51-60) that rotation about the major axis becomes unstable for every dt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme, SchemeId
from tumble.rotation.quaternion import Quat, q_mul, q_norm, q_normalize
from tumble.rotation.vec3 import Vec3, Vec3Like, matvec, solve3
from tumble.status import Status


@jit
def explicit_omega(
    inertia: Vec3Like, w0: Vec3, dt: float, torque_impulse: Vec3
) -> tuple[Vec3, bool]:
    """Solve eq. 45 (with ``M dt`` on the right): returns ``(w1, ok)``.

    ``torque_impulse`` is the body-frame torque times dt (zero for free rotation); it enters as
    in eq. 80 of the rockfall scheme.
    """
    a, b, c = inertia[0], inertia[1], inertia[2]
    h = 0.5 * dt
    wx, wy, wz = w0
    # G(w)_ij = (I_i + I_j) (w~)_ij
    gxy = -(a + b) * wz
    gxz = (a + c) * wy
    gyz = -(b + c) * wx
    m_plus = ((a, h * gxy, h * gxz), (-h * gxy, b, h * gyz), (-h * gxz, -h * gyz, c))
    m_minus = ((a, -h * gxy, -h * gxz), (h * gxy, b, -h * gyz), (h * gxz, h * gyz, c))
    rhs = matvec(m_minus, w0)
    rhs = (rhs[0] + torque_impulse[0], rhs[1] + torque_impulse[1], rhs[2] + torque_impulse[2])
    return solve3(m_plus, rhs)


@jit
def quaternion_half_step(p: Quat, w: Vec3, h: float) -> Quat:
    """``p + h F(p) w`` with ``F(p) w = p (x) (0, w) / (2 |p|)`` (Leine et al. 2021, eq. 11-12)."""
    d = q_mul(p, (0.0, w[0], w[1], w[2]))
    f = 0.5 * h / q_norm(p)
    return (p[0] + f * d[0], p[1] + f * d[1], p[2] + f * d[2], p[3] + f * d[3])


@jit
def explicit_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    w0 = (y[4], y[5], y[6])
    p0 = (y[0], y[1], y[2], y[3])
    w1, ok = explicit_omega(inertia, w0, dt, (0.0, 0.0, 0.0))
    if not ok:
        return Status.SINGULAR_MATRIX
    p_half = quaternion_half_step(p0, w0, 0.5 * dt)
    p1 = q_normalize(quaternion_half_step(p_half, w1, 0.5 * dt))
    y_out[0], y_out[1], y_out[2], y_out[3] = p1
    y_out[4], y_out[5], y_out[6] = w1
    return Status.OK


@dataclass(frozen=True)
class Explicit(FreeRotationScheme):
    """RAMMS explicit scheme (Leine et al. 2021, eq. 45-47)."""

    order = 1
    preserves = frozenset({"energy", "unit_quaternion"})
    implicit = False
    scheme_id = SchemeId.EXPLICIT
