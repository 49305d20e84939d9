"""``tumble rockfall``: ensembles of rocks on a terrain (``run``), barriers replayed on a run
(``barriers``), tables of two runs (``compare``).

``tumble rockfall run --scenario slope40 --rocks 1000 --scheme implicit --seed 1 --out DIR``
simulates the rocks in chunks under ``DIR/chunks`` (``--resume`` finishes an interrupted run) and
writes, once every chunk is done::

    DIR/summary.json               statistics (written last: its presence marks a finished run)
    DIR/rasters/NAME.tif           hazard rasters with the DEM's CRS and transform (.asc with
                                   --ascii), NAME in tumble.rockfall.ensemble.RASTERS; and dem.tif
                                   (and hazard_zone.tif etc. with frequencies: rockfall.zoning)
    DIR/deposits.csv               final point, status and time of every rock
    DIR/trajectories.parquet       a subsample of trajectories (output.trajectories rocks)
    DIR/figures/energy_map.png     maximum kinetic energy over a hillshade, spread envelope
    DIR/figures/profile.png        altitude and omega of rock 0 against projected distance
    DIR/figures/histograms.png     run-out and maximum kinetic energy
    DIR/provenance.json            version, resolved configuration, seed, timings
    DIR/trajectory.csv, .parquet   with --rocks 1: the whole trajectory, every step

``tumble rockfall barriers DIR --line X,Y X,Y`` replays barrier lines on the kept trajectories
(:mod:`tumble.cli.rockfall_barriers`).

``tumble rockfall compare DIR_A DIR_B --out DIR`` writes the table of Leine et al. 2021, Table 2
for two runs (:mod:`tumble.cli.rockfall_compare`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tumble._jit import get_threads
from tumble.cli.common import float_tuple, positive_float, positive_int
from tumble.cli.rockfall_barriers import add_barriers_parser
from tumble.cli.rockfall_compare import add_compare_parser
from tumble.cli.rockfall_soils import add_soils_parser
from tumble.rockfall.step.model import SCHEME_NAMES, TRAJECTORY_COLUMNS

ROCK_SHAPES = ("eota221", "eota111", "box")


RUN_EPILOG = """examples:
  tumble rockfall run --out out/slope40
  tumble rockfall run --config examples/slope40.toml rocks=5000 release.height=3 --out out/big
  tumble rockfall run --dem site.tif --release 2600100,1200200 --rocks 2000 --out out/site
  tumble rockfall run --dem site.tif --release 2600100,1200200 --rocks 2000 --out out/site --resume
  tumble view out/site     # the finished run in 3D in the browser (output.trajectories=N paths)
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "rockfall",
        help="rockfall ensembles: hazard rasters, statistics, comparisons",
        description="Simulate ensembles of rocks on a terrain, or compare two runs.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    run = actions.add_parser(
        "run",
        help="simulate an ensemble of rocks",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Simulate rocks released on a terrain (Moreau time-stepping, explicit or implicit "
            "rotation scheme) and write hazard rasters, statistics, deposits, trajectories and "
            "figures to --out. Settings come from the defaults, then --config FILE, then the "
            "options, then key=value overrides (dotted keys of the configuration, e.g. "
            "release.height=2 rock.mass=500). Default: slope40, 100 EOTA221 rocks of 780 kg "
            "released 1.5 m above x = 10 m with 1 m/s down the slope, Lu 2019 soil, dt 0.002 s."
        ),
    )
    run.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="configuration overrides, dotted keys in TOML syntax (release.height=2)",
    )
    run.add_argument(
        "--config", metavar="FILE", help="TOML configuration file (e.g. examples/slope40.toml)"
    )
    terrain = run.add_mutually_exclusive_group()
    terrain.add_argument("--scenario", help="built-in terrain: slope40 (the default terrain)")
    terrain.add_argument(
        "--dem", metavar="FILE", help="DEM file, GeoTIFF or ESRI ASCII, metres (no default)"
    )
    run.add_argument(
        "--reproject",
        metavar="EPSG:XXXX",
        help="warp a DEM in degrees or feet to this projected CRS in metres first",
    )
    run.add_argument("--rocks", type=positive_int, help="number of rocks (default 100)")
    run.add_argument("--scheme", choices=SCHEME_NAMES, help="rotation scheme (default implicit)")
    run.add_argument("--seed", type=int, help="random seed, non-negative (default 0)")
    run.add_argument("--dt", type=positive_float, help="time step, s (default 0.002)")
    run.add_argument(
        "--t-max", type=positive_float, help="longest simulated time per rock, s (default 60)"
    )
    run.add_argument(
        "--rock",
        metavar="SHAPE|FILE",
        help="eota221 (default), eota111, box, or a mesh / point-list file (STL, PLY, OBJ, XYZ)",
    )
    run.add_argument(
        "--mass", type=positive_float, help="rock mass, kg (default 780 for the EOTA shapes)"
    )
    run.add_argument(
        "--size", type=positive_float, help="EOTA edge length L, m (instead of --mass)"
    )
    run.add_argument("--box", type=float_tuple(3), metavar="A,B,C", help="box edges, m")
    run.add_argument("--density", type=positive_float, help="rock density, kg/m^3 (default 2740)")
    run.add_argument(
        "--soil",
        metavar="PRESET",
        help="soil preset (default medium); tumble rockfall soils lists them",
    )
    run.add_argument(
        "--release",
        type=float_tuple(2),
        metavar="X,Y",
        help="release point in DEM coordinates, m (default on slope40: 10,0)",
    )
    run.add_argument(
        "--height",
        type=positive_float,
        help="centre of mass above the terrain at release, m (default 1.5)",
    )
    run.add_argument(
        "--threads", type=positive_int, help="threads of the parallel loop (default: all cores)"
    )
    run.add_argument(
        "--chunk-size",
        type=positive_int,
        help="rocks per chunk file (default 100; runs of more than 20000 rocks: rocks/200, "
        "at most 1000)",
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run in --out (a finished one is left as it is)",
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier tumble result in --out as a whole (never another folder)",
    )
    run.add_argument(
        "--keep-chunks",
        action="store_true",
        help="keep the chunk files under --out/chunks after the run (default: removed)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar or progress lines")
    run.add_argument(
        "--barriers",
        metavar="FILE",
        action="append",
        help="barrier lines and nets: a TOML file of [[barrier]] tables, or a GeoPackage, "
        "GeoJSON or Shapefile of lines (a 'name' attribute names them); repeatable",
    )
    run.add_argument(
        "--dask",
        metavar="SCHEDULER|local:N",
        help="run the chunks on a Dask cluster, tcp://host:8786 or local:N (needs tumble[cluster])",
    )
    run.add_argument("--ascii", action="store_true", help="also write ESRI ASCII rasters")
    run.add_argument("--no-figures", action="store_true", help="skip the figures and the maps")
    run.add_argument("--out", default="out/rockfall", help="output folder (default out/rockfall)")
    run.set_defaults(run=run_command)

    add_barriers_parser(actions)
    add_soils_parser(actions)

    add_compare_parser(actions)


# ---------------------------------------------------------------------------------------------
# run


def _settings(args) -> dict:
    settings = {
        "scenario": args.scenario,
        "dem": args.dem,
        "reproject": args.reproject,
        "rocks": args.rocks,
        "scheme": args.scheme,
        "seed": args.seed,
        "dt": args.dt,
        "t_max": args.t_max,
        "rock.mass": args.mass,
        "rock.size": args.size,
        "rock.density": args.density,
        "rock.box": list(args.box) if args.box else None,
        "soil.preset": args.soil,
        "release.point": list(args.release) if args.release else None,
        "release.height": args.height,
        "output.ascii": True if args.ascii else None,
        "output.figures": False if args.no_figures else None,
        "run.chunk_size": args.chunk_size,
        "run.threads": args.threads,
        "run.dask": args.dask,
    }
    if args.rock is not None:
        if args.rock in ROCK_SHAPES:
            settings["rock.shape"] = args.rock
        else:
            settings["rock.shape"] = "file"
            settings["rock.file"] = args.rock
    if args.box and args.rock is None:
        settings["rock.shape"] = "box"
    return settings


class _Stage:
    """Final outputs written into a hidden directory inside ``out`` and moved into place file by
    file, ``summary.json`` last; removed on failure."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self) -> Path:
        self.out.mkdir(parents=True, exist_ok=True)
        for stale in self.out.glob(".outputs-partial-*"):  # left by a killed run
            shutil.rmtree(stale, ignore_errors=True)
        # absolute, so that the files found in it are found again from any folder (the report)
        self.stage = Path(tempfile.mkdtemp(prefix=".outputs-partial-", dir=self.out)).resolve()
        return self.stage

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                files = sorted(p for p in self.stage.rglob("*") if p.is_file())
                files.sort(key=lambda p: p.name == "summary.json")
                for path in files:
                    dest = self.out / path.relative_to(self.stage)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(path, dest)
        finally:
            shutil.rmtree(self.stage, ignore_errors=True)


def trajectory_columns(traj, terrain=None) -> dict:
    """Columns of a single-rock trajectory file."""
    import numpy as np

    columns = dict(
        zip(
            TRAJECTORY_COLUMNS,
            [traj.t, *traj.position.T, *traj.orientation.T, *traj.velocity.T, *traj.omega.T],
            strict=True,
        )
    )
    columns["kinetic_energy_J"] = traj.kinetic_energy()
    columns["translational_energy_J"] = traj.translational_energy()
    columns["rotational_energy_J"] = traj.rotational_energy()
    columns["potential_energy_J"] = traj.potential_energy()
    columns["in_contact"] = traj.in_contact.astype(np.int64)
    columns["n_contacts"] = traj.n_contacts
    columns["slippage_m"] = traj.slippage
    columns["mu"] = traj.mu
    columns["height_m"] = traj.height
    return columns


def write_parquet(path: Path, columns: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({k: list(v) if v.dtype.kind == "U" else v for k, v in columns.items()}), path
    )


def _trajectory_sample(ensemble, count: int, every: int) -> dict:
    import numpy as np

    parts: dict[str, list] = {}
    for k in range(min(count, ensemble.n_rocks)):
        columns = trajectory_columns(ensemble.trajectory(k, save_every=every))
        columns = {"rock": np.full(columns["t"].shape, k, dtype=np.int64), **columns}
        for name, values in columns.items():
            parts.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in parts.items()}


def run_command(args) -> int:
    from tumble.io.config import load_config
    from tumble.io.lock import FolderLock
    from tumble.io.results import check_result_target
    from tumble.rockfall.site.from_config import build_run

    started = time.perf_counter()
    config = load_config(
        args.config, _settings(args), args.overrides, barrier_files=args.barriers or ()
    )
    setup = build_run(config)
    if config.run.dask is not None:
        from tumble.rockfall.ensemble.cluster import parse_address

        parse_address(config.run.dask)
    out = check_result_target(args.out)
    with FolderLock(out):
        return _run_locked(args, config, setup, started)


def _run_locked(args, config, setup, started: float) -> int:
    """:func:`run_command` once the configuration is valid and the lock of ``--out`` held."""
    from tumble.io.provenance import write_provenance
    from tumble.io.results import prepare_result_dir
    from tumble.rockfall.ensemble import run_chunks, summary_line
    from tumble.rockfall.ensemble.outputs import write_deposits_gpkg, write_trajectories_gpkg
    from tumble.rockfall.hazard.design import add_barrier_statistics
    from tumble.rockfall.site.from_config import resolved_config
    from tumble.viz.run_report import write_run_report

    ensemble = setup.ensemble
    out = Path(args.out)
    state = prepare_result_dir(args.out, force=args.force, resume=args.resume)
    if state == "resume" and (out / "summary.json").is_file():
        return _finished(out, ensemble.fingerprint(), config.physics(), summary_line)
    args.resume_hint = _resume_command(args)
    setup_s = time.perf_counter() - started
    chunk_run = run_chunks(
        ensemble,
        out,
        chunk_size=config.run.chunk_size,
        threads=config.run.threads,
        resume=args.resume,
        dask=config.run.dask,
        progress=False if args.quiet else None,
        inputs=config.physics(),
    )
    reduce_start = time.perf_counter()
    result = chunk_run.reduction.result(chunk_run.wall_time)
    add_barrier_statistics(result, ensemble.barriers, setup.design, config.seed)
    result.summary["scenario"] = config.scenario or ("slope40" if config.dem is None else None)
    result.summary["sessions"] = len(chunk_run.sessions)
    zoning = setup.site.apply(result)
    with _Stage(out) as stage:
        result.write_rasters(ensemble.terrain, stage / "rasters", ascii=config.output.ascii)
        setup.site.write_rasters(ensemble.terrain, zoning, stage / "rasters")
        ensemble.terrain.write(stage / "rasters" / "dem.tif")
        result.write_deposits(stage / "deposits.csv")
        crs = ensemble.terrain.crs
        write_deposits_gpkg(stage / "deposits.gpkg", result.rocks, crs)
        if config.output.trajectories > 0:
            sample = _trajectory_sample(
                ensemble, config.output.trajectories, config.output.trajectory_every
            )
            write_parquet(stage / "trajectories.parquet", sample)
            shape_names = list(setup.site.class_names)
            write_trajectories_gpkg(
                stage / "trajectories.gpkg", sample, result.rocks, crs, shape_names
            )
        first = ensemble.trajectory(0, save_every=1)
        if ensemble.n_rocks == 1:
            from tumble.io.results import write_csv

            columns = trajectory_columns(first)
            write_csv(stage / "trajectory.csv", columns)
            write_parquet(stage / "trajectory.parquet", columns)
        if result.crossings is not None:
            write_parquet(stage / "crossings.parquet", result.crossings)
        if config.output.figures:
            _figures(stage / "figures", ensemble, result, first)
            if result.crossings is not None:
                from tumble.viz.barriers import plot_barrier

                for stats, barrier in zip(
                    result.summary["barriers"], ensemble.barriers, strict=True
                ):
                    plot_barrier(stats, result.crossings, barrier, stage / "figures")
        timings = {
            "setup_s": setup_s,
            "simulation_s": chunk_run.wall_time,
            "outputs_s": time.perf_counter() - reduce_start,
        }
        run_settings = {
            "chunk_size": int(_manifest(out).get("chunk_size", 0)) or None,
            "threads": config.run.threads or get_threads(),
        }
        resolved = resolved_config(config, setup, run_settings)
        record = write_provenance(
            stage,
            config={
                "resolved": resolved,
                "physics": config.physics(),
                "fingerprint": ensemble.fingerprint(),
            },
            timings=timings,
            seed=config.seed,
            inputs=setup.inputs,
            sessions=chunk_run.sessions,
        )
        figures = sorted(stage.glob("figures/*.png"))
        write_run_report(
            stage,
            summary=result.summary,
            terrain=ensemble.terrain,
            rasters={**result.rasters, **zoning},
            rocks=result.rocks,
            config=resolved,
            provenance=record,
            figures=figures,
            draw_maps=config.output.figures,
        )
        result.write_summary(stage / "summary.json")
    if not args.keep_chunks:
        shutil.rmtree(out / "chunks", ignore_errors=True)
    for warning in [*chunk_run.damaged, *result.summary["warnings"]]:
        print(f"warning: {warning}", file=sys.stderr)
    print(summary_line(result.summary))
    for line in barrier_lines(result.summary.get("barriers", [])):
        print(line)
    print(f"wrote {out}/")
    if result.summary["fractions"]["failed"] == 1.0:
        print(
            "tumble rockfall run: error: every rock failed numerically; see the warnings above",
            file=sys.stderr,
        )
        return 3
    return 0


def barrier_lines(barriers: list[dict]) -> list[str]:
    """One line per barrier for the screen: crossings, p95 energy and passing height with their
    intervals, the design values and, for a net, the verification."""

    def value(entry: dict, key: str, unit: str) -> str:
        v, ci = entry.get(key), entry.get(key + "_ci")
        if v is None:
            return "n/a"
        text = f"{v:.1f} {unit}"
        return text + (f" [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else "")

    lines = []
    for b in barriers:
        text = f"{b['kind']} {b['name']!r}: {b['rocks_crossing']} rocks crossed downslope"
        if b["rocks_crossing"]:
            d = b["design"]
            text += (
                f"; energy p95 {value(b['kinetic_energy_kJ'], 'p95', 'kJ')}, passing height p95 "
                f"{value(b['passing_height_m'], 'p95', 'm')}; {d['standard']}: "
                f"E_d {d['E_d_kJ']:.0f} kJ, h_d {d['h_d_m']:.2f} m"
            )
            if d.get("energy_ok") is not None:
                text += f", energy {'verified' if d['energy_ok'] else 'NOT verified'}"
            if d.get("height_ok") is not None:
                text += f", height {'verified' if d['height_ok'] else 'NOT verified'}"
        lines.append(text)
    return lines


def _manifest(out: Path) -> dict:
    try:
        return dict(json.loads((out / "chunks" / "manifest.json").read_text()))
    except (OSError, ValueError):
        return {}


def _resume_command(args) -> str | None:
    """The command that finishes this run after an interruption."""
    argv = list(getattr(args, "argv", None) or [])
    if not argv:
        return None
    if "--resume" not in argv:
        argv.append("--resume")
    return "tumble " + shlex.join(argv)


def _finished(out: Path, fingerprint: str, physics: dict, summary_line) -> int:
    """``--resume`` on a finished run: nothing to do when it is this run; refused otherwise,
    naming what differs."""
    from tumble.rockfall.ensemble.chunks import describe_differences

    try:
        record = json.loads((out / "provenance.json").read_text())["config"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{out} holds a finished run without a readable provenance.json") from None
    if record.get("fingerprint") != fingerprint:
        differences = describe_differences(record.get("physics") or {}, physics)
        raise ValueError(
            f"{out} holds a finished run of other inputs ({differences}); --force replaces it"
        )
    print(f"{out}: the run is complete, nothing to do")
    print(summary_line(json.loads((out / "summary.json").read_text())))
    return 0


def _figures(directory: Path, ensemble, result, first) -> None:
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
