"""What every free-rotation run returns, and the validation of its inputs.

:class:`Trajectory` holds the saved samples of one body (from a stepping scheme or the exact
solution); :func:`validate_initial` and :func:`validate_potential` check the arguments of
:func:`tumble.freerot.integrate` and :func:`tumble.freerot.exact` once, and :func:`step_plan`
says how a run reaches ``t_end``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble.errors import ConfigError
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


#: the most time steps one call of :func:`tumble.freerot.integrate` takes (about 10 min of the
#: slowest scheme), and the most memory its saved states may fill (bytes)
MAX_STEPS = 10**9
MAX_SAVED_BYTES = 4 * 2**30
#: how :func:`step_plan` treats a ``t_end`` that is not a whole number of steps
LAST_STEPS = ("short", "refuse")
#: relative slack in ``t_end / dt`` within which it counts as a whole number (round-off)
WHOLE_RTOL = 1e-9


@dataclass(frozen=True)
class StepPlan:
    """How a run reaches ``t_end``: ``n_full`` steps of ``dt`` and, when ``t_end`` is not a
    whole number of steps, one last step of ``last_dt`` (0 otherwise, ``0 < last_dt < dt``)."""

    dt: float
    t_end: float
    n_full: int
    last_dt: float

    @property
    def n_steps(self) -> int:
        """Steps taken, the short one included."""
        return self.n_full + (1 if self.last_dt > 0.0 else 0)

    def saved_times(self, save_every: int) -> np.ndarray:
        """Instants of the saved samples: every ``save_every``-th full step from 0, then the end
        (``t_end`` after a short step, ``n_full dt`` otherwise) if not already among them."""
        t = np.arange(0, self.n_full + 1, save_every) * self.dt
        if self.last_dt > 0.0:
            return np.append(t, self.t_end)
        if self.n_full % save_every:
            return np.append(t, self.n_full * self.dt)
        return t


def step_plan(
    dt: float, t_end: float, last_step: str = "short", save_every: int = 1, state_size: int = 7
) -> StepPlan:
    """The steps from 0 to ``t_end``: ``n_full = floor(t_end / dt)`` steps of ``dt`` (a ratio within
    :data:`WHOLE_RTOL` of a whole number counts as one) and, if some time is left, a last short
    step (``last_step="short"``) or a :class:`~tumble.errors.ConfigError` (``"refuse"``).

    ``dt`` and ``t_end`` must be positive (``t_end`` may be 0) and finite. A run of more than
    :data:`MAX_STEPS` steps, or whose saved states (every ``save_every``-th of ``state_size``
    floats) would fill more than :data:`MAX_SAVED_BYTES`, is refused with a message saying what
    to change, before any memory is taken.
    """
    if not (isinstance(dt, int | float | np.floating) and math.isfinite(dt) and dt > 0):
        raise ConfigError(f"dt must be a positive finite number, got {dt!r}", key="dt")
    if not (isinstance(t_end, int | float | np.floating) and math.isfinite(t_end) and t_end >= 0):
        raise ConfigError(f"t_end must be a non-negative finite number, got {t_end!r}", key="t_end")
    if last_step not in LAST_STEPS:
        raise ConfigError(
            f"last_step must be one of {', '.join(LAST_STEPS)}, got {last_step!r}", key="last_step"
        )
    dt, t_end = float(dt), float(t_end)
    ratio = t_end / dt
    if ratio > MAX_STEPS:
        raise ConfigError(
            f"t_end / dt = {ratio:.3g} steps is more than the {MAX_STEPS:.0e} one run may take "
            f"(t_end = {t_end:g} s, dt = {dt:g} s): raise dt or shorten t_end",
            key="dt",
        )
    whole = round(ratio)
    if abs(ratio - whole) <= WHOLE_RTOL * max(1.0, ratio):
        n_full, last_dt = int(whole), 0.0
    else:
        n_full = math.floor(ratio)
        last_dt = t_end - n_full * dt
        if last_step == "refuse":
            raise ConfigError(
                f"t_end = {t_end:g} s is not a whole number of steps of dt = {dt:g} s "
                f"({ratio:.6g} steps): choose t_end = k dt, or end with a shorter last step "
                "(last_step 'short')",
                key="t_end",
            )
    plan = StepPlan(dt=dt, t_end=t_end, n_full=n_full, last_dt=last_dt)
    saved = n_full // save_every + 2
    size = saved * state_size * 8
    if size > MAX_SAVED_BYTES:
        least = math.ceil(n_full * state_size * 8 / MAX_SAVED_BYTES)
        raise ConfigError(
            f"the {saved - 1} samples of {n_full} steps (save_every = {save_every}) would take "
            f"{size / 2**30:.3g} GiB, more than {MAX_SAVED_BYTES / 2**30:.0f} GiB: use "
            f"save_every >= {least}, raise dt or shorten t_end",
            key="save_every",
        )
    return plan
