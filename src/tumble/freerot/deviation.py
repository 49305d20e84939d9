"""How far a scheme's trajectory is from the motion itself: invariants and the exact solution.

:func:`deviation_from_exact` evaluates the elliptic-function solution (:func:`tumble.freerot.exact`)
at a trajectory's sample times from its own initial state and measures what the scheme gets
wrong: the drift of the energy, of ``|L|`` and of the direction of ``L`` (all constant in the
motion), the distance of the angular velocity and of the attitude from the exact ones, and its
flips against those of the exact motion. The
movie of ``tumble spin --animate`` prints these on every frame of a scheme's film.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tumble.freerot.exact import exact
from tumble.freerot.flips import count_flips
from tumble.freerot.trajectory import Trajectory
from tumble.rotation.quaternion import quat_conj, quat_mul


@dataclass(frozen=True)
class Deviation:
    """What a torque-free trajectory gets wrong over its whole duration ``t_end`` (s).

    ``energy_drift`` and ``spin_norm_drift`` are the largest relative changes of the kinetic
    energy and of ``|L|``; ``spin_turn_deg`` the largest angle between ``L(t)`` and ``L(0)`` in
    the inertial frame; ``omega_error`` the largest ``|w - w_exact|`` (rad/s) and
    ``omega_scale`` the initial ``|w|`` it compares with; ``attitude_error_deg`` the largest
    angle of ``q_exact* (x) q``, ``final_attitude_error_deg`` that angle at ``t_end``;
    ``flips`` and ``exact_flips`` the flips of the trajectory and of the exact motion at the same
    instants (:mod:`tumble.freerot.flips`).
    """

    t_end: float
    energy_drift: float
    spin_norm_drift: float
    spin_turn_deg: float
    omega_error: float
    omega_scale: float
    attitude_error_deg: float
    final_attitude_error_deg: float
    flips: int
    exact_flips: int


def rotation_angle(q: np.ndarray, q_ref: np.ndarray) -> np.ndarray:
    """Angle (rad, in [0, pi]) of the rotation taking attitudes ``q_ref`` to ``q``, per row."""
    dq = quat_mul(quat_conj(q_ref), q)
    return 2.0 * np.arctan2(np.linalg.norm(dq[..., 1:], axis=-1), np.abs(dq[..., 0]))


def deviation_from_exact(trajectory: Trajectory) -> Deviation:
    """The :class:`Deviation` of a torque-free ``trajectory`` from the exact motion that starts
    from its first sample; ValueError for a heavy top (no exact solution here)."""
    if trajectory.potential[0] != 0.0:
        raise ValueError("the exact solution is for torque-free rotation; this run has a potential")
    t = np.asarray(trajectory.t, dtype=np.float64)
    ref = exact(trajectory.inertia, trajectory.omega[0], trajectory.q[0], t - t[0])
    energy = trajectory.energy()
    spin = trajectory.spin()
    norm = np.linalg.norm(spin, axis=-1)
    turn = np.arctan2(np.linalg.norm(np.cross(spin, spin[0]), axis=-1), spin @ spin[0])
    angle = rotation_angle(trajectory.q, ref.q)
    return Deviation(
        t_end=float(t[-1] - t[0]),
        energy_drift=float(np.abs(energy / energy[0] - 1.0).max()) if energy[0] > 0 else 0.0,
        spin_norm_drift=float(np.abs(norm / norm[0] - 1.0).max()) if norm[0] > 0 else 0.0,
        spin_turn_deg=math.degrees(float(turn.max())),
        omega_error=float(np.linalg.norm(trajectory.omega - ref.omega, axis=-1).max()),
        omega_scale=float(np.linalg.norm(trajectory.omega[0])),
        attitude_error_deg=math.degrees(float(angle.max())),
        final_attitude_error_deg=math.degrees(float(angle[-1])),
        flips=count_flips(trajectory),
        exact_flips=count_flips(ref),
    )
