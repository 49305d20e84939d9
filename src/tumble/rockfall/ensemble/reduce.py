"""Ensemble statistics and the per-rock table, reduced from the chunks of a finished run.

The reduction runs after the parallel simulation, on the chunks concatenated in rock order, and
orders every sum canonically (by rock, or by cell and then rock), so that its results do not
depend on threads, chunking or Dask. Rasters: :mod:`tumble.rockfall.ensemble.rasters`.

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
from typing import TYPE_CHECKING

import numpy as np

from tumble.rockfall.ensemble.kernels import (
    Q_ENERGY,
    Q_JUMP,
    Q_ROTATION,
    Q_SPEED,
    W_COUNT,
    W_M2,
    W_MEAN,
)
from tumble.rockfall.ensemble.rasters import RASTERS, nearest_cells, rasters_from_visits
from tumble.rockfall.model import S_R
from tumble.rockfall.status import NAMES, REGULAR, RockStatus

if TYPE_CHECKING:
    from tumble.rockfall.ensemble.driver import Ensemble
    from tumble.rockfall.terrain import Terrain

#: summary names of the four quantities, their columns and their unit factor
STATISTICS = {
    "kinetic_energy_kJ": (Q_ENERGY, 1e-3),
    "velocity_ms": (Q_SPEED, 1.0),
    "rotational_velocity_rps": (Q_ROTATION, 1.0),
    "jump_height_m": (Q_JUMP, 1.0),
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

    def write_rasters(
        self, terrain: Terrain, directory: str | os.PathLike, ascii: bool = False
    ) -> list[Path]:
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


def _stats(values: np.ndarray, percentiles: tuple[int, ...] = (50, 95)) -> dict[str, float | None]:
    values = values[np.isfinite(values)]
    if values.size == 0:
        out: dict[str, float | None] = {"mean": None, "std": None}
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


def reduce_chunks(ensemble: Ensemble, chunks: list[dict], wall_time: float) -> EnsembleResult:
    """Rasters, statistics and the per-rock table of a finished ensemble from its chunks."""
    if not chunks:
        raise ValueError("no chunks to reduce")

    def cat(name: str) -> np.ndarray:
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

    def num(value: float | None, fmt: str) -> str:
        return "n/a" if value is None else format(value, fmt)

    return (
        f"{summary['n_rocks']} rocks ({summary['scheme']}): "
        f"stopped {f['stopped']:.0%}, left {f['left_domain']:.0%}, timed out {f['timed_out']:.0%}; "
        f"kinetic energy {num(e['mean'], '.1f')} +- {num(e['std'], '.1f')} kJ; "
        f"run-out {num(r['mean'], '.1f')} m (p95 {num(r['p95'], '.1f')}); "
        f"{summary['wall_time_s']:.1f} s, {rate / 1e6:.2f} M rock-steps/s"
    )
