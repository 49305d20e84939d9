"""``tumble rockfall sources RUN --at X,Y`` (or ``--polygon FILE``): the release areas and rocks
that reached a place, with their energies, and the run's maps there.

Exit status 0 when some rock reached the place, 1 when none did (the place is named and the
maps' values there are printed), 2 for a place off the DEM or a folder that is not a run."""

from __future__ import annotations

import json

from tumble.rockfall.hazard.zoning import ZONE_NAMES

#: rocks printed by default (the most energetic first); --json lists all
SHOWN_ROCKS = 20


def add_sources_parser(actions) -> None:
    """Register ``sources`` among the actions of ``tumble rockfall``."""
    sources = actions.add_parser(
        "sources",
        help="which release areas and rocks endanger a place",
        description=(
            "List the release areas and rocks of a finished run that reached a point (--at X,Y, "
            "in the DEM's coordinates) or a polygon file (--polygon), with their frequencies, "
            "the rocks' energies there (runs with output.visits = true), and the energies and "
            "reach probability (95 % intervals) of the run's maps there. Exit status 1 when no "
            "rock reached the place."
        ),
    )
    sources.add_argument("run_dir", metavar="RUN", help="folder of a finished run")
    sources.add_argument("--at", metavar="X,Y", help="a point in the DEM's coordinates")
    sources.add_argument("--polygon", metavar="FILE", help="a polygon file (GeoPackage, ...)")
    sources.add_argument(
        "--rocks",
        metavar="N",
        type=int,
        default=SHOWN_ROCKS,
        help=f"print the N most energetic rocks (default {SHOWN_ROCKS}; 0: all)",
    )
    sources.add_argument(
        "--json",
        action="store_true",
        help="print the whole record as JSON (its rocks in rock order)",
    )
    sources.set_defaults(run=sources_command)


def sources_command(args) -> int:
    from tumble.pipeline.sources import sources_at

    at = None
    if args.at is not None:
        try:
            x, y = (float(v) for v in args.at.split(","))
        except ValueError:
            raise ValueError(f"--at must be X,Y (two numbers), got {args.at!r}") from None
        at = (x, y)
    if args.rocks < 0:
        raise ValueError(f"--rocks must be 0 (all) or a positive count, got {args.rocks}")
    record = sources_at(args.run_dir, at=at, polygon=args.polygon)
    status = 0 if record["reached"] else 1
    if args.json:
        print(json.dumps(record, indent=2))
        return status
    if not record["reached"]:
        high = record["values"]["reach_probability_high"]
        print(
            f"{record['place']}: no rock of the run reached it (0 of {record['n_rocks']} rocks in "
            f"{record['cells']} cell(s): reach probability below {high:.3g}, 95 % upper bound)"
        )
    else:
        print(f"{record['place']}: {len(record['sources'])} release area(s) reach it")
    for s in record["sources"]:
        frequency = "no frequency" if s["frequency"] is None else f"{s['frequency']:g}/year"
        reaching = ""
        if "rocks_reaching" in s:
            reaching = (
                f", {s['rocks_reaching']} reach it (up to {s['kinetic_energy_max_kJ']:.4g} kJ)"
            )
        print(f"  {s['name']}: {s['rocks']} rocks released{reaching}, {frequency}")
    rocks = record["rocks"]
    if rocks is None:
        print(f"  rocks: {record['note']}")
    elif rocks:
        shown = sorted(rocks, key=lambda r: (-r["kinetic_energy_kJ"], r["rock"]))
        if args.rocks:
            shown = shown[: args.rocks]
        print(f"  rocks that reached it: {len(rocks)} (most energetic first)")
        print("    rock  release area          energy kJ  speed m/s  jump m  cells")
        for r in shown:
            jump = "-" if r["jump_height_m"] is None else f"{r['jump_height_m']:.2f}"
            print(
                f"    {r['rock']:>4}  {r['source'][:20]:<20}  {r['kinetic_energy_kJ']:>9.2f}"
                f"  {r['velocity_ms']:>9.2f}  {jump:>6}  {r['cells']:>5}"
            )
        if len(shown) < len(rocks):
            print(f"    ... and {len(rocks) - len(shown)} more (--rocks 0 or --json lists all)")
    if record["cells"] > 1:
        how = "largest value over its cells, each interval that of the value's cell"
        if record.get("reach_probability_of"):
            how += "; reach probability of the place: the rocks that passed any of its cells"
        print(f"  maps ({how}):")
    for name, value in record["values"].items():
        text = "n/a" if value is None else format(value, ".4g")
        if name == "hazard_zone" and value is not None:
            text = f"{ZONE_NAMES.get(int(value), text)} ({int(value)})"
        print(f"  {name}: {text}")
    return status
