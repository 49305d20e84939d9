"""Rock-tree impacts (tumble.rockfall.forest): the energy one stem takes against the published
curve, the rate of impacts in a stand against its formula (Monte Carlo), single trees against the
equivalent stand, and a 38 degree slope with a forest band."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.forest import Forest, rock_diameter, rock_keys, stem_capacity_J
from tumble.rockfall.release import Release
from tumble.rockfall.step.model import S_R, S_V, STATE_SIZE
from tumble.rockfall.step.trees import (
    F_DEPTH,
    F_ENERGY,
    F_IMPACTS,
    F_STEM_R,
    F_STEM_X,
    F_STEM_Y,
    F_X,
    F_Y,
    N_FOREST,
    forest_step,
    impact,
    start_forest,
    stem_capacity,
    uniform,
)


def test_stem_capacity_is_dorren_berger_2006():
    # FE = 38.7 DBH^2.31 J, DBH in cm; by hand: 30^2.31 = exp(2.31 ln 30) = 2581.2
    assert stem_capacity(0.30, 1.0) == pytest.approx(38.7 * math.exp(2.31 * math.log(30.0)))
    assert stem_capacity(0.30, 1.0) == pytest.approx(99.89e3, rel=1e-3)
    assert stem_capacity(0.30, 1.5) == pytest.approx(1.5 * 99.89e3, rel=1e-3)
    assert stem_capacity_J(30.0) == pytest.approx(stem_capacity(0.30, 1.0))


def _moving(vx, vy, vz=0.0):
    state = np.zeros(STATE_SIZE)
    state[S_V : S_V + 3] = (vx, vy, vz)
    return state


def test_central_impact_on_a_stem_that_breaks_removes_its_capacity():
    mass = 1000.0
    state = _moving(20.0, 0.0, -1.0)  # 200 kJ along x, 0.5 kJ down
    before = 0.5 * mass * (state[S_V : S_V + 3] ** 2).sum()
    capacity = stem_capacity(0.30, 1.0)
    taken = impact(state, mass, -1.0, 0.0, capacity)
    after = 0.5 * mass * (state[S_V : S_V + 3] ** 2).sum()
    assert taken == pytest.approx(-capacity)  # negative: the stem broke
    assert before - after == pytest.approx(capacity, rel=1e-12)
    assert state[S_V + 1] == 0.0 and state[S_V + 2] == -1.0  # direction kept, vertical kept


def test_a_stem_that_holds_stops_the_normal_motion_and_keeps_the_tangential():
    mass = 1000.0
    b = 0.6  # the stem's axis 0.6 (D + d) / 2 off the rock's path
    state = _moving(10.0, 0.0)  # 50 kJ < FE(30 cm)
    normal = (-math.sqrt(1.0 - b * b), b)  # from the stem's axis to the rock's centre
    taken = impact(state, mass, normal[0], normal[1], stem_capacity(0.30, 1.0))
    # the energy of the normal component, E (1 - b^2), is taken; the rock glances off
    assert taken == pytest.approx(50e3 * (1.0 - b * b))
    assert 0.5 * mass * (state[S_V] ** 2 + state[S_V + 1] ** 2) == pytest.approx(50e3 * b * b)
    assert state[S_V] * normal[0] + state[S_V + 1] * normal[1] == pytest.approx(0.0, abs=1e-12)


def test_random_streams_are_uniform_and_per_rock():
    keys = rock_keys(5, 3)
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 3
    assert np.array_equal(rock_keys(5, 3), keys) and not np.array_equal(rock_keys(6, 3), keys)
    u = np.array([uniform(keys[0], k) for k in range(20000)])
    assert u.min() > 0.0 and u.max() < 1.0
    assert u.mean() == pytest.approx(0.5, abs=4 * 0.289 / math.sqrt(u.size))


FLAT = Terrain.from_array(np.zeros((3, 2201)), x0=0.0, y0=-20.0, dx=20.0)


def _straight_line_impacts(forest, y, length, diameter, key):
    """Move a rock along x at height 0.5 m over FLAT in 0.25 m steps through stems that break
    at once (energy factor 1e-12, so the rock's path stays straight); its impacts."""
    params, density, dbh, factor, xy, tdbh, tfactor, start = forest.pack()
    heights = np.ascontiguousarray(FLAT.heights)
    grid = np.array([FLAT.x0, FLAT.y0, FLAT.dx, FLAT.dy])
    state = _moving(10.0, 0.0)
    state[S_R : S_R + 3] = (0.0, y, 0.5)
    fstate = np.zeros(N_FOREST)
    broken = np.zeros(forest.n_trees, dtype=np.bool_)
    cells = np.zeros(0, dtype=np.int64)
    start_forest(state, np.uint64(key), fstate)
    x = 0.0
    while x < length:
        x += 0.25
        state[S_R] = x
        state[S_V : S_V + 3] = (10.0, 0.0, 0.0)
        forest_step(
            params, density, dbh, factor, xy, tdbh, tfactor, start, heights, grid, state,
            1000.0, diameter, np.uint64(key), fstate, broken, cells,
        )  # fmt: skip
    return int(fstate[F_IMPACTS])


def test_impact_rate_in_a_stand_is_n_times_d_plus_D():
    # 500 stems/ha (0.05 /m^2), DBH 30 cm, a rock of 1 m: 0.065 impacts per metre
    forest = Forest.stand(FLAT, 500.0, 30.0, energy_factor=1e-12)
    rate = 0.05 * (0.30 + 1.0)
    keys = rock_keys(1, 4)
    impacts = sum(_straight_line_impacts(forest, 0.0, 10_000.0, 1.0, k) for k in keys)
    expected = rate * 40_000.0  # 2600 impacts, Poisson sd 51
    assert abs(impacts - expected) < 4.0 * math.sqrt(expected)


def test_single_trees_and_the_equivalent_stand_meet_the_rock_as_often():
    # 500 stems/ha at random positions over 2 km x 40 m, DBH 30 cm; ten straight passes
    rng = np.random.default_rng(2)
    n = int(0.05 * 2000.0 * 40.0)
    trees = Forest.trees(
        FLAT, rng.uniform(0.0, 2000.0, n), rng.uniform(-20.0, 20.0, n), 30.0, energy_factor=1e-12
    )
    stand = Forest.stand(FLAT, 500.0, 30.0, energy_factor=1e-12)
    keys = rock_keys(3, 10)
    ys = np.linspace(-15.0, 15.0, 10)
    single = sum(
        _straight_line_impacts(trees, y, 1990.0, 1.0, k) for y, k in zip(ys, keys, strict=True)
    )
    inventory = sum(
        _straight_line_impacts(stand, y, 1990.0, 1.0, k) for y, k in zip(ys, keys, strict=True)
    )
    expected = 0.05 * 1.30 * 1990.0 * 10  # 1294
    # both Poisson counts of the same mean: within 4 sd of it, and of each other
    assert abs(single - expected) < 4.0 * math.sqrt(expected)
    assert abs(inventory - expected) < 4.0 * math.sqrt(expected)


def _stand_step(forest, state, fstate, diameter=1.0, mass=1000.0):
    params, density, dbh, factor, xy, tdbh, tfactor, start = forest.pack()
    heights = np.ascontiguousarray(FLAT.heights)
    grid = np.array([FLAT.x0, FLAT.y0, FLAT.dx, FLAT.dy])
    cells = np.zeros(0, dtype=np.int64)
    broken = np.zeros(0, dtype=np.bool_)
    forest_step(
        params, density, dbh, factor, xy, tdbh, tfactor, start, heights, grid, state,
        mass, diameter, np.uint64(7), fstate, broken, cells,
    )  # fmt: skip


def test_a_stand_s_stem_that_held_holds_the_rock_leaning_on_it():
    """An impact in a stand (the encounter depth used up) on a rock moving along x at 5 m/s:
    the stem holds (12.5 kJ < FE(30 cm)) and stays (D + d) / 2 = 0.65 m from the rock's centre,
    where the drawn impact position puts it. Pushed on towards it (as gravity would push a rock
    that leans on it), the rock is held again: its motion towards the stem is taken, its motion
    along the stem kept, and no new impact is counted; once its centre lies beyond 0.65 m of the
    axis the stem is gone."""
    forest = Forest.stand(FLAT, 500.0, 30.0)
    state = _moving(5.0, 0.0)
    state[S_R : S_R + 3] = (100.0, 0.0, 0.5)
    fstate = np.zeros(N_FOREST)
    start_forest(state, np.uint64(7), fstate)
    fstate[F_DEPTH] = 1e-9  # the next step meets a stem
    state[S_R] += 0.01
    _stand_step(forest, state, fstate)
    assert fstate[F_IMPACTS] == 1 and fstate[F_STEM_R] == pytest.approx(0.65)
    axis = np.array([fstate[F_STEM_X], fstate[F_STEM_Y]])
    assert np.hypot(*(axis - state[S_R : S_R + 2])) == pytest.approx(0.65, rel=1e-12)
    taken = fstate[F_ENERGY]
    assert taken > 0.0
    # pushed 1 cm on towards the stem with 1 m/s along x and 0.5 m/s across
    state[S_R : S_R + 2] += 0.01 * (axis - state[S_R : S_R + 2]) / 0.65
    state[S_V : S_V + 2] = (1.0, 0.5)
    depth = fstate[F_DEPTH]
    _stand_step(forest, state, fstate)
    normal = (state[S_R : S_R + 2] - axis) / np.hypot(*(state[S_R : S_R + 2] - axis))
    assert state[S_V] * normal[0] + state[S_V + 1] * normal[1] == pytest.approx(0.0, abs=1e-12)
    assert fstate[F_IMPACTS] == 1 and fstate[F_ENERGY] > taken
    assert fstate[F_DEPTH] == depth  # held: no encounter drawn meanwhile
    # moved out of the stem's reach: forgotten
    state[S_R : S_R + 2] = axis + 0.7 * normal
    state[S_V : S_V + 2] = -normal
    fstate[F_DEPTH] = 1e9
    _stand_step(forest, state, fstate)
    assert fstate[F_STEM_R] == 0.0 and fstate[F_IMPACTS] == 1
    assert (fstate[F_X], fstate[F_Y]) == tuple(state[S_R : S_R + 2])


def test_rock_diameter_is_that_of_the_sphere_of_equal_volume():
    assert rock_diameter(math.pi / 6.0) == pytest.approx(1.0)


def test_bad_forest_inputs_are_refused():
    with pytest.raises(ValueError, match="negative"):
        Forest.stand(FLAT, -1.0, 30.0)
    with pytest.raises(ValueError, match="outside the DEM"):
        Forest.trees(FLAT, [1e6], [0.0], 30.0)
    with pytest.raises(ValueError, match="positive DBH"):
        Forest.trees(FLAT, [10.0], [0.0], 0.0)


# --- a 38 degree slope with a forest band (benchmarks/forest_runout.py) --------------------------


def _slope_run(stems_per_ha, rocks=40, chunks=None):
    x = np.arange(141.0)
    z = np.maximum(80.0 - x, 0.0) * math.tan(math.radians(38.0))
    terrain = Terrain.from_array(np.broadcast_to(z, (41, 141)), x0=0.0, y0=-20.0, dx=1.0)
    band = np.broadcast_to((x >= 20.0) & (x <= 80.0), (41, 141))
    forest = (
        Forest.stand(terrain, np.where(band, stems_per_ha, 0.0), 30.0) if stems_per_ha else None
    )
    release = Release(point=(5.0, 0.0), height=1.0, speed_downslope=1.0)
    return Ensemble(
        terrain,
        Rock.eota221(mass=1400.0),
        Soil.preset("medium"),
        release.draw(terrain, rocks, 3),
        seed=3,
        t_max=60.0,
        forest=forest,
    )


def test_runout_shrinks_with_stem_density_and_no_rock_creeps():
    medians = []
    for n in (0.0, 300.0, 900.0):
        summary = _slope_run(n).run().summary
        assert summary["fractions"]["timed_out"] <= 0.01
        medians.append(summary["runout_m"]["p50"])
    assert medians[0] > medians[1] > medians[2]


def test_forest_results_do_not_depend_on_chunks_and_replay_alone():
    ensemble = _slope_run(900.0, rocks=8)
    whole = ensemble.run_chunk(0, 8)
    parts = [ensemble.run_chunk(0, 3, threads=1), ensemble.run_chunk(3, 8)]
    assert np.array_equal(whole["tree_impacts"], np.concatenate([p["tree_impacts"] for p in parts]))
    assert np.array_equal(whole["final_state"], np.concatenate([p["final_state"] for p in parts]))
    assert whole["tree_impacts"].sum() > 0
    alone = ensemble.trajectory(5)
    assert alone.tree_impacts == whole["tree_impacts"][5]
    assert np.array_equal(alone.position[-1], whole["final_state"][5, S_R : S_R + 3])


def test_the_forest_of_single_trees_is_the_cells_with_a_stem_or_next_to_one():
    """Two stems on a 10 x 12 grid of 1 m cells, one at the grid's edge: the forest is the 3 x 3
    block around each stem's cell, cut at the edge (9 + 6 cells), and a rock at rest across a
    cell edge from a stem is in it."""
    terrain = Terrain.from_array(np.zeros((10, 12)), dx=1.0)
    forest = Forest.trees(terrain, [5.0, 0.0], [4.0, 7.0], [30.0, 30.0])
    mask = forest.forest_mask()
    expected = np.zeros((10, 12), dtype=bool)
    expected[3:6, 4:7] = True
    expected[6:9, 0:2] = True
    np.testing.assert_array_equal(mask, expected)
    assert forest.describe()["forest_cells"] == 15
