"""The one driver of all free-rotation schemes: validation, the compiled time loop, saving.

:func:`integrate` validates the input, builds the scheme's initial state, runs the compiled loop
:func:`_run` (which dispatches on the scheme id to the scheme's step kernel) and packages the
saved samples as a :class:`Trajectory`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tumble._jit import jit
from tumble.bodies.inertia import principal_inertia
from tumble.freerot.algo_c1 import algo_c1_step
from tumble.freerot.base import OMEGA, FreeRotationScheme, Q
from tumble.freerot.dir_em import dir_em_step
from tumble.freerot.explicit import explicit_step
from tumble.freerot.implicit_midpoint import implicit_step
from tumble.freerot.invariants import kinetic_energy, potential_energy, spin, spin_body
from tumble.freerot.quat_em import quat_em_step
from tumble.freerot.quat_vi import quat_vi_step
from tumble.freerot.registry import get_scheme
from tumble.freerot.rk4 import rk4_step
from tumble.rotation.quaternion import as_quaternions, as_vectors
from tumble.status import KernelError, Status

#: how far from 1 the norm of a given initial quaternion may be before it is refused
UNIT_TOLERANCE = 1e-6


@jit
def _step_dispatch(scheme_id, inertia, y, dt, tol, max_iter, potential, y_out):
    if scheme_id == 1:
        return explicit_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 2:
        return implicit_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 3:
        return quat_em_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 4:
        return quat_vi_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 5:
        return dir_em_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 6:
        return algo_c1_step(inertia, y, dt, tol, max_iter, potential, y_out)
    elif scheme_id == 7:
        return rk4_step(inertia, y, dt, tol, max_iter, potential, y_out)
    return Status.NO_SOLUTION


@jit
def _run(scheme_id, inertia, y0, dt, n_steps, save_every, tol, max_iter, potential, out):
    """Advance ``n_steps`` steps, saving every ``save_every``-th state into ``out``.

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
    for j in range(y.shape[0]):
        if not math.isfinite(y[j]):
            return Status.NON_FINITE, n_steps
    return Status.OK, n_steps


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


def validate_potential(potential) -> np.ndarray:
    if potential is None:
        return np.zeros(4)
    arr = np.asarray(potential, dtype=np.float64)
    if arr.shape != (4,) or not np.all(np.isfinite(arr)):
        raise ValueError(
            "potential must be (M g, c_x, c_y, c_z): weight in N and the body-frame vector from "
            f"the fixed point to the centre of mass, got {potential!r}"
        )
    return arr


def validate_initial(inertia, omega0, q0):
    """Validated ``(inertia, omega0, q0)`` arrays; ``q0`` is normalised after the unit check."""
    inertia = principal_inertia(inertia)
    omega0 = as_vectors(omega0, "omega0")
    if omega0.shape != (3,):
        raise ValueError(f"omega0 must have shape (3,), got {omega0.shape}")
    q0 = as_quaternions(q0, "q0", unit_tol=UNIT_TOLERANCE)
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


def integrate(
    scheme: str | FreeRotationScheme,
    inertia,
    omega0,
    q0=(1.0, 0.0, 0.0, 0.0),
    dt: float = 0.01,
    t_end: float = 1.0,
    save_every: int = 1,
    potential=None,
    tol: float | None = None,
    max_iter: int | None = None,
) -> Trajectory:
    """Integrate the free (or heavy-top) rotation of one body with one scheme.

    ``scheme`` is a name of :data:`tumble.freerot.SCHEMES` or a scheme instance; ``"exact"``
    evaluates the elliptic-function solution at the same sample times. The number of steps is
    ``ceil(t_end / dt)``; every ``save_every``-th state is returned.
    """
    inertia, omega0, q0 = validate_initial(inertia, omega0, q0)
    n_steps = step_count(dt, t_end)
    if not (isinstance(save_every, int | np.integer) and save_every >= 1):
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    potential = validate_potential(potential)
    if scheme == "exact":
        if potential[0] != 0.0:
            raise ValueError("the exact solution is for torque-free rotation; drop the potential")
        from tumble.freerot.exact import exact

        t = np.arange(0, n_steps + 1, save_every) * float(dt)
        return exact(inertia, omega0, q0, t)
    stepper = get_scheme(scheme, tol=tol, max_iter=max_iter)
    if potential[0] != 0.0 and not stepper.supports_potential:
        raise ValueError(f"scheme {stepper.name!r} does not accept a potential")
    y0 = np.ascontiguousarray(stepper.initial_state(inertia, q0, omega0, float(dt), potential))
    n_saved = n_steps // save_every + 1
    out = np.empty((n_saved, y0.shape[0]))
    status, done = _run(
        stepper.scheme_id,
        inertia,
        y0,
        float(dt),
        n_steps,
        int(save_every),
        float(stepper.tol),
        int(stepper.max_iter),
        potential,
        out,
    )
    if status != Status.OK:
        raise KernelError(status, f"{stepper.name} at step {done} (t = {done * dt:.6g} s)")
    t = np.arange(n_saved) * save_every * float(dt)
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


def step(scheme: str | FreeRotationScheme, inertia, y, dt: float, potential=None) -> np.ndarray:
    """One step of a scheme on a full state vector ``y``; returns the new state vector."""
    stepper = get_scheme(scheme)
    inertia = principal_inertia(inertia)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (stepper.state_size,):
        raise ValueError(f"state of {stepper.name} must have shape ({stepper.state_size},)")
    out = np.empty((2, y.shape[0]))
    pot = validate_potential(potential)
    status, _ = _run(
        stepper.scheme_id, inertia, y, float(dt), 1, 1, stepper.tol, stepper.max_iter, pot, out
    )
    if status != Status.OK:
        raise KernelError(status, stepper.name)
    return out[1]
