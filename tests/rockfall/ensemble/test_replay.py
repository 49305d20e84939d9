"""Barrier crossings replayed from stored trajectory samples: an analytic free flight sampled
coarsely, a net that catches on its first crossing, and bad samples refused; the steps across a
line and the points astride a crossing that a run keeps for the replay."""

import numpy as np
import pytest

from tumble.rockfall import Rock, Terrain
from tumble.rockfall.barriers import Barrier, crossings
from tumble.rockfall.ensemble.replay import (
    crossing_points,
    crossing_steps,
    replay_crossings,
    sample_interval,
)

G = 9.81


def _samples(t, x, y, z, vx, vy, vz, rock=0):
    n = len(t)
    zero, one = np.zeros(n), np.ones(n)
    return {
        "rock": np.full(n, rock),
        "t": t,
        "x": x,
        "y": y,
        "z": z,
        "qw": one,
        "qx": zero,
        "qy": zero,
        "qz": zero,
        "vx": vx,
        "vy": vy,
        "vz": vz,
        "omega_x": zero,
        "omega_y": zero,
        "omega_z": zero,
    }


def _bodies(rock, n=1):
    return np.tile(np.concatenate([[rock.mass], rock.inertia]), (n, 1))


def test_free_flight_sampled_every_50_ms_crosses_where_and_when_analytic():
    """A box thrown at 10 m/s from 20 m at x = 5.3 m over flat ground, sampled every h = 0.05 s,
    crosses the line x = 15 m at t = 0.97 s. x and the velocity are linear in time, so the time,
    the point and the energy are exact (1e-9); the height is the chord's, within g h^2 / 8 of the
    parabola."""
    terrain = Terrain.plane(0.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    h = 0.05
    t = np.arange(0.0, 1.5 + h / 2, h)
    samples = _samples(
        t,
        5.3 + 10.0 * t,
        np.zeros_like(t),
        20.0 - 0.5 * G * t**2,
        np.full_like(t, 10.0),
        np.zeros_like(t),
        -G * t,
    )
    line = Barrier("line", np.array([[15.0, -5.0], [15.0, 5.0]]))
    table = replay_crossings(terrain, [line], samples, _bodies(rock), lambda k: rock.vertices)
    assert list(table["rock"]) == [0]
    tc = 0.97
    assert table["t_s"][0] == pytest.approx(tc, abs=1e-9)
    assert table["x"][0] == pytest.approx(15.0, abs=1e-9)
    z = 20.0 - 0.5 * G * tc**2
    assert abs(table["passing_height_m"][0] - z) <= G * h * h / 8 + 1e-12
    assert table["top_height_m"][0] == pytest.approx(table["passing_height_m"][0] + 0.3, abs=1e-9)
    energy = 0.5 * rock.mass * (10.0**2 + (G * tc) ** 2) / 1000.0
    assert table["kinetic_energy_kJ"][0] == pytest.approx(energy, rel=1e-9)
    assert sample_interval(samples) == pytest.approx(h)


def test_a_net_catches_at_its_first_crossing_and_later_rows_are_dropped():
    """A rock sliding back and forth across a net (flat ground, below its height, below its
    capacity) is caught at its first downslope crossing, the first crossing away from the side
    it starts on (or from the side given as uphill); the stored path beyond it, simulated
    without the net, leaves no row."""
    terrain = Terrain.plane(0.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    t = np.linspace(0.0, 4.2, 43)
    x = 10.0 + 6.0 * np.sin(t * 2.0)  # crosses x = 14 three times
    v = 12.0 * np.cos(t * 2.0)
    samples = _samples(t, x, np.zeros_like(t), np.full_like(t, 0.4), v, 0 * t, 0 * t)
    line = np.array([[14.0, -5.0], [14.0, 5.0]])
    observed = replay_crossings(
        terrain, [Barrier("l", line)], samples, _bodies(rock), lambda k: rock.vertices
    )
    assert len(observed["rock"]) == 3
    net = Barrier("n", line, height=2.0, capacity=1000.0)
    caught = replay_crossings(terrain, [net], samples, _bodies(rock), lambda k: rock.vertices)
    # the rock starts at x = 10, left of the line seen along it (+y): the left is its uphill
    # side, so its first crossing (to x > 14) is downslope and caught; the rest are dropped
    assert list(observed["direction"]) == ["downslope", "upslope", "downslope"]
    assert list(caught["outcome"]) == ["caught"]
    np.testing.assert_allclose(caught["t_s"], observed["t_s"][:1], rtol=0, atol=1e-12)
    # given the right side as uphill, the first crossing is upslope (passed), the second caught
    right = Barrier("n", line, height=2.0, capacity=1000.0, uphill="right")
    caught = replay_crossings(terrain, [right], samples, _bodies(rock), lambda k: rock.vertices)
    assert list(caught["outcome"]) == ["passed", "caught"]
    np.testing.assert_allclose(caught["t_s"], observed["t_s"][:2], rtol=0, atol=1e-12)


def test_unsorted_or_incomplete_samples_are_refused():
    terrain = Terrain.plane(0.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 0.8, 0.6, mass=500.0)
    t = np.linspace(0.0, 1.0, 5)
    samples = _samples(t, 5 + t, 0 * t, 1 + 0 * t, 1 + 0 * t, 0 * t, 0 * t)
    line = [Barrier("l", np.array([[14.0, -5.0], [14.0, 5.0]]))]
    with pytest.raises(ValueError, match="increasing time"):
        replay_crossings(
            terrain, line, {**samples, "t": t[::-1]}, _bodies(rock), lambda k: rock.vertices
        )
    with pytest.raises(ValueError, match="lacks the column"):
        replay_crossings(
            terrain,
            line,
            {k: v for k, v in samples.items() if k != "qw"},
            _bodies(rock),
            lambda k: rock.vertices,
        )
    bad = {**samples, "z": np.array([1.0, np.nan, 1.0, 1.0, 1.0])}
    with pytest.raises(ValueError, match=r"column z .* NaN"):
        replay_crossings(terrain, line, bad, _bodies(rock), lambda k: rock.vertices)
    with pytest.raises(ValueError, match="the run has 1 rocks"):
        replay_crossings(
            terrain,
            line,
            {**samples, "rock": np.full(5, 3)},
            _bodies(rock),
            lambda k: rock.vertices,
        )


def test_crossing_steps_are_those_of_the_reference_crossing_test():
    """A random walk across a zigzag line and a straight one: the steps crossing_steps marks are
    those tumble.rockfall.barriers.crossings (the Python reference of the step's test) finds."""
    rng = np.random.default_rng(4)
    path = np.cumsum(rng.normal(0.0, 1.5, size=(400, 2)), axis=0) + (20.0, 0.0)
    barriers = [
        Barrier("zigzag", np.array([[10.0, -30.0], [25.0, 0.0], [10.0, 30.0]])),
        Barrier("straight", np.array([[30.0, -40.0], [30.0, 40.0]])),
    ]
    expected = sorted({step for step, *_ in crossings(path, barriers)})
    assert len(expected) > 10
    assert crossing_steps(path, barriers).tolist() == expected
    assert crossing_steps(path, []).tolist() == []


def test_crossing_points_straddle_the_line_on_a_national_grid():
    """A crossing point interpolated on a line at x = 2.6e6 m (round-off 0.5 nm): the two points
    lie 64 units in the last place before and after it along the path, the path from the start
    to the first does not cross and the one between them does."""
    x0, y0 = 2_600_000.0, 1_200_000.0
    line = Barrier("l", np.array([[x0 + 10.0, y0 - 5.0], [x0 + 10.3, y0 + 5.0]]))
    start = (x0 + 10.13, y0 + 0.007)
    # where the path towards (x0 + 10.17, y0 + 0.011) meets the line, interpolated
    end = np.array([x0 + 10.17, y0 + 0.011])
    [(_, _, s, _)] = crossings(np.array([start, end]), [line])
    point = np.asarray(start) + s * (end - np.asarray(start))
    pair = crossing_points(start, tuple(point), [line], 0)
    assert pair is not None
    before, after = (np.asarray(p) for p in pair)
    ulp = np.spacing(x0 + 10.0)
    direction = (end - start) / np.linalg.norm(end - start)
    np.testing.assert_allclose(before, point - 64 * ulp * direction, rtol=0, atol=2 * ulp)
    np.testing.assert_allclose(after, point + 64 * ulp * direction, rtol=0, atol=2 * ulp)
    assert crossings(np.array([start, before]), [line]) == []
    assert len(crossings(np.array([before, after]), [line])) == 1
    # a crossing too close to the start to be straddled
    assert crossing_points(start, (start[0] + ulp, start[1]), [line], 0) is None
