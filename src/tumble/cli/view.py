"""``tumble view RUN_DIR``: the 3D view of a finished rockfall run in the browser."""

from __future__ import annotations

from tumble.cli.serve import port_number


def add_parser(sub) -> None:
    p = sub.add_parser(
        "view",
        help="serve a 3D view of a finished rockfall run on 127.0.0.1",
        description=(
            "Start a local web server (127.0.0.1 only) with a 3D view of a run folder of "
            "`tumble rockfall run`: the terrain with a raster overlay, the stored trajectories "
            "coloured by kinetic energy, deposits, release, barriers (click one for its "
            "statistics and design values), playback of the rocks as their convex hulls, and "
            "each rock's velocity and rotational velocity about its principal axes. Prints the "
            "address and opens nothing; stop with Ctrl-C."
        ),
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the --out folder of tumble rockfall run")
    p.add_argument(
        "--port", type=port_number, default=0, help="port to listen on (default: a free one)"
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble._check import require

    require("fastapi", "web", "tumble view")
    require("uvicorn", "web", "tumble view")
    from tumble.web.view import serve_view

    serve_view(args.run_dir, args.port)
    return 0
