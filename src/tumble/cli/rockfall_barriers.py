"""``tumble rockfall barriers RUN_DIR``: barrier statistics recomputed from a finished run.

The crossings of the barrier lines given (``--line``, ``--barriers FILE``; by default the run's
own) are replayed on the trajectories the run kept, with the terrain, bodies and barriers the run
stored, without simulating again (:func:`tumble.pipeline.replay_barriers`), and turned into the
statistics and design values of a run (the run's ``[design]`` factors and seed). Written to
``--out`` (default ``RUN_DIR/barriers``)::

    barriers.json          {"barriers": [...], "n_rocks", "rocks_released", "share", "rocks",
                            "sample", "sample_interval_s", "crossings_exact", "warnings",
                            "source"}: one entry per barrier, the keys of
                            summary.json["barriers"], and the rocks replayed
    crossings.parquet      one row per crossing (the columns of a run's crossings.parquet)
    figures/barrier_<name>_exceedance.png, figures/barrier_<name>_along.png
    provenance.json        version, command, the run folder and the SHA-256 of its trajectories

The statistics describe the rocks whose trajectories were kept (``output.trajectories`` rocks, a
sample stratified over release areas and rock classes, rock 0 always: ``rocks`` in
``barriers.json``, ``summary.json["trajectories"]`` of the run); a warning names their share of
the released rocks. The run keeps the steps across its own barriers, so replaying them gives the
run's crossings and design values for the kept rocks whatever ``output.trajectory_every``;
other lines are crossed between samples that many steps apart, which a warning says.

The run's own barriers keep the uphill side the run decided (the side its rocks come from). A
new line's side is ``--uphill left|right`` (seen along the line from its first point to its
last; once per ``--line``, in order) or the ``uphill`` key of a ``--barriers`` file, and without
them the side of the run's release (``geometry.json``), as a run decides it.
"""

from __future__ import annotations

import argparse
import sys

from tumble.cli.common import float_tuple, positive_float

EPILOG = """examples:
  tumble rockfall barriers out/slope40 --line 60,-30 60,30 --name "fence A" --height 4
  tumble rockfall barriers out/site --line 2600150,1200006 2600150,1200194 --uphill left
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
            "(trajectories.parquet: output.trajectories rocks stratified over release areas "
            "and rock classes, one sample every output.trajectory_every steps) and write their "
            "statistics and design values (the run's [design] factors) to --out. Without "
            "--line or --barriers the run's own barriers are replayed: the run kept the steps "
            "across them, so this gives the run's crossings of the kept rocks. A net given "
            "here acts only at its first crossing: what a rock does below it needs a new run."
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
        "--uphill",
        choices=("left", "right"),
        action="append",
        help="the side each --line's rocks come from, seen along it from its first point to its "
        "last, in order (default: the side of the run's release)",
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
    ``--height``, ``--capacity`` and ``--uphill``, then the entries of every ``--barriers``
    file."""
    from tumble.io.config import load_barriers_file

    lines = args.line or []
    if not lines and (args.name or args.height or args.capacity or args.uphill):
        raise ValueError(
            "--name, --height, --capacity and --uphill describe a --line: give the line"
        )
    names = _per_line(args.name, len(lines), "--name")
    heights = _per_line(args.height, len(lines), "--height")
    capacities = _per_line(args.capacity, len(lines), "--capacity")
    uphill = _per_line(args.uphill, len(lines), "--uphill")
    entries = []
    for k, points in enumerate(lines):
        entry: dict = {"name": names[k] or f"line_{k + 1}", "line": [list(p) for p in points]}
        if heights[k] is not None:
            entry["height"] = heights[k]
        if capacities[k] is not None:
            entry["capacity"] = capacities[k]
        if uphill[k] is not None:
            entry["uphill"] = uphill[k]
        entries.append(entry)
    for path in args.barriers or ():
        entries += load_barriers_file(path)
    return entries


def barriers_command(args) -> int:
    from tumble.pipeline import replay_barriers
    from tumble.viz.barriers import barrier_lines

    outcome = replay_barriers(
        args.run_dir,
        barrier_entries(args),
        args.out,
        force=args.force,
        figures=not args.no_figures,
    )
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for line in barrier_lines(outcome.barriers):
        print(line)
    print(f"wrote {outcome.folder}/")
    return 0
