"""Ensemble statistics and the per-rock table, reduced from the chunks of a run as they arrive.

:class:`RunReduction` takes the chunks in any order (as they finish, locally or on Dask): it
keeps the per-rock results in rock order (a few hundred bytes per rock) and merges the chunks'
cell reductions (:class:`tumble.rockfall.ensemble.cells.CellMerger`: integer sums, maxima and
fixed histograms, whose merge does not depend on grouping), so that memory grows with the cells
rocks reach, not with their path samples. Sums over rocks run in rock order on the per-rock
arrays: the results do not depend on threads, chunking or Dask. Rasters:
:mod:`tumble.rockfall.ensemble.rasters`.

Statistics (``summary.json``), for ``kinetic_energy_kJ``, ``velocity_ms``,
``rotational_velocity_rps`` and ``jump_height_m``:

* ``path``: mean and standard deviation over the path samples of all rocks (every
  ``sample_every`` steps while a rock moves; the jump height over the samples in flight), the
  statistics comparable with Leine et al. 2021, Tables 2 and 3; combined exactly from the
  per-rock means and sums of squared deviations (Chan et al.);
* ``rock_max``: mean, std, p50, p95 and max over the rocks of each rock's maximum (exact: the
  per-rock maxima are kept).

The jump height is the height of the centre of mass above the terrain in the flights that follow
a rock's first contact with the terrain; the fall from the release point before it is not a jump
(:mod:`tumble.rockfall.ensemble.kernels`). That fall is ``release_drop_m`` (mean, std, p50, p95,
max over the rocks; per rock in ``deposits.csv``): the largest height of the centre of mass above
the terrain from the release to the first contact. A rock that never touched the terrain has no
jump height (NaN).

``runout_m``: horizontal distance from the release point to the final point (mean, std, p50, p95,
max) over the rocks that ended regularly (stopped, left the DEM, or reached t_max; the final point
of a rock that left is where it left). ``lateral_spread_m``: std and p95 of the absolute offsets
of those final points across the main direction of travel (the mean of the unit vectors from
release to final point), with the offset positive to the left. ``fractions`` of rocks stopped,
left_domain, timed_out and failed (a numerical failure). Standard deviations are population
ones (ddof = 0).

Citation: T. F. Chan, G. H. Golub, R. J. LeVeque, Algorithms for computing the sample variance,
Am. Stat. 37 (1983) 242-247.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tumble.rockfall.ensemble.cells import CELL_FIELDS, CellMerger, chunk_cells
from tumble.rockfall.ensemble.censoring import SLOW_SPEED, censoring_warnings, timed_out_motion
from tumble.rockfall.ensemble.counts import merge_counts
from tumble.rockfall.ensemble.crossings import crossings_table
from tumble.rockfall.ensemble.energy_line import cell_minima, merge_minima, travel_angle
from tumble.rockfall.ensemble.intervals import binom_ppf
from tumble.rockfall.ensemble.rasters import nearest_cells, rasters_from_cells
from tumble.rockfall.ensemble.record import (
    M_DROP,
    N_MAXIMA,
    Q_ENERGY,
    Q_JUMP,
    Q_ROTATION,
    Q_SPEED,
    W_COUNT,
    W_M2,
    W_MEAN,
)
from tumble.rockfall.ensemble.tables import forest_summary
from tumble.rockfall.exits import exit_summary, exit_table
from tumble.rockfall.status import NAMES, REGULAR, RockStatus
from tumble.rockfall.step.model import S_R, S_V, STATE_SIZE
from tumble.rockfall.step.nets import N_XCOLS

if TYPE_CHECKING:
    from tumble.rockfall.barriers import Barrier
    from tumble.rockfall.release import ReleaseStates
    from tumble.rockfall.rock import Rock
    from tumble.rockfall.terrain import Terrain

#: summary names of the four quantities, their columns and their unit factor
STATISTICS = {
    "kinetic_energy_kJ": (Q_ENERGY, 1e-3),
    "velocity_ms": (Q_SPEED, 1.0),
    "rotational_velocity_rps": (Q_ROTATION, 1.0),
    "jump_height_m": (Q_JUMP, 1.0),
}


class ReducedEnsemble(Protocol):
    """What the reduction reads of the ensemble whose chunks it merges
    (:class:`~tumble.rockfall.ensemble.driver.Ensemble` has it): the rocks' initial states,
    bodies, shapes and masses, the terrain, barriers, count groups and the run's settings."""

    @property
    def n_rocks(self) -> int: ...
    @property
    def scheme(self) -> str: ...
    @property
    def dt(self) -> float: ...
    @property
    def t_max(self) -> float: ...
    @property
    def pgs_tol(self) -> float: ...
    @property
    def bodies(self) -> np.ndarray: ...

    states: ReleaseStates
    terrain: Terrain
    seed: int | None
    sample_every: int
    barriers: tuple[Barrier, ...]
    shapes: tuple[Rock, ...]
    shape_id: np.ndarray
    scale: np.ndarray
    mass: np.ndarray
    count_groups: np.ndarray | None


@dataclass(eq=False)
class EnsembleResult:
    """Reduced results of an ensemble: ``summary`` (JSON-ready dict), ``rasters`` (name ->
    (ny, nx) on the DEM grid: a :class:`~tumble.rockfall.ensemble.rasters.Rasters`, held over
    the window rocks reached), ``rocks`` (per-rock columns of ``deposits.csv``, rock order) and,
    with barriers, ``crossings`` (:mod:`tumble.rockfall.ensemble.crossings`); for an ensemble
    with count groups the summed ``counts`` of
    :func:`tumble.rockfall.ensemble.counts.exceedance_counts`; ``exits`` one row per rock that
    left the DEM (:func:`tumble.rockfall.exits.exit_table`: where it left, the kind of exit, its
    energy and speed there).
    Hazard products (barrier design values, zoning, per-source tables) are computed from it
    after the run (:mod:`tumble.rockfall.hazard`)."""

    summary: dict
    rasters: Mapping[str, np.ndarray]
    rocks: dict[str, np.ndarray]
    crossings: dict[str, np.ndarray] | None = None
    counts: dict[str, np.ndarray] | None = None
    exits: dict[str, np.ndarray] | None = None
    #: with a forest: tree impacts per DEM cell, (ny, nx) int64 (``rasters/tree_impacts.tif``)
    tree_impacts: np.ndarray | None = None
    #: for an ensemble with reach groups, the rocks of each group that reached each cell
    #: (``reach_key = group * size + cell`` sorted, ``reach_count``)
    reach: dict[str, np.ndarray] | None = None

    def write_summary(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.summary, indent=2) + "\n")
        return path

    def write_rasters(
        self, terrain: Terrain, directory: str | os.PathLike, ascii: bool = False
    ) -> list[Path]:
        """Every raster of ``RASTERS`` as a cloud-optimised GeoTIFF (and ESRI ASCII grid with
        ``ascii``) with the terrain's CRS and transform and the description and unit of
        ``RASTER_INFO``: float32 values, uint32 counts, nodata where no rock came (NaN, and
        4294967295 for counts); :mod:`tumble.rockfall.ensemble.outputs` has the details.
        ``self.rasters`` is not changed."""
        from tumble.rockfall.ensemble.outputs import write_hazard_rasters

        return write_hazard_rasters(terrain, self.rasters, directory, ascii=ascii)

    def write_deposits(self, path: str | os.PathLike) -> Path:
        from tumble.io.results import write_csv

        write_csv(path, self.rocks)
        return Path(path)


def _stats(values: np.ndarray, percentiles: tuple[int, ...] = (50, 95)) -> dict[str, Any]:
    values = values[np.isfinite(values)]
    if values.size == 0:
        out: dict[str, Any] = {"mean": None, "std": None}
        out.update({f"p{p}": None for p in percentiles})
        out["max"] = None
        return out
    out = {"mean": float(values.mean()), "std": float(values.std())}
    for p, v in zip(percentiles, np.percentile(values, percentiles), strict=True):
        out[f"p{p}"] = float(v)
    out["max"] = float(values.max())
    for p in percentiles:
        out[f"p{p}_ci"] = quantile_ci(values, p / 100.0)
    return out


#: confidence level of the intervals of the summary
CI_LEVEL = 0.95


def quantile_ci(values: np.ndarray, q: float, level: float = CI_LEVEL) -> list[float] | None:
    """Distribution-free confidence interval ``[low, high]`` of the ``q`` quantile of the
    population the finite ``values`` were drawn from, from their order statistics.

    The number of values below the true quantile is binomial(n, q), so the order statistics
    ``x_(l) <= x_(u)`` with ``l = B^-1((1 - level) / 2)`` and ``u = B^-1((1 + level) / 2) + 1``
    (1-based) cover it with probability at least ``level`` (W. J. Conover, Practical
    Nonparametric Statistics, 3rd ed., Wiley 1999, section 3.2). None when ``n`` is too small
    for an interval at that level on both sides. Exact, deterministic, no resampling.
    """
    x = np.sort(values[np.isfinite(values)])
    n = x.size
    if n == 0:
        return None
    alpha = 1.0 - level
    low = int(binom_ppf(alpha / 2.0, n, q))
    high = int(binom_ppf(1.0 - alpha / 2.0, n, q)) + 1
    if low < 1 or high > n:
        return None
    return [float(x[low - 1]), float(x[high - 1])]


def combine_path(path: np.ndarray) -> tuple[float, float, int]:
    """Mean, std and count over all samples from per-rock ``(count, mean, M2)`` rows."""
    n = path[:, W_COUNT]
    total = float(n.sum())
    if total == 0.0:
        return math.nan, math.nan, 0
    mean = float(np.sum(n * path[:, W_MEAN]) / total)
    m2 = float(np.sum(path[:, W_M2]) + np.sum(n * (path[:, W_MEAN] - mean) ** 2))
    return mean, math.sqrt(max(m2, 0.0) / total), int(total)


def runout_and_lateral(release: np.ndarray, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal run-out and signed lateral offset (positive to the left of the main direction)
    of final points (n, 2+) from release points (n, 2+)."""
    d = np.asarray(final)[:, :2] - np.asarray(release)[:, :2]
    runout = np.hypot(d[:, 0], d[:, 1])
    moved = runout > 0.0
    if not moved.any():
        return runout, np.zeros_like(runout)
    direction = (d[moved] / runout[moved, None]).mean(axis=0)
    size = float(np.hypot(*direction))
    if size == 0.0:
        return runout, np.zeros_like(runout)
    direction /= size
    lateral = direction[0] * d[:, 1] - direction[1] * d[:, 0]
    return runout, lateral


def _slope_deg(terrain: Terrain, position: np.ndarray) -> np.ndarray:
    """The slope of the terrain (degrees) below each point (n, 2+); NaN off its data."""
    x, y = position[:, 0], position[:, 1]
    slope = np.full(x.size, np.nan)
    on = np.asarray(terrain.contains(x, y), dtype=bool)
    if on.any():
        normal = np.asarray(terrain.normal(x[on], y[on]), dtype=np.float64)
        slope[on] = np.degrees(np.arccos(np.clip(normal[:, 2], -1.0, 1.0)))
    return slope


def _deposit_angles(ensemble: ReducedEnsemble, position: np.ndarray) -> np.ndarray:
    """Per rock, the energy-line angle (degrees) from the terrain point below its release to
    the terrain point below its final position
    (:func:`tumble.rockfall.ensemble.energy_line.travel_angle`); NaN off the terrain."""
    start = getattr(ensemble, "release_ground", None)
    n = position.shape[0]
    if start is None:
        return np.full(n, np.nan)
    terrain = ensemble.terrain
    x, y = position[:, 0], position[:, 1]
    z = np.full(n, np.nan)
    ok = np.isfinite(x) & np.isfinite(y)
    on = np.zeros(n, dtype=bool)
    on[ok] = np.asarray(terrain.contains(x[ok], y[ok]), dtype=bool)
    if on.any():
        z[on] = terrain.height(x[on], y[on])
    return travel_angle(start[:, 0], start[:, 1], start[:, 2], x, y, z)


class RunReduction:
    """The results of ``ensemble`` reduced from its chunks as they arrive, in any order
    (module docstring); :meth:`result` once every rock is in."""

    def __init__(self, ensemble: ReducedEnsemble) -> None:
        n = ensemble.n_rocks
        self.ensemble = ensemble
        self._seen = np.zeros(n, dtype=bool)
        self._ints = {
            name: np.zeros(n, dtype=np.int64)
            for name in ("status", "steps", "contact_steps", "pgs_caps")
        }
        self._position = np.full((n, 3), np.nan)
        self._speed_end = np.full(n, np.nan)
        self._maxima = np.full((n, N_MAXIMA), np.nan)
        self._path = np.zeros((n, 4, 3))
        self._crossings: list[tuple[int, np.ndarray, np.ndarray]] = []
        # the final states of the rocks that left the DEM (where and how they left)
        self._left: list[tuple[np.ndarray, np.ndarray]] = []
        self._cells = CellMerger()
        # exceedance counts of the chunks added, summed every few chunks (integers: exact)
        self._counts: list[Mapping[str, np.ndarray]] = []
        self._counted = 0
        self._chunks = 0
        # tree impacts (runs with a forest): per rock, and per DEM cell summed (integers: exact)
        self._forest = getattr(ensemble, "forest", None) is not None
        if self._forest:
            self._impacts = np.zeros(n, dtype=np.int64)
            self._tree_energy = np.zeros(n)
            self._impact_cells = np.zeros(ensemble.terrain.heights.size, dtype=np.int64)
            self._unmapped = 0
        # per-cell smallest energy-line angles and per-group reach counts of the chunks added
        self._angles: list[Mapping[str, np.ndarray]] = []
        self._reach: list[Mapping[str, np.ndarray]] = []

    @property
    def steps(self) -> int:
        """Rock-steps of the rocks added so far."""
        return int(self._ints["steps"].sum())

    @property
    def rocks_in(self) -> int:
        """Rocks added so far."""
        return int(self._seen.sum())

    def add(self, chunk: Mapping[str, np.ndarray]) -> None:
        """Add one chunk (:meth:`Ensemble.run_chunk`, or a chunk file); chunk files of an
        earlier version, with the visits themselves, are reduced here."""
        rock = np.asarray(chunk["rock"], dtype=np.int64)
        if rock.size == 0:
            return
        if rock.min() < 0 or rock.max() >= self._seen.size or self._seen[rock].any():
            raise ValueError(
                f"chunk of rocks {rock.min()}..{rock.max()} is outside the "
                f"{self._seen.size} rocks or repeats rocks already reduced"
            )
        maxima = np.asarray(chunk["maxima"])
        if maxima.shape != (rock.size, N_MAXIMA):
            raise ValueError(
                f"the chunk of rocks {rock.min()}..{rock.max()} was computed by an earlier "
                "version of tumble (its jump heights count the fall from the release point and "
                "it holds no release drop); run again with --force"
            )
        self._seen[rock] = True
        self._chunks += 1
        for name, column in self._ints.items():
            column[rock] = chunk[name]
        final = np.asarray(chunk["final_state"])
        self._position[rock] = final[:, S_R : S_R + 3]
        self._speed_end[rock] = np.linalg.norm(final[:, S_V : S_V + 3], axis=1)
        left = np.asarray(chunk["status"]) == int(RockStatus.LEFT_DOMAIN)
        if left.any():
            self._left.append((rock[left], final[left]))
        self._maxima[rock] = maxima
        self._path[rock] = chunk["path"]
        crossing_rock = np.asarray(chunk["crossing_rock"], dtype=np.int64)
        if crossing_rock.size:
            self._crossings.append((int(rock[0]), crossing_rock, np.asarray(chunk["crossing"])))
        if "exceed_key" in chunk:
            self._counts.append({k: chunk[k] for k in ("exceed_key", "exceed_count")})
            self._counted += 1
            if len(self._counts) >= 16:
                self._counts = [merge_counts(self._counts)]
        if self._forest:
            if "tree_impacts" not in chunk:
                raise ValueError(
                    f"the chunk of rocks {rock.min()}..{rock.max()} holds no tree impacts: it "
                    "was computed without the forest; run again with --force"
                )
            self._impacts[rock] = chunk["tree_impacts"]
            self._tree_energy[rock] = chunk["tree_energy_J"]
            np.add.at(self._impact_cells, chunk["impact_cell_index"], chunk["impact_cell_count"])
            self._unmapped += int(np.sum(chunk["impacts_unmapped"]))
        if (
            "angle_cell" not in chunk
            and "visit_cell" in chunk
            and hasattr(self.ensemble, "visit_angles")
        ):
            # a chunk file of an earlier layout holds the visits themselves
            visit_cell = np.asarray(chunk["visit_cell"], dtype=np.int64)
            angle = self.ensemble.visit_angles(chunk["visit_rock"], visit_cell)
            self._angles.append(cell_minima(visit_cell, angle))
        if "angle_cell" in chunk:
            self._angles.append({k: chunk[k] for k in ("angle_cell", "angle_min")})
            if len(self._angles) >= 16:
                self._angles = [merge_minima(self._angles)]
        if "reach_key" in chunk:
            self._reach.append(
                {"exceed_key": chunk["reach_key"], "exceed_count": chunk["reach_count"]}
            )
            if len(self._reach) >= 16:
                self._reach = [merge_counts(self._reach)]
        if "cell_index" in chunk:
            self._cells.add({name: chunk[name] for name in CELL_FIELDS})
        else:
            self._cells.add(chunk_cells(chunk["visit_cell"], chunk["visit_max"]))

    def result(self, wall_time: float) -> EnsembleResult:
        """Rasters, statistics and the per-rock table (see :func:`reduce_chunks`)."""
        ensemble = self.ensemble
        n = ensemble.n_rocks
        if not self._seen.all():
            raise ValueError(f"the chunks hold {self.rocks_in} of {n} rocks; the run is incomplete")
        status = self._ints["status"]
        steps = self._ints["steps"]
        maxima = self._maxima
        path = self._path
        position = self._position
        release = ensemble.states.position
        regular = np.isin(status, [int(s) for s in REGULAR])
        runout, lateral = runout_and_lateral(release[regular], position[regular])
        runout_all = np.full(n, np.nan)
        lateral_all = np.full(n, np.nan)
        runout_all[regular], lateral_all[regular] = runout, lateral
        stopped = status == int(RockStatus.STOPPED)
        caught = status == int(RockStatus.CAUGHT)
        terrain = ensemble.terrain
        # deposits: rocks at rest, and rocks a net holds
        held = stopped | caught
        deposit_cells = nearest_cells(terrain, position[held, 0], position[held, 1])
        angles = merge_minima(self._angles) if self._angles else None
        rasters = rasters_from_cells(
            terrain.heights.shape, n, self._cells.result(), deposit_cells, angles, terrain
        )
        total_steps = int(steps.sum())
        pgs_caps = int(self._ints["pgs_caps"].sum())
        summary: dict = {
            "n_rocks": n,
            "scheme": ensemble.scheme,
            "dt": ensemble.dt,
            "seed": ensemble.seed,
            "t_max": ensemble.t_max,
            "sample_every": ensemble.sample_every,
            "pgs_tol": ensemble.pgs_tol,
        }
        for name, (q, factor) in STATISTICS.items():
            mean, std, count = combine_path(path[:, q, :])
            summary[name] = {
                "path": {
                    "mean": None if count == 0 else mean * factor,
                    "std": None if count == 0 else std * factor,
                    "samples": count,
                },
                "rock_max": _stats(maxima[:, q] * factor, (50, 95)),
            }
        summary["release_drop_m"] = _stats(maxima[:, M_DROP], (50, 95))
        summary["runout_m"] = _stats(runout, (50, 95))
        offsets = np.abs(lateral)
        summary["lateral_spread_m"] = {
            "std": float(lateral.std()) if lateral.size else None,
            "p95": float(np.percentile(offsets, 95)) if offsets.size else None,
        }
        timed_out = status == int(RockStatus.TIMED_OUT)
        if timed_out.any():
            # the rocks still moving at t_max, by their speed and the slope where they are: slow
            # on gentle ground they come to rest, on steeper ground they roll on to where it eases
            speed = self._speed_end[timed_out]
            slope = _slope_deg(terrain, position[timed_out])
            summary["timed_out_speed_ms"] = {
                **_stats(speed, (50, 95)),
                "slow_below_ms": SLOW_SPEED,
                "slow": int(np.sum(speed < SLOW_SPEED)),
            }
            summary["timed_out_slope_deg"] = _stats(slope, (50, 95))
            summary["timed_out_motion"] = timed_out_motion(speed, slope)
        summary["fractions"] = {
            "stopped": float(np.mean(stopped)),
            "left_domain": float(np.mean(status == int(RockStatus.LEFT_DOMAIN))),
            "timed_out": float(np.mean(status == int(RockStatus.TIMED_OUT))),
            "failed": float(np.mean(~regular)),
        }
        if ensemble.barriers:
            summary["fractions"]["caught"] = float(np.mean(caught))
        failures = sorted({NAMES[RockStatus(int(s))] for s in status[~regular]})
        if failures:
            summary["failures"] = failures
        exits, holes = self._exits()
        summary["exits"] = exit_summary(exits, holes, n)
        summary["ci_level"] = CI_LEVEL
        summary["warnings"] = censoring_warnings({**summary, "pgs_cap_hits": pgs_caps}, exits)
        summary["rock_steps"] = total_steps
        contact = int(self._ints["contact_steps"].sum())
        summary["contact_step_fraction"] = float(contact / max(total_steps, 1))
        summary["pgs_cap_hits"] = pgs_caps
        summary["wall_time_s"] = float(wall_time)
        summary["rock_steps_per_s"] = float(total_steps / wall_time) if wall_time > 0 else None
        codes, which = np.unique(status, return_inverse=True)
        names = np.array([NAMES[RockStatus(int(s))] for s in codes])
        rocks = {
            "rock": np.arange(n, dtype=np.int64),
            "x": position[:, 0],
            "y": position[:, 1],
            "z": position[:, 2],
            "status": names[which],
            # a whole number of steps: rounded to 1e-9 s, 22.586 and not 22.586000000000002
            "t_s": np.round(steps * ensemble.dt, 9),
            "steps": steps,
            "release_x": release[:, 0],
            "release_y": release[:, 1],
            "release_z": release[:, 2],
            "runout_m": runout_all,
            "lateral_m": lateral_all,
            "shape_id": ensemble.shape_id,
            "mass_kg": ensemble.mass,
            "kinetic_energy_max_kJ": maxima[:, Q_ENERGY] * 1e-3,
            "velocity_max_ms": maxima[:, Q_SPEED],
            "rotational_velocity_max_rps": maxima[:, Q_ROTATION],
            "jump_height_max_m": maxima[:, Q_JUMP],
            "release_drop_m": maxima[:, M_DROP],
            "energy_line_angle_deg": _deposit_angles(ensemble, position),
        }
        crossings = None
        if ensemble.barriers:
            parts = sorted(self._crossings, key=lambda part: part[0])
            crossing_rock = np.concatenate([p[1] for p in parts] or [np.zeros(0, np.int64)])
            crossing = np.concatenate([p[2] for p in parts] or [np.zeros((0, N_XCOLS))])
            bodies = ensemble.bodies
            crossings = crossings_table(
                crossing_rock, crossing, ensemble.barriers, bodies[:, 0], bodies[:, 1:]
            )
        counts = None
        if ensemble.count_groups is not None:
            if self._counted != self._chunks:
                raise ValueError(
                    f"{self._chunks - self._counted} of the {self._chunks} chunks hold no "
                    "exceedance counts: they were computed without count groups (release "
                    "frequencies); run again with --force"
                )
            counts = merge_counts(self._counts)
        tree_impacts = None
        if self._forest:
            tree_impacts = self._impact_cells.reshape(terrain.heights.shape)
            forest = ensemble.forest  # type: ignore[attr-defined]
            summary["forest"] = forest_summary(
                forest, self._impacts, self._tree_energy, status, position, terrain, self._unmapped
            )
            summary["warnings"] += summary["forest"].pop("warnings")
            rocks["tree_impacts"] = self._impacts.copy()
            rocks["tree_energy_absorbed_kJ"] = self._tree_energy * 1e-3
        reach = None
        if getattr(ensemble, "reach_groups", None) is not None and self._reach:
            merged = merge_counts(self._reach)
            reach = {"reach_key": merged["exceed_key"], "reach_count": merged["exceed_count"]}
        return EnsembleResult(
            summary,
            rasters,
            rocks,
            crossings,
            counts,
            exits,
            tree_impacts=tree_impacts,
            reach=reach,
        )

    def _exits(self) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
        """The exit table and the holes of the rocks that left the DEM
        (:func:`tumble.rockfall.exits.exit_table`), in rock order."""
        ensemble = self.ensemble
        parts = sorted(self._left, key=lambda part: int(part[0][0]))
        rock = np.concatenate([p[0] for p in parts] or [np.zeros(0, dtype=np.int64)])
        states = np.concatenate([p[1] for p in parts] or [np.zeros((0, STATE_SIZE))])
        shape_id = ensemble.shape_id[rock]
        vertices = [
            ensemble.shapes[int(s)].vertices * float(ensemble.scale[k])
            for k, s in zip(rock, shape_id, strict=True)
        ]
        return exit_table(
            ensemble.terrain,
            rock,
            states,
            vertices,
            ensemble.bodies[rock],
            ensemble.states.position[rock],
            ensemble.dt,
        )


def reduce_chunks(
    ensemble: ReducedEnsemble,
    chunks: Iterable[Mapping[str, np.ndarray]],
    wall_time: float,
) -> EnsembleResult:
    """Rasters, statistics and the per-rock table of a finished ensemble from its chunks (any
    order, read one at a time: an iterable such as :attr:`ChunkRun.chunks` is not held in
    memory); with barriers also the crossings table, whose statistics and design values
    :func:`tumble.rockfall.hazard.design.add_barrier_statistics` adds after the run."""
    reduction = RunReduction(ensemble)
    empty = True
    for chunk in chunks:
        reduction.add(chunk)
        empty = False
    if empty:
        raise ValueError("no chunks to reduce")
    return reduction.result(wall_time)
