"""Barrier crossings inside the step and nets that act: an analytic free flight across a line,
a net that catches everything, a net that everything overtops, the ensemble agreeing with a
single rock simulated by itself, and the side the rocks come from: a line and a net on a
counter-slope, ``uphill`` given, a line across a gully."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.hazard.design import add_barrier_statistics
from tumble.rockfall.release import Release
from tumble.rockfall.step.nets import (
    CAUGHT,
    OVERTOPPED,
    PASSED,
    X_DIRECTION,
    X_GROUND,
    X_OUTCOME,
    X_T,
    X_TOP,
    X_VX,
    X_VZ,
    X_X,
    X_Y,
    X_Z,
)

G = 9.81


def test_free_flight_across_a_line_is_interpolated_exactly():
    """A box thrown horizontally at 10 m/s from 20 m at x = 5 m over flat ground crosses the
    line x = 15 m at t = 1 s, at z = 20 - g/2, with velocity (10, 0, -g): the midpoint step
    integrates a constant acceleration exactly, so only the linear interpolation of z inside one
    step (at most g dt^2 / 8 = 5e-6 m) separates the record from the analytic values."""
    terrain = Terrain.plane(0.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    line = Barrier("line", np.array([[15.0, -5.0], [15.0, 5.0]]))
    x0 = 5.0
    traj = simulate(
        terrain,
        rock,
        Soil.preset("lu2019"),
        (x0, 0.0, 20.0),
        velocity=(10.0, 0.0, 0.0),
        t_max=1.5,
        barriers=(line,),
    )
    [row] = traj.crossings
    t = (15.0 - x0) / 10.0
    assert row[X_T] == pytest.approx(1.0, abs=1e-9) and t == 1.0
    assert row[X_X] == pytest.approx(15.0, abs=1e-12)
    assert row[X_Y] == pytest.approx(0.0, abs=1e-12)
    assert row[X_Z] == pytest.approx(20.0 - 0.5 * G * t * t, abs=1e-5)
    assert row[X_GROUND] == pytest.approx(0.0, abs=1e-12)
    assert row[X_VX] == pytest.approx(10.0, abs=1e-12)
    assert row[X_VZ] == pytest.approx(-G * t, abs=1e-9)
    # the box does not turn: its top is the centre plus half its height (0.3 m)
    assert row[X_TOP] == pytest.approx(20.0 - 0.5 * G * t * t + 0.3, abs=1e-5)
    assert row[X_OUTCOME] == PASSED
    assert row[X_DIRECTION] in (-1.0, 1.0)


def test_the_energy_recorded_is_that_of_the_interpolated_state():
    """Translational energy m |v|^2 / 2 at the crossing of the thrown box, to 1e-9 relative."""
    from tumble.rockfall.ensemble.crossings import crossings_table

    terrain = Terrain.plane(0.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    line = Barrier("line", np.array([[15.0, -5.0], [15.0, 5.0]]))
    traj = simulate(
        terrain,
        rock,
        Soil.preset("lu2019"),
        (5.0, 0.0, 20.0),
        velocity=(10.0, 0.0, 0.0),
        t_max=1.5,
        barriers=(line,),
    )
    table = crossings_table(
        np.zeros(1, dtype=np.int64),
        traj.crossings,
        (line,),
        np.array([500.0]),
        np.array([rock.inertia]),
    )
    expected = 0.5 * 500.0 * (100.0 + G**2) * 1e-3
    assert table["kinetic_energy_kJ"][0] == pytest.approx(expected, rel=1e-9)
    assert table["velocity_ms"][0] == pytest.approx(math.hypot(10.0, G), rel=1e-9)
    assert table["rotational_energy_kJ"][0] == pytest.approx(0.0, abs=1e-12)
    assert table["passing_height_m"][0] == pytest.approx(20.0 - 0.5 * G, abs=1e-5)


@pytest.fixture(scope="module")
def slope():
    terrain = Terrain.plane(35.0, size=(120.0, 40.0), spacing=1.0)
    states = Release(point=(5.0, 0.0), height=1.0, speed_downslope=1.0).draw(terrain, 12, seed=4)
    return terrain, states


def _ensemble(slope, *barriers):
    terrain, states = slope
    return Ensemble(
        terrain,
        Rock.eota221(mass=300.0),
        Soil.preset("lu2019"),
        states,
        seed=4,
        t_max=8.0,
        barriers=barriers,
    )


def test_a_net_that_catches_everything_leaves_nothing_beyond(slope):
    net = Barrier("net", np.array([[40.0, -19.0], [40.0, 19.0]]), height=50.0, capacity=1e9)
    result = _ensemble(slope, net).run()
    add_barrier_statistics(result, [net], seed=4)
    caught = result.rocks["status"] == "caught"
    assert caught.sum() >= 10, result.rocks["status"]
    assert np.all(result.rocks["x"] <= 40.0 + 1e-9)
    np.testing.assert_allclose(result.rocks["x"][caught], 40.0, atol=1e-9)
    assert set(result.crossings["outcome"]) == {"caught"}
    terrain = slope[0]
    beyond = terrain.grid_x > 41.0
    assert np.nansum(result.rasters["passing_count"][:, beyond]) == 0
    [stats] = result.summary["barriers"]
    assert stats["rocks_crossing"] == caught.sum() == stats["outcomes"]["caught"]
    # the ensemble agrees with rock 0 simulated by itself
    alone = _ensemble(slope, net).trajectory(0)
    assert alone.status == "caught"
    np.testing.assert_array_equal(alone.position[-1], [result.rocks[k][0] for k in "xyz"])


def test_a_net_that_everything_overtops_changes_nothing_below(slope):
    """A 5 cm net: every rock's centre passes above it, so the run equals the run without it
    (same final states, rasters and statistics), with the crossings recorded as overtopped."""
    low = Barrier("low", np.array([[40.0, -19.0], [40.0, 19.0]]), height=0.05, capacity=1.0)
    with_net = _ensemble(slope, low).run()
    add_barrier_statistics(with_net, [low], seed=4)
    without = _ensemble(slope).run()
    assert set(with_net.crossings["outcome"]) == {"overtopped"}
    for name in ("x", "y", "z", "steps", "kinetic_energy_max_kJ"):
        np.testing.assert_array_equal(with_net.rocks[name], without.rocks[name])
    for name, values in without.rasters.items():
        np.testing.assert_array_equal(with_net.rasters[name], values)
    assert with_net.summary["barriers"][0]["overtopping_probability"] == 1.0
    assert OVERTOPPED != CAUGHT


# --- the uphill side: the side the rocks come from, not the slope at the line --------------------

#: a V-shaped valley along y: down at 35 deg from x = 0 to its floor at x = 60, up the other side
#: at 25 deg; rocks released at x = 5 run down, up the counter-slope and back
VALLEY_FLOOR = 60.0
COUNTER_LINE = 70.0


@pytest.fixture(scope="module")
def valley():
    x = np.arange(0.0, 121.0)
    z = np.where(
        x <= VALLEY_FLOOR,
        (VALLEY_FLOOR - x) * math.tan(math.radians(35.0)),
        (x - VALLEY_FLOOR) * math.tan(math.radians(25.0)),
    )
    terrain = Terrain.from_array(np.broadcast_to(z, (41, x.size)), x0=0.0, y0=-20.0, dx=1.0)
    states = Release(point=(5.0, 0.0), height=1.0, speed_downslope=1.0).draw(terrain, 12, seed=4)
    return terrain, states


def _valley_run(valley, barrier):
    terrain, states = valley
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=300.0),
        Soil.preset("lu2019"),
        states,
        seed=4,
        t_max=20.0,
        barriers=(barrier,),
    )
    result = ensemble.run()
    add_barrier_statistics(result, ensemble.barriers, seed=4)
    return ensemble, result


def _counter_line(**net):
    # along +y: its left is x < 70, the side of the release
    return Barrier("counter", np.array([[COUNTER_LINE, -19.0], [COUNTER_LINE, 19.0]]), **net)


def test_a_line_on_a_counter_slope_counts_the_rocks_from_the_release_both_ways(valley):
    """The terrain at x = 70 rises to +x, but the rocks come from x = 5: the line's uphill side
    is its left (x < 70), a crossing to x > 70 is downslope, one back upslope. Every crossing
    of every rock is checked against its own path, step by step (the crossing rule: from
    x < 70 to x >= 70 downslope, from x > 70 to x <= 70 upslope)."""
    ensemble, result = _valley_run(valley, _counter_line())
    assert ensemble.barriers[0].uphill == "left"
    [stats] = result.summary["barriers"]
    rows = result.crossings
    down = up = 0
    for k in range(ensemble.n_rocks):
        path = ensemble.trajectory(k, save_every=1).position
        a, b = path[:-1, 0], path[1:, 0]
        assert np.all(np.abs(path[:, 1]) < 19.0)  # the rocks stay within the line's extent
        expected = np.where(
            (a < COUNTER_LINE) & (b >= COUNTER_LINE),
            1,
            np.where((a > COUNTER_LINE) & (b <= COUNTER_LINE), -1, 0),
        )
        expected = ["downslope" if e > 0 else "upslope" for e in expected[expected != 0]]
        assert list(rows["direction"][rows["rock"] == k]) == expected, k
        down += expected.count("downslope")
        up += expected.count("upslope")
    assert down > 0 and up > 0  # the setting has both (rocks roll back down the counter-slope)
    assert (stats["crossings_downslope"], stats["crossings_upslope"]) == (down, up)
    crossed = np.unique(rows["rock"][rows["direction"] == "downslope"])
    assert stats["rocks_crossing"] == crossed.size
    assert (
        stats["rocks_crossing_upslope"]
        == np.unique(rows["rock"][rows["direction"] == "upslope"]).size
    )


def test_a_net_on_a_counter_slope_holds_the_rocks_from_the_release(valley):
    """A net 100 m high taking 1e9 kJ at x = 70 on the counter-slope catches every rock the
    observation line saw crossing from the release, at the line; no rock ends beyond it."""
    _, observed = _valley_run(valley, _counter_line())
    crossed = np.unique(observed.crossings["rock"][observed.crossings["direction"] == "downslope"])
    _, result = _valley_run(valley, _counter_line(height=100.0, capacity=1e9))
    caught = np.flatnonzero(result.rocks["status"] == "caught")
    assert crossed.size > 0
    np.testing.assert_array_equal(caught, crossed)
    np.testing.assert_allclose(result.rocks["x"][caught], COUNTER_LINE, rtol=0, atol=1e-9)
    assert np.all(result.rocks["x"] <= COUNTER_LINE + 1e-9)
    [stats] = result.summary["barriers"]
    assert stats["outcomes"]["caught"] == stats["rocks_crossing"] == crossed.size


def test_uphill_given_overrides_the_release(valley):
    """The same net with ``uphill = "right"``: the rocks from the release cross it upslope and
    pass; those rolling back down the counter-slope cross it downslope and are caught, i.e.
    exactly the rocks the observation line saw crossing upslope."""
    _, observed = _valley_run(valley, _counter_line())
    back = np.unique(observed.crossings["rock"][observed.crossings["direction"] == "upslope"])
    ensemble, result = _valley_run(
        valley, _counter_line(height=100.0, capacity=1e9, uphill="right")
    )
    assert ensemble.barriers[0].uphill == "right"
    caught = np.flatnonzero(result.rocks["status"] == "caught")
    assert back.size > 0
    np.testing.assert_array_equal(caught, back)
    np.testing.assert_allclose(result.rocks["x"][caught], COUNTER_LINE, rtol=0, atol=1e-9)
    first: dict[int, tuple[str, str]] = {}
    rows = result.crossings
    for rock, direction, outcome in zip(
        rows["rock"], rows["direction"], rows["outcome"], strict=True
    ):
        first.setdefault(int(rock), (str(direction), str(outcome)))
    assert set(first.values()) == {("upslope", "passed")}


def test_a_line_across_a_gully_counts_the_rocks_running_down_it():
    """A gully running down +y (floor 8 m wide, falling at 30 deg; walls rising at 45 deg across
    it) and a line crossing it obliquely, mostly on its +x wall, where the terrain beside the
    line falls to the line's right (-x) although the rocks run to its left (+y). The rocks start
    at (0, -80), right of the line (seen from (-10, 10) to (30, -30)), and leave the DEM at its
    upper edge: each crosses once more downslope than upslope, and every one is counted."""
    g = math.tan(math.radians(30.0))
    x, y = np.arange(-40.0, 41.0), np.arange(-90.0, 41.0)
    gx, gy = np.meshgrid(x, y)
    terrain = Terrain.from_array(-g * gy + np.maximum(np.abs(gx) - 4.0, 0.0), x0=-40.0, y0=-90.0)
    states = Release(point=(0.0, -80.0), height=1.0, speed_downslope=3.0).draw(terrain, 12, seed=4)
    line = Barrier("gully", np.array([[-10.0, 10.0], [30.0, -30.0]]))
    ensemble = Ensemble(
        terrain, Rock.eota221(mass=300.0), Soil.preset("lu2019"), states, seed=4, t_max=20.0,
        barriers=(line,),
    )  # fmt: skip
    result = ensemble.run()
    add_barrier_statistics(result, ensemble.barriers, seed=4)
    assert ensemble.barriers[0].uphill == "right"
    assert set(result.rocks["status"]) == {"left_domain"} and np.all(result.rocks["y"] > 39.0)
    rows = result.crossings
    assert np.all(np.abs(rows["x"]) < 10.0)  # inside the line's extent
    for k in range(ensemble.n_rocks):
        direction = list(rows["direction"][rows["rock"] == k])
        assert direction.count("downslope") - direction.count("upslope") == 1, k
    [stats] = result.summary["barriers"]
    assert stats["rocks_crossing"] == ensemble.n_rocks
