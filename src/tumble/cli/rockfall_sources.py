"""``tumble rockfall sources RUN --at X,Y`` (or ``--polygon FILE``): the release areas whose
rocks reached a place, with the energies of the run's maps there."""

from __future__ import annotations

import json


def add_sources_parser(actions) -> None:
    """Register ``sources`` among the actions of ``tumble rockfall``."""
    sources = actions.add_parser(
        "sources",
        help="which release areas endanger a place",
        description=(
            "List the release areas of a finished run whose rocks reached a point (--at X,Y, "
            "DEM coordinates) or a polygon file (--polygon), with their frequencies and the "
            "energies and reach probability (95 %% intervals) of the run's maps there."
        ),
    )
    sources.add_argument("run_dir", metavar="RUN", help="folder of a finished run")
    sources.add_argument("--at", metavar="X,Y", help="a point in the DEM's coordinates")
    sources.add_argument("--polygon", metavar="FILE", help="a polygon file (GeoPackage, ...)")
    sources.add_argument("--json", action="store_true", help="print the record as JSON")
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
    record = sources_at(args.run_dir, at=at, polygon=args.polygon)
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    print(f"{record['place']}: {len(record['sources'])} release area(s) reach it")
    for s in record["sources"]:
        frequency = "no frequency" if s["frequency"] is None else f"{s['frequency']:g}/year"
        print(f"  {s['name']}: {s['rocks']} rocks released, {frequency}")
    for name, value in record["values"].items():
        print(f"  {name}: {'n/a' if value is None else format(value, '.4g')}")
    return 0
