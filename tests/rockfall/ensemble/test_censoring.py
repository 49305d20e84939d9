"""What a run says about the rocks still moving at t_max: the advice to raise t_max, with what
the rocks do at their last position (speed and slope), and that a longer t_max stops them."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, RockStatus, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.censoring import GENTLE_SLOPE, SLOW_SPEED, censoring_warnings
from tumble.rockfall.release import Release
from tumble.rockfall.step.model import S_V


def test_rocks_rolling_on_slowly_at_t_max_are_named():
    """EOTA111 blocks of 0.1 m^3 with 1 m/s down a 15 degree plane of the default soil roll on
    at about 0.8 m/s (benchmarks/rolling_on.py): at t_max = 20 s the summary gives the speeds of
    the rocks still moving, recomputed from their final states, and the warning says how many
    move slower than 2 m/s and that the rolling resistance decides where they stop."""
    rock = Rock.eota111(mass=270.0)
    terrain = Terrain.plane(15.0, size=(400.0, 40.0), spacing=2.0)
    release = Release(point=(20.0, 0.0), height=0.5, speed_downslope=1.0)
    states = release.draw(terrain, 8, 2, hulls=Hulls.of(rock))
    ensemble = Ensemble(terrain, rock, Soil.preset("medium"), states, seed=2, t_max=20.0)
    chunk = ensemble.run_chunk(0, 8)
    moving = chunk["status"] == int(RockStatus.TIMED_OUT)
    speed = np.linalg.norm(chunk["final_state"][moving, S_V : S_V + 3], axis=1)
    assert moving.sum() >= 4 and np.all(speed < SLOW_SPEED)
    summary = ensemble.run().summary
    record = summary["timed_out_speed_ms"]
    assert record["slow"] == int(np.sum(speed < SLOW_SPEED)) == moving.sum()
    assert record["p50"] == np.median(speed) and record["max"] == speed.max()
    [warning] = [w for w in summary["warnings"] if "still moving at t_max" in w]
    assert f"{moving.sum()} roll slower than 2 m/s on slopes of 10 degrees or more" in warning
    assert "raise t_max (to 40 s, say)" in warning
    assert "rolling resistance" in warning and "Rocks that roll on" in warning


def test_fast_rocks_at_t_max_are_told_to_raise_it():
    summary = {
        "n_rocks": 10,
        "t_max": 5.0,
        "fractions": {"stopped": 0.5, "left_domain": 0.0, "timed_out": 0.5, "failed": 0.0},
        "timed_out_speed_ms": {"p50": 12.0, "slow_below_ms": SLOW_SPEED, "slow": 0},
        "timed_out_slope_deg": {"p50": 30.0},
        "timed_out_motion": {
            "slow_below_ms": SLOW_SPEED,
            "gentle_below_deg": GENTLE_SLOPE,
            "settling": 0,
            "rolling_on": 0,
            "running": 5,
            "off_terrain": 0,
        },
    }
    [warning] = censoring_warnings(summary)
    assert "raise t_max (to 10 s, say)" in warning and "slower" not in warning
    assert warning.endswith("5 move at 2 m/s or faster and are still running out")


def test_advice_at_t_max_follows_speed_and_slope_and_a_longer_t_max_stops_the_rocks():
    """EOTA111 blocks of 270 kg with 1 m/s down a 20 degree plane 40 m long onto flat ground, of
    the default soil: at t_max = 30 s all 8 are still moving, some rolling at about 1.2 m/s on
    the plane, some on the flat coming to rest. The slopes the summary gives are those of the
    plane (20 degrees, to 1e-9) and the flat (0); the warning counts each kind, tells to raise
    t_max and no longer that a longer t_max only lets them roll further; with t_max = 60 s
    every one of them stops, less than 5 m beyond where it was at 30 s."""
    x = np.arange(121.0)
    z = np.maximum(40.0 - x, 0.0) * math.tan(math.radians(20.0))
    terrain = Terrain.from_array(np.broadcast_to(z, (41, x.size)), y0=-20.0, dx=1.0)
    rock = Rock.eota111(mass=270.0)
    release = Release(point=(5.0, 0.0), height=0.5, speed_downslope=1.0)
    states = release.draw(terrain, 8, 2, hulls=Hulls.of(rock))
    ensembles = {
        t_max: Ensemble(terrain, rock, Soil.preset("medium"), states, seed=2, t_max=t_max)
        for t_max in (30.0, 60.0)
    }
    short, long = (ensembles[t].run() for t in (30.0, 60.0))
    final = ensembles[30.0].run_chunk(0, 8)["final_state"]
    speed = np.linalg.norm(final[:, S_V : S_V + 3], axis=1)
    assert np.all(np.asarray(short.rocks["status"]) == "timed_out")
    at_end = np.column_stack([short.rocks["x"], short.rocks["y"]])
    on_plane = at_end[:, 0] < 40.0
    assert 0 < on_plane.sum() < 8
    slope = np.where(on_plane, 20.0, 0.0)
    summary = short.summary
    assert summary["timed_out_slope_deg"]["max"] == pytest.approx(20.0, abs=1e-9)
    assert summary["timed_out_slope_deg"]["p50"] == pytest.approx(np.median(slope), abs=1e-9)
    motion = summary["timed_out_motion"]
    slow = speed < SLOW_SPEED
    assert np.all(slow)
    assert motion["rolling_on"] == int(np.sum(slow & on_plane))
    assert motion["settling"] == int(np.sum(slow & ~on_plane))
    assert motion["running"] == 0 and motion["off_terrain"] == 0
    [warning] = [w for w in summary["warnings"] if "still moving at t_max" in w]
    assert "raise t_max (to 60 s, say)" in warning
    assert f"{motion['settling']} move slower than 2 m/s on ground gentler than 10" in warning
    assert f"{motion['rolling_on']} roll slower than 2 m/s on slopes of 10 degrees" in warning
    assert "only lets" not in warning
    # the advice is right: with the longer t_max every rock stops, a few metres further on
    assert np.all(np.asarray(long.rocks["status"]) == "stopped")
    further = np.hypot(long.rocks["x"] - at_end[:, 0], long.rocks["y"] - at_end[:, 1])
    assert np.all(further < 5.0)
    assert not any("still moving at t_max" in w for w in long.summary["warnings"])
