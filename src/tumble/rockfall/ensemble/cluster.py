"""Ensembles on a Dask cluster: chunks of rocks go to the workers, results come back.

The client (the process running ``tumble rockfall run``) sends the ensemble (terrain, soil, rock
shapes, initial states: built and validated once) to every worker, submits one task per missing
chunk (:func:`chunk_task`) and writes each chunk file itself as its
result arrives, so the workers need neither the output directory nor a shared file system. A
chunk computed on a worker is bit-identical to the same chunk computed locally (same compiled
kernel, one random stream per rock drawn before), so the rasters and statistics do not depend on
where the chunks ran; an interrupted cluster run resumes like a local one (``--resume``).

On one machine: ``--dask local:N`` starts a ``LocalCluster`` of N worker processes with one
thread each (each worker runs its chunk's parallel loop on one thread).

Dask is optional: ``pip install 'tumble[cluster]'`` (a command that needs it and does not find
it says so). On a real cluster, with the same version of tumble installed on every machine::

    # on the scheduler machine
    dask scheduler --port 8786
    # on every worker machine (one single-threaded worker process per core)
    dask worker tcp://SCHEDULER:8786 --nworkers 8 --nthreads 1
    # anywhere that reaches the scheduler
    tumble rockfall run --scenario slope40 --rocks 100000 --chunk-size 200 \\
        --dask tcp://SCHEDULER:8786 --out runs/slope40

Choose chunks of a few hundred rocks, and several chunks per worker so that the work balances
(the slowest chunk decides the end). Workers compile the kernels on their first task unless they
share the numba cache (``TUMBLE_CACHE_DIR`` on a shared disk).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tumble._check import require

if TYPE_CHECKING:
    from distributed import Client

    from tumble.rockfall.ensemble.driver import Ensemble

LOCAL_PREFIX = "local:"


def parse_address(address: str) -> tuple[str, int | None]:
    """``("local", n)`` for ``local:N``, else ``("remote", None)``; ValueError otherwise."""
    text = str(address).strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX) :]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--dask {address!r}: expected local:N with N >= 1 workers")
        return "local", int(count)
    if not text:
        raise ValueError("--dask needs a scheduler address (tcp://host:8786) or local:N")
    return "remote", None


def client_for(address: str) -> Client:
    """A ``distributed.Client`` for a scheduler address or ``local:N`` (a new LocalCluster of N
    single-threaded worker processes); the caller closes it (and its cluster)."""
    kind, workers = parse_address(address)
    distributed = require("distributed", "cluster", "--dask")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    if kind == "local":
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(cluster)
    try:
        return Client(address, timeout="20s")
    except OSError as err:
        raise ValueError(f"--dask {address}: cannot reach the scheduler ({err})") from None


def close_client(client: Client) -> None:
    """Close a client of :func:`client_for` and the LocalCluster it started, if any."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def chunk_task(
    ensemble: Ensemble, index: int, start: int, stop: int, threads: int = 1
) -> tuple[int, dict, float]:
    """The unit of work sent to a Dask worker: ``(index, chunk, cpu)`` of
    :meth:`tumble.rockfall.ensemble.Ensemble.run_chunk`, with the CPU time (s) the worker's
    thread spent on it."""
    c0 = time.thread_time()
    chunk = ensemble.run_chunk(start, stop, threads)
    return index, chunk, time.thread_time() - c0


def run_on_dask(
    ensemble: Ensemble,
    chunks: list[tuple[int, int, int]],
    address: str,
    finished: Callable[[int, dict], None],
    cpu: list[float] | None = None,
) -> None:
    """Compute ``chunks`` ``(index, start, stop)`` on Dask, calling ``finished(index, chunk)`` in
    this process as each result arrives (in completion order); the workers' CPU time of each
    chunk (s) is appended to ``cpu``."""
    parse_address(address)
    as_completed = require("distributed", "cluster", "--dask").as_completed
    client = client_for(address)
    try:
        [model] = client.scatter([ensemble], broadcast=True, hash=False)
        futures = [
            client.submit(chunk_task, model, index, start, stop, 1, pure=False)
            for index, start, stop in chunks
        ]
        for future in as_completed(futures):
            index, chunk, seconds = future.result()
            if cpu is not None:
                cpu.append(seconds)
            finished(index, chunk)
    finally:
        close_client(client)
