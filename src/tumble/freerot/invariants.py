"""Invariants of torque-free rotation, evaluated on saved trajectories (batch first)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from tumble.rotation.quaternion import quat_rotate


def kinetic_energy(inertia: ArrayLike, omega: ArrayLike) -> np.ndarray:
    """Rotational kinetic energy ``T = 1/2 w . Theta w`` (Leine et al. 2021, eq. 13)."""
    omega = np.asarray(omega, dtype=np.float64)
    return 0.5 * np.sum(np.asarray(inertia) * omega * omega, axis=-1)


def spin_body(inertia: ArrayLike, omega: ArrayLike) -> np.ndarray:
    """Angular momentum in the body frame, ``Theta w``."""
    return np.asarray(inertia) * np.asarray(omega, dtype=np.float64)


def spin(inertia: ArrayLike, q: ArrayLike, omega: ArrayLike) -> np.ndarray:
    """Angular momentum in the inertial frame, ``A_IK Theta w`` (eq. 15)."""
    return quat_rotate(q, spin_body(inertia, omega))


def potential_energy(potential: ArrayLike, q: ArrayLike) -> np.ndarray:
    """``V(q) = M g e_z . (A_IK c)`` for ``potential = (M g, c_x, c_y, c_z)``; zero if M g = 0."""
    potential = np.asarray(potential, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if potential[0] == 0.0:
        return np.zeros(q.shape[:-1])
    c = np.broadcast_to(potential[1:], q.shape[:-1] + (3,))
    return potential[0] * quat_rotate(q, c)[..., 2]


def relative_drift(values: ArrayLike) -> np.ndarray:
    """``|x(t) - x(0)| / |x(0)|`` for a scalar or vector invariant sampled along a trajectory."""
    values = np.asarray(values, dtype=np.float64)
    ref = values[0]
    scale = np.linalg.norm(ref) if values.ndim > 1 else abs(ref)
    diff = values - ref
    num = np.linalg.norm(diff, axis=-1) if values.ndim > 1 else np.abs(diff)
    return num / (scale if scale > 0 else 1.0)
