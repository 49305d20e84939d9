"""The release's rock streams drawn for many rocks at once: the same numbers as one NumPy
generator per rock, and the same starts as the rock-by-rock draw."""

import numpy as np
import pytest

from tumble.rockfall.release import Release, quaternions, rock_rng, uniform_quaternion
from tumble.rockfall.release.streams import first_uniforms
from tumble.rockfall.terrain import Terrain

SEEDS = (0, 1, 12345, 2**32 - 1, 2**32 + 5, 2**70 + 3, 2**130 + 7)


@pytest.mark.parametrize("seed", SEEDS)
def test_first_uniforms_are_those_of_each_rocks_generator(seed):
    rocks = np.concatenate(
        [[0, 1, 2, 999, 2**31, 2**32 - 1], np.random.default_rng(5).integers(0, 2**32, 40)]
    )
    got = first_uniforms(seed, rocks, 6)
    want = np.array([rock_rng(seed, int(k)).random(6) for k in rocks])
    assert np.array_equal(got, want)  # bit for bit


def test_first_uniforms_refuse_rocks_beyond_one_word():
    with pytest.raises(ValueError, match="2\\^32"):
        first_uniforms(1, np.array([2**32]), 1)


def test_quaternions_are_those_of_uniform_quaternion():
    uniforms = first_uniforms(3, np.arange(2000), 3)
    want = np.array([uniform_quaternion(rock_rng(3, k)) for k in range(2000)])
    assert np.array_equal(quaternions(uniforms), want)


def _one_by_one(release: Release, terrain: Terrain, n: int, seed: int, first: int):
    place, orientation = np.empty((n, 2)), np.empty((n, 4))
    for i in range(n):
        place[i], orientation[i] = release._start(rock_rng(seed, first + i), first + i, terrain)
    return place, orientation


@pytest.mark.parametrize(
    "release",
    [
        Release.for_scenario("slope40"),
        Release(point=(10.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0)),
        Release(line=((5.0, -20.0), (15.0, 30.0))),
        # partly off the DEM (y < -250): those rocks draw their place again from their stream
        Release(line=((5.0, -300.0), (15.0, 30.0))),
        Release(line=((5.0, -300.0), (15.0, 30.0)), orientation=(0.0, 1.0, 0.0, 0.0)),
    ],
)
def test_draw_gives_the_starts_of_the_rock_by_rock_draw(release):
    terrain = Terrain.scenario("slope40")
    n, seed, first = 1500, 7, 4321
    states = release.draw(terrain, n, seed, first=first)
    place, orientation = _one_by_one(release, terrain, n, seed, first)
    assert np.array_equal(states.position[:, :2], place)
    assert np.array_equal(states.orientation, orientation)


def test_a_line_off_the_dem_leaves_those_rocks_to_the_rock_by_rock_draw():
    terrain = Terrain.scenario("slope40")
    release = Release(line=((5.0, -300.0), (15.0, 30.0)))
    place, orientation = np.empty((400, 2)), np.empty((400, 4))
    left = np.asarray(release._first_starts(terrain, 400, 1, 0, place, orientation))
    # the line's first 50 of 330 m are off the DEM: about 15 % of the rocks
    assert 0.08 < left.size / 400 < 0.23
    assert not terrain.contains(place[left, 0], place[left, 1]).any()
