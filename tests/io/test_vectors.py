"""GeoPackage vectors: LineString Z and Point Z layers with their attributes and CRS, read back by
pyogrio as written and by read_lines; atomic writes; bad inputs refused."""

import numpy as np
import pyogrio
import pyogrio.raw
import pytest
import shapely
from rasterio.crs import CRS

from tumble.io import read_lines, write_lines, write_points

LINES = [
    np.array([[2600000.0, 1200000.0, 812.5], [2600003.25, 1200001.5, 809.0]]),
    np.array(
        [
            [2600010.0, 1200020.0, 700.0],
            [2600011.0, 1200019.0, 699.5],
            [2600012.5, 1200018.0, 698.25],
        ]
    ),
]
ATTRIBUTES = {
    "rock": np.array([3, 7]),
    "class": np.array(["EOTA221", "box"]),
    "kinetic_energy_max_kJ": np.array([152.25, np.nan]),
}


def coordinates(wkb) -> list[np.ndarray]:
    return [shapely.get_coordinates(g, include_z=True) for g in shapely.from_wkb(wkb)]


def test_lines_round_trip(tmp_path):
    path = write_lines(tmp_path / "trajectories.gpkg", LINES, ATTRIBUTES, crs="EPSG:2056")
    assert path == tmp_path / "trajectories.gpkg"
    assert [p.name for p in tmp_path.iterdir()] == ["trajectories.gpkg"]  # nothing staged left
    info = pyogrio.read_info(path)
    assert info["layer_name"] == "trajectories"
    assert info["geometry_type"] == "LineString Z"
    assert info["features"] == 2
    assert CRS.from_user_input(info["crs"]).to_epsg() == 2056
    meta, _, wkb, fields = pyogrio.raw.read(path)
    assert list(meta["fields"]) == list(ATTRIBUTES)
    for read, written in zip(coordinates(wkb), LINES, strict=True):
        np.testing.assert_array_equal(read, written)
    np.testing.assert_array_equal(fields[0], ATTRIBUTES["rock"])
    assert list(fields[1]) == ["EOTA221", "box"]
    np.testing.assert_array_equal(fields[2], ATTRIBUTES["kinetic_energy_max_kJ"])  # NaN: null
    names, vertices, wkt = read_lines(path, name_field="class")
    assert names == ["EOTA221", "box"]
    for read, written in zip(vertices, LINES, strict=True):
        np.testing.assert_array_equal(read, written)
    assert CRS.from_wkt(wkt).to_epsg() == 2056


def test_points_round_trip_with_a_rasterio_crs(tmp_path):
    xyz = np.array([[2600000.5, 1200000.25, 500.0], [2600100.0, 1200050.0, 450.5], [np.nan] * 3])
    attributes = {"rock": np.arange(3), "status": np.array(["stopped", "left_domain", "failed"])}
    path = write_points(tmp_path / "deposits.gpkg", xyz, attributes, crs=CRS.from_epsg(2056))
    info = pyogrio.read_info(path)
    assert info["layer_name"] == "deposits"
    assert info["geometry_type"] == "Point Z"
    assert CRS.from_user_input(info["crs"]).to_epsg() == 2056
    _, _, wkb, fields = pyogrio.raw.read(path)
    assert wkb[2] is None  # no finite position: no geometry, attributes kept
    np.testing.assert_array_equal(np.vstack(coordinates(wkb[:2])), xyz[:2])
    np.testing.assert_array_equal(fields[0], [0, 1, 2])
    assert list(fields[1]) == ["stopped", "left_domain", "failed"]


@pytest.mark.filterwarnings("ignore:'crs' was not provided")
def test_no_crs_and_2d_lines_read_back(tmp_path):
    path = write_points(tmp_path / "p.gpkg", np.zeros((1, 3)), {"rock": [0]})
    assert pyogrio.read_info(path)["crs"] is None
    # a 2-D MultiLineString written by another tool: its parts are lines with the feature's name
    other = tmp_path / "barriers.gpkg"
    multi = shapely.MultiLineString([[(0, 0), (1, 1)], [(2, 2), (3, 2), (4, 1)]])
    pyogrio.raw.write(
        other,
        np.array([shapely.to_wkb(multi)], dtype=object),
        [np.array([5])],
        ["id"],
        driver="GPKG",
        geometry_type="MultiLineString",
    )
    names, vertices, wkt = read_lines(other)
    assert names == ["1", "1"] and wkt is None
    assert [v.shape for v in vertices] == [(2, 2), (3, 2)]
    np.testing.assert_array_equal(vertices[1], [[2, 2], [3, 2], [4, 1]])


def test_bad_inputs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="GeoPackages"):
        write_lines(tmp_path / "lines.shp", LINES, ATTRIBUTES)
    with pytest.raises(ValueError, match=r"line 0 .* needs \(n >= 2, 3\)"):
        write_lines(tmp_path / "a.gpkg", [LINES[0][:1]], {"rock": [0]})
    with pytest.raises(ValueError, match="non-finite"):
        write_lines(tmp_path / "a.gpkg", [np.full((2, 3), np.nan)], {"rock": [0]})
    with pytest.raises(ValueError, match="one value per feature"):
        write_lines(tmp_path / "a.gpkg", LINES, {"rock": [0, 1, 2]})
    with pytest.raises(ValueError, match="unknown coordinate reference system"):
        write_points(tmp_path / "a.gpkg", np.zeros((1, 3)), {"rock": [0]}, crs="EPSG:nope")
    with pytest.raises(ValueError, match="does not exist"):
        read_lines(tmp_path / "missing.gpkg")
    write_points(tmp_path / "points.gpkg", np.zeros((1, 3)), {"rock": [0]})
    with pytest.raises(ValueError, match="not a line"):
        read_lines(tmp_path / "points.gpkg")
    with pytest.raises(ValueError, match=r"no field 'name'; its fields: rock$"):
        read_lines(tmp_path / "points.gpkg", name_field="name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["points.gpkg"]


def _layer(path):
    """Everything a reader gets from a points file: CRS, fields and their types, fids,
    geometries and values."""
    meta, fids, wkb, values = pyogrio.raw.read(path, return_fids=True)
    return meta["crs"], list(meta["fields"]), list(meta["dtypes"]), fids, wkb, values


def test_points_in_background_are_the_file_written_in_process(tmp_path, monkeypatch):
    """PointsInBackground, once in a process of its own, writes a file that reads back as the
    one write_points writes in the caller's process: the same CRS, fields, types, fids,
    geometries (a point with a NaN coordinate without one) and values (NaN, negative, huge and
    tiny floats, integers, text). A table below the threshold is written at once, in process."""
    from tumble.io import points_process

    monkeypatch.setattr(points_process, "BACKGROUND_POINTS", 100)
    rng = np.random.default_rng(4)
    n = 300
    xyz = rng.standard_normal((n, 3)) * 1e3
    xyz[5, 2] = np.nan
    value = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    value[:4] = [np.nan, -0.0, -1e-310, 1.7e308]
    attributes = {
        "rock": np.arange(n),
        "value": value,
        "status": np.array(["stopped", "timed_out", "left, the DEM"], dtype=object)[
            rng.integers(0, 3, n)
        ],
    }
    with points_process.PointsInBackground(
        tmp_path / "bg.gpkg", xyz, attributes, "EPSG:2056"
    ) as bg:
        assert bg._process is not None  # in a process of its own
        assert bg.wait() == tmp_path / "bg.gpkg"
    write_points(tmp_path / "fg.gpkg", xyz, attributes, "EPSG:2056")
    background, foreground = _layer(tmp_path / "bg.gpkg"), _layer(tmp_path / "fg.gpkg")
    assert background[:3] == foreground[:3]
    np.testing.assert_array_equal(background[3], foreground[3])
    assert list(background[4]) == list(foreground[4])
    for b, f in zip(background[5], foreground[5], strict=True):
        np.testing.assert_array_equal(b, f)
    small = {name: column[:50] for name, column in attributes.items()}
    with points_process.PointsInBackground(tmp_path / "small.gpkg", xyz[:50], small) as pending:
        assert pending._process is None and (tmp_path / "small.gpkg").exists()


def test_points_in_background_raise_the_writers_error_and_stop_on_the_callers(
    tmp_path, monkeypatch
):
    """The writer's error comes back to the caller (an attribute of the wrong length); an error
    of the caller stops the writer before the block is left, and nothing is left behind."""
    from tumble.io import points_process

    monkeypatch.setattr(points_process, "BACKGROUND_POINTS", 10)
    xyz = np.zeros((20, 3))
    with (
        pytest.raises(ValueError, match="one value per feature"),
        points_process.PointsInBackground(tmp_path / "a.gpkg", xyz, {"k": np.arange(3)}) as bg,
    ):
        bg.wait()
    with (
        pytest.raises(KeyError),
        points_process.PointsInBackground(tmp_path / "b.gpkg", xyz, {"k": np.arange(20)}) as bg,
    ):
        raise KeyError("the caller failed")
    assert bg._process is None
    assert not (tmp_path / "a.gpkg").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".a.gpkg")]


def test_points_in_background_raise_an_error_of_their_start(tmp_path, monkeypatch):
    """Arrays that cannot be sent to the writer's process (an object that does not pickle):
    the error of the start is raised by wait(), in the caller, and no process is left."""
    import pickle

    from tumble.io import points_process

    monkeypatch.setattr(points_process, "BACKGROUND_POINTS", 10)
    column = np.array([lambda: 0] * 20, dtype=object)
    bg = points_process.PointsInBackground(tmp_path / "c.gpkg", np.zeros((20, 3)), {"k": column})
    with pytest.raises((pickle.PicklingError, AttributeError)):
        bg.wait()
    assert bg._process is None and not (tmp_path / "c.gpkg").exists()


def test_points_in_background_do_not_run_the_callers_script_again(tmp_path):
    """A script without a ``__main__`` guard that writes many points in the background runs
    once (its writer does not import the caller's script as multiprocessing's spawn would):
    its log holds one line and the file is written."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import tumble

    script = tmp_path / "unguarded.py"
    script.write_text(
        "import numpy as np\n"
        "from tumble.io import points_process\n"
        f"with open({str(tmp_path / 'log.txt')!r}, 'a') as log:\n"
        "    log.write('ran\\n')\n"
        "points_process.BACKGROUND_POINTS = 10\n"
        f"with points_process.PointsInBackground({str(tmp_path / 'p.gpkg')!r}, np.zeros((20, 3)),\n"
        "                                {'k': np.arange(20)}) as pending:\n"
        "    pending.wait()\n"
    )
    source = str(Path(tumble.__file__).resolve().parent.parent)
    subprocess.run(
        [sys.executable, str(script)],
        check=True,
        env={**os.environ, "PYTHONPATH": source},
        timeout=120,
    )
    assert (tmp_path / "log.txt").read_text() == "ran\n"
    assert pyogrio.raw.read(tmp_path / "p.gpkg")[3][0].tolist() == list(range(20))


def test_the_arrow_writer_writes_the_layer_written_feature_by_feature(tmp_path, monkeypatch):
    """GDAL's Arrow writer (used where GDAL >= 3.8) and the feature-by-feature writer give the
    same layer: schema (field names, SQL types, geometry column and type, CRS, spatial index),
    fids, geometries (a point without finite coordinates null) and every value, NaN, -0.0,
    large integers, booleans and text (empty, accented) included."""
    import sqlite3

    from tumble.io import vectors

    xyz = np.array([[1.0, 2.0, 3.0], [np.nan, 0.0, 0.0], [-4.5, 1e7, -0.0], [0.1, 0.2, 0.3]])
    attributes = {
        "energy": np.array([1.5, np.nan, -0.0, 1e300]),
        "rock": np.array([0, 2**40, -3, 7], dtype=np.int64),
        "steps": np.array([1, 2, 3, 4], dtype=np.int32),
        "share": np.array([0.5, 0.25, 1.0, 0.0], dtype=np.float32),
        "kept": np.array([True, False, True, False]),
        "status": np.array(["stopped", "", "left_domain", "Zone é"], dtype=object),
    }
    assert vectors._arrow_table(np.full(4, None, dtype=object), ["a"], [np.zeros(4)]) is not None
    arrow = write_points(tmp_path / "arrow.gpkg", xyz, attributes, crs="EPSG:2056")
    monkeypatch.setattr(vectors, "_arrow_table", lambda *args: None)
    plain = write_points(tmp_path / "plain.gpkg", xyz, attributes, crs="EPSG:2056")

    def schema(path):
        with sqlite3.connect(path) as db:
            tables = sorted(
                r[0].replace(path.stem, "LAYER")
                for r in db.execute("select name from sqlite_master where type='table'")
            )
            sql = db.execute("select sql from sqlite_master where name=?", (path.stem,))
            columns = db.execute(
                "select column_name, geometry_type_name, srs_id, z, m from gpkg_geometry_columns"
            ).fetchall()
        return tables, sql.fetchone()[0].replace(f'"{path.stem}"', "LAYER"), columns

    assert schema(arrow) == schema(plain)
    a = pyogrio.raw.read(arrow, return_fids=True)
    b = pyogrio.raw.read(plain, return_fids=True)
    assert a[0]["crs"] == b[0]["crs"] and a[0]["geometry_type"] == b[0]["geometry_type"]
    assert list(a[0]["fields"]) == list(b[0]["fields"])
    assert np.array_equal(a[1], b[1])
    assert list(a[2]) == list(b[2]) and a[2][1] is None
    for x, y in zip(a[3], b[3], strict=True):
        assert x.dtype == y.dtype
        if x.dtype.kind == "f":
            assert np.array_equal(
                x.view(np.int64 if x.itemsize == 8 else np.int32),
                y.view(np.int64 if y.itemsize == 8 else np.int32),
            )
        else:
            assert list(x) == list(y)
