"""The heavy symmetric top in steady precession: Betsch & Siebert 2009, section 5.2.

A solid cone of height ``H``, base radius ``R`` and density ``rho`` stands on its tip, which is
fixed at the origin; gravity acts along ``-e_z``. Mass, distance from the tip to the centre of
mass and the principal moments about the tip (section 5.2, parallel-axis theorem for ``J1``)::

    M = rho pi R^2 H / 3,     L = 3 H / 4,
    J1 = J2 = 3 M / 80 (4 R^2 + H^2) + M L^2,     J3 = 3 M R^2 / 10.

The potential is ``V(q) = M g L d3(q) . e_z`` with ``d3 = R(q) e3``, in the form of
:func:`tumble.freerot.integrate` ``potential = (M g, 0, 0, L)``. The paper's data are the defaults
of :class:`HeavyTop`: ``H = 0.1``, ``R = 0.05``, ``rho = 2700``, ``g = 9.81``, nutation angle
``theta0 = pi/3`` and precession rate ``w_p = 10`` rad/s (section 5.2.1).

Steady precession (no nutation). The symmetry axis keeps the angle ``theta0`` to the vertical
and turns about ``e_z`` at ``w_p``, while the top spins about it at ``w_s``, so the spatial
angular velocity is ``w = w_p e_z + w_s d3`` (section 5.2.1). Start tilted by ``theta0`` about
``e_x``: ``q0 = (cos theta0/2, sin theta0/2 e_x)``, ``d3(0) = (0, -sin theta0, cos theta0)`` and,
since ``R(q0)^T e_z = (0, sin theta0, cos theta0)``, the body angular velocity is::

    Omega0 = R(q0)^T w = (0, w_p sin theta0, w_p cos theta0 + w_s).

The spin about the tip, ``L_s = R(q0) J Omega0``, has ``L_s,y = sin theta0 ((J1 - J3) w_p
cos theta0 - J3 w_s)``. In steady precession it turns rigidly with the precession, ``dL_s/dt =
w_p e_z x L_s = (-w_p L_s,y, 0, 0)``, which must equal the gravity torque ``L d3 x (-M g e_z) =
(M g L sin theta0, 0, 0)``. Solved for the spin rate (Moon 1998, section 5.3, quoted in section
5.2.1)::

    w_s = M g L / (J3 w_p) + (J1 - J3) / J3 w_p cos theta0.

The whole motion is then the composition of the two uniform rotations,
``q(t) = exp(w_p t e_z / 2) (x) q0 (x) exp(w_s t e3 / 2)`` (:meth:`HeavyTop.attitude`), and the
centre of mass ``phi = L d3`` runs on the circle of radius ``L sin theta0`` in the plane
``z = L cos theta0`` (section 5.2.3)::

    phi_ref(t) = L sin theta0 sin(w_p t) e1 - L sin theta0 cos(w_p t) e2 + L cos theta0 e3.

The accuracy measure of the paper is ``e = |phi_ref - phi| / |phi_ref|`` at ``t = 1``
(:meth:`HeavyTop.centre_of_mass_error`). Total energy and the vertical component of the spin are
first integrals (section 5.2.2).

Betsch, P. & Siebert, R. (2009), Rigid body dynamics in terms of quaternions: Hamiltonian
formulation and conserving numerical integration, Int. J. Numer. Meth. Engng 79:444-473.
Moon, F.C. (1998), Applied Dynamics, Wiley.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble.freerot.base import FreeRotationScheme
from tumble.freerot.solve import integrate
from tumble.freerot.trajectory import Trajectory
from tumble.rotation.quaternion import quat_exp, quat_mul, quat_rotate


@dataclass(frozen=True)
class HeavyTop:
    """A solid cone on its fixed tip, set up for steady precession (SI units, radians).

    The defaults are the top of Betsch & Siebert 2009, section 5.2.

    >>> top = HeavyTop()
    >>> q0, omega0 = top.initial_state()
    >>> traj = top.integrate("quat_em", dt=0.01, t_end=1.0)
    >>> error = top.centre_of_mass_error(traj)[-1]
    """

    height: float = 0.1
    radius: float = 0.05
    density: float = 2700.0
    gravity: float = 9.81
    theta0: float = math.pi / 3.0
    precession_rate: float = 10.0

    def __post_init__(self) -> None:
        _check.strict_positive(self.height, "height")
        _check.strict_positive(self.radius, "radius")
        _check.strict_positive(self.density, "density")
        g = self.gravity
        if not (isinstance(g, int | float | np.floating) and math.isfinite(g) and g >= 0):
            raise ValueError(f"gravity must be a non-negative finite number, got {g!r}")
        theta = self.theta0
        if not (isinstance(theta, int | float | np.floating) and 0.0 < theta < math.pi):
            raise ValueError(
                "theta0 (the angle of the symmetry axis to the vertical) must lie strictly "
                f"between 0 and pi, got {theta!r}"
            )
        w_p = self.precession_rate
        if not (isinstance(w_p, int | float | np.floating) and math.isfinite(w_p) and w_p != 0):
            raise ValueError(f"precession_rate must be a finite non-zero rate, got {w_p!r}")

    # -- the body --------------------------------------------------------------------------

    @property
    def mass(self) -> float:
        """``M = rho pi R^2 H / 3`` (kg)."""
        return self.density * math.pi * self.radius**2 * self.height / 3.0

    @property
    def arm(self) -> float:
        """``L = 3 H / 4``, the distance from the fixed tip to the centre of mass (m)."""
        return 0.75 * self.height

    @property
    def inertia(self) -> np.ndarray:
        """Principal moments about the tip ``(J1, J1, J3)`` (kg m^2)."""
        m, r, h = self.mass, self.radius, self.height
        j1 = 3.0 * m / 80.0 * (4.0 * r * r + h * h) + m * self.arm**2
        j3 = 3.0 * m * r * r / 10.0
        return np.array([j1, j1, j3])

    @property
    def potential(self) -> np.ndarray:
        """``(M g, c_x, c_y, c_z) = (M g, 0, 0, L)`` for :func:`tumble.freerot.integrate`."""
        return np.array([self.mass * self.gravity, 0.0, 0.0, self.arm])

    # -- steady precession -----------------------------------------------------------------

    @property
    def spin_rate(self) -> float:
        """``w_s = M g L / (J3 w_p) + (J1 - J3) / J3 w_p cos theta0`` (rad/s)."""
        j1, _, j3 = self.inertia
        w_p = self.precession_rate
        return self.mass * self.gravity * self.arm / (j3 * w_p) + (j1 - j3) / j3 * w_p * math.cos(
            self.theta0
        )

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q0, Omega0)``: the attitude tilted by ``theta0`` about ``e_x`` and the body
        angular velocity ``(0, w_p sin theta0, w_p cos theta0 + w_s)`` of steady precession."""
        half = 0.5 * self.theta0
        q0 = np.array([math.cos(half), math.sin(half), 0.0, 0.0])
        w_p = self.precession_rate
        omega0 = np.array(
            [0.0, w_p * math.sin(self.theta0), w_p * math.cos(self.theta0) + self.spin_rate]
        )
        return q0, omega0

    def attitude(self, t: ArrayLike) -> np.ndarray:
        """The exact attitude ``exp(w_p t e_z / 2) (x) q0 (x) exp(w_s t e3 / 2)``, shape (n, 4)."""
        t = _times(t)
        q0, _ = self.initial_state()
        axis = np.array([0.0, 0.0, 1.0])
        precession = quat_exp(self.precession_rate * t[:, None] * axis)
        spin = quat_exp(self.spin_rate * t[:, None] * axis)
        return quat_mul(quat_mul(precession, q0), spin)

    def centre_of_mass(self, t: ArrayLike) -> np.ndarray:
        """``phi_ref(t) = (x, y, z)`` of the analytic precession (section 5.2.3), shape (n, 3)."""
        t = _times(t)
        radius = self.arm * math.sin(self.theta0)
        phase = self.precession_rate * t
        return np.stack(
            [
                radius * np.sin(phase),
                -radius * np.cos(phase),
                np.full_like(t, self.arm * math.cos(self.theta0)),
            ],
            axis=-1,
        )

    # -- simulations -----------------------------------------------------------------------

    def integrate(
        self,
        scheme: str | FreeRotationScheme,
        dt: float,
        t_end: float,
        save_every: int = 1,
        **settings: Any,
    ) -> Trajectory:
        """:func:`tumble.freerot.integrate` from the steady-precession start with gravity."""
        q0, omega0 = self.initial_state()
        return integrate(
            scheme,
            self.inertia,
            omega0,
            q0,
            dt=dt,
            t_end=t_end,
            save_every=save_every,
            potential=self.potential,
            **settings,
        )

    def centre_of_mass_of(self, q: ArrayLike) -> np.ndarray:
        """``phi = L R(q) e3`` for attitudes ``q`` of shape (n, 4) or (4,)."""
        q = np.asarray(q, dtype=np.float64)
        return quat_rotate(q, np.broadcast_to([0.0, 0.0, self.arm], q.shape[:-1] + (3,)))

    def centre_of_mass_error(self, traj: Trajectory) -> np.ndarray:
        """``e(t) = |phi_ref(t) - phi(t)| / |phi_ref|`` along a trajectory (section 5.2.3)."""
        phi = self.centre_of_mass_of(traj.q)
        return np.linalg.norm(phi - self.centre_of_mass(traj.t), axis=-1) / self.arm


def _times(t: ArrayLike) -> np.ndarray:
    t = np.atleast_1d(np.asarray(t, dtype=np.float64))
    if t.ndim != 1 or not np.all(np.isfinite(t)):
        raise ValueError(f"t must be a finite scalar or 1-D array of times, got shape {t.shape}")
    return t


#: the top of Betsch & Siebert 2009, section 5.2
BETSCH_SIEBERT_TOP = HeavyTop()
