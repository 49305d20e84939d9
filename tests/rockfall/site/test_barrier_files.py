"""Barrier files (tumble.rockfall.site.barrier_files, :func:`barriers_from_config`): inline lines,
validation naming the barrier, lines from GeoJSON and GeoPackage equal to the inline line, the
CRS check and entries from a TOML configuration; the uphill side from the release (by hand:
shares of a point and of a polygon the line cuts), refused when the release lies on both sides,
given in the entry or as a line's attribute; lines over nodata kept with their length there."""

import json

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.io.config import load_config
from tumble.io.vectors import write_lines
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.release import Release
from tumble.rockfall.site.barrier_files import (
    DIRECTION_RULES,
    barriers_from_config,
    build_barriers,
)
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


def test_a_line_in_another_crs_is_transformed_to_the_dem_s(tmp_path, swiss):
    """A line in LV03 (EPSG:21781, LV95 shifted by 2 000 000 m and 1 000 000 m) lands on the
    DEM's LV95 line; a GeoJSON without a crs member is EPSG:4326 by its standard, and LV95
    numbers read as degrees cannot be transformed: refused, naming both CRSs."""
    lv03 = [[x - 2_000_000.0, y - 1_000_000.0] for x, y in LINE]
    path = geojson(tmp_path / "lv03.geojson", [("fence", lv03)], "EPSG:21781")
    (barrier,) = barriers_from_config([{"name": "fence", "file": str(path)}], swiss)
    np.testing.assert_allclose(barrier.line, LINE, atol=0.05)
    bare = geojson(tmp_path / "bare.geojson", [("fence", LINE)], crs=None)
    with pytest.raises(ValueError, match=r"EPSG:4326.*EPSG:2056.*cannot be transformed"):
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


# --- the uphill side ------------------------------------------------------------------------------


def _release(**place):
    return Release(**place).footprint()


def test_the_uphill_side_is_the_side_of_the_release(slope):
    """A release point at x = 10 and lines at x = 40: along +y its left (x < 40) is uphill,
    drawn the other way its right; the whole release lies there."""
    entries = [
        {"name": "up", "line": [[40.0, -10.0], [40.0, 10.0]]},
        {"name": "down", "line": [[40.0, 10.0], [40.0, -10.0]]},
    ]
    site = build_barriers(entries, slope, release=_release(point=(10.0, 0.0)))
    assert [b.uphill for b in site.barriers] == ["left", "right"]
    assert site.sides[0].record() == {
        "uphill": "left",
        "uphill_from": "release",
        "release_share_uphill": 1.0,
        "release_share_downslope": 0.0,
        "direction_from": "start",
        "direction_rule": DIRECTION_RULES["start"],
    }
    assert site.warnings == ()
    # without a release the side is left to the engine (the rocks' starting points)
    assert barriers_from_config(entries, slope)[0].uphill is None


def test_a_release_on_both_sides_is_refused_and_uphill_asked_for(slope):
    """A 20 m x 20 m release polygon halved by the net x = 40: 50 % on each side (a net holds
    rocks from one side only)."""
    square = [[30.0, -10.0], [50.0, -10.0], [50.0, 10.0], [30.0, 10.0]]
    entry = {"name": "middle", "line": [[40.0, -20.0], [40.0, 20.0]], "height": 3.0}
    with pytest.raises(ConfigError) as err:
        build_barriers([entry], slope, release=_release(polygon=square))
    assert err.value.key == "barrier.0.uphill"
    for words in ("barrier 'middle'", "50 % of the release lies on its left", "50 % on its right"):
        assert words in str(err.value)
    site = build_barriers([{**entry, "uphill": "left"}], slope, release=_release(polygon=square))
    assert site.barriers[0].uphill == "left" and site.sides[0].uphill_from == "configuration"
    # a release point on the line: no side at all, for a net and for an observation line
    line = {"name": "middle", "line": entry["line"]}
    for barrier in (entry, line):
        with pytest.raises(ConfigError, match="the release lies on the line itself"):
            build_barriers([barrier], slope, release=_release(point=(40.0, 0.0)))


def test_an_observation_line_between_sources_judges_each_rock_from_its_own_side(slope):
    """The observation line x = 40 with the release on both sides, and with 26 % of it on its
    right: decided, each crossing judged from its rock's start (direction_from "start"), no
    warning about a protected side; the line's own side is the larger share."""
    square = [[30.0, -10.0], [50.0, -10.0], [50.0, 10.0], [30.0, 10.0]]
    cut = [[44.8, -20.0], [44.8, 20.0]]
    for line, uphill in (([[40.0, -20.0], [40.0, 20.0]], "left"), (cut, "left")):
        site = build_barriers(
            [{"name": "obs", "line": line}], slope, release=_release(polygon=square)
        )
        side = site.sides[0]
        assert site.barriers[0].uphill == uphill and side.direction_from == "start"
        assert site.warnings == ()
        assert side.record()["direction_rule"].startswith("a crossing away from the side")
    # uphill given: the given side for every rock, as before
    given = build_barriers(
        [{"name": "obs", "line": cut, "uphill": "left"}], slope, release=_release(polygon=square)
    )
    assert given.sides[0].direction_from == "uphill" and len(given.warnings) == 1


def test_a_minority_on_the_protected_side_is_decided_and_warned(slope):
    """The net x = 46 cuts the square x in [30, 50] at 80 % / 20 % (to within one column of the
    footprint's lattice, 0.625 m of 20 m: 0.032): the left is uphill, the 20 % named."""
    square = [[30.0, -10.0], [50.0, -10.0], [50.0, 10.0], [30.0, 10.0]]
    entry = {"name": "cut", "line": [[46.0, -20.0], [46.0, 20.0]], "capacity": 500.0}
    site = build_barriers([entry], slope, release=_release(polygon=square))
    side = site.sides[0]
    assert site.barriers[0].uphill == "left"
    assert side.left == pytest.approx(0.8, abs=0.032)
    assert side.right == pytest.approx(0.2, abs=0.032) and side.left + side.right == 1.0
    [warning] = site.warnings
    assert "barrier 'cut'" in warning and "protected side (right" in warning
    assert "upslope" in warning
    # the same side given: the same warning about the 20 % on the protected side
    given = build_barriers([{**entry, "uphill": "left"}], slope, release=_release(polygon=square))
    assert list(given.warnings) == [warning]


def test_uphill_given_against_the_release_is_warned(slope):
    entry = {"name": "fence", "line": [[40.0, -10.0], [40.0, 10.0]], "uphill": "right"}
    site = build_barriers([entry], slope, release=_release(point=(10.0, 0.0)))
    assert site.barriers[0].uphill == "right"
    [warning] = site.warnings
    assert "uphill = 'right' is given, but only 0 % of the release lies on its right" in warning


def test_uphill_from_a_line_attribute(tmp_path, swiss):
    """A GeoPackage with an ``uphill`` field: a value gives the side, an empty value leaves it
    to the release, the entry's key wins, anything else is refused."""
    other = [[X0 + 60.0, Y0 + 5.0], [X0 + 60.0, Y0 + 45.0]]
    path = write_lines(
        tmp_path / "fences.gpkg",
        [with_z(LINE), with_z(other)],
        {"name": np.array(["A", "B"]), "uphill": np.array(["right", ""])},
        crs="EPSG:2056",
    )
    release = _release(point=(X0 + 10.0, Y0 + 25.0))  # left of both lines, seen along +y
    entries = [
        {"name": "A", "file": str(path), "name_field": "name"},
        {"name": "B", "file": str(path), "name_field": "name"},
    ]
    site = build_barriers(entries, swiss, release=release)
    assert [b.uphill for b in site.barriers] == ["right", "left"]
    assert [s.uphill_from for s in site.sides] == ["file", "release"]
    given = build_barriers([{**entries[0], "uphill": "left"}], swiss, release=release)
    assert given.barriers[0].uphill == "left" and given.sides[0].uphill_from == "configuration"
    bad = write_lines(
        tmp_path / "bad.gpkg", [with_z(LINE)], {"uphill": np.array(["up"])}, crs="EPSG:2056"
    )
    with pytest.raises(ConfigError, match=r"barrier 'C'.*'uphill' attribute.*'up'") as err:
        build_barriers([{"name": "C", "file": str(bad)}], swiss, release=release)
    assert err.value.key == "barrier.0.file"


# --- lines over nodata ---------------------------------------------------------------------------


@pytest.fixture
def holed():
    """A plane x in [0, 100], y in [-25, 25] (1 m samples) whose samples at y >= 10 are nodata:
    the surface ends at y = 9 (the cells above have a nodata corner)."""
    plane = Terrain.plane(30.0, size=(100.0, 50.0), spacing=1.0)
    heights = np.array(plane.heights)
    heights[plane.grid_y >= 10.0, :] = np.nan
    return Terrain.from_array(heights, x0=plane.x0, y0=plane.y0, dx=1.0)


def test_a_line_partly_over_nodata_is_kept_with_its_length_there(holed):
    """The line x = 40 from y = -10 to y = 15: 6 m of its 25 m lie beyond the surface's edge at
    y = 9 (to within the sampling step, a quarter cell: 0.25 m); its end point lies in the
    nodata area, which is said so, not "outside the DEM"."""
    entry = {"name": "obs", "line": [[40.0, -10.0], [40.0, 15.0]]}
    site = build_barriers([entry], holed, release=_release(point=(10.0, 0.0)))
    assert site.barriers[0].uphill == "left"
    [warning] = site.warnings
    assert "barrier 'obs'" in warning and "of its 25 m line lie in nodata areas" in warning
    assert "point 1 of the line, (40, 15), lies in a nodata area of the DEM" in warning
    assert "outside" not in warning
    length = float(warning.split("about ")[1].split(" m")[0])
    assert length == pytest.approx(6.0, abs=0.25)
    # entirely over nodata: refused; off the DEM's rectangle: refused as before
    with pytest.raises(ConfigError, match="whole line lies in a nodata area") as err:
        build_barriers([{"name": "n", "line": [[40.0, 12.0], [60.0, 15.0]]}], holed)
    assert err.value.key == "barrier.0.line"
    with pytest.raises(ConfigError, match=r"point 1 .* lies outside the DEM"):
        build_barriers([{"name": "n", "line": [[40.0, 0.0], [40.0, 30.0]]}], holed)
