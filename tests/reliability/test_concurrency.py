"""Two processes and one result folder: a run holds the folder's lock while it writes, a second
run or a ``--resume`` is refused naming its pid, and after ``kill -9`` of the run ``--resume``
takes the stale lock over and gives the numbers of an uninterrupted run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tumble
from tumble.cli.main import main
from tumble.io.lock import LOCK_NAME, FolderLock, read_lock

RUN = [
    "rockfall",
    "run",
    "--rocks",
    "40",
    "--chunk-size",
    "1",
    "--t-max",
    "10",
    "--seed",
    "5",
    "--threads",
    "1",
    "--quiet",
    "--no-figures",
    "output.trajectories=0",
]


def tumble_main(*args: str) -> tuple[int, str]:
    text = io.StringIO()
    with contextlib.redirect_stderr(text), contextlib.redirect_stdout(text):
        code = main(list(args))
    return code, text.getvalue()


def test_a_lock_refuses_a_second_owner_and_a_dead_owners_lock_is_taken_over(tmp_path):
    folder = tmp_path / "run"
    child = subprocess.Popen(
        [sys.executable, "-c", "import time, sys; time.sleep(60)"],
    )
    try:
        with FolderLock(folder):
            assert read_lock(folder)["pid"] == os.getpid()
            # a second holder in this process is refused as well (flock is per open file)
            with pytest.raises(ValueError, match=f"process {os.getpid()}"):
                FolderLock(folder).acquire()
        assert not folder.exists()  # a folder made only for the lock is removed with it
        folder.mkdir()
        # a lock file left by a process that is gone is taken over
        (folder / LOCK_NAME).write_text(json.dumps({"pid": child.pid, "host": "x"}))
    finally:
        child.kill()
        child.wait()
    lock = FolderLock(folder)
    with lock:
        assert lock.took_over == child.pid
        assert read_lock(folder)["pid"] == os.getpid()


def test_kill_9_then_resume_and_a_busy_folder_refused(tmp_path):
    reference = tmp_path / "reference"
    code, text = tumble_main(*RUN, "--out", str(reference))
    assert code == 0, text

    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(Path(tumble.__file__).resolve().parents[1]))
    run = subprocess.Popen(
        [sys.executable, "-m", "tumble.cli.main", *RUN, "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    first = out / "chunks" / "chunk_000000.npz"
    deadline = time.monotonic() + 120
    while not first.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    if run.poll() is not None:
        pytest.skip("the run finished before it could be interrupted")
    os.kill(run.pid, signal.SIGSTOP)  # hold it mid-run: the lock stays taken
    try:
        for extra in (["--resume"], ["--force"], []):
            code, text = tumble_main(*RUN, *extra, "--out", str(out))
            assert code == 2, text
            assert f"being written by another tumble run (process {run.pid}" in text
            assert "Traceback" not in text
        assert first.exists()  # the refused runs deleted nothing
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    assert (out / LOCK_NAME).exists()  # left behind by the killed run
    code, text = tumble_main(*RUN, "--resume", "--out", str(out))
    assert code == 0, text
    assert not (out / LOCK_NAME).exists()
    assert (out / "deposits.csv").read_text() == (reference / "deposits.csv").read_text()
