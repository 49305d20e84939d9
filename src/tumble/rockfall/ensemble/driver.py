"""An ensemble of rocks on one terrain: the model shared by all rocks, the state of each, chunks.

An :class:`Ensemble` holds what all rocks share (the terrain, the soil, the solver
:class:`~tumble.rockfall.step.model.Options`) and what each rock owns: its initial state
(:class:`tumble.rockfall.release.ReleaseStates`) and its body, taken from a small table of shapes
(``shapes``, a tuple of :class:`tumble.rockfall.Rock`) by ``shape_id``, scaled isotropically by
``scale`` and carrying the mass ``mass``. Rock k has the vertices ``scale_k V_s``, the mass
``m_k`` (default ``m_s scale_k^3``) and the principal moments ``Theta_s (m_k / m_s) scale_k^2``
of its shape s, so releases of measured blocks (a shape id, a scale and a mass per rock) run
through the same driver as an ensemble of identical EOTA221 rocks. Per-cell soil rasters of the
terrain are used as in :func:`tumble.rockfall.simulate`.

:meth:`Ensemble.run_chunk` runs rocks ``start .. stop - 1`` through the compiled loop of
:mod:`tumble.rockfall.ensemble.kernels` and returns the chunk's arrays: per rock ``rock``,
``status``, ``steps``, ``contact_steps``, ``pgs_caps``, ``final_state`` (n, STATE_SIZE), ``maxima``
(n, 5: the four quantities and the release drop of :mod:`~tumble.rockfall.ensemble.record`),
``path`` (n, 4, 3: Welford count, mean, M2), the barrier crossings, and the chunk's cell reduction
(:data:`tumble.rockfall.ensemble.cells.CELL_FIELDS`: one row per DEM cell its rocks reached and
histogram rows, :func:`tumble.rockfall.ensemble.cells.chunk_cells`), not the visits themselves, so
that a chunk's size grows with the cells it touched. Random numbers are drawn before (one stream per
rock, :mod:`tumble.rockfall.release`), so a chunk's numbers do not depend on threads, chunk size or
the machine it ran on.

Speed. Unless options are given, an ensemble uses a Gauss-Seidel tolerance of
:data:`~tumble.solver_defaults.ENSEMBLE_PGS_TOL` (relative change of the percussions between
sweeps, 1e-6 instead of the 1e-10 of a single :func:`tumble.rockfall.simulate`); see the
benchmark ``benchmarks/rockfall_ensemble.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator, Sequence
from typing import Any

import numpy as np

from tumble import _check
from tumble._jit import get_threads, set_threads
from tumble.rockfall.barriers import Barrier, pack_barriers, with_uphill
from tumble.rockfall.ensemble.cells import CELL_FIELDS, load_merge
from tumble.rockfall.ensemble.counts import exceedance_counts
from tumble.rockfall.ensemble.energy_line import (
    chunk_minima,
    ground_below,
    visit_angles,
)
from tumble.rockfall.ensemble.fingerprints import chunk_fingerprint, run_fingerprint
from tumble.rockfall.ensemble.kernels import check_probe, run_rocks
from tumble.rockfall.ensemble.progress import Progress, progress_mode
from tumble.rockfall.ensemble.record import (
    N_MAXIMA,
    N_QUANTITIES,
    N_ROCK_INTS,
    Q_ENERGY,
    R_CONTACT_STEPS,
    R_PGS_CAPS,
    R_STATUS,
    R_STEPS,
    R_VISITS,
)
from tumble.rockfall.ensemble.reduce import EnsembleResult, RunReduction
from tumble.rockfall.ensemble.sizes import (
    CHUNK_SIZE,
    CROSSING_CAPACITY,
    IMPACT_CAPACITY,
    VISIT_CAPACITY,
    check_size,
)
from tumble.rockfall.ensemble.tables import (
    forest_chunk,
    forest_tables,
    initial_rock_states,
    soil_table,
)
from tumble.rockfall.ensemble.visits import read_buffers, reduce_visits
from tumble.rockfall.forest import Forest
from tumble.rockfall.release import ReleaseStates
from tumble.rockfall.rock import Rock
from tumble.rockfall.simulate import RockTrajectory, simulate
from tumble.rockfall.soil import Soil
from tumble.rockfall.step.model import (
    Options,
    check_dt,
    hull_radius,
    pack_model,
    resolve_options,
)
from tumble.rockfall.step.nets import N_XCOLS, no_nets, pack_nets
from tumble.rockfall.step.trees import N_FOREST
from tumble.solver_defaults import ENSEMBLE_PGS_TOL

#: the options of an ensemble when none are given
ENSEMBLE_OPTIONS = Options(pgs_tol=ENSEMBLE_PGS_TOL)
#: default path sampling, steps (0.01 s at dt = 0.002 s)
SAMPLE_EVERY = 5
#: the cell visits a chunk holds when the ensemble keeps them (``keep_visits``), one row per
#: rock and DEM cell its centre passed, sorted by rock and cell: the rock, the cell ``j nx + i``,
#: the rock's maxima in the cell (n, 4: kinetic energy J, speed m/s, rotation rot/s, jump
#: height m or NaN without flight; :meth:`Ensemble.visits`) and its energy-line angle there
#: (degrees, :meth:`Ensemble.visit_angles`)
VISIT_ARRAYS = ("visit_rock", "visit_cell", "visit_max", "visit_angle")


class Ensemble:
    """Rocks released on one terrain (module docstring); validated on construction.

    ``shapes``: one :class:`Rock` or a sequence of them; ``states``: the initial states of the n
    rocks; ``shape_id`` (n,) index into ``shapes`` (default 0); ``scale`` (n,) isotropic scale
    of the shape (default 1); ``mass`` (n,) kg (default the shape's mass times ``scale^3``);
    ``volume`` (n,) m^3 follows. ``seed`` is recorded; ``sample_every``: steps between samples.
    ``keep_visits``: every chunk also holds its rocks' cell visits (:data:`VISIT_ARRAYS`, for
    the run's ``visits.parquet``). ``forest``: stems the rocks may hit
    (:mod:`tumble.rockfall.forest`; each rock draws from its own stream, keyed by ``seed`` and
    its index). ``options``: the solver
    :class:`~tumble.rockfall.step.model.Options` (default :data:`ENSEMBLE_OPTIONS`); keyword
    ``settings`` with the names of its fields
    (``scheme="explicit"``, ``t_max=30.0``, ...) change single ones.
    """

    def __init__(
        self,
        terrain: Any,
        shapes: Rock | Sequence[Rock],
        soil: Soil,
        states: ReleaseStates,
        *,
        options: Options | None = None,
        shape_id: Any = None,
        scale: Any = None,
        mass: Any = None,
        seed: int | None = None,
        sample_every: int = SAMPLE_EVERY,
        barriers: Sequence[Barrier] = (),
        count_groups: Any = None,
        n_count_groups: int | None = None,
        count_levels_kJ: Sequence[float | None] = (),
        forest: Forest | None = None,
        reach_groups: Any = None,
        soils: Sequence[Soil] | None = None,
        soil_row: Any = None,
        keep_visits: bool = False,
        **settings: Any,
    ) -> None:
        self.options = resolve_options(options, settings, ENSEMBLE_OPTIONS)
        if self.options.t_max <= 0.0:
            raise ValueError(f"t_max must be positive, got {self.options.t_max!r}")
        if not isinstance(states, ReleaseStates):
            raise ValueError("states must be ReleaseStates (see Release.draw)")
        check_size(len(states), self.options)
        self.terrain = terrain
        self.soil = soil
        self.shapes = (shapes,) if isinstance(shapes, Rock) else tuple(shapes)
        if not self.shapes or not all(isinstance(s, Rock) for s in self.shapes):
            raise ValueError("shapes must be a Rock or a non-empty sequence of Rocks")
        if not isinstance(states, ReleaseStates):
            raise ValueError("states must be ReleaseStates (see Release.draw)")
        self.states = states
        n = len(states)
        #: the count group of every rock, or None: every chunk then also counts, per group and
        #: cell, the rocks above each of ``count_levels_kJ`` (:mod:`~.counts`)
        self.count_groups: np.ndarray | None = None
        self.n_count_groups = 0
        self.count_levels_kJ: tuple[float | None, ...] = ()
        if count_groups is not None:
            self._count_by(count_groups, n_count_groups, count_levels_kJ)
        elif count_levels_kJ:
            raise ValueError("count_levels_kJ needs count_groups (one group per rock)")
        #: the reach group of every rock (its release area), or None: every chunk then also
        #: counts, per group and cell, the rocks that reached the cell (``reach_key``,
        #: ``reach_count`` of :func:`~.counts.exceedance_counts` at the level None)
        self.reach_groups: np.ndarray | None = None
        self.n_reach_groups = 0
        if reach_groups is not None:
            groups = np.asarray(reach_groups)
            if groups.shape != (n,) or not np.issubdtype(groups.dtype, np.integer):
                raise ValueError(f"reach_groups must be one integer group per rock ({n})")
            if groups.size and groups.min() < 0:
                raise ValueError("reach_groups must be non-negative")
            self.reach_groups = np.ascontiguousarray(groups, dtype=np.int64)
            self.n_reach_groups = int(groups.max()) + 1 if groups.size else 1
        #: the terrain point below each rock's release (n, 3): the start of its energy line
        self.release_ground = ground_below(terrain, states.position)
        if shape_id is None:
            shape_id = np.zeros(n, dtype=np.int64)
        else:
            shape_id = np.asarray(shape_id)
            if shape_id.shape != (n,) or not np.issubdtype(shape_id.dtype, np.integer):
                raise ValueError(f"shape_id must be {n} integers")
            if shape_id.min() < 0 or shape_id.max() >= len(self.shapes):
                raise ValueError(f"shape_id must index the {len(self.shapes)} shapes")
        self.shape_id = np.ascontiguousarray(shape_id, dtype=np.int64)
        scale = np.ones(n) if scale is None else np.asarray(scale, dtype=np.float64)
        if scale.shape != (n,) or not np.all(np.isfinite(scale)) or np.any(scale <= 0.0):
            raise ValueError(f"scale must be {n} positive numbers")
        self.scale = np.ascontiguousarray(scale)
        shape_mass = np.array([s.mass for s in self.shapes])[self.shape_id]
        if mass is None:
            mass = shape_mass * self.scale**3
        else:
            mass = np.asarray(mass, dtype=np.float64)
            if mass.shape != (n,):
                raise ValueError(f"mass must have one value per rock ({n}), got {mass.shape}")
            bad = np.flatnonzero(~(np.isfinite(mass) & (mass > 0.0)))
            if bad.size:
                raise ValueError(
                    f"rock.mass must be positive: rock {bad[0]} has mass {mass[bad[0]]!r}"
                )
        self.mass = np.ascontiguousarray(mass)
        self.sample_every = _check.positive_int(sample_every, "sample_every")
        if not isinstance(keep_visits, bool | np.bool_):
            raise ValueError(f"keep_visits must be true or false, got {keep_visits!r}")
        #: whether every chunk also holds its rocks' cell visits (:data:`VISIT_ARRAYS`); an
        #: output, not an input of the numbers: the fingerprints do not hash it
        self.keep_visits = bool(keep_visits)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.seed = seed
        self.barriers = tuple(barriers)
        if not all(isinstance(b, Barrier) for b in self.barriers):
            raise ValueError("barriers must be Barrier objects (tumble.rockfall.barriers)")
        # a barrier without an uphill side: the side the rocks start on
        self.barriers = with_uphill(self.barriers, states.position)
        model = pack_model(terrain, self.shapes[0], soil, self.options)
        self.soils, self.soil_row, soils_packed = soil_table(terrain, model, soils, soil_row, n)
        counts = np.array([s.n_vertices for s in self.shapes], dtype=np.int64)
        table = np.zeros((len(self.shapes), int(counts.max()), 3))
        for i, s in enumerate(self.shapes):
            table[i, : s.n_vertices] = s.vertices
        inertia = np.array([s.inertia for s in self.shapes])[self.shape_id]
        ratio = self.mass / shape_mass
        inertia = inertia * ratio[:, None] * (self.scale**2)[:, None]
        bodies = np.ascontiguousarray(np.column_stack([self.mass, inertia]))
        hulls = np.full((len(self.shapes), int(counts.max()), 3), np.nan)
        for i, s in enumerate(self.shapes):
            hulls[i, : s.n_vertices] = s.vertices
        try:
            initial = initial_rock_states(model, hulls, self.shape_id, self.scale, states)
        except ValueError as err:
            raise ValueError(f"release.height: {err}") from None
        radius = np.array([hull_radius(s.vertices) for s in self.shapes])[self.shape_id]
        check_dt(
            self.options.dt,
            radius * self.scale,
            model.grid,
            bodies,
            initial,
            model.heights,
            self.options.gravity,
        )
        self.forest = forest
        self.volume = np.array([s.volume for s in self.shapes])[self.shape_id] * self.scale**3
        self._packed: dict[str, Any] = {
            "model": model,
            "soil_table": soils_packed,
            "shape_vertices": table,
            "shape_counts": counts,
            "bodies": bodies,
            "states": initial,
            "n_steps": self.options.n_steps,
            "rest_steps": self.options.rest_steps,
            "nets": pack_nets(pack_barriers(self.barriers)) if self.barriers else no_nets(),
            **forest_tables(forest, terrain, self.volume, seed, n),
        }

    # --- settings ------------------------------------------------------------------------------

    @property
    def scheme(self) -> str:
        return self.options.scheme

    @property
    def dt(self) -> float:
        return self.options.dt

    @property
    def t_max(self) -> float:
        return self.options.t_max

    @property
    def rest_speed(self) -> float:
        return self.options.rest_speed

    @property
    def pgs_tol(self) -> float:
        return self.options.pgs_tol

    @property
    def bodies(self) -> np.ndarray:
        """``(mass, A, B, C)`` of every rock, (n, 4)."""
        return np.asarray(self._packed["bodies"])

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
        inertia = shape.inertia * (self.mass[k] / shape.mass) * (s * s)
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
            self.soil_of(k),
            self.states.position[k],
            self.states.orientation[k],
            self.states.velocity[k],
            self.states.omega[k],
            options=self.options,
            save_every=save_every,
            barriers=self.barriers,
            forest=self.forest,
            forest_key=int(self._packed["keys"][k]),
        )

    def soil_of(self, k: int) -> Soil:
        """The soil rock ``k`` runs with: its row of the soil table, or the ensemble's soil."""
        if self.soils is None:
            return self.soil
        return self.soils[int(self.soil_row[k])]

    #: hashes of every kernel input, and of every input of a chunk (:mod:`.fingerprints`)
    fingerprint = run_fingerprint
    chunk_fingerprint = chunk_fingerprint

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
        and the compiled reductions of the chunks without simulating a rock; returns the
        seconds it took."""
        t0 = time.perf_counter()
        rocks = np.zeros(0, dtype=np.int64)
        raw = self._kernel(rocks, 1)
        none = np.zeros(0, dtype=np.int64)
        cells, values = raw[3].reshape(-1), raw[4].reshape(-1, N_QUANTITIES)
        # both orders of the visits (a run that keeps none leaves them cell-major)
        reduce_visits(rocks, none, none, cells, values, False)
        out = reduce_visits(rocks, none, none, cells, values, True)
        t = self.terrain
        grid = (t.x0, t.y0, t.dx, t.dy)
        chunk_minima(out[0], out[1], out[3], self.release_ground, t.heights, grid)
        load_merge()
        return time.perf_counter() - t0

    def _kernel(
        self,
        rocks: np.ndarray,
        capacity: int,
        cross_capacity: int = CROSSING_CAPACITY,
        lanes: bool = True,
        probe: np.ndarray | None = None,
    ) -> tuple:
        p = self._packed
        model = p["model"]
        m = rocks.size
        states = np.ascontiguousarray(p["states"][rocks])
        maxima = np.zeros((m, N_MAXIMA))
        path = np.zeros((m, N_QUANTITIES, 3))
        visit_cell = np.zeros((m, capacity), dtype=np.int64)
        visit_value = np.zeros((m, capacity, N_QUANTITIES))
        counts = np.zeros((m, N_ROCK_INTS), dtype=np.int64)
        crossings = np.zeros((m, cross_capacity if self.barriers else 0, N_XCOLS))
        fstate = np.zeros((m, N_FOREST))
        impact_cell = np.full((m, IMPACT_CAPACITY if self.forest else 0), -1, dtype=np.int64)
        soil_values, soil_index, soil_rasters = p["soil_table"]
        check_probe(probe, get_threads())
        run_rocks(
            model.heights,
            model.grid,
            soil_values,
            soil_index,
            soil_rasters,
            np.ascontiguousarray(self.soil_row[rocks]),
            p["shape_vertices"],
            p["shape_counts"],
            model.options,
            np.ascontiguousarray(self.shape_id[rocks]),
            np.ascontiguousarray(self.scale[rocks]),
            np.ascontiguousarray(p["bodies"][rocks]),
            states,
            p["n_steps"],
            float(self.options.rest_speed),
            p["rest_steps"],
            self.sample_every,
            maxima,
            path,
            visit_cell,
            visit_value,
            counts,
            p["nets"],
            crossings,
            p["forest"],
            np.ascontiguousarray(p["diameter"][rocks]),
            np.ascontiguousarray(p["keys"][rocks]),
            fstate,
            impact_cell,
            get_threads(),
            lanes,
            probe,
        )
        return states, maxima, path, visit_cell, visit_value, counts, crossings, fstate, impact_cell

    def _simulate(
        self, start: int, stop: int, rock_major: bool = True
    ) -> tuple[dict, tuple[np.ndarray, np.ndarray, np.ndarray], dict]:
        """Rocks ``start .. stop - 1``: their per-rock arrays, their cell visits (one row per
        rock and cell, sorted: ``visit_rock``, ``visit_cell``, ``visit_max``) and the chunk's
        cell reduction (that of :func:`tumble.rockfall.ensemble.cells.chunk_cells`), both from
        :func:`tumble.rockfall.ensemble.visits.reduce_visits`, with its smallest energy-line
        angle per cell (:func:`tumble.rockfall.ensemble.energy_line.chunk_minima`).
        ``rock_major`` False: the visits sorted by cell and rock instead."""
        rocks = np.arange(start, stop, dtype=np.int64)
        return self._reduce_kernel(rocks, self._kernel(rocks, VISIT_CAPACITY), rock_major)

    def _reduce_kernel(
        self, rocks: np.ndarray, out: tuple, rock_major: bool = True
    ) -> tuple[dict, tuple[np.ndarray, np.ndarray, np.ndarray], dict]:
        """:meth:`_simulate` after the kernel: ``out`` is what :meth:`_kernel` returned for
        ``rocks``."""
        states, maxima, path, visit_cell, visit_value, counts, crossings, fstate, impacts = out
        n_visits = counts[:, R_VISITS].copy()
        first_row, flat_cell, flat_value, rows = read_buffers(
            rocks, visit_cell, visit_value, counts, crossings, self._kernel
        )
        # merged per rock and cell and reduced per cell in one compiled pass
        out = reduce_visits(rocks, first_row, n_visits, flat_cell, flat_value, rock_major)
        visits: tuple[np.ndarray, np.ndarray, np.ndarray] = out[:3]
        reduced = dict(zip(CELL_FIELDS, out[4:], strict=True))
        t = self.terrain
        reduced.update(
            chunk_minima(
                out[0], out[1], out[3], self.release_ground, t.heights, (t.x0, t.y0, t.dx, t.dy)
            )
        )
        maxima[np.isneginf(maxima)] = np.nan
        chunk = {
            "rock": rocks,
            "status": counts[:, R_STATUS].copy(),
            "steps": counts[:, R_STEPS].copy(),
            "contact_steps": counts[:, R_CONTACT_STEPS].copy(),
            "pgs_caps": counts[:, R_PGS_CAPS].copy(),
            "final_state": states,
            "maxima": maxima,
            "path": path,
            "crossing_rock": np.repeat(rocks, [r.shape[0] for r in rows]),
            "crossing": np.concatenate(rows) if rows else np.zeros((0, N_XCOLS)),
        }
        if self.forest is not None:
            chunk.update(forest_chunk(fstate, impacts))
        return chunk, visits, reduced

    def _count_by(self, groups: Any, n_groups: int | None, levels: Sequence[float | None]) -> None:
        """Validate and keep the count groups and levels of the constructor."""
        groups = np.asarray(groups)
        if groups.shape != (self.n_rocks,) or not np.issubdtype(groups.dtype, np.integer):
            raise ValueError(f"count_groups must be one integer group per rock ({self.n_rocks})")
        n = (int(groups.max()) + 1 if groups.size else 1) if n_groups is None else int(n_groups)
        if groups.size and (groups.min() < 0 or groups.max() >= n):
            raise ValueError(f"count_groups must index the {n} groups (n_count_groups)")
        levels = tuple(None if v is None else float(v) for v in levels)
        if not levels or not all(v is None or math.isfinite(v) for v in levels):
            raise ValueError("count_levels_kJ must be energies in kJ (None counts every rock)")
        self.count_groups = np.ascontiguousarray(groups, dtype=np.int64)
        self.n_count_groups = n
        self.count_levels_kJ = levels

    def _run_chunk(self, start: int, stop: int) -> dict:
        # the visits of a chunk are counted in any order; only kept ones are sorted by rock
        return self._chunk_of(self._simulate(start, stop, rock_major=self.keep_visits))

    def run_spans(
        self, spans: Sequence[tuple[int, int]], threads: int | None = None
    ) -> Generator[dict, None, None]:
        """The chunks of ``spans`` (``(start, stop)`` each) one after another, as
        :meth:`run_chunk` returns them, each chunk's kernel on ``threads`` threads (default:
        the current setting) and its reduction on this thread between two kernels. Running the
        next chunk's kernel on a worker thread during that serial work (two chunks in flight)
        was measured slower on two cores: the serial thread slowed the kernel's two threads by
        more than the work it took from them (``docs/performance.md``)."""
        for start, stop in spans:
            if not 0 <= start < stop <= self.n_rocks:
                raise ValueError(f"chunk [{start}, {stop}) is not within the {self.n_rocks} rocks")
        for start, stop in spans:
            yield self.run_chunk(start, stop, threads)

    def _chunk_of(
        self, simulated: tuple[dict, tuple[np.ndarray, np.ndarray, np.ndarray], dict]
    ) -> dict:
        """The chunk of :meth:`run_chunk` from what :meth:`_simulate` returned."""
        chunk, (visit_rock, visit_cell, visit_max), reduced = simulated
        out = {**chunk, **reduced}
        if self.keep_visits:
            angle = self.visit_angles(visit_rock, visit_cell)
            out.update(zip(VISIT_ARRAYS, (visit_rock, visit_cell, visit_max, angle), strict=True))
        if self.reach_groups is not None:
            reach = exceedance_counts(
                visit_rock,
                visit_cell,
                visit_max[:, Q_ENERGY],
                self.reach_groups,
                self.n_reach_groups,
                self.terrain.heights.size,
                (None,),
            )
            out["reach_key"], out["reach_count"] = reach["exceed_key"], reach["exceed_count"]
        if self.count_groups is not None:
            size = self.terrain.heights.size
            out.update(
                exceedance_counts(
                    visit_rock,
                    visit_cell,
                    visit_max[:, Q_ENERGY] * 1e-3,
                    self.count_groups,
                    self.n_count_groups,
                    size,
                    self.count_levels_kJ,
                )
            )
        return out

    def visit_angles(self, visit_rock: np.ndarray, visit_cell: np.ndarray) -> np.ndarray:
        """The energy-line angle (degrees) of each row ``(rock, cell)`` of :meth:`visits`
        (:func:`tumble.rockfall.ensemble.energy_line.visit_angles`)."""
        t = self.terrain
        return visit_angles(
            visit_rock, visit_cell, self.release_ground, t.heights, (t.x0, t.y0, t.dx, t.dy)
        )

    def visits(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cell visits of rocks ``start .. stop - 1`` (simulated again): one row per rock
        and DEM cell its centre passed, sorted by rock and cell, ``(rock, cell, maxima)`` with
        the rock's maxima in the cell (kinetic energy J, speed m/s, rotation rot/s, jump height
        m or NaN without flight). Memory grows with the rocks: for tests and small runs."""
        if not 0 <= start < stop <= self.n_rocks:
            raise ValueError(f"rocks [{start}, {stop}) are not within the {self.n_rocks} rocks")
        return self._simulate(start, stop)[1]

    def chunks(self, chunk_size: int = CHUNK_SIZE) -> list[tuple[int, int]]:
        """``(start, stop)`` of every chunk."""
        size = _check.positive_int(chunk_size, "chunk_size")
        return [(a, min(a + size, self.n_rocks)) for a in range(0, self.n_rocks, size)]

    def run(
        self,
        threads: int | None = None,
        chunk_size: int = CHUNK_SIZE,
        progress: bool | str | None = False,
    ) -> EnsembleResult:
        """Simulate every rock in memory; returns
        :class:`tumble.rockfall.ensemble.reduce.EnsembleResult`. ``progress``: see
        :func:`tumble.rockfall.ensemble.progress.progress_mode` (default: none shown)."""
        reduction = RunReduction(self)
        t0 = time.perf_counter()
        with Progress(self.n_rocks, 0, progress_mode(progress)) as bar:
            for chunk in self.run_spans(self.chunks(chunk_size), threads):
                reduction.add(chunk)  # merged now: no chunk is kept
                bar.update(chunk["rock"].size, int(chunk["steps"].sum()))
        return reduction.result(wall_time=time.perf_counter() - t0)
