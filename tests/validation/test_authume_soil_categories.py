"""The Authume categories of the soil catalogue are the calibration's zone rows: the values are
the calibrated set's and the equivalent sets are CALIBRATION_EQUIVALENT's, at the 1 m^3 block."""

import pytest

from tumble.rockfall.soil import CATALOGUE, FIELDS
from tumble.validation.authume import CALIBRATED, CALIBRATION_EQUIVALENT

ROWS = {"authume_vegetated": "blue", "authume_hard": "gray", "authume_rocky": "red"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_authume_categories_are_the_calibrated_zone_rows(name):
    preset = CATALOGUE[name]
    row = ROWS[name]
    assert preset.values == CALIBRATED.table(1.0)[row]
    assert len(preset.sets) == len(CALIBRATION_EQUIVALENT)
    for drawn, parameters in zip(preset.sets, CALIBRATION_EQUIVALENT, strict=True):
        table = parameters.table(1.0)[row]
        assert {f: drawn.get(f, 0.0) for f in FIELDS} == {f: table.get(f, 0.0) for f in FIELDS}
    # the category's mu_r range is the band P1 leaves (0.1-0.2), which holds the three
    # equivalent sets that differ only in mu_r
    if "rolling_resistance" in preset.spread:
        low, high = preset.spread["rolling_resistance"]
        assert (low, high) == (0.1, 0.2)
        assert all(low <= s["rolling_resistance"] <= high for s in preset.sets[:3])
