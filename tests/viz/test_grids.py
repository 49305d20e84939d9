"""Grids for maps: block maxima against a loop, windows of windowed rasters against the full
grids, and the block side that fits a window in MAX_MAP_CELLS."""

import numpy as np

from tumble.rockfall.ensemble.rasters import Rasters, Window
from tumble.viz.grids import MAX_MAP_CELLS, block_max, decimation, window_values


def test_block_max_equals_a_loop_over_blocks():
    """A 7 x 10 grid with NaN cells in blocks of 3: each value the maximum of the numbers of
    its (possibly partial) block, NaN only for a block without numbers."""
    rng = np.random.default_rng(0)
    grid = rng.normal(size=(7, 10))
    grid[rng.random(grid.shape) < 0.3] = np.nan
    grid[0:3, 0:3] = np.nan
    out = block_max(grid, 3)
    assert out.shape == (3, 4)
    for b in range(3):
        for a in range(4):
            block = grid[3 * b : 3 * b + 3, 3 * a : 3 * a + 3]
            expected = np.nanmax(block) if np.isfinite(block).any() else np.nan
            assert np.array_equal(out[b, a], expected, equal_nan=True)
    assert block_max(grid, 1) is not None and np.array_equal(
        block_max(grid, 1), grid, equal_nan=True
    )


def test_decimation_fits_the_window():
    """The block side brings the longer side to at most MAX_MAP_CELLS, and is 1 when it fits."""
    assert decimation(MAX_MAP_CELLS, 10) == 1
    for side in (MAX_MAP_CELLS + 1, 4000, 8000, 12345):
        step = decimation(side, 7)
        assert -(-side // step) <= MAX_MAP_CELLS  # blocks along the longer side
        assert step == 1 or -(-side // (step - 1)) > MAX_MAP_CELLS  # the smallest such step


def test_window_values_equal_the_full_grid():
    """Windows inside, across and outside a Rasters' window equal the slices of its full grid
    (0 outside for counts, NaN for values)."""
    inner = {"passing_count": np.arange(12.0).reshape(3, 4), "velocity_max": np.ones((3, 4))}
    rasters = Rasters((10, 12), Window(2, 5, 3, 7), inner)
    for j0, j1, i0, i1 in ((2, 5, 3, 7), (0, 10, 0, 12), (4, 9, 5, 11), (6, 9, 0, 2)):
        for name in inner:
            expected = rasters[name][j0:j1, i0:i1]
            assert np.array_equal(
                window_values(rasters, name, j0, j1, i0, i1), expected, equal_nan=True
            )
    full = {name: rasters[name] for name in inner}
    assert np.array_equal(
        window_values(full, "velocity_max", 1, 4, 2, 5),
        full["velocity_max"][1:4, 2:5],
        equal_nan=True,
    )
