"""Barrier lines and nets: the crossing test by hand (half-open rule at shared vertices), the
packed arrays for the kernels, validation naming the barrier, lines from GeoJSON and GeoPackage
equal to the inline line, and the CRS check."""

import json
import math

import numpy as np
import pytest
import shapely

from tumble._jit import jit
from tumble.io.config import load_config
from tumble.io.vectors import write_lines
from tumble.rockfall.barriers import (
    Barrier,
    crossings,
    pack_barriers,
    segment_crossing,
)
from tumble.rockfall.site.barrier_files import barriers_from_config
from tumble.rockfall.terrain import Terrain

# --- segment_crossing ----------------------------------------------------------------------------


def test_crossing_by_hand():
    hit, s, u = segment_crossing(0.0, 0.0, 4.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert hit
    assert s == pytest.approx(0.25, abs=1e-15)
    assert u == pytest.approx(0.5, abs=1e-15)
    # the other way round: the segment's fraction and the path's swap
    hit, s, u = segment_crossing(1.0, -1.0, 1.0, 1.0, 0.0, 0.0, 4.0, 0.0)
    assert hit and s == pytest.approx(0.5) and u == pytest.approx(0.25)


def test_crossing_in_swiss_coordinates():
    """Large coordinates (LV95) lose nothing: the orientations use differences."""
    x, y = 2_600_000.0, 1_200_000.0
    hit, s, u = segment_crossing(x, y, x + 4.0, y, x + 1.0, y - 1.0, x + 1.0, y + 3.0)
    assert hit and s == pytest.approx(0.25) and u == pytest.approx(0.25)


@pytest.mark.parametrize(
    "path, segment",
    [
        ((0, 0, 4, 0), (0, 1, 4, 1)),  # parallel
        ((0, 0, 4, 0), (1, 0, 3, 0)),  # collinear, overlapping
        ((0, 0, 4, 0), (5, 0, 6, 0)),  # collinear, apart
        ((2, 0, 2, 0), (1, -1, 3, 1)),  # a rock standing still on the segment
        ((0, 0, 4, 0), (1, 1, 1, 3)),  # the path's line crosses, the segment ends before
        ((0, 0, 0.5, 0), (1, -1, 1, 1)),  # the segment's line crosses, the path ends before
    ],
)
def test_no_crossing(path, segment):
    for last in (False, True):
        hit, s, u = segment_crossing(*map(float, path), *map(float, segment), last)
        assert not hit
        assert math.isnan(s) and math.isnan(u)


def test_touching_an_end_point():
    """A path through a segment's end point: the start counts, the end only on a line's last
    segment (half-open rule)."""
    # through the start c = (1, -1)
    hit, s, u = segment_crossing(0.0, -2.0, 2.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert hit and s == 0.5 and u == 0.0
    # through the end d = (1, 1)
    assert not segment_crossing(0.0, 0.0, 2.0, 2.0, 1.0, -1.0, 1.0, 1.0)[0]
    hit, s, u = segment_crossing(0.0, 0.0, 2.0, 2.0, 1.0, -1.0, 1.0, 1.0, True)
    assert hit and s == 0.5 and u == 1.0


def test_step_ending_on_the_line_counts_once():
    """A crossing at a step's end point belongs to that step, not to the next (0 < s <= 1)."""
    first = segment_crossing(0.0, 0.0, 1.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    second = segment_crossing(1.0, 0.0, 2.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert first == (True, 1.0, 0.5)
    assert not second[0]
    path = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]
    line = Barrier("A", [(1.0, -1.0), (1.0, 1.0)])
    assert crossings(path, [line]) == [(0, 0, 1.0, 1.0)]


@pytest.mark.parametrize(
    "vertices",
    [
        [(1.0, -1.0), (1.0, 0.0), (1.0, 1.0)],  # straight through the shared vertex
        [(1.0, -1.0), (1.0, 0.0), (2.0, 1.0)],  # bent there
        [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0)],  # bent back
        [(0.3, -0.7), (1.0, 0.0), (1.3, 0.7)],  # not on a grid: the vertex as written
    ],
)
def test_shared_vertex_counted_once(vertices):
    """A path through the vertex two consecutive segments share crosses the line once."""
    barrier = Barrier("fence", vertices)
    found = crossings([(-2.0, 0.0), (3.0, 0.0)], [barrier])
    assert len(found) == 1
    step, index, s, along = found[0]
    assert (step, index) == (0, 0)
    assert s == pytest.approx(0.6)
    assert along == pytest.approx(math.dist(vertices[0], vertices[1]))


def test_shared_vertex_through_the_compiled_kernel():
    """Called from a compiled loop with eight arguments (``last`` defaults to False), as the
    engine does, and with ``last`` given per segment."""

    @jit
    def count(path, segments, last):
        n = 0
        for j in range(segments.shape[0]):
            x0, y0, x1, y1 = segments[j]
            hit, _, _ = segment_crossing(path[0], path[1], path[2], path[3], x0, y0, x1, y1)
            hit_last, _, _ = segment_crossing(
                path[0], path[1], path[2], path[3], x0, y0, x1, y1, last[j]
            )
            n += 10 * hit + hit_last
        return n

    arrays = pack_barriers([Barrier("A", [(1.0, -1.0), (1.0, 0.0), (1.0, 1.0)])])
    # through the shared vertex: once, either way
    assert count(np.array([0.0, 0.0, 2.0, 0.0]), arrays.segments, arrays.last) == 11
    # through the line's end point: only with the last segment's end counted
    assert count(np.array([0.0, 2.0, 2.0, 0.0]), arrays.segments, arrays.last) == 1


def test_crossings_agree_with_shapely():
    """Segments in general position (no touching): crossing exactly when shapely says they
    intersect, at the same point."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(2000):
        ax, ay, bx, by, cx, cy, dx, dy = rng.uniform(-1.0, 1.0, 8)
        hit, s, u = segment_crossing(ax, ay, bx, by, cx, cy, dx, dy)
        expected = shapely.LineString([(ax, ay), (bx, by)]).intersects(
            shapely.LineString([(cx, cy), (dx, dy)])
        )
        assert hit == expected
        if hit:
            hits += 1
            assert ax + s * (bx - ax) == pytest.approx(cx + u * (dx - cx), abs=1e-12)
            assert ay + s * (by - ay) == pytest.approx(cy + u * (dy - cy), abs=1e-12)
    assert 200 < hits < 1800


# --- Barrier and pack_barriers -------------------------------------------------------------------


def test_barrier_kind_length_and_read_only_line():
    line = Barrier("obs", [[0, 0], [3, 4], [3, 10]])
    assert line.kind == "line"
    assert line.length == pytest.approx(11.0)
    assert line.line.dtype == np.float64 and line.line.shape == (3, 2)
    assert not line.line.flags.writeable
    with pytest.raises(ValueError):
        line.line[0, 0] = 1.0
    assert Barrier("n", [[0, 0], [1, 0]], height=4.0).kind == "net"
    assert Barrier("n", [[0, 0], [1, 0]], capacity=500).kind == "net"
    assert Barrier("n", [[0, 0], [1, 0]], capacity=500).capacity == 500.0
    assert Barrier("a", [[0, 0], [1, 0]]) == Barrier("a", np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert Barrier("a", [[0, 0], [1, 0]]) != Barrier("a", [[0, 0], [1, 0]], height=2.0)


def test_pack_barriers_layout():
    a = Barrier("A", [[0, 0], [3, 4], [3, 10]], height=4.0, capacity=1000.0)
    b = Barrier("B", [[10, 0], [20, 0]])
    arrays = pack_barriers([a, b])
    np.testing.assert_array_equal(arrays.segments, [[0, 0, 3, 4], [3, 4, 3, 10], [10, 0, 20, 0]])
    assert arrays.segments.flags.c_contiguous and arrays.segments.dtype == np.float64
    np.testing.assert_array_equal(arrays.barrier_of, [0, 0, 1])
    assert arrays.barrier_of.dtype == np.int64
    np.testing.assert_array_equal(arrays.along, [0.0, 5.0, 0.0])
    np.testing.assert_array_equal(arrays.last, [False, True, True])
    assert arrays.height[0] == 4.0 and math.isnan(arrays.height[1])
    np.testing.assert_array_equal(arrays.capacity_J, [1.0e6, np.inf])
    np.testing.assert_array_equal(arrays.bbox, [[0, 3, 0, 10], [10, 20, 0, 0]])  # x, then y
    assert (arrays.n_barriers, arrays.n_segments) == (2, 3)
    for name in ("segments", "barrier_of", "along", "last", "height", "capacity_J", "bbox"):
        assert not getattr(arrays, name).flags.writeable, name


def test_pack_no_barriers():
    arrays = pack_barriers([])
    assert arrays.segments.shape == (0, 4) and arrays.segments.dtype == np.float64
    assert arrays.barrier_of.shape == (0,) and arrays.barrier_of.dtype == np.int64
    assert arrays.along.shape == (0,) and arrays.last.shape == (0,)
    assert arrays.height.shape == (0,) and arrays.capacity_J.shape == (0,)
    assert arrays.bbox.shape == (0, 4)


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
