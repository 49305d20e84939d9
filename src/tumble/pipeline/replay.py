"""Barrier statistics recomputed from a finished run, without simulating again.

The crossings of the barrier lines given (or the run's own) are replayed on the trajectories the
run kept (``trajectories.parquet``, :mod:`tumble.rockfall.ensemble.replay`) with the terrain,
rock bodies and barriers the run stored (``rasters/dem.tif``, ``geometry.json``), and turned into
the statistics and design values of a run (:func:`tumble.rockfall.hazard.design.barrier_statistics`
with the run's ``[design]`` factors and seed). Written to ``out``::

    barriers.json          {"barriers": [...], "n_rocks", "rocks_released", "sample_interval_s",
                            "warnings", "source"}: one entry per barrier, the keys of
                            summary.json["barriers"]
    crossings.parquet      one row per crossing (the columns of a run's crossings.parquet)
    figures/barrier_<name>_exceedance.png, figures/barrier_<name>_along.png
    provenance.json        version, the run folder and the SHA-256 of its trajectories

The statistics describe the rocks whose trajectories were kept (the first ``output.trajectories``
rocks), and the crossings are interpolated between samples ``output.trajectory_every`` steps
apart: both are said in the warnings. A run with ``output.trajectories = rocks`` and
``output.trajectory_every = 1`` replays exactly what the run records for an observation line.

Uphill sides: the run's own barriers keep the side the run decided (``geometry.json``); a new
line gets its ``uphill`` key, or the side of the run's release decided from the release
footprint the run stored (:mod:`tumble.rockfall.site.barrier_files`, the same rule as a run's).
A run of an earlier version of tumble stored neither: the side is then the one the kept rocks
start on, and a warning says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.config import validate
from tumble.io.provenance import write_provenance
from tumble.io.results import ResultDir, prepare_result_dir, write_json_atomic
from tumble.pipeline.geometry import (
    barrier_sides_from_geometry,
    barriers_from_geometry,
    kept_bodies,
    release_footprint,
)
from tumble.pipeline.trajectories import write_parquet
from tumble.rockfall.barriers import with_uphill
from tumble.rockfall.ensemble.replay import replay_crossings, sample_interval
from tumble.rockfall.hazard.design import DesignFactors, barrier_statistics
from tumble.rockfall.site.barrier_files import build_barriers, side_records
from tumble.rockfall.terrain import Terrain


@dataclass
class ReplayOutcome:
    """What :func:`replay_barriers` wrote into ``folder``: the content of ``barriers.json``."""

    folder: Path
    report: dict[str, Any]

    @property
    def warnings(self) -> list[str]:
        return list(self.report["warnings"])

    @property
    def barriers(self) -> list[dict[str, Any]]:
        return list(self.report["barriers"])


def _read_samples(path: Path) -> dict[str, np.ndarray]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} cannot be read as a trajectory sample: {err}") from None
    return {name: np.asarray(table.column(name)) for name in table.column_names}


def _starts(samples: dict[str, np.ndarray]) -> np.ndarray:
    """(x, y) of the first sample of every rock of a trajectory sample (sorted by rock)."""
    if not {"rock", "x", "y"} <= set(samples):
        raise ValueError("the trajectory sample lacks the column(s) rock, x or y")
    rock = np.asarray(samples["rock"])
    first = np.flatnonzero(np.r_[True, rock[1:] != rock[:-1]])[: rock.size]
    return np.column_stack([np.asarray(samples[c])[first] for c in ("x", "y")])


def replay_barriers(
    run_dir: str | os.PathLike,
    entries: Sequence[Mapping[str, Any]] = (),
    out: str | os.PathLike | None = None,
    *,
    force: bool = False,
    figures: bool = True,
    base_dir: str | os.PathLike = ".",
) -> ReplayOutcome:
    """Replay ``entries`` (``[[barrier]]`` tables: name, line or file, height, capacity,
    uphill; a relative file is taken from ``base_dir``), or without them the run's own barriers,
    on the run in ``run_dir``; write the results to ``out`` (default ``run_dir/barriers``)."""
    paths = layout.RunPaths(run_dir)
    if not paths.path.is_dir():
        raise ValueError(f"{paths.path} is not a folder")
    if not paths.trajectories.is_file():
        raise ValueError(
            f"{paths.path} kept no trajectories (no trajectories.parquet): run it again with "
            "output.trajectories set to the number of rocks to keep (e.g. "
            "output.trajectories=1000 output.trajectory_every=1)"
        )
    if not paths.finished:
        raise ValueError(f"{paths.path} holds no finished tumble rockfall run (no summary.json)")
    if not paths.geometry.is_file():
        raise ValueError(
            f"{paths.path} has no {layout.GEOMETRY} (written by runs of this version of tumble): "
            "run it again to replay barriers on it"
        )
    geometry = paths.read_geometry()
    summary = paths.read_json(paths.summary)
    provenance = paths.read_json(paths.provenance)
    try:
        physics = dict(provenance["config"]["physics"])
    except (KeyError, TypeError):
        raise ValueError(f"{paths.provenance} is not the record of a tumble rockfall run") from None
    config = validate(physics)
    terrain = Terrain.from_file(paths.dem)
    entries = [dict(e) for e in entries]
    footprint = release_footprint(geometry)
    side_warnings: list[str] = []
    if entries:
        site = build_barriers(validate({"barrier": entries}).barrier, terrain, base_dir, footprint)
        barriers, sides = site.barriers, side_records(site.sides)
        side_warnings += site.warnings
    else:
        barriers = barriers_from_geometry(geometry)
        sides = barrier_sides_from_geometry(geometry)
        if not barriers:
            raise ValueError(
                f"the run in {paths.path} has no barrier: give --line X,Y X,Y ... or "
                "--barriers FILE"
            )
    samples = _read_samples(paths.trajectories)
    undecided = [b.name for b in barriers if b.uphill is None]
    if undecided:
        side_warnings.append(
            f"{paths.geometry} holds no release footprint or barrier side (a run of an earlier "
            "version of tumble): the uphill side of "
            + ", ".join(repr(n) for n in undecided)
            + " is the side the kept rocks start on"
        )
        barriers = with_uphill(barriers, _starts(samples))
    target = Path(out) if out is not None else paths.path / "barriers"
    if target.resolve() == paths.path.resolve():
        raise ValueError("--out must not be the run folder itself (it would replace the run)")
    prepare_result_dir(target, force=force)

    released = int(summary["n_rocks"])
    bodies, vertices = kept_bodies(geometry, released)
    stored = np.unique(np.asarray(samples.get("rock", []), dtype=np.int64))
    missing = sorted(set(stored.tolist()) - set(vertices))
    if missing:
        raise ValueError(
            f"{paths.geometry} holds no body of rock(s) {missing[:5]} whose trajectories are kept"
        )
    crossings = replay_crossings(terrain, barriers, samples, bodies, vertices.__getitem__)
    n_rocks = int(stored.size)
    if n_rocks == 0:
        raise ValueError(f"{paths.trajectories} holds no sample")
    seed = 0 if config.seed is None else int(config.seed)
    design = DesignFactors.from_config(config.design.model_dump())
    stats = barrier_statistics(
        crossings, barriers, n_rocks, design, seed=seed, sides=sides if any(sides) else None
    )
    interval = sample_interval(samples)
    warnings = list(side_warnings)
    if n_rocks < released:
        warnings.append(
            f"the statistics describe the {n_rocks} rocks whose trajectories the run kept, of "
            f"{released} released (output.trajectories); keep them all for the full sample"
        )
    dt = float(summary["dt"])
    if interval > dt * (1.0 + 1e-9):
        warnings.append(
            f"crossings are interpolated between samples up to {interval:.4g} s apart "
            f"({round(interval / dt)} steps of {dt:g} s; output.trajectory_every): heights and "
            "energies at the lines are approximate and bounces between samples are missed"
        )
    if any(b.kind == "net" for b in barriers) and entries:
        warnings.append(
            "a net replayed on trajectories simulated without it acts at its first crossing "
            "only: below it the rocks move as without the net (the residual hazard needs a run)"
        )
    report = {
        "source": str(paths.trajectories.resolve()),
        "rocks_released": released,
        "n_rocks": n_rocks,
        "sample_interval_s": interval,
        "warnings": warnings,
        "barriers": stats,
    }
    with ResultDir(target) as stage:
        write_parquet(stage / layout.CROSSINGS_PARQUET, crossings)
        if figures:
            from tumble.viz.barriers import plot_barrier

            for entry, barrier in zip(stats, barriers, strict=True):
                plot_barrier(entry, crossings, barrier, stage / layout.FIGURES)
        write_provenance(
            stage,
            config={"run_dir": str(paths.path.resolve()), "barrier": entries or "the run's own"},
            seed=seed,
            inputs={"trajectories": paths.trajectories},
        )
        report = json.loads(json.dumps(report))
        write_json_atomic(stage / layout.BARRIERS_JSON, report)
    return ReplayOutcome(target, report)
