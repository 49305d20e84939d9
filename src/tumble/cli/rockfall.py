"""``tumble rockfall``: ensembles of rocks on a terrain (``run``), tables of two runs (``compare``).

``tumble rockfall run --scenario slope40 --rocks 1000 --scheme implicit --seed 1 --out DIR``
simulates the rocks in chunks under ``DIR/chunks`` (``--resume`` finishes an interrupted run) and
writes, once every chunk is done::

    DIR/summary.json               statistics (written last: its presence marks a finished run)
    DIR/rasters/NAME.tif           hazard rasters with the DEM's CRS and transform (.asc with
                                   --ascii), NAME in tumble.rockfall.ensemble.RASTERS; and dem.tif
    DIR/deposits.csv               final point, status and time of every rock
    DIR/trajectories.parquet       a subsample of trajectories (output.trajectories rocks)
    DIR/figures/energy_map.png     maximum kinetic energy over a hillshade, spread envelope
    DIR/figures/profile.png        altitude and omega of rock 0 against projected distance
    DIR/figures/histograms.png     run-out and maximum kinetic energy
    DIR/provenance.json            version, resolved configuration, seed, timings
    DIR/trajectory.csv, .parquet   with --rocks 1: the whole trajectory, every step

``tumble rockfall compare DIR_A DIR_B --out DIR`` writes ``compare.csv``, ``compare.json``,
``compare.md`` (the table of Leine et al. 2021, Table 2, with the published values beside) and
``envelopes.png`` (the two spread envelopes over the hillshade).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from tumble.cli.common import float_tuple, positive_float, positive_int
from tumble.rockfall.model import SCHEME_NAMES

ROCK_SHAPES = ("eota221", "eota111", "box")
TRAJECTORY_COLUMNS = (
    "t",
    "x",
    "y",
    "z",
    "qw",
    "qx",
    "qy",
    "qz",
    "vx",
    "vy",
    "vz",
    "omega_x",
    "omega_y",
    "omega_z",
)


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
        description=(
            "Simulate rocks released on a terrain (Moreau time-stepping, explicit or implicit "
            "rotation scheme) and write hazard rasters, statistics, deposits, trajectories and "
            "figures to --out. Settings come from the defaults, then --config FILE, then the "
            "options, then key=value overrides (dotted keys of the configuration, e.g. "
            "release.height=2 rock.mass=500). Default: slope40, 100 EOTA221 rocks of 780 kg "
            "released 1.5 m above x = 10 m with 1 m/s down the slope, Lu 2019 soil, dt 0.002 s."
        ),
    )
    run.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="configuration overrides")
    run.add_argument("--config", metavar="FILE", help="TOML configuration file")
    terrain = run.add_mutually_exclusive_group()
    terrain.add_argument("--scenario", help="built-in terrain (slope40)")
    terrain.add_argument("--dem", metavar="FILE", help="DEM file (GeoTIFF or ESRI ASCII)")
    run.add_argument("--rocks", type=positive_int, help="number of rocks")
    run.add_argument("--scheme", choices=SCHEME_NAMES, help="rotation scheme")
    run.add_argument("--seed", type=int, help="random seed (non-negative)")
    run.add_argument("--dt", type=positive_float, help="time step (s)")
    run.add_argument("--t-max", type=positive_float, help="longest simulated time per rock (s)")
    run.add_argument(
        "--rock",
        metavar="SHAPE|FILE",
        help="eota221, eota111, box, or a mesh / point-list file (STL, PLY, OBJ, XYZ)",
    )
    run.add_argument("--mass", type=positive_float, help="rock mass (kg)")
    run.add_argument("--size", type=positive_float, help="EOTA edge length L (m)")
    run.add_argument("--box", type=float_tuple(3), metavar="A,B,C", help="box edges (m)")
    run.add_argument("--density", type=positive_float, help="rock density (kg/m^3)")
    run.add_argument("--soil", metavar="PRESET", help="soil preset (medium, l14_scarring)")
    run.add_argument("--release", type=float_tuple(2), metavar="X,Y", help="release point (m)")
    run.add_argument(
        "--height", type=positive_float, help="centre of mass above the terrain at release (m)"
    )
    run.add_argument("--threads", type=positive_int, help="threads of the parallel loop")
    run.add_argument("--chunk-size", type=positive_int, help="rocks per chunk (default 100)")
    run.add_argument("--resume", action="store_true", help="finish an interrupted run in --out")
    run.add_argument("--dask", metavar="SCHEDULER|local:N", help="run the chunks on a Dask cluster")
    run.add_argument("--ascii", action="store_true", help="also write ESRI ASCII rasters")
    run.add_argument("--no-figures", action="store_true", help="skip the figures")
    run.add_argument("--out", default="out/rockfall", help="output directory")
    run.set_defaults(run=run_command)

    compare = actions.add_parser(
        "compare",
        help="side-by-side table and envelopes of two runs",
        description=(
            "Compare two finished runs (e.g. explicit and implicit): the table of Leine et al. "
            "2021, Table 2, with the published values beside, as CSV, JSON and Markdown, and "
            "an overlay map of the two spread envelopes."
        ),
    )
    compare.add_argument("run_a", metavar="DIR_A")
    compare.add_argument("run_b", metavar="DIR_B")
    compare.add_argument("--out", default="out/rockfall-compare", help="output directory")
    compare.set_defaults(run=compare_command)


# ---------------------------------------------------------------------------------------------
# run


def _settings(args) -> dict:
    settings = {
        "scenario": args.scenario,
        "dem": args.dem,
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
        self.stage = Path(tempfile.mkdtemp(prefix=".outputs-partial-", dir=self.out))
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
    from tumble.io.provenance import write_provenance
    from tumble.rockfall.ensemble import reduce_chunks, run_chunks, summary_line
    from tumble.rockfall.from_config import build_ensemble

    started = time.perf_counter()
    config = load_config(args.config, _settings(args), args.overrides)
    ensemble = build_ensemble(config)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory")
    if config.run.dask is not None:
        from tumble.rockfall.ensemble.cluster import parse_address

        parse_address(config.run.dask)
    setup = time.perf_counter() - started
    chunk_run = run_chunks(
        ensemble,
        out,
        chunk_size=config.run.chunk_size,
        threads=config.run.threads,
        resume=args.resume,
        dask=config.run.dask,
        progress=None,
    )
    summary_path = out / "summary.json"
    if chunk_run.computed == 0 and summary_path.exists():
        summary = json.loads(summary_path.read_text())
        print(f"{out}: the run is complete, nothing to do")
        print(summary_line(summary))
        return 0
    reduce_start = time.perf_counter()
    result = reduce_chunks(ensemble, chunk_run.chunks, chunk_run.wall_time)
    with _Stage(out) as stage:
        result.write_rasters(ensemble.terrain, stage / "rasters", ascii=config.output.ascii)
        ensemble.terrain.write(stage / "rasters" / "dem.tif")
        result.write_deposits(stage / "deposits.csv")
        if config.output.trajectories > 0:
            write_parquet(
                stage / "trajectories.parquet",
                _trajectory_sample(
                    ensemble, config.output.trajectories, config.output.trajectory_every
                ),
            )
        first = ensemble.trajectory(0, save_every=1)
        if ensemble.n_rocks == 1:
            from tumble.io.results import write_csv

            columns = trajectory_columns(first)
            write_csv(stage / "trajectory.csv", columns)
            write_parquet(stage / "trajectory.parquet", columns)
        if config.output.figures:
            _figures(stage / "figures", ensemble, result, first)
        timings = {
            "setup_s": setup,
            "simulation_s": chunk_run.wall_time,
            "outputs_s": time.perf_counter() - reduce_start,
        }
        write_provenance(
            stage,
            config={
                "resolved": config.model_dump(),
                "fingerprint": ensemble.fingerprint(),
                "ensemble_pgs_tol": ensemble.pgs_tol,
            },
            timings=timings,
            seed=config.seed,
        )
        result.write_summary(stage / "summary.json")
    print(summary_line(result.summary))
    print(f"wrote {out}/")
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


# ---------------------------------------------------------------------------------------------
# compare


def _read_summary(directory: str) -> dict:
    path = Path(directory) / "summary.json"
    if not path.is_file():
        raise ValueError(f"{directory} holds no finished run (no summary.json)")
    return json.loads(path.read_text())


def compare_command(args) -> int:
    import numpy as np

    from tumble.io import ResultDir, read_raster, write_csv
    from tumble.rockfall.terrain import Terrain
    from tumble.validation.slope40 import compare_table, markdown
    from tumble.viz.rockfall import plot_envelopes

    a, b = _read_summary(args.run_a), _read_summary(args.run_b)
    labels = (a["scheme"], b["scheme"])
    if labels[0] == labels[1]:
        labels = (Path(args.run_a).name or "A", Path(args.run_b).name or "B")
    rows = compare_table(a, b, labels)
    passing = []
    for directory in (args.run_a, args.run_b):
        path = Path(directory) / "rasters" / "passing_count.tif"
        if not path.is_file():
            raise ValueError(f"{directory} has no rasters/passing_count.tif")
        passing.append(read_raster(path))
    dem = Path(args.run_a) / "rasters" / "dem.tif"
    terrain = Terrain.from_file(dem)
    if passing[1].values.shape != passing[0].values.shape:
        raise ValueError("the two runs are on different DEM grids; no overlay map")
    with ResultDir(args.out) as stage:
        columns = {name: np.array([r[name] for r in rows]) for name in rows[0]}
        write_csv(stage / "compare.csv", columns)
        (stage / "compare.json").write_text(
            json.dumps({"runs": [args.run_a, args.run_b], "labels": labels, "rows": rows}, indent=2)
            + "\n"
        )
        title = "Leine et al. 2021, Table 2 analogue (mean +- std over path samples)"
        (stage / "compare.md").write_text(f"# {title}\n\n" + markdown(rows))
        plot_envelopes(
            terrain,
            passing[0].values,
            passing[1].values,
            labels,
            stage / "envelopes.png",
            title=f"Spread envelopes: {labels[0]} (black), {labels[1]} (red)",
        )
    print(markdown(rows), end="")
    print(f"wrote {args.out}/")
    return 0
