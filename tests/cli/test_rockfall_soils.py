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
    assert rows["medium"]["uncertainty"] == [] and rows["medium"]["spread"] == {}
    hard = rows["authume_hard"]
    assert hard["uncertainty"] == ["category", "sets"]
    assert hard["spread"] == {"rolling_resistance": [0.1, 0.2]}
    assert [s["rolling_resistance"] for s in hard["sets"]] == [0.15, 0.1, 0.2, 0.05]
    assert hard["spread_source"] == CATALOGUE["authume_hard"].spread_source
    assert main(["rockfall", "soils"]) == 0
    out = capsys.readouterr().out
    assert "uncertainty = 'category': rolling_resistance uniform in [0.1, 0.2]" in out
    assert "one of 4 equivalent sets" in out
