"""The manifold of steady rotation and its Lyapunov function (Leine et al. 2021, section 3).

A steady rotation about the principal axis ``e_*`` (body frame) at rate ``Omega`` has constant
body angular velocity ``w_* = Omega e_*`` and attitude ``A_IK*(t) = A_IK*(0) exp(t w_*~)``
(eq. 18); the spin axis keeps the inertial direction ``A_IK*(0) e_*``. The paper takes
``e_* = e3`` and ``A_IK*(0) = I``; here ``e_*`` is any principal axis and ``A_IK*(0)`` the
attitude of the trajectory at a reference instant (its first sample unless given), so that the
steady rotation starts where the motion starts. Distance to the manifold is measured by

    d(t)     = A_KI(t) A_IK*(0) e_* - e_*       (eq. 20: body-frame difference of the spin axes)
    alpha(t) = w(t) - Omega e_*                (eq. 24: difference of the angular velocities)

and the manifold of steady rotation is ``d = 0, alpha = 0`` (eq. 26). With ``C`` the moment about
``e_*`` and ``Theta = diag(A, B, C)`` (any axis order; ``alpha_*`` is the component along ``e_*``)
the Lyapunov function of the extended intermediate axis theorem is ``V = V_bar + V_hat``
(eq. 35-36) with

    V_bar = |Theta alpha - C Omega d|^2 = |N_S - N_S*|^2                      (eq. 30-32)

the squared distance of the spin from the spin of the steady rotation, and

    V_hat = s alpha . (C Theta - Theta^2) alpha
            + (alpha . Theta alpha + 2 C Omega alpha_*)^2 / Omega^2

with ``s = +1`` about the major axis (C >= max of the others, eq. 33-34) and ``s = -1`` about
the minor axis (C <= min of the others, eq. 38).

The first term of ``V_hat`` is ``+-(2 C T - |N_S|^2)`` and the bracket of the second is
``2 T - 2 T_*`` (eq. 33), so ``V`` is built from the invariants alone and is constant along every
exact motion; it is written here in the expanded form in ``alpha`` (eq. 34, 38) so that no
cancellation between large invariants occurs. For the major axis the coefficients ``A (C - A)``
and ``B (C - B)`` are non-negative, for the minor axis ``A (A - C)`` and ``B (B - C)``; ``V`` is
then locally positive definite in ``(d, alpha)`` (Theorems 3.1 and 3.2). About the intermediate
axis no such function exists (the rotation is unstable, eq. 44).

Leine, R.I., Capobianco, G., Bartelt, P., Christen, M. & Caviezel, A. (2021), Stability of rigid
body motion through an extended intermediate axis theorem: application to rockfall simulation,
Multibody Syst. Dyn. 52:431-455.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import axis_order, principal_inertia
from tumble.freerot.trajectory import Trajectory
from tumble.rotation.quaternion import as_quaternions, as_vectors, quat_rotate

#: principal axes by name, smallest to largest moment
AXIS_NAMES = ("minor", "intermediate", "major")


def resolve_axis(inertia: ArrayLike, axis: int | str) -> int:
    """Index 0, 1 or 2 of a principal axis given by index or by name (``"major"``, ...)."""
    if isinstance(axis, str):
        if axis not in AXIS_NAMES:
            raise ValueError(
                f"axis must be 0, 1, 2 or one of {', '.join(AXIS_NAMES)}; got {axis!r}"
            )
        return axis_order(inertia)[axis]
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer) or not 0 <= axis <= 2:
        raise ValueError(f"axis must be 0, 1, 2 or one of {', '.join(AXIS_NAMES)}; got {axis!r}")
    principal_inertia(inertia)
    return int(axis)


def lyapunov_form(inertia: ArrayLike, axis: int | str) -> str:
    """``"major"`` if the moment about ``axis`` is the largest, ``"minor"`` if the smallest.

    The intermediate axis has no Lyapunov function (it is unstable) and raises ``ValueError``.
    """
    inertia = principal_inertia(inertia)
    k = resolve_axis(inertia, axis)
    c = inertia[k]
    others = np.delete(inertia, k)
    if c >= others.max():
        return "major"
    if c <= others.min():
        return "minor"
    raise ValueError(
        f"axis {k} (moment {c:.6g}) is the intermediate axis of {inertia.tolist()}: rotation about "
        "it is unstable and has no Lyapunov function"
    )


def _axis_index(axis: Any) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer) or not 0 <= axis <= 2:
        raise ValueError(f"axis must be the index 0, 1 or 2 of a principal axis, got {axis!r}")
    return int(axis)


def _rate(rate: Any) -> float:
    if not (isinstance(rate, int | float | np.floating) and np.isfinite(rate) and rate != 0.0):
        raise ValueError(f"rate must be a finite non-zero angular velocity (rad/s), got {rate!r}")
    return float(rate)


def axis_deviation(q: ArrayLike, axis: int, q_ref: ArrayLike | None = None) -> np.ndarray:
    """``d = A_KI(t) A_IK*(0) e_* - e_*`` (eq. 20) for attitudes ``q`` of shape (n, 4) or (4,).

    ``q_ref`` is the attitude ``A_IK*(0)`` of the steady rotation; by default the first sample
    of ``q`` (for a single quaternion, the identity as in the paper).
    """
    q = as_quaternions(q, "q")
    k = _axis_index(axis)
    if q_ref is None:
        q_ref = q[0] if q.ndim == 2 else np.array([1.0, 0.0, 0.0, 0.0])
    q_ref = as_quaternions(q_ref, "q_ref", unit_tol=1e-6)
    if q_ref.shape != (4,):
        raise ValueError(f"q_ref must be one quaternion of shape (4,), got {q_ref.shape}")
    e_star = np.zeros(3)
    e_star[k] = 1.0
    spin_axis = quat_rotate(q_ref / np.linalg.norm(q_ref), e_star)
    return quat_rotate(q, np.broadcast_to(spin_axis, q.shape[:-1] + (3,)), inverse=True) - e_star


def rate_deviation(omega: ArrayLike, axis: int, rate: float) -> np.ndarray:
    """``alpha = w - Omega e_*`` (eq. 24) for body angular velocities of shape (n, 3) or (3,)."""
    omega = as_vectors(omega, "omega")
    k = _axis_index(axis)
    alpha = omega.copy()
    alpha[..., k] -= _rate(rate)
    return alpha


def manifold_coordinates(
    q: ArrayLike, omega: ArrayLike, axis: int, rate: float, q_ref: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The error coordinates ``(d, alpha)`` of eq. 20 and 24 along a trajectory."""
    return axis_deviation(q, axis, q_ref), rate_deviation(omega, axis, rate)


def lyapunov_parts(
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    d: ArrayLike,
    alpha: ArrayLike,
    form: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(V_bar, V_hat)`` of eq. 32 and eq. 34 (major axis) or eq. 38 (minor axis).

    ``form`` is ``"major"`` or ``"minor"``; by default it follows from the moments
    (:func:`lyapunov_form`). ``d`` and ``alpha`` have shape (..., 3).
    """
    inertia = principal_inertia(inertia)
    k = resolve_axis(inertia, axis)
    omega_ = _rate(rate)
    form = lyapunov_form(inertia, k) if form is None else form
    if form not in ("major", "minor"):
        raise ValueError(f"form must be 'major' or 'minor', got {form!r}")
    d = as_vectors(d, "d")
    alpha = as_vectors(alpha, "alpha")
    c = inertia[k]
    v_bar = np.sum((inertia * alpha - c * omega_ * d) ** 2, axis=-1)
    sign = 1.0 if form == "major" else -1.0
    quadratic = sign * np.sum(inertia * (c - inertia) * alpha * alpha, axis=-1)
    energy_gap = np.sum(inertia * alpha * alpha, axis=-1) + 2.0 * c * omega_ * alpha[..., k]
    v_hat = quadratic + energy_gap**2 / omega_**2
    return v_bar, v_hat


def lyapunov(
    inertia: ArrayLike,
    axis: int | str,
    rate: float,
    d: ArrayLike,
    alpha: ArrayLike,
    form: str | None = None,
) -> np.ndarray:
    """``V = V_bar + V_hat`` (eq. 35-38), constant along exact torque-free motions."""
    v_bar, v_hat = lyapunov_parts(inertia, axis, rate, d, alpha, form)
    return v_bar + v_hat


def lyapunov_along(
    traj: Trajectory,
    axis: int | str,
    rate: float | None = None,
    form: str | None = None,
    q_ref: ArrayLike | None = None,
) -> np.ndarray:
    """``V(t)`` along a :class:`tumble.freerot.Trajectory` about the principal axis ``axis``.

    ``rate`` defaults to the initial angular velocity component about that axis.
    """
    k = resolve_axis(traj.inertia, axis)
    rate = float(traj.omega[0, k]) if rate is None else rate
    d, alpha = manifold_coordinates(traj.q, traj.omega, k, rate, q_ref)
    return lyapunov(traj.inertia, k, rate, d, alpha, form)
