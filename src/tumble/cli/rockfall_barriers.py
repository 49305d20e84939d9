"""``tumble rockfall barriers RUN_DIR``: barrier statistics recomputed from a finished run.

The crossings of the barrier lines given (``--line``, ``--barriers FILE``; by default the run's
own) are replayed on the trajectories the run kept (``trajectories.parquet``,
:mod:`tumble.rockfall.ensemble.replay`), without simulating again, and turned into the statistics
and design values of a run (:func:`tumble.rockfall.hazard.design.barrier_statistics`, with the run's
``[design]`` factors and seed). Written to ``--out`` (default ``RUN_DIR/barriers``)::

    barriers.json          {"barriers": [...], "n_rocks", "rocks_released", "sample_interval_s",
                            "warnings", "source"}: one entry per barrier, the keys of
                            summary.json["barriers"]
    crossings.parquet      one row per crossing (the columns of a run's crossings.parquet)
    figures/barrier_<name>_exceedance.png, figures/barrier_<name>_along.png
    provenance.json        version, command, the run folder and the SHA-256 of its trajectories

The statistics describe the rocks whose trajectories were kept (the first ``output.trajectories``
rocks of the run), and the crossings are interpolated between samples ``output.trajectory_every``
steps apart: both are said on the screen and in ``barriers.json["warnings"]``. A run with
``output.trajectories = rocks`` and ``output.trajectory_every = 1`` replays exactly what the run
records for an observation line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tumble.cli.common import float_tuple, positive_float

EPILOG = """examples:
  tumble rockfall barriers out/slope40 --line 60,-30 60,30 --name "fence A" --height 4
  tumble rockfall barriers out/site --barriers fences.gpkg --out out/site/fences
  tumble rockfall barriers out/slope40            # the run's own barriers, replayed
"""


def add_barriers_parser(actions) -> None:
    """Register ``barriers`` among the actions of ``tumble rockfall``."""
    p = actions.add_parser(
        "barriers",
        help="barrier statistics from a finished run's trajectories, without rerunning",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Replay the crossings of barrier lines on the trajectories a finished run kept "
            "(trajectories.parquet: output.trajectories rocks, one sample every "
            "output.trajectory_every steps) and write their statistics and design values "
            "(the run's [design] factors) to --out. Without --line or --barriers the run's own "
            "barriers are replayed. A net given here acts only at its first crossing: what a "
            "rock does below it needs a new run."
        ),
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="folder of a finished tumble rockfall run")
    p.add_argument(
        "--line",
        nargs="+",
        action="append",
        type=float_tuple(2),
        metavar="X,Y",
        help="a barrier line through two or more points in DEM coordinates, m; repeatable",
    )
    p.add_argument(
        "--name",
        action="append",
        help="name of each --line, in order (default: line_1, line_2, ...)",
    )
    p.add_argument(
        "--height",
        type=positive_float,
        action="append",
        help="net height of each --line, m, in order (with --capacity: a net)",
    )
    p.add_argument(
        "--capacity",
        type=positive_float,
        action="append",
        help="net capacity of each --line, kJ, in order",
    )
    p.add_argument(
        "--barriers",
        metavar="FILE",
        action="append",
        help="barrier lines and nets: a TOML file of [[barrier]] tables, or a GeoPackage, "
        "GeoJSON or Shapefile of lines; repeatable",
    )
    p.add_argument("--out", help="output folder (default RUN_DIR/barriers)")
    p.add_argument(
        "--force", action="store_true", help="replace an earlier result in --out as a whole"
    )
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.set_defaults(run=barriers_command)


def _per_line(values: list | None, n: int, option: str) -> list:
    if values is None:
        return [None] * n
    if len(values) != n:
        raise ValueError(
            f"{option} is given {len(values)} time(s) for {n} --line(s): give it once per line"
        )
    return list(values)


def barrier_entries(args) -> list[dict]:
    """The ``[[barrier]]`` entries of the command line: ``--line`` with its ``--name``,
    ``--height`` and ``--capacity``, then the entries of every ``--barriers`` file."""
    from tumble.io.config import load_barriers_file

    lines = args.line or []
    if not lines and (args.name or args.height or args.capacity):
        raise ValueError("--name, --height and --capacity describe a --line: give the line")
    names = _per_line(args.name, len(lines), "--name")
    heights = _per_line(args.height, len(lines), "--height")
    capacities = _per_line(args.capacity, len(lines), "--capacity")
    entries = []
    for k, points in enumerate(lines):
        entry: dict = {"name": names[k] or f"line_{k + 1}", "line": [list(p) for p in points]}
        if heights[k] is not None:
            entry["height"] = heights[k]
        if capacities[k] is not None:
            entry["capacity"] = capacities[k]
        entries.append(entry)
    for path in args.barriers or ():
        entries += load_barriers_file(path)
    return entries


def _read_samples(path: Path) -> dict:
    import numpy as np
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} cannot be read as a trajectory sample: {err}") from None
    return {name: np.asarray(table.column(name)) for name in table.column_names}


def barriers_command(args) -> int:
    import numpy as np

    from tumble.io.config import validate
    from tumble.io.provenance import write_provenance
    from tumble.io.results import ResultDir, prepare_result_dir, write_json_atomic
    from tumble.rockfall.ensemble.replay import replay_crossings, sample_interval
    from tumble.rockfall.hazard.design import barrier_statistics
    from tumble.rockfall.site.barrier_files import barriers_from_config
    from tumble.rockfall.site.from_config import rebuild_run

    from .rockfall import barrier_lines, write_parquet

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise ValueError(f"{run_dir} is not a folder")
    sample_path = run_dir / "trajectories.parquet"
    if not sample_path.is_file():
        raise ValueError(
            f"{run_dir} kept no trajectories (no trajectories.parquet): run it again with "
            "output.trajectories set to the number of rocks to keep (e.g. "
            "output.trajectories=1000 output.trajectory_every=1)"
        )
    entries = barrier_entries(args)
    config, setup = rebuild_run(run_dir)
    ensemble = setup.ensemble
    if entries:
        physics = config.physics()
        physics["barrier"] = entries
        barriers = barriers_from_config(validate(physics).barrier, ensemble.terrain, Path.cwd())
    else:
        barriers = ensemble.barriers
        if not barriers:
            raise ValueError(
                f"the run in {run_dir} has no barrier: give --line X,Y X,Y ... or --barriers FILE"
            )
    out = Path(args.out) if args.out else run_dir / "barriers"
    if out.resolve() == run_dir.resolve():
        raise ValueError("--out must not be the run folder itself (it would replace the run)")
    prepare_result_dir(out, force=args.force)

    samples = _read_samples(sample_path)
    crossings = replay_crossings(
        ensemble.terrain, barriers, samples, ensemble.bodies, lambda k: ensemble.rock(k).vertices
    )
    stored = np.unique(np.asarray(samples["rock"], dtype=np.int64))
    n_rocks = int(stored.size)
    if n_rocks == 0:
        raise ValueError(f"{sample_path} holds no sample")
    seed = 0 if config.seed is None else int(config.seed)
    stats = barrier_statistics(crossings, barriers, n_rocks, setup.design, seed=seed)
    interval = sample_interval(samples)
    warnings = []
    if n_rocks < ensemble.n_rocks:
        warnings.append(
            f"the statistics describe the {n_rocks} rocks whose trajectories the run kept, of "
            f"{ensemble.n_rocks} released (output.trajectories); keep them all for the full sample"
        )
    dt = ensemble.options.dt
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
        "source": str(sample_path.resolve()),
        "rocks_released": ensemble.n_rocks,
        "n_rocks": n_rocks,
        "sample_interval_s": interval,
        "warnings": warnings,
        "barriers": stats,
    }
    with ResultDir(out) as stage:
        write_parquet(stage / "crossings.parquet", crossings)
        if not args.no_figures:
            from tumble.viz.barriers import plot_barrier

            for entry, barrier in zip(stats, barriers, strict=True):
                plot_barrier(entry, crossings, barrier, stage / "figures")
        write_provenance(
            stage,
            config={"run_dir": str(run_dir.resolve()), "barrier": entries or "the run's own"},
            seed=seed,
            inputs={"trajectories": sample_path},
        )
        write_json_atomic(stage / "barriers.json", json.loads(json.dumps(report)))
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for line in barrier_lines(stats):
        print(line)
    print(f"wrote {out}/")
    return 0
