"""Hazard rasters and ensemble statistics, reduced from the per-rock outputs of an ensemble.

The reduction runs after the parallel simulation, on the chunks of :mod:`tumble.rockfall.ensemble`
concatenated in rock order, and orders every sum canonically (by rock, or by cell and then rock),
so that its results do not depend on threads, chunking or Dask.

Rasters (on the DEM grid: one value per sample, i.e. per GeoTIFF pixel; a rock is in the cell of
the sample nearest to its centre of mass):

* ``passing_count``: rocks whose centre of mass was in the cell after some step;
  ``reach_probability`` = passing_count / n_rocks; ``deposit_count``: rocks that stopped there;
* per cell, over the rocks passing it, of each rock's maximum in the cell:
  ``kinetic_energy_{max,mean,p95,p99}`` (kJ, translation plus rotation), ``velocity_max`` (m/s),
  ``rotational_velocity_max`` (rot/s), and over the rocks that flew over it (no closed contact)
  ``jump_height_{max,p95}`` (m, centre of mass above the terrain below it). Cells no rock
  reached are NaN (nodata in the files). Percentiles interpolate linearly (numpy's default).

Statistics (``summary.json``), for ``kinetic_energy_kJ``, ``velocity_ms``,
``rotational_velocity_rps`` and ``jump_height_m``:

* ``path``: mean and standard deviation over the path samples of all rocks (every
  ``sample_every`` steps while a rock moves; the jump height over the samples in flight), the
  statistics comparable with Leine et al. 2021, Tables 2 and 3; combined exactly from the
  per-rock means and sums of squared deviations (Chan et al.);
* ``rock_max``: mean, std, p50, p95 and max over the rocks of each rock's maximum.

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tumble.rockfall.ensemble import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED, W_COUNT, W_M2, W_MEAN
from tumble.rockfall.moreau import S_R
from tumble.rockfall.status import NAMES, REGULAR, RockStatus

#: raster names in the order they are written
RASTERS = (
    "reach_probability",
    "passing_count",
    "deposit_count",
    "kinetic_energy_max",
    "kinetic_energy_mean",
    "kinetic_energy_p95",
    "kinetic_energy_p99",
    "velocity_max",
    "rotational_velocity_max",
    "jump_height_max",
    "jump_height_p95",
)
#: summary names of the four quantities, their columns and their unit factor
STATISTICS = {
    "kinetic_energy_kJ": (Q_ENERGY, 1e-3),
    "velocity_ms": (Q_SPEED, 1.0),
    "rotational_velocity_rps": (Q_ROTATION, 1.0),
    "jump_height_m": (Q_JUMP, 1.0),
}

#: Leine et al. 2021 (seed 000), Table 2: 1000 EOTA221 rocks of 780 kg on the idealised 40 deg
#: slope, random initial orientation, dt = 0.002 s; mean and standard deviation, and the RAMMS
#: run time (Table 1, one desktop computer)
PUBLISHED_SLOPE40 = {
    "explicit": {
        "kinetic_energy_kJ": (168.6, 113.8),
        "velocity_ms": (17.88, 7.4),
        "rotational_velocity_rps": (4.12, 1.8),
        "jump_height_m": (1.93, 1.8),
        "wall_time_s": 74.3,
    },
    "implicit": {
        "kinetic_energy_kJ": (188.0, 131.7),
        "velocity_ms": (17.75, 7.7),
        "rotational_velocity_rps": (4.77, 1.9),
        "jump_height_m": (1.40, 1.1),
        "wall_time_s": 161.5,
    },
}


@dataclass(eq=False)
class EnsembleResult:
    """Reduced results of an ensemble: ``summary`` (JSON-ready dict), ``rasters`` (name ->
    (ny, nx) on the DEM grid) and ``rocks`` (per-rock columns of ``deposits.csv``, rock order)."""

    summary: dict
    rasters: dict[str, np.ndarray]
    rocks: dict[str, np.ndarray]

    def write_summary(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.summary, indent=2) + "\n")
        return path

    def write_rasters(self, terrain, directory: str | os.PathLike, ascii: bool = False) -> list:
        """GeoTIFF (and ESRI ASCII with ``ascii``) files with the terrain's CRS and transform."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for name in RASTERS:
            values = self.rasters[name]
            written.append(terrain.write_raster(directory / f"{name}.tif", values))
            if ascii:
                written.append(terrain.write_raster(directory / f"{name}.asc", values))
        return written

    def write_deposits(self, path: str | os.PathLike) -> Path:
        from tumble.io.results import write_csv

        write_csv(path, self.rocks)
        return Path(path)


def _stats(values: np.ndarray, percentiles=(50, 95)) -> dict:
    values = values[np.isfinite(values)]
    if values.size == 0:
        out = {"mean": None, "std": None}
        out.update({f"p{p}": None for p in percentiles})
        out["max"] = None
        return out
    out = {"mean": float(values.mean()), "std": float(values.std())}
    for p, v in zip(percentiles, np.percentile(values, percentiles), strict=True):
        out[f"p{p}"] = float(v)
    out["max"] = float(values.max())
    return out


def combine_path(path: np.ndarray) -> tuple[float, float, int]:
    """Mean, std and count over all samples from per-rock ``(count, mean, M2)`` rows."""
    n = path[:, W_COUNT]
    total = float(n.sum())
    if total == 0.0:
        return math.nan, math.nan, 0
    mean = float(np.sum(n * path[:, W_MEAN]) / total)
    m2 = float(np.sum(path[:, W_M2]) + np.sum(n * (path[:, W_MEAN] - mean) ** 2))
    return mean, math.sqrt(max(m2, 0.0) / total), int(total)


def _segments(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, keys.size))
    return starts, counts


def cell_percentile(cells: np.ndarray, values: np.ndarray, q: float, size: int) -> np.ndarray:
    """Per-cell percentile ``q`` of ``values`` (linear interpolation, as numpy's default);
    NaN values are left out, cells without values are NaN."""
    out = np.full(size, np.nan)
    keep = np.isfinite(values)
    cells, values = cells[keep], values[keep]
    if cells.size == 0:
        return out
    order = np.lexsort((values, cells))
    c, v = cells[order], values[order]
    starts, counts = _segments(c)
    pos = q / 100.0 * (counts - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, counts - 1)
    frac = pos - lo
    a, b = v[starts + lo], v[starts + hi]
    out[c[starts]] = np.where(frac >= 0.5, b - (b - a) * (1.0 - frac), a + (b - a) * frac)
    return out


def _cell_max(cells: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, -np.inf)
    keep = np.isfinite(values)
    np.maximum.at(out, cells[keep], values[keep])
    out[np.isneginf(out)] = np.nan
    return out


def rasters_from_visits(
    shape: tuple[int, int],
    n_rocks: int,
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_max: np.ndarray,
    deposit_cells: np.ndarray,
) -> dict[str, np.ndarray]:
    """The rasters of the module docstring from one row per (rock, cell) with the rock's maxima
    in the cell (kinetic energy J, speed, rotation rot/s, jump height or NaN)."""
    size = shape[0] * shape[1]
    order = np.lexsort((visit_rock, visit_cell))
    cells, values = visit_cell[order], visit_max[order]
    passing = np.bincount(cells, minlength=size).astype(np.float64)
    energy = values[:, Q_ENERGY] * 1e-3
    mean = np.full(size, np.nan)
    if cells.size:
        starts, counts = _segments(cells)
        mean[cells[starts]] = np.add.reduceat(energy, starts) / counts
    deposits = np.bincount(deposit_cells[deposit_cells >= 0], minlength=size).astype(np.float64)
    rasters = {
        "reach_probability": passing / n_rocks,
        "passing_count": passing,
        "deposit_count": deposits,
        "kinetic_energy_max": _cell_max(cells, energy, size),
        "kinetic_energy_mean": mean,
        "kinetic_energy_p95": cell_percentile(cells, energy, 95.0, size),
        "kinetic_energy_p99": cell_percentile(cells, energy, 99.0, size),
        "velocity_max": _cell_max(cells, values[:, Q_SPEED], size),
        "rotational_velocity_max": _cell_max(cells, values[:, Q_ROTATION], size),
        "jump_height_max": _cell_max(cells, values[:, Q_JUMP], size),
        "jump_height_p95": cell_percentile(cells, values[:, Q_JUMP], 95.0, size),
    }
    return {name: rasters[name].reshape(shape) for name in RASTERS}


def nearest_cells(terrain, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Index ``j nx + i`` of the sample nearest to each point, -1 off the grid."""
    ny, nx = terrain.heights.shape
    u = np.floor((np.asarray(x) - terrain.x0) / terrain.dx + 0.5)
    v = np.floor((np.asarray(y) - terrain.y0) / terrain.dy + 0.5)
    ok = (u >= 0) & (v >= 0) & (u < nx) & (v < ny)
    return np.where(ok, v * nx + u, -1).astype(np.int64)


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


def reduce_chunks(ensemble, chunks: list[dict], wall_time: float) -> EnsembleResult:
    """Rasters, statistics and the per-rock table of a finished ensemble from its chunks."""
    if not chunks:
        raise ValueError("no chunks to reduce")

    def cat(name):
        return np.concatenate([c[name] for c in chunks])

    rock = cat("rock")
    if rock.size != ensemble.n_rocks or not np.array_equal(rock, np.arange(ensemble.n_rocks)):
        raise ValueError(
            f"the chunks hold {rock.size} of {ensemble.n_rocks} rocks; the run is incomplete"
        )
    status = cat("status")
    steps = cat("steps")
    final = cat("final_state")
    maxima = cat("maxima")
    path = cat("path")
    release = ensemble.states.position
    position = final[:, S_R : S_R + 3]
    regular = np.isin(status, [int(s) for s in REGULAR])
    runout, lateral = runout_and_lateral(release[regular], position[regular])
    runout_all = np.full(rock.size, np.nan)
    lateral_all = np.full(rock.size, np.nan)
    runout_all[regular], lateral_all[regular] = runout, lateral
    stopped = status == int(RockStatus.STOPPED)
    terrain = ensemble.terrain
    deposit_cells = nearest_cells(terrain, position[stopped, 0], position[stopped, 1])
    rasters = rasters_from_visits(
        terrain.heights.shape,
        ensemble.n_rocks,
        cat("visit_rock"),
        cat("visit_cell"),
        cat("visit_max"),
        deposit_cells,
    )
    n = ensemble.n_rocks
    total_steps = int(steps.sum())
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
    summary["runout_m"] = _stats(runout, (50, 95))
    offsets = np.abs(lateral)
    summary["lateral_spread_m"] = {
        "std": float(lateral.std()) if lateral.size else None,
        "p95": float(np.percentile(offsets, 95)) if offsets.size else None,
    }
    summary["fractions"] = {
        "stopped": float(np.mean(stopped)),
        "left_domain": float(np.mean(status == int(RockStatus.LEFT_DOMAIN))),
        "timed_out": float(np.mean(status == int(RockStatus.TIMED_OUT))),
        "failed": float(np.mean(~regular)),
    }
    summary["rock_steps"] = total_steps
    summary["contact_step_fraction"] = float(cat("contact_steps").sum() / max(total_steps, 1))
    summary["pgs_cap_hits"] = int(cat("pgs_caps").sum())
    summary["wall_time_s"] = float(wall_time)
    summary["rock_steps_per_s"] = float(total_steps / wall_time) if wall_time > 0 else None
    rocks = {
        "rock": rock,
        "x": position[:, 0],
        "y": position[:, 1],
        "z": position[:, 2],
        "status": np.array([NAMES[RockStatus(int(s))] for s in status]),
        "t_s": steps * ensemble.dt,
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
    }
    return EnsembleResult(summary, rasters, rocks)


def summary_line(summary: dict) -> str:
    """One line for the end of a run."""
    f = summary["fractions"]
    e = summary["kinetic_energy_kJ"]["path"]
    r = summary["runout_m"]
    rate = summary.get("rock_steps_per_s") or 0.0

    def num(value, fmt):
        return "n/a" if value is None else format(value, fmt)

    return (
        f"{summary['n_rocks']} rocks ({summary['scheme']}): "
        f"stopped {f['stopped']:.0%}, left {f['left_domain']:.0%}, timed out {f['timed_out']:.0%}; "
        f"kinetic energy {num(e['mean'], '.1f')} +- {num(e['std'], '.1f')} kJ; "
        f"run-out {num(r['mean'], '.1f')} m (p95 {num(r['p95'], '.1f')}); "
        f"{summary['wall_time_s']:.1f} s, {rate / 1e6:.2f} M rock-steps/s"
    )
