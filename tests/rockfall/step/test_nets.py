"""Barrier crossings inside the step and nets that act: an analytic free flight across a line,
a net that catches everything, a net that everything overtops, and the ensemble agreeing with a
single rock simulated by itself."""

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
        Soil.preset("medium"),
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
        Soil.preset("medium"),
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
        Soil.preset("medium"),
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
