"""Convergence studies: attitude error at a final time against the exact solution, fitted order."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble.freerot.exact import exact
from tumble.freerot.solve import integrate
from tumble.rotation.quaternion import quat_to_matrix


def attitude_error(q: ArrayLike, q_ref: ArrayLike) -> float:
    """``|| R_ref R^T - I ||_F`` (Betsch & Siebert 2009, section 5.1)."""
    r = quat_to_matrix(q)
    r_ref = quat_to_matrix(q_ref)
    return float(np.linalg.norm(r_ref @ r.T - np.eye(3)))


@dataclass(frozen=True)
class ConvergenceResult:
    scheme: str
    dts: np.ndarray
    errors: np.ndarray
    seconds_per_step: np.ndarray
    order: float


def convergence(
    scheme: str,
    inertia: ArrayLike,
    omega0: ArrayLike,
    steps: ArrayLike,
    t_end: float = 1.0,
    q0: ArrayLike = (1.0, 0.0, 0.0, 0.0),
) -> ConvergenceResult:
    """Attitude error at ``t_end`` for ``n`` steps of size ``t_end / n`` for each ``n`` in
    ``steps``, the CPU time per step, and the fitted log-log slope."""
    ref = exact(inertia, omega0, q0, np.array([0.0, t_end]))
    steps = np.asarray(steps, dtype=np.int64)
    errors, times = [], []
    dt_min = t_end / steps.min()
    integrate(scheme, inertia, omega0, q0, dt=dt_min, t_end=2 * dt_min)  # compile outside timing
    for n in steps:
        start = time.perf_counter()
        traj = integrate(scheme, inertia, omega0, q0, dt=t_end / n, t_end=t_end, save_every=int(n))
        times.append((time.perf_counter() - start) / n)
        errors.append(attitude_error(traj.q[-1], ref.q[-1]))
    dts = t_end / steps
    order = float(np.polyfit(np.log(dts), np.log(errors), 1)[0])
    return ConvergenceResult(scheme, dts, np.array(errors), np.array(times), order)
