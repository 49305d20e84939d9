"""Per-cell rasters of an ensemble (tumble.rockfall.ensemble.rasters) against numpy and hand-made
cases: per-cell percentiles, the hazard rasters of a tiny grid, and the pixel of a point."""

import numpy as np
import pytest

from tumble.rockfall.ensemble.rasters import cell_percentile, nearest_cells, rasters_from_visits
from tumble.rockfall.ensemble.record import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED
from tumble.rockfall.terrain import Terrain

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
    jump max       [[2, 0.5, -], [0, 0, -]]  (a rock that only rolled in a cell jumped 0 there)
    jump p95       cell 0 {0, 1, 2}: 1 + 0.9 = 1.9; cell 1 {0, 0.5}: 0.95 * 0.5 = 0.475
    jump normal    NaN without a terrain (test_jump_heights_normal_to_a_plane)
    '-' is NaN (nobody passed). Tolerance 1e-12."""
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
        "jump_height_max": [[2.0, 0.5, nan], [0.0, 0.0, nan]],
        "jump_height_p95": [[1.9, 0.475, nan], [0.0, 0.0, nan]],
        "jump_height_normal_max": [[nan] * 3] * 2,
        "jump_height_normal_p95": [[nan] * 3] * 2,
    }
    intervals = {
        "reach_probability_low",
        "reach_probability_high",
        "kinetic_energy_p95_low",
        "kinetic_energy_p95_high",
        "energy_line_angle",
    }
    assert set(r) == set(expected) | intervals
    for name, grid in expected.items():
        assert r[name].shape == (2, 3), name
        np.testing.assert_allclose(r[name], grid, atol=1e-12, err_msg=name)


@pytest.mark.parametrize(("slope_x", "slope_y"), [(30.0, 0.0), (35.0, 20.0)])
def test_jump_heights_normal_to_a_plane(slope_x, slope_y):
    """On the plane z = -tan(a) x - tan(b) y the jump heights normal to it are the vertical
    ones times cos(slope) = 1 / sqrt(1 + tan(a)^2 + tan(b)^2) in every reached cell (0 where the
    rocks rolled), to 1e-12; the same with a nodata sample beside the cells (one-sided slopes,
    still exact on a plane)."""
    rock, cell, value = visits()
    x, y = np.meshgrid(100.0 + 10.0 * np.arange(3), 200.0 + 5.0 * np.arange(3))
    tx, ty = np.tan(np.radians(slope_x)), np.tan(np.radians(slope_y))
    heights = -tx * x - ty * y
    cosine = 1.0 / np.sqrt(1.0 + tx**2 + ty**2)
    for holes in (False, True):
        z = heights.copy()
        if holes:
            z[2, 1] = np.nan  # above cell 4: its slope along y is the one-sided one
        terrain = Terrain.from_array(z, x0=100.0, y0=200.0, dx=10.0, dy=5.0)
        shape = (2, 3)
        r = rasters_from_visits(shape, 3, rock, cell, value, np.array([4, 3, -1]), None, terrain)
        for kind in ("max", "p95"):
            vertical, normal = r[f"jump_height_{kind}"], r[f"jump_height_normal_{kind}"]
            assert np.array_equal(np.isnan(vertical), np.isnan(normal))
            ok = np.isfinite(vertical)
            np.testing.assert_allclose(normal[ok], vertical[ok] * cosine, rtol=1e-12, atol=0)
        assert r["jump_height_normal_max"][0, 0] == pytest.approx(2.0 * cosine, rel=1e-12)


def test_slope_cosines_of_a_plane_with_a_hole_and_edges():
    """slope_cosines over the whole grid of a 20 degree plane along x: cos 20 degrees at every
    sample with data (edges and beside a hole included, 1e-12), NaN in the hole."""
    from tumble.rockfall.ensemble.rasters import Window, slope_cosines

    x = np.arange(6.0) * 2.0
    z = np.tile(-np.tan(np.radians(20.0)) * x, (4, 1))
    z[1, 2] = np.nan
    cosine = slope_cosines(z, 2.0, 2.0, Window(0, 4, 0, 6))
    assert np.isnan(cosine[1, 2]) and np.isfinite(cosine).sum() == 23
    ok = np.isfinite(cosine)
    np.testing.assert_allclose(cosine[ok], np.cos(np.radians(20.0)), rtol=1e-12)
    inner = slope_cosines(z, 2.0, 2.0, Window(1, 3, 1, 4))
    np.testing.assert_array_equal(inner, cosine[1:3, 1:4])


def test_rasters_do_not_depend_on_the_order_of_the_visits():
    """The same visits in reverse order give bit-identical rasters (canonical ordering)."""
    rock, cell, value = visits()
    a = rasters_from_visits((2, 3), 3, rock, cell, value, np.array([4, 3, -1]))
    b = rasters_from_visits((2, 3), 3, rock[::-1], cell[::-1], value[::-1], np.array([4, 3, -1]))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


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


def test_membership_of_windowed_rasters_builds_no_grid(monkeypatch):
    """``name in rasters`` answers from the names: a large DEM's report asks it for every map,
    and Mapping's own answer built the full-size grid each time."""
    from tumble.rockfall.ensemble.rasters import Rasters, Window

    rasters = Rasters((4000, 5000), Window(10, 12, 20, 23), {"passing_count": np.ones((2, 3))})

    def refuse(self, name):
        raise AssertionError("a full grid was built")

    monkeypatch.setattr(Rasters, "__getitem__", refuse)
    assert "passing_count" in rasters
    assert "hazard_zone" not in rasters
