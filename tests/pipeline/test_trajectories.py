"""The kept trajectories of a run: which rocks (a stratified sample with hand-computed
allocations), and what of each rock is kept (the samples of save_every without barriers; with a
net, samples from which the replay gives back the crossings the run recorded, against the
analytic free flight and the run's own rows)."""

import math

import numpy as np
import pytest

from tumble.pipeline.trajectories import (
    allocate,
    choose_rocks,
    replay_sample,
    trajectory_columns,
)
from tumble.rockfall import Rock, Soil, Terrain, simulate
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.ensemble.crossings import COLUMNS, crossings_table
from tumble.rockfall.ensemble.replay import replay_crossings
from tumble.rockfall.hazard.sources import Site

G = 9.81
X0, Y0 = 2_600_000.0, 1_200_000.0  # a national grid: coordinates whose round-off is 0.5 nm


# ------------------------------------------------------------------------- which rocks


def test_allocation_is_one_per_group_then_proportional():
    """Groups of 58, 41, 58 and 43 rocks, 40 kept: one each, then 36 by the largest remainder
    over 57, 40, 57, 42 (quotas 10.47, 7.35, 10.47, 7.71: floors 10, 7, 10, 7 and the two
    largest remainders, 0.71 and the first 0.47, get one more)."""
    assert allocate([58, 41, 58, 43], 40).tolist() == [12, 8, 11, 9]
    # an empty group gets none; all of every group once the count reaches the total
    assert allocate([3, 0, 2], 4).tolist() == [2, 0, 2]
    assert allocate([3, 0, 2], 9).tolist() == [3, 0, 2]
    assert allocate([3, 0, 2], 0).tolist() == [0, 0, 0]


def test_fewer_rocks_than_groups_are_split_proportionally_and_rock_0_s_group_gets_one():
    """2 rocks over groups of 5, 0, 3 and 2: quotas 1.0, 0.6, 0.4 give [1, 0, 1, 0]; when rock
    0 is in the last group, the largest allocation (the first group's) gives it its one."""
    assert allocate([5, 0, 3, 2], 2).tolist() == [1, 0, 1, 0]
    assert allocate([5, 0, 3, 2], 2, first=3).tolist() == [0, 0, 1, 1]
    assert allocate([5, 0, 3, 2], 2, first=0).tolist() == [1, 0, 1, 0]


def _site(n_north: int, n_south: int) -> Site:
    n = n_north + n_south
    source_of = np.repeat([0, 1], [n_north, n_south]).astype(np.int64)
    class_of = (np.arange(n) % 3 == 1).astype(np.int64)  # every third rock is large
    return Site(
        ("north", "south"), (None, None), source_of, ("small", "large"), (0.6, 0.4), class_of
    )


def test_the_kept_rocks_are_a_stratified_sample_with_rock_0():
    site = _site(60, 40)
    kept = choose_rocks(site, 10, seed=5)
    rocks = kept.rocks
    assert rocks[0] == 0 and np.all(np.diff(rocks) > 0) and rocks.size == 10
    group = site.source_of * 2 + site.class_of
    sizes = np.bincount(group, minlength=4)
    assert [g["released"] for g in kept.groups] == sizes.tolist()
    expected = allocate(sizes, 10, first=0)
    assert [g["kept"] for g in kept.groups] == expected.tolist()
    assert np.bincount(group[rocks], minlength=4).tolist() == expected.tolist()
    assert [(g["source"], g["rock_class"]) for g in kept.groups] == [
        ("north", "small"),
        ("north", "large"),
        ("south", "small"),
        ("south", "large"),
    ]
    # drawn from the seed's own stream: the same again, another with another seed
    assert choose_rocks(site, 10, seed=5).rocks.tolist() == rocks.tolist()
    assert choose_rocks(site, 10, seed=6).rocks.tolist() != rocks.tolist()
    # every rock when the count reaches them; the first rocks alone would all be "north"
    assert choose_rocks(site, 500, seed=5).rocks.tolist() == list(range(100))
    described = kept.describe(25)
    assert described["rocks"] == rocks.tolist() and described["n_released"] == 100
    assert described["share"] == 0.1 and described["every_steps"] == 25


# ---------------------------------------------------------------------- what of a rock


def test_without_barriers_the_kept_samples_are_those_of_save_every():
    """A rock down a 35 degree slope, every step saved, thinned to every 25th and the last: the
    columns of simulate(save_every=25), bit for bit."""
    terrain = Terrain.plane(35.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(0.8, 0.6, 0.5, mass=400.0)
    q = np.array([0.9, 0.1, 0.3, 0.2])
    start = ((5.0, 0.0, 55.0 * math.tan(math.radians(35.0)) + 1.5), q / np.linalg.norm(q))
    every_step = simulate(terrain, rock, Soil.preset("medium"), *start, t_max=4.0, save_every=1)
    coarse = simulate(terrain, rock, Soil.preset("medium"), *start, t_max=4.0, save_every=25)
    kept = trajectory_columns(replay_sample(every_step, 25, ()))
    expected = trajectory_columns(coarse)
    assert kept.keys() == expected.keys() and len(expected["t"]) > 10
    for name, values in expected.items():
        np.testing.assert_array_equal(kept[name], values, err_msg=name)


def _throw(barriers, every=1):
    """A box thrown at (10, 4, 0) m/s from 20 m over flat ground on a national grid."""
    terrain = Terrain.from_array(np.zeros((41, 61)), x0=X0, y0=Y0, dx=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    traj = simulate(
        terrain,
        rock,
        Soil.preset("medium"),
        (X0 + 5.3, Y0 + 10.0, 20.0),
        velocity=(10.0, 4.0, 0.0),
        t_max=3.0,
        save_every=every,
        barriers=barriers,
    )
    return terrain, rock, traj


def _replay(terrain, rock, barriers, traj):
    samples = {"rock": np.zeros(len(traj), dtype=np.int64), **trajectory_columns(traj)}
    body = np.array([[rock.mass, *rock.inertia]])
    return replay_crossings(terrain, barriers, samples, body, lambda k: rock.vertices)


#: a net across the flight, oblique to it, and an observation line behind it; on flat ground the
#: left side of a line is its downhill side, so the lines run north to south
NET_LINE = np.array([[X0 + 21.0, Y0 + 38.0], [X0 + 17.0, Y0 + 2.0]])
LINE = Barrier("behind", np.array([[X0 + 24.0, Y0 + 39.0], [X0 + 24.0, Y0 + 1.0]]))


@pytest.mark.parametrize(("capacity", "outcome"), [(1e6, "caught"), (10.0, "broke_through")])
def test_a_net_s_crossings_are_replayed_from_the_kept_samples(capacity, outcome):
    """Sampled every 25 steps, the kept samples replay the run's rows: the net's crossing at
    the analytic time t = cross(A - p0, d) / cross(v, d) with the energy of the free flight,
    m (|v_h|^2 + (g t)^2) / 2 (to the run's round-off), and every row of the run to 1e-12
    (the point to 1 nm);
    the same replay on the plain 25-step samples does not give the run's numbers."""
    net = Barrier("net", NET_LINE, height=30.0, capacity=capacity)
    barriers = [net, LINE]
    terrain, rock, traj = _throw(barriers)
    ran = crossings_table(
        np.zeros(traj.crossings.shape[0], dtype=np.int64),
        traj.crossings,
        barriers,
        np.array([rock.mass]),
        np.array([rock.inertia]),
    )
    assert ran["outcome"][0] == outcome
    assert list(ran["barrier"]) == (["net"] if outcome == "caught" else ["net", "behind"])
    kept = replay_sample(traj, 25, barriers)
    assert len(kept) < len(traj) / 10
    replayed = _replay(terrain, rock, barriers, kept)
    for name in COLUMNS:
        if ran[name].dtype.kind in "iuf":
            atol = 1e-9 if name in ("x", "y", "along_m") else 0.0  # m: the point, to 1 nm
            np.testing.assert_allclose(
                replayed[name], ran[name], rtol=1e-12, atol=atol, err_msg=name
            )
        else:
            assert replayed[name].tolist() == ran[name].tolist(), name
    # the analytic free flight at the net, up to the round-off the ~660 steps accumulate in
    # coordinates of 2.6e6 m (0.5 nm each: 3e-7 m, 3e-8 s)
    d = NET_LINE[1] - NET_LINE[0]
    a = NET_LINE[0] - np.array([X0 + 5.3, Y0 + 10.0])
    v = np.array([10.0, 4.0])
    t = (a[0] * d[1] - a[1] * d[0]) / (v[0] * d[1] - v[1] * d[0])
    assert replayed["t_s"][0] == pytest.approx(t, abs=1e-7)
    energy = 0.5 * rock.mass * (v @ v + (G * t) ** 2) * 1e-3
    assert replayed["kinetic_energy_kJ"][0] == pytest.approx(energy, rel=1e-6)
    # the height within the step is the chord's: g dt^2 / 8 below the parabola at most
    sag = G * traj.dt**2 / 8
    assert abs(replayed["passing_height_m"][0] - (20.0 - 0.5 * G * t * t)) <= sag + 1e-6
    # the plain 25-step samples: the net's row is missed or its energy is not the run's
    coarse = _throw(barriers, every=25)[2]
    plain = _replay(terrain, rock, barriers, coarse)
    net_rows = plain["barrier"] == "net"
    assert not net_rows.any() or not math.isclose(
        plain["kinetic_energy_kJ"][net_rows][0], ran["kinetic_energy_kJ"][0], rel_tol=1e-3
    )


def test_a_sample_must_hold_every_step():
    _, _, traj = _throw([LINE], every=5)
    with pytest.raises(ValueError, match="every step"):
        replay_sample(traj, 25, [LINE])
