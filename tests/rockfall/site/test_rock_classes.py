"""Rock classes (tumble.rockfall.site.rock_classes): shares within binomial tolerance, the volume
distributions against their distribution functions, one stream per rock, bad shares."""

import math

import numpy as np
import pytest

from tumble.io.config import validate
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.rock_classes import (
    RockClass,
    VolumeDistribution,
    check_shares,
    class_rng,
    draw_classes,
)

N = 4000


def binomial_ok(count: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1.0 - p))


def test_shares_within_binomial_tolerance():
    classes = [
        RockClass("small", Rock.eota111(mass=200.0), 0.3),
        RockClass("large", Rock.eota221(mass=800.0), 0.5),
        RockClass("boxes", Rock.box(1.0, 0.5, 0.4, mass=500.0), 0.2),
    ]
    drawn = draw_classes(classes, N, seed=11)
    counts = np.bincount(drawn.class_id, minlength=3)
    for count, c in zip(counts, classes, strict=True):
        assert binomial_ok(int(count), N, c.share), (c.name, count)
    # each rock gets its class's shape at its class's mass
    expected = np.array([200.0, 800.0, 500.0])[drawn.class_id]
    np.testing.assert_allclose(drawn.mass, expected, rtol=1e-12)
    assert np.all(drawn.scale == 1.0)


def test_lognormal_volume_median_and_spread():
    median, sigma = 0.3, 0.5
    shape = Rock.eota221(mass=780.0)
    drawn = draw_classes(
        [RockClass("blocks", shape, 1.0, VolumeDistribution("lognormal", median, sigma))], N, 2
    )
    volume = drawn.mass / shape.density
    # ln V is normal(ln median, sigma^2): below the median with probability 1/2 ...
    assert binomial_ok(int(np.count_nonzero(volume < median)), N, 0.5)
    # ... and below median * exp(sigma) with probability Phi(1) = 0.841345
    assert binomial_ok(int(np.count_nonzero(volume < median * math.exp(sigma))), N, 0.841345)
    # the shape is scaled to the volume: scale^3 V_shape = V
    np.testing.assert_allclose(drawn.scale**3 * shape.volume, volume, rtol=1e-12)


def test_power_law_volume_against_its_exceedance_function():
    b, low, high = 0.7, 0.05, 5.0
    law = VolumeDistribution("power_law", exponent=b, min_m3=low, max_m3=high)
    rng = np.random.default_rng(0)
    volume = np.array([law.draw(rng) for _ in range(N)])
    assert volume.min() >= low and volume.max() <= high
    for v in (0.1, 0.5, 2.0):
        # P(V > v) = (v^-b - max^-b) / (min^-b - max^-b) of the truncated power law
        p = (v**-b - high**-b) / (low**-b - high**-b)
        assert binomial_ok(int(np.count_nonzero(volume > v)), N, p), v


def test_each_rock_has_its_own_stream():
    classes = [
        RockClass("a", Rock.eota111(mass=100.0), 0.5, VolumeDistribution("lognormal", 0.1, 0.3)),
        RockClass("b", Rock.eota221(mass=100.0), 0.5),
    ]
    many = draw_classes(classes, 50, seed=4)
    few = draw_classes(classes, 20, seed=4)
    np.testing.assert_array_equal(many.class_id[:20], few.class_id)
    np.testing.assert_array_equal(many.mass[:20], few.mass)
    # the class stream is not the release stream of the same rock
    assert (
        class_rng(4, 0).random()
        != np.random.default_rng(np.random.SeedSequence(4, spawn_key=(0,))).random()
    )


def test_shares_must_sum_to_one():
    with pytest.raises(ValueError, match=r"sum to 0\.9"):
        check_shares([0.3, 0.6])
    with pytest.raises(ValueError, match="positive"):
        check_shares([1.2, -0.2])
    with pytest.raises(ValueError, match=r"shares of rock.classes sum to 1\.1"):
        validate(
            {
                "rock": {
                    "classes": [
                        {"name": "a", "share": 0.5, "mass": 100.0},
                        {"name": "b", "share": 0.6, "mass": 100.0},
                    ]
                }
            }
        )
    with pytest.raises(ValueError, match="a lognormal volume needs sigma"):
        validate(
            {
                "rock": {
                    "classes": [
                        {
                            "name": "a",
                            "share": 1.0,
                            "volume": {"distribution": "lognormal", "median": 1.0},
                        }
                    ]
                }
            }
        )
    with pytest.raises(ValueError, match="give one of mass, volume, size"):
        validate({"rock": {"classes": [{"name": "a", "share": 1.0, "mass": 1.0, "size": 1.0}]}})


def test_the_resolved_configuration_shows_the_density_as_given():
    """A class built at 2740 kg/m^3 describes its density as 2740, not the hull's mass over its
    volume to the last bit (2739.9999999999995 for EOTA221), and the mass and volume as built."""
    shape = Rock.eota221(mass=2740.0, density=2740.0)
    assert shape.density == pytest.approx(2740.0, rel=1e-15)  # the hull's quotient
    lognormal = VolumeDistribution("lognormal", median_m3=1.0, sigma=0.5)
    described = RockClass("large", shape, 1.0, lognormal).describe()
    assert described["density"] == 2740.0
    plain = RockClass("small", Rock.eota111(mass=274.0, density=2740.0), 1.0).describe()
    assert plain["density"] == 2740.0
    assert plain["mass"] == 274.0
    assert plain["volume_m3"] == pytest.approx(0.1, rel=1e-12)
