"""A rockfall run as one library call: a configuration turned into a result folder.

The configuration (:mod:`tumble.io.config`) holds the parameters, the engine
(:mod:`tumble.rockfall`) the models and the solver, and :class:`RockfallRun` orchestrates them,
in the spirit of PyBaMM's ``Simulation``: compile the configuration into an ensemble
(:func:`tumble.rockfall.site.from_config.build_run`), simulate its chunks under the folder (they
resume after an interruption), reduce them, compute the hazard products from the results
(:mod:`tumble.rockfall.hazard`: barrier design values, per-source tables, zoning), and write
every file of :mod:`tumble.io.run_folder` with the figures and the report, ``summary.json``
last. The command line (``tumble rockfall run``), ``tumble demo`` and scripts use it alike::

    from tumble.pipeline import RockfallRun

    run = RockfallRun.from_config("examples/site/site.toml", overrides=["rocks=200"])
    outcome = run.run("out/site")
    print(outcome.summary["runout_m"]["p95"])
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tumble._jit import get_threads
from tumble.io import run_folder as layout
from tumble.io.config import RockfallConfig, load_config
from tumble.io.lock import FolderLock
from tumble.io.provenance import write_provenance
from tumble.io.results import ResultDir, check_result_target, prepare_result_dir, write_csv
from tumble.pipeline.auto import (
    auto_rounds,
    carry_chunks,
    judge_round,
    near_release_record,
    near_release_warning,
    product_rounds,
    round_before,
)
from tumble.pipeline.drawing import DrawingInBackground, can_draw_in_background
from tumble.pipeline.energy_line import run_energy_line
from tumble.pipeline.geometry import run_geometry
from tumble.pipeline.trajectories import (
    KeptRocks,
    choose_rocks,
    replay_mismatches,
    trajectory_columns,
    trajectory_sample,
    write_parquet,
)
from tumble.pipeline.visits import write_visits
from tumble.rockfall.ensemble import run_chunks
from tumble.rockfall.ensemble.chunks import describe_differences
from tumble.rockfall.ensemble.crossings import directions_from_starts
from tumble.rockfall.ensemble.driver import CHUNK_SIZE
from tumble.rockfall.ensemble.outputs import (
    deposits_gpkg_in_background,
    write_exits_gpkg,
    write_trajectories_gpkg,
    write_tree_impacts,
)
from tumble.rockfall.ensemble.rasters import Rasters
from tumble.rockfall.hazard.convergence import Convergence, write_converged
from tumble.rockfall.hazard.design import add_barrier_statistics
from tumble.rockfall.hazard.energy_line import energy_line_warning
from tumble.rockfall.hazard.reach import (
    outlines,
    source_count,
    source_reach,
    write_outlines,
    write_source_count,
)
from tumble.rockfall.hazard.zoning import zoning_record
from tumble.rockfall.site.barrier_files import side_records
from tumble.rockfall.site.from_config import DEFAULT_SCENARIO, RunSetup, build_run
from tumble.rockfall.site.release_sources import add_frequency_notes
from tumble.rockfall.site.resolved import resolved_config
from tumble.rockfall.site.soil_record import soil_text


@dataclass
class RunOutcome:
    """What :meth:`RockfallRun.run` left in ``folder``: the ``summary`` (the content of
    ``summary.json``), the warnings to show (damaged chunks computed again, censoring), and
    whether the folder already held this finished run (``reused``: nothing was computed)."""

    folder: Path
    summary: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    reused: bool = False

    @property
    def all_failed(self) -> bool:
        """Whether every rock failed numerically (no number of the run can be trusted)."""
        return bool(self.summary.get("fractions", {}).get("failed") == 1.0)


class RockfallRun:
    """A validated configuration and the ensemble it compiles to (every input checked here,
    before any simulation); :meth:`run` writes the result folder."""

    def __init__(self, config: RockfallConfig, base_dir: str | os.PathLike = ".") -> None:
        self._started = time.perf_counter()
        #: the configuration as given (``rocks`` may be ``"auto"``)
        self.requested = config
        self._base_dir = base_dir
        #: the rounds of a ``rocks = "auto"`` run, once it ran, and their products' measures
        self.rounds: list[dict[str, Any]] = []
        self.settling = product_rounds(config)
        if config.rocks == "auto":
            config = config.model_copy(update={"rocks": auto_rounds(config)[0]})
        self.config = config
        self.setup: RunSetup = build_run(config, base_dir)
        if config.run.dask is not None:
            from tumble.rockfall.ensemble.cluster import parse_address

            parse_address(config.run.dask)

    @classmethod
    def from_config(
        cls,
        path: str | os.PathLike | None = None,
        settings: Mapping[str, Any] | None = None,
        overrides: Sequence[str] = (),
        barrier_files: Iterable[str | os.PathLike] = (),
    ) -> RockfallRun:
        """The run of a TOML file (``path``, or the defaults), then ``settings`` (dotted keys to
        values; None leaves a key alone), then ``overrides`` (``key=value`` strings), with the
        barriers of ``barrier_files`` added."""
        started = time.perf_counter()
        config = load_config(
            path, dict(settings or {}), list(overrides), barrier_files=tuple(barrier_files)
        )
        run = cls(config)
        run._started = started
        return run

    @property
    def ensemble(self) -> Any:
        return self.setup.ensemble

    def start_line(self) -> str:
        """What the run is about to do, in one line: the rocks, the scheme, the terrain and the
        soil presets with every value they resolve to (:func:`soil_text`)."""
        requested = self.requested
        rocks = "auto" if requested.rocks == "auto" else str(self.ensemble.n_rocks)
        terrain = requested.dem or requested.scenario or DEFAULT_SCENARIO
        return (
            f"{rocks} rocks ({self.ensemble.scheme}) on {terrain}; "
            f"{soil_text(self.setup.soil_record)}"
        )

    def run(
        self,
        out: str | os.PathLike,
        *,
        force: bool = False,
        resume: bool = False,
        keep_chunks: bool = False,
        progress: bool | str | None = None,
    ) -> RunOutcome:
        """Simulate and write the result folder ``out`` (module docstring). ``resume`` finishes
        an interrupted run there (or reuses a finished one of the same inputs), ``force``
        replaces an earlier result as a whole; ``keep_chunks`` leaves the chunk files;
        ``progress`` as :func:`tumble.rockfall.ensemble.run_chunks`."""
        folder = check_result_target(out)
        with FolderLock(folder):
            if self.requested.rocks == "auto":
                return self._run_auto(folder, force, resume, keep_chunks, progress)
            return self._run_locked(folder, force, resume, keep_chunks, progress)

    def _run_auto(
        self,
        out: Path,
        force: bool,
        resume: bool,
        keep_chunks: bool,
        progress: bool | str | None,
    ) -> RunOutcome:
        """``rocks = "auto"``: rounds of :func:`auto_rounds` rocks, each the fixed run of that
        many rocks (its chunks those of the round before where their inputs are equal:
        :meth:`~tumble.rockfall.ensemble.Ensemble.chunk_fingerprint`), until every cell that
        counts has converged (:mod:`tumble.rockfall.hazard.convergence`) or ``max_rocks``
        rocks ran; the folder is then written as :meth:`run` writes that fixed run."""
        paths = layout.RunPaths(out)
        state = prepare_result_dir(out, force=force, resume=resume)
        if state == "resume" and paths.finished:
            return self._finished(paths)
        check = _convergence(self.requested)
        counts = auto_rounds(self.requested)
        chunk_size = self.requested.run.chunk_size or CHUNK_SIZE
        self.rounds = []
        self.settling = product_rounds(self.requested)
        for k, rocks in enumerate(counts):
            before = self.setup.ensemble
            if k:
                self.config = self.requested.model_copy(update={"rocks": rocks})
                self.setup = build_run(self.config, self._base_dir)
            ensemble = self.setup.ensemble
            previous = round_before(before, self.requested, self._base_dir)
            carry_chunks(ensemble, out, chunk_size, self.config.physics(), previous)
            chunk_run = run_chunks(
                ensemble,
                out,
                chunk_size=chunk_size,
                threads=self.config.run.threads,
                resume=True,
                dask=self.config.run.dask,
                progress=progress,
                inputs=self.config.physics(),
            )
            result = chunk_run.reduction.result(chunk_run.wall_time)
            zoning = self._hazard_products(result)[0]
            record = check.record(result.rasters, rocks)
            judge_round(self.settling, result, zoning, record, rocks)
            self.rounds.append(
                {
                    "rocks": rocks,
                    "cells": record["cells"],
                    "cells_converged": record["cells_converged"],
                    "runout_p95_m": result.summary["runout_m"]["p95"],
                    "kinetic_energy_p95_kJ": result.summary["kinetic_energy_kJ"]["rock_max"]["p95"],
                    "wall_time_s": chunk_run.wall_time,
                }
            )
            if self.settling.done:
                break
        return self._run_locked(out, False, True, keep_chunks, progress)

    def _run_locked(
        self,
        out: Path,
        force: bool,
        resume: bool,
        keep_chunks: bool,
        progress: bool | str | None,
    ) -> RunOutcome:
        config, setup = self.config, self.setup
        ensemble = setup.ensemble
        paths = layout.RunPaths(out)
        state = prepare_result_dir(out, force=force, resume=resume)
        if state == "resume" and paths.finished:
            return self._finished(paths)
        setup_s = time.perf_counter() - self._started
        chunk_run = run_chunks(
            ensemble,
            out,
            chunk_size=config.run.chunk_size,
            threads=config.run.threads,
            resume=resume,
            dask=config.run.dask,
            progress=progress,
            inputs=config.physics(),
        )
        reduce_start = time.perf_counter()
        result = chunk_run.reduction.result(chunk_run.wall_time)
        zoning, own_side = self._hazard_products(result)
        result.summary["warnings"] += list(setup.barrier_warnings)
        default = DEFAULT_SCENARIO if config.dem is None else None
        result.summary["scenario"] = config.scenario or default
        result.summary["sessions"] = len(chunk_run.sessions)
        result.summary["release"] = setup.release_report
        result.summary["warnings"] = [*setup.warnings, *result.summary["warnings"]]
        if "hazard_zone" in zoning:
            terrain = ensemble.terrain
            result.summary["zoning"] = zoning_record(
                zoning["hazard_zone"],
                abs(terrain.dx * terrain.dy),
                ~np.isfinite(np.asarray(terrain.heights)),
            )
            size = int(terrain.heights.size)
            add_frequency_notes(result.summary, setup.site, result.reach, size, setup.release)
        check = _convergence(self.requested)
        converged = check.check(result.rasters)[1]
        result.summary["convergence"] = check.record(result.rasters, ensemble.n_rocks)
        if self.requested.rocks == "auto":
            products = self.settling.record(self.requested.convergence.max_rocks)
            result.summary["convergence"].update(products)
            result.summary["convergence"]["max_rocks"] = self.requested.convergence.max_rocks
            result.summary["convergence"]["rounds"] = list(self.rounds)
            if products["converged"] is False:
                verdict = products["verdict"].replace("not converged", "did not converge", 1)
                result.summary["warnings"].append(f"the products {verdict}")
        # drawn only, through window_values (float64 of the window): the boolean grid gives the
        # same 0 and 1 as a float copy, in a quarter of the memory
        extra: dict[str, Any] = {"converged": converged}
        reached = None
        if result.reach is not None:
            reached = source_reach(
                result.reach, len(setup.site.source_names), ensemble.terrain.heights.shape
            )
            extra["source_count"] = source_count(reached)
        # reach beyond the release; on a built-in terrain, what it reproduces
        result.summary["energy_line"] = run_energy_line(
            result, ensemble.terrain, setup.release, result.summary["scenario"]
        )
        if warning := energy_line_warning(result.summary["energy_line"]):
            result.summary["warnings"].append(warning)
        result.summary["stopped_near_release"] = near_release_record(result)
        if warning := near_release_warning(result.summary["stopped_near_release"]):
            result.summary["warnings"].append(warning)
        # each rock's drawn soil parameters (soil.uncertainty), and what was drawn
        result.rocks.update(setup.soil_draws.columns())
        # the presets of the run's soils and every value used: a preset that took other
        # numbers in another release shows in a comparison of the two runs
        result.summary["soil"] = {"uncertainty": setup.soil_draws.described, **setup.soil_record}
        crs = ensemble.terrain.crs
        kept = choose_rocks(setup.site, config.output.trajectories, config.seed)
        geometry = run_geometry(ensemble, setup.release, kept.rocks, setup.barrier_sides)
        # full grids only where they are given so: the hazard rasters stay windowed
        report_rasters = rasters_with_grids(
            result.rasters, {**zoning, **extra, **forest_maps(ensemble, result)}
        )
        in_background = config.output.figures and can_draw_in_background(
            int(ensemble.terrain.heights.size)
        )
        if in_background:
            # matplotlib and the maps' modules imported once, before the fork, for both processes
            import tumble.viz.run_report  # noqa: F401
        with (
            ResultDir(out, inside=True, last=(layout.SUMMARY,)) as stage,
            # many rocks' points go in a process of their own, beside the rest of the write-out
            deposits_gpkg_in_background(
                stage / layout.DEPOSITS_GPKG, result.rocks, crs
            ) as deposits_gpkg,
            # the report's maps in a copy of this process, beside the rest of the write-out
            DrawingInBackground(
                lambda: _report_maps(stage, ensemble, result, report_rasters, config, geometry),
                "drawing the report's maps",
                background=in_background,
            ) as report_maps,
        ):
            staged = layout.RunPaths(stage)
            result.write_rasters(ensemble.terrain, staged.rasters, ascii=config.output.ascii)
            if result.tree_impacts is not None:
                write_tree_impacts(
                    ensemble.terrain, result.tree_impacts, staged.rasters, config.output.ascii
                )
            ascii = config.output.ascii
            setup.site.write_rasters(ensemble.terrain, zoning, staged.rasters, ascii)
            write_converged(ensemble.terrain, converged, staged.rasters, ascii)
            if reached is not None:
                write_source_count(ensemble.terrain, extra["source_count"], staged.rasters, ascii)
                write_outlines(
                    stage / layout.REACH_OUTLINES_GPKG,
                    outlines(ensemble.terrain, reached),
                    setup.site.source_names,
                    setup.site.source_frequency,
                    [int(np.sum(setup.site.source_of == s)) for s in range(reached.shape[0])],
                    ensemble.terrain.crs,
                )
            ensemble.terrain.write(staged.dem)
            result.write_deposits(staged.deposits)
            if config.output.visits:
                result.summary["visits"] = write_visits(
                    staged.visits,
                    chunk_run.chunks,
                    ensemble,
                    setup.site.source_of,
                    setup.site.source_names,
                )
            if result.exits is not None:
                write_exits_gpkg(stage / layout.EXITS_GPKG, result.exits, crs)
            first = ensemble.trajectory(0, save_every=1)
            if kept.rocks.size:
                every = config.output.trajectory_every
                sample = trajectory_sample(ensemble, kept.rocks, every, known={0: first})
                write_parquet(staged.trajectories, sample)
                write_trajectories_gpkg(
                    stage / layout.TRAJECTORIES_GPKG,
                    sample,
                    result.rocks,
                    crs,
                    list(setup.site.class_names),
                )
                _describe_sample(
                    result.summary, kept, every, ensemble, sample, result.crossings, own_side
                )
            staged.geometry.write_text(json.dumps(geometry) + "\n")
            if ensemble.n_rocks == 1:
                columns = trajectory_columns(first)
                write_csv(stage / layout.TRAJECTORY_CSV, columns)
                write_parquet(stage / layout.TRAJECTORY_PARQUET, columns)
            if result.crossings is not None:
                write_parquet(staged.crossings, result.crossings)
            if config.output.figures:
                _figures(staged.figures, ensemble, result, first)
            timings = {
                "setup_s": setup_s,
                "simulation_s": chunk_run.wall_time,
                "outputs_s": time.perf_counter() - reduce_start,
            }
            run_settings = {
                "chunk_size": int(_manifest(paths).get("chunk_size", 0)) or None,
                "threads": config.run.threads or get_threads(),
            }
            resolved = resolved_config(config, setup, run_settings)
            record = write_provenance(
                stage,
                config={
                    "resolved": resolved,
                    "physics": config.physics(),
                    "fingerprint": ensemble.fingerprint(),
                    "soil": setup.soil_record,
                },
                timings=timings,
                seed=config.seed,
                inputs=setup.inputs,
                sessions=chunk_run.sessions,
            )
            from tumble.viz.run_report import write_run_report

            drawn_maps = report_maps.result()
            map_paths = {path for path, _ in drawn_maps}
            write_run_report(
                stage,
                summary=result.summary,
                terrain=ensemble.terrain,
                rasters=report_rasters,
                rocks=result.rocks,
                exits=result.exits,
                config=resolved,
                provenance=record,
                figures=sorted(p for p in staged.figures.glob("*.png") if p not in map_paths),
                draw_maps=config.output.figures,
                geometry=geometry,
                drawn_maps=drawn_maps,
            )
            deposits_gpkg.wait()
            result.write_summary(staged.summary)
        if not keep_chunks:
            shutil.rmtree(paths.chunks, ignore_errors=True)
        return RunOutcome(
            out, result.summary, [*chunk_run.damaged, *result.summary["warnings"]], reused=False
        )

    def _hazard_products(self, result: Any) -> tuple[dict[str, Any], list[bool]]:
        """The hazard products of ``result``, in place (the barrier statistics, the per-source
        and per-class records); returns the zoning rasters and which barrier lines judge their
        crossings from the rock's own side."""
        setup, ensemble = self.setup, self.setup.ensemble
        # observation lines between sources: each crossing judged from its rock's own side
        own_side = [s is not None and s.direction_from == "start" for s in setup.barrier_sides]
        if result.crossings is not None and any(own_side):
            starts = np.full((ensemble.n_rocks, 2), np.nan)
            starts[np.asarray(result.rocks["rock"], dtype=np.int64)] = np.column_stack(
                [result.rocks["release_x"], result.rocks["release_y"]]
            )
            result.crossings = directions_from_starts(
                result.crossings, ensemble.barriers, own_side, starts
            )
        # hazard products, from the engine's results
        add_barrier_statistics(
            result,
            ensemble.barriers,
            setup.design,
            self.config.seed,
            sides=side_records(setup.barrier_sides) or None,
        )
        return setup.site.apply(result), own_side

    def _finished(self, paths: layout.RunPaths) -> RunOutcome:
        """``resume`` on a finished run: nothing to do when it is this run; refused otherwise,
        naming what differs."""
        ensemble = self.setup.ensemble
        try:
            record = json.loads(paths.provenance.read_text())["config"]
        except (OSError, ValueError, KeyError, TypeError):
            raise ValueError(
                f"{paths.path} holds a finished run without a readable provenance.json"
            ) from None
        if record.get("fingerprint") != ensemble.fingerprint():
            differences = describe_differences(record.get("physics") or {}, self.config.physics())
            raise ValueError(
                f"{paths.path} holds a finished run of other inputs ({differences}); --force "
                "replaces it"
            )
        summary = paths.read_json(paths.summary)
        return RunOutcome(paths.path, summary, [], reused=True)


def rasters_with_grids(
    rasters: Mapping[str, np.ndarray], grids: Mapping[str, np.ndarray]
) -> Mapping[str, np.ndarray]:
    """The run's hazard rasters and the full ``grids`` beside them, without building a full grid
    of a windowed raster (:meth:`tumble.rockfall.ensemble.rasters.Rasters.with_grids`)."""
    if isinstance(rasters, Rasters):
        return rasters.with_grids(grids)
    return {**rasters, **grids}


def forest_maps(ensemble: Any, result: Any) -> dict[str, np.ndarray]:
    """The forest's maps of the report: stems per hectare and the tree impacts per cell."""
    forest = getattr(ensemble, "forest", None)
    if forest is None or result.tree_impacts is None:
        return {}
    stems = forest.stems_per_ha()
    if forest.n_trees:
        stems = stems / (abs(ensemble.terrain.dx * ensemble.terrain.dy) * 1e-4)
    return {
        "forest_stems_per_ha": stems,
        "tree_impacts": result.tree_impacts.astype(np.float64),
    }


def _convergence(config: RockfallConfig) -> Convergence:
    c = config.convergence
    return Convergence(target=c.target, min_probability=c.min_probability)


def _describe_sample(
    summary: dict[str, Any],
    kept: KeptRocks,
    every: int,
    ensemble: Any,
    sample: dict[str, Any],
    crossings: dict[str, Any] | None,
    own_side: Sequence[bool] = (),
) -> None:
    """``summary["trajectories"]``: the kept rocks and how they were chosen; a warning when the
    replay of the run's own barriers on them does not give the run's crossings (the lines of
    ``own_side`` judged from each rock's start, as the run's)."""
    differ = replay_mismatches(ensemble, sample, crossings, own_side)
    summary["trajectories"] = kept.describe(every, differ)
    if differ:
        shown = ", ".join(str(k) for k in differ[:10]) + (" ..." if len(differ) > 10 else "")
        summary.setdefault("warnings", []).append(
            f"the kept trajectories of {len(differ)} rock(s) ({shown}) do not reproduce the "
            "barrier crossings the run recorded for them: the barrier replay of those rocks is "
            "approximate"
        )


def _manifest(paths: layout.RunPaths) -> dict[str, Any]:
    try:
        return dict(json.loads((paths.chunks / layout.MANIFEST).read_text()))
    except (OSError, ValueError):
        return {}


def _report_maps(
    stage: Path,
    ensemble: Any,
    result: Any,
    rasters: Mapping[str, np.ndarray],
    config: RockfallConfig,
    geometry: Mapping[str, Any],
) -> list[tuple[Path, str]]:
    """The maps of ``report.html`` (:func:`tumble.viz.run_report.draw_report_maps`)."""
    from tumble.viz.run_report import draw_report_maps

    return draw_report_maps(
        stage,
        terrain=ensemble.terrain,
        rasters=rasters,
        rocks=result.rocks,
        exits=result.exits,
        n_rocks=result.summary.get("n_rocks"),
        draw_maps=config.output.figures,
        geometry=geometry,
    )


def _figures(directory: Path, ensemble: Any, result: Any, first: Any) -> None:
    """The energy map, rock 0's profile, the run-out and energy histograms, the rounds of an
    auto run, and per barrier its exceedance and along-line figures."""
    from tumble.viz.barriers import plot_barrier
    from tumble.viz.rockfall import plot_energy_map, plot_histograms, plot_profile

    directory.mkdir(parents=True, exist_ok=True)
    label = f"{ensemble.n_rocks} rocks, {ensemble.scheme} scheme"
    plot_energy_map(
        ensemble.terrain,
        result.rasters,
        directory / "energy_map.png",
        title=f"Maximum kinetic energy, {label}",
    )
    plot_profile(
        first,
        ensemble.terrain,
        directory / "profile.png",
        title=f"Rock 0, {ensemble.scheme} scheme ({first.status} after {first.t[-1]:.1f} s)",
    )
    plot_histograms(result.rocks, directory / "histograms.png", title=label)
    if "products" in result.summary.get("convergence", {}):
        from tumble.viz.report_convergence import plot_convergence_rounds

        plot_convergence_rounds(result.summary["convergence"], directory / "convergence.png")
    if result.crossings is not None:
        for stats, barrier in zip(result.summary["barriers"], ensemble.barriers, strict=True):
            plot_barrier(stats, result.crossings, barrier, directory)
