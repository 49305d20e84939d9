"""What every free-rotation run returns, and the validation of its inputs.

:class:`Trajectory` holds the saved samples of one body (from a stepping scheme or the exact
solution); :func:`validate_initial`, :func:`validate_potential` and :func:`step_count` check the
arguments of :func:`tumble.freerot.integrate` and :func:`tumble.freerot.exact` once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble.freerot.invariants import kinetic_energy, potential_energy, spin, spin_body

#: how far from 1 the norm of a given initial quaternion may be before it is refused
UNIT_TOLERANCE = 1e-6


@dataclass
class Trajectory:
    """Saved samples of one body: times, attitudes and body angular velocities.

    ``state`` holds the full state vectors of the scheme (private parts included) when produced
    by a stepping scheme; ``potential`` the heavy-top parameters, if any.
    """

    t: np.ndarray
    q: np.ndarray
    omega: np.ndarray
    inertia: np.ndarray
    scheme: str
    dt: float | None = None
    state: np.ndarray | None = None
    potential: np.ndarray = field(default_factory=lambda: np.zeros(4))

    def energy(self) -> np.ndarray:
        """Total energy: kinetic plus the potential energy of the heavy top, if any."""
        return kinetic_energy(self.inertia, self.omega) + potential_energy(self.potential, self.q)

    def spin(self) -> np.ndarray:
        """Angular momentum in the inertial frame, shape (n, 3)."""
        return spin(self.inertia, self.q, self.omega)

    def spin_body(self) -> np.ndarray:
        """Angular momentum in the body frame, shape (n, 3)."""
        return spin_body(self.inertia, self.omega)

    def quaternion_norm(self) -> np.ndarray:
        return np.linalg.norm(self.q, axis=-1)

    def __len__(self) -> int:
        return self.t.shape[0]


def validate_potential(potential: ArrayLike | None) -> np.ndarray:
    """``(M g, c_x, c_y, c_z)`` of a heavy top as an array; zeros for a free body (None)."""
    if potential is None:
        return np.zeros(4)
    arr = np.asarray(potential, dtype=np.float64)
    if arr.shape != (4,) or not np.all(np.isfinite(arr)):
        raise ValueError(
            "potential must be (M g, c_x, c_y, c_z): weight in N and the body-frame vector from "
            f"the fixed point to the centre of mass, got {potential!r}"
        )
    return arr


def validate_initial(
    inertia: ArrayLike, omega0: ArrayLike, q0: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``(inertia, omega0, q0)`` arrays; ``q0`` is normalised after the unit check."""
    inertia = _check.inertia(inertia)
    omega0 = _check.vectors(omega0, "omega0")
    if omega0.shape != (3,):
        raise ValueError(f"omega0 must have shape (3,), got {omega0.shape}")
    q0 = _check.quaternions(q0, "q0", unit_tol=UNIT_TOLERANCE)
    if q0.shape != (4,):
        raise ValueError(f"q0 must have shape (4,), got {q0.shape}")
    return inertia, omega0, q0 / np.linalg.norm(q0)


def step_count(dt: float, t_end: float) -> int:
    """Number of steps of size ``dt`` to reach ``t_end``; both must be positive and finite."""
    if not (isinstance(dt, int | float | np.floating) and math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number, got {dt!r}")
    if not (isinstance(t_end, int | float | np.floating) and math.isfinite(t_end) and t_end >= 0):
        raise ValueError(f"t_end must be a non-negative finite number, got {t_end!r}")
    return math.ceil(t_end / dt - 1e-9)
