"""``qgis_process run tumble:rockfall_run`` with QGIS's own packages (Debian's ``qgis`` and
``python3-qgis``), headless: a small synthetic site writes its run folder, the outputs load as
valid layers with their styles, a release layer in another CRS is transformed, tumble's error
reaches the log as its sentence, and a missing tumble gives the install command.

QGIS's Python is not this environment's, so the test drives ``qgis_process`` and the system
Python that imports ``qgis`` in subprocesses; it is skipped where QGIS is not installed.
"""

import json

import numpy as np
import pytest

#: what each output's style makes of it: renderer type
RENDERERS = {
    "REACH_PROBABILITY": "singlebandpseudocolor",
    "KINETIC_ENERGY_P95": "singlebandpseudocolor",
    "JUMP_HEIGHT_P95": "singlebandpseudocolor",
    "ENERGY_LINE_ANGLE": "singlebandpseudocolor",
    "HAZARD_ZONE": "paletted",
    "DEPOSITS": "categorizedSymbol",
    "EXITS": "categorizedSymbol",
}


def _run(qgis, site, tumble, out, release=None, **extra):
    arguments = {
        "DEM": site / "dem.tif",
        "RELEASE": release or site / "release.geojson",
        "NAME_FIELD": "name",
        "FREQUENCY_FIELD": "freq",
        "ROCKS": 12,
        "CONFIG": site / "run.toml",
        "OUTPUT": out,
        **extra,
    }
    return qgis.run("rockfall_run", arguments, tumble)


def _barrier_lines(site):
    """A net across the run-out at x = 100 m (field names in capitals: read in any case; its
    capacity of 1 kJ lets every moving rock break through, so rocks still leave the DEM) and an
    observation line at x = 60 m, drawn in WGS 84."""
    from rasterio.warp import transform

    features = []
    for x, props in ((100.0, {"Name": "net", "HEIGHT": 4.0, "Capacity": 1.0}), (60.0, {})):
        lon, lat = transform("EPSG:2056", "EPSG:4326", [2600000 + x] * 2, [1200002, 1200038])
        line = {"type": "LineString", "coordinates": [[lon[0], lat[0]], [lon[1], lat[1]]]}
        features.append({"type": "Feature", "properties": props, "geometry": line})
    path = site / "barriers.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def test_a_run_writes_its_folder_and_its_layers_load_styled(qgis, site):
    out = site / "run"
    code, log = _run(qgis, site, site / "bin" / "tumble", out, BARRIERS=_barrier_lines(site))
    assert code == 0, log
    assert (out / "provenance.json").is_file() and (out / "summary.json").is_file()
    assert "rocks 12/12 (100 %)" in log
    paths = {
        name: str(out / rel)
        for name, rel in {
            "REACH_PROBABILITY": "rasters/reach_probability.tif",
            "KINETIC_ENERGY_P95": "rasters/kinetic_energy_p95.tif",
            "JUMP_HEIGHT_P95": "rasters/jump_height_p95.tif",
            "ENERGY_LINE_ANGLE": "rasters/energy_line_angle.tif",
            "HAZARD_ZONE": "rasters/hazard_zone.tif",
            "DEPOSITS": "deposits.gpkg",
            "EXITS": "exits.gpkg",
        }.items()
    }
    for name, path in paths.items():
        assert f"{name}:\t{path}" in log
    layers = qgis.layers(paths, tumble=site / "bin" / "tumble")
    for name, (valid, renderer, _attribute, size) in layers.items():
        assert valid, name
        assert renderer == RENDERERS[name], name
        assert size > 0, name
    assert layers["DEPOSITS"][2] == "status" and layers["EXITS"][2] == "kind"
    # the barrier layer's fields made the first line a net; the lines drawn in WGS 84 are
    # 36 m long in the DEM's CRS
    barriers = json.loads((out / "summary.json").read_text())["barriers"]
    assert [(b["name"], b["kind"]) for b in barriers] == [("net", "net"), ("line_2", "line")]
    assert (barriers[0]["height_m"], barriers[0]["capacity_kJ"]) == (4.0, 1.0)
    assert [b["length_m"] for b in barriers] == pytest.approx([36.0, 36.0], abs=1e-3)
    # the release drawn in WGS 84 went to the DEM's CRS: every rock started in the polygon
    import pyogrio

    table = pyogrio.read_arrow(out / "deposits.gpkg", columns=["release_x", "release_y"])[1]
    release_x = table.column("release_x").to_numpy()
    release_y = table.column("release_y").to_numpy()
    assert np.all((release_x > 2600005.9) & (release_x < 2600016.1)), release_x
    assert np.all((release_y > 1200011.9) & (release_y < 1200028.1)), release_y


def test_tumbles_error_reaches_the_log_as_its_sentence(qgis, site):
    """A release area off the DEM: tumble refuses it in one sentence, no traceback."""
    far = site / "far.geojson"
    text = (site / "release.geojson").read_text()
    feature = json.loads(text)
    ring = feature["features"][0]["geometry"]["coordinates"][0]
    feature["features"][0]["geometry"]["coordinates"][0] = [[a + 0.1, b] for a, b in ring]
    far.write_text(json.dumps(feature))
    code, log = _run(qgis, site, site / "bin" / "tumble", site / "far_run", release=far)
    assert code != 0
    assert "Traceback" not in log
    assert "there is no place on the DEM where rocks fit" in log


def test_a_missing_tumble_gives_the_install_command(qgis, site):
    code, log = _run(qgis, site, site / "no" / "tumble", site / "missing_run")
    assert code != 0
    assert "does not exist; install tumble in its own Python environment" in log
    assert "pip install" in log and "Traceback" not in log
    assert not (site / "missing_run" / "provenance.json").exists()
