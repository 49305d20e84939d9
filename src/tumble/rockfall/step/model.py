"""The model of a rockfall run, apart from the state of its rocks and the settings of the solver.

Three things, as in MuJoCo's ``mjModel`` / ``mjData`` / ``mjOption``:

* :class:`Options`: every solver setting (rotation scheme, time step, duration, gravity, rest
  criterion, tolerances and iteration caps of the contact and Newton solvers), validated once on
  construction and packed once into the plain vector the kernels read (:meth:`Options.pack`,
  layout ``O_*``). A setting added later touches this record and its one consumer.
* :class:`RockModel`: the plain, read-only arrays of terrain, soil and rock that every rock of a
  run shares (:func:`pack_model`); the kernels take them as one tuple, ``tuple(model)``.
* the state of one rock: ``STATE_SIZE`` floats in the ``S_*`` layout (:func:`initial_state`),
  owned and updated by the rock.

The defaults of the settings are spelled once, in :mod:`tumble.solver_defaults` (the run
configuration's schema takes them from there too): those of Leine et al. 2021 (seed 000) where the
paper gives them (dt = 2 ms), tumble's for the rest criterion, tolerances and caps.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tumble import _check
from tumble.bodies.catalogue import Body
from tumble.freerot.base import SchemeId
from tumble.rockfall.rock import Rock
from tumble.rockfall.soil import FIELDS, Soil
from tumble.rockfall.step.surface import surface, surface_batch
from tumble.rotation.quaternion import Quat, q_rotate, quat_to_matrix
from tumble.solver_defaults import (
    DT,
    GAP_TOL,
    GRAVITY,
    NEWTON_MAX_ITER,
    NEWTON_TOL,
    PGS_MAX_ITER,
    PGS_TOL,
    REST_SPEED,
    REST_TIME,
    SCHEME,
    T_MAX,
)

#: the rotation schemes of the rockfall step (Leine et al. 2021, eq. 79-83 and 84-87)
ROCKFALL_SCHEMES = (SchemeId.EXPLICIT, SchemeId.IMPLICIT)
#: their names, as configurations and the command line spell them
SCHEME_NAMES: tuple[str, ...] = tuple(s.label for s in ROCKFALL_SCHEMES)
#: kernel constants of the scheme ids (numba reads module-level ints as compile-time constants)
EXPLICIT = int(SchemeId.EXPLICIT)
IMPLICIT = int(SchemeId.IMPLICIT)

#: state vector of one rock: r (3), p (4), v (3), omega (3), slippage
S_R, S_P, S_V, S_OMEGA, S_SLIP = 0, 3, 7, 10, 13
STATE_SIZE = 14
#: the columns of a stored trajectory sample (``trajectory.parquet``, ``trajectories.parquet``
#: with a ``rock`` column before them): time, the centre of mass, the orientation (scalar-first
#: quaternion), the velocity (inertial) and the angular velocity (body frame)
TRAJECTORY_COLUMNS = (
    "t",
    "x",
    "y",
    "z",
    "qw",
    "qx",
    "qy",
    "qz",
    "vx",
    "vy",
    "vz",
    "omega_x",
    "omega_y",
    "omega_z",
)

#: packed options: dt, gravity, Newton tolerance and cap, PGS tolerance and cap, scheme id,
#: contact gap tolerance
O_DT, O_GRAVITY, O_NEWTON_TOL, O_NEWTON_MAX_ITER, O_PGS_TOL, O_PGS_MAX_ITER, O_SCHEME = range(7)
O_GAP_TOL = 7
N_OPTIONS = 8

#: initial quaternions whose norm differs from 1 by more are refused (others are normalised)
UNIT_TOLERANCE = 1e-3
#: a hull vertex deeper than this below the terrain at the start is refused, m
START_GAP_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Options:
    """Every setting of the rockfall solver, validated on construction.

    ``scheme``: ``"implicit"`` (Leine et al. 2021, eq. 84-87) or ``"explicit"`` (eq. 79-83);
    ``dt`` (s); ``t_max`` (s, the duration after which a moving rock counts as timed out);
    ``gravity`` (m/s^2 along -z); a rock is at rest once its kinetic energy stayed at or below
    ``m rest_speed^2 / 2`` for ``rest_time`` s; ``pgs_tol`` / ``pgs_max_iter``: relative
    tolerance and sweep cap of the projected Gauss-Seidel contact solver; ``newton_tol`` /
    ``newton_max_iter``: of the implicit free rotation; ``gap_tol`` (m): a vertex contact is
    closed when its gap is at most this.
    """

    scheme: str = SCHEME
    dt: float = DT
    t_max: float = T_MAX
    gravity: float = GRAVITY
    rest_speed: float = REST_SPEED
    rest_time: float = REST_TIME
    pgs_tol: float = PGS_TOL
    pgs_max_iter: int = PGS_MAX_ITER
    newton_tol: float = NEWTON_TOL
    newton_max_iter: int = NEWTON_MAX_ITER
    gap_tol: float = GAP_TOL

    def __post_init__(self) -> None:
        if self.scheme not in SCHEME_NAMES:
            raise ValueError(
                f"unknown scheme {self.scheme!r}; choose one of {sorted(SCHEME_NAMES)}"
            )
        checked = {
            "dt": _check.positive(self.dt, "dt"),
            "gravity": _check.positive(self.gravity, "gravity"),
            "pgs_tol": _check.positive(self.pgs_tol, "pgs_tol"),
            "newton_tol": _check.positive(self.newton_tol, "newton_tol"),
            "pgs_max_iter": _check.positive_int(self.pgs_max_iter, "pgs_max_iter"),
            "newton_max_iter": _check.positive_int(self.newton_max_iter, "newton_max_iter"),
            "t_max": _check.non_negative(self.t_max, "t_max"),
            "rest_speed": _check.finite(self.rest_speed, "rest_speed"),
            "rest_time": _check.positive(self.rest_time, "rest_time"),
            "gap_tol": _check.non_negative(self.gap_tol, "gap_tol"),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The setting names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def replace(self, **settings: Any) -> Options:
        """A copy with some settings changed; ValueError for a name that is not a setting."""
        unknown = sorted(set(settings) - set(self.names()))
        if unknown:
            raise ValueError(
                f"unknown solver setting {unknown[0]!r}; the settings are {', '.join(self.names())}"
            )
        return dataclasses.replace(self, **settings) if settings else self

    @property
    def scheme_id(self) -> SchemeId:
        return SchemeId.from_label(self.scheme)

    @property
    def n_steps(self) -> int:
        """Step cap of a rock, ``ceil(t_max / dt)``."""
        return math.ceil(self.t_max / self.dt - 1e-9)

    @property
    def rest_steps(self) -> int:
        """Consecutive quiet steps that make a rock rest, ``ceil(rest_time / dt)`` (at least 1)."""
        return max(1, math.ceil(self.rest_time / self.dt - 1e-9))

    def rest_energy(self, mass: float) -> float:
        """Kinetic energy at or below which a rock of ``mass`` kg is quiet, J."""
        return 0.5 * mass * self.rest_speed * self.rest_speed

    def pack(self) -> np.ndarray:
        """The options vector of the kernels (``O_*`` layout)."""
        options = np.zeros(N_OPTIONS)
        options[O_DT] = self.dt
        options[O_GRAVITY] = self.gravity
        options[O_NEWTON_TOL] = self.newton_tol
        options[O_NEWTON_MAX_ITER] = self.newton_max_iter
        options[O_PGS_TOL] = self.pgs_tol
        options[O_PGS_MAX_ITER] = self.pgs_max_iter
        options[O_SCHEME] = int(self.scheme_id)
        options[O_GAP_TOL] = self.gap_tol
        return options


def resolve_options(options: Options | None, settings: dict[str, Any], base: Options) -> Options:
    """``options`` (or ``base`` when None) with the keyword ``settings`` applied."""
    if options is None:
        options = base
    elif not isinstance(options, Options):
        raise ValueError(f"options must be Options, got {type(options).__name__}")
    return options.replace(**settings)


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


def terrain_arrays(terrain: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(heights, grid)`` of a terrain object, validated (C-contiguous float64; NaN samples are
    holes, outside the domain)."""
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
    if np.isinf(heights).any():
        raise ValueError("terrain heights contain infinite values")
    if np.isnan(heights).all():
        raise ValueError("terrain heights are all NaN (nodata)")
    x0, y0 = _check.finite(grid[0], "terrain x0"), _check.finite(grid[1], "terrain y0")
    dx, dy = _check.positive(grid[2], "terrain dx"), _check.positive(grid[3], "terrain dy")
    return heights, np.array([x0, y0, dx, dy])


def pack_model(terrain: Any, rock: Rock | Body, soil: Soil, options: Options) -> RockModel:
    """Validate the model of a run and pack it into kernel arrays.

    Terrain: any object with the attributes ``heights`` (ny, nx) float64, ``x0``, ``y0``, ``dx``,
    ``dy`` (``heights[j, i]`` is the height at ``x = x0 + i dx``, ``y = y0 + j dy``), such as
    :class:`tumble.rockfall.Terrain`. Soil rasters of the terrain (``terrain.soil``, names of
    :data:`tumble.rockfall.soil.FIELDS`) replace the corresponding fields of the :class:`Soil`;
    a ``zone`` raster is not used by the engine.
    """
    if not isinstance(options, Options):
        raise ValueError(f"options must be Options, got {type(options).__name__}")
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
    body = np.array([rock.mass, *rock.inertia], dtype=np.float64)
    # a writeable copy: the ensemble driver passes per-rock (writeable) vertex arrays to the same
    # step kernel, which is then compiled once for both
    vertices = np.array(rock.vertices, dtype=np.float64, order="C")
    return RockModel(
        heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options.pack()
    )


def hull_radius(vertices: np.ndarray) -> float:
    """The largest distance of a hull vertex from the centre of mass, m."""
    return float(np.sqrt(np.max(np.einsum("ij,ij->i", vertices, vertices))))


def speed_bound(
    states: np.ndarray, bodies: np.ndarray, lowest: float, gravity: float
) -> np.ndarray:
    """An upper bound of the centre-of-mass speed of each rock over its whole run, m/s.

    ``states`` (n, STATE_SIZE) initial states, ``bodies`` (n, 4) rows ``(m, A, B, C)``,
    ``lowest`` the lowest height of the terrain (m). The contacts (Newton restitution at most 1,
    Coulomb friction) and the drag only dissipate (the energy balance of
    :mod:`tumble.rockfall.step.moreau`), so the total energy never exceeds its initial value and the
    centre of mass, never below ``lowest``, has ``m |v|^2 / 2 <= T_0 + m g (z_0 - lowest)``::

        V = sqrt(|v_0|^2 + omega_0 . Theta omega_0 / m + 2 g (z_0 - lowest))
    """
    v = states[:, S_V : S_V + 3]
    w = states[:, S_OMEGA : S_OMEGA + 3]
    spin2 = np.einsum("ij,ij->i", w * bodies[:, 1:4], w) / bodies[:, 0]
    drop = np.maximum(states[:, S_R + 2] - lowest, 0.0)
    speed2: np.ndarray = np.einsum("ij,ij->i", v, v) + spin2 + 2.0 * gravity * drop
    return np.sqrt(speed2)


def max_dt(radius: Any, dx: float, dy: float, speed: Any) -> np.ndarray:
    """The largest time step the contact model resolves, s (per rock; inf for a rock at rest
    on the lowest point): ``min(R, dx, dy) / V``.

    Derivation. A vertex contact closes when the gap at the midpoint of a step is at most zero
    (:func:`tumble.rockfall.step.detection.find_contacts`), so a vertex approaching the surface at
    speed ``V`` can be ``V dt`` below it before the percussion of the next step acts. This depth
    must stay below the rock's radius ``R`` (the largest distance of a hull vertex from the
    centre of mass): deeper, the vertex may have passed the surface further than the rock is
    wide, the contact frame is taken on the wrong side and the rock can end inside the ground
    (the status ``penetrated`` of the kernel, :func:`tumble.rockfall.step.moreau.penetrated`,
    catches a vertex deeper than ``R``). The travel of a step must also stay within one cell
    ``dx``, ``dy`` of the DEM, or the bilinear surface a contact meets is not the one between
    the positions of two steps. ``V`` is :func:`speed_bound`, the largest speed the rock can
    reach from its initial energy and the drop to the lowest point of the terrain (a rotating
    vertex moves faster by at most ``R |omega|``, within the same order). The bound is a
    sufficient condition for these two requirements, not a guarantee of accuracy: the published
    runs use dt = 2 ms (Leine et al. 2021), far below it.
    """
    length = np.minimum(np.asarray(radius, dtype=np.float64), min(dx, dy))
    speed = np.asarray(speed, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.where(speed > 0.0, length / np.where(speed > 0.0, speed, 1.0), np.inf)


def check_dt(
    dt: float,
    radius: np.ndarray,
    grid: np.ndarray,
    bodies: np.ndarray,
    states: np.ndarray,
    heights: np.ndarray,
    gravity: float,
) -> None:
    """ValueError naming the bound of :func:`max_dt` if ``dt`` exceeds it for any rock."""
    speed = speed_bound(states, bodies, float(np.nanmin(heights)), gravity)
    bound = max_dt(radius, float(grid[2]), float(grid[3]), speed)
    k = int(np.argmin(bound))
    if dt > bound[k]:
        raise ValueError(
            f"dt = {dt:g} s is too large: the contact model resolves steps up to "
            f"min(R, dx, dy) / V = {bound[k]:.3g} s here (rock {k}: radius R = {radius[k]:.3g} m, "
            f"grid dx = {grid[2]:g} m, dy = {grid[3]:g} m, speed bound V = {speed[k]:.3g} m/s "
            f"from its energy and the drop to the lowest point); use dt <= {bound[k]:.3g}"
        )


def initial_state(
    model: RockModel,
    position: Any,
    orientation: Any = (1.0, 0.0, 0.0, 0.0),
    velocity: Any = (0.0, 0.0, 0.0),
    omega: Any = (0.0, 0.0, 0.0),
    slippage: float = 0.0,
) -> np.ndarray:
    """Validated state vector; refuses a hull that starts outside the DEM or below the terrain."""
    r = _check.vector(position, 3, "position")
    p = _check.vector(orientation, 4, "orientation")
    # the norm as initial_states takes it for many rocks at once (the same operations)
    norm = float(np.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(
            f"orientation must be a unit quaternion (w, x, y, z); its norm is {norm:.6g}"
        )
    p = p / norm
    v = _check.vector(velocity, 3, "velocity")
    w = _check.vector(omega, 3, "omega")
    s = _check.finite(slippage, "slippage")
    if s < 0.0:
        raise ValueError(f"slippage must not be negative, got {s!r}")
    x0, y0, dx, dy = model.grid
    quat: Quat = (float(p[0]), float(p[1]), float(p[2]), float(p[3]))
    deepest = math.inf
    for k, vertex in enumerate(model.vertices):
        d = q_rotate(quat, (float(vertex[0]), float(vertex[1]), float(vertex[2])))
        px, py, pz = r[0] + d[0], r[1] + d[1], r[2] + d[2]
        z, _, inside = surface(model.heights, x0, y0, dx, dy, px, py)
        if not inside:
            x1 = x0 + (model.heights.shape[1] - 1) * dx
            y1 = y0 + (model.heights.shape[0] - 1) * dy
            where = (
                "into a nodata area of the DEM"
                if x0 <= px <= x1 and y0 <= py <= y1
                else f"outside the DEM, which covers x in [{x0:.10g}, {x1:.10g}], y in "
                f"[{y0:.10g}, {y1:.10g}]"
            )
            raise ValueError(
                f"the rock at {r.tolist()} reaches {where} (vertex {k} at x={px:.10g}, y={py:.10g})"
            )
        deepest = min(deepest, pz - z)
    if deepest < -START_GAP_TOLERANCE:
        raise ValueError(
            f"the rock starts below the terrain: a hull vertex lies {-deepest:.6g} m under the "
            "surface; raise the release position, or draw the release with the rocks' hulls "
            "(Release.draw(..., hulls=Hulls.of(rock)), as a run does), which lifts a rock that "
            "does not fit"
        )
    state = np.zeros(STATE_SIZE)
    state[S_R : S_R + 3] = r
    state[S_P : S_P + 4] = p
    state[S_V : S_V + 3] = v
    state[S_OMEGA : S_OMEGA + 3] = w
    state[S_SLIP] = s
    return state


def initial_states(
    model: RockModel,
    vertices: np.ndarray,
    position: np.ndarray,
    orientation: np.ndarray,
    velocity: np.ndarray,
    omega: np.ndarray,
) -> np.ndarray:
    """:func:`initial_state` of n rocks at once, the same numbers: ``vertices`` (n, m, 3) each
    rock's hull (rows of NaN pad a hull of fewer vertices), the other arguments (n, 3) or
    (n, 4). A rock it refuses raises the error of :func:`initial_state`, with the rock's index
    (``rock k: ...``). A rock within a round-off margin of a refusal (a vertex near the edge of
    the grid or near the surface) is checked by :func:`initial_state` itself."""
    n = position.shape[0]
    arrays = (position, orientation, velocity, omega)
    finite = np.all(np.isfinite(np.hstack(arrays)), axis=1)
    p = orientation
    norm = np.sqrt(p[:, 0] * p[:, 0] + p[:, 1] * p[:, 1] + p[:, 2] * p[:, 2] + p[:, 3] * p[:, 3])
    suspect = ~finite | ~(np.abs(norm - 1.0) <= UNIT_TOLERANCE)
    unit = p / np.where(suspect, 1.0, norm)[:, None]
    matrix = quat_to_matrix(np.where(suspect[:, None], [1.0, 0.0, 0.0, 0.0], unit))
    x0, y0, dx, dy = (float(v) for v in model.grid)
    x1 = x0 + (model.heights.shape[1] - 1) * dx
    y1 = y0 + (model.heights.shape[0] - 1) * dy
    margin = 1e-9 * (1.0 + abs(x0) + abs(x1) + abs(y0) + abs(y1))
    deepest = np.full(n, np.inf)
    z = np.empty(n)
    normal = np.empty((n, 3))
    inside = np.empty(n, dtype=np.bool_)
    for j in range(vertices.shape[1]):
        vertex = vertices[:, j, :]
        real = ~np.isnan(vertex[:, 0])
        world = position + np.einsum("nij,nj->ni", matrix, np.where(real[:, None], vertex, 0.0))
        surface_batch(model.heights, x0, y0, dx, dy, world[:, 0], world[:, 1], z, normal, inside)
        near_edge = (
            (np.abs(world[:, 0] - x0) < margin)
            | (np.abs(world[:, 0] - x1) < margin)
            | (np.abs(world[:, 1] - y0) < margin)
            | (np.abs(world[:, 1] - y1) < margin)
        )
        suspect |= real & (~inside | near_edge)
        deepest = np.where(real & inside, np.minimum(deepest, world[:, 2] - z), deepest)
    suspect |= deepest < -START_GAP_TOLERANCE + 1e-9
    states = np.zeros((n, STATE_SIZE))
    states[:, S_R : S_R + 3] = position
    states[:, S_P : S_P + 4] = unit
    states[:, S_V : S_V + 3] = velocity
    states[:, S_OMEGA : S_OMEGA + 3] = omega
    for k in np.flatnonzero(suspect):
        hull = vertices[k][~np.isnan(vertices[k, :, 0])]
        try:
            states[k] = initial_state(
                model._replace(vertices=hull),
                position[k],
                orientation[k],
                velocity[k],
                omega[k],
            )
        except ValueError as err:
            raise ValueError(f"rock {k}: {err}") from None
    return states
