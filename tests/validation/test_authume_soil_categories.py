"""The Authume categories of the soil catalogue are the calibration's zone rows: the values are
the calibrated set's and the equivalent sets are CALIBRATION_EQUIVALENT's, at the 1 m^3 block."""

import pytest

from tumble.rockfall.soil import CATALOGUE, FIELDS
from tumble.validation.authume import (
    CALIBRATED,
    CALIBRATED_JOINT,
    CALIBRATION_EQUIVALENT,
    ROCKY_EQUIVALENT,
)

ROWS = {"authume_vegetated": "blue", "authume_hard": "gray", "authume_rocky": "red"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_authume_categories_are_the_calibrated_zone_rows(name):
    preset = CATALOGUE[name]
    row = ROWS[name]
    assert preset.values == CALIBRATED.table(1.0)[row]
    # the equivalent sets' zone rows, in their order, distinct ones only; none where they all
    # agree on the zone (a single set is no spread)
    rows = []
    for parameters in CALIBRATION_EQUIVALENT:
        table = parameters.table(1.0)[row]
        full = {f: table.get(f, 0.0) for f in FIELDS}
        if full not in rows:
            rows.append(full)
    expected = rows if len(rows) > 1 else []
    assert [{f: s.get(f, 0.0) for f in FIELDS} for s in preset.sets] == expected
    # a category's spread: the range of the one field its sets differ in, where that is a
    # number the rows take from a single calibrated value (the rocky zone's mu_r)
    varying = {f for f in FIELDS if len({s[f] for s in expected}) > 1}
    if name == "authume_rocky":
        assert varying == {"rolling_resistance"}
        values = [s["rolling_resistance"] for s in expected]
        assert preset.spread == {"rolling_resistance": (min(values), max(values))}
    else:
        assert not preset.spread


@pytest.mark.parametrize(
    ("name", "row"), [("authume_vegetated_joint", "blue"), ("authume_rocky_joint", "red")]
)
def test_the_joint_categories_are_the_joint_calibration_s_zone_rows(name, row):
    """The zones that the calibration on P1 and P2 together changed, under new names; the
    released categories keep the two-stage rows."""
    assert CATALOGUE[name].values == CALIBRATED_JOINT.table(1.0)[row]
    old = CATALOGUE[name.removesuffix("_joint")]
    assert old.values != CATALOGUE[name].values
    assert not CATALOGUE[name].sets and not CATALOGUE[name].spread


def test_the_rocky_category_is_the_second_stage_of_the_calibration():
    """authume_rocky: the Red zone's mu_r of the calibration's second stage (on P2), best first,
    the other equivalent value next; the hard zone keeps the first stage's."""
    rocky = CATALOGUE["authume_rocky"]
    assert [s["rolling_resistance"] for s in rocky.sets] == list(ROCKY_EQUIVALENT)
    assert rocky.values["rolling_resistance"] == CALIBRATED.rocky_rolling_resistance
    hard = CATALOGUE["authume_hard"]
    assert hard.values["rolling_resistance"] == CALIBRATED.rolling_resistance


def test_medium_takes_the_soil_strengths_and_rolling_resistance_of_the_equivalent_sets():
    """medium: Lu et al.'s soil with the Authume mu_r (every equivalent set has the same) and the
    range of the soil zone's Me over the equivalent sets as its spread."""
    medium = CATALOGUE["medium"]
    assert {p.rolling_resistance for p in CALIBRATION_EQUIVALENT} == {
        medium.values["rolling_resistance"]
    }
    strengths = [p.scar_strength for p in CALIBRATION_EQUIVALENT]
    assert medium.spread["scar_strength"] == (min(strengths), max(strengths))
    assert sorted({s["scar_strength"] for s in medium.sets}) == sorted(set(strengths))
