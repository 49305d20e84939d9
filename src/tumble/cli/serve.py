"""``tumble serve``: the Poinsot view, a local web page of free rotation."""

from __future__ import annotations

import argparse


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port lies in 0..65535, got {port}")
    return port


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the interactive Poinsot view of free rotation on 127.0.0.1",
        description=(
            "Start a local web server (127.0.0.1 only) with the Poinsot view: the inertia "
            "ellipsoid rolling on the invariable plane, polhode and herpolhode, the momentum "
            "sphere and energy ellipsoid, every scheme of tumble.freerot and a side-by-side "
            "comparison of two. Prints the address and opens nothing; stop with Ctrl-C."
        ),
    )
    p.add_argument(
        "--port", type=port_number, default=0, help="port to listen on (default: a free one)"
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble._check import require

    require("fastapi", "web", "tumble serve")
    require("uvicorn", "web", "tumble serve")
    from tumble.web.server import serve

    serve(args.port)
    return 0
