"""``tumble``: one console script with subcommands."""

from __future__ import annotations

import argparse
import sys

from tumble import __version__
from tumble.cli import demo, reproduce, rockfall, serve, spin, stability, validate, view
from tumble.cli.common import Parser, run_parsed

COMMANDS = {
    "spin": spin,
    "demo": demo,
    "stability": stability,
    "serve": serve,
    "view": view,
    "reproduce": reproduce,
    "validate": validate,
    "rockfall": rockfall,
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tumble",
        description="Structure-preserving rigid-body rotation and 3D rockfall simulation.",
    )
    parser.add_argument("--version", action="version", version=f"tumble {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return run_parsed(args, args.command)


if __name__ == "__main__":
    sys.exit(main())
