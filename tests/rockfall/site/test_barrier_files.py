"""Barrier files (tumble.rockfall.site.barrier_files, :func:`barriers_from_config`): inline lines,
validation naming the barrier, lines from GeoJSON and GeoPackage equal to the inline line, the
CRS check and entries from a TOML configuration."""

import json

import numpy as np
import pytest

from tumble.io.config import load_config
from tumble.io.vectors import write_lines
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.site.barrier_files import barriers_from_config
from tumble.rockfall.terrain import Terrain

# --- barriers_from_config: validation ------------------------------------------------------------


@pytest.fixture
def slope():
    """A plane: x in [0, 100], y in [-25, 25]."""
    return Terrain.plane(30.0, size=(100.0, 50.0), spacing=5.0)


def test_inline_barriers(slope):
    config = [
        {"name": "obs", "line": [[40.0, -10.0], [40.0, 10.0]]},
        {"name": "net", "line": [[60.0, -20.0], [60.0, 0.0], [70.0, 20.0]], "height": 4.0},
    ]
    obs, net = barriers_from_config(config, slope)
    assert obs == Barrier("obs", [[40.0, -10.0], [40.0, 10.0]])
    assert (obs.kind, net.kind) == ("line", "net")
    assert net.height == 4.0 and net.capacity is None


@pytest.mark.parametrize(
    "line, words",
    [
        ([[40.0, 0.0]], ["1 point", "at least 2"]),
        ([], ["0 point", "at least 2"]),
        ([[40.0, 0.0], [40.0, 5.0], [40.0, 5.0]], ["points 1 and 2", "same point"]),
        ([[40.0, -5.0], [50.0, 5.0], [50.0, -5.0], [40.0, 5.0]], ["crosses itself"]),
        ([[40.0, 0.0], [140.0, 0.0]], ["point 1", "outside the DEM", "x in [0, 100]"]),
        ([[40.0, 0.0], [float("nan"), 0.0]], ["point 1", "not finite"]),
        ([40.0, 0.0], ["[x, y] points"]),
    ],
)
def test_bad_lines_name_the_barrier(slope, line, words):
    with pytest.raises(ValueError) as err:
        barriers_from_config([{"name": "fence B", "line": line}], slope)
    message = str(err.value)
    assert "barrier 'fence B'" in message
    for word in words:
        assert word in message


@pytest.mark.parametrize(
    "entry, words",
    [
        ({"height": -1.0}, ["height", "positive"]),
        ({"capacity": float("inf")}, ["capacity", "positive finite"]),
        ({"file": "x.gpkg"}, ["exactly one of line or file"]),
    ],
)
def test_bad_entries_name_the_barrier(slope, entry, words):
    with pytest.raises(ValueError) as err:
        barriers_from_config([{"name": "N", "line": [[40, 0], [40, 5]], **entry}], slope)
    assert "barrier 'N'" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_repeated_names_refused(slope):
    line = [[40.0, 0.0], [40.0, 5.0]]
    with pytest.raises(ValueError, match=r"barrier 'A' \(barrier\.1\) is given twice") as err:
        barriers_from_config([{"name": "A", "line": line}, {"name": "A", "line": line}], slope)
    assert err.value.key == "barrier.1"


# --- lines from files ----------------------------------------------------------------------------

X0, Y0 = 2_600_000.0, 1_200_000.0
LINE = [[X0 + 40.0, Y0 + 5.0], [X0 + 42.5, Y0 + 25.0], [X0 + 41.25, Y0 + 45.0]]


@pytest.fixture
def swiss():
    """A DEM in EPSG:2056: x in [X0, X0 + 100], y in [Y0, Y0 + 50]."""
    heights = np.tile(np.linspace(100.0, 0.0, 21), (11, 1))
    return Terrain.from_array(heights, x0=X0, y0=Y0, dx=5.0, crs="EPSG:2056")


def geojson(path, features, crs="EPSG:2056"):
    data = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"name": name},
                "geometry": {"type": "LineString", "coordinates": coords},
            }
            for name, coords in features
        ],
    }
    if crs is not None:
        code = crs.split(":")[1]
        data["crs"] = {"type": "name", "properties": {"name": f"urn:ogc:def:crs:EPSG::{code}"}}
    path.write_text(json.dumps(data))
    return path


def with_z(line):
    return np.column_stack([np.asarray(line), np.full(len(line), 812.5)])


def test_geojson_and_geopackage_equal_inline(tmp_path, swiss):
    other = [[X0 + 60.0, Y0 + 5.0], [X0 + 60.0, Y0 + 45.0]]
    geojson(tmp_path / "fences.geojson", [("upper", other), ("fence A", LINE)])
    write_lines(
        tmp_path / "fences.gpkg",
        [with_z(other), with_z(LINE)],
        {"name": np.array(["upper", "fence A"])},
        crs="EPSG:2056",
    )
    write_lines(tmp_path / "one.gpkg", [with_z(LINE)], {"id": np.array([1])}, crs="EPSG:2056")
    net = {"height": 4.0, "capacity": 1000.0}
    (inline,) = barriers_from_config([{"name": "fence A", "line": LINE, **net}], swiss)
    # name_field selects the line whose attribute is the barrier's name
    (from_json,) = barriers_from_config(
        [{"name": "fence A", "file": "fences.geojson", "name_field": "name", **net}],
        swiss,
        base_dir=tmp_path,
    )
    assert from_json == inline
    from_gpkg, one = barriers_from_config(
        [
            {"name": "gpkg", "file": "fences.gpkg", "feature": 2, **net},
            {"name": "one", "file": str(tmp_path / "one.gpkg"), **net},
        ],
        swiss,
        base_dir=tmp_path,
    )
    for barrier in (from_gpkg, one):
        np.testing.assert_array_equal(barrier.line, inline.line)
        assert (barrier.height, barrier.capacity) == (4.0, 1000.0)


def test_file_choice_errors(tmp_path, swiss):
    two = geojson(tmp_path / "two.geojson", [("a", LINE), ("b", LINE[:2])])
    cases = [
        ({}, ["holds 2 lines", "name_field"]),
        ({"name_field": "name"}, ["no line whose 'name' is 'fence'", "'a', 'b'"]),
        ({"name_field": "label"}, ["no field 'label'"]),
        ({"feature": 3}, ["feature 3", "holds 2 line(s)"]),
    ]
    for extra, words in cases:
        with pytest.raises(ValueError) as err:
            barriers_from_config([{"name": "fence", "file": str(two), **extra}], swiss)
        assert "barrier 'fence'" in str(err.value)
        for word in words:
            assert word in str(err.value)
    with pytest.raises(ValueError, match=r"barrier 'fence'.*does not exist"):
        barriers_from_config([{"name": "fence", "file": "missing.gpkg"}], swiss, tmp_path)


def test_crs_refused_when_different(tmp_path, swiss):
    path = geojson(tmp_path / "wgs.geojson", [("fence", [[7.4, 46.9], [7.5, 46.9]])], "EPSG:4326")
    with pytest.raises(ValueError) as err:
        barriers_from_config([{"name": "fence", "file": str(path)}], swiss)
    message = str(err.value)
    assert "barrier 'fence'" in message and "EPSG:4326" in message and "EPSG:2056" in message
    # GeoJSON without a crs member is EPSG:4326 by its standard: refused against EPSG:2056 too
    bare = geojson(tmp_path / "bare.geojson", [("fence", LINE)], crs=None)
    with pytest.raises(ValueError, match=r"EPSG:4326.*EPSG:2056"):
        barriers_from_config([{"name": "fence", "file": str(bare)}], swiss)
    # ... and taken in the DEM's coordinates when the DEM has no CRS
    plain = Terrain.from_array(swiss.heights, x0=X0, y0=Y0, dx=5.0)
    (barrier,) = barriers_from_config([{"name": "fence", "file": str(bare)}], plain)
    np.testing.assert_array_equal(barrier.line, LINE)


def test_from_a_toml_configuration(tmp_path, swiss):
    """The validated entries of a TOML file, file names relative to the file's folder."""
    site = tmp_path / "site"
    site.mkdir()
    write_lines(site / "fence.gpkg", [with_z(LINE)], {"name": np.array(["A"])}, "EPSG:2056")
    (site / "run.toml").write_text(
        '[[barrier]]\nname = "A"\nfile = "fence.gpkg"\nname_field = "name"\nheight = 5.0\n'
        f'[[barrier]]\nname = "obs"\nline = [[{X0 + 10}, {Y0 + 1}], [{X0 + 10}, {Y0 + 49}]]\n'
    )
    config = load_config(site / "run.toml")
    a, obs = barriers_from_config(config.barrier, swiss, base_dir="/nonexistent")
    assert a == Barrier("A", LINE, height=5.0)
    assert obs.kind == "line" and obs.length == pytest.approx(48.0)
