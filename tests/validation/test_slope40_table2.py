"""Candidate statistics of Leine et al. 2021, Table 2: weighted moments on hand-made samples with
known answers, every candidate against the ensemble's own statistics and rasters or against a
plain computation over the saved trajectories, and the checks of the seed's findings."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release
from tumble.validation.slope40 import PUBLISHED_SLOPE40
from tumble.validation.slope40_table2 import (
    CANDIDATES,
    QUANTITIES,
    TABLE2_QUANTITIES,
    Moments,
    Table2Candidates,
    interval_weights,
    published_error,
    seed_findings,
    table2_candidates,
)

# --- weighted moments ------------------------------------------------------------------------


def test_moments_of_hand_made_samples():
    m = Moments()
    m.add([1.0, 2.0, 3.0, 4.0])
    assert m.result() == pytest.approx((2.5, math.sqrt(1.25)), rel=1e-15)
    # weights 1, 1, 2: mean 90 / 4, variance (156.25 + 6.25 + 2 * 56.25) / 4 = 68.75
    w = Moments()
    w.add([10.0, 20.0, 30.0], [1.0, 1.0, 2.0])
    assert w.result() == pytest.approx((22.5, math.sqrt(68.75)), rel=1e-15)
    # NaN values are skipped, weight 0 counts nothing
    n = Moments()
    n.add([10.0, np.nan, 20.0, 30.0, 99.0], [1.0, 5.0, 1.0, 2.0, 0.0])
    assert n.result() == pytest.approx(w.result(), rel=1e-15)
    assert all(math.isnan(v) for v in Moments().result())


def test_moments_merge_in_parts_as_at_once():
    rng = np.random.default_rng(3)
    x, w = rng.normal(100.0, 30.0, 500), rng.random(500)
    whole = Moments()
    whole.add(x, w)
    parts = Moments()
    for a, b in ((0, 7), (7, 300), (300, 301), (301, 500)):
        part = Moments()
        part.add(x[a:b], w[a:b])
        parts.merge(part)
    mean = np.average(x, weights=w)
    assert whole.result() == pytest.approx(
        (mean, math.sqrt(np.average((x - mean) ** 2, weights=w))), rel=1e-12
    )
    assert parts.result() == pytest.approx(whole.result(), rel=1e-12)


def test_moments_refuse_bad_weights():
    with pytest.raises(ValueError, match="weights must match"):
        Moments().add([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="finite and non-negative"):
        Moments().add([1.0, 2.0], [1.0, -1.0])


def test_time_and_distance_weighted_means():
    """Rows at t = 0, 1, 2, 4 s; the centre moves 5 m, then 5 m straight down (no horizontal
    distance), then 5 m: the values 10, 20, 30 at rows 1-3 have the time average
    (10 + 20 + 2 * 30) / 4 = 22.5 and the distance average (5 * 10 + 5 * 30) / 10 = 20."""
    t = [0.0, 1.0, 2.0, 4.0]
    position = [(0.0, 0.0, 5.0), (3.0, 4.0, 5.0), (3.0, 4.0, 0.0), (6.0, 8.0, 0.0)]
    duration, distance = interval_weights(t, position)
    np.testing.assert_allclose(duration, [1.0, 1.0, 2.0], rtol=0, atol=0)
    np.testing.assert_allclose(distance, [5.0, 0.0, 5.0], rtol=1e-15)
    values = [10.0, 20.0, 30.0]
    by_time, by_distance = Moments(), Moments()
    by_time.add(values, duration)
    by_distance.add(values, distance)
    assert by_time.result() == pytest.approx((22.5, math.sqrt(68.75)), rel=1e-15)
    assert by_distance.result() == pytest.approx((20.0, 10.0), rel=1e-15)
    with pytest.raises(ValueError, match="must not decrease"):
        interval_weights([0.0, 2.0, 1.0], position[:3])
    with pytest.raises(ValueError, match="expected"):
        interval_weights(t, [(0.0,), (1.0,), (2.0,), (3.0,)])


# --- candidates over an ensemble ---------------------------------------------------------------


def small_slope() -> Terrain:
    """A 40 degree slope over 20 m, then a flat run-out of 40 m, 30 m wide, 1 m grid."""
    x = np.arange(61.0)
    heights = np.broadcast_to(np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0)), (31, 61))
    return Terrain.from_array(heights, x0=0.0, y0=-15.0, dx=1.0)


TERRAIN = small_slope()
SLOPE_END = 20.0


@pytest.fixture(scope="module")
def ensemble() -> Ensemble:
    states = Release(point=(3.0, 0.0), height=1.2, speed_downslope=1.0).draw(TERRAIN, 6, 5)
    return Ensemble(
        TERRAIN, Rock.eota221(mass=780.0), Soil.preset("lu2019"), states, t_max=16.0, seed=5
    )


@pytest.fixture(scope="module")
def candidates(ensemble):
    table = Table2Candidates(TERRAIN, ensemble.sample_every, ensemble.rest_speed, SLOPE_END)
    trajectories = [ensemble.trajectory(k) for k in range(ensemble.n_rocks)]
    for tr in trajectories:
        table.add(tr)
    return table, trajectories


def test_path_rock_max_and_cells_agree_with_the_ensemble(ensemble, candidates):
    """``path`` and ``rock_max`` are the statistics of ``summary.json``; ``cell_max`` and
    ``cell_mean`` the means over cells of the ensemble's rasters (for the jump height, over the
    cells a rock flew over: the raster holds 0 m where rocks only rolled)."""
    result = ensemble.run()
    got = candidates[0].results()
    for q in TABLE2_QUANTITIES:
        path, rock_max = result.summary[q]["path"], result.summary[q]["rock_max"]
        assert got["path"][q] == pytest.approx((path["mean"], path["std"]), rel=1e-12), q
        assert got["rock_max"][q] == pytest.approx(
            (rock_max["mean"], rock_max["std"]), rel=1e-12
        ), q
    rasters = {
        ("cell_max", "kinetic_energy_kJ"): "kinetic_energy_max",
        ("cell_mean", "kinetic_energy_kJ"): "kinetic_energy_mean",
        ("cell_max", "velocity_ms"): "velocity_max",
        ("cell_max", "rotational_velocity_rps"): "rotational_velocity_max",
        ("cell_max", "jump_height_m"): "jump_height_max",
    }
    for (name, q), raster in rasters.items():
        values = result.rasters[raster]
        if q == "jump_height_m":
            # the candidate takes the cells a rock flew over; the raster is 0 m where the
            # rocks only rolled (and no flight is exactly 0 m high)
            values = np.where(values > 0.0, values, np.nan)
        expected = (np.nanmean(values), np.nanstd(values))
        assert got[name][q] == pytest.approx(expected, rel=1e-12), (name, q)


def test_candidates_agree_with_a_plain_computation(ensemble, candidates):
    """Every sample candidate from the saved trajectories, pooled with numpy."""
    table, trajectories = candidates
    got = table.results()
    rest = 0.5 * 780.0 * ensemble.rest_speed**2
    pools: dict[str, list] = {name: [] for name in CANDIDATES}
    means, maxima = [], []
    for tr in trajectories:
        energy = tr.kinetic_energy()[1:]
        # flights after the first contact: the fall from the release is not a jump
        flying = ~tr.in_contact[1:] & np.maximum.accumulate(tr.in_contact)[1:]
        jump = np.where(flying, tr.height[1:], np.nan)
        normal = TERRAIN.normal(tr.position[1:, 0], tr.position[1:, 1])[:, 2]
        v = np.stack([energy / 1e3, tr.speed()[1:], tr.rotation_speed()[1:], jump, jump * normal])
        step = np.arange(1, len(tr))
        sampled = (step % ensemble.sample_every == 0) & (energy > rest)
        x = tr.position[1:, 0]
        dt = np.diff(tr.t)
        ds = np.linalg.norm(np.diff(tr.position[:, :2], axis=0), axis=1)
        one = np.ones(step.size)
        pools["path"].append((v[:, sampled], one[sampled]))
        pools["path_slope"].append(
            (v[:, sampled & (x < SLOPE_END)], one[sampled & (x < SLOPE_END)])
        )
        runout = sampled & (x >= SLOPE_END)
        pools["path_runout"].append((v[:, runout], one[runout]))
        fast = sampled & (tr.speed()[1:] >= 1.0)
        pools["path_fast"].append((v[:, fast], one[fast]))
        if tr.status == "stopped":
            pools["stopped"].append((v[:, sampled], one[sampled]))
        pools["time"].append((v, dt))
        pools["distance"].append((v, ds))
        means.append(np.nanmean(v[:, sampled], axis=1))
        maxima.append(np.nanmax(v, axis=1))
    assert "stopped" in {tr.status for tr in trajectories}
    for name in ("path", "path_slope", "path_runout", "path_fast", "stopped", "time", "distance"):
        values = np.concatenate([p[0] for p in pools[name]], axis=1)
        weights = np.concatenate([p[1] for p in pools[name]])
        for q, quantity in enumerate(QUANTITIES):
            ok = np.isfinite(values[q]) & (weights > 0)
            x, w = values[q, ok], weights[ok]
            mean = np.average(x, weights=w)
            std = math.sqrt(np.average((x - mean) ** 2, weights=w))
            assert got[name][quantity] == pytest.approx((mean, std), rel=1e-10), (name, quantity)
    for name, per_rock in (("rock_mean", means), ("rock_max", maxima)):
        a = np.array(per_rock)
        for q, quantity in enumerate(QUANTITIES):
            expected = (np.nanmean(a[:, q]), np.nanstd(a[:, q]))
            assert got[name][quantity] == pytest.approx(expected, rel=1e-10), (name, quantity)
    # the split at the foot of the slope is a real one, and the run-out lies lower
    assert got["path_runout"]["velocity_ms"][0] < got["path_slope"]["velocity_ms"][0]
    ends = [tr.status for tr in trajectories]
    assert table.statuses == {s: ends.count(s) for s in set(ends)}


def test_the_same_numbers_for_any_threads(ensemble):
    one = table2_candidates(ensemble, threads=1).results()
    two = table2_candidates(ensemble, threads=2).results()
    assert one == two


def test_trajectories_must_hold_every_step(ensemble):
    table = Table2Candidates(TERRAIN, ensemble.sample_every, ensemble.rest_speed)
    with pytest.raises(ValueError, match="every step"):
        table.add(ensemble.trajectory(0, save_every=2))


# --- comparison with Table 2 -------------------------------------------------------------------


def _published(scheme: str, factor: float = 1.0) -> dict:
    return {
        q: (factor * m, factor * s)
        for q, (m, s) in ((q, PUBLISHED_SLOPE40[scheme][q]) for q in TABLE2_QUANTITIES)
    }


def test_seed_findings_hold_for_the_published_values_and_not_when_swapped():
    explicit, implicit = _published("explicit"), _published("implicit")
    assert seed_findings(explicit, implicit) == dict.fromkeys(TABLE2_QUANTITIES, True)
    swapped = seed_findings(implicit, explicit)
    assert swapped == {
        "kinetic_energy_kJ": False,
        "velocity_ms": True,
        "rotational_velocity_rps": False,
        "jump_height_m": False,
    }
    # velocities 20 % apart are not "about equal"
    implicit["velocity_ms"] = (1.2 * explicit["velocity_ms"][0], 1.0)
    assert not seed_findings(explicit, implicit)["velocity_ms"]


def test_published_error():
    assert published_error(_published("explicit"), _published("implicit")) == (0.0, 0.0)
    dev = published_error(_published("explicit", 1.1), _published("implicit", 0.8))
    assert dev == pytest.approx((0.15, 0.15), rel=1e-12)
