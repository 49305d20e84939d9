"""``tumble rockfall soils``: every preset with its parameters and source, and what is left out."""

import json

from tumble.cli.main import main
from tumble.rockfall.soil import CATALOGUE, PRESETS


def test_soils_lists_every_preset_with_its_source(capsys):
    assert main(["rockfall", "soils"]) == 0
    out = capsys.readouterr().out
    for name, preset in CATALOGUE.items():
        assert name in out and preset.source in out
    assert "left out: the RAMMS::ROCKFALL terrain categories" in out
    assert main(["rockfall", "soils", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["soils"]
    assert {r["name"] for r in rows} == set(PRESETS)
    for r in rows:
        for field, value in PRESETS[r["name"]].items():
            assert r[field] == value


def test_soils_lists_each_spread_with_its_source(capsys):
    assert main(["rockfall", "soils", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["soils"]}
    assert rows["lu2019"]["uncertainty"] == [] and rows["lu2019"]["spread"] == {}
    assert rows["medium"]["uncertainty"] == ["category", "sets"]
    assert rows["medium"]["spread"] == {"scar_strength": [15000.0, 60000.0]}
    assert [s["scar_strength"] for s in rows["medium"]["sets"]] == [15000.0, 15000.0, 60000.0]
    assert rows["medium"]["spread_source"] == CATALOGUE["medium"].spread_source
    veg = rows["authume_vegetated"]
    assert veg["uncertainty"] == ["sets"] and len(veg["sets"]) == 3
    assert rows["authume_hard"]["uncertainty"] == []
    assert main(["rockfall", "soils"]) == 0
    out = capsys.readouterr().out
    assert "uncertainty = 'category': scar_strength uniform in [15000, 60000]" in out
    assert "one of 3 equivalent sets" in out


def test_soils_say_on_which_slopes_the_friction_holds_a_sliding_rock(capsys):
    """atan(mu_max): medium atan 2 = 63.43 deg, authume_hard atan 0.6 = 30.96 deg (hand values to
    0.01 deg); the slippage to hold a rock on 40 deg is (tan 40 - 0.55) / 1.45 ... = 0.108 m on
    medium (test_soil.py), none on authume_hard (null in JSON, "never" in the listing)."""
    assert main(["rockfall", "soils", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["soils"]}
    assert abs(rows["medium"]["holds_sliding_below_deg"] - 63.43) < 0.01
    assert abs(rows["authume_hard"]["holds_sliding_below_deg"] - 30.96) < 0.01
    assert abs(rows["medium"]["holding_slippage_m"]["40"] - 0.108) < 0.001
    assert rows["authume_hard"]["holding_slippage_m"] == {"35": None, "40": None, "45": None}
    assert rows["l14_wheel"]["holding_slippage_m"]["45"] == 0.0
    assert main(["rockfall", "soils"]) == 0
    out = capsys.readouterr().out
    assert "friction holds a sliding rock on slopes below 31.0 deg" in out
    assert "35 deg never, 40 deg never, 45 deg never" in out
    assert "35 deg at once" in out
