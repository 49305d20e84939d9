"""Chunk files of an ensemble: computed in order or on Dask, written atomically, resumable.

:func:`run_chunks` splits rocks ``0 .. n-1`` into chunks of ``chunk_size`` and writes each
finished chunk to ``DIR/chunks/chunk_NNNNNN.npz`` (written under a temporary name, then renamed,
so a chunk file is complete or absent). ``DIR/chunks/manifest.json`` records a fingerprint of
the model and the rocks (hash of every kernel input), the number of rocks and the chunk size;
with ``resume=True`` only the missing chunks are computed (an interrupted run gives exactly the
numbers of an uninterrupted one), a finished run is not recomputed, and chunks of another model
are refused. With a Dask address the chunks run on a cluster
(:mod:`tumble.rockfall.ensemble.cluster`); the files are written here as results arrive.

A chunk file holds its rocks' results and the chunk's cell reduction
(:mod:`tumble.rockfall.ensemble.cells`), not the rocks' path samples, nor their cell visits
unless the ensemble keeps them (``keep_visits``, for ``visits.parquet``). Each chunk
is merged into the run's :class:`~tumble.rockfall.ensemble.reduce.RunReduction` as it finishes
(chunks already on disk when a run resumes are read once, one at a time), and
:attr:`ChunkRun.chunks` reads the files only when asked: the memory of a run does not grow with
its chunks.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tumble import _check
from tumble._jit import is_cached, set_threads
from tumble.io import run_folder as layout
from tumble.io.overrides import flatten_keys
from tumble.io.results import read_npz, write_json_atomic, write_npz_atomic
from tumble.rockfall.ensemble.cells import decode_cells, encode_cells
from tumble.rockfall.ensemble.cluster import run_on_dask
from tumble.rockfall.ensemble.driver import Ensemble
from tumble.rockfall.ensemble.kernels import run_rocks
from tumble.rockfall.ensemble.progress import Progress, progress_mode
from tumble.rockfall.ensemble.reduce import RunReduction
from tumble.rockfall.ensemble.sizes import default_chunk_size

#: said before the kernels compile (once after installing or changing tumble)
COMPILING = "compiling kernels (first run only, ~30 s)"


def describe_differences(before: dict, now: dict, most: int = 4) -> str:
    """What differs between two descriptions of a run's inputs, e.g. ``"seed 1 in the chunks,
    9 now"``; a generic phrase when nothing recorded differs (another code version, input file
    contents)."""
    a, b = flatten_keys(before), flatten_keys(now)
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    if not keys:
        return "other inputs: the same settings, but other input files or another tumble"
    parts = [f"{k} {a.get(k)!r} in the chunks, {b.get(k)!r} now" for k in keys[:most]]
    if len(keys) > most:
        parts.append(f"and {len(keys) - most} more")
    return "; ".join(parts)


def chunk_path(directory: Path, index: int) -> Path:
    """The file of chunk ``index`` of the run in ``directory``."""
    return Path(directory) / layout.CHUNKS / f"chunk_{index:06d}.npz"


def write_chunk(directory: Path, index: int, chunk: dict) -> Path:
    """Write a chunk atomically (temporary name, then rename), deflated, its cell reduction
    encoded (:func:`tumble.rockfall.ensemble.cells.encode_cells`)."""
    return write_npz_atomic(chunk_path(directory, index), encode_cells(chunk), compress=True)


def read_chunk(path: Path) -> dict:
    """The arrays of one chunk file."""
    return decode_cells(read_npz(path))


class ChunkFiles(Sequence[dict]):
    """The chunk files of a run in rock order, each read from disk when it is indexed or
    iterated (never all held at once)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return [read_chunk(path) for path in self.paths[index]]
        return read_chunk(self.paths[index])

    def __iter__(self) -> Iterator[dict]:
        for path in self.paths:
            yield read_chunk(path)


#: arrays every chunk file holds, one row per rock
CHUNK_ROCK_ARRAYS = ("rock", "status", "steps", "final_state", "maxima", "path")


def check_chunk(path: Path, start: int, stop: int) -> tuple[dict | None, str]:
    """The arrays of the chunk file of rocks ``start .. stop - 1`` and ``""``, or None and what
    is wrong with the file (truncated, corrupted, other rocks)."""
    try:
        chunk = read_chunk(path)
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as err:
        return None, f"is truncated or corrupted ({type(err).__name__}: {err})"
    missing = [name for name in CHUNK_ROCK_ARRAYS if name not in chunk]
    if missing:
        return None, f"lacks the arrays {', '.join(missing)}"
    n = stop - start
    if not all(len(chunk[name]) == n for name in CHUNK_ROCK_ARRAYS) or (
        chunk["rock"].tolist() != list(range(start, stop))
    ):
        return None, f"does not hold rocks {start} to {stop - 1}"
    return chunk, ""


@dataclass
class ChunkRun:
    """What :func:`run_chunks` did: all chunks (in rock order, read from their files on
    access), how many it computed now, the wall time of simulation over every session that
    contributed chunks (compilation excluded), the rock-steps of all chunks, ``reduction``, every
    chunk merged (:meth:`RunReduction.result` gives the run's results once all rocks are in),
    and the sessions (chunks, steps, wall, CPU and compile time of each)."""

    chunks: ChunkFiles
    computed: int
    wall_time: float
    steps: int
    reduction: RunReduction
    sessions: list[dict] = field(default_factory=list)
    #: chunk files found damaged on resume (which chunk, what was wrong), computed again
    damaged: list[str] = field(default_factory=list)


def _reduce_remaining(
    reduction: RunReduction, directory: Path, count: int, added: set[int]
) -> ChunkFiles:
    """Add the chunk files of ``directory`` not yet in ``added`` to ``reduction`` (one file
    at a time); the files of every chunk present, in rock order."""
    paths = []
    for i in range(count):
        path = chunk_path(directory, i)
        if path.exists():
            paths.append(path)
            if i not in added:
                reduction.add(read_chunk(path))
                added.add(i)
    return ChunkFiles(paths)


def run_chunks(
    ensemble: Ensemble,
    directory: str | os.PathLike,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    dask: str | None = None,
    progress: bool | str | None = None,
    max_chunks: int | None = None,
    inputs: dict | None = None,
) -> ChunkRun:
    """Compute the chunks of ``ensemble`` under ``directory/chunks`` (module docstring).

    ``resume``: reuse the chunks already there (same fingerprint) and compute the missing ones;
    without it a directory that holds chunks is refused. ``chunk_size`` defaults to
    :func:`~tumble.rockfall.ensemble.driver.default_chunk_size` (on resume, to the interrupted
    run's). ``dask``: a scheduler address or ``local:N``
    (:mod:`tumble.rockfall.ensemble.cluster`). ``max_chunks`` stops after computing that many
    chunks (the run is then incomplete: ``computed`` < missing; resume it later).
    ``progress``: a bar on a terminal, plain lines elsewhere (None), or a mode of
    :func:`tumble.rockfall.ensemble.progress.progress_mode`; it also says when the kernels
    compile (the first run after installing or changing tumble). Every session's wall and CPU
    time is recorded in the manifest, an interrupted one's too. ``inputs``: a plain description
    of what decides the numbers (e.g. the configuration), kept in the manifest so that a refused
    ``--resume`` can say what differs.
    """
    directory = Path(directory)
    chunk_dir = directory / layout.CHUNKS
    manifest_path = chunk_dir / layout.MANIFEST
    for stale in chunk_dir.glob(".*.partial"):  # left by a killed run
        stale.unlink(missing_ok=True)
    fingerprint = ensemble.fingerprint()
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as err:
            raise ValueError(f"{manifest_path} is unreadable ({err}); remove {directory}") from None
        if not resume:
            raise ValueError(
                f"{directory} already holds the chunks of a run; pass --resume to finish or "
                "reuse it, or choose another --out"
            )
        if manifest.get("fingerprint") != fingerprint or manifest.get("n_rocks") != (
            ensemble.n_rocks
        ):
            differences = describe_differences(manifest.get("inputs") or {}, inputs or {})
            raise ValueError(
                f"{directory} holds the chunks of a different run ({differences}); --resume "
                "needs the same configuration, --force starts again, or choose another --out"
            )
        if chunk_size is not None and int(chunk_size) != manifest["chunk_size"]:
            raise ValueError(
                f"chunk_size {chunk_size} differs from the interrupted run's "
                f"{manifest['chunk_size']}; resume with the same chunk size"
            )
        chunk_size = int(manifest["chunk_size"])
    else:
        if any(chunk_dir.glob("chunk_*.npz")):
            raise ValueError(
                f"{chunk_dir} holds chunk files but no manifest.json; remove them or choose "
                "another --out"
            )
        chunk_size = default_chunk_size(ensemble.n_rocks) if chunk_size is None else chunk_size
        # written with the first chunk, so that a run failing before leaves nothing behind
        manifest = {
            "fingerprint": fingerprint,
            "n_rocks": ensemble.n_rocks,
            "chunk_size": _check.positive_int(chunk_size, "chunk_size"),
            "inputs": inputs or {},
            "sessions": [],
        }
    spans = ensemble.chunks(chunk_size)
    # chunk files of an earlier session are read once here, one at a time, and merged: a
    # truncated or corrupted one (a disk that filled up, a copy cut short) is named, removed and
    # computed again
    reduction = RunReduction(ensemble)
    added: set[int] = set()
    damaged = []
    for i, (a, b) in enumerate(spans):
        path = chunk_path(directory, i)
        if path.exists():
            chunk, problem = check_chunk(path, a, b)
            if chunk is None:
                damaged.append(f"chunk {i} ({path}) {problem}; it is computed again")
                path.unlink()
            else:
                reduction.add(chunk)
                added.add(i)
    missing = [i for i in range(len(spans)) if i not in added]
    if max_chunks is not None:
        missing = missing[: _check.positive_int(max_chunks, "max_chunks")]
    done_rocks = ensemble.n_rocks - sum(spans[i][1] - spans[i][0] for i in missing)
    chunks_now = 0
    # steps of each chunk of this session, noted before its file is written: an interruption
    # between the file's rename and the bookkeeping still counts the chunk (its file is there)
    steps_of: dict[int, int] = {}
    if missing:
        t0 = time.perf_counter()
        c0 = time.process_time()
        worker_cpu: list[float] = []  # the Dask workers' CPU time of this session's chunks
        compile_s = 0.0

        def finished(index: int, chunk: dict) -> None:
            if not manifest_path.exists():
                write_json_atomic(manifest_path, manifest)
            steps_of[index] = int(chunk["steps"].sum())
            write_chunk(directory, index, chunk)
            reduction.add(chunk)
            added.add(index)
            bar.update(spans[index][1] - spans[index][0], steps_of[index])

        try:
            with Progress(ensemble.n_rocks, done_rocks, progress_mode(progress)) as bar:
                if dask:
                    run_on_dask(
                        ensemble, [(i, *spans[i]) for i in missing], dask, finished, worker_cpu
                    )
                else:
                    previous = set_threads(threads) if threads is not None else None
                    try:
                        if not is_cached(run_rocks):
                            bar.note(COMPILING)
                        compile_s = ensemble.warm_up()
                        bar.start += compile_s
                        running = ensemble.run_spans([spans[i] for i in missing])
                        with closing(running):
                            for i, chunk in zip(missing, running, strict=True):
                                finished(i, chunk)
                    finally:
                        if previous is not None:
                            set_threads(previous)
        finally:
            # an interrupted session that finished chunks counts too: its time is part of the
            # run's wall time, and the speed printed after a resume divides by all of it
            written = [i for i in steps_of if chunk_path(directory, i).exists()]
            chunks_now = len(written)
            steps_now = sum(steps_of[i] for i in written)
            if chunks_now:
                manifest["sessions"].append(
                    {
                        "chunks": chunks_now,
                        "steps": steps_now,
                        "wall_time_s": time.perf_counter() - t0 - compile_s,
                        "cpu_time_s": time.process_time() - c0 + sum(worker_cpu),
                        "compile_s": compile_s,
                        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                    }
                )
                write_json_atomic(manifest_path, manifest)
    chunks = _reduce_remaining(reduction, directory, len(spans), added)
    wall = float(sum(s["wall_time_s"] for s in manifest["sessions"]))
    return ChunkRun(
        chunks, chunks_now, wall, reduction.steps, reduction, list(manifest["sessions"]), damaged
    )
