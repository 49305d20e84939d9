"""A GeoPackage of many points written in a process of its own, beside the caller's work.

GDAL inserts a point feature in about 8 us and holds the interpreter's lock meanwhile: a run's
``deposits.gpkg`` of a million rocks would hold up the rest of its write-out for seconds.
:class:`PointsInBackground` hands the arrays to a fresh interpreter, which writes the file with
the same :func:`tumble.io.vectors.write_points`, so the file is the one written in process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.io.vectors import write_points

#: tables of at least this many points are written by :class:`PointsInBackground` in a process
#: of its own (GDAL inserts about one feature in 8 us, holding the interpreter's lock)
BACKGROUND_POINTS = 50_000


class PointsInBackground:
    """:func:`write_points` in a process of its own, beside the caller's work: a context
    manager, ``with PointsInBackground(path, xyz, attributes, crs) as pending: ...;
    pending.wait()``.

    The same function writes the same file from the same arrays, in a fresh interpreter
    (``python -c``, the caller's ``sys.path``) that reads them pickled from its standard input:
    it inherits none of the caller's threads or GDAL handles, and does not run the caller's
    ``__main__`` again as :mod:`multiprocessing` would. A table of fewer than
    :data:`BACKGROUND_POINTS` points is written at once, in the caller's process. :meth:`wait`
    returns the path written or raises the writer's error; leaving the block with an exception
    stops the process before the caller removes its stage, so nothing is half-written after
    it."""

    def __init__(
        self,
        path: str | os.PathLike,
        xyz: ArrayLike,
        attributes: Mapping[str, ArrayLike],
        crs: Any = None,
    ) -> None:
        self.path = Path(path)
        points = np.asarray(xyz, dtype=np.float64)
        self._process: subprocess.Popen[bytes] | None = None
        if points.ndim != 2 or points.shape[0] < BACKGROUND_POINTS:
            write_points(self.path, points, attributes, crs)
            return
        columns = {name: np.asarray(values) for name, values in attributes.items()}
        code = (
            f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}; "
            "from tumble.io.points_process import _write_points_from_stdin; "
            "_write_points_from_stdin()"
        )
        self._process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._start_error: BaseException | None = None
        # the arrays go down the pipe from a thread: the new process reads them only once it
        # has imported its modules, and the caller goes on meanwhile
        self._starting = threading.Thread(
            target=self._send, args=((self.path, points, columns, crs),), name="tumble-points"
        )
        self._starting.start()

    def _send(self, arguments: tuple[Any, ...]) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            pickle.dump(arguments, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as err:  # raised by wait(), in the caller's thread
            self._start_error = err
        finally:
            with contextlib.suppress(OSError):  # the process is gone; wait() says why
                self._process.stdin.close()

    def _stop(self) -> None:
        """End the process, join the sending thread."""
        assert self._process is not None
        self._process.kill()
        self._starting.join()
        self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._process = None

    def wait(self) -> Path:
        """The path written, once the process is done; its error if it failed."""
        if self._process is None:
            return self.path
        self._starting.join()
        if self._start_error is not None:
            self._stop()
            raise self._start_error
        assert self._process.stdout is not None
        reply = self._process.stdout.read()
        self._process.stdout.close()
        code = self._process.wait()
        self._process = None
        try:
            error = pickle.loads(reply)
        except Exception:
            error = RuntimeError(
                f"writing {self.path} stopped without a word (exit code {code}); was it "
                "killed, or out of memory?"
            )
        if error is not None:
            raise error
        return self.path

    def __enter__(self) -> PointsInBackground:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *args: object) -> None:
        if self._process is None:
            return
        if exc_type is not None:
            self._stop()
            return
        self.wait()


def _write_points_from_stdin() -> None:
    """The process of :class:`PointsInBackground`: :func:`write_points` of the arguments
    pickled on standard input; None or the error pickled on standard output."""
    path, xyz, columns, crs = pickle.load(sys.stdin.buffer)
    try:
        write_points(path, xyz, columns, crs)
        reply: BaseException | None = None
    except BaseException as err:  # every failure goes back to the caller, which raises it
        reply = err
    try:
        data = pickle.dumps(reply)
    except Exception:  # an error that does not pickle: its text
        data = pickle.dumps(RuntimeError(f"writing {path}: {type(reply).__name__}: {reply}"))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
