"""What the QGIS tests share: QGIS's own programs (Debian's ``qgis`` and ``python3-qgis``:
``qgis_process.bin`` and the system Python that imports ``qgis``), run headless in subprocesses
with the plugin of this checkout, and a small synthetic site with a ``tumble`` command that runs
this checkout. A test that asks for :func:`qgis` is skipped where QGIS is not installed.

QGIS's Python is not this environment's: a virtual environment's ``bin/`` on ``PATH`` makes it
take that prefix and fail to import ``qgis`` ("Couldn't load SIP module"), so the environment of
the QGIS programs leaves such folders out and reaches tumble through ``TUMBLE_COMMAND``.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
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


#: QGIS's Python: each file's layer, valid, its renderer, the attribute it classifies, and its
#: size (features of a vector layer, columns of a raster)
LAYERS = """
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


@dataclass
class Qgis:
    """QGIS's programs, run with the plugin of this checkout and ``HOME`` in ``home``."""

    process: str
    python: str
    home: Path

    def environment(self, tumble):
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join(
            entry
            for entry in env.get("PATH", "").split(os.pathsep)
            if entry and not (Path(entry).parent / "pyvenv.cfg").exists()
        )
        for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(name, None)
        env.update(
            QT_QPA_PLATFORM="offscreen",
            HOME=str(self.home),
            QGIS_PLUGINPATH=str(ROOT / "qgis"),
            TUMBLE_COMMAND=str(tumble),
        )
        return env

    def run(self, algorithm, arguments, tumble):
        """``qgis_process run tumble:<algorithm> -- KEY=value ...``: (exit status, log)."""
        env = self.environment(tumble)
        subprocess.run(
            [self.process, "plugins", "enable", "tumble_qgis"], env=env, capture_output=True
        )
        argv = [self.process, "run", f"tumble:{algorithm}", "--"]
        argv += [f"{key}={value}" for key, value in arguments.items()]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
        return done.returncode, done.stdout + done.stderr

    def script(self, code, *args, tumble):
        """``code`` run by QGIS's Python with ``args``: the JSON of its last line of output."""
        done = subprocess.run(
            [self.python, "-c", code, *map(str, args)],
            env=self.environment(tumble),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    def layers(self, paths, tumble):
        """Each file of ``paths`` (name -> path) loaded by QGIS with the style beside it:
        ``[valid, renderer type, classified attribute, size]`` (:data:`LAYERS`)."""
        return self.script(LAYERS, json.dumps({k: str(v) for k, v in paths.items()}), tumble=tumble)


@pytest.fixture(scope="session")
def qgis(tmp_path_factory):
    if QGIS_PROCESS is None or not _qgis_python():
        pytest.skip("QGIS not installed (apt-get install qgis python3-qgis)")
    return Qgis(QGIS_PROCESS, QGIS_PYTHON, tmp_path_factory.mktemp("qgis_home"))


@pytest.fixture(scope="session")
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
    # the compiled kernels of this test session's user, not of QGIS's temporary HOME (a run
    # would compile every kernel again: minutes)
    cache = os.environ.get("TUMBLE_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tumble"
    )
    tumble.write_text(
        f"#!/bin/sh\nTUMBLE_CACHE_DIR={cache} PYTHONPATH={ROOT / 'src'} exec {sys.executable} "
        "-c 'import sys; from tumble.cli.main import main; sys.exit(main())' \"$@\"\n"
    )
    tumble.chmod(0o755)
    return folder
