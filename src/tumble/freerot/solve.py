"""The one driver of all free-rotation schemes: validation, the compiled time loop, saving.

:func:`integrate` validates the input, builds the scheme's initial state, runs the compiled loop
:func:`_run` (which dispatches on the scheme id to the scheme's step kernel) and packages the
saved samples as a :class:`Trajectory`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from tumble._jit import jit
from tumble.bodies.inertia import principal_inertia
from tumble.errors import ConfigError
from tumble.freerot.algo_c1 import algo_c1_step
from tumble.freerot.base import OMEGA, FreeRotationScheme, Q, SchemeId
from tumble.freerot.dir_em import dir_em_step
from tumble.freerot.exact import exact
from tumble.freerot.explicit import explicit_step
from tumble.freerot.implicit_midpoint import implicit_step
from tumble.freerot.quat_em import quat_em_step
from tumble.freerot.quat_vi import quat_vi_step
from tumble.freerot.registry import get_scheme
from tumble.freerot.rk4 import rk4_step
from tumble.freerot.trajectory import (
    Trajectory,
    step_plan,
    validate_initial,
    validate_potential,
)
from tumble.status import KernelError, Status

#: kernel constants of the scheme ids (numba reads module-level ints as compile-time constants)
_EXPLICIT = int(SchemeId.EXPLICIT)
_IMPLICIT = int(SchemeId.IMPLICIT)
_QUAT_EM = int(SchemeId.QUAT_EM)
_QUAT_VI = int(SchemeId.QUAT_VI)
_DIR_EM = int(SchemeId.DIR_EM)
_ALGO_C1 = int(SchemeId.ALGO_C1)
_RK4 = int(SchemeId.RK4)


@jit
def _step_dispatch(
    scheme_id: int,
    inertia: np.ndarray,
    y: np.ndarray,
    dt: float,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    y_out: np.ndarray,
) -> int:
    if scheme_id == _EXPLICIT:
        return explicit_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _IMPLICIT:
        return implicit_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _QUAT_EM:
        return quat_em_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _QUAT_VI:
        return quat_vi_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _DIR_EM:
        return dir_em_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _ALGO_C1:
        return algo_c1_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == _RK4:
        return rk4_step(inertia, y, dt, tol, max_iter, potential, y_out)
    return Status.NO_SOLUTION


@jit
def _run(
    scheme_id: int,
    inertia: np.ndarray,
    y0: np.ndarray,
    dt: float,
    n_steps: int,
    save_every: int,
    tol: float,
    max_iter: int,
    potential: np.ndarray,
    out: np.ndarray,
    last_dt: float = 0.0,
) -> tuple[int, int]:
    """Advance ``n_steps`` steps of ``dt`` and, if ``last_dt > 0``, one more of ``last_dt``,
    saving every ``save_every``-th state into ``out`` and the final state into the last row of
    ``out`` when it has one more row than those.

    Returns ``(status, steps_done)``; on failure the rows after the last good sample are left
    untouched and the wrapper discards them. Finiteness is checked at every saved sample and at
    the end (NaN propagates, so nothing is missed; ``steps_done`` then names the sample).
    """
    y = y0.copy()
    y_new = np.empty_like(y0)
    out[0, :] = y
    row = 1
    for i in range(n_steps):
        status = _step_dispatch(scheme_id, inertia, y, dt, tol, max_iter, potential, y_new)
        if status != 0:
            return status, i
        y[:] = y_new
        if (i + 1) % save_every == 0:
            for j in range(y.shape[0]):
                if not math.isfinite(y[j]):
                    return Status.NON_FINITE, i
            out[row, :] = y
            row += 1
    done = n_steps
    if last_dt > 0.0:
        status = _step_dispatch(scheme_id, inertia, y, last_dt, tol, max_iter, potential, y_new)
        if status != 0:
            return status, n_steps
        y[:] = y_new
        done += 1
    for j in range(y.shape[0]):
        if not math.isfinite(y[j]):
            return Status.NON_FINITE, done
    if row < out.shape[0]:
        out[row, :] = y
    return Status.OK, done


def integrate(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    omega0: ArrayLike,
    q0: ArrayLike = (1.0, 0.0, 0.0, 0.0),
    dt: float = 0.01,
    t_end: float = 1.0,
    save_every: int = 1,
    potential: ArrayLike | None = None,
    tol: float | None = None,
    max_iter: int | None = None,
    last_step: str = "short",
) -> Trajectory:
    """Integrate the free (or heavy-top) rotation of one body with one scheme from 0 to
    ``t_end``.

    ``scheme`` is a name of :data:`tumble.freerot.SCHEMES` or a scheme instance; ``"exact"``
    evaluates the elliptic-function solution at the same sample times. The run takes
    ``floor(t_end / dt)`` steps of ``dt``; when ``t_end`` is not a whole number of steps it ends
    with one shorter step (``last_step="short"``) or is refused (``last_step="refuse"``), so the
    last sample is at ``t_end`` either way. Every ``save_every``-th state is returned, and the
    final one. A run of more than ``1e9`` steps, or whose samples would not fit in 4 GiB, is
    refused (:func:`tumble.freerot.trajectory.step_plan`); errors about the arguments are
    :class:`tumble.errors.ConfigError` naming the argument.
    """
    inertia, omega0, q0 = validate_initial(inertia, omega0, q0)
    if not (isinstance(save_every, int | np.integer) and save_every >= 1):
        raise ConfigError(
            f"save_every must be a positive integer, got {save_every!r}", "save_every"
        )
    potential = validate_potential(potential)
    if scheme == "exact":
        if potential[0] != 0.0:
            raise ValueError("the exact solution is for torque-free rotation; drop the potential")
        plan = step_plan(dt, t_end, last_step, int(save_every))
        return exact(inertia, omega0, q0, plan.saved_times(int(save_every)))
    stepper = get_scheme(scheme, tol=tol, max_iter=max_iter)
    if potential[0] != 0.0 and not stepper.supports_potential:
        raise ValueError(f"scheme {stepper.name!r} does not accept a potential")
    plan = step_plan(dt, t_end, last_step, int(save_every), stepper.state_size)
    t = plan.saved_times(int(save_every))
    y0 = np.ascontiguousarray(stepper.initial_state(inertia, q0, omega0, float(dt), potential))
    out = np.empty((t.shape[0], y0.shape[0]))
    status, done = _run(
        int(stepper.scheme_id),
        inertia,
        y0,
        float(dt),
        plan.n_full,
        int(save_every),
        float(stepper.tol),
        int(stepper.max_iter),
        potential,
        out,
        plan.last_dt,
    )
    if status != Status.OK:
        when = min(done * plan.dt, plan.t_end)
        raise KernelError(status, f"{stepper.name} at step {done} (t = {when:.6g} s)")
    return Trajectory(
        t=t,
        q=np.ascontiguousarray(out[:, Q]),
        omega=np.ascontiguousarray(out[:, OMEGA]),
        inertia=inertia,
        scheme=stepper.name,
        dt=float(dt),
        state=out,
        potential=potential,
    )


def step(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    y: ArrayLike,
    dt: float,
    potential: ArrayLike | None = None,
) -> np.ndarray:
    """One step of a scheme on a full state vector ``y``; returns the new state vector."""
    stepper = get_scheme(scheme)
    inertia = principal_inertia(inertia)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (stepper.state_size,):
        raise ValueError(f"state of {stepper.name} must have shape ({stepper.state_size},)")
    out = np.empty((2, y.shape[0]))
    pot = validate_potential(potential)
    status, _ = _run(
        int(stepper.scheme_id), inertia, y, float(dt), 1, 1, stepper.tol, stepper.max_iter, pot, out
    )
    if status != Status.OK:
        raise KernelError(status, stepper.name)
    return out[1]


def advance(
    scheme: str | FreeRotationScheme,
    inertia: ArrayLike,
    y: ArrayLike,
    dt: float,
    n_steps: int,
    save_every: int = 1,
) -> np.ndarray:
    """Every ``save_every``-th full state of ``n_steps`` steps of a free body from the full state
    ``y`` (private state included, as :func:`step` takes it), shape (n_steps // save_every + 1,
    state_size), the first row ``y``."""
    stepper = get_scheme(scheme)
    inertia = principal_inertia(inertia)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (stepper.state_size,):
        raise ValueError(f"state of {stepper.name} must have shape ({stepper.state_size},)")
    if not (isinstance(n_steps, int | np.integer) and n_steps >= 1):
        raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
    if not (isinstance(save_every, int | np.integer) and save_every >= 1):
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    out = np.empty((n_steps // save_every + 1, y.shape[0]))
    pot = validate_potential(None)
    status, done = _run(
        int(stepper.scheme_id),
        inertia,
        y,
        float(dt),
        int(n_steps),
        int(save_every),
        stepper.tol,
        stepper.max_iter,
        pot,
        out,
    )
    if status != Status.OK:
        raise KernelError(status, f"{stepper.name} at step {done}")
    return out
