"""Reductions of an ensemble's per-rock outputs against numpy and hand-made cases: the merge of
per-rock path statistics (Chan et al. 1983), per-cell percentiles, the hazard rasters of a tiny
grid, run-out and lateral offsets, and the pixel of a point."""

import math

import numpy as np
import pytest

from tumble.rockfall.ensemble.kernels import (
    Q_ENERGY,
    Q_JUMP,
    Q_ROTATION,
    Q_SPEED,
    W_COUNT,
    W_M2,
    W_MEAN,
)
from tumble.rockfall.ensemble.rasters import (
    cell_percentile,
    nearest_cells,
    rasters_from_visits,
)
from tumble.rockfall.ensemble.reduce import combine_path, runout_and_lateral
from tumble.rockfall.terrain import Terrain

# --- combine_path: Chan's merge of (count, mean, M2) ------------------------------------------


def welford_row(samples):
    """The per-rock accumulator (count, mean, sum of squared deviations) of the samples, in the
    W_* column layout; zeros for no samples (as the kernel initialises it)."""
    row = np.zeros(3)
    if len(samples):
        row[W_COUNT] = len(samples)
        row[W_MEAN] = np.mean(samples)
        row[W_M2] = np.sum((samples - np.mean(samples)) ** 2)
    return row


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_combine_path_equals_the_pooled_samples(seed):
    """Groups of 0 to 40 samples with different means and spreads (one empty group forced):
    the merged mean and population std equal numpy's over all samples pooled (rel. 1e-12),
    and the count is the total."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 41, size=12)
    sizes[3] = 0
    groups = [rng.normal(rng.uniform(-50, 50), rng.uniform(0.1, 20), size=k) for k in sizes]
    path = np.array([welford_row(g) for g in groups])
    pooled = np.concatenate(groups)
    mean, std, count = combine_path(path)
    assert count == pooled.size
    assert mean == pytest.approx(np.mean(pooled), rel=1e-12)
    assert std == pytest.approx(np.std(pooled), rel=1e-12)


def test_combine_path_by_hand():
    """Groups {1, 3} (n 2, mean 2, M2 2) and {6} (n 1, mean 6, M2 0); pooled {1, 3, 6} has the
    mean 10/3. Chan: M2 = 2 + 0 + 2 (2 - 10/3)^2 + 1 (6 - 10/3)^2 = 2 + 32/9 + 64/9 = 38/3,
    the same as the direct sum (49 + 1 + 64)/9 = 38/3, so std = sqrt(M2 / 3) = sqrt(38)/3.
    A third, empty group changes nothing. Tolerance 1e-15."""
    path = np.zeros((3, 3))
    path[0, [W_COUNT, W_MEAN, W_M2]] = 2.0, 2.0, 2.0
    path[1, [W_COUNT, W_MEAN, W_M2]] = 1.0, 6.0, 0.0
    mean, std, count = combine_path(path)
    assert count == 3
    assert mean == pytest.approx(10.0 / 3.0, abs=1e-15)
    assert std == pytest.approx(math.sqrt(38.0) / 3.0, abs=1e-15)
    assert std == pytest.approx(np.std([1.0, 3.0, 6.0]), abs=1e-15)


def test_combine_path_without_samples_is_nan():
    mean, std, count = combine_path(np.zeros((4, 3)))
    assert count == 0
    assert math.isnan(mean) and math.isnan(std)


# --- cell_percentile ---------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0.0, 37.5, 50.0, 95.0, 99.0, 100.0])
def test_cell_percentile_equals_numpy_per_cell(q):
    """300 values in 7 cells in random order with 10% NaN: every cell equals np.percentile (the
    default linear method) of its finite values (rel. 1e-13); cell 5 gets no value and cell 6
    only NaN, both NaN."""
    rng = np.random.default_rng(7)
    cells = rng.integers(0, 5, size=300)
    values = rng.lognormal(3.0, 1.0, size=300)
    values[rng.random(300) < 0.1] = np.nan
    cells = np.append(cells, [6, 6])
    values = np.append(values, [np.nan, np.nan])
    out = cell_percentile(cells, values, q, 7)
    assert out.shape == (7,)
    for c in range(5):
        mine = values[(cells == c) & np.isfinite(values)]
        assert out[c] == pytest.approx(np.percentile(mine, q), rel=1e-13)
    assert np.isnan(out[5]) and np.isnan(out[6])


def test_cell_percentile_by_hand():
    """Cell 0 holds {4, 1, 3, 2} (unsorted): p95 at position 0.95 * 3 = 2.85 of the sorted
    values is 3 + 0.85 (4 - 3) = 3.85; cell 1 holds {10}: 10. Tolerance 1e-15."""
    cells = np.array([0, 1, 0, 0, 0])
    values = np.array([4.0, 10.0, 1.0, 3.0, 2.0])
    np.testing.assert_allclose(cell_percentile(cells, values, 95.0, 2), [3.85, 10.0], atol=1e-15)


# --- rasters_from_visits on a 2 x 3 grid ------------------------------------------------------


def visits():
    """Three rocks on a 2 x 3 grid (cell = j * 3 + i), one row per (rock, cell) with the rock's
    maxima there: kinetic energy (J), speed (m/s), rotation (rot/s), jump height (m, NaN when
    the rock only rolled there). Rows are deliberately not sorted.

    rock 0: cell 0 (1000 J, 5, 1.0, NaN), cell 1 (4000 J, 9, 2.0, 0.5), cell 4 (2000 J, 6, 1.5,
            NaN); stopped in cell 4
    rock 1: cell 0 (3000 J, 7, 0.5, 1.0), cell 3 (500 J, 2, 0.2, NaN); stopped in cell 3
    rock 2: cell 0 (2000 J, 6, 3.0, 2.0), cell 1 (1000 J, 4, 1.0, NaN); left the DEM
    cells 2 and 5: nobody."""
    nan = np.nan
    rows = [
        (2, 1, (1000.0, 4.0, 1.0, nan)),
        (0, 4, (2000.0, 6.0, 1.5, nan)),
        (1, 0, (3000.0, 7.0, 0.5, 1.0)),
        (0, 0, (1000.0, 5.0, 1.0, nan)),
        (2, 0, (2000.0, 6.0, 3.0, 2.0)),
        (0, 1, (4000.0, 9.0, 2.0, 0.5)),
        (1, 3, (500.0, 2.0, 0.2, nan)),
    ]
    rock = np.array([r for r, _, _ in rows])
    cell = np.array([c for _, c, _ in rows])
    value = np.empty((len(rows), 4))
    for k, (_, _, (energy, speed, rotation, jump)) in enumerate(rows):
        value[k, Q_ENERGY] = energy
        value[k, Q_SPEED] = speed
        value[k, Q_ROTATION] = rotation
        value[k, Q_JUMP] = jump
    return rock, cell, value


def test_rasters_from_visits_on_a_tiny_grid():
    """The rasters of the hand-made visits (2 rows x 3 columns, row j = cell // 3):

    passing_count  [[3, 2, 0], [1, 1, 0]]  (cell 0: rocks 0, 1, 2; cell 1: rocks 0, 2)
    reach          passing / 3
    deposit_count  [[0, 0, 0], [1, 1, 0]]  (the rock that left has no deposit, cell -1)
    energy max kJ  [[3, 4, -], [0.5, 2, -]]
    energy mean kJ [[(1 + 3 + 2)/3 = 2, (4 + 1)/2 = 2.5, -], [0.5, 2, -]]
    energy p95 kJ  cell 0, sorted {1, 2, 3}: position 0.95 * 2 = 1.9, 2 + 0.9 = 2.9;
                   cell 1, {1, 4}: 1 + 0.95 * 3 = 3.85; single values stay
    energy p99 kJ  2 + 0.98 = 2.98; 1 + 0.99 * 3 = 3.97
    velocity max   [[7, 9, -], [2, 6, -]]
    rotation max   [[3, 2, -], [0.2, 1.5, -]]
    jump max       [[2, 0.5, -], [-, -, -]]  (NaN jumps are left out; all-NaN cells are NaN)
    jump p95       cell 0 {1, 2}: 1 + 0.95 = 1.95; cell 1: 0.5
    '-' is NaN (nobody passed, or no flight). Tolerance 1e-12."""
    nan = np.nan
    rock, cell, value = visits()
    r = rasters_from_visits((2, 3), 3, rock, cell, value, np.array([4, 3, -1]))
    expected = {
        "passing_count": [[3, 2, 0], [1, 1, 0]],
        "reach_probability": [[1.0, 2 / 3, 0.0], [1 / 3, 1 / 3, 0.0]],
        "deposit_count": [[0, 0, 0], [1, 1, 0]],
        "kinetic_energy_max": [[3.0, 4.0, nan], [0.5, 2.0, nan]],
        "kinetic_energy_mean": [[2.0, 2.5, nan], [0.5, 2.0, nan]],
        "kinetic_energy_p95": [[2.9, 3.85, nan], [0.5, 2.0, nan]],
        "kinetic_energy_p99": [[2.98, 3.97, nan], [0.5, 2.0, nan]],
        "velocity_max": [[7.0, 9.0, nan], [2.0, 6.0, nan]],
        "rotational_velocity_max": [[3.0, 2.0, nan], [0.2, 1.5, nan]],
        "jump_height_max": [[2.0, 0.5, nan], [nan, nan, nan]],
        "jump_height_p95": [[1.95, 0.5, nan], [nan, nan, nan]],
    }
    assert set(r) == set(expected)
    for name, grid in expected.items():
        assert r[name].shape == (2, 3), name
        np.testing.assert_allclose(r[name], grid, atol=1e-12, err_msg=name)


def test_rasters_do_not_depend_on_the_order_of_the_visits():
    """The same visits in reverse order give bit-identical rasters (canonical ordering)."""
    rock, cell, value = visits()
    a = rasters_from_visits((2, 3), 3, rock, cell, value, np.array([4, 3, -1]))
    b = rasters_from_visits((2, 3), 3, rock[::-1], cell[::-1], value[::-1], np.array([4, 3, -1]))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


# --- run-out and lateral offset ---------------------------------------------------------------


def test_runout_and_lateral_along_x():
    """Releases at (100, 50, z), moves (10, 2), (10, -2), (5, 0) (the z column is ignored):
    the unit vectors (10, +-2)/sqrt(104) and (1, 0) average to a direction along +x, so the
    lateral offsets are +2 (left of +x is +y), -2 and 0; run-outs sqrt(104), sqrt(104), 5 (the
    horizontal distance, although z drops by 40 m). Tolerance 1e-12."""
    release = np.array([[100.0, 50.0, 60.0]] * 3)
    final = release + np.array([[10.0, 2.0, -40.0], [10.0, -2.0, -40.0], [5.0, 0.0, -40.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [math.sqrt(104.0), math.sqrt(104.0), 5.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [2.0, -2.0, 0.0], atol=1e-12)


def test_runout_and_lateral_along_y_with_a_rock_at_rest():
    """Moves (-3, 10), (3, 10) and (0, 0): the mean direction is +y (the rock that did not move
    is left out of it; its run-out and offset are 0). Left of +y is -x, so (-3, 10) has the
    offset +3 and (3, 10) has -3; run-outs sqrt(109), sqrt(109), 0. Tolerance 1e-12."""
    release = np.array([[0.0, 0.0], [20.0, -5.0], [7.0, 7.0]])
    final = release + np.array([[-3.0, 10.0], [3.0, 10.0], [0.0, 0.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [math.sqrt(109.0), math.sqrt(109.0), 0.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [3.0, -3.0, 0.0], atol=1e-12)


def test_runout_and_lateral_oblique_direction():
    """Moves (3, 4) and (4, 3): unit vectors (0.6, 0.8) and (0.8, 0.6) average to (0.7, 0.7),
    direction (1, 1)/sqrt 2; offsets dir_x d_y - dir_y d_x = (4 - 3)/sqrt 2 and
    (3 - 4)/sqrt 2 = +-0.70711; run-outs 5. Tolerance 1e-12."""
    release = np.zeros((2, 2))
    final = np.array([[3.0, 4.0], [4.0, 3.0]])
    runout, lateral = runout_and_lateral(release, final)
    np.testing.assert_allclose(runout, [5.0, 5.0], atol=1e-12)
    np.testing.assert_allclose(lateral, [1.0 / math.sqrt(2.0), -1.0 / math.sqrt(2.0)], atol=1e-12)


# --- nearest_cells -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def grid_2x3():
    """Samples at x = 100, 110, 120 (dx 10) and y = 200, 205 (dy 5): pixel (j, i) covers
    [x0 + (i - 1/2) dx, x0 + (i + 1/2) dx) x [y0 + (j - 1/2) dy, y0 + (j + 1/2) dy)."""
    return Terrain.from_array(np.zeros((2, 3)), x0=100.0, y0=200.0, dx=10.0, dy=5.0)


def test_nearest_cells_at_pixel_centres(grid_2x3):
    """The sample (j, i) itself is in cell j * 3 + i."""
    xs, ys = np.meshgrid([100.0, 110.0, 120.0], [200.0, 205.0])
    np.testing.assert_array_equal(nearest_cells(grid_2x3, xs.ravel(), ys.ravel()), range(6))


def test_nearest_cells_at_pixel_edges(grid_2x3):
    """Half-open pixels: the edge between samples belongs to the higher index (x = 105 is cell
    1, x = 104.999 cell 0); the outer pixel edges x = 95, y = 197.5 are inside (cell 0), while
    x = 125 (right edge of the last pixel), y = 207.5, x = 94.999 and y = 197.499 are off the
    grid (-1)."""
    x = np.array([105.0, 104.999, 95.0, 100.0, 125.0, 124.999, 94.999, 100.0, 100.0, 100.0])
    y = np.array([200.0, 200.0, 197.5, 202.5, 200.0, 205.0, 200.0, 207.5, 197.499, 207.499])
    expected = [1, 0, 0, 3, -1, 5, -1, -1, -1, 3]
    np.testing.assert_array_equal(nearest_cells(grid_2x3, x, y), expected)
