"""The installed ``tumble`` command, found and run in a subprocess (no QGIS import here, so the
test suite reads this module without QGIS).

QGIS's own Python needs none of tumble's dependencies: the plugin runs the command of tumble's
own environment. It is found from, in order, the path set in the provider's settings, the
environment variable ``TUMBLE_COMMAND``, then ``PATH``. Never put a virtual environment's
``bin/`` first on QGIS's ``PATH``: QGIS's embedded Python then takes that environment's prefix
and cannot import ``qgis`` ("Couldn't load SIP module"); set the command's path instead, or put a
folder that holds only a link to ``tumble`` on ``PATH``.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: the oldest tumble whose ``rockfall run`` this plugin drives (release areas from a vector
#: file, ``--resume``, progress lines with the time left)
MINIMUM_VERSION = (0, 1, 0)

#: how to install tumble, in the message of a missing or too old command
INSTALL = (
    "install tumble in its own Python environment, outside QGIS: "
    "python3 -m venv ~/tumble-env && ~/tumble-env/bin/pip install 'tumble>={version}' "
    "(or the path of a tumble checkout), then set Processing > Options > Providers > tumble > "
    "tumble command to ~/tumble-env/bin/tumble (or set TUMBLE_COMMAND); do not put the "
    "environment's bin folder first on QGIS's PATH"
)

#: a progress line of tumble: ``rocks 120/200 (60 %), 2.31 M rock-steps/s, about 4 s left``
PROGRESS = re.compile(r"^(?:\w[\w ]*?)\s(\d+)/(\d+) \((\d+) %\)")
#: the one line of a user error: ``tumble rockfall run: error: <sentence>``
ERROR = re.compile(r"^tumble [\w ]+: error: (.*)$")
#: the exit status of an interrupted tumble command (Ctrl-C)
INTERRUPTED = 130
#: seconds an interrupted command gets to finish its chunk files before it is terminated
GRACE = 10.0


class TumbleNotFound(Exception):
    """No usable ``tumble`` command: missing or too old; the message says how to install it."""


def version_text(version: Sequence[int]) -> str:
    return ".".join(str(part) for part in version)


def install_message(reason: str) -> str:
    return f"{reason}; {INSTALL.format(version=version_text(MINIMUM_VERSION))}"


def find_tumble(setting: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The path of the ``tumble`` command: ``setting`` (the provider's), ``TUMBLE_COMMAND``,
    then ``PATH``. Raises :class:`TumbleNotFound` when none exists."""
    environ = os.environ if environ is None else environ
    for given, where in (
        (setting, "the tumble command set in the provider's settings"),
        (environ.get("TUMBLE_COMMAND"), "TUMBLE_COMMAND"),
    ):
        if given:
            path = shutil.which(given) or (given if os.path.isfile(given) else None)
            if path is None:
                raise TumbleNotFound(install_message(f"{where}, {given}, does not exist"))
            return path
    path = shutil.which("tumble", path=environ.get("PATH"))
    if path is None:
        raise TumbleNotFound(install_message("the tumble command was not found on PATH"))
    return path


def parse_version(text: str) -> tuple[int, ...] | None:
    """``(0, 1, 0)`` from ``tumble --version``'s ``tumble 0.1.0``; None if it names none."""
    match = re.search(r"\btumble (\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(part or 0) for part in match.groups())


def child_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the tumble subprocess: QGIS's, without the variables that point a
    Python at QGIS's own interpreter and packages (tumble runs in its own environment)."""
    env = dict(os.environ if environ is None else environ)
    for name in ("PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "VIRTUAL_ENV", "QGIS_PREFIX_PATH"):
        env.pop(name, None)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def check_tumble(path: str) -> tuple[int, ...]:
    """The version of the command at ``path``; :class:`TumbleNotFound` when it does not run or
    is older than :data:`MINIMUM_VERSION`."""
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            env=child_environment(),
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise TumbleNotFound(install_message(f"{path} does not run ({err})")) from None
    version = parse_version(done.stdout + done.stderr)
    if done.returncode != 0 or version is None:
        said = (done.stderr or done.stdout).strip().splitlines()
        reason = f"{path} --version failed" + (f" ({said[-1]})" if said else "")
        raise TumbleNotFound(install_message(reason))
    if version < MINIMUM_VERSION:
        raise TumbleNotFound(
            install_message(
                f"{path} is tumble {version_text(version)}, older than the "
                f"{version_text(MINIMUM_VERSION)} this plugin needs"
            )
        )
    return version


@dataclass
class Outcome:
    """How a run of the command ended: its exit status, the sentence of its error (None when it
    printed none) and whether it was cancelled."""

    returncode: int
    error: str | None
    cancelled: bool
    #: what the command wrote on stdout, when it was captured (``capture_stdout``)
    stdout: str = ""


def progress_of(line: str) -> float | None:
    """The percentage of a progress line of tumble, None for any other line."""
    match = PROGRESS.match(line)
    if match is None:
        return None
    done, total = int(match.group(1)), int(match.group(2))
    return 100.0 * done / total if total else 100.0


def run_streaming(
    argv: Sequence[str],
    on_line: Callable[[str], None],
    cancelled: Callable[[], bool],
    *,
    cwd: str | None = None,
    poll: float = 0.2,
    grace: float = GRACE,
    capture_stdout: bool = False,
) -> Outcome:
    """Run ``argv``, handing each line it writes (stdout and stderr) to ``on_line`` as it comes;
    with ``capture_stdout`` its stdout (a JSON record) is kept in :attr:`Outcome.stdout` instead
    and only its stderr is handed on.

    When ``cancelled()`` turns true the command is interrupted as Ctrl-C would (SIGINT; on
    Windows it is terminated): tumble writes the rocks of its finished chunks and exits, and the
    run folder can be finished with ``--resume``. It is terminated after ``grace`` seconds.
    """
    kwargs: dict = {}
    if sys.platform == "win32":
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    process = subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if capture_stdout else subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        errors="replace",
        bufsize=1,
        cwd=cwd,
        env=child_environment(),
        **kwargs,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    captured: list[str] = []

    def read(stream, keep: bool) -> None:
        for line in stream:
            if keep:
                captured.append(line)
            else:
                lines.put(line.rstrip("\r\n"))
        lines.put(None)

    streams = [(process.stdout, capture_stdout)]
    if capture_stdout:
        streams.append((process.stderr, False))
    readers = [threading.Thread(target=read, args=pair, daemon=True) for pair in streams]
    for reader in readers:
        reader.start()
    error = None
    interrupted_at: float | None = None
    open_streams = len(readers)
    while open_streams:
        try:
            line = lines.get(timeout=poll)
        except queue.Empty:
            line = ""
        if line is None:
            open_streams -= 1
        elif line:
            match = ERROR.match(line)
            if match is not None:
                error = match.group(1)
            on_line(line)
        if interrupted_at is None and cancelled() and process.poll() is None:
            interrupted_at = time.monotonic()
            _interrupt(process)
        elif (
            interrupted_at is not None
            and time.monotonic() - interrupted_at > grace
            and process.poll() is None
        ):
            process.kill()
    returncode = process.wait()
    for reader, (stream, _keep) in zip(readers, streams, strict=True):
        reader.join(timeout=1.0)
        if stream is not None:
            stream.close()
    return Outcome(returncode, error, interrupted_at is not None, "".join(captured))


def _interrupt(process: subprocess.Popen) -> None:
    if sys.platform == "win32":
        process.terminate()
    else:
        process.send_signal(signal.SIGINT)
