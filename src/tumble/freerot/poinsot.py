"""Poinsot's construction of torque-free rotation: the inertia ellipsoid rolling on a fixed plane.

Nakanishi 2024 (seed 002) states it in the two frames of the motion. In the body frame B of the
principal axes the inertia ellipsoid is::

    I_X X^2 + I_Y Y^2 + I_Z Z^2 = 1

and in the laboratory frame S the invariable plane is::

    r . L = sqrt(2 K)

with ``L`` the angular momentum (constant in S) and ``K`` the kinetic energy. The point::

    r_B = omega / sqrt(2 K)          (body frame),    r_S = R(q) r_B    (lab frame)

lies on both: ``I r_B . r_B = omega . I omega / (2 K) = 1`` and
``r_S . L = omega . I omega / sqrt(2 K) = sqrt(2 K)``. The ellipsoid's normal at ``r_B`` is
``I r_B``, parallel to ``L``, so the plane is tangent there; its normal is ``n = L / |L|`` and its
distance from the fixed centre ``d = sqrt(2 K) / |L|``. The material point of the body at
``r_S`` has the lab velocity ``omega_S x r_S = 0`` because ``r_S`` is parallel to ``omega_S``:
the ellipsoid rolls without slipping. ``r_B(t)`` traces the polhode on the ellipsoid and
``r_S(t)`` the herpolhode in the plane; the geometric contact point moves with
``dr_S/dt = R(q) dr_B/dt`` (the rolling term vanishes), ``dr_B/dt`` following from Euler's
equations (Nakanishi 2024, eq. 1).

In the body frame the angular momentum ``L_B = I omega`` lies on the momentum sphere
``|L_B| = G`` and on the energy ellipsoid ``L_X^2 / I_X + L_Y^2 / I_Y + L_Z^2 / I_Z = 2 K``; the
motion follows their intersection. With moments sorted ``I1 <= I2 <= I3`` and ``e = 2 K / G^2``,
a curve circulating about axis 3 (``1/I3 <= e <= 1/I2``) is, in polar form about that axis::

    L = G (rho cos phi, rho sin phi, +-sqrt(1 - rho^2)),
    rho^2 = (e - 1/I3) / (cos^2 phi / I1 + sin^2 phi / I2 - 1/I3)

and about axis 1 (``1/I2 <= e <= 1/I1``) the same with the axes 1 and 3 exchanged; at
``e = 1/I2`` (the separatrix) both forms give the two great circles through the intermediate
axis. Dividing by ``I sqrt(2 K)`` maps these curves onto the polhodes of the inertia ellipsoid.

Nakanishi, H. (2024), Free rotation of rigid body: mathematical formulation (seed 002);
Landau & Lifshitz, Mechanics, section 37.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import axis_order, principal_inertia
from tumble.freerot.trajectory import Trajectory
from tumble.rotation.quaternion import as_quaternions, as_vectors, quat_rotate

#: names of the initial axes, in the order of the principal moments (smallest first)
AxisName = Literal["minor", "intermediate", "major"]
AXES: tuple[str, ...] = get_args(AxisName)


@dataclass(frozen=True)
class PoinsotGeometry:
    """The Poinsot construction sampled along a trajectory (batch axis first, n samples).

    Attributes
    ----------
    inertia : (3,) principal moments.
    energy : (n,) kinetic energy K.
    spin : (n, 3) angular momentum L in the lab frame.
    spin_body : (n, 3) angular momentum in the body frame, ``I omega``.
    omega_lab : (n, 3) angular velocity in the lab frame.
    point_body : (n, 3) ``r_B = omega / sqrt(2 K)``, on the inertia ellipsoid (the polhode).
    point_lab : (n, 3) ``r_S = R(q) r_B``, the contact point on the plane (the herpolhode).
    plane_normal : (n, 3) unit normal ``L / |L|`` of the invariable plane.
    plane_distance : (n,) distance ``sqrt(2 K) / |L|`` of the plane from the centre.
    slip_velocity : (n, 3) lab velocity ``omega_S x r_S`` of the material point at the contact
        (zero: rolling without slipping).
    contact_velocity : (n, 3) lab velocity of the geometric contact point along the herpolhode,
        ``R(q) dr_B/dt`` with ``dr_B/dt`` from Euler's equations at constant K.

    For a scheme that conserves energy and spin, ``energy``, ``spin``, ``plane_normal`` and
    ``plane_distance`` are constant to round-off; otherwise they show the drift.
    """

    inertia: np.ndarray
    energy: np.ndarray
    spin: np.ndarray
    spin_body: np.ndarray
    omega_lab: np.ndarray
    point_body: np.ndarray
    point_lab: np.ndarray
    plane_normal: np.ndarray
    plane_distance: np.ndarray
    slip_velocity: np.ndarray
    contact_velocity: np.ndarray

    def __len__(self) -> int:
        return self.energy.shape[0]


def _validated_motion(
    inertia: ArrayLike, q: ArrayLike, omega: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    inertia = principal_inertia(inertia)
    q = np.atleast_2d(as_quaternions(q, "q"))
    omega = np.atleast_2d(as_vectors(omega, "omega"))
    if q.ndim != 2 or omega.ndim != 2 or q.shape[0] != omega.shape[0]:
        raise ValueError(
            f"q (n, 4) and omega (n, 3) must have the same number of samples, "
            f"got {q.shape} and {omega.shape}"
        )
    return inertia, q, omega


def euler_rhs(inertia: ArrayLike, omega: ArrayLike) -> np.ndarray:
    """``d omega / dt`` of torque-free rotation (Nakanishi 2024, eq. 1), batch first."""
    i = principal_inertia(inertia)
    w = np.asarray(omega, dtype=np.float64)
    out = np.empty_like(w)
    out[..., 0] = (i[1] - i[2]) / i[0] * w[..., 1] * w[..., 2]
    out[..., 1] = (i[2] - i[0]) / i[1] * w[..., 2] * w[..., 0]
    out[..., 2] = (i[0] - i[1]) / i[2] * w[..., 0] * w[..., 1]
    return out


def inertia_ellipsoid_point(inertia: ArrayLike, omega: ArrayLike) -> np.ndarray:
    """``omega / sqrt(2 K)``: where the rotation axis meets the inertia ellipsoid (body frame)."""
    inertia = principal_inertia(inertia)
    omega = as_vectors(omega, "omega")
    two_k = np.sum(inertia * omega * omega, axis=-1)
    if np.any(two_k <= 0.0):
        raise ValueError("the body is at rest (omega = 0): the Poinsot construction needs K > 0")
    return omega / np.sqrt(two_k)[..., None]


def poinsot_geometry(inertia: ArrayLike, q: ArrayLike, omega: ArrayLike) -> PoinsotGeometry:
    """The Poinsot construction for attitudes ``q`` (n, 4) and body angular velocities (n, 3)."""
    inertia, q, omega = _validated_motion(inertia, q, omega)
    two_k = np.sum(inertia * omega * omega, axis=-1)
    if np.any(two_k <= 0.0):
        raise ValueError("the body is at rest (omega = 0): the Poinsot construction needs K > 0")
    root = np.sqrt(two_k)
    spin_body = inertia * omega
    spin = quat_rotate(q, spin_body)
    spin_norm = np.linalg.norm(spin, axis=-1)
    omega_lab = quat_rotate(q, omega)
    point_body = omega / root[:, None]
    point_lab = quat_rotate(q, point_body)
    return PoinsotGeometry(
        inertia=inertia,
        energy=0.5 * two_k,
        spin=spin,
        spin_body=spin_body,
        omega_lab=omega_lab,
        point_body=point_body,
        point_lab=point_lab,
        plane_normal=spin / spin_norm[:, None],
        plane_distance=root / spin_norm,
        slip_velocity=np.cross(omega_lab, point_lab),
        contact_velocity=quat_rotate(q, euler_rhs(inertia, omega) / root[:, None]),
    )


def trajectory_geometry(trajectory: Trajectory) -> PoinsotGeometry:
    """:func:`poinsot_geometry` of a :class:`tumble.freerot.Trajectory`."""
    return poinsot_geometry(trajectory.inertia, trajectory.q, trajectory.omega)


def plane_basis(normal: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``(e1, e2)`` spanning the plane of unit ``normal``, ``e1 x e2 = normal``."""
    n = np.asarray(normal, dtype=np.float64)
    norm = float(np.linalg.norm(n))
    if n.shape != (3,) or not np.isfinite(norm) or norm == 0.0:
        raise ValueError(f"normal must be a non-zero 3-vector, got {normal!r}")
    n = n / norm
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    e1 = np.cross(helper, n)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


def herpolhode_coordinates(geometry: PoinsotGeometry, sample: int = 0) -> np.ndarray:
    """Herpolhode in the invariable plane of sample ``sample``: columns ``(u, v, h)``.

    ``u, v`` are coordinates in the plane (origin at the foot of the normal through the centre,
    basis :func:`plane_basis`) and ``h = r_S . n - d`` the height above the plane, zero for
    a scheme that conserves energy and spin.
    """
    n = geometry.plane_normal[sample]
    d = geometry.plane_distance[sample]
    e1, e2 = plane_basis(n)
    r = geometry.point_lab
    return np.column_stack([r @ e1, r @ e2, r @ n - d])


def _curve_about(inv: np.ndarray, e: float, axis: int, n_points: int) -> list[np.ndarray]:
    """Unit-sphere points of the curve ``sum x_i^2 inv_i = e`` circulating about ``axis``.

    ``inv`` are the inverse moments in sorted order; ``axis`` is 0 or 2; returns the two
    closed loops (both signs of the axis component).
    """
    a, b = (0, 1) if axis == 2 else (1, 2)
    phi = np.linspace(0.0, 2.0 * np.pi, n_points)
    c, s = np.cos(phi), np.sin(phi)
    denom = c * c * inv[a] + s * s * inv[b] - inv[axis]
    with np.errstate(divide="ignore", invalid="ignore"):
        rho2 = np.where(denom != 0.0, (e - inv[axis]) / denom, 1.0)
    rho2 = np.clip(rho2, 0.0, 1.0)
    rho = np.sqrt(rho2)
    height = np.sqrt(1.0 - rho2)
    loops = []
    for sign in (1.0, -1.0):
        x = np.empty((n_points, 3))
        x[:, a] = rho * c
        x[:, b] = rho * s
        x[:, axis] = sign * height
        loops.append(x)
    return loops


def momentum_energy_curves(
    inertia: ArrayLike, energy: float, spin_norm: float, n_points: int = 181
) -> list[np.ndarray]:
    """Intersection of the momentum sphere ``|L_B| = G`` with the energy ellipsoid of ``K``.

    Returns closed loops of body-frame angular momentum, each of shape (n_points, 3), in the
    caller's axis order (see the module docstring for the parametrisation). A state with
    ``2 K / G^2`` outside ``[1/I_max, 1/I_min]`` is impossible and raises ``ValueError``; for a
    spherical body every point of the sphere qualifies and an empty list is returned.
    """
    inertia = principal_inertia(inertia)
    energy, spin_norm = float(energy), float(spin_norm)
    if not (energy > 0.0 and spin_norm > 0.0 and math.isfinite(energy * spin_norm)):
        raise ValueError(f"energy and spin_norm must be positive, got {energy!r}, {spin_norm!r}")
    if n_points < 8:
        raise ValueError(f"n_points must be at least 8, got {n_points}")
    order = np.argsort(inertia, kind="stable")
    inv = 1.0 / inertia[order]
    e = 2.0 * energy / spin_norm**2
    span = inv[0] - inv[2]
    if span <= 1e-12 * inv[0]:
        return []
    slack = 1e-9 * span
    if not (inv[2] - slack <= e <= inv[0] + slack):
        raise ValueError(
            f"2K/|L|^2 = {e:.6g} lies outside [1/I_max, 1/I_min] = [{inv[2]:.6g}, {inv[0]:.6g}]: "
            "no motion has this energy and angular momentum"
        )
    e = min(max(e, inv[2]), inv[0])
    if abs(e - inv[1]) <= 1e-12 * span:
        e = inv[1]  # the separatrix, up to the round-off of 2K/G^2
    loops: list[np.ndarray] = []
    if e <= inv[1]:
        loops += _curve_about(inv, e, 2, n_points)
    if e >= inv[1]:
        loops += _curve_about(inv, e, 0, n_points)
    out = []
    for loop in loops:
        unsorted = np.empty_like(loop)
        unsorted[:, order] = loop
        out.append(spin_norm * unsorted)
    return out


def curve_family(
    inertia: ArrayLike, spin_norm: float, levels: int = 9, n_points: int = 121
) -> list[tuple[float, list[np.ndarray]]]:
    """Intersection curves for ``levels`` energies spread over the admissible range.

    Returns a list of ``(energy, loops)``; the separatrix energy ``G^2 / (2 I2)`` is always one of
    them, the others are equally spaced in ``2K/G^2`` on each side of it.
    """
    inertia = principal_inertia(inertia)
    spin_norm = float(spin_norm)
    if levels < 1:
        raise ValueError(f"levels must be at least 1, got {levels}")
    inv = np.sort(1.0 / inertia)  # 1/I_max, 1/I_mid, 1/I_min
    g2 = spin_norm * spin_norm
    side = max(levels // 2, 1)
    below = inv[0] + (inv[1] - inv[0]) * np.arange(1, side + 1) / (side + 1)
    above = inv[1] + (inv[2] - inv[1]) * np.arange(1, side + 1) / (side + 1)
    es = np.concatenate([below, [inv[1]], above])
    return [
        (0.5 * e * g2, momentum_energy_curves(inertia, 0.5 * e * g2, spin_norm, n_points))
        for e in es
    ]


def polhode_loops(
    inertia: ArrayLike, energy: float, spin_norm: float, n_points: int = 181
) -> list[np.ndarray]:
    """The polhode through a state of energy ``K`` and spin ``G``, on the inertia ellipsoid."""
    inertia = principal_inertia(inertia)
    root = math.sqrt(2.0 * float(energy))
    return [
        loop / (inertia * root)
        for loop in momentum_energy_curves(inertia, energy, spin_norm, n_points)
    ]


def near_axis_omega(
    inertia: ArrayLike, axis: str, rate: float, perturbation: float = 0.01
) -> np.ndarray:
    """Initial body angular velocity of magnitude ~``rate`` about the ``axis`` principal axis.

    ``axis`` is ``"minor"``, ``"intermediate"`` or ``"major"`` (smallest to largest moment);
    the other two components are ``perturbation * rate`` each.
    """
    if axis not in AXES:
        raise ValueError(f"axis must be one of {', '.join(AXES)}, got {axis!r}")
    rate, perturbation = float(rate), float(perturbation)
    if not (math.isfinite(rate) and rate > 0.0):
        raise ValueError(f"the spin rate must be positive (rad/s), got {rate!r}")
    if not (math.isfinite(perturbation) and perturbation >= 0.0):
        raise ValueError(f"the perturbation must be zero or positive, got {perturbation!r}")
    index = axis_order(inertia)[axis]
    omega = np.full(3, perturbation * rate)
    omega[index] = rate
    return omega
