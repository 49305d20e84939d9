"""Barrier statistics recomputed from a finished run, without simulating again.

The crossings of the barrier lines given (or the run's own) are replayed on the trajectories the
run kept (``trajectories.parquet``, :mod:`tumble.rockfall.ensemble.replay`) with the terrain,
rock bodies and barriers the run stored (``rasters/dem.tif``, ``geometry.json``), and turned into
the statistics and design values of a run (:func:`tumble.rockfall.hazard.design.barrier_statistics`
with the run's ``[design]`` factors and seed). Written to ``out``::

    barriers.json          {"barriers": [...], "n_rocks", "rocks_released", "share", "rocks",
                            "sample", "sample_interval_s", "crossings_exact",
                            "caught_by_run_nets", "warnings", "source"}: one entry per
                            barrier (the keys of summary.json["barriers"]), the rocks replayed
                            and how the run chose them (summary.json["trajectories"] without
                            its list of rocks), how many of them the run's nets caught
    crossings.parquet      one row per crossing (the columns of a run's crossings.parquet)
    figures/barrier_<name>_exceedance.png, figures/barrier_<name>_along.png
    provenance.json        version, the run folder and the SHA-256 of its trajectories

Which rocks. The statistics describe the rocks whose trajectories the run kept
(``output.trajectories`` of them, a sample stratified over release areas and rock classes with
rock 0 always: :mod:`tumble.pipeline.trajectories`), each weighed equally; ``rocks`` lists them,
and a warning names their share of the released rocks when they are not all of them. Folders
written before the sample was stratified kept the first rocks and say so.

How exactly. A run keeps, of each kept rock, besides every ``output.trajectory_every``-th step and
the final state, the states around every step that crosses one of its barriers and the state
at every crossing where a net acted. Replaying the run's own barriers therefore gives the
crossings the run recorded for these rocks (same rocks, outcomes and directions; times,
energies and heights equal to round-off) and the design values of the run's crossings of these
rocks (``crossings_exact``). Other lines are crossed between samples up to
``output.trajectory_every`` steps apart: the state there is interpolated linearly (heights and
energies approximate, bounces between samples missed), which a warning says; a net given here
acts at its first crossing only. A rock one of the run's own nets caught has no trajectory
beyond it: when new lines are replayed on a run whose nets caught kept rocks, a warning names
them (``caught_by_run_nets``), since what lies below those nets is seen only through the rocks
they let pass.

Uphill sides: the run's own barriers keep the side the run decided (``geometry.json``); a new
line gets its ``uphill`` key, or the side of the run's release decided from the release
footprint the run stored (:mod:`tumble.rockfall.site.barrier_files`, the same rule as a run's).
An observation line whose side comes from the release judges each crossing from the side its
rock started on (the rock's first sample), as a run does (``direction_from``).
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
from tumble.pipeline.trajectories import sample_starts, write_parquet
from tumble.rockfall.barriers import with_uphill
from tumble.rockfall.ensemble.censoring import format_percent
from tumble.rockfall.ensemble.crossings import directions_from_starts
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


def _caught_by_run_nets(
    paths: layout.RunPaths, geometry: dict[str, Any], rocks: np.ndarray
) -> dict[str, int]:
    """Per net of the run, how many of ``rocks`` it caught (the run's ``crossings.parquet``);
    empty for a run without nets or crossings."""
    if not any(b.kind == "net" for b in barriers_from_geometry(geometry)):
        return {}
    if not paths.crossings.is_file():
        return {}
    import pyarrow.parquet as pq

    table = pq.read_table(paths.crossings, columns=["rock", "barrier", "outcome"])
    rock = np.asarray(table.column("rock"))
    barrier = np.asarray(table.column("barrier")).astype(str)
    caught = (np.asarray(table.column("outcome")).astype(str) == "caught") & np.isin(rock, rocks)
    names, counts = np.unique(barrier[caught], return_counts=True)
    return {str(n): int(c) for n, c in zip(names, counts, strict=True)}


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
    prepare_result_dir(target, force=force, resume=None)

    released = int(summary["n_rocks"])
    bodies, vertices = kept_bodies(geometry, released)
    stored = np.unique(np.asarray(samples.get("rock", []), dtype=np.int64))
    missing = sorted(set(stored.tolist()) - set(vertices))
    if missing:
        raise ValueError(
            f"{paths.geometry} holds no body of rock(s) {missing[:5]} whose trajectories are kept"
        )
    crossings = replay_crossings(terrain, barriers, samples, bodies, vertices.__getitem__)
    own_side = [(side or {}).get("direction_from") == "start" for side in sides]
    if any(own_side):
        crossings = directions_from_starts(
            crossings, barriers, own_side, sample_starts(samples, released)
        )
    n_rocks = int(stored.size)
    if n_rocks == 0:
        raise ValueError(f"{paths.trajectories} holds no sample")
    seed = 0 if config.seed is None else int(config.seed)
    design = DesignFactors.from_config(config.design.model_dump())
    stats = barrier_statistics(
        crossings, barriers, n_rocks, design, seed=seed, sides=sides if any(sides) else None
    )
    interval = sample_interval(samples)
    kept = summary.get("trajectories") if isinstance(summary.get("trajectories"), dict) else None
    warnings = list(side_warnings)
    if n_rocks < released:
        how = (
            'a sample stratified over release areas and rock classes (summary.json["trajectories"])'
            if kept
            else "the first rocks of the run"
        )
        share = format_percent(n_rocks / released)
        warnings.append(
            f"the statistics describe the {n_rocks} rocks whose trajectories the run kept "
            f"({share} of the {released} released), {how}: keep them all for the full sample "
            "(output.trajectories)"
        )
    exact = not entries and bool(kept and kept.get("barrier_crossings_kept"))
    dt = float(summary["dt"])
    if interval > dt * (1.0 + 1e-9) and not exact:
        warnings.append(
            f"crossings are interpolated between samples up to {interval:.4g} s apart "
            f"({round(interval / dt)} steps of {dt:g} s; output.trajectory_every): heights and "
            "energies at the lines are approximate and bounces between samples are missed"
        )
    differ = list(kept.get("crossings_not_reproduced") or []) if kept and not entries else []
    if differ:
        warnings.append(
            f"the kept trajectories of rock(s) {differ[:10]} do not reproduce the crossings the "
            "run recorded for them (summary.json): their replayed crossings are approximate"
        )
    held = _caught_by_run_nets(paths, geometry, stored) if entries else {}
    if held:
        total = sum(held.values())
        named = ", ".join(f"{name!r} ({count})" for name, count in held.items())
        warnings.append(
            f"the run's own net(s) caught {total} of the {n_rocks} rocks replayed here: {named}; "
            "their kept trajectories end at that net, so a line below it sees only the rocks the "
            "run's net let pass, and its counts, energies and design values are lower bounds; "
            "replay on a run whose nets are observation lines (no height or capacity), or run "
            "again with these barriers"
        )
    if any(b.kind == "net" for b in barriers) and entries:
        below = "the rocks move as the run simulated them" if held else "as without the net"
        warnings.append(
            "a net replayed on trajectories simulated without it acts at its first crossing "
            f"only: below it {below} (the residual hazard needs a run)"
        )
    sample = {k: v for k, v in kept.items() if k != "rocks"} if kept else None
    report = {
        "source": str(paths.trajectories.resolve()),
        "rocks_released": released,
        "n_rocks": n_rocks,
        "share": n_rocks / released if released else None,
        "rocks": [int(k) for k in stored],
        "sample": sample,
        "sample_interval_s": interval,
        "crossings_exact": exact,
        "caught_by_run_nets": held,
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
