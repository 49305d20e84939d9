"""The energy line (travel angle): per cell the smallest angle over the rocks, per rock from
release to stop, against the closed form on a plane and the deposits themselves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.energy_line import (
    cell_minima,
    chunk_minima,
    merge_minima,
    travel_angle,
    visit_angles,
)
from tumble.rockfall.release import Release

SLOPE = 35.0


@pytest.fixture(scope="module")
def plane_run():
    terrain = Terrain.plane(SLOPE, size=(60.0, 30.0))
    states = Release(point=(5.0, 0.0), height=1.0, speed_downslope=1.0).draw(terrain, 12, 3)
    ens = Ensemble(terrain, Rock.eota221(mass=780.0), Soil.preset("medium"), states, t_max=6.0)
    return terrain, ens, ens.run(chunk_size=5)


def test_cell_angles_on_a_plane_follow_the_closed_form(plane_run):
    """On the plane z = (lx - x) tan(a) the line from (x_k, y_k) to the cell (x, y) drops
    (x - x_k) tan(a) over hypot(x - x_k, y - y_k): its angle is atan(tan(a) cos(b)), b the
    bearing off the fall line, never above a. Per cell the raster is the smallest of these over
    the rocks that reached it (to 1e-9 degrees), cells within one DEM spacing of a rock's release
    left out for that rock."""
    terrain, ens, result = plane_run
    rock, cell, _ = ens.visits(0, ens.n_rocks)
    j, i = np.divmod(cell, terrain.shape[1])
    x, y = terrain.x0 + i * terrain.dx, terrain.y0 + j * terrain.dy
    release = ens.states.position[rock]
    dx, dy = x - release[:, 0], y - release[:, 1]
    closed = np.degrees(np.arctan2(dx * math.tan(math.radians(SLOPE)), np.hypot(dx, dy)))
    closed[np.hypot(dx, dy) < terrain.dx] = np.nan  # within one spacing of the release: left out
    expected = np.full(terrain.heights.size, np.nan)
    minima = cell_minima(cell, closed)
    expected[minima["angle_cell"]] = minima["angle_min"]
    got = result.rasters["energy_line_angle"].reshape(-1)
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    ok = np.isfinite(expected)
    np.testing.assert_allclose(got[ok], expected[ok], atol=1e-9)
    assert np.nanmax(got) <= SLOPE + 1e-9


def test_deposit_angle_is_recomputed_from_the_deposits(plane_run):
    """deposits' energy_line_angle_deg = atan2(h(release) - h(final), runout) with the terrain
    heights below both points and the table's own run-out (1e-9 degrees); on the plane it equals
    atan(tan(a) (x - x_k) / runout)."""
    terrain, _, result = plane_run
    rocks = result.rocks
    drop = terrain.height(rocks["release_x"], rocks["release_y"]) - terrain.height(
        rocks["x"], rocks["y"]
    )
    recomputed = np.degrees(np.arctan2(drop, rocks["runout_m"]))
    np.testing.assert_allclose(rocks["energy_line_angle_deg"], recomputed, atol=1e-9)
    along = rocks["x"] - rocks["release_x"]
    closed = np.degrees(np.arctan(math.tan(math.radians(SLOPE)) * along / rocks["runout_m"]))
    np.testing.assert_allclose(rocks["energy_line_angle_deg"], closed, atol=1e-9)


def test_minima_merge_in_any_order():
    """The merged minima of shuffled parts equal the minimum of all values at once."""
    rng = np.random.default_rng(1)
    cells = rng.integers(0, 40, 500)
    values = rng.normal(30.0, 5.0, 500)
    whole = cell_minima(cells, values)
    parts = [cell_minima(cells[k::7], values[k::7]) for k in range(7)]
    for order in (parts, parts[::-1]):
        merged = merge_minima(order)
        assert np.array_equal(merged["angle_cell"], whole["angle_cell"])
        assert np.array_equal(merged["angle_min"], whole["angle_min"])


def test_travel_angle_of_a_hand_example():
    """A drop of 3 m over 4 m horizontal: atan(3/4) = 36.8699 degrees."""
    assert travel_angle(0.0, 0.0, 10.0, 4.0, 0.0, 7.0) == pytest.approx(36.86989765, abs=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_chunk_minima_from_candidates_equal_the_minima_of_every_row(seed):
    """The minima from the candidate rows equal, bit for bit, cell_minima of the angles of
    every row: rocks released from shared points (equal slopes, ties), rows on the spacing,
    nearer than it and just beyond it, a release over nodata and cells over nodata."""
    rng = np.random.default_rng(seed)
    ny, nx, dx, dy = 30, 40, 2.0, 1.5
    heights = rng.uniform(0.0, 50.0, (ny, nx))
    heights[rng.random((ny, nx)) < 0.05] = np.nan
    grid = (100.0, 200.0, dx, dy)
    n_rocks = 25
    # releases on grid points (distances exactly the spacing) and off them, some shared
    i0, j0 = rng.integers(2, nx - 2, n_rocks), rng.integers(2, ny - 2, n_rocks)
    release = np.column_stack(
        [grid[0] + i0 * dx, grid[1] + j0 * dy, rng.uniform(40.0, 90.0, n_rocks)]
    )
    release[5:10] = release[0]
    release[10:12, :2] += rng.uniform(-0.5, 0.5, (2, 2))
    release[[1, 12], 2] = np.nan  # rock 1 often the first of a cell's rows
    rows = []
    for k in range(n_rocks):
        near = [(j0[k] + a) * nx + i0[k] + b for a in (-1, 0, 1) for b in (-1, 0, 1)]
        cells = np.unique(np.r_[near, rng.integers(0, nx * ny, 60)])
        rows += [(k, c) for c in cells]
    rock = np.array([r for r, _ in rows], dtype=np.int64)
    cell = np.array([c for _, c in rows], dtype=np.int64)
    by_cell = np.lexsort((rock, cell))
    whole = cell_minima(cell, visit_angles(rock, cell, release, heights, grid))
    fast = chunk_minima(rock, cell, by_cell, release, heights, grid)
    assert whole["angle_cell"].size > 100
    assert np.array_equal(fast["angle_cell"], whole["angle_cell"])
    assert np.array_equal(fast["angle_min"], whole["angle_min"])
