"""``qgis_process run tumble:rockfall_run`` with QGIS's own packages (Debian's ``qgis`` and
``python3-qgis``), headless: a small synthetic site writes its run folder, the outputs load as
valid layers with their styles, a release layer in another CRS is transformed, tumble's error
reaches the log as its sentence, and a missing tumble gives the install command.

QGIS's Python is not this environment's, so the test drives ``qgis_process`` and the system
Python that imports ``qgis`` in subprocesses; it is skipped where QGIS is not installed.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
QGIS_PROCESS = shutil.which("qgis_process.bin") or shutil.which("qgis_process")
QGIS_PYTHON = "/usr/bin/python3"


def _qgis_python():
    if not os.path.exists(QGIS_PYTHON):
        return False
    done = subprocess.run([QGIS_PYTHON, "-c", "import qgis.core"], capture_output=True)
    return done.returncode == 0


pytestmark = pytest.mark.skipif(
    QGIS_PROCESS is None or not _qgis_python(),
    reason="QGIS not installed (apt-get install qgis python3-qgis)",
)

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

LOAD = """
import json, sys
from qgis.core import QgsApplication, QgsRasterLayer, QgsVectorLayer
app = QgsApplication([], False)
app.initQgis()
out = {}
for name, path in json.loads(sys.argv[1]).items():
    layer = (QgsVectorLayer(path, name, "ogr") if path.endswith(".gpkg")
             else QgsRasterLayer(path, name))
    renderer = layer.renderer()
    out[name] = [layer.isValid(), renderer.type() if renderer else None,
                 getattr(renderer, "classAttribute", lambda: None)(), layer.featureCount()
                 if path.endswith(".gpkg") else layer.width()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A 38 degree slope onto a flat run-out (60 x 20 cells of 2 m, EPSG:2056), a release
    polygon drawn in WGS 84, and a tumble command that runs this checkout."""
    import rasterio
    from rasterio.transform import from_origin
    from rasterio.warp import transform

    folder = tmp_path_factory.mktemp("qgis_site")
    x = np.arange(60) * 2.0
    z = np.tile(np.where(x < 70, (70 - x) * np.tan(np.radians(38)), 0.0), (20, 1))
    with rasterio.open(
        folder / "dem.tif",
        "w",
        driver="GTiff",
        width=60,
        height=20,
        count=1,
        dtype="float32",
        crs="EPSG:2056",
        transform=from_origin(2600000, 1200040, 2, 2),
    ) as dem:
        dem.write(z.astype("float32"), 1)
    xs, ys = [2600006, 2600016, 2600016, 2600006], [1200012, 1200012, 1200028, 1200028]
    lon, lat = transform("EPSG:2056", "EPSG:4326", xs, ys)
    ring = [[a, b] for a, b in zip(lon, lat, strict=True)]
    feature = {
        "type": "Feature",
        "properties": {"name": "cliff", "freq": 0.5},
        "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
    }
    (folder / "release.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": [feature]})
    )
    (folder / "run.toml").write_text("[output]\nfigures = false\ntrajectories = 0\n")
    tumble = folder / "bin" / "tumble"
    tumble.parent.mkdir()
    tumble.write_text(
        f"#!/bin/sh\nPYTHONPATH={ROOT / 'src'} exec {sys.executable} -c "
        "'import sys; from tumble.cli.main import main; sys.exit(main())' \"$@\"\n"
    )
    tumble.chmod(0o755)
    return folder


def _environment(site, tumble):
    home = site / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ)
    # a virtual environment's bin/ on PATH makes QGIS's Python take its prefix
    env["PATH"] = os.pathsep.join(
        entry
        for entry in env.get("PATH", "").split(os.pathsep)
        if entry and not (Path(entry).parent / "pyvenv.cfg").exists()
    )
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(name, None)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(home),
        QGIS_PLUGINPATH=str(ROOT / "qgis"),
        TUMBLE_COMMAND=str(tumble),
    )
    return env


def _run(site, tumble, out, release=None, **extra):
    env = _environment(site, tumble)
    assert QGIS_PROCESS is not None
    subprocess.run([QGIS_PROCESS, "plugins", "enable", "tumble_qgis"], env=env, capture_output=True)
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
    argv = [QGIS_PROCESS, "run", "tumble:rockfall_run", "--"]
    argv += [f"{key}={value}" for key, value in arguments.items()]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def test_a_run_writes_its_folder_and_its_layers_load_styled(site):
    out = site / "run"
    code, log = _run(site, site / "bin" / "tumble", out)
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
    env = _environment(site, site / "bin" / "tumble")
    loaded = subprocess.run(
        [QGIS_PYTHON, "-c", LOAD, json.dumps(paths)], env=env, capture_output=True, text=True
    )
    assert loaded.returncode == 0, loaded.stderr
    layers = json.loads(loaded.stdout.strip().splitlines()[-1])
    for name, (valid, renderer, _attribute, size) in layers.items():
        assert valid, name
        assert renderer == RENDERERS[name], name
        assert size > 0, name
    assert layers["DEPOSITS"][2] == "status" and layers["EXITS"][2] == "kind"
    # the release drawn in WGS 84 went to the DEM's CRS: every rock started in the polygon
    starts = json.loads((out / "summary.json").read_text())
    assert starts  # the run finished with its summary
    import pyogrio

    table = pyogrio.read_arrow(out / "deposits.gpkg", columns=["release_x", "release_y"])[1]
    release_x = table.column("release_x").to_numpy()
    release_y = table.column("release_y").to_numpy()
    assert np.all((release_x > 2600005.9) & (release_x < 2600016.1)), release_x
    assert np.all((release_y > 1200011.9) & (release_y < 1200028.1)), release_y


def test_tumbles_error_reaches_the_log_as_its_sentence(site):
    """A release area off the DEM: tumble refuses it in one sentence, no traceback."""
    far = site / "far.geojson"
    text = (site / "release.geojson").read_text()
    feature = json.loads(text)
    ring = feature["features"][0]["geometry"]["coordinates"][0]
    feature["features"][0]["geometry"]["coordinates"][0] = [[a + 0.1, b] for a, b in ring]
    far.write_text(json.dumps(feature))
    code, log = _run(site, site / "bin" / "tumble", site / "far_run", release=far)
    assert code != 0
    assert "Traceback" not in log
    assert "there is no place on the DEM where rocks fit" in log


def test_a_missing_tumble_gives_the_install_command(site):
    code, log = _run(site, site / "no" / "tumble", site / "missing_run")
    assert code != 0
    assert "does not exist; install tumble in its own Python environment" in log
    assert "pip install" in log and "Traceback" not in log
    assert not (site / "missing_run" / "provenance.json").exists()
