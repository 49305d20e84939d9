"""Hazard zoning (tumble.rockfall.hazard.zoning): annual exceedance frequencies and the intensity x
probability matrix on a hand-built case."""

import numpy as np
import pytest

from tumble.rockfall.hazard.zoning import (
    ZONE_MATRIX,
    exceedance_frequency,
    hazard_zone,
    probability_class,
    zoning_rasters,
)


def test_matrix_cells():
    # rows strong, medium, weak; columns high, medium, low probability; 3 red, 2 blue, 1 yellow
    assert ZONE_MATRIX.tolist() == [[3, 3, 3], [3, 2, 2], [2, 1, 1]]


def test_probability_classes_from_return_periods():
    # T = 10, 50, 200, 1000 years and never
    f = np.array([0.1, 0.02, 0.005, 0.001, 0.0])
    assert probability_class(f).tolist() == [0, 1, 2, 3, 3]


def test_a_return_period_on_a_class_limit_belongs_to_the_class():
    """3 of 315 rocks of a source of 0.35 events/year: f = 1/300 per year, summed as
    0.35 * 3 / 315 = 0.0033333333333333327 (f * 300 just below 1); 6 of 63 rocks of the same
    source: f = 1/30, 0.35 * 6 / 63 * 30 = 0.9999999999999998; T = 300 y and T = 30 y are low
    and high probability (T <= 300, T <= 30); 1 % beyond a limit is the next class."""
    on_300 = 0.35 * 3 / 315
    on_30 = 0.35 * 6 / 63
    assert on_300 * 300 < 1.0 and on_30 * 30 < 1.0  # the round-off this is about
    f = np.array([on_300, on_30, 0.99 / 300, 0.99 / 30])
    assert probability_class(f).tolist() == [2, 0, 3, 1]
    # strong intensity with low probability is red
    zone = hazard_zone(np.array([on_300]), np.array([on_300]), np.array([on_300]))
    assert zone.tolist() == [3]


def test_hand_built_frequencies_and_zones():
    # source 0: f = 0.2 / year, rocks 0..3; source 1: f = 0.01 / year, rocks 4..5
    source = np.array([0, 0, 0, 0, 1, 1])
    frequency = [0.2, 0.01]
    # one row per (rock, cell): energies in kJ
    rows = [
        (0, 0, 500.0),  # cell 0: rocks 0, 1 (source 0) above 300 kJ
        (1, 0, 400.0),
        (2, 1, 100.0),  # cell 1: rock 2 (source 0) medium; rock 4 (source 1) strong
        (4, 1, 350.0),
        (4, 2, 20.0),  # cell 2: rocks 4, 5 (source 1) weak
        (5, 2, 10.0),
        (3, 3, 50.0),  # cell 3: rock 3 (source 0) medium, rock 5 (source 1) medium
        (5, 3, 40.0),
        (5, 4, 400.0),  # cell 4: rock 5 (source 1) strong
    ]
    rock, cell, energy = (np.array(v) for v in zip(*rows, strict=True))
    size = 6
    f0 = exceedance_frequency(rock, cell, energy, source, frequency, size, None)
    f30 = exceedance_frequency(rock, cell, energy, source, frequency, size, 30.0)
    f300 = exceedance_frequency(rock, cell, energy, source, frequency, size, 300.0)
    # F = sum_s f_s n_s / N_s with N_0 = 4, N_1 = 2
    np.testing.assert_allclose(f0, [0.1, 0.05 + 0.005, 0.01, 0.05 + 0.005, 0.005, 0.0])
    np.testing.assert_allclose(f30, [0.1, 0.05 + 0.005, 0.0, 0.05 + 0.005, 0.005, 0.0])
    np.testing.assert_allclose(f300, [0.1, 0.005, 0.0, 0.0, 0.005, 0.0])
    zone = hazard_zone(f0, f30, f300)
    # cell 0: strong at T = 10 y -> red; cell 1: medium at T = 18 y -> red;
    # cell 2: weak at T = 100 y -> yellow; cell 3: medium at T = 18 y -> red;
    # cell 4: strong at T = 200 y -> red; cell 5: never reached -> none
    assert zone.tolist() == [3, 3, 1, 3, 3, 0]
    rasters = zoning_rasters((2, 3), rock, cell, energy, source, frequency)
    assert rasters["hazard_zone"].dtype == np.uint8
    np.testing.assert_array_equal(rasters["hazard_zone"].ravel(), zone)
    np.testing.assert_allclose(rasters["frequency_exceeding_300kJ"].ravel(), f300)


@pytest.mark.parametrize(
    ("f0", "f30", "f300", "zone"),
    [
        (0.05, 0.0, 0.0, 2),  # weak, high probability: blue
        (0.02, 0.0, 0.0, 1),  # weak, medium: yellow
        (0.005, 0.0, 0.0, 1),  # weak, low: yellow
        (0.002, 0.0, 0.0, 0),  # weak, residual (T = 500 y): none
        (0.02, 0.02, 0.0, 2),  # medium, medium: blue
        (0.005, 0.005, 0.0, 2),  # medium, low: blue
        (0.05, 0.05, 0.0, 3),  # medium, high: red
        (0.004, 0.004, 0.004, 3),  # strong, low: red
        (0.05, 0.005, 0.002, 2),  # weak high (blue) beats medium low (blue), strong residual
    ],
)
def test_matrix_by_case(f0, f30, f300, zone):
    assert hazard_zone(np.array([f0]), np.array([f30]), np.array([f300]))[0] == zone
