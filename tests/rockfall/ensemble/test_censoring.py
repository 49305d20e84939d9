"""What a run says about the rocks still moving at t_max: a steady slow roll is named as such,
with the rocks' speeds at the end, instead of the advice to raise t_max alone."""

import numpy as np

from tumble.rockfall import Rock, RockStatus, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.censoring import SLOW_SPEED, censoring_warnings
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
    assert f"{moving.sum()} of them move slower than 2 m/s" in warning
    assert "rolling resistance" in warning and "Rocks that roll on" in warning


def test_fast_rocks_at_t_max_are_told_to_raise_it():
    summary = {
        "n_rocks": 10,
        "t_max": 5.0,
        "fractions": {"stopped": 0.5, "left_domain": 0.0, "timed_out": 0.5, "failed": 0.0},
        "timed_out_speed_ms": {"p50": 12.0, "slow_below_ms": SLOW_SPEED, "slow": 0},
    }
    [warning] = censoring_warnings(summary)
    assert warning.endswith("raise t_max") and "slower" not in warning
