"""A lock on a result folder while one process writes it.

:class:`FolderLock` creates ``FOLDER/.tumble.lock`` with ``O_CREAT | O_EXCL`` (atomic on local
file systems) holding the owner's process id, host and start time, and removes it on exit. A
second process that finds the file reads it: if its owner still runs on this host (``kill(pid,
0)`` succeeds or is not permitted) the folder is busy and a ValueError names the owner's pid;
if the owner is gone (a run killed with ``kill -9``, a crash) the lock is stale and taken over.
A lock of another host cannot be checked and counts as busy. While the lock is held, only its
owner creates or removes staging files in the folder, so a run and a resume can never delete
each other's files.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

#: name of the lock file inside a result folder
LOCK_NAME = ".tumble.lock"


def read_lock(folder: str | os.PathLike) -> dict | None:
    """The owner recorded in ``folder``'s lock (``pid``, ``host``, ``started``), or None; an
    unreadable or half-written lock reads as ``{}``."""
    path = Path(folder) / LOCK_NAME
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    try:
        owner = json.loads(text)
    except ValueError:
        return {}
    return owner if isinstance(owner, dict) else {}


class FolderLock:
    """``with FolderLock(folder): ...`` holds the lock of ``folder`` (created if absent)."""

    def __init__(self, folder: str | os.PathLike, what: str = "--out"):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.what = what
        self.owner = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
        self.fd: int | None = None
        self.created = False
        #: the pid of a dead owner whose stale lock was taken over
        self.took_over: int | None = None

    def acquire(self) -> None:
        self.created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                owner = read_lock(self.folder) or {}
                pid = owner.get("pid", "unknown")
                started = owner.get("started")
                raise ValueError(
                    f"{self.what} {self.folder} is being written by another tumble run "
                    f"(process {pid}" + (f", started {started}" if started else "") + "); "
                    f"wait for it to finish or choose another {self.what}"
                ) from None
            # the file may have been removed by its previous owner between open and flock
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            previous = read_lock(self.folder) or {}
            pid = previous.get("pid")
            if isinstance(pid, int) and pid != os.getpid():
                self.took_over = pid  # its process is gone: the kernel released its lock
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(self.owner).encode())
            self.fd = fd
            return
        raise ValueError(f"{self.what} {self.folder}: could not take its lock {self.path}")

    def release(self) -> None:
        if self.fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self.fd)
            self.fd = None
            if self.created and not any(self.folder.iterdir()):
                self.folder.rmdir()  # a folder made only for the lock leaves no trace

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
