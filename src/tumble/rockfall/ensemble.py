"""Rockfall ensembles: many rocks on one terrain, a compiled parallel driver, chunks that resume.

Model and rocks. An :class:`Ensemble` holds what all rocks share (the terrain, the soil, the
options of :func:`tumble.rockfall.simulate.pack_model`) and what each rock owns: its initial state
(:class:`tumble.rockfall.release.ReleaseStates`) and its body, taken from a small table of shapes
(``shapes``, a tuple of :class:`tumble.rockfall.Rock`) by ``shape_id``, scaled isotropically by
``scale`` and carrying the mass ``mass``. Rock k has the vertices ``scale_k V_s``, the mass
``m_k`` (default ``m_s scale_k^3``) and the principal moments ``Theta_s (m_k / m_s) scale_k^2``
of its shape s, so the Authume releases (a shape id, a scale and a mass per rock) run through the
same driver as an ensemble of identical EOTA221 rocks. Per-cell soil rasters of the terrain are
used as in :func:`tumble.rockfall.simulate`.

Driver. :func:`run_rocks` is one compiled kernel with a ``prange`` loop over the rocks of a chunk;
each iteration allocates the rock's vertex and contact buffers once and calls
:func:`tumble.rockfall.moreau.rock_step` until the rock stops, leaves the DEM, fails or reaches
``t_max``, with the stopping rules of :func:`tumble.rockfall.simulate`
(:func:`tumble.rockfall.moreau.stopping_rules`; so rock k of an ensemble is bit-identical to
``simulate`` of the same rock, :meth:`Ensemble.trajectory`). Every rock writes only its own
outputs:

* status, steps, the final state, the number of steps with a closed contact and of Gauss-Seidel
  iterations that hit their cap;
* per-rock maxima over all steps of the kinetic energy (translation plus rotation, J), the speed
  (m/s), the rotational velocity (``|omega| / 2 pi``, rot/s) and the jump height (the centre of
  mass above the terrain below it, after steps without a closed contact, m);
* path statistics: count, mean and sum of squared deviations (Welford) of the same four
  quantities over the samples every ``sample_every`` steps while the rock moves (kinetic energy
  above the rest threshold), the jump height over the samples in flight only;
* its cell visits: the DEM cell (nearest sample, i.e. the GeoTIFF pixel) of the centre of mass
  after every step, with the four maxima while it stays there; a new visit starts when it moves
  to another cell. A rock with more visits than its buffer holds is run again with a buffer of
  the right size.

Nothing is accumulated across rocks inside the parallel loop: rasters and statistics are reduced
afterwards, in rock order (:mod:`tumble.rockfall.hazard`). Random numbers are drawn before the
kernel, one stream per rock (:mod:`tumble.rockfall.release`). Hence the results are bit-identical
for any number of threads, any chunk size, and on Dask (:mod:`tumble.rockfall.distributed`).

Chunks. :func:`run_chunks` splits rocks ``0 .. n-1`` into chunks of ``chunk_size`` and writes
each finished chunk to ``DIR/chunks/chunk_NNNNNN.npz`` (written under a temporary name, then
renamed, so a chunk file is complete or absent). ``DIR/chunks/manifest.json`` records a
fingerprint of the model and the rocks (hash of every kernel input), the number of rocks and the
chunk size; with ``resume=True`` only the missing chunks are computed (an interrupted run gives
exactly the numbers of an uninterrupted one), a finished run is not recomputed, and chunks of
another model are refused.

Speed. With the defaults the ensemble uses a Gauss-Seidel tolerance of :data:`PGS_TOL` (relative
change of the percussions between sweeps, 1e-6 instead of the 1e-10 of a single
:func:`tumble.rockfall.simulate`); see the benchmark ``benchmarks/rockfall_ensemble.py``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tumble._jit import jit, jit_parallel, prange, set_threads
from tumble.rockfall.contact import NCOL, forget_percussions
from tumble.rockfall.moreau import (
    D_CAPPED,
    D_CONTACTS,
    N_DIAG,
    S_OMEGA,
    S_R,
    S_V,
    STATE_SIZE,
    kinetic_energy,
    rock_step,
    stopping_rules,
)
from tumble.rockfall.release import ReleaseStates
from tumble.rockfall.rock import Rock
from tumble.rockfall.simulate import (
    DT,
    GRAVITY,
    NEWTON_MAX_ITER,
    NEWTON_TOL,
    PGS_MAX_ITER,
    REST_SPEED,
    REST_TIME,
    RockTrajectory,
    _finite,
    _positive,
    initial_state,
    pack_model,
    simulate,
)
from tumble.rockfall.soil import Soil
from tumble.rockfall.status import RUNNING, TIMED_OUT
from tumble.rockfall.terrain import bilinear

#: Gauss-Seidel tolerance of ensembles (relative change of the percussions between two sweeps).
#: 1e-6 leaves the percussions, and so the velocities, with relative errors of about 1e-6 per
#: impact, far below the spread of an ensemble; it halves the sweeps of rolling contacts.
PGS_TOL = 1e-6
#: default duration, s
T_MAX = 60.0
#: default path sampling, steps (0.01 s at dt = 0.002 s)
SAMPLE_EVERY = 5
#: default number of rocks per chunk
CHUNK_SIZE = 100
#: initial capacity of the cell-visit buffer of a rock
VISIT_CAPACITY = 2048

#: columns of the per-rock maxima, the path statistics and the cell visits
Q_ENERGY, Q_SPEED, Q_ROTATION, Q_JUMP = range(4)
N_QUANTITIES = 4
QUANTITIES = ("kinetic_energy", "velocity", "rotational_velocity", "jump_height")
#: Welford accumulators of the path statistics: count, mean, sum of squared deviations
W_COUNT, W_MEAN, W_M2 = range(3)

#: per-rock integer outputs of the kernel
R_STATUS, R_STEPS, R_CONTACT_STEPS, R_PGS_CAPS, R_VISITS = range(5)
N_ROCK_INTS = 5


# ---------------------------------------------------------------------------------------------
# kernels


@jit
def _cell(grid, nx, ny, x, y):
    """Index ``j nx + i`` of the DEM sample nearest to (x, y) (its pixel), -1 off the grid."""
    u = (x - grid[0]) / grid[2] + 0.5
    v = (y - grid[1]) / grid[3] + 0.5
    if not (u >= 0.0 and v >= 0.0 and u < nx and v < ny):
        return -1
    return int(v) * nx + int(u)


@jit
def _welford(acc, q, x):
    n = acc[q, W_COUNT] + 1.0
    delta = x - acc[q, W_MEAN]
    acc[q, W_COUNT] = n
    acc[q, W_MEAN] += delta / n
    acc[q, W_M2] += delta * (x - acc[q, W_MEAN])


@jit
def run_one(model, state, contacts, diag, n_steps, rest_energy, rest_steps, sample_every, out):
    """Run one rock to its end, writing its maxima, path statistics and cell visits.

    ``model`` is the kernel tuple of :mod:`tumble.rockfall.moreau`; the stepping and the stopping
    rules are those of :func:`tumble.rockfall.moreau.run_rock` (both end with
    :func:`tumble.rockfall.moreau.stopping_rules`). ``out`` holds the rock's own outputs
    ``(maxima (4,), path (4, 3), visit_cell (cap,), visit_value (cap, 4), counts
    (N_ROCK_INTS,))``; visits beyond the capacity are counted but not stored.
    """
    heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options = model
    maxima, path, visit_cell, visit_value, counts = out
    ny = heights.shape[0]
    nx = heights.shape[1]
    capacity = visit_cell.shape[0]
    two_pi = 2.0 * math.pi
    forget_percussions(contacts)
    for q in range(N_QUANTITIES):
        maxima[q] = -math.inf
        for c in range(3):
            path[q, c] = 0.0
    visits = 0
    current = -2
    contact_steps = 0
    caps = 0
    status = RUNNING if n_steps > 0 else TIMED_OUT
    done = 0
    quiet = 0
    while status == RUNNING:
        code = rock_step(
            heights,
            grid,
            soil_values,
            soil_index,
            soil_rasters,
            vertices,
            body,
            options,
            state,
            contacts,
            diag,
        )
        energy = kinetic_energy(body, state)
        status, step, quiet = stopping_rules(
            code, energy, done, quiet, n_steps, rest_energy, rest_steps
        )
        if step == done:
            break
        done = step
        flying = diag[D_CONTACTS] == 0.0
        if not flying:
            contact_steps += 1
        caps += int(diag[D_CAPPED])
        speed = math.sqrt(
            state[S_V] * state[S_V]
            + state[S_V + 1] * state[S_V + 1]
            + state[S_V + 2] * state[S_V + 2]
        )
        rotation = (
            math.sqrt(
                state[S_OMEGA] * state[S_OMEGA]
                + state[S_OMEGA + 1] * state[S_OMEGA + 1]
                + state[S_OMEGA + 2] * state[S_OMEGA + 2]
            )
            / two_pi
        )
        jump = -math.inf
        if flying:
            # the height of _height (simulate's), without the normal
            z, inside = bilinear(
                heights, grid[0], grid[1], grid[2], grid[3], state[S_R], state[S_R + 1]
            )
            if inside:
                jump = state[S_R + 2] - z
        maxima[Q_ENERGY] = max(maxima[Q_ENERGY], energy)
        maxima[Q_SPEED] = max(maxima[Q_SPEED], speed)
        maxima[Q_ROTATION] = max(maxima[Q_ROTATION], rotation)
        maxima[Q_JUMP] = max(maxima[Q_JUMP], jump)
        # cell visits
        cell = _cell(grid, nx, ny, state[S_R], state[S_R + 1])
        if cell != current:
            current = cell
            if cell >= 0:
                if visits < capacity:
                    visit_cell[visits] = cell
                    visit_value[visits, Q_ENERGY] = energy
                    visit_value[visits, Q_SPEED] = speed
                    visit_value[visits, Q_ROTATION] = rotation
                    visit_value[visits, Q_JUMP] = jump
                visits += 1
        elif cell >= 0 and visits <= capacity:
            v = visits - 1
            visit_value[v, Q_ENERGY] = max(visit_value[v, Q_ENERGY], energy)
            visit_value[v, Q_SPEED] = max(visit_value[v, Q_SPEED], speed)
            visit_value[v, Q_ROTATION] = max(visit_value[v, Q_ROTATION], rotation)
            visit_value[v, Q_JUMP] = max(visit_value[v, Q_JUMP], jump)
        # path samples of the moving rock
        if step % sample_every == 0 and energy > rest_energy:
            _welford(path, Q_ENERGY, energy)
            _welford(path, Q_SPEED, speed)
            _welford(path, Q_ROTATION, rotation)
            if flying and jump > -math.inf:
                _welford(path, Q_JUMP, jump)
    counts[R_STATUS] = status
    counts[R_STEPS] = done
    counts[R_CONTACT_STEPS] = contact_steps
    counts[R_PGS_CAPS] = caps
    counts[R_VISITS] = visits


@jit_parallel
def run_rocks(
    heights,
    grid,
    soil_values,
    soil_index,
    soil_rasters,
    shape_vertices,
    shape_counts,
    options,
    shape_id,
    scale,
    bodies,
    states,
    n_steps,
    rest_speed,
    rest_steps,
    sample_every,
    maxima,
    path,
    visit_cell,
    visit_value,
    counts,
):
    """Run rocks ``0 .. n-1`` of a chunk in parallel (module docstring); ``states`` (n,
    STATE_SIZE) holds the initial states and receives the final ones."""
    for k in prange(states.shape[0]):
        s = shape_id[k]
        m = shape_counts[s]
        vertices = np.empty((m, 3))
        for a in range(m):
            for b in range(3):
                vertices[a, b] = shape_vertices[s, a, b] * scale[k]
        contacts = np.zeros((m, NCOL))
        diag = np.zeros(N_DIAG)
        rest_energy = 0.5 * bodies[k, 0] * rest_speed * rest_speed
        model = (heights, grid, soil_values, soil_index, soil_rasters, vertices, bodies[k], options)
        run_one(
            model,
            states[k],
            contacts,
            diag,
            n_steps,
            rest_energy,
            rest_steps,
            sample_every,
            (maxima[k], path[k], visit_cell[k], visit_value[k], counts[k]),
        )


# ---------------------------------------------------------------------------------------------
# the Python API


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


@dataclass(eq=False)
class Ensemble:
    """Rocks released on one terrain (module docstring); validated on construction.

    ``shapes``: one :class:`Rock` or a sequence of them; ``states``: the initial states of the n
    rocks; ``shape_id`` (n,) index into ``shapes`` (default 0); ``scale`` (n,) isotropic scale
    of the shape (default 1); ``mass`` (n,) kg (default the shape's mass times ``scale^3``).
    ``seed`` is recorded with the results. The other fields are those of
    :func:`tumble.rockfall.simulate`, plus ``sample_every`` (steps between path samples).
    """

    terrain: object
    shapes: Rock | Sequence[Rock]
    soil: Soil
    states: ReleaseStates
    scheme: str = "implicit"
    dt: float = DT
    t_max: float = T_MAX
    shape_id: np.ndarray | None = None
    scale: np.ndarray | None = None
    mass: np.ndarray | None = None
    seed: int | None = None
    sample_every: int = SAMPLE_EVERY
    rest_speed: float = REST_SPEED
    rest_time: float = REST_TIME
    gravity: float = GRAVITY
    pgs_tol: float = PGS_TOL
    pgs_max_iter: int = PGS_MAX_ITER
    newton_tol: float = NEWTON_TOL
    newton_max_iter: int = NEWTON_MAX_ITER
    _packed: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        shapes = (self.shapes,) if isinstance(self.shapes, Rock) else tuple(self.shapes)
        if not shapes or not all(isinstance(s, Rock) for s in shapes):
            raise ValueError("shapes must be a Rock or a non-empty sequence of Rocks")
        self.shapes = shapes
        if not isinstance(self.states, ReleaseStates):
            raise ValueError("states must be ReleaseStates (see Release.draw)")
        n = len(self.states)
        if self.shape_id is None:
            shape_id = np.zeros(n, dtype=np.int64)
        else:
            shape_id = np.asarray(self.shape_id)
            if shape_id.shape != (n,) or not np.issubdtype(shape_id.dtype, np.integer):
                raise ValueError(f"shape_id must be {n} integers")
            if shape_id.min() < 0 or shape_id.max() >= len(shapes):
                raise ValueError(f"shape_id must index the {len(shapes)} shapes")
        self.shape_id = np.ascontiguousarray(shape_id, dtype=np.int64)
        scale = np.ones(n) if self.scale is None else np.asarray(self.scale, dtype=np.float64)
        if scale.shape != (n,) or not np.all(np.isfinite(scale)) or np.any(scale <= 0.0):
            raise ValueError(f"scale must be {n} positive numbers")
        self.scale = np.ascontiguousarray(scale)
        shape_mass = np.array([s.mass for s in shapes])[self.shape_id]
        if self.mass is None:
            mass = shape_mass * self.scale**3
        else:
            mass = np.asarray(self.mass, dtype=np.float64)
            if mass.shape != (n,):
                raise ValueError(f"mass must have one value per rock ({n}), got {mass.shape}")
            bad = np.flatnonzero(~(np.isfinite(mass) & (mass > 0.0)))
            if bad.size:
                raise ValueError(
                    f"rock.mass must be positive: rock {bad[0]} has mass {mass[bad[0]]!r}"
                )
        self.mass = np.ascontiguousarray(mass)
        self.t_max = _positive(self.t_max, "t_max")
        self.sample_every = _positive_int(self.sample_every, "sample_every")
        self.rest_speed = _finite(self.rest_speed, "rest_speed")
        self.rest_time = _positive(self.rest_time, "rest_time")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer)
        ):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")
        model = pack_model(
            self.terrain,
            shapes[0],
            self.soil,
            self.scheme,
            self.dt,
            self.gravity,
            self.pgs_tol,
            self.pgs_max_iter,
            self.newton_tol,
            self.newton_max_iter,
        )
        self.dt = float(model.options[0])
        counts = np.array([s.n_vertices for s in shapes], dtype=np.int64)
        table = np.zeros((len(shapes), int(counts.max()), 3))
        for i, s in enumerate(shapes):
            table[i, : s.n_vertices] = s.vertices
        inertia = np.array([s.inertia for s in shapes])[self.shape_id]
        ratio = self.mass / shape_mass
        inertia = inertia * ratio[:, None] * (self.scale**2)[:, None]
        bodies = np.ascontiguousarray(np.column_stack([self.mass, inertia]))
        states = np.empty((n, STATE_SIZE))
        for k in range(n):
            rock_model = model._replace(vertices=self._vertices(k), body=bodies[k])
            try:
                states[k] = initial_state(
                    rock_model,
                    self.states.position[k],
                    self.states.orientation[k],
                    self.states.velocity[k],
                    self.states.omega[k],
                )
            except ValueError as err:
                raise ValueError(f"release.height: rock {k}: {err}") from None
        self._packed = {
            "model": model,
            "shape_vertices": table,
            "shape_counts": counts,
            "bodies": bodies,
            "states": states,
            "n_steps": math.ceil(self.t_max / self.dt - 1e-9),
            "rest_steps": max(1, math.ceil(self.rest_time / self.dt - 1e-9)),
        }

    def __setstate__(self, state: dict) -> None:
        # unpickled arrays come back writeable; the kernels are compiled for a read-only DEM
        self.__dict__.update(state)
        self._packed["model"].heights.flags.writeable = False

    # --- one rock ------------------------------------------------------------------------------

    @property
    def n_rocks(self) -> int:
        return len(self.states)

    @property
    def n_steps(self) -> int:
        """Step cap of every rock, ``ceil(t_max / dt)``."""
        return int(self._packed["n_steps"])

    def _vertices(self, k: int) -> np.ndarray:
        shape = self.shapes[int(self.shape_id[k])]
        return np.ascontiguousarray(shape.vertices * self.scale[k])

    def rock(self, k: int) -> Rock:
        """The body of rock ``k`` (its shape scaled, with its mass)."""
        shape = self.shapes[int(self.shape_id[k])]
        s = float(self.scale[k])
        inertia = shape.inertia * (self.mass[k] / shape.mass) * s**2
        return Rock(
            shape.name, float(self.mass[k]), inertia, self._vertices(k), shape.volume * s**3
        )

    def trajectory(self, k: int, save_every: int = 1) -> RockTrajectory:
        """Rock ``k`` simulated by itself with :func:`tumble.rockfall.simulate`: the same
        numbers as inside the ensemble, with the samples saved."""
        if not 0 <= k < self.n_rocks:
            raise ValueError(f"rock index must be in [0, {self.n_rocks}), got {k}")
        return simulate(
            self.terrain,
            self.rock(k),
            self.soil,
            self.states.position[k],
            self.states.orientation[k],
            self.states.velocity[k],
            self.states.omega[k],
            scheme=self.scheme,
            dt=self.dt,
            t_max=self.t_max,
            save_every=save_every,
            rest_speed=self.rest_speed,
            rest_time=self.rest_time,
            gravity=self.gravity,
            pgs_tol=self.pgs_tol,
            pgs_max_iter=self.pgs_max_iter,
            newton_tol=self.newton_tol,
            newton_max_iter=self.newton_max_iter,
        )

    def fingerprint(self) -> str:
        """Hash of every kernel input: equal fingerprints give equal results."""
        digest = hashlib.sha256()
        p = self._packed
        arrays = [*p["model"][:5], p["model"].options, p["shape_vertices"], p["shape_counts"]]
        arrays += [self.shape_id, self.scale, p["bodies"], p["states"]]
        for array in arrays:
            a = np.ascontiguousarray(array)
            digest.update(str((a.dtype.str, a.shape)).encode())
            digest.update(a.tobytes())
        scalars = (p["n_steps"], p["rest_steps"], self.rest_speed, self.sample_every)
        digest.update(repr(scalars).encode())
        return digest.hexdigest()[:32]

    # --- chunks --------------------------------------------------------------------------------

    def run_chunk(self, start: int, stop: int, threads: int | None = None) -> dict:
        """Simulate rocks ``start .. stop - 1``; returns the chunk's arrays (module docstring).

        ``threads`` sets the number of threads of the parallel loop for this call (default:
        the current setting)."""
        if not 0 <= start < stop <= self.n_rocks:
            raise ValueError(f"chunk [{start}, {stop}) is not within the {self.n_rocks} rocks")
        previous = set_threads(threads) if threads is not None else None
        try:
            return self._run_chunk(start, stop)
        finally:
            if previous is not None:
                set_threads(previous)

    def warm_up(self) -> float:
        """Compile (or load from the cache) the parallel kernel for this ensemble's array types
        without simulating a rock; returns the seconds it took."""
        t0 = time.perf_counter()
        self._kernel(np.zeros(0, dtype=np.int64), 1)
        return time.perf_counter() - t0

    def _kernel(self, rocks: np.ndarray, capacity: int) -> tuple:
        p = self._packed
        model = p["model"]
        m = rocks.size
        states = np.ascontiguousarray(p["states"][rocks])
        maxima = np.zeros((m, N_QUANTITIES))
        path = np.zeros((m, N_QUANTITIES, 3))
        visit_cell = np.zeros((m, capacity), dtype=np.int64)
        visit_value = np.zeros((m, capacity, N_QUANTITIES))
        counts = np.zeros((m, N_ROCK_INTS), dtype=np.int64)
        run_rocks(
            model.heights,
            model.grid,
            model.soil_values,
            model.soil_index,
            model.soil_rasters,
            p["shape_vertices"],
            p["shape_counts"],
            model.options,
            np.ascontiguousarray(self.shape_id[rocks]),
            np.ascontiguousarray(self.scale[rocks]),
            np.ascontiguousarray(p["bodies"][rocks]),
            states,
            p["n_steps"],
            float(self.rest_speed),
            p["rest_steps"],
            self.sample_every,
            maxima,
            path,
            visit_cell,
            visit_value,
            counts,
        )
        return states, maxima, path, visit_cell, visit_value, counts

    def _run_chunk(self, start: int, stop: int) -> dict:
        rocks = np.arange(start, stop, dtype=np.int64)
        states, maxima, path, visit_cell, visit_value, counts = self._kernel(rocks, VISIT_CAPACITY)
        cells, values = [], []
        for i in range(rocks.size):
            n = int(counts[i, R_VISITS])
            if n > VISIT_CAPACITY:  # run this rock again with room for all its visits
                _, _, _, vc, vv, again = self._kernel(rocks[i : i + 1], n)
                if not np.array_equal(again[0], counts[i]):
                    raise RuntimeError(f"rock {rocks[i]} did not repeat itself")
                cells.append(vc[0, :n])
                values.append(vv[0, :n])
            else:
                cells.append(visit_cell[i, :n])
                values.append(visit_value[i, :n])
        lengths = np.array([c.size for c in cells], dtype=np.int64)
        visit_rock = np.repeat(rocks, lengths)
        visit_cell = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
        visit_value = np.concatenate(values) if values else np.zeros((0, N_QUANTITIES))
        visit_rock, visit_cell, visit_value = _merge_visits(visit_rock, visit_cell, visit_value)
        maxima[np.isneginf(maxima)] = np.nan
        visit_value[np.isneginf(visit_value)] = np.nan
        return {
            "rock": rocks,
            "status": counts[:, R_STATUS].copy(),
            "steps": counts[:, R_STEPS].copy(),
            "contact_steps": counts[:, R_CONTACT_STEPS].copy(),
            "pgs_caps": counts[:, R_PGS_CAPS].copy(),
            "final_state": states,
            "maxima": maxima,
            "path": path,
            "visit_rock": visit_rock,
            "visit_cell": visit_cell,
            "visit_max": visit_value,
        }

    def chunks(self, chunk_size: int = CHUNK_SIZE) -> list[tuple[int, int]]:
        """``(start, stop)`` of every chunk."""
        size = _positive_int(chunk_size, "chunk_size")
        return [(a, min(a + size, self.n_rocks)) for a in range(0, self.n_rocks, size)]

    def run(
        self,
        threads: int | None = None,
        chunk_size: int = CHUNK_SIZE,
        progress: bool | None = False,
    ):
        """Simulate every rock in memory; returns :class:`tumble.rockfall.hazard.EnsembleResult`."""
        from tumble.rockfall.hazard import reduce_chunks

        chunks = []
        t0 = time.perf_counter()
        with _progress_bar(self.n_rocks, 0, progress) as bar:
            for start, stop in self.chunks(chunk_size):
                chunks.append(self.run_chunk(start, stop, threads))
                bar.update(stop - start)
        return reduce_chunks(self, chunks, wall_time=time.perf_counter() - t0)


def _merge_visits(rock, cell, value):
    """One row per (rock, cell): the maxima over the rock's visits of the cell, sorted by rock
    and cell (NaN-free: -inf stands for no flight)."""
    if rock.size == 0:
        return rock, cell, value
    order = np.lexsort((cell, rock))
    rock, cell, value = rock[order], cell[order], value[order]
    first = np.ones(rock.size, dtype=bool)
    first[1:] = (rock[1:] != rock[:-1]) | (cell[1:] != cell[:-1])
    starts = np.flatnonzero(first)
    return rock[starts], cell[starts], np.maximum.reduceat(value, starts, axis=0)


# ---------------------------------------------------------------------------------------------
# chunk files


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def _progress_bar(total: int, initial: int, progress: bool | None):
    """tqdm on a terminal (``progress=None``), always (True) or never (False)."""
    if progress is False:
        return _NoBar()
    from tqdm import tqdm

    disable = None if progress is None else False
    if progress is None and not sys.stderr.isatty():
        return _NoBar()
    return tqdm(total=total, initial=initial, unit="rock", disable=disable, dynamic_ncols=True)


def chunk_path(directory: Path, index: int) -> Path:
    return Path(directory) / "chunks" / f"chunk_{index:06d}.npz"


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_chunk(directory: Path, index: int, chunk: dict) -> Path:
    """Write a chunk atomically (temporary name, then rename)."""
    path = chunk_path(directory, index)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as handle:
            np.savez(handle, **chunk)

    _write_atomic(path, write)
    return path


def read_chunk(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def write_json_atomic(path: Path, content: dict) -> None:
    text = json.dumps(content, indent=2, default=str) + "\n"
    _write_atomic(Path(path), lambda tmp: tmp.write_text(text))


@dataclass
class ChunkRun:
    """What :func:`run_chunks` did: all chunks (in rock order), how many it computed now, and
    the wall time of simulation over every session that contributed chunks."""

    chunks: list[dict]
    computed: int
    wall_time: float
    steps: int


def run_chunks(
    ensemble: Ensemble,
    directory: str | os.PathLike,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    dask: str | None = None,
    progress: bool | None = None,
    max_chunks: int | None = None,
) -> ChunkRun:
    """Compute the chunks of ``ensemble`` under ``directory/chunks`` (module docstring).

    ``resume``: reuse the chunks already there (same fingerprint) and compute the missing ones;
    without it a directory that holds chunks is refused. ``chunk_size`` defaults to
    :data:`CHUNK_SIZE` (on resume, to the interrupted run's). ``dask``: a scheduler address or
    ``local:N`` (:mod:`tumble.rockfall.distributed`). ``max_chunks`` stops after computing that
    many chunks (the run is then incomplete: ``computed`` < missing; resume it later).
    """
    directory = Path(directory)
    chunk_dir = directory / "chunks"
    manifest_path = chunk_dir / "manifest.json"
    for stale in chunk_dir.glob(".*.partial"):  # left by a killed run
        stale.unlink(missing_ok=True)
    fingerprint = ensemble.fingerprint()
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as err:
            raise ValueError(f"{manifest_path} is unreadable ({err}); remove {directory}") from None
        if not resume:
            raise ValueError(
                f"{directory} already holds the chunks of a run; pass --resume to finish or "
                "reuse it, or choose another --out"
            )
        if manifest.get("fingerprint") != fingerprint or manifest.get("n_rocks") != (
            ensemble.n_rocks
        ):
            raise ValueError(
                f"{directory} holds the chunks of a different run (other inputs or number of "
                "rocks); --resume needs the same configuration, or choose another --out"
            )
        if chunk_size is not None and int(chunk_size) != manifest["chunk_size"]:
            raise ValueError(
                f"chunk_size {chunk_size} differs from the interrupted run's "
                f"{manifest['chunk_size']}; resume with the same chunk size"
            )
        chunk_size = int(manifest["chunk_size"])
    else:
        if any(chunk_dir.glob("chunk_*.npz")):
            raise ValueError(
                f"{chunk_dir} holds chunk files but no manifest.json; remove them or choose "
                "another --out"
            )
        chunk_size = CHUNK_SIZE if chunk_size is None else chunk_size
        # written with the first chunk, so that a run failing before leaves nothing behind
        manifest = {
            "fingerprint": fingerprint,
            "n_rocks": ensemble.n_rocks,
            "chunk_size": _positive_int(chunk_size, "chunk_size"),
            "sessions": [],
        }
    spans = ensemble.chunks(chunk_size)
    missing = [i for i in range(len(spans)) if not chunk_path(directory, i).exists()]
    if max_chunks is not None:
        missing = missing[: _positive_int(max_chunks, "max_chunks")]
    done_rocks = ensemble.n_rocks - sum(spans[i][1] - spans[i][0] for i in missing)
    steps_now = 0
    chunks_now = 0
    if missing:
        t0 = time.perf_counter()

        def finished(index: int, chunk: dict) -> None:
            nonlocal steps_now, chunks_now
            if not manifest_path.exists():
                write_json_atomic(manifest_path, manifest)
            write_chunk(directory, index, chunk)
            steps_now += int(chunk["steps"].sum())
            chunks_now += 1
            bar.update(spans[index][1] - spans[index][0])

        try:
            with _progress_bar(ensemble.n_rocks, done_rocks, progress) as bar:
                if dask:
                    from tumble.rockfall.distributed import run_on_dask

                    run_on_dask(ensemble, [(i, *spans[i]) for i in missing], dask, finished)
                else:
                    previous = set_threads(threads) if threads is not None else None
                    try:
                        t0 += ensemble.warm_up()
                        for i in missing:
                            finished(i, ensemble._run_chunk(*spans[i]))
                    finally:
                        if previous is not None:
                            set_threads(previous)
        finally:
            if chunks_now:
                manifest["sessions"].append(
                    {
                        "chunks": chunks_now,
                        "steps": steps_now,
                        "wall_time_s": time.perf_counter() - t0,
                    }
                )
                write_json_atomic(manifest_path, manifest)
    chunks = []
    for i in range(len(spans)):
        path = chunk_path(directory, i)
        if path.exists():
            chunks.append(read_chunk(path))
    wall = float(sum(s["wall_time_s"] for s in manifest["sessions"]))
    steps = int(sum(int(c["steps"].sum()) for c in chunks))
    return ChunkRun(chunks, chunks_now, wall, steps)


def chunk_task(ensemble: Ensemble, index: int, start: int, stop: int, threads: int = 1):
    """The unit of work sent to a Dask worker: ``(index, chunk)``."""
    return index, ensemble.run_chunk(start, stop, threads)


# ---------------------------------------------------------------------------------------------
# from a configuration


def _terrain(config, base: Path):
    from tumble.rockfall.terrain import Terrain

    if config.dem is not None:
        path = Path(config.dem)
        path = path if path.is_absolute() else base / path
        try:
            return Terrain.from_file(path)
        except (ValueError, OSError) as err:
            raise ValueError(f"dem: {err}") from None
    name = config.scenario or "slope40"
    try:
        return Terrain.scenario(name)
    except ValueError as err:
        raise ValueError(f"scenario: {err}") from None


def _rock(config, base: Path) -> Rock:
    c = config.rock
    try:
        if c.shape in ("eota221", "eota111"):
            if c.box is not None or c.file is not None:
                raise ValueError(f"rock.box and rock.file do not apply to rock.shape = {c.shape}")
            mass = 780.0 if c.mass is None and c.size is None else c.mass
            build = Rock.eota221 if c.shape == "eota221" else Rock.eota111
            return build(size=c.size, mass=mass, density=c.density)
        if c.size is not None:
            raise ValueError(f"rock.size applies to the EOTA shapes, not rock.shape = {c.shape}")
        if c.shape == "box":
            if c.box is None:
                raise ValueError("rock.box = [a, b, c] (m) is required with rock.shape = 'box'")
            return Rock.box(*c.box, density=c.density, mass=c.mass)
        if c.file is None:
            raise ValueError("rock.file is required with rock.shape = 'file'")
        path = Path(c.file)
        return Rock.from_file(path if path.is_absolute() else base / path, c.density, c.mass)
    except ValueError as err:
        message = str(err)
        raise ValueError(message if message.startswith("rock.") else f"rock: {message}") from None


def _soil(config, terrain, base: Path):
    from tumble.rockfall.soil import FIELDS, PRESETS

    c = config.soil
    values = {}
    rasters = {}
    for name in FIELDS:
        value = getattr(c, name)
        if isinstance(value, str):
            path = Path(value)
            rasters[name] = path if path.is_absolute() else base / path
        elif value is not None:
            values[name] = value
    if c.preset is not None and c.preset not in PRESETS:
        raise ValueError(
            f"soil.preset: unknown preset {c.preset!r}; choose one of {sorted(PRESETS)}"
        )
    try:
        if rasters:
            terrain = terrain.with_soil(**rasters)
            values.update({name: terrain.soil[name] for name in rasters})
        if c.preset is not None:
            soil = Soil.preset(c.preset, **values)
        else:
            missing = [n for n in ("mu_min", "mu_max", "kappa", "beta") if n not in values]
            if missing:
                raise ValueError(
                    f"without soil.preset give {', '.join('soil.' + m for m in missing)}"
                )
            soil = Soil(**values)
    except (ValueError, OSError) as err:
        message = str(err)
        raise ValueError(message if message.startswith("soil") else f"soil: {message}") from None
    return soil, terrain


def build_ensemble(config, base_dir: str | os.PathLike = ".") -> Ensemble:
    """An :class:`Ensemble` from a validated :class:`tumble.io.config.RockfallConfig`.

    Relative file names (DEM, rock file, soil rasters) are taken from ``base_dir``. Everything
    is checked here, before any simulation: a ValueError names the offending field.
    """
    from tumble.rockfall.release import Release

    base = Path(base_dir)
    terrain = _terrain(config, base)
    rock = _rock(config, base)
    soil, terrain = _soil(config, terrain, base)
    r = config.release
    fields = {
        "point": r.point,
        "line": r.line,
        "polygon": r.polygon,
        "height": r.height,
        "velocity": r.velocity,
        "speed_downslope": r.speed_downslope,
        "omega": r.omega,
        "orientation": r.orientation,
    }
    if config.dem is not None and all(fields[n] is None for n in ("point", "line", "polygon")):
        raise ValueError("release.point (or release.line, release.polygon) is required with a dem")
    release = Release.for_scenario(
        config.scenario or ("slope40" if config.dem is None else ""), **fields
    )
    states = release.draw(terrain, config.rocks, config.seed)
    solver = {k: v for k, v in config.solver.model_dump().items() if v is not None}
    sample_every = config.output.sample_every or SAMPLE_EVERY
    return Ensemble(
        terrain,
        rock,
        soil,
        states,
        scheme=config.scheme,
        dt=config.dt,
        t_max=config.t_max,
        seed=config.seed,
        sample_every=sample_every,
        **solver,
    )
