"""A chunk's cell visits reduced in compiled code: per rock and cell, then per cell.

The kernel of :mod:`tumble.rockfall.ensemble.kernels` leaves every rock's visits in the order it
made them (a cell entered twice appears twice), in its buffers, or one rock after another when
a rock outgrew them and was run again. :func:`reduce_visits` turns those visits into what the
driver keeps, in one compiled pass instead of a dozen numpy passes between the chunks, where it
is serial work beside a parallel kernel:

* the visits merged per rock and cell (the maxima over its visits of the cell), sorted by rock
  and cell (or left by cell and rock for a caller that needs no order), ``-inf`` (no flight)
  as NaN: what :meth:`tumble.rockfall.ensemble.Ensemble.visits` returns and what zoning
  counts;
* the chunk's cell reduction of :func:`tumble.rockfall.ensemble.cells.chunk_cells` (fields
  :data:`tumble.rockfall.ensemble.cells.CELL_FIELDS`) from those rows, with the same integer
  sums, NaN-ignoring maxima and histogram bins, so the two give equal arrays
  (``tests/rockfall/ensemble/test_visits.py``).

The rows are ordered by one sort on the key ``cell * rocks + rock`` (cell first), which groups
both the visits of one rock to one cell and the rocks of one cell; a counting pass over the
rocks then gives the rock-major order. Nothing here depends on the order of equal keys: the
merges are maxima and integer sums.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tumble._jit import jit
from tumble.rockfall.ensemble.cells import (
    _LIMB,
    _LOW_MASK,
    BINS_PER_OCTAVE,
    FLOOR,
    LOW_EXPONENT,
    N_BINS,
    SUM_BITS,
    SUM_LIMIT,
    _fmax,
    radix_order,
)
from tumble.rockfall.ensemble.record import N_QUANTITIES, Q_ENERGY, Q_JUMP, R_CROSSINGS, R_VISITS
from tumble.rockfall.ensemble.sizes import CROSSING_CAPACITY

_SCALE = 2.0**SUM_BITS
#: the fraction bits of a float64 below the top log2(BINS_PER_OCTAVE) ones (:func:`bin_of_bits`)
_BIN_SHIFT = 52 - (BINS_PER_OCTAVE.bit_length() - 1)


@jit(inline="always")
def bin_of_bits(x: float, bits: int) -> int:
    """:func:`tumble.rockfall.ensemble.cells.bin_index` of one finite ``x``, from its IEEE 754
    bits ``bits`` (the int64 of the same eight bytes): for ``x >= FLOOR``, a normal number
    ``(1 + f) 2^(e - 1023)`` with the biased exponent ``e`` in bits 52-62, ``frexp`` gives the
    exponent ``e - 1022`` and the mantissa ``(1 + f) / 2``, so ``floor((2 mantissa - 1)
    BINS_PER_OCTAVE)`` is the top ``log2(BINS_PER_OCTAVE)`` bits of the fraction ``f`` (a power
    of two, :mod:`.cells`): the same bin without a call of ``frexp``."""
    if x < FLOOR:
        return 0
    exponent = (bits >> 52) & 0x7FF
    within = (bits >> _BIN_SHIFT) & (BINS_PER_OCTAVE - 1)
    index = (exponent - 1023 - LOW_EXPONENT) * BINS_PER_OCTAVE + within + 1
    return min(index, N_BINS - 1)


@jit
def _fixed(energy: float) -> int:
    """:func:`tumble.rockfall.ensemble.cells.fixed_point` of one energy."""
    clipped = min(max(energy, 0.0), SUM_LIMIT)
    return int(np.rint(clipped * _SCALE))


@jit(inline="always")
def _histogram(keys: np.ndarray, n: int, out_key: np.ndarray, out_count: np.ndarray, k: int) -> int:
    """The ``n`` first ``keys`` (sorted here in place, by insertion: the rocks of one cell are
    few) counted per value, appended in ascending order at ``k``."""
    if n == 0:
        return k
    for t in range(1, n):
        key = keys[t]
        u = t - 1
        while u >= 0 and keys[u] > key:
            keys[u + 1] = keys[u]
            u -= 1
        keys[u + 1] = key
    out_key[k] = keys[0]
    out_count[k] = 1
    for t in range(1, n):
        if keys[t] == out_key[k]:
            out_count[k] += 1
        else:
            k += 1
            out_key[k] = keys[t]
            out_count[k] = 1
    return k + 1


@jit
def reduce_visits(
    rocks: np.ndarray,
    start: np.ndarray,
    n_visits: np.ndarray,
    visit_cell: np.ndarray,
    visit_value: np.ndarray,
    rock_major: bool = True,
) -> tuple:
    """The merged visits and the cell reduction of a chunk (module docstring).

    ``rocks`` (m,) the rocks' indices; rock i's visits are the rows ``start[i] ..
    start[i] + n_visits[i] - 1`` of ``visit_cell`` (N,) and ``visit_value`` (N, 4), in the
    order it made them (the kernel's buffers of capacity ``cap`` flattened, ``start[i] = i cap``,
    or the visits of the rocks one after another). Returns ``(visit_rock, visit_cell,
    visit_max, by_cell, cell_index, cell_count, cell_max, cell_energy_sum, energy_bin_key,
    energy_bin_count, jump_bin_key, jump_bin_count)``; ``by_cell`` lists the merged rows in
    cell-major order (cells ascending, rocks ascending within a cell), as indices into the
    first three. ``rock_major`` False leaves the merged rows in that cell-major order
    (``by_cell`` then ``0, 1, 2, ...``): for a caller that needs no order of them, without
    the pass that sorts them by rock.
    """
    m = rocks.size
    total = 0
    for i in range(m):
        total += n_visits[i]
    # the visits gathered into compact arrays first: the sorted pass below then reads them
    # from a few hundred kB instead of from rows spread over the kernel's buffers
    keys = np.empty(total, dtype=np.int64)
    src_rock = np.empty(total, dtype=np.int64)
    src_cell = np.empty(total, dtype=np.int64)
    src_value = np.empty((total, N_QUANTITIES))
    t = 0
    for i in range(m):
        for j in range(start[i], start[i] + n_visits[i]):
            cell = visit_cell[j]
            keys[t] = cell * m + i
            src_rock[t] = i
            src_cell[t] = cell
            for q in range(N_QUANTITIES):
                src_value[t, q] = visit_value[j, q]
            t += 1
    order = radix_order(keys)

    # one row per (cell, rock), in cell-major order: the maxima over the rock's visits
    row_rock = np.empty(total, dtype=np.int64)
    row_cell = np.empty(total, dtype=np.int64)
    row_max = np.empty((total, N_QUANTITIES))
    rows = 0
    previous = -1
    for t in range(total):
        s = order[t]
        if keys[s] != previous:
            previous = keys[s]
            row_rock[rows] = src_rock[s]
            row_cell[rows] = src_cell[s]
            for q in range(N_QUANTITIES):
                row_max[rows, q] = src_value[s, q]
            rows += 1
        else:
            for q in range(N_QUANTITIES):
                row_max[rows - 1, q] = max(row_max[rows - 1, q], src_value[s, q])
    for r in range(rows):
        for q in range(N_QUANTITIES):
            if row_max[r, q] == -math.inf:
                row_max[r, q] = math.nan

    # the cell reduction, one cell at a time (the bins from the values' bits)
    bits = row_max.view(np.int64)
    cell_index = np.empty(rows, dtype=np.int64)
    cell_count = np.zeros(rows, dtype=np.int64)
    cell_max = np.empty((rows, N_QUANTITIES))
    cell_sum = np.zeros((rows, 2), dtype=np.int64)
    energy_key = np.empty(rows, dtype=np.int64)
    energy_count = np.empty(rows, dtype=np.int64)
    jump_key = np.empty(rows, dtype=np.int64)
    jump_count = np.empty(rows, dtype=np.int64)
    energy_bins = np.empty(rows, dtype=np.int64)
    jump_bins = np.empty(rows, dtype=np.int64)
    cells = 0
    n_energy = 0
    n_jump = 0
    r = 0
    while r < rows:
        cell = row_cell[r]
        c = cells
        cell_index[c] = cell
        for q in range(N_QUANTITIES):
            cell_max[c, q] = row_max[r, q]
        n_e = 0
        n_j = 0
        while r < rows and row_cell[r] == cell:
            cell_count[c] += 1
            for q in range(N_QUANTITIES):
                cell_max[c, q] = _fmax(cell_max[c, q], row_max[r, q])
            energy = row_max[r, Q_ENERGY]
            fixed = _fixed(energy)
            cell_sum[c, 0] += fixed >> _LIMB
            cell_sum[c, 1] += fixed & _LOW_MASK
            energy_bins[n_e] = cell * N_BINS + bin_of_bits(energy, bits[r, Q_ENERGY])
            n_e += 1
            jump = row_max[r, Q_JUMP]
            if math.isfinite(jump):
                jump_bins[n_j] = cell * N_BINS + bin_of_bits(jump, bits[r, Q_JUMP])
                n_j += 1
            r += 1
        n_energy = _histogram(energy_bins, n_e, energy_key, energy_count, n_energy)
        n_jump = _histogram(jump_bins, n_j, jump_key, jump_count, n_jump)
        cells += 1

    cells_out = (
        cell_index[:cells].copy(),
        cell_count[:cells].copy(),
        cell_max[:cells].copy(),
        cell_sum[:cells].copy(),
        energy_key[:n_energy].copy(),
        energy_count[:n_energy].copy(),
        jump_key[:n_jump].copy(),
        jump_count[:n_jump].copy(),
    )
    if not rock_major:
        visit_rock = np.empty(rows, dtype=np.int64)
        for r in range(rows):
            visit_rock[r] = rocks[row_rock[r]]
        in_order = (visit_rock, row_cell[:rows].copy(), row_max[:rows].copy())
        return in_order + (np.arange(rows),) + cells_out

    # the rows again in rock-major order (stable within a rock: cells ascending)
    start = np.zeros(m + 1, dtype=np.int64)
    for r in range(rows):
        start[row_rock[r] + 1] += 1
    for i in range(m):
        start[i + 1] += start[i]
    visit_rock = np.empty(rows, dtype=np.int64)
    visit_cell_out = np.empty(rows, dtype=np.int64)
    visit_max = np.empty((rows, N_QUANTITIES))
    by_cell = np.empty(rows, dtype=np.int64)
    for r in range(rows):
        i = row_rock[r]
        p = start[i]
        start[i] += 1
        by_cell[r] = p
        visit_rock[p] = rocks[i]
        visit_cell_out[p] = row_cell[r]
        for q in range(N_QUANTITIES):
            visit_max[p, q] = row_max[r, q]
    return (visit_rock, visit_cell_out, visit_max, by_cell) + cells_out


def buffers_overflow(counts: np.ndarray, crossings: np.ndarray, visit_capacity: int) -> bool:
    """Whether some rock of a kernel run (its ``counts`` rows and ``crossings`` buffers) had
    more cell visits than ``visit_capacity`` or more barrier crossings than its buffer held:
    :func:`read_buffers` then runs it again."""
    return bool(
        np.any(counts[:, R_VISITS] > visit_capacity)
        or np.any(counts[:, R_CROSSINGS] > crossings.shape[1])
    )


def read_buffers(
    rocks: np.ndarray,
    visit_cell: np.ndarray,
    visit_value: np.ndarray,
    counts: np.ndarray,
    crossings: np.ndarray,
    rerun: Callable[[np.ndarray, int, int], tuple],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """The visits of a kernel run as :func:`reduce_visits` takes them: the first row of each
    rock, the flat cells and values, and each rock's crossings. Where every rock's visits and
    crossings fit its buffers they are read where they are; otherwise the rocks' visits come
    one after another, and a rock that outgrew its buffers is run again with room for all of
    them (``rerun(rocks, visit_capacity, crossing_capacity)``, the kernel's outputs), which must
    repeat its counts."""
    capacity = visit_cell.shape[1]
    if not buffers_overflow(counts, crossings, capacity):
        first_row = np.arange(rocks.size, dtype=np.int64) * capacity
        rows = [crossings[i, : counts[i, R_CROSSINGS]] for i in range(rocks.size)]
        return first_row, visit_cell.reshape(-1), visit_value.reshape(-1, N_QUANTITIES), rows
    cells, values, rows = [], [], []
    for i in range(rocks.size):
        n = int(counts[i, R_VISITS])
        c = int(counts[i, R_CROSSINGS])
        if n > capacity or c > crossings.shape[1]:
            _, _, _, vc, vv, again, xc, _, _ = rerun(
                rocks[i : i + 1], max(n, 1), max(c, CROSSING_CAPACITY)
            )
            if not np.array_equal(again[0], counts[i]):
                raise RuntimeError(f"rock {rocks[i]} did not repeat itself")
            cells.append(vc[0, :n])
            values.append(vv[0, :n])
            rows.append(xc[0, :c])
        else:
            cells.append(visit_cell[i, :n])
            values.append(visit_value[i, :n])
            rows.append(crossings[i, :c])
    flat_cell = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
    flat_value = np.concatenate(values) if values else np.zeros((0, N_QUANTITIES))
    first_row = np.concatenate(([0], np.cumsum(counts[:, R_VISITS])[:-1])).astype(np.int64)
    return first_row, flat_cell, flat_value, rows
