"""Per-cell accumulators of the hazard rasters: sparse, mergeable in any order, the same numbers
for any chunking.

A chunk reduces its rocks' cell visits (one row per rock and cell with the rock's maxima there,
:mod:`tumble.rockfall.ensemble.kernels`) to one row per DEM cell it touched
(:func:`chunk_cells`); the rows of all chunks are merged as they arrive (:class:`CellMerger`)
and become the rasters at the end (:func:`cell_rasters`). Memory and disk grow with the cells
the rocks reach and the spread of their values, not with the number of rocks. Every merge
is exact integer arithmetic or a maximum, so the result does not depend on the chunk size, the
order in which chunks finish, the threads or Dask:

* ``count``: rocks whose centre passed the cell (integers);
* ``maxima``: per quantity (kinetic energy J, speed, rotation, jump height) the maximum over
  the rocks of each rock's maximum in the cell (NaN-ignoring maximum: exact);
* ``energy_sum``: the sum of the rocks' maximum kinetic energies in fixed point, each value
  rounded to a multiple of :data:`SUM_RESOLUTION` (2^-24 J, about 6e-8 J) and added as two
  32-bit limbs in int64 (exact for up to 2^31 rocks per cell; values above
  :data:`SUM_LIMIT`, 2^38 J, are added as 2^38 J). The mean raster is thus within 2^-25 J of
  the mean of the exact values;
* ``energy_bins``, ``jump_bins``: histograms of the rocks' maximum kinetic energy and jump height
  (over the rocks that flew there after their first contact) in fixed logarithmic bins:
  :data:`BINS_PER_OCTAVE` (64) bins per octave ``[2^e, 2^(e+1))``, bin ``j`` from ``2^e (1 + j/64)``
  to ``2^e (1 + (j+1)/64)``, found with exact arithmetic (``frexp``, no logarithm, so every machine
  bins a value alike), represented by the harmonic mean ``2ab/(a+b)`` of its edges ``a, b``; one bin
  ``0`` for values below :data:`FLOOR` (2^-10 of the unit, about 1 mJ or 1 mm), represented by 0. A
  percentile is the linear interpolation (numpy's default) between the representatives of the bins
  holding the two order statistics it needs, so it is within :data:`RELATIVE_ERROR` = 1/129 (0.78 %)
  of the exact percentile of the values, plus :data:`FLOOR` absolute when a value below the floor
  takes part (every value >= 0 and below 2^40; larger ones share the top bin).

A bin edge quantile sketch with relative accuracy is the idea of DDSketch (C. Masson, J. E. Rim,
H. K. Lee, DDSketch: a fast and fully-mergeable quantile sketch with relative-error guarantees,
Proc. VLDB Endow. 12 (2019) 2195-2205); the bins here are linear within each octave so that
they are computed exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tumble._jit import jit
from tumble.rockfall.ensemble.record import N_QUANTITIES, Q_ENERGY, Q_JUMP

#: fixed point of the energy sums: values are counted in units of 2^-SUM_BITS J
SUM_BITS = 24
SUM_RESOLUTION = 2.0**-SUM_BITS
#: largest value added to the energy sums, J (2^38: each rounded value fits 62 bits)
SUM_LIMIT = 2.0**38
_LIMB = 32
_LOW_MASK = (1 << _LIMB) - 1
#: histogram bins per octave (a power of two, so that the bin is found exactly)
BINS_PER_OCTAVE = 64
#: the lowest octave is [2^LOW_EXPONENT, 2^(LOW_EXPONENT+1)); below it is bin 0
LOW_EXPONENT = -10
#: values from 2^HIGH_EXPONENT on share the top bin
HIGH_EXPONENT = 40
#: values below FLOOR fall in bin 0 (represented by 0)
FLOOR = 2.0**LOW_EXPONENT
N_BINS = (HIGH_EXPONENT - LOW_EXPONENT) * BINS_PER_OCTAVE + 1
#: bound on the relative error of a percentile from the bins (values >= FLOOR)
RELATIVE_ERROR = 1.0 / (2 * BINS_PER_OCTAVE + 1)

#: the arrays of a chunk's cell reduction, as stored in its chunk file
CELL_FIELDS = (
    "cell_index",
    "cell_count",
    "cell_max",
    "cell_energy_sum",
    "energy_bin_key",
    "energy_bin_count",
    "jump_bin_key",
    "jump_bin_count",
)


def bin_index(values: np.ndarray) -> np.ndarray:
    """Histogram bin of each finite value (module docstring): 0 below :data:`FLOOR`, then
    :data:`BINS_PER_OCTAVE` bins per octave, the top bin for values from 2^HIGH_EXPONENT on."""
    x = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(x)  # x = mantissa 2^exponent, mantissa in [0.5, 1)
    # x in [2^(exponent-1), 2^exponent): 2 mantissa - 1 in [0, 1) is exact, so is the product
    within = np.floor((2.0 * mantissa - 1.0) * BINS_PER_OCTAVE).astype(np.int64)
    index = (exponent.astype(np.int64) - 1 - LOW_EXPONENT) * BINS_PER_OCTAVE + within + 1
    index = np.minimum(index, N_BINS - 1)
    return np.where(x < FLOOR, 0, index)


def _octave_edges(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges of bins 1 .. N_BINS - 1 as their octave gives them (bin 0 as bin 1)."""
    k = np.maximum(index - 1, 0)
    octave = np.ldexp(1.0, (k // BINS_PER_OCTAVE + LOW_EXPONENT).astype(np.int32))
    j = (k % BINS_PER_OCTAVE).astype(np.float64)
    return octave * (1.0 + j / BINS_PER_OCTAVE), octave * (1.0 + (j + 1.0) / BINS_PER_OCTAVE)


def bin_value(index: np.ndarray) -> np.ndarray:
    """The value that stands for each bin: the harmonic mean ``2ab/(a+b)`` of its edges (it is
    within :data:`RELATIVE_ERROR` of every value in the bin); 0 for bin 0."""
    index = np.asarray(index, dtype=np.int64)
    low, high = _octave_edges(index)
    return np.where(index == 0, 0.0, 2.0 * low * high / (low + high))


def bin_edges(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper edge of each bin (bin 0: ``[0, FLOOR)``; the top bin's upper edge is
    infinite)."""
    index = np.asarray(index, dtype=np.int64)
    low, high = _octave_edges(index)
    high = np.where(index == N_BINS - 1, np.inf, high)
    return np.where(index == 0, 0.0, low), np.where(index == 0, FLOOR, high)


def fixed_point(energy: np.ndarray) -> np.ndarray:
    """Energies (J, >= 0) as int64 multiples of :data:`SUM_RESOLUTION` (rounded to nearest,
    clipped to [0, :data:`SUM_LIMIT`])."""
    clipped = np.clip(np.asarray(energy, dtype=np.float64), 0.0, SUM_LIMIT)
    return np.rint(np.ldexp(clipped, SUM_BITS)).astype(np.int64)


def _segments(keys: np.ndarray) -> np.ndarray:
    """Start of every run of equal values in the sorted ``keys``."""
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return np.flatnonzero(first)


@jit
def _fmax(a: float, b: float) -> float:
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b)


@jit
def radix_order(keys: np.ndarray) -> np.ndarray:
    """The stable ascending order of non-negative int64 ``keys``: least significant digit
    first, 11 bits a pass, as many passes as the largest key needs."""
    n = keys.size
    order = np.arange(n)
    if n < 2:
        return order
    top = 0
    for t in range(n):
        top = max(top, keys[t])
    other = np.empty(n, dtype=np.int64)
    count = np.empty(2049, dtype=np.int64)
    shift = 0
    while (top >> shift) > 0:
        count[:] = 0
        for t in range(n):
            count[((keys[order[t]] >> shift) & 2047) + 1] += 1
        for d in range(2048):
            count[d + 1] += count[d]
        for t in range(n):
            d = (keys[order[t]] >> shift) & 2047
            other[count[d]] = order[t]
            count[d] += 1
        order, other = other, order
        shift += 11
    return order


@jit
def _merge_rows(
    cell: np.ndarray, count: np.ndarray, maxima: np.ndarray, sums: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows of equal ``cell`` merged: counts and limb sums added, maxima NaN-ignoring; the cells
    ascending."""
    order = radix_order(cell)
    n = cell.size
    out_cell = np.empty(n, dtype=np.int64)
    out_count = np.zeros(n, dtype=np.int64)
    out_max = np.empty((n, maxima.shape[1]))
    out_sum = np.zeros((n, 2), dtype=np.int64)
    k = -1
    for t in range(n):
        r = order[t]
        if k < 0 or cell[r] != out_cell[k]:
            k += 1
            out_cell[k] = cell[r]
            for q in range(maxima.shape[1]):
                out_max[k, q] = maxima[r, q]
        else:
            for q in range(maxima.shape[1]):
                out_max[k, q] = _fmax(out_max[k, q], maxima[r, q])
        out_count[k] += count[r]
        out_sum[k, 0] += sums[r, 0]
        out_sum[k, 1] += sums[r, 1]
    k += 1
    return out_cell[:k].copy(), out_count[:k].copy(), out_max[:k].copy(), out_sum[:k].copy()


@jit
def _merge_keys(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal ``keys`` summed: the keys ascending and their total counts."""
    order = radix_order(keys)
    n = keys.size
    out_key = np.empty(n, dtype=np.int64)
    out_count = np.zeros(n, dtype=np.int64)
    k = -1
    for t in range(n):
        r = order[t]
        if k < 0 or keys[r] != out_key[k]:
            k += 1
            out_key[k] = keys[r]
        out_count[k] += counts[r]
    k += 1
    return out_key[:k].copy(), out_count[:k].copy()


@jit
def add_rollers(
    cells: np.ndarray,
    count: np.ndarray,
    keys: np.ndarray,
    counts: np.ndarray,
    n_bins: int,
    zero_bin: int,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The jump histogram with the rollers (``rasters.with_rollers``) in one pass over the
    sorted cells and keys: each cell's keys, with the rocks that rolled (its count less those
    in its keys) put into ``zero_bin`` (the cell's lowest bin: it comes first, or joins the key
    already there). ``False`` when a key's cell is not among ``cells``."""
    out_key = np.empty(keys.size + cells.size, dtype=np.int64)
    out_count = np.empty(keys.size + cells.size, dtype=np.int64)
    n = 0
    t = 0
    for i in range(cells.size):
        cell = cells[i]
        start = t
        flew = 0
        while t < keys.size and keys[t] // n_bins == cell:
            flew += counts[t]
            t += 1
        if t < keys.size and keys[t] // n_bins < cell:
            return out_key[:0], out_count[:0], False
        rolled = count[i] - flew
        first = start
        if rolled > 0:
            key = cell * n_bins + zero_bin
            out_key[n] = key
            out_count[n] = rolled
            if start < t and keys[start] == key:
                out_count[n] += counts[start]
                first = start + 1
            n += 1
        for j in range(first, t):
            out_key[n] = keys[j]
            out_count[n] = counts[j]
            n += 1
    if t < keys.size:
        return out_key[:0], out_count[:0], False
    return out_key[:n].copy(), out_count[:n].copy(), True


@jit
def search_from(
    values: np.ndarray, targets: np.ndarray, hints: np.ndarray, right: bool
) -> np.ndarray:
    """``np.searchsorted(values, targets, side="right" if right else "left")`` of the
    non-decreasing ``values``, each search walking from its index in ``hints`` (the start of
    its cell's entries, a few entries before the answer) instead of bisecting the whole array;
    the same indices whatever the hints."""
    n = values.size
    out = np.empty(targets.size, dtype=np.int64)
    for s in range(targets.size):
        t = min(max(hints[s], 0), n)
        x = targets[s]
        if right:
            while t > 0 and values[t - 1] > x:
                t -= 1
            while t < n and not values[t] > x:
                t += 1
        else:
            while t > 0 and values[t - 1] >= x:
                t -= 1
            while t < n and not values[t] >= x:
                t += 1
        out[s] = t
    return out


def load_merge() -> None:
    """Compile (or load from the cache) the compiled merges of :func:`merge_cells`."""
    empty = np.zeros(0, dtype=np.int64)
    _merge_rows(empty, empty, np.zeros((0, N_QUANTITIES)), np.zeros((0, 2), dtype=np.int64))
    _merge_keys(empty, empty)
    search_from(empty, empty, empty, True)
    add_rollers(empty, empty, empty, empty, N_BINS, 0)


def empty_cells() -> dict[str, np.ndarray]:
    """A cell reduction of no visits."""
    return {
        "cell_index": np.zeros(0, dtype=np.int64),
        "cell_count": np.zeros(0, dtype=np.int64),
        "cell_max": np.zeros((0, N_QUANTITIES)),
        "cell_energy_sum": np.zeros((0, 2), dtype=np.int64),
        "energy_bin_key": np.zeros(0, dtype=np.int64),
        "energy_bin_count": np.zeros(0, dtype=np.int64),
        "jump_bin_key": np.zeros(0, dtype=np.int64),
        "jump_bin_count": np.zeros(0, dtype=np.int64),
    }


def chunk_cells(visit_cell: np.ndarray, visit_max: np.ndarray) -> dict[str, np.ndarray]:
    """The cell reduction (:data:`CELL_FIELDS`, module docstring) of one row per (rock, cell)
    with the rock's maxima in the cell (``visit_max`` (m, 4): kinetic energy J, speed, rotation,
    jump height or NaN when the rock did not fly there)."""
    if visit_cell.size == 0:
        return empty_cells()
    cell = np.asarray(visit_cell, dtype=np.int64)
    ones = np.ones(cell.size, dtype=np.int64)
    q = fixed_point(visit_max[:, Q_ENERGY])
    limbs = np.column_stack([q >> _LIMB, q & _LOW_MASK])
    jump = visit_max[:, Q_JUMP]
    flew = np.isfinite(jump)
    energy_key = cell * N_BINS + bin_index(visit_max[:, Q_ENERGY])
    jump_key = cell[flew] * N_BINS + bin_index(jump[flew])
    part = {
        "cell_index": cell,
        "cell_count": ones,
        "cell_max": np.asarray(visit_max, dtype=np.float64),
        "cell_energy_sum": limbs,
        "energy_bin_key": energy_key,
        "energy_bin_count": ones,
        "jump_bin_key": jump_key,
        "jump_bin_count": ones[: jump_key.size],
    }
    return merge_cells([part])


#: histogram rows from which :func:`merge_cells` merges the jump histogram on a second thread
PARALLEL_MERGE_ROWS = 1 << 15


def merge_cells(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One cell reduction from several (any order: integer sums and maxima only)."""
    parts = [p for p in parts if p["cell_index"].size]
    if not parts:
        return empty_cells()

    def cat(name: str) -> np.ndarray:
        return np.concatenate([np.asarray(p[name]) for p in parts])

    def bins(name: str) -> tuple[np.ndarray, np.ndarray]:
        return _merge_keys(
            cat(f"{name}_bin_key").astype(np.int64, copy=False),
            cat(f"{name}_bin_count").astype(np.int64, copy=False),
        )

    # the jump histogram on a second thread while this one merges the rows and the energy
    # histogram (compiled merges that release the GIL): a large merge, the run's last serial
    # step, then takes both cores
    large = sum(len(p["jump_bin_key"]) for p in parts) >= PARALLEL_MERGE_ROWS
    with ThreadPoolExecutor(max_workers=1) as pool:  # a thread starts only if submitted
        jump = pool.submit(bins, "jump") if large else None
        index, count, maxima, sums = _merge_rows(
            cat("cell_index").astype(np.int64, copy=False),
            cat("cell_count").astype(np.int64, copy=False),
            cat("cell_max").astype(np.float64, copy=False),
            cat("cell_energy_sum").astype(np.int64, copy=False),
        )
        out = {"cell_index": index, "cell_count": count, "cell_max": maxima}
        out["cell_energy_sum"] = sums
        out["energy_bin_key"], out["energy_bin_count"] = bins("energy")
        out["jump_bin_key"], out["jump_bin_count"] = jump.result() if jump else bins("jump")
    return out


def cell_size(part: dict[str, np.ndarray]) -> int:
    """Rows of a cell reduction (cells plus histogram entries), the measure of its memory."""
    return int(part["cell_index"].size + part["energy_bin_key"].size + part["jump_bin_key"].size)


#: rows of cell reductions that may wait unmerged (about 40 MB): below it a run merges its
#: chunks once, at the end
MERGE_ROWS = 1 << 20


class CellMerger:
    """Cell reductions merged as they arrive, in any order; :meth:`result` is the merge of all.

    Reductions wait in a list until they hold as many rows as the merged ones (and at least
    ``merge_rows``), then all are merged at once, so each row takes part in a number of
    merges logarithmic in the number of chunks (the total work grows as n log n, not n^2)."""

    def __init__(self, merge_rows: int = MERGE_ROWS) -> None:
        self._merge_rows = int(merge_rows)
        self._merged = empty_cells()
        self._pending: list[dict[str, np.ndarray]] = []
        self._pending_rows = 0

    def add(self, part: dict[str, np.ndarray]) -> None:
        part = {name: np.asarray(part[name]) for name in CELL_FIELDS}
        self._pending.append(part)
        self._pending_rows += cell_size(part)
        if self._pending_rows >= max(cell_size(self._merged), self._merge_rows):
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._merged = merge_cells([self._merged, *self._pending])
            self._pending = []
            self._pending_rows = 0

    def result(self) -> dict[str, np.ndarray]:
        self._flush()
        return self._merged


#: sorted integer fields that a chunk file stores as differences (small numbers deflate well)
_DELTA_FIELDS = ("cell_index", "energy_bin_key", "jump_bin_key")


def encode_cells(chunk: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A chunk for its file: the sorted keys of its cell reduction as differences (marked by
    ``cells_encoded``); :func:`decode_cells` restores it exactly."""
    if "cell_index" not in chunk or "cells_encoded" in chunk:
        return chunk
    out = dict(chunk)
    for name in _DELTA_FIELDS:
        out[name] = np.diff(chunk[name], prepend=np.int64(0))
    out["cells_encoded"] = np.ones(1, dtype=np.int8)
    return out


def decode_cells(chunk: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The chunk of :func:`encode_cells` as it was."""
    if "cells_encoded" not in chunk:
        return chunk
    out = {name: value for name, value in chunk.items() if name != "cells_encoded"}
    for name in _DELTA_FIELDS:
        out[name] = np.cumsum(chunk[name], dtype=np.int64)
    return out


def bin_percentile(
    cells: np.ndarray,
    keys: np.ndarray,
    counts: np.ndarray,
    q: float,
    largest: np.ndarray | None = None,
) -> np.ndarray:
    """Percentile ``q`` (0-100, linear interpolation as numpy's default) of the values of each
    of the sorted ``cells`` from the histogram ``keys`` (``cell * N_BINS + bin``, sorted) and
    ``counts``; NaN for a cell without values. Within :data:`RELATIVE_ERROR` of the exact
    percentile (module docstring). ``largest``: each cell's exact largest value, which then
    stands for the top rank (a cell of one value gets it exactly) and bounds the result."""
    out = np.full(cells.size, np.nan)
    if keys.size == 0:
        return out
    owner = keys // N_BINS
    starts = _segments(owner)
    total = np.add.reduceat(counts, starts)
    cumulative = np.cumsum(counts)
    before = cumulative[starts] - counts[starts]
    pos = q / 100.0 * (total - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, total - 1)
    frac = pos - lo
    # the entry holding the value of rank r (0-based) of its cell: first cumulative count > r
    a = bin_value(keys[search_from(cumulative, before + lo, starts, True)] % N_BINS)
    b = bin_value(keys[search_from(cumulative, before + hi, starts, True)] % N_BINS)
    at = np.searchsorted(cells, owner[starts])
    if largest is not None:
        top = np.asarray(largest, dtype=np.float64)[at]
        a = np.minimum(np.where(lo == total - 1, top, a), top)
        b = np.minimum(np.where(hi == total - 1, top, b), top)
    value = np.where(frac >= 0.5, b - (b - a) * (1.0 - frac), a + (b - a) * frac)
    out[at] = value
    return out


def energy_mean(merged: dict[str, np.ndarray]) -> np.ndarray:
    """Mean of the rocks' maximum kinetic energy per cell of a merged reduction, J."""
    limbs = merged["cell_energy_sum"]
    total = np.ldexp(limbs[:, 0].astype(np.float64), _LIMB - SUM_BITS) + np.ldexp(
        limbs[:, 1].astype(np.float64), -SUM_BITS
    )
    return total / merged["cell_count"]
