"""Simulate one rock: validation, packing of the model arrays, the compiled loop, the trajectory.

:func:`simulate` checks the inputs once, packs terrain, soil, rock and options into the plain
arrays of :class:`RockModel` (shared by every rock of an ensemble), runs
:func:`tumble.rockfall.step.stepping.run_rock` and returns a :class:`RockTrajectory`.

Terrain: any object with the attributes ``heights`` (ny, nx) float64, ``x0``, ``y0``, ``dx``,
``dy`` (``heights[j, i]`` is the height at ``x = x0 + i dx``, ``y = y0 + j dy``), such as
:class:`tumble.rockfall.Terrain`. Soil rasters of the terrain (``terrain.soil``, names of
:data:`tumble.rockfall.soil.FIELDS`) replace the corresponding fields of the :class:`Soil`; a
``zone`` raster is not used by the engine.

Stopping rules (not published for RAMMS; chosen here and exposed):

* ``stopped``: the kinetic energy (translation plus rotation) stayed at or below
  ``m rest_speed^2 / 2`` for ``rest_time`` seconds; defaults 0.01 m/s and 1 s;
* ``left_domain``: the centre of mass or a hull vertex left the DEM;
* ``timed_out``: ``t_max`` was reached;
* otherwise a numerical failure (``newton_not_converged``, ``singular_matrix``, ``non_finite``);
  the trajectory then ends at the last good state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tumble.rockfall.barriers import Barrier, pack_barriers, with_uphill
from tumble.rockfall.forest import Forest, no_forest, rock_diameter
from tumble.rockfall.rock import Rock
from tumble.rockfall.soil import Soil
from tumble.rockfall.status import REGULAR, RockStatus, status_message, status_name
from tumble.rockfall.step.buffers import (
    D_CAPPED,
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG,
    D_DRAG_WORK,
    D_HEIGHT,
    D_LOADED,
    D_MU,
    D_SWEEPS,
    D_TOUCHED,
    N_SAVED_DIAG,
)
from tumble.rockfall.step.contact import NCOL
from tumble.rockfall.step.model import (
    DT,
    GRAVITY,
    NEWTON_MAX_ITER,
    NEWTON_TOL,
    PGS_MAX_ITER,
    PGS_TOL,
    REST_SPEED,
    REST_TIME,
    S_OMEGA,
    S_P,
    S_R,
    S_SLIP,
    S_V,
    STATE_SIZE,
    Options,
    RockModel,
    check_dt,
    hull_radius,
    initial_state,
    pack_model,
    resolve_options,
)
from tumble.rockfall.step.nets import N_XCOLS, no_nets, pack_nets
from tumble.rockfall.step.stepping import run_rock
from tumble.rockfall.step.trees import F_ENERGY, F_IMPACTS, N_FOREST
from tumble.rotation.quaternion import quat_rotate

__all__ = [
    "DT",
    "GRAVITY",
    "NEWTON_MAX_ITER",
    "NEWTON_TOL",
    "PGS_MAX_ITER",
    "PGS_TOL",
    "REST_SPEED",
    "REST_TIME",
    "Options",
    "RockModel",
    "RockTrajectory",
    "initial_state",
    "pack_model",
    "simulate",
]

#: the options of a single rock when none are given
SIMULATE_OPTIONS = Options()


@dataclass(eq=False)
class RockTrajectory:
    """Saved samples of one rock (row 0: the release state; the last row: the final state).

    Arrays of length n: ``t`` (s), ``position`` (n, 3) centre of mass (m), ``orientation`` (n, 4)
    quaternion body -> space, ``velocity`` (n, 3) m/s, ``omega`` (n, 3) body frame rad/s,
    ``slippage`` (m), ``in_contact`` (a vertex contact was closed in the last step), ``n_contacts``
    / ``n_loaded`` (closed contacts / contacts with a positive normal percussion), ``mu`` (friction
    coefficient of the last step), ``height`` (centre of mass above the terrain below it, m),
    ``touched`` (a step with a closed contact has been taken at or before the row: False during the
    fall from the release), ``contact_work`` / ``drag_work`` (J, summed over the steps since the
    previous row), ``pgs_sweeps`` (largest number of Gauss-Seidel sweeps since the previous row).
    ``status`` is ``"stopped"``, ``"left_domain"``, ``"timed_out"`` or the name of a failure;
    ``pgs_cap_hits`` counts the steps whose Gauss-Seidel iteration hit its cap.
    """

    t: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    omega: np.ndarray
    slippage: np.ndarray
    in_contact: np.ndarray
    n_contacts: np.ndarray
    n_loaded: np.ndarray
    mu: np.ndarray
    height: np.ndarray
    touched: np.ndarray
    in_drag: np.ndarray
    contact_work: np.ndarray
    drag_work: np.ndarray
    pgs_sweeps: np.ndarray
    status: str
    status_code: int
    message: str
    steps: int
    pgs_cap_hits: int
    mass: float
    inertia: np.ndarray
    gravity: float
    scheme: str
    dt: float
    crossings: np.ndarray = field(default_factory=lambda: np.zeros((0, N_XCOLS)))
    #: impacts against stems and the energy they took, J (:mod:`tumble.rockfall.forest`)
    tree_impacts: int = 0
    tree_energy_J: float = 0.0

    def __len__(self) -> int:
        return int(self.t.shape[0])

    @property
    def ok(self) -> bool:
        """True unless the run ended with a numerical failure."""
        return RockStatus(self.status_code) in REGULAR

    def translational_energy(self) -> np.ndarray:
        return 0.5 * self.mass * np.einsum("ij,ij->i", self.velocity, self.velocity)

    def rotational_energy(self) -> np.ndarray:
        return 0.5 * (self.omega**2 @ self.inertia)

    def kinetic_energy(self) -> np.ndarray:
        """Translational plus rotational kinetic energy, J."""
        return self.translational_energy() + self.rotational_energy()

    def potential_energy(self) -> np.ndarray:
        """``m g z`` of the centre of mass, J (zero at z = 0)."""
        return self.mass * self.gravity * self.position[:, 2]

    def spin(self) -> np.ndarray:
        """Angular momentum about the centre of mass in the inertial frame, (n, 3)."""
        return quat_rotate(self.orientation, self.omega * self.inertia)

    def speed(self) -> np.ndarray:
        return np.linalg.norm(self.velocity, axis=1)

    def jump_height(self) -> np.ndarray:
        """The jump height at each row, m: the height of the centre of mass above the terrain
        after a step without a closed contact, once the rock has touched the terrain; NaN in
        contact and during the fall from the release (which is not a jump; see
        :meth:`release_drop`)."""
        return np.where(self.touched & ~self.in_contact, self.height, np.nan)

    def release_drop(self) -> float:
        """The largest height of the centre of mass above the terrain over the rows before the
        first contact (the release row included), m; NaN if it was never over the terrain.
        The ensemble takes it over every step (``release_drop_m``), a trajectory over its saved
        rows."""
        before = ~self.touched & np.isfinite(self.height)
        return float(self.height[before].max()) if before.any() else math.nan

    def rotation_speed(self) -> np.ndarray:
        """|omega| in revolutions per second."""
        return np.linalg.norm(self.omega, axis=1) / (2.0 * np.pi)


#: the most steps a rock may take (``ceil(t_max / dt)``, :func:`check_steps`)
MAX_STEPS = 10_000_000
#: bytes of one saved row of a trajectory (step, state, diagnostics)
ROW_BYTES = 8 * (1 + STATE_SIZE + N_SAVED_DIAG)


def byte_size(n_bytes: float) -> str:
    """A number of bytes for a message: ``"1.92 GB"``."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes / 1e3:.3g} kB"


def check_steps(options: Options) -> None:
    """ValueError, with the limit and the memory it would take, when a rock of ``options``
    could take more than :data:`MAX_STEPS` steps: the whole trajectory of one rock (every
    step, as the profile figure and single-rock runs keep it) takes ``ROW_BYTES`` a step."""
    steps = options.t_max / options.dt
    if steps > MAX_STEPS:
        raise ValueError(
            f"t_max = {options.t_max:g} s at dt = {options.dt:g} s is {steps:.3g} steps per rock; "
            f"the limit is {MAX_STEPS:.0e} steps (t_max <= {MAX_STEPS * options.dt:g} s at this "
            f"dt): the whole trajectory of one rock would take {byte_size(steps * ROW_BYTES)} of "
            f"memory ({ROW_BYTES} bytes a step)"
        )


def simulate(
    terrain: Any,
    rock: Rock,
    soil: Soil,
    position: Any,
    orientation: Any = (1.0, 0.0, 0.0, 0.0),
    velocity: Any = (0.0, 0.0, 0.0),
    omega: Any = (0.0, 0.0, 0.0),
    *,
    options: Options | None = None,
    save_every: int = 1,
    slippage: float = 0.0,
    barriers: Sequence[Barrier] = (),
    forest: Forest | None = None,
    forest_key: int = 0,
    **settings: Any,
) -> RockTrajectory:
    """Simulate one rock released at ``position`` (centre of mass, m) until it stops.

    ``orientation`` is the unit quaternion (w, x, y, z) from the rock's principal frame to the
    terrain frame (normalised here; far from unit is refused), ``velocity`` the centre-of-mass
    velocity (m/s), ``omega`` the angular velocity in the body frame (rad/s). The solver settings
    are an :class:`~tumble.rockfall.step.model.Options` record (default ``Options()``: the implicit
    scheme of Leine et al. 2021, eq. 84-87, dt = 2 ms, t_max = 60 s); keyword ``settings`` with
    the names of its fields (``scheme="explicit"``, ``t_max=5.0``, ...) change single ones.
    Every ``save_every``-th step is saved, and always the final one. See the module docstring
    for the stopping rules. ``barriers``: lines and nets of :mod:`tumble.rockfall.barriers`,
    whose crossings the trajectory lists (``crossings``, rows of :mod:`tumble.rockfall.step.nets`);
    a net may catch the rock (status ``caught``); a barrier without an ``uphill`` side has the
    side the rock starts on as its uphill side. ``forest``: stems the rock may hit
    (:mod:`tumble.rockfall.forest`), with ``forest_key`` the key of the rock's random stream
    (:func:`tumble.rockfall.forest.rock_keys`); the trajectory's ``tree_impacts`` and
    ``tree_energy_J`` say what they did.
    """
    opts = resolve_options(options, settings, SIMULATE_OPTIONS)
    check_steps(opts)
    model = pack_model(terrain, rock, soil, opts)
    if not (isinstance(save_every, int | np.integer) and save_every >= 1):
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    state = initial_state(model, position, orientation, velocity, omega, slippage)
    check_dt(
        opts.dt,
        np.array([hull_radius(model.vertices)]),
        model.grid,
        model.body[None, :],
        state[None, :],
        model.heights,
        opts.gravity,
    )
    dt = opts.dt
    scheme = opts.scheme

    n_steps = opts.n_steps
    rest_steps = opts.rest_steps
    mass = float(model.body[0])
    rest_energy = opts.rest_energy(mass)
    capacity = n_steps // save_every + 2
    out_step = np.zeros(capacity, dtype=np.int64)
    out_state = np.zeros((capacity, STATE_SIZE))
    out_diag = np.zeros((capacity, N_SAVED_DIAG))
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    # a barrier without an uphill side: the side the rock starts on
    barriers = with_uphill(tuple(barriers), state[S_R : S_R + 2])
    nets = pack_nets(pack_barriers(barriers)) if barriers else no_nets()
    start = state.copy()
    crossings = np.zeros((64 if barriers else 0, N_XCOLS))
    stems = no_forest() if forest is None else forest.pack()
    fstate = np.zeros(N_FOREST)
    broken = np.zeros(0 if forest is None else forest.n_trees, dtype=np.bool_)
    diameter = float(rock_diameter(rock.volume))
    key = np.uint64(int(forest_key) & 0xFFFFFFFFFFFFFFFF)
    while True:
        code, steps, rows, found = run_rock(
            tuple(model),
            state,
            contacts,
            n_steps,
            int(save_every),
            rest_energy,
            rest_steps,
            out_step,
            out_state,
            out_diag,
            nets,
            crossings,
            stems,
            (diameter, key, fstate, broken, np.zeros(0, dtype=np.int64)),
        )
        if found <= crossings.shape[0]:
            break
        # more crossings than the buffer holds: the same run again with room for all
        state[:] = start
        broken[:] = False
        crossings = np.zeros((found, N_XCOLS))
    crossings = crossings[:found].copy()
    code = int(code)
    s = out_state[:rows]
    d = out_diag[:rows]
    return RockTrajectory(
        t=out_step[:rows] * dt,
        position=np.ascontiguousarray(s[:, S_R : S_R + 3]),
        orientation=np.ascontiguousarray(s[:, S_P : S_P + 4]),
        velocity=np.ascontiguousarray(s[:, S_V : S_V + 3]),
        omega=np.ascontiguousarray(s[:, S_OMEGA : S_OMEGA + 3]),
        slippage=np.ascontiguousarray(s[:, S_SLIP]),
        in_contact=d[:, D_CONTACTS] > 0,
        n_contacts=d[:, D_CONTACTS].astype(np.int64),
        n_loaded=d[:, D_LOADED].astype(np.int64),
        mu=np.ascontiguousarray(d[:, D_MU]),
        height=np.ascontiguousarray(d[:, D_HEIGHT]),
        touched=d[:, D_TOUCHED] > 0,
        in_drag=d[:, D_DRAG] > 0,
        contact_work=np.ascontiguousarray(d[:, D_CONTACT_WORK]),
        drag_work=np.ascontiguousarray(d[:, D_DRAG_WORK]),
        pgs_sweeps=d[:, D_SWEEPS].astype(np.int64),
        status=status_name(code),
        status_code=code,
        message=status_message(code),
        steps=int(steps),
        pgs_cap_hits=round(float(d[:, D_CAPPED].sum())),
        mass=mass,
        inertia=model.body[1:].copy(),
        gravity=opts.gravity,
        scheme=scheme,
        dt=dt,
        crossings=crossings,
        tree_impacts=int(fstate[F_IMPACTS]),
        tree_energy_J=float(fstate[F_ENERGY]),
    )
