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
    # the category's mu_r range is that of the equivalent sets (P1's band that passes its own
    # KS test)
    if "rolling_resistance" in preset.spread:
        mu_r = [p.rolling_resistance for p in CALIBRATION_EQUIVALENT]
        assert preset.spread["rolling_resistance"] == (min(mu_r), max(mu_r))
