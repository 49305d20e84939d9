"""The plugin's reading of tumble's outputs (``qgis/tumble_qgis/results.py``, no QGIS import):
a barrier's verdict from its design values, the barriers file written from a layer, the fields
of a place from ``tumble rockfall sources --json``; and the plugin's metadata as the QGIS
plugin repository takes it."""

import configparser
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "qgis" / "tumble_qgis"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"tumble_qgis_{name}", PLUGIN / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


results = _load("results")
command = _load("command")


def _net(energy_ok, height_ok):
    return {"name": "n", "design": {"energy_ok": energy_ok, "height_ok": height_ok}}


def test_a_verdict_is_verified_only_when_every_judged_check_holds():
    assert results.verdict(_net(True, True)) == "verified"
    assert results.verdict(_net(True, False)) == "not verified"
    assert results.verdict(_net(False, True)) == "not verified"
    assert results.verdict(_net(None, True)) == "verified"  # a net without a capacity
    assert results.verdict(_net(None, None)) == "no verdict"  # an observation line
    assert results.verdict({"name": "no rock crossed"}) == "no verdict"


def test_a_barrier_row_keeps_tumbles_numbers():
    barrier = {
        "name": "fence A",
        "kind": "net",
        "rocks_crossing": 12,
        "kinetic_energy_kJ": {"p95": 105.4},
        "passing_height_m": {"p95": 1.58},
        "height_m": 4.0,
        "capacity_kJ": 500.0,
        "design": {"E_d_kJ": 126.6, "h_d_m": 1.91, "energy_ok": True, "height_ok": False},
    }
    row = results.barrier_row(barrier)
    assert set(row) == set(results.BARRIER_FIELDS)
    assert row["energy_p95_kJ"] == 105.4 and row["E_d_kJ"] == 126.6 and row["h_d_m"] == 1.91
    assert (row["energy_ok"], row["height_ok"], row["verdict"]) == (1, 0, "not verified")
    assert row["overtopping_probability"] is None


def test_the_barriers_file_reads_back_as_written():
    entries = [
        {"name": 'fence "A"', "line": [[2600080.25, 1200002.0], [2600080.0, 1200038.5]],
         "height": 4.0, "capacity": 500.0, "uphill": "left"},
        {"name": "obs\\1", "line": [[-1e-3, 2.0], [3.0, 4.0]]},
    ]  # fmt: skip
    read = tomllib.loads(results.barriers_toml(entries))["barrier"]
    assert read == entries
    with pytest.raises(ValueError, match="not a finite number"):
        results.barriers_toml([{"name": "x", "line": [[float("nan"), 0.0], [1.0, 1.0]]}])


def test_a_place_row_from_the_sources_record():
    record = {
        "reached": True,
        "sources": [{"name": "cliff"}, {"name": "gully"}],
        "rocks": [{"rock": 3}, {"rock": 8}],
        "values": {"reach_probability": 0.25, "kinetic_energy_p95": 62.3, "hazard_zone": 3.0},
    }
    row = results.place_row(record)
    assert set(row) == set(results.PLACE_FIELDS)
    assert row["areas"] == "cliff, gully" and row["rocks_reaching"] == 2
    assert row["hazard_zone"] == 3 and row["kinetic_energy_p95_kJ"] == 62.3
    assert row["energy_line_angle_deg"] is None
    # a run without visits: the rocks cannot be counted, which is not zero
    assert results.place_row({**record, "rocks": None})["rocks_reaching"] is None


def test_stdout_is_captured_apart_from_the_log(tmp_path):
    script = tmp_path / "sources"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nprint('warning: w', file=sys.stderr)\n"
        "print('{\"reached\": false}')\nsys.exit(1)\n"
    )
    script.chmod(0o755)
    lines = []
    outcome = command.run_streaming([str(script)], lines.append, lambda: False, capture_stdout=True)
    assert lines == ["warning: w"]
    assert outcome.stdout == '{"reached": false}\n' and outcome.returncode == 1


def test_the_metadata_has_what_the_plugin_repository_asks():
    metadata = configparser.ConfigParser()
    metadata.read(PLUGIN / "metadata.txt", encoding="utf-8")
    general = metadata["general"]
    for key in ("name", "qgisMinimumVersion", "description", "about", "version", "author"):
        assert general[key].strip(), key
    for key in ("email", "homepage", "tracker", "repository"):
        assert general[key].strip(), key
    assert (PLUGIN / general["icon"]).is_file() and (PLUGIN / "LICENSE").is_file()
    assert general["hasProcessingProvider"] == "yes"
    # the plugin's version is tumble's (pyproject.toml)
    project = tomllib.loads((PLUGIN.parents[1] / "pyproject.toml").read_text())["project"]
    assert general["version"] == project["version"]
    # every style the algorithms load is shipped
    for table in (results.RASTERS, results.VECTORS, results.DELTA_RASTERS):
        for _path, _title, style in table.values():
            assert (PLUGIN / "styles" / style).is_file(), style
    assert (PLUGIN / "styles" / "barrier_lines.qml").is_file()


def test_the_readmes_qgis_pictures_are_there_and_small():
    root = PLUGIN.parents[1]
    readme = (root / "README.md").read_text()
    for name in ("qgis_reach_probability", "qgis_hazard_zone", "qgis_compare"):
        picture = root / "docs" / "img" / f"{name}.png"
        assert f"(docs/img/{name}.png)" in readme
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert picture.stat().st_size < 200_000, name
