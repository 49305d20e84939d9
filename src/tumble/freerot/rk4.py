"""Classical fourth-order Runge-Kutta on the Euler equations and the quaternion kinematics.

The right-hand side is Euler's equations ``Theta w' = -w x Theta w`` (Nakanishi 2024, eq. 1) and
``q' = 1/2 q (x) (0, w)`` (Nakanishi 2024, Eq. C; Leine et al. 2021, eq. 11). After each step the
quaternion is projected back to unit length, so the unit norm holds exactly; nothing else does.
This is the non-structure-preserving baseline: order 4, with energy and spin drifting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme, SchemeId
from tumble.rotation.quaternion import Quat, q_mul, q_normalize
from tumble.rotation.vec3 import Vec3, Vec3Like, cross, mul_diag
from tumble.status import Status


@jit
def _rhs(inertia: Vec3Like, p: Quat, w: Vec3) -> tuple[Quat, Vec3]:
    dq = q_mul(p, (0.0, 0.5 * w[0], 0.5 * w[1], 0.5 * w[2]))
    g = cross(w, mul_diag(inertia, w))
    dw = (-g[0] / inertia[0], -g[1] / inertia[1], -g[2] / inertia[2])
    return dq, dw


@jit
def _shift(p: Quat, w: Vec3, dq: Quat, dw: Vec3, h: float) -> tuple[Quat, Vec3]:
    return (
        (p[0] + h * dq[0], p[1] + h * dq[1], p[2] + h * dq[2], p[3] + h * dq[3]),
        (w[0] + h * dw[0], w[1] + h * dw[1], w[2] + h * dw[2]),
    )


@jit
def rk4_step(
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    p = (y[0], y[1], y[2], y[3])
    w = (y[4], y[5], y[6])
    dq1, dw1 = _rhs(inertia, p, w)
    p2, w2 = _shift(p, w, dq1, dw1, 0.5 * dt)
    dq2, dw2 = _rhs(inertia, p2, w2)
    p3, w3 = _shift(p, w, dq2, dw2, 0.5 * dt)
    dq3, dw3 = _rhs(inertia, p3, w3)
    p4, w4 = _shift(p, w, dq3, dw3, dt)
    dq4, dw4 = _rhs(inertia, p4, w4)
    s = dt / 6.0
    for i in range(4):
        y_out[i] = p[i] + s * (dq1[i] + 2.0 * dq2[i] + 2.0 * dq3[i] + dq4[i])
    for i in range(3):
        y_out[4 + i] = w[i] + s * (dw1[i] + 2.0 * dw2[i] + 2.0 * dw3[i] + dw4[i])
    p1 = q_normalize((y_out[0], y_out[1], y_out[2], y_out[3]))
    y_out[0], y_out[1], y_out[2], y_out[3] = p1
    return Status.OK


@dataclass(frozen=True)
class RK4(FreeRotationScheme):
    """Classical RK4 with quaternion projection (the baseline)."""

    order = 4
    preserves = frozenset({"unit_quaternion"})
    implicit = False
    scheme_id = SchemeId.RK4
