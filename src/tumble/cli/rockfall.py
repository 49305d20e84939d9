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

``tumble rockfall calibrate --config FILE --observations FILE --out DIR`` back-calculates the
soil from observed blocks (:mod:`tumble.cli.rockfall_calibrate`).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from tumble.cli.common import float_tuple, positive_float, positive_int, reproduction_note
from tumble.cli.rockfall_barriers import add_barriers_parser
from tumble.cli.rockfall_calibrate import add_calibrate_parser
from tumble.cli.rockfall_compare import add_compare_parser
from tumble.cli.rockfall_soils import add_soils_parser
from tumble.cli.rockfall_sources import add_sources_parser
from tumble.rockfall.step.model import SCHEME_NAMES

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
    run.add_argument(
        "--dem-nodata",
        type=float,
        metavar="VALUE",
        help="a fill value of the DEM to take as nodata, e.g. -9999 (one the file does not tag)",
    )
    run.add_argument(
        "--dem-crs",
        metavar="EPSG:XXXX",
        help="the CRS the DEM's coordinates are in, replacing the file's missing or wrong label",
    )
    run.add_argument(
        "--rocks",
        type=rock_count,
        help='number of rocks (default 100), or "auto": rounds until the maps converge',
    )
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
    run.add_argument(
        "--volume",
        type=positive_float,
        help="rock volume, m^3: the shape's size at the rock density (instead of --mass)",
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
        help="rocks per chunk file (default 200; runs of more than 40000 rocks: rocks/200, "
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
    add_calibrate_parser(actions)
    add_sources_parser(actions)


# ---------------------------------------------------------------------------------------------
# run


def rock_count(text: str) -> int | str:
    """argparse type: a positive integer or ``auto``."""
    return "auto" if text.strip() == "auto" else positive_int(text)


def _settings(args) -> dict:
    settings = {
        "scenario": args.scenario,
        "dem": args.dem,
        "reproject": args.reproject,
        "dem_nodata": args.dem_nodata,
        "dem_crs": args.dem_crs,
        "rocks": args.rocks,
        "scheme": args.scheme,
        "seed": args.seed,
        "dt": args.dt,
        "t_max": args.t_max,
        "rock.mass": args.mass,
        "rock.size": args.size,
        "rock.volume": args.volume,
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


def run_command(args) -> int:
    from tumble.pipeline import RockfallRun
    from tumble.rockfall.ensemble import summary_line
    from tumble.viz.barriers import barrier_lines

    run = RockfallRun.from_config(
        args.config, _settings(args), args.overrides, barrier_files=args.barriers or ()
    )
    args.resume_hint = _resume_command(args)
    print(f"tumble rockfall run: {run.start_line()}", flush=True)
    outcome = run.run(
        args.out,
        force=args.force,
        resume=args.resume,
        keep_chunks=args.keep_chunks,
        progress=False if args.quiet else None,
    )
    out = outcome.folder
    if outcome.reused:
        print(f"{out}: the run is complete, nothing to do")
        print(summary_line(outcome.summary))
        return 0
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if note := reproduction_note(outcome.summary):
        print(note)
    print(summary_line(outcome.summary))
    for line in barrier_lines(outcome.summary.get("barriers", [])):
        print(line)
    print(f"wrote {out}/")
    if outcome.all_failed:
        print(
            "tumble rockfall run: error: every rock failed numerically; see the warnings above",
            file=sys.stderr,
        )
        return 3
    return 0


def _resume_command(args) -> str | None:
    """The command that finishes this run after an interruption."""
    argv = list(getattr(args, "argv", None) or [])
    if not argv:
        return None
    if "--resume" not in argv:
        argv.append("--resume")
    return "tumble " + shlex.join(argv)
