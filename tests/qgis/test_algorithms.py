"""``tumble:barriers_replay``, ``tumble:sources_at`` and ``tumble:compare_runs`` on two small
finished runs of the synthetic site, with QGIS's own packages, headless: through
``qgis_process`` and through the Python Processing API. The numbers the layers carry are checked
against the run folders tumble wrote (design values, reach probability, B minus A), the places
and lines drawn in WGS 84 against the DEM's CRS, the styles by the renderer they give, and
tumble's refusals by their own sentence. Skipped where QGIS is not installed."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "qgis"

#: a run for the three algorithms: every rock's trajectory (the replay) and visits (the sources)
CONFIG = "[output]\nfigures = false\ntrajectories = 12\nvisits = true\n"

#: QGIS's Python running tumble:sources_at through the Processing API: the places' attributes,
#: the rocks' rows, and the error of a place off the DEM
SOURCES_API = """
import json, sys
sys.path[:0] = ["/usr/share/qgis/python/plugins", sys.argv[1]]
from qgis.core import (QgsApplication, QgsProcessingException, QgsProcessingFeedback,
                       QgsVectorLayer)
QgsApplication.setPrefixPath("/usr", True)
app = QgsApplication([], False)
app.initQgis()
from processing.core.Processing import Processing
Processing.initialize()
import processing
from tumble_qgis.provider import TumbleProvider
provider = TumbleProvider()
assert QgsApplication.processingRegistry().addProvider(provider)

def rows(path):
    layer = QgsVectorLayer(path, "layer", "ogr")
    return [dict(zip(layer.fields().names(), [None if v is None or (hasattr(v, "isNull")
            and v.isNull()) else v for v in f.attributes()])) for f in layer.getFeatures()]

out = {}
for places in sys.argv[3:5]:
    result = processing.run("tumble:sources_at", {
        "RUN": sys.argv[2], "PLACES": places,
        "OUTPUT": places + ".out.gpkg", "ROCKS": places + ".rocks.gpkg"})
    out[places] = {"places": rows(result["OUTPUT"]), "rocks": rows(result["ROCKS"])}
feedback = QgsProcessingFeedback()
try:
    processing.run("tumble:sources_at", {"RUN": sys.argv[2], "PLACES": sys.argv[5],
                   "OUTPUT": "TEMPORARY_OUTPUT", "ROCKS": "TEMPORARY_OUTPUT"}, feedback=feedback)
    out["error"] = None
except QgsProcessingException as err:
    out["error"] = str(err)
print(json.dumps(out))
"""


def _tumble(site, *args):
    return subprocess.run(
        [str(site / "bin" / "tumble"), *map(str, args)], capture_output=True, text=True
    )


def _geojson(path, features, crs=None):
    """A GeoJSON file of ``features`` (``[(geometry, properties)]``), in WGS 84 unless
    ``crs`` (an EPSG code) is given."""
    collection = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": props, "geometry": geometry}
            for geometry, props in features
        ],
    }
    if crs is not None:
        collection["crs"] = {"type": "name", "properties": {"name": f"urn:ogc:def:crs:{crs}"}}
    path.write_text(json.dumps(collection))
    return path


def _wgs84(xs, ys):
    from rasterio.warp import transform

    lon, lat = transform("EPSG:2056", "EPSG:4326", xs, ys)
    return [[a, b] for a, b in zip(lon, lat, strict=True)]


@pytest.fixture(scope="module")
def runs(qgis, site):
    """Runs A and B of 12 rocks from the cliff (zoned), B with another seed."""
    release = _geojson(
        site / "release_2056.geojson",
        [
            (
                {
                    "type": "Polygon",
                    "coordinates": [[[2600006, 1200012], [2600016, 1200012], [2600016, 1200028],
                                     [2600006, 1200028], [2600006, 1200012]]],
                },
                {"name": "cliff", "freq": 0.5},
            )
        ],
        crs="EPSG::2056",
    )  # fmt: skip
    (site / "study.toml").write_text(CONFIG)
    folders = {}
    for name, seed in (("A", 0), ("B", 7)):
        folders[name] = site / f"run_{name}"
        done = _tumble(
            site, "rockfall", "run", "--config", site / "study.toml", "--dem", site / "dem.tif",
            "--rocks", 12, f'release.areas="{release}"', 'release.name_field="name"',
            'release.frequency_field="freq"', f"seed={seed}", "--out", folders[name],
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return folders


def test_barriers_replay_gives_each_line_its_design_values_and_verdict(qgis, site, runs):
    """Three lines drawn in WGS 84 across the run-out: a 4 m net of 500 kJ at x = 80 m holds,
    a 1 m net of 100 kJ at x = 70 m does not (the rocks pass it at about 200 kJ), a line without
    height or capacity gets no verdict; each verdict is the one tumble's design values give."""
    import pyogrio
    import shapely

    lines = [
        ("fence A", 2600080.0, {"height": 4.0, "capacity": 500.0}),
        ("fence C", 2600070.0, {"height": 1.0, "capacity": 100.0}),
        ("observed", 2600060.0, {"height": None, "capacity": None}),
    ]
    features = [
        (
            {"type": "LineString", "coordinates": _wgs84([x, x], [1200002.0, 1200038.0])},
            {"name": name, **values},
        )
        for name, x, values in lines
    ]
    path = _geojson(site / "fences.geojson", features)
    out = site / "replay"
    code, log = qgis.run(
        "barriers_replay", {"RUN": runs["A"], "LINES": path, "OUTPUT": out}, site / "bin/tumble"
    )
    assert code == 0, log
    assert "Traceback" not in log and f"BARRIERS:\t{out / 'barrier_lines.gpkg'}" in log
    replayed = {b["name"]: b for b in json.loads((out / "barriers.json").read_text())["barriers"]}
    meta, table = pyogrio.read_arrow(out / "barrier_lines.gpkg")
    assert meta["crs"] == "EPSG:2056"
    rows = table.to_pylist()
    assert [row["name"] for row in rows] == [name for name, _x, _values in lines]
    for row, (name, x, values) in zip(rows, lines, strict=True):
        # the line drawn in WGS 84 lies where it was drawn in the DEM's CRS (to a millimetre)
        xy = shapely.get_coordinates(shapely.from_wkb(row[meta["geometry_name"] or "geom"]))
        assert np.allclose(xy, [[x, 1200002.0], [x, 1200038.0]], atol=1e-3), name
        design = replayed[name]["design"]
        assert row["E_d_kJ"] == pytest.approx(design["E_d_kJ"], rel=1e-12)
        assert row["h_d_m"] == pytest.approx(design["h_d_m"], rel=1e-12)
        assert row["rocks_crossing"] == replayed[name]["rocks_crossing"] > 0
        if values["capacity"] is None:
            assert row["verdict"] == "no verdict" and row["energy_ok"] is None
            continue
        energy_ok = design["E_d_kJ"] <= values["capacity"] / design["gamma_e"]
        height_ok = values["height"] >= design["h_d_m"] + design["f_min_m"]
        assert (row["energy_ok"], row["height_ok"]) == (int(energy_ok), int(height_ok))
        assert row["verdict"] == ("verified" if energy_ok and height_ok else "not verified")
    assert [row["verdict"] for row in rows] == ["verified", "not verified", "no verdict"]
    styled = qgis.layers({"lines": out / "barrier_lines.gpkg"}, tumble=site / "bin/tumble")
    assert styled["lines"][:3] == [True, "categorizedSymbol", "verdict"]


def test_sources_at_through_the_python_api(qgis, site, runs):
    """Points and a polygon drawn in WGS 84: a point on the run-out where rocks passed gets the
    cliff and its rocks (reach probability = rocks reaching / 12, the record tumble prints for
    its DEM coordinates), a point beyond every deposit none, a polygon over the run-out the
    cliff; a point off the DEM is refused with tumble's sentence, in metres."""
    import rasterio

    passing = rasterio.open(runs["A"] / "rasters" / "passing_count.tif").read(1, masked=True)
    row, col = np.unravel_index(np.argmax(passing.filled(0)), passing.shape)
    x, y = 2600000 + 2 * col + 1.0, 1200040 - 2 * row - 1.0  # the busiest cell's centre
    points = _geojson(
        site / "points.geojson",
        [
            ({"type": "Point", "coordinates": _wgs84([x], [y])[0]}, {"label": "shed"}),
            ({"type": "Point", "coordinates": _wgs84([2600001.0], [1200001.0])[0]},
             {"label": "no"}),
        ],
    )  # fmt: skip
    ring = _wgs84([2600070.0, 2600110.0, 2600110.0, 2600070.0], [1200004.0] * 2 + [1200036.0] * 2)
    polygon = _geojson(
        site / "polygon.geojson",
        [({"type": "Polygon", "coordinates": [[*ring, ring[0]]]}, {"label": "road"})],
    )
    off = _geojson(
        site / "off.geojson",
        [({"type": "Point", "coordinates": _wgs84([2600190.0], [1200020.0])[0]}, {"label": "x"})],
    )
    out = qgis.script(
        SOURCES_API,
        PLUGINS,
        runs["A"],
        points,
        polygon,
        off,
        tumble=site / "bin/tumble",
    )
    shed, nowhere = out[str(points)]["places"]
    record = json.loads(
        _tumble(site, "rockfall", "sources", runs["A"], f"--at={x},{y}", "--json").stdout
    )
    assert shed["label"] == "shed" and shed["reached"] == 1 and shed["areas"] == "cliff"
    assert shed["rocks_reaching"] == len(record["rocks"]) == passing[row, col] > 0
    assert shed["reach_probability"] == pytest.approx(shed["rocks_reaching"] / 12, rel=1e-6)
    assert shed["kinetic_energy_p95_kJ"] == pytest.approx(record["values"]["kinetic_energy_p95"])
    rocks = out[str(points)]["rocks"]
    assert sorted(r["rock"] for r in rocks) == sorted(r["rock"] for r in record["rocks"])
    assert {r["place"] for r in rocks} == {0} and {r["source"] for r in rocks} == {"cliff"}
    assert nowhere["reached"] == 0 and nowhere["rocks_reaching"] == 0 and nowhere["areas"] == ""
    assert nowhere["reach_probability"] == 0.0
    # 0 of 12 rocks: the Clopper-Pearson upper bound 1 - 0.025^(1/12)
    assert nowhere["reach_probability_high"] == pytest.approx(1 - 0.025 ** (1 / 12), rel=1e-6)
    (road,) = out[str(polygon)]["places"]
    assert road["reached"] == 1 and road["areas"] == "cliff" and road["rocks_reaching"] > 0
    assert out["error"].startswith("point 2600190") and "is outside the DEM" in out["error"]
    assert "Traceback" not in out["error"]


def test_compare_runs_gives_b_minus_a_styled(qgis, site, runs):
    """The difference rasters of two seeds: B minus A wherever both runs reached a cell, the
    zone change in zone steps, each loaded with its diverging style; a folder that is no run is
    refused with tumble's sentence."""
    import rasterio

    out = site / "compare"
    code, log = qgis.run(
        "compare_runs", {"RUN_A": runs["A"], "RUN_B": runs["B"], "OUTPUT": out}, site / "bin/tumble"
    )
    assert code == 0, log
    files = {
        "DELTA_REACH_PROBABILITY": ("delta_reach_probability", "reach_probability"),
        "DELTA_KINETIC_ENERGY_P95": ("delta_kinetic_energy_p95", "kinetic_energy_p95"),
        "DELTA_HAZARD_ZONE": ("delta_hazard_zone", "hazard_zone"),
    }
    reached = {
        k: ~np.ma.getmaskarray(
            rasterio.open(runs[k] / "rasters" / "reach_probability.tif").read(1, masked=True)
        )
        for k in "AB"
    }
    for name, (delta, raster) in files.items():
        path = out / "rasters" / f"{delta}.tif"
        assert f"{name}:\t{path}" in log
        a, b = (
            rasterio.open(runs[k] / "rasters" / f"{raster}.tif").read(1, masked=True) for k in "AB"
        )
        change = rasterio.open(path).read(1, masked=True)
        both = reached["A"] & reached["B"]
        assert both.sum() > 10
        expected = b.data.astype(np.float64) - a.data.astype(np.float64)
        assert np.allclose(change.data[both], expected[both], rtol=1e-6, atol=1e-6), name
        assert np.any(change.data[both] != 0) or name == "DELTA_HAZARD_ZONE"
    paths = {name: str(out / "rasters" / f"{delta}.tif") for name, (delta, _r) in files.items()}
    styled = qgis.layers(paths, tumble=site / "bin/tumble")
    assert {name: layer[:3] for name, layer in styled.items()} == {
        "DELTA_REACH_PROBABILITY": [True, "singlebandpseudocolor", None],
        "DELTA_KINETIC_ENERGY_P95": [True, "singlebandpseudocolor", None],
        "DELTA_HAZARD_ZONE": [True, "paletted", None],
    }
    code, log = qgis.run(
        "compare_runs", {"RUN_A": runs["A"], "RUN_B": site, "OUTPUT": site / "no_compare"},
        site / "bin/tumble",
    )  # fmt: skip
    assert code != 0 and "Traceback" not in log
    said = _tumble(site, "rockfall", "compare", runs["A"], site, "--out", site / "no_compare")
    sentence = said.stderr.strip().split(": error: ")[-1]
    assert said.returncode == 2 and sentence and sentence in log
