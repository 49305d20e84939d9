"""Drawing beside the write-out: the report's maps in a copy of the run's process.

The maps of ``report.html`` (:func:`tumble.viz.run_report.draw_report_maps`, ten PNG images on
the example site, about 1.3 s) need nothing that the rest of the write-out writes. Where the
platform can fork (Linux) and the DEM has at most :data:`FORK_MAX_CELLS` cells,
:class:`DrawingInBackground` forks the run's process at the start of the write-out: the copy
draws the maps from the objects it shares with the run (the same function on the same objects,
so the same pixels as drawn in the run's process: ``tests/pipeline/test_drawing.py``) while
the run writes the rasters, GeoPackages, tables and the other figures on the other core, and
``report.html`` is written once both are done. A fork needs no interpreter start, no imports
and no copy of the rasters; the copy calls no parallel kernel (the threads of the run's
parallel loop are not in it) and leaves with ``os._exit``, so it runs none of the run's clean-up
and flushes none of its buffers.

What the copy returns (the maps' paths and captions) or raises comes back through a pipe: an
error in it is raised in the run, as the same exception where it can be pickled (with the
copy's traceback as a note) or as a RuntimeError naming what failed, so the run fails and its
staging folder is removed as for any other error. A run that fails while the copy draws kills
the copy and waits for it before its staging folder goes. Elsewhere (no fork, a larger DEM,
whose copy would hold as many pages as the run) the maps are drawn in the run's process, as
before.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")

#: the largest DEM (cells) whose maps are drawn in a forked copy of the run: the copy's resident
#: set counts the pages it shares with the run, so a large run would count about twice
FORK_MAX_CELLS = 4_000_000


def can_draw_in_background(cells: int) -> bool:
    """Whether the maps of a DEM of ``cells`` cells are drawn in a forked copy of the run."""
    return hasattr(os, "fork") and sys.platform.startswith("linux") and cells <= FORK_MAX_CELLS


class DrawingInBackground(Generic[T]):
    """``draw()`` (returning a picklable value) in a forked copy of this process when
    ``background`` is true, in this process otherwise; :meth:`result` gives its value or raises
    its error. A context manager: leaving it before :meth:`result` (an error of the run) kills
    the copy and waits for it."""

    def __init__(self, draw: Callable[[], T], what: str, background: bool) -> None:
        self._draw = draw
        self._what = what
        self._background = background
        self._pid: int | None = None
        self._read: int | None = None

    def __enter__(self) -> DrawingInBackground[T]:
        if self._background:
            self._start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop()

    def _start(self) -> None:
        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # the copy: never returns to the caller's code
            status = 1
            try:
                os.close(read)
                try:
                    payload = pickle.dumps(("value", self._draw()))
                    status = 0
                except BaseException as exc:  # every error goes to the run
                    payload = _error_payload(exc)
                with os.fdopen(write, "wb") as out:
                    out.write(payload)
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """The value of ``draw()``, or its error raised here."""
        if self._pid is None:
            return self._draw()
        assert self._read is not None
        with os.fdopen(self._read, "rb") as source:
            self._read = None
            data = source.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        kind: str
        value: Any
        try:
            kind, value = pickle.loads(data) if data else ("died", None)
        except Exception:  # a truncated payload
            kind, value = "died", None
        if kind == "value" and status == 0:
            return cast(T, value)
        if kind == "error" and isinstance(value, BaseException):
            raise value
        if kind == "text":
            raise RuntimeError(f"{self._what} failed in its own process:\n{value}")
        raise RuntimeError(
            f"{self._what} failed: its process ended without a result ({_status_text(status)})"
        )

    def _stop(self) -> None:
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None
        if self._read is not None:
            os.close(self._read)
            self._read = None


def _error_payload(exc: BaseException) -> bytes:
    """The copy's error for the run: the exception itself with the copy's traceback as a note
    where it pickles and unpickles, else the traceback as text."""
    text = "".join(traceback.format_exception(exc))
    try:
        exc.add_note(f"raised while drawing in a copy of the run's process:\n{text}")
        payload = pickle.dumps(("error", exc))
        pickle.loads(payload)
        return payload
    except Exception:  # an exception that does not pickle
        return pickle.dumps(("text", text))


def _status_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
