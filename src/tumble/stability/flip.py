"""Flips of the Dzhanibekov effect: predicted from the elliptic solution, measured in simulations.

Near the intermediate axis the body rotates for a while, turns over and rotates the other way
round. In the elliptic-function solution (:mod:`tumble.freerot.exact`) the intermediate-axis
component of ``w`` is ``A2 sn(lam t + tau0 | k^2)``, which changes sign every half period of
``sn``::

    flip_period = 2 K(k) / lam

(``K`` the complete elliptic integral of the first kind, ``lam`` the frequency of the elliptic
argument). :func:`flip_period` and :func:`elliptic_parameters` are those of
:mod:`tumble.freerot.exact`, re-exported. :func:`flip_times` measures the instants of the sign
changes in a simulated trajectory, to compare each scheme's flips with the exact ones.
"""

from __future__ import annotations

import numpy as np

from tumble.bodies.inertia import axis_order
from tumble.freerot.exact import elliptic_parameters, flip_period
from tumble.freerot.trajectory import Trajectory
from tumble.stability.manifold import resolve_axis

__all__ = ["count_flips", "elliptic_parameters", "flip_intervals", "flip_period", "flip_times"]


def flip_times(traj: Trajectory, axis: int | str | None = None) -> np.ndarray:
    """Instants at which the ``axis`` component of ``traj.omega`` changes sign.

    ``traj`` has ``t`` (n,), ``omega`` (n, 3) and ``inertia`` (a :class:`tumble.freerot.
    Trajectory`); ``axis`` defaults to the intermediate principal axis. Each instant is found by
    linear interpolation between the two samples around the sign change (error ``O(dt^2)``); a
    sample exactly zero counts once.
    """
    t = np.asarray(traj.t, dtype=np.float64)
    omega = np.asarray(traj.omega, dtype=np.float64)
    if t.ndim != 1 or omega.shape != (t.shape[0], 3):
        raise ValueError(f"trajectory needs t (n,) and omega (n, 3), got {t.shape}, {omega.shape}")
    k = (
        axis_order(traj.inertia)["intermediate"]
        if axis is None
        else resolve_axis(traj.inertia, axis)
    )
    w = omega[:, k]
    nonzero = np.flatnonzero(w != 0.0)
    if nonzero.size < 2:
        return np.empty(0)
    w_nz, t_nz = w[nonzero], t[nonzero]
    change = np.flatnonzero(np.sign(w_nz[1:]) != np.sign(w_nz[:-1]))
    t0, t1 = t_nz[change], t_nz[change + 1]
    w0, w1 = w_nz[change], w_nz[change + 1]
    return t0 + (t1 - t0) * w0 / (w0 - w1)


def flip_intervals(traj: Trajectory, axis: int | str | None = None) -> np.ndarray:
    """Time between successive flips (:func:`flip_times`)."""
    return np.diff(flip_times(traj, axis))


def count_flips(traj: Trajectory, axis: int | str | None = None) -> int:
    """Number of sign changes of the ``axis`` component of ``omega`` (intermediate by default)."""
    return int(flip_times(traj, axis).shape[0])
