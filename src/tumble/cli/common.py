"""Argument parsing helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import errno
import re
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from tumble._check import MissingExtra
from tumble.errors import TumbleError
from tumble.status import KernelError

#: errors that a command reports as a message (exit status 2) instead of a traceback: tumble's
#: own (a configuration or input file refused), and the plain ValueError of a checked argument
USER_ERRORS = (TumbleError, ValueError, FileNotFoundError, KernelError, MissingExtra)


#: exit status after Ctrl-C (128 + SIGINT), as shells report it
INTERRUPTED = 130

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: an argument that starts with a minus and is a number or a list of comma-separated numbers
#: (``-8300,194900``, ``-1e-3``): a value, never an option (argparse's own rule takes ``-8300``
#: but reads ``-8300,194900`` as an unknown option)
NEGATIVE_NUMBERS = re.compile(rf"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:,\s*{_NUMBER})*$")


class Parser(argparse.ArgumentParser):
    """The parser of every ``tumble`` command: an ``argparse.ArgumentParser`` that reads an
    argument of negative numbers (:data:`NEGATIVE_NUMBERS`) as a value, so that coordinates in
    Austrian or local grids (``--release -8300,194900``, ``--line -8300,194900 -8200,194950``)
    need no ``=``. Subparsers are of this class too (argparse makes them of the parent's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the matcher argparse consults before taking an argument for an option
        self._negative_number_matcher = NEGATIVE_NUMBERS


def run_parsed(args: argparse.Namespace, command: str) -> int:
    """Run a parsed command; a user error (:data:`USER_ERRORS`: any
    :class:`~tumble.errors.TumbleError`, a ValueError, a missing file, a failed kernel, a
    missing extra) becomes one line ``tumble <command>: error: <message>`` on stderr and exit
    status 2, another failure of the file system a sentence naming the file (status 2), Ctrl-C
    one line (with the command that resumes, when the command set ``args.resume_hint``) and
    exit status 130. Commands write their results atomically, so nothing is half-written."""
    try:
        return int(args.run(args) or 0)
    except USER_ERRORS as err:
        print(f"tumble {command}: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        hint = getattr(args, "resume_hint", None)
        print(f"tumble {command}: error: {os_error_message(err, hint)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"tumble {command}: error: out of memory; use fewer rocks or a shorter t_max",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return _interrupted(args, command)
    except SystemError as err:
        # Ctrl-C inside a compiled kernel's call back into Python (numba unpickling a constant)
        # surfaces as SystemError caused by the KeyboardInterrupt
        if not _caused_by_interrupt(err):
            raise
        return _interrupted(args, command)


def _interrupted(args: argparse.Namespace, command: str) -> int:
    """The one line of an interrupted command, with the command that resumes it when the
    command set ``args.resume_hint``; exit status 130."""
    hint = getattr(args, "resume_hint", None)
    then = f"; finish it with: {hint}" if hint else ""
    print(f"tumble {command}: interrupted{then}", file=sys.stderr)
    return INTERRUPTED


def _caused_by_interrupt(err: BaseException) -> bool:
    """Whether a KeyboardInterrupt lies in the chain of causes and contexts of ``err``."""
    seen: set[int] = set()
    link: BaseException | None = err
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def os_error_message(err: OSError, resume_hint: str | None = None) -> str:
    """One sentence for a failure of the file system: which file, what happened, what was done
    about it. Commands write through temporary names (removed on failure), so a full disk or a
    refused write leaves no half-written result; the chunks of a run finished before stay and
    ``resume_hint`` (the command that resumes) says how to go on."""
    where = f" ({err.filename})" if err.filename else ""
    if err.errno == errno.ENOSPC:
        text = f"no space left on the device{where}; the partial outputs were removed"
        if resume_hint:
            text += f", the finished chunks are kept: free some space and run {resume_hint}"
        return text
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"permission denied{where}: choose an --out folder you may write to"
    return f"{err.strerror or err}{where}"


def invoke(module: ModuleType, argv: Sequence[str]) -> int:
    """Run one subcommand (``module``, e.g. :mod:`tumble.cli.rockfall`) as ``tumble ARGV``
    would, without the top-level parser: how one command runs another."""
    parser = Parser(prog="tumble")
    sub = parser.add_subparsers(dest="command", required=True)
    module.add_parser(sub)
    args = parser.parse_args(list(argv))
    args.argv = list(argv)
    return run_parsed(args, args.command)


def float_tuple(n: int):
    """argparse type: ``"a,b,c"`` -> tuple of ``n`` floats, with a clear message otherwise."""

    def parse(text: str) -> tuple[float, ...]:
        try:
            values = tuple(float(v) for v in text.replace(" ", "").split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {n} comma-separated numbers, got {text!r}"
            ) from None
        if len(values) != n:
            raise argparse.ArgumentTypeError(f"expected {n} comma-separated numbers, got {text!r}")
        if not all(np.isfinite(values)):
            raise argparse.ArgumentTypeError(f"values must be finite, got {text!r}")
        return values

    return parse


def _number(text: str, convert, accept, kind: str):
    """``convert(text)`` if ``accept`` holds for it; otherwise an argparse error saying that
    ``kind`` was expected (``"a positive integer"``, ...)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    return _number(text, float, lambda x: np.isfinite(x) and x > 0, "a positive number")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _number(text, int, lambda n: n >= 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0 (a seed)."""
    return _number(text, int, lambda n: n >= 0, "a non-negative integer")


def scheme_list(text: str) -> tuple[str, ...]:
    from tumble.freerot import SCHEMES

    names = tuple(s.strip() for s in text.split(",") if s.strip())
    if text.strip() == "all":
        return SCHEMES
    unknown = [s for s in names if s not in SCHEMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown scheme(s) {', '.join(unknown) or text!r}; "
            f"choose from {', '.join(SCHEMES)} or 'all'"
        )
    return names


DEFAULT_BOX = (3.0, 2.0, 1.0)


def progress_bar(total: int, label: str) -> Any:
    """A :class:`~tumble.rockfall.ensemble.progress.Progress` of ``total`` items: a bar on a
    terminal, plain lines every 10 s elsewhere."""
    from tumble.rockfall.ensemble.progress import Progress

    return Progress(total, 0, "auto", label=label)


def add_validation_run_arguments(parser, t_max: float) -> None:
    """``--t-max`` and ``--workers`` of a field-test validation command."""
    parser.add_argument(
        "--t-max",
        type=positive_float,
        default=t_max,
        help=f"simulated time per rock (s), {t_max:g}",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="threads running rocks (default: every CPU available); results do not depend on it",
    )


def add_body_arguments(parser) -> None:
    """``--inertia A,B,C`` or ``--box a,b,c`` with ``--mass``; default the Leine cuboid."""
    body = parser.add_mutually_exclusive_group()
    body.add_argument("--inertia", type=float_tuple(3), help="principal moments A,B,C (kg m^2)")
    body.add_argument(
        "--box", type=float_tuple(3), help="cuboid edge lengths a,b,c (m); default 3,2,1"
    )
    parser.add_argument("--mass", type=positive_float, default=1.0, help="mass for --box (kg)")


def body_inertia(args) -> tuple[np.ndarray, dict]:
    """Principal moments from the body arguments, and a description for the provenance."""
    if args.inertia is not None:
        return np.asarray(args.inertia, dtype=np.float64), {"inertia": list(args.inertia)}
    from tumble.bodies.catalogue import cuboid

    box: tuple[float, float, float] = args.box or DEFAULT_BOX
    body = cuboid(*box, mass=args.mass)
    return np.array(body.inertia, dtype=np.float64), {"box": list(box), "mass": args.mass}


def reproduction_note(summary: dict) -> str | None:
    """The line that says what a run on a built-in synthetic terrain reproduces and why its
    reach differs from field slopes (``summary.json["energy_line"]["reproduction"]``)."""
    text = (summary.get("energy_line") or {}).get("reproduction")
    return f"note: {text}" if text else None
