"""``tumble``: one console script with subcommands."""

from __future__ import annotations

import argparse
import signal
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


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line; ``key=value`` overrides may stand on both sides of options."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # key=value overrides given on both sides of an option (rocks=4 --threads 1 seed=2): argparse
    # takes the first run of them only; the others are overrides too, in their order
    if extra and hasattr(args, "overrides"):
        late = [a for a in extra if "=" in a and not a.startswith("-")]
        if len(late) == len(extra):
            args.overrides = [*(args.overrides or []), *late]
            extra = []
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: list[str] | None = None) -> int:
    # a command started with SIGINT ignored (nohup, a GUI's launcher) takes Ctrl-C again, so
    # that an interrupt (the QGIS plugin's cancel) ends a run cleanly and it can be resumed
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    args = parse(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return run_parsed(args, args.command)


if __name__ == "__main__":
    sys.exit(main())
