"""How many rocks a chunk holds and how large its buffers are: the default chunk size, the
initial capacities of a rock's buffers, and the limits a run is checked against before anything
is allocated (:func:`check_size`)."""

from __future__ import annotations

from tumble.rockfall.ensemble.record import N_MAXIMA, N_QUANTITIES
from tumble.rockfall.simulate import byte_size, check_steps
from tumble.rockfall.step.model import STATE_SIZE, Options

#: default number of rocks per chunk (of a run of up to 40 000 rocks): each of a chunk's threads
#: steps its rocks in teams of eight (:mod:`tumble.rockfall.ensemble.lanes`), and fewer, larger
#: chunks leave fewer teams part-empty at the chunks' ends (on the MuJoCo workload, 1000 rocks
#: on two threads, chunks of 200 rocks took 151-155 ms against 156-159 for chunks of 100)
CHUNK_SIZE = 200
#: largest default chunk, rocks (its visit buffers take about 80 MB)
MAX_DEFAULT_CHUNK = 1000
#: initial capacity of the cell-visit buffer of a rock
VISIT_CAPACITY = 2048
#: initial capacity of the barrier-crossing buffer of a rock
CROSSING_CAPACITY = 16
#: tree impacts of a rock whose cells are mapped (``tree_impacts.tif``); more are counted
IMPACT_CAPACITY = 256

#: the largest ensemble and the longest rock a run accepts (:func:`check_size`)
MAX_ROCKS = 10_000_000
#: the most memory the kernel buffers of one chunk may take, bytes
MAX_CHUNK_BYTES = 2 * 1024**3
#: bytes of one rock in a chunk file and in memory while the chunks are reduced (rock, status,
#: steps, contact steps, PGS caps: 5 int64; final state; maxima; path statistics), before its
#: cell visits
CHUNK_ROCK_BYTES = 8 * (5 + STATE_SIZE + N_MAXIMA + 3 * N_QUANTITIES)
#: bytes of one cell visit of a rock (rock, cell, maxima)
VISIT_BYTES = 8 * (2 + N_QUANTITIES)
#: bytes the driver holds per rock before it runs: release (position, orientation, velocity,
#: omega), initial state, body (m, A, B, C), shape id, scale, mass
SETUP_ROCK_BYTES = 8 * (13 + STATE_SIZE + 4 + 3)
#: bytes of a rock's kernel buffers while its chunk runs (cell visits, outputs)
KERNEL_ROCK_BYTES = VISIT_CAPACITY * VISIT_BYTES + CHUNK_ROCK_BYTES


def check_size(n_rocks: int, options: Options, chunk_size: int | None = None) -> None:
    """Refuse a run too large for one machine before anything is allocated, with the limit and
    what the run would take: more than :data:`MAX_ROCKS` rocks (memory ``SETUP_ROCK_BYTES +
    CHUNK_ROCK_BYTES`` a rock, chunk files ``CHUNK_ROCK_BYTES`` a rock, both before the cell
    visits), rocks of more steps than :func:`tumble.rockfall.simulate.check_steps` allows, or
    chunks whose kernel buffers exceed :data:`MAX_CHUNK_BYTES`."""
    check_steps(options)
    if n_rocks > MAX_ROCKS:
        raise ValueError(
            f"rocks = {n_rocks} exceeds the limit of {MAX_ROCKS:.0e} rocks per run: they would "
            f"take at least {byte_size(n_rocks * (SETUP_ROCK_BYTES + CHUNK_ROCK_BYTES))} of memory "
            f"and {byte_size(n_rocks * CHUNK_ROCK_BYTES)} of chunk files before their cell visits "
            f"({VISIT_BYTES} bytes each); split the ensemble into several runs"
        )
    if chunk_size is not None:
        rocks = min(int(chunk_size), n_rocks)
        limit = MAX_CHUNK_BYTES // KERNEL_ROCK_BYTES
        if rocks > limit:
            raise ValueError(
                f"chunk_size = {chunk_size} is too large: the kernel buffers of a chunk of "
                f"{rocks} rocks would take {byte_size(rocks * KERNEL_ROCK_BYTES)} of memory; "
                f"the limit is {limit} rocks per chunk ({byte_size(MAX_CHUNK_BYTES)})"
            )


def default_chunk_size(n_rocks: int) -> int:
    """Rocks per chunk of a run when none is chosen: :data:`CHUNK_SIZE`, or for runs of more
    than 40 000 rocks ``n_rocks / 200`` up to :data:`MAX_DEFAULT_CHUNK`, so that a large run has
    a few hundred chunk files (a chunk file grows with the cells its rocks reached, which its
    rocks share: fewer, larger chunks take less disk). The numbers do not depend on it."""
    return int(min(max(CHUNK_SIZE, n_rocks // 200), MAX_DEFAULT_CHUNK))
