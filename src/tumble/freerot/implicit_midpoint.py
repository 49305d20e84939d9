"""The stability-preserving implicit scheme of Leine et al. 2021, section 4.2.

Angular velocity by the implicit midpoint rule, eq. 61::

    Theta (w1 - w0) + dt wm x (Theta wm) = 0,     wm = (w0 + w1) / 2

solved by Newton's method with the 3x3 Jacobian ``Theta + dt/2 (wm~ Theta - (Theta wm)~)``
(Cramer's rule, no LAPACK), each Newton step followed by a chord step on the exactly known
quadratic remainder of the residual. A body with two equal principal moments ``A`` (axes i, j)
and ``C`` (the symmetry axis s) needs no iteration: the gyroscopic term ``wm x Theta wm`` has
no s component, so ``w1_s = w0_s``, and with ``wm_s`` known the i, j components of eq. 61 are
linear, a rotation of ``(w0_i, w0_j)`` by the Cayley transform of ``k = dt (C - A) wm_s / A``
(with a torque impulse ``M dt``, a 2x2 solve of determinant ``1 + k^2 / 4``), taken as ``w0``
plus an increment so that the energy keeps to round-off without drifting (the one rounding of
``1 / (1 + k^2 / 4)``, the same at every step of a free spin, then scales the increment only).
Orientation by the spin-preserving update, eq. 66-75::

    A1 = A0 exp(dt wm~) B(w0, w1),     B rotates Theta w1 onto exp(-dt wm~) Theta w0

where B is the rotation about ``k = b x c / |b x c|`` by the angle between ``b = Theta w1`` and
``c = exp(-dt wm~) Theta w0`` (eq. 74-75). In quaternions this is
``p1 = p0 (x) exp(dt wm / 2) (x) q_B`` with ``q_B`` proportional to ``(|b||c| + b.c, b x c)``,
which is eq. 74 without the trigonometric functions.

Order 2. Exact invariants: kinetic energy (eq. 62), spin magnitude (eq. 63), the spin vector in
the inertial frame (eq. 64, 68) and the unit quaternion; hence the Lyapunov functions of the
extended intermediate axis theorem are constant and the major and minor axes stay stable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tumble._jit import jit
from tumble.freerot.base import FreeRotationScheme, SchemeId
from tumble.rotation.quaternion import (
    Quat,
    q_between,
    q_exp,
    q_mul,
    q_normalize,
    q_rotate_inverse,
)
from tumble.rotation.vec3 import Vec3, Vec3Like, cross, dot, factor3, mul_diag, solve_factored
from tumble.status import Status


# all inlined into their callers (the rockfall step among them), so that their chains of
# divisions and roots are scheduled together with the caller's independent work
@jit(inline="always")
def symmetry_axes(inertia: Vec3Like) -> tuple[int, int, int]:
    """``(s, i, j)``: the symmetry axis ``s`` of a body with two equal principal moments and the
    axes ``i, j = s + 1, s + 2`` (mod 3) of the equal ones; ``s = -1`` if no two are equal."""
    if inertia[0] == inertia[1]:
        return 2, 0, 1
    if inertia[1] == inertia[2]:
        return 0, 1, 2
    if inertia[2] == inertia[0]:
        return 1, 2, 0
    return -1, 0, 0


@jit(inline="always")
def _axisymmetric_midpoint(inertia: Vec3Like, w0: Vec3, dt: float, torque_impulse: Vec3) -> Vec3:
    """The solution of eq. 61 (plus ``M dt``) for a body with two equal principal moments, in
    closed form (module docstring). ``s`` is the symmetry axis, ``(i, j) = (s + 1, s + 2)``
    (mod 3) the axes of the equal moments ``A``, ``C`` the moment about ``s``: the gyroscopic
    term has no ``s`` component, so ``w1_s = w0_s + M_s dt / C``; the ``i, j`` components are
    then linear, ``w1_i - w0_i + k wm_j = M_i dt / A`` and ``w1_j - w0_j - k wm_i = M_j dt / A``
    with ``k = dt (C - A) wm_s / A``, a 2x2 system of determinant ``1 + k^2 / 4``."""
    s, i, j = symmetry_axes(inertia)
    return axisymmetric_solution(
        inertia,
        w0,
        dt,
        (s, i, j),
        torque_impulse[s] / inertia[s],
        torque_impulse[i] / inertia[i],
        torque_impulse[j] / inertia[i],
    )


@jit(inline="always")
def axisymmetric_solution(
    inertia: Vec3Like,
    w0: Vec3,
    dt: float,
    axes: tuple[int, int, int],
    t_s: float,
    t_i: float,
    t_j: float,
) -> Vec3:
    """:func:`_axisymmetric_midpoint` with the torque impulse already divided by the moments,
    ``t_s = M_s dt / C``, ``t_i = M_i dt / A``, ``t_j = M_j dt / A``; ``axes = (s, i, j)``."""
    s, i, j = axes
    moment_a = inertia[i]
    moment_c = inertia[s]
    w1_s = w0[s] + t_s
    k = dt * (moment_c - moment_a) * (0.5 * (w0[s] + w1_s)) / moment_a
    half = 0.5 * k
    ai = w0[i] - half * w0[j] + t_i
    aj = w0[j] + half * w0[i] + t_j
    inv_det = 1.0 / (1.0 + half * half)
    # w1 = w0 + the increment, (t_i + h t_j - k aj) / det and (t_j - h t_i + k ai) / det: the
    # rounding of inv_det (the same number at every step of a free spin about s) then scales
    # only the small increment, and the energy does not drift with the step count
    w1_i = w0[i] + (t_i + half * t_j - k * aj) * inv_det
    w1_j = w0[j] + (t_j - half * t_i + k * ai) * inv_det
    if s == 2:
        return (w1_i, w1_j, w1_s)
    if s == 0:
        return (w1_s, w1_i, w1_j)
    return (w1_j, w1_s, w1_i)


@jit(inline="always")
def midpoint_omega(
    inertia: Vec3Like, w0: Vec3, dt: float, torque_impulse: Vec3, tol: float, max_iter: int
) -> tuple[Vec3, int]:
    """Solve eq. 61 (plus ``M dt`` on the right): returns ``(w1, status)``.

    A body with two equal principal moments (an axisymmetric rock such as EOTA221, a symmetric
    top) gets the closed-form solution of :func:`_axisymmetric_midpoint`; any other inertia is
    solved by Newton's method (:func:`newton_midpoint`), to ``tol`` relative to |w1|.
    """
    if symmetry_axes(inertia)[0] >= 0:
        return _axisymmetric_midpoint(inertia, w0, dt, torque_impulse), Status.OK
    return newton_midpoint(inertia, w0, dt, torque_impulse, tol, max_iter)


@jit(inline="always")
def free_midpoint_omega(
    inertia: Vec3Like, w0: Vec3, dt: float, tol: float, max_iter: int
) -> tuple[Vec3, int]:
    """:func:`midpoint_omega` without a torque impulse, for positive moments: the same numbers.
    The closed form takes the torque terms as the zeros that ``0 / A`` gives for a positive
    moment ``A`` instead of dividing (three divisions, one of them on the chain of the
    solution); Newton's method is called with a zero torque impulse as before."""
    s, i, j = symmetry_axes(inertia)
    if s >= 0:
        return axisymmetric_solution(inertia, w0, dt, (s, i, j), 0.0, 0.0, 0.0), Status.OK
    return newton_midpoint(inertia, w0, dt, (0.0, 0.0, 0.0), tol, max_iter)


@jit(inline="always")
def newton_midpoint(
    inertia: Vec3Like, w0: Vec3, dt: float, torque_impulse: Vec3, tol: float, max_iter: int
) -> tuple[Vec3, int]:
    """:func:`midpoint_omega` by Newton's method, for any inertia.

    The residual ``r(w1) = Theta (w1 - w0) + dt wm x Theta wm - M dt`` is quadratic in ``w1``, so
    after a Newton update ``delta`` the new residual is exactly ``dt/4 delta x Theta delta``.
    Each iteration therefore takes the Newton step and then one chord step on that known
    residual with the same factored Jacobian; the chord step costs a few multiplications and
    brings the error from O(|delta|^2) to O(|delta|^3). Convergence when the last correction is
    at most ``tol`` times |w1|.
    """
    a, b, c = inertia[0], inertia[1], inertia[2]
    # predictor: one explicit Euler step
    g0 = cross(w0, mul_diag(inertia, w0))
    w1 = (
        w0[0] + (torque_impulse[0] - dt * g0[0]) / a,
        w0[1] + (torque_impulse[1] - dt * g0[1]) / b,
        w0[2] + (torque_impulse[2] - dt * g0[2]) / c,
    )
    h = 0.5 * dt
    q = 0.25 * dt
    for _ in range(max_iter):
        wm = (0.5 * (w0[0] + w1[0]), 0.5 * (w0[1] + w1[1]), 0.5 * (w0[2] + w1[2]))
        lm = mul_diag(inertia, wm)
        g = cross(wm, lm)
        r = (
            a * (w1[0] - w0[0]) + dt * g[0] - torque_impulse[0],
            b * (w1[1] - w0[1]) + dt * g[1] - torque_impulse[1],
            c * (w1[2] - w0[2]) + dt * g[2] - torque_impulse[2],
        )
        # d(wm x Theta wm)/dwm = wm~ Theta - (Theta wm)~, times dwm/dw1 = 1/2
        jac = (
            (a, h * (-wm[2] * b + lm[2]), h * (wm[1] * c - lm[1])),
            (h * (wm[2] * a - lm[2]), b, h * (-wm[0] * c + lm[0])),
            (h * (-wm[1] * a + lm[1]), h * (wm[0] * b - lm[0]), c),
        )
        c0, c1, c2, inv_det, ok = factor3(jac)
        if not ok:
            return w1, Status.SINGULAR_MATRIX
        dw = solve_factored(c0, c1, c2, inv_det, r)
        w1 = (w1[0] - dw[0], w1[1] - dw[1], w1[2] - dw[2])
        # chord step on the exact new residual dt/4 dw x Theta dw
        r2 = cross(dw, mul_diag(inertia, dw))
        dw2 = solve_factored(c0, c1, c2, inv_det, (q * r2[0], q * r2[1], q * r2[2]))
        w1 = (w1[0] - dw2[0], w1[1] - dw2[1], w1[2] - dw2[2])
        if dot(dw2, dw2) <= tol * tol * dot(w1, w1) and dot(dw, dw) <= dot(w1, w1):
            return w1, Status.OK
    return w1, Status.NEWTON_NOT_CONVERGED


@jit(inline="always")
def _update_factors(w0: Vec3, w1: Vec3, inertia: Vec3Like, dt: float) -> tuple[Quat, Quat]:
    """``(exp(dt wm / 2), q_B)`` of eq. 66-75, q_B unnormalised (module docstring)."""
    wm = (0.5 * (w0[0] + w1[0]), 0.5 * (w0[1] + w1[1]), 0.5 * (w0[2] + w1[2]))
    q_rot = q_exp((dt * wm[0], dt * wm[1], dt * wm[2]))
    b = mul_diag(inertia, w1)
    c = q_rotate_inverse(q_rot, mul_diag(inertia, w0))
    if dot(b, b) == 0.0:
        return q_rot, (1.0, 0.0, 0.0, 0.0)
    # q_B of eq. 72-73 as the unnormalised (|b||c| + b.c, b x c): the final normalisation
    # scales it with the product (q_between normalises it first, an extra root)
    k = cross(b, c)
    nbc = math.sqrt(dot(b, b) * dot(c, c))
    w = nbc + dot(b, c)
    if w <= 1e-15 * nbc:
        return q_rot, q_between(b, c)  # antiparallel: q_between picks an axis
    return q_rot, (w, k[0], k[1], k[2])


@jit(inline="always")
def spin_preserving_update(p0: Quat, w0: Vec3, w1: Vec3, inertia: Vec3Like, dt: float) -> Quat:
    """Orientation update of eq. 66-75: ``p0 (x) exp(dt wm / 2) (x) q_B``, normalised."""
    q_rot, q_b = _update_factors(w0, w1, inertia, dt)
    return q_normalize(q_mul(q_mul(p0, q_rot), q_b))


@jit(inline="always")
def spin_preserving_increment(w0: Vec3, w1: Vec3, inertia: Vec3Like, dt: float) -> Quat:
    """The unit increment ``dq = exp(dt wm / 2) (x) q_B`` of eq. 66-75, so that the update is
    ``p1 = p0 (x) dq`` (:func:`spin_preserving_update` up to the order of the products)."""
    q_rot, q_b = _update_factors(w0, w1, inertia, dt)
    return q_normalize(q_mul(q_rot, q_b))


@jit(inline="always")
def free_precession(inertia: Vec3Like, w0: Vec3, dt: float) -> tuple[int, float, float]:
    """The step of the free axisymmetric midpoint rule as a rotation: returns ``(s, cos, sin)``,
    ``s`` the symmetry axis (-1 if no two moments are equal) and the angle ``phi`` by which
    :func:`_axisymmetric_midpoint` turns ``w`` about it without torque, ``w1 = R_s(phi) w0``.

    Its Cayley transform of ``k = dt (C - A) w0_s / A`` is the rotation with
    ``cos phi = (1 - k^2/4) / (1 + k^2/4)`` and ``sin phi = k / (1 + k^2/4)``.

    Every factor of the spin-preserving update commutes with a rotation ``R`` about ``s`` (it
    commutes with Theta), so the increment of ``R w0`` is the increment of ``w0`` conjugated by
    ``R``: from one step of a free flight to the next, the vector part of ``dq`` turns by
    ``phi`` about ``s`` and its scalar part stays (:func:`turn_increment`).
    """
    s, i, _ = symmetry_axes(inertia)
    if s < 0:
        return -1, 1.0, 0.0
    k = dt * (inertia[s] - inertia[i]) * w0[s] / inertia[i]
    half = 0.5 * k
    inv = 1.0 / (1.0 + half * half)
    return s, (1.0 - half * half) * inv, k * inv


@jit(inline="always")
def turn_increment(dq: Quat, s: int, cos: float, sin: float) -> Quat:
    """``R dq R*`` for the rotation ``R`` by ``phi`` about axis ``s`` (:func:`free_precession`):
    the components ``i, j = s + 1, s + 2`` (mod 3) of the vector part turn by ``phi``."""
    if s == 2:
        return (dq[0], cos * dq[1] - sin * dq[2], sin * dq[1] + cos * dq[2], dq[3])
    if s == 0:
        return (dq[0], dq[1], cos * dq[2] - sin * dq[3], sin * dq[2] + cos * dq[3])
    return (dq[0], sin * dq[3] + cos * dq[1], dq[2], cos * dq[3] - sin * dq[1])


@jit
def implicit_step(
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
    w1, status = midpoint_omega(inertia, w0, dt, (0.0, 0.0, 0.0), tol, max_iter)
    if status != Status.OK:
        return status
    p1 = spin_preserving_update(p0, w0, w1, inertia, dt)
    y_out[0], y_out[1], y_out[2], y_out[3] = p1
    y_out[4], y_out[5], y_out[6] = w1
    return Status.OK


@dataclass(frozen=True)
class Implicit(FreeRotationScheme):
    """Implicit midpoint with spin-preserving orientation update (Leine et al. 2021, eq. 61-75)."""

    order = 2
    preserves = frozenset({"energy", "spin_norm", "spin", "unit_quaternion"})
    implicit = True
    scheme_id = SchemeId.IMPLICIT
