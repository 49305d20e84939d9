"""What the statistics of Leine et al. 2021, Table 2 may be: candidate definitions, one run.

Table 2 of seed 000 (section 6) gives the mean and standard deviation of the kinetic energy, the
translational and rotational velocity and the jump height of 1000 EOTA221 rocks on an idealised
40 deg slope without saying over what they are taken. :class:`Table2Candidates` reduces the
trajectories of one ensemble, every step of every rock (:meth:`Ensemble.trajectory` with
``save_every=1`` gives the same numbers as the ensemble kernel), under each definition of
:data:`CANDIDATES`, so that the candidates differ only in the statistic:

* ``path``: the samples every ``sample_every`` steps while the rock moves (kinetic energy above
  the rest threshold), the jump height over the samples in flight: the ``path`` statistics of
  ``summary.json`` (:mod:`tumble.rockfall.ensemble.reduce`);
* ``path_slope`` / ``path_runout``: those samples with the centre of mass above the slope
  (x < :data:`SLOPE_END_X`) / above the flat run-out zone;
* ``path_fast``: those samples with a speed of at least :data:`FAST_SPEED`;
* ``stopped``: the path samples of the rocks that stopped (not those that left the DEM, timed
  out or failed);
* ``time``: every step from release to the end, rest included, each weighted by its duration
  (a time average over whole trajectories);
* ``distance``: every step weighted by the horizontal distance the centre of mass moved in it
  (an average along the projected arclength of Leine et al. 2021, Fig. 5c, d);
* ``rock_mean``: the mean over rocks of each rock's path mean (every rock counts once);
* ``rock_max``: the mean over rocks of each rock's maximum over all its steps;
* ``cell_max``: per DEM cell the maximum over the rocks that passed it (the map of
  Fig. 5a, b, "statistic mode" of RAMMS::ROCKFALL), then the mean over the cells reached;
* ``cell_mean``: per DEM cell the mean over the rocks that passed it of each rock's maximum in
  the cell (the ``kinetic_energy_mean`` raster), then the mean over the cells reached.

A rock is in the cell of the DEM sample nearest to its centre of mass, as for the rasters of
:mod:`tumble.rockfall.ensemble.rasters`.

Quantities (:data:`QUANTITIES`): kinetic energy (translation plus rotation, kJ), speed of the
centre of mass (m/s), rotational velocity ``|omega| / 2 pi`` (rot/s), jump height (the centre of
mass above the terrain below it, over the steps without a closed contact after the rock's first
contact: the fall from the release, 1.5 m on slope40, is not a jump, m) and, as a candidate
definition of the jump height, the same height along the terrain normal
(``jump_height_normal_m``: the vertical height times ``n_z`` of the unit normal below, the
distance to the plane of the slope).

Means and standard deviations are weighted population ones: for values ``x_i`` with weights
``w_i``, ``mean = sum w x / sum w`` and ``std^2 = sum w (x - mean)^2 / sum w`` (weight 1 unless
the candidate weights by time or distance), accumulated rock by rock and combined exactly
(:class:`Moments`; Chan, Golub and LeVeque 1983).

:func:`seed_findings` checks the signs of the seed's findings (section 6: the implicit scheme
gives higher rotation and kinetic energy, lower jumps, about equal velocities);
:func:`published_error` measures how far a candidate lies from Table 2. The findings for slope40
are in ``docs/slope40_table2.md`` (``benchmarks/slope40_table2.py`` prints them).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble import _check
from tumble.rockfall.ensemble.rasters import nearest_cells
from tumble.validation.slope40 import PUBLISHED_SLOPE40

if TYPE_CHECKING:
    from tumble.rockfall.ensemble.driver import Ensemble
    from tumble.rockfall.simulate import RockTrajectory

#: the quantities of every candidate, in the order of Table 2 (plus the normal jump height)
QUANTITIES = (
    "kinetic_energy_kJ",
    "velocity_ms",
    "rotational_velocity_rps",
    "jump_height_m",
    "jump_height_normal_m",
)
#: the quantities of Table 2
TABLE2_QUANTITIES = QUANTITIES[:4]
#: candidate name -> what it averages (module docstring)
CANDIDATES = {
    "path": "path samples every sample_every steps while moving (summary.json)",
    "path_slope": "path samples above the slope (x < 150 m)",
    "path_runout": "path samples above the run-out zone (x >= 150 m)",
    "path_fast": "path samples with a speed of at least 1 m/s",
    "stopped": "path samples of the rocks that stopped",
    "time": "every step, rest included, weighted by time",
    "distance": "every step weighted by the horizontal distance moved",
    "rock_mean": "mean over rocks of each rock's path mean",
    "rock_max": "mean over rocks of each rock's maximum",
    "cell_max": "mean over DEM cells of the maximum over rocks in the cell",
    "cell_mean": "mean over DEM cells of the mean over rocks of their maximum in the cell",
}
#: x (m) where the slope of ``slope40`` meets the run-out zone (tumble.rockfall.scenarios)
SLOPE_END_X = 150.0
#: speed (m/s) of the ``path_fast`` candidate: a round number fixed before any comparison
FAST_SPEED = 1.0
#: relative difference (of their mean) within which two velocities count as "about equal"
ABOUT_EQUAL = 0.1

_Q = len(QUANTITIES)


@dataclass
class Moments:
    """Weighted count, mean and sum of squared deviations of a stream of values."""

    weight: float = 0.0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, values: Any, weights: Any = None) -> None:
        """Add values (NaN values are skipped) with non-negative weights (default 1)."""
        x = np.asarray(values, dtype=np.float64).ravel()
        w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != x.shape:
            raise ValueError(f"weights must match the values: {w.shape} against {x.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0.0):
            raise ValueError("weights must be finite and non-negative")
        keep = ~np.isnan(x)
        x, w = x[keep], w[keep]
        total = float(w.sum())
        if total <= 0.0:
            return
        mean = float(np.dot(w, x)) / total
        self.merge(Moments(total, mean, float(np.dot(w, (x - mean) ** 2))))

    def merge(self, other: Moments) -> None:
        """Combine with the moments of another stream (Chan et al. 1983)."""
        if other.weight <= 0.0:
            return
        total = self.weight + other.weight
        delta = other.mean - self.mean
        self.m2 += other.m2 + delta * delta * self.weight * other.weight / total
        self.mean += delta * other.weight / total
        self.weight = total

    @property
    def std(self) -> float:
        return math.sqrt(self.m2 / self.weight) if self.weight > 0.0 else math.nan

    def result(self) -> tuple[float, float]:
        """``(mean, std)``; NaN for both when nothing was added."""
        return (self.mean, self.std) if self.weight > 0.0 else (math.nan, math.nan)


def interval_weights(t: Any, position: Any) -> tuple[np.ndarray, np.ndarray]:
    """Duration and horizontal distance of the interval that ends at each row ``1 .. n-1`` of a
    trajectory with times ``t`` (n,) and positions ``position`` (n, 2 or 3): the weights of the
    time and distance averages of the values at those rows."""
    t = np.asarray(t, dtype=np.float64)
    p = np.asarray(position, dtype=np.float64)
    if t.ndim != 1 or p.ndim != 2 or p.shape[0] != t.size or p.shape[1] < 2:
        raise ValueError(f"t (n,) and position (n, 2 or 3) expected, got {t.shape}, {p.shape}")
    dt = np.diff(t)
    if np.any(dt < 0.0):
        raise ValueError("t must not decrease")
    return dt, np.hypot(np.diff(p[:, 0]), np.diff(p[:, 1]))


def _reduce_by(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique keys and the NaN-ignoring maximum of ``values`` (q, n) over each key."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    first = np.ones(k.size, dtype=bool)
    first[1:] = k[1:] != k[:-1]
    starts = np.flatnonzero(first)
    return k[starts], np.fmax.reduceat(values[:, order], starts, axis=1)


class Table2Candidates:
    """Every candidate statistic of :data:`CANDIDATES`, accumulated rock by rock.

    ``terrain``: the ensemble's terrain (cells and normals); ``sample_every``: steps between path
    samples; ``rest_speed``: the rest criterion's speed (m/s), whose energy ``m v^2 / 2``
    separates moving samples from resting ones, as in the ensemble kernel; ``slope_end``: x (m)
    of the foot of the slope. Feed every rock's trajectory saved at every step to :meth:`add`,
    then read :meth:`results`.
    """

    def __init__(
        self,
        terrain: Any,
        sample_every: int,
        rest_speed: float,
        slope_end: float = SLOPE_END_X,
    ) -> None:
        self.terrain = terrain
        self.slope_end = _check.finite(slope_end, "slope_end")
        self.sample_every = _check.positive_int(sample_every, "sample_every")
        self.rest_speed = float(rest_speed)
        self.rocks = 0
        #: how many rocks ended how (status name -> rocks)
        self.statuses: dict[str, int] = {}
        self._moments = {name: [Moments() for _ in range(_Q)] for name in CANDIDATES}
        n_cells = terrain.heights.size
        self._cell_max = np.full((_Q, n_cells), np.nan)
        self._cell_sum = np.zeros((_Q, n_cells))
        self._cell_count = np.zeros((_Q, n_cells), dtype=np.int64)

    def _add(self, name: str, values: np.ndarray, mask: Any = None, weights: Any = None) -> None:
        for q in range(_Q):
            x = values[q] if mask is None else values[q, mask]
            w = None if weights is None else (weights if mask is None else weights[mask])
            self._moments[name][q].add(x, w)

    def add(self, trajectory: RockTrajectory) -> None:
        """Add one rock: a trajectory saved at every step (``save_every=1``)."""
        tr = trajectory
        steps = np.rint(tr.t / tr.dt).astype(np.int64)
        if not np.array_equal(steps, np.arange(steps.size)):
            raise ValueError("the trajectory must be saved at every step (save_every=1)")
        # rows 1 .. n: the state after each step (row 0 is the release)
        x, y = tr.position[1:, 0], tr.position[1:, 1]
        energy = tr.kinetic_energy()[1:]
        speed = tr.speed()[1:]
        height = tr.jump_height()[1:]
        n_z = np.full(height.shape, np.nan)
        flying = np.isfinite(height)
        if flying.any():
            n_z[flying] = self.terrain.normal(x[flying], y[flying])[:, 2]
        values = np.stack([energy * 1e-3, speed, tr.rotation_speed()[1:], height, height * n_z])
        sampled = (steps[1:] % self.sample_every == 0) & (
            energy > 0.5 * tr.mass * self.rest_speed * self.rest_speed
        )
        duration, distance = interval_weights(tr.t, tr.position)
        on_slope = x < self.slope_end
        self._add("path", values, sampled)
        self._add("path_slope", values, sampled & on_slope)
        self._add("path_runout", values, sampled & ~on_slope)
        self._add("path_fast", values, sampled & (speed >= FAST_SPEED))
        if tr.status == "stopped":
            self._add("stopped", values, sampled)
        self._add("time", values, weights=duration)
        self._add("distance", values, weights=distance)
        with np.errstate(invalid="ignore"):
            counts = np.sum(np.isfinite(values[:, sampled]), axis=1)
            sums = np.nansum(values[:, sampled], axis=1)
            rock_mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
            rock_max = np.array([np.nanmax(v) if np.isfinite(v).any() else np.nan for v in values])
        self._add("rock_mean", rock_mean[:, None])
        self._add("rock_max", rock_max[:, None])
        # the rock's maximum in each cell it passed, then over rocks per cell
        cells = nearest_cells(self.terrain, x, y)
        on_grid = cells >= 0
        if on_grid.any():
            cell, peak = _reduce_by(cells[on_grid], values[:, on_grid])
            self._cell_max[:, cell] = np.fmax(self._cell_max[:, cell], peak)
            known = np.isfinite(peak)
            self._cell_sum[:, cell] += np.where(known, peak, 0.0)
            self._cell_count[:, cell] += known
        self.rocks += 1
        self.statuses[tr.status] = self.statuses.get(tr.status, 0) + 1

    def results(self) -> dict[str, dict[str, tuple[float, float]]]:
        """Candidate -> quantity -> ``(mean, std)``."""
        moments = {name: list(ms) for name, ms in self._moments.items()}
        cell_max = [Moments() for _ in range(_Q)]
        cell_mean = [Moments() for _ in range(_Q)]
        for q in range(_Q):
            reached = self._cell_count[q] > 0
            cell_max[q].add(self._cell_max[q, reached])
            cell_mean[q].add(self._cell_sum[q, reached] / self._cell_count[q, reached])
        moments["cell_max"], moments["cell_mean"] = cell_max, cell_mean
        return {
            name: {quantity: ms[q].result() for q, quantity in enumerate(QUANTITIES)}
            for name, ms in moments.items()
        }


def table2_candidates(ensemble: Ensemble, threads: int = 1) -> Table2Candidates:
    """Every candidate of :data:`CANDIDATES` over all rocks of ``ensemble`` (each rock simulated
    by itself at every step, on ``threads`` threads; added in rock order, so the numbers do not
    depend on ``threads``); read them with :meth:`Table2Candidates.results`."""
    threads = _check.positive_int(threads, "threads")
    table = Table2Candidates(ensemble.terrain, ensemble.sample_every, ensemble.rest_speed)
    batch = 8 * threads
    with ThreadPoolExecutor(threads) as pool:
        for start in range(0, ensemble.n_rocks, batch):
            rocks = range(start, min(start + batch, ensemble.n_rocks))
            for trajectory in pool.map(ensemble.trajectory, rocks):
                table.add(trajectory)
    return table


def seed_findings(
    explicit: dict[str, tuple[float, float]], implicit: dict[str, tuple[float, float]]
) -> dict[str, bool]:
    """Whether the signs of the findings of Leine et al. 2021, section 6 hold for two results
    (quantity -> ``(mean, std)``): the implicit scheme's mean kinetic energy and rotational
    velocity higher, its jump height lower, and the velocities about equal (within
    :data:`ABOUT_EQUAL` of their mean)."""
    e = {k: v[0] for k, v in explicit.items()}
    i = {k: v[0] for k, v in implicit.items()}
    mean_v = 0.5 * (e["velocity_ms"] + i["velocity_ms"])
    return {
        "kinetic_energy_kJ": i["kinetic_energy_kJ"] > e["kinetic_energy_kJ"],
        "velocity_ms": abs(i["velocity_ms"] - e["velocity_ms"]) <= ABOUT_EQUAL * mean_v,
        "rotational_velocity_rps": i["rotational_velocity_rps"] > e["rotational_velocity_rps"],
        "jump_height_m": i["jump_height_m"] < e["jump_height_m"],
    }


def published_error(
    explicit: dict[str, tuple[float, float]], implicit: dict[str, tuple[float, float]]
) -> tuple[float, float]:
    """Mean relative deviation from Leine et al. 2021, Table 2 (:data:`PUBLISHED_SLOPE40`) of
    the means and of the standard deviations of two results (quantity -> ``(mean, std)``), over
    the four quantities of Table 2 and both schemes: ``mean |ours - published| / published``."""
    means, stds = [], []
    for scheme, result in (("explicit", explicit), ("implicit", implicit)):
        for key in TABLE2_QUANTITIES:
            mean, std = PUBLISHED_SLOPE40[scheme][key]
            means.append(abs(result[key][0] - mean) / mean)
            stds.append(abs(result[key][1] - std) / std)
    return float(np.mean(means)), float(np.mean(stds))
