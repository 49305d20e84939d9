"""Simulate one rock: validation, packing of the model arrays, the compiled loop, the trajectory.

:func:`simulate` checks the inputs once, packs terrain, soil, rock and options into the plain
arrays of :class:`RockModel` (shared by every rock of an ensemble), runs
:func:`tumble.rockfall.moreau.run_rock` and returns a :class:`RockTrajectory`.

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

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from tumble.bodies.catalogue import Body
from tumble.rockfall.contact import NCOL
from tumble.rockfall.moreau import (
    D_CAPPED,
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG,
    D_DRAG_WORK,
    D_HEIGHT,
    D_LOADED,
    D_MU,
    D_SWEEPS,
    N_OPTIONS,
    N_SAVED_DIAG,
    O_DT,
    O_GAP_TOL,
    O_GRAVITY,
    O_NEWTON_MAX_ITER,
    O_NEWTON_TOL,
    O_PGS_MAX_ITER,
    O_PGS_TOL,
    O_SCHEME,
    S_OMEGA,
    S_P,
    S_R,
    S_SLIP,
    S_V,
    SCHEME_IDS,
    STATE_SIZE,
    run_rock,
)
from tumble.rockfall.rock import Rock
from tumble.rockfall.soil import FIELDS, Soil
from tumble.rockfall.status import REGULAR, RockStatus, status_message, status_name
from tumble.rockfall.terrain import surface
from tumble.rotation.quaternion import q_rotate

#: gravitational acceleration, m/s^2, along -z
GRAVITY = 9.81
#: default time step, s (Leine et al. 2021)
DT = 0.002
#: rest: kinetic energy at or below m REST_SPEED^2 / 2 for REST_TIME seconds
REST_SPEED = 0.01
REST_TIME = 1.0
#: projected Gauss-Seidel: relative tolerance on the percussions and sweep cap per step
PGS_TOL = 1e-10
PGS_MAX_ITER = 500
#: Newton iteration of the implicit free rotation (eq. 84)
NEWTON_TOL = 1e-14
NEWTON_MAX_ITER = 50
#: a vertex contact counts as closed when its gap is at most this, m (round-off of resting contacts)
GAP_TOL = 1e-8
#: initial quaternions whose norm differs from 1 by more are refused (others are normalised)
UNIT_TOLERANCE = 1e-3
#: a hull vertex deeper than this below the terrain at the start is refused, m
START_GAP_TOLERANCE = 1e-6


class RockModel(NamedTuple):
    """The plain arrays the kernels read: terrain, soil, rock and options (shared, read-only);
    the kernels take them as one plain tuple, ``tuple(model)``."""

    heights: np.ndarray
    grid: np.ndarray
    soil_values: np.ndarray
    soil_index: np.ndarray
    soil_rasters: np.ndarray
    vertices: np.ndarray
    body: np.ndarray
    options: np.ndarray


def _finite(value, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def _positive(value, name: str) -> float:
    x = _finite(value, name)
    if x <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return x


def _vector(value, n: int, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {n} numbers, got {value!r}") from None
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values: {arr.tolist()}")
    return arr


def terrain_arrays(terrain) -> tuple[np.ndarray, np.ndarray]:
    """``(heights, grid)`` of a terrain object, validated (C-contiguous float64, no holes)."""
    try:
        heights = terrain.heights
        grid = (terrain.x0, terrain.y0, terrain.dx, terrain.dy)
    except AttributeError:
        raise ValueError(
            "terrain must have the attributes heights, x0, y0, dx, dy (e.g. a Terrain)"
        ) from None
    heights = np.ascontiguousarray(heights, dtype=np.float64)
    if heights.ndim != 2 or heights.shape[0] < 2 or heights.shape[1] < 2:
        raise ValueError(
            f"terrain heights must be a 2-D grid of at least 2 x 2, got {heights.shape}"
        )
    if not np.all(np.isfinite(heights)):
        raise ValueError("terrain heights contain NaN or infinite values (holes in the DEM)")
    x0, y0 = _finite(grid[0], "terrain x0"), _finite(grid[1], "terrain y0")
    dx, dy = _positive(grid[2], "terrain dx"), _positive(grid[3], "terrain dy")
    return heights, np.array([x0, y0, dx, dy])


def pack_model(
    terrain,
    rock: Rock,
    soil: Soil,
    scheme: str = "implicit",
    dt: float = DT,
    gravity: float = GRAVITY,
    pgs_tol: float = PGS_TOL,
    pgs_max_iter: int = PGS_MAX_ITER,
    newton_tol: float = NEWTON_TOL,
    newton_max_iter: int = NEWTON_MAX_ITER,
) -> RockModel:
    """Validate the model of a run and pack it into kernel arrays."""
    if scheme not in SCHEME_IDS:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {sorted(SCHEME_IDS)}")
    if not isinstance(soil, Soil):
        raise ValueError(f"soil must be a Soil, got {type(soil).__name__}")
    if isinstance(rock, Body):
        rock = Rock.from_body(rock)
    if not isinstance(rock, Rock):
        raise ValueError(f"rock must be a Rock, got {type(rock).__name__}")
    heights, grid = terrain_arrays(terrain)
    rasters = {k: v for k, v in dict(getattr(terrain, "soil", None) or {}).items() if k in FIELDS}
    if rasters:
        soil = dataclasses.replace(soil, **rasters)
    soil_values, soil_index, soil_rasters = soil.pack(heights.shape)
    dt = _positive(dt, "dt")
    gravity = _finite(gravity, "gravity")
    pgs_tol = _positive(pgs_tol, "pgs_tol")
    newton_tol = _positive(newton_tol, "newton_tol")
    for value, name in ((pgs_max_iter, "pgs_max_iter"), (newton_max_iter, "newton_max_iter")):
        if not (isinstance(value, int | np.integer) and value >= 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    options = np.zeros(N_OPTIONS)
    options[O_DT] = dt
    options[O_GRAVITY] = gravity
    options[O_NEWTON_TOL] = newton_tol
    options[O_NEWTON_MAX_ITER] = newton_max_iter
    options[O_PGS_TOL] = pgs_tol
    options[O_PGS_MAX_ITER] = pgs_max_iter
    options[O_SCHEME] = SCHEME_IDS[scheme]
    options[O_GAP_TOL] = GAP_TOL
    body = np.array([rock.mass, *rock.inertia], dtype=np.float64)
    # a writeable copy: the ensemble driver passes per-rock (writeable) vertex arrays to the same
    # step kernel, which is then compiled once for both
    vertices = np.array(rock.vertices, dtype=np.float64, order="C")
    return RockModel(heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options)


def initial_state(
    model: RockModel,
    position,
    orientation=(1.0, 0.0, 0.0, 0.0),
    velocity=(0.0, 0.0, 0.0),
    omega=(0.0, 0.0, 0.0),
    slippage: float = 0.0,
) -> np.ndarray:
    """Validated state vector; refuses a hull that starts outside the DEM or below the terrain."""
    r = _vector(position, 3, "position")
    p = _vector(orientation, 4, "orientation")
    norm = float(np.linalg.norm(p))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(
            f"orientation must be a unit quaternion (w, x, y, z); its norm is {norm:.6g}"
        )
    p = p / norm
    v = _vector(velocity, 3, "velocity")
    w = _vector(omega, 3, "omega")
    s = _finite(slippage, "slippage")
    if s < 0.0:
        raise ValueError(f"slippage must not be negative, got {s!r}")
    x0, y0, dx, dy = model.grid
    quat = tuple(float(c) for c in p)
    deepest = math.inf
    for k, vertex in enumerate(model.vertices):
        d = q_rotate(quat, (float(vertex[0]), float(vertex[1]), float(vertex[2])))
        px, py, pz = r[0] + d[0], r[1] + d[1], r[2] + d[2]
        z, _, inside = surface(model.heights, x0, y0, dx, dy, px, py)
        if not inside:
            x1 = x0 + (model.heights.shape[1] - 1) * dx
            y1 = y0 + (model.heights.shape[0] - 1) * dy
            raise ValueError(
                f"the rock at {r.tolist()} reaches outside the DEM (vertex {k} at x={px:.6g}, "
                f"y={py:.6g}); the grid covers x in [{x0:g}, {x1:g}], y in [{y0:g}, {y1:g}]"
            )
        deepest = min(deepest, pz - z)
    if deepest < -START_GAP_TOLERANCE:
        raise ValueError(
            f"the rock starts below the terrain: a hull vertex lies {-deepest:.6g} m under the "
            "surface; raise the release position"
        )
    state = np.zeros(STATE_SIZE)
    state[S_R : S_R + 3] = r
    state[S_P : S_P + 4] = p
    state[S_V : S_V + 3] = v
    state[S_OMEGA : S_OMEGA + 3] = w
    state[S_SLIP] = s
    return state


@dataclass(eq=False)
class RockTrajectory:
    """Saved samples of one rock (row 0: the release state; the last row: the final state).

    Arrays of length n: ``t`` (s), ``position`` (n, 3) centre of mass (m), ``orientation`` (n, 4)
    quaternion body -> space, ``velocity`` (n, 3) m/s, ``omega`` (n, 3) body frame rad/s,
    ``slippage`` (m), ``in_contact`` (a vertex contact was closed in the last step),
    ``n_contacts`` / ``n_loaded`` (closed contacts / contacts with a positive normal percussion),
    ``mu`` (friction coefficient of the last step), ``height`` (centre of mass above the
    terrain below it, m), ``contact_work`` / ``drag_work`` (J, summed over the steps since the
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
        from tumble.rotation.quaternion import quat_rotate

        return quat_rotate(self.orientation, self.omega * self.inertia)

    def speed(self) -> np.ndarray:
        return np.linalg.norm(self.velocity, axis=1)

    def rotation_speed(self) -> np.ndarray:
        """|omega| in revolutions per second."""
        return np.linalg.norm(self.omega, axis=1) / (2.0 * np.pi)


def simulate(
    terrain,
    rock: Rock,
    soil: Soil,
    position,
    orientation=(1.0, 0.0, 0.0, 0.0),
    velocity=(0.0, 0.0, 0.0),
    omega=(0.0, 0.0, 0.0),
    scheme: str = "implicit",
    dt: float = DT,
    t_max: float = 60.0,
    save_every: int = 1,
    *,
    slippage: float = 0.0,
    rest_speed: float = REST_SPEED,
    rest_time: float = REST_TIME,
    gravity: float = GRAVITY,
    pgs_tol: float = PGS_TOL,
    pgs_max_iter: int = PGS_MAX_ITER,
    newton_tol: float = NEWTON_TOL,
    newton_max_iter: int = NEWTON_MAX_ITER,
) -> RockTrajectory:
    """Simulate one rock released at ``position`` (centre of mass, m) until it stops.

    ``orientation`` is the unit quaternion (w, x, y, z) from the rock's principal frame to the
    terrain frame (normalised here; far from unit is refused), ``velocity`` the centre-of-mass
    velocity (m/s), ``omega`` the angular velocity in the body frame (rad/s). ``scheme`` is
    ``"implicit"`` (Leine et al. 2021, eq. 84-87) or ``"explicit"`` (eq. 79-83). Every
    ``save_every``-th step is saved, and always the final one. See the module docstring for the
    stopping rules.
    """
    model = pack_model(
        terrain,
        rock,
        soil,
        scheme,
        dt,
        gravity,
        pgs_tol,
        pgs_max_iter,
        newton_tol,
        newton_max_iter,
    )
    dt = float(model.options[O_DT])
    t_max = _finite(t_max, "t_max")
    if t_max < 0.0:
        raise ValueError(f"t_max must not be negative, got {t_max!r}")
    if not (isinstance(save_every, int | np.integer) and save_every >= 1):
        raise ValueError(f"save_every must be a positive integer, got {save_every!r}")
    rest_speed = _finite(rest_speed, "rest_speed")
    rest_time = _positive(rest_time, "rest_time")
    state = initial_state(model, position, orientation, velocity, omega, slippage)

    n_steps = math.ceil(t_max / dt - 1e-9)
    rest_steps = max(1, math.ceil(rest_time / dt - 1e-9))
    mass = float(model.body[0])
    rest_energy = 0.5 * mass * rest_speed * rest_speed
    capacity = n_steps // save_every + 2
    out_step = np.zeros(capacity, dtype=np.int64)
    out_state = np.zeros((capacity, STATE_SIZE))
    out_diag = np.zeros((capacity, N_SAVED_DIAG))
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    code, steps, rows = run_rock(
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
    )
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
        gravity=float(model.options[O_GRAVITY]),
        scheme=scheme,
        dt=dt,
    )
