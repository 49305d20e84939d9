"""Released soil presets keep their numbers (``src/tumble/rockfall/released_soils.json``).

A study that names a preset must get the soil it got when it was made: a changed model is a new
name, and the old one stays available. These tests fail when a released preset's values, its
equivalent sets or its spread differ from the file, or when a released name no longer resolves.
They pass for presets added since (names not in the file: ``python -m
tumble.rockfall.released_soils --add NAME`` records them once released) and for soil fields
added since, as long as the released presets resolve to the field's off value 0: a new field
must default to the law as it was.
"""

import json

import pytest

from tumble.errors import TumbleError
from tumble.rockfall.released_soils import (
    RELEASED_FILE,
    ReleasedPresetError,
    add_released,
    check_released,
    main,
    read_released,
)
from tumble.rockfall.soil import FIELDS, RETIRED, Soil
from tumble.rockfall.soil_values import resolved_values


def test_released_presets_keep_their_numbers():
    """Every released preset resolves to the values, sets and spread recorded at its release;
    a field added since resolves to 0 for each of them (the law as it was)."""
    assert check_released() == []


@pytest.mark.parametrize("name", sorted(read_released()))
def test_every_released_name_resolves(name):
    """A released name is accepted, a retired one too (RETIRED names what to use now)."""
    soil = Soil.preset(name)
    for field, value in read_released()[name]["values"].items():
        assert getattr(soil, field) == value, field


def test_medium_scar_resolves_to_its_released_values():
    """medium_scar was released as its own category and then merged into medium; it stays
    available with the values it had when it was merged (typed from the git history of
    soil.py: medium's friction, mu_r 0.1 and the scar layer of Lu et al. 2019), no spread."""
    assert "medium_scar" in RETIRED
    values = {
        "mu_min": 0.55,
        "mu_max": 2.0,
        "kappa": 3.0,
        "beta": 185.0,
        "rolling_resistance": 0.1,
        "scar_strength": 15000.0,
        "scar_cs": 1.5,
    }
    resolved = resolved_values("medium_scar")
    assert resolved["values"] == {f: values.get(f, 0.0) for f in FIELDS}
    assert set(resolved) == {"values"}


@pytest.fixture
def released_copy(tmp_path):
    path = tmp_path / "released.json"
    path.write_text(RELEASED_FILE.read_text())
    return path


def edit(path, change):
    released = json.loads(path.read_text())
    change(released)
    path.write_text(json.dumps(released))


def test_a_changed_number_is_found(released_copy):
    """The release of medium with mu_r 0.15 (as before the Authume refinement) is not today's
    medium: the check names the field and both values."""
    edit(released_copy, lambda r: r["medium"]["values"].update(rolling_resistance=0.15))
    assert check_released(released_copy) == ["medium.rolling_resistance: 0.15 released, 0.1 now"]


def test_changed_sets_and_spread_are_found(released_copy):
    def change(r):
        r["medium"]["sets"][2]["scar_strength"] = 30000.0
        r["medium"]["spread"]["scar_strength"] = [15000.0, 30000.0]
        r["authume_rocky"]["set_joint"] = 2

    edit(released_copy, change)
    assert check_released(released_copy) == [
        "medium.sets.2.scar_strength: 30000.0 released, 60000.0 now",
        "medium.spread: {'scar_strength': [15000.0, 30000.0]} released, "
        "{'scar_strength': [15000.0, 60000.0]} now",
        "authume_rocky.set_joint: 2 released, 6 now",
    ]


def test_a_released_name_that_is_gone_is_found(released_copy):
    edit(released_copy, lambda r: r.update(hard_1999={"values": {"mu_min": 0.3}}))
    assert check_released(released_copy) == [
        "hard_1999: released, but no longer in the catalogue (a released name must resolve)"
    ]


def test_new_presets_and_fields_that_are_off_pass(released_copy):
    """A preset released since is not in an older file, and a field added since is not in its
    records: both pass while the field resolves to 0; a field that resolves to another value
    for a released preset does not."""

    def older(r):
        del r["l14_wheel"]
        for record in r.values():
            del record["values"]["drag_torque"]

    edit(released_copy, older)
    assert check_released(released_copy) == []
    edit(released_copy, lambda r: r["lu2019"]["values"].pop("kappa"))
    assert check_released(released_copy) == [
        "lu2019.kappa: a field added after the release must default to the law as it was (0), "
        "got 3.0"
    ]


def test_add_records_a_new_name_and_never_writes_over_a_released_one(released_copy, capsys):
    edit(released_copy, lambda r: r.pop("l14_wheel"))
    assert add_released(["l14_wheel"], released_copy) == ["l14_wheel"]
    assert read_released(released_copy)["l14_wheel"] == resolved_values("l14_wheel")
    before = released_copy.read_text()
    with pytest.raises(ReleasedPresetError, match="'medium' is released already") as err:
        add_released(["l14_wheel", "medium"], released_copy)
    assert isinstance(err.value, TumbleError)
    with pytest.raises(ReleasedPresetError, match="'hard' is not in the catalogue"):
        add_released(["hard"], released_copy)
    assert released_copy.read_text() == before
    assert main(["--add", "lu2019", "--file", str(released_copy)]) == 2
    assert "'lu2019' is released already" in capsys.readouterr().err
    assert main(["--check", "--file", str(released_copy)]) == 0
