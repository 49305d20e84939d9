"""The compiled reduction of a chunk's visits against the numpy reduction it replaces, read in
the kernel's buffers and with the visits of the rocks one after another."""

import numpy as np
import pytest

from tumble.rockfall.ensemble.cells import CELL_FIELDS, bin_index, chunk_cells
from tumble.rockfall.ensemble.visits import bin_of_bits, reduce_visits


def _merge_visits(rock, cell, value):
    """One row per (rock, cell), the maxima over its visits, sorted by rock and cell: numpy."""
    if rock.size == 0:
        return rock, cell, value
    order = np.lexsort((cell, rock))
    rock, cell, value = rock[order], cell[order], value[order]
    first = np.r_[True, (rock[1:] != rock[:-1]) | (cell[1:] != cell[:-1])]
    starts = np.flatnonzero(first)
    return rock[starts], cell[starts], np.maximum.reduceat(value, starts, axis=0)


def _buffers(rng, m, cap, cells):
    """Kernel-like buffers: visits in path order, cells revisited and shared between rocks,
    energies from 0 over twelve decades, jump heights -inf (no flight), negative or positive."""
    n_visits = rng.integers(0, cap + 1, m)
    visit_cell = rng.integers(0, cells, (m, cap))
    visit_value = np.empty((m, cap, 4))
    visit_value[..., 0] = 10.0 ** rng.uniform(-6, 6, (m, cap))
    visit_value[..., 0][rng.random((m, cap)) < 0.05] = 0.0
    visit_value[..., 1] = rng.uniform(0, 30, (m, cap))
    visit_value[..., 2] = rng.uniform(0, 8, (m, cap))
    jump = rng.uniform(-0.01, 5.0, (m, cap))
    jump[rng.random((m, cap)) < 0.3] = -np.inf
    visit_value[..., 3] = jump
    return n_visits, visit_cell, visit_value


def _reference(rocks, n_visits, visit_cell, visit_value):
    cells = [visit_cell[i, : n_visits[i]] for i in range(rocks.size)]
    values = [visit_value[i, : n_visits[i]] for i in range(rocks.size)]
    visits = _merge_visits(
        np.repeat(rocks, n_visits), np.concatenate(cells), np.concatenate(values)
    )
    visits[2][np.isneginf(visits[2])] = np.nan
    return visits, chunk_cells(visits[1], visits[2])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("m, cap, cells", [(1, 50, 10), (7, 40, 25), (60, 300, 2000), (3, 0, 5)])
def test_compiled_reduction_equals_the_numpy_one(seed, m, cap, cells):
    """Merged visits (rock-major, cells ascending) and every field of the cell reduction are
    equal, bit for bit and NaN for NaN, to _merge_visits followed by chunk_cells; left
    cell-major, the same rows in the order by_cell gives."""
    rng = np.random.default_rng(seed)
    rocks = np.arange(100, 100 + m, dtype=np.int64)
    n_visits, visit_cell, visit_value = _buffers(rng, m, cap, cells)
    (ref_rock, ref_cell, ref_max), ref_cells = _reference(rocks, n_visits, visit_cell, visit_value)
    in_buffers = reduce_visits(
        rocks, np.arange(m) * cap, n_visits, visit_cell.reshape(-1), visit_value.reshape(-1, 4)
    )
    in_turn = reduce_visits(
        rocks,
        np.r_[0, np.cumsum(n_visits)[:-1]],
        n_visits,
        np.concatenate([visit_cell[i, : n_visits[i]] for i in range(m)]),
        np.concatenate([visit_value[i, : n_visits[i]] for i in range(m)]).reshape(-1, 4),
    )
    for out in (in_buffers, in_turn):
        assert np.array_equal(out[0], ref_rock)
        assert np.array_equal(out[1], ref_cell)
        assert np.array_equal(out[2], ref_max, equal_nan=True)
        # by_cell: the same rows, cell-major (cells ascending, rocks ascending in a cell)
        by_cell = out[3]
        assert np.array_equal(np.sort(by_cell), np.arange(ref_rock.size))
        assert np.array_equal(by_cell, np.lexsort((ref_rock, ref_cell)))
        for name, value in zip(CELL_FIELDS, out[4:], strict=True):
            assert value.dtype == ref_cells[name].dtype, name
            assert np.array_equal(value, ref_cells[name], equal_nan=True), name
    # the rows left cell-major: the same rows in the order of by_cell, the same cell reduction
    by_cell = in_buffers[3]
    cell_major = reduce_visits(
        rocks,
        np.arange(m) * cap,
        n_visits,
        visit_cell.reshape(-1),
        visit_value.reshape(-1, 4),
        False,
    )
    assert np.array_equal(cell_major[0], ref_rock[by_cell])
    assert np.array_equal(cell_major[1], ref_cell[by_cell])
    assert np.array_equal(cell_major[2], ref_max[by_cell], equal_nan=True)
    assert np.array_equal(cell_major[3], np.arange(ref_rock.size))
    for mine, theirs in zip(cell_major[4:], in_buffers[4:], strict=True):
        assert np.array_equal(mine, theirs, equal_nan=True)


def test_bin_of_bits_equals_bin_index():
    """The bin of a value from its bits is numpy's bin_index (frexp's): on and next to every
    bin edge of the octaves the bins cover, below the floor, at zero and past the top bin."""
    edges = [2.0**e * (1 + j / 64) for e in range(-11, 42) for j in range(64)]
    values = np.array(
        [v for x in edges for v in (np.nextafter(x, 0), x, np.nextafter(x, np.inf))]
        + [0.0, -0.0, -1.0, 2.0**-11, 2.0**40, 2.0**45, 1e300, 5e-324]
    )
    bits = values.view(np.int64)
    assert [bin_of_bits(float(v), int(b)) for v, b in zip(values, bits, strict=True)] == list(
        bin_index(values)
    )
