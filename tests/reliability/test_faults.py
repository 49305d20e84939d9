"""Faults while a run writes its folder: damaged chunk files found by ``--resume``, a full disk
while a chunk or the outputs are written. Each ends in a message (no traceback), leaves no
partial file, and ``--resume`` then gives the numbers of an uninterrupted run."""

from __future__ import annotations

import contextlib
import errno
import io
import shutil
from pathlib import Path

import pytest

from tumble.cli.main import main

#: a small run: 6 rocks in chunks of 2, short enough for a test
RUN = [
    "rockfall",
    "run",
    "--rocks",
    "6",
    "--chunk-size",
    "2",
    "--t-max",
    "5",
    "--seed",
    "3",
    "--threads",
    "1",
    "--quiet",
    "--no-figures",
    "output.trajectories=0",
]


def tumble(*args: str) -> tuple[int, str]:
    """``tumble ARGS`` in-process: exit status and everything printed."""
    text = io.StringIO()
    with contextlib.redirect_stderr(text), contextlib.redirect_stdout(text):
        code = main(list(args))
    return code, text.getvalue()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The uninterrupted run, chunks kept."""
    out = tmp_path_factory.mktemp("reference") / "run"
    code, text = tumble(*RUN, "--keep-chunks", "--out", str(out))
    assert code == 0, text
    return out


def _interrupted_copy(reference: Path, out: Path) -> None:
    """``out`` as a run interrupted after its chunks: the chunks, no outputs."""
    shutil.copytree(reference / "chunks", out / "chunks")


def _partials(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if "partial" in p.name]


def test_damaged_chunks_are_named_and_computed_again(reference, tmp_path):
    out = tmp_path / "run"
    _interrupted_copy(reference, out)
    truncated = out / "chunks" / "chunk_000001.npz"
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    corrupted = out / "chunks" / "chunk_000002.npz"
    data = bytearray(corrupted.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)
    corrupted.write_bytes(bytes(data))
    code, text = tumble(*RUN, "--resume", "--out", str(out))
    assert code == 0, text
    assert "Traceback" not in text
    assert "chunk 1 (" in text and "chunk 2 (" in text and "computed again" in text
    assert "chunk 0 (" not in text
    assert (out / "deposits.csv").read_text() == (reference / "deposits.csv").read_text()


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_while_writing_a_chunk_says_so_and_resume_finishes(
    reference, tmp_path, monkeypatch
):
    out = tmp_path / "run"

    import tumble.io.results as results

    # chunk files are written deflated (results.savez_deflated)
    monkeypatch.setattr(results, "savez_deflated", _savez_failing_at(2))
    code, text = tumble(*RUN, "--out", str(out))
    monkeypatch.undo()
    assert code == 2, text
    assert "Traceback" not in text
    assert "no space left on the device" in text and "--resume" in text
    assert not _partials(out)
    assert not (out / "summary.json").exists()
    assert sorted(p.name for p in (out / "chunks").glob("chunk_*.npz")) == ["chunk_000000.npz"]
    code, text = tumble(*RUN, "--resume", "--out", str(out))
    assert code == 0, text
    assert (out / "deposits.csv").read_text() == (reference / "deposits.csv").read_text()


def _savez_failing_at(k: int):
    """``results.savez_deflated`` that fills the disk on its ``k``-th call (after writing a few
    bytes)."""
    import tumble.io.results as results

    real = results.savez_deflated
    calls = []

    def savez(handle, arrays):
        calls.append(1)
        if len(calls) == k:
            handle.write(b"PK\x03\x04 partial")
            _no_space()
        return real(handle, arrays)

    return savez


def test_a_full_disk_while_writing_the_outputs_removes_the_stage(reference, tmp_path, monkeypatch):
    out = tmp_path / "run"
    _interrupted_copy(reference, out)
    import tumble.viz.run_report as run_report

    monkeypatch.setattr(run_report, "write_run_report", _no_space)
    code, text = tumble(*RUN, "--resume", "--out", str(out))
    monkeypatch.undo()
    assert code == 2, text
    assert "Traceback" not in text and "no space left on the device" in text
    assert not _partials(out)
    assert not (out / "summary.json").exists()
    assert len(list((out / "chunks").glob("chunk_*.npz"))) == 3
    code, text = tumble(*RUN, "--resume", "--out", str(out))
    assert code == 0, text
    assert (out / "deposits.csv").read_text() == (reference / "deposits.csv").read_text()


def test_permission_denied_is_a_message(tmp_path, monkeypatch):
    """A folder that cannot be created (tests may run as root, where chmod does not bite)."""
    out = tmp_path / "run"

    def refuse(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    code, text = tumble(*RUN, "--out", str(out))
    monkeypatch.undo()
    assert code == 2 and "Traceback" not in text
    assert "permission denied" in text and str(out) in text
    assert not out.exists()
