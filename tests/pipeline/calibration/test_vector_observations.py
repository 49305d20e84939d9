"""Observations as a vector file of points at the stops, in another CRS than the DEM's: read
with pyogrio, transformed to the DEM's CRS (releases and stops), refused row by row."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyogrio.raw
import pytest
import shapely
from rasterio.crs import CRS

from tumble.cli.main import main
from tumble.errors import DataError
from tumble.io.observations import read_observations
from tumble.io.vectors import transform_xy
from tumble.pipeline.calibration.blocks import blocks_on
from tumble.rockfall.terrain import Terrain

#: the DEM's CRS, UTM 32N
DEM_CRS = CRS.from_epsg(32632)
#: the same transverse Mercator with other false easting and northing: the file's coordinates
#: are the DEM's shifted by exactly (-100 km, +50 km)
SHIFTED = CRS.from_proj4(
    "+proj=tmerc +lat_0=0 +lon_0=9 +k=0.9996 +x_0=400000 +y_0=50000 +datum=WGS84 +units=m"
)
X0, Y0 = 500_000.0, 5_200_000.0
#: (release_x, release_y, stop_x, stop_y) in the DEM's CRS
BLOCKS = np.array(
    [
        [X0 + 5.0, Y0 + 0.0, X0 + 30.0, Y0 + 1.0],
        [X0 + 5.0, Y0 + 2.0, X0 + 34.5, Y0 - 3.0],
        [X0 + 6.0, Y0 - 2.0, X0 + 27.25, Y0 + 4.5],
    ]
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("utm")
    heights = np.array([[np.nan, *([0.0] * 40)]] * 21) + np.linspace(20, 0, 41)
    terrain = Terrain.from_array(heights, x0=X0, y0=Y0 - 10.0, dx=1.0, crs=DEM_CRS)
    terrain.write(folder / "dem.tif")
    (folder / "site.toml").write_text('dem = "dem.tif"\nt_max = 5\n')
    return folder


def write_gpkg(
    path: Path, blocks: np.ndarray, crs: CRS, mass=(400.0, 500.0, 600.0), geometry=None
) -> Path:
    """``blocks`` (DEM CRS) written in ``crs``: fields release_x, release_y, shape, mass and
    the stop as the point."""
    rx, ry = transform_xy(blocks[:, 0], blocks[:, 1], DEM_CRS, crs)
    sx, sy = transform_xy(blocks[:, 2], blocks[:, 3], DEM_CRS, crs)
    points = geometry if geometry is not None else shapely.points(sx, sy)
    pyogrio.raw.write(
        path,
        np.array([shapely.to_wkb(p) for p in points], dtype=object),
        [np.asarray(rx), np.asarray(ry), np.array(["eota221"] * len(blocks)), np.array(mass)],
        ["release_x", "release_y", "shape", "mass"],
        driver="GPKG",
        geometry_type="Point" if geometry is None else "Unknown",
        crs=crs.to_wkt(),
    )
    return path


@pytest.mark.parametrize("crs", [SHIFTED, CRS.from_epsg(4326)], ids=["shifted", "lonlat"])
def test_points_in_another_crs_are_transformed_to_the_dem(site, tmp_path, crs):
    path = write_gpkg(tmp_path / "stops.gpkg", BLOCKS, crs)
    obs = read_observations(path)
    assert obs.crs is not None and CRS.from_wkt(obs.crs) == crs
    if crs == SHIFTED:  # the file holds the shifted numbers: the transformation is not a no-op
        np.testing.assert_allclose(obs.number("release_x"), BLOCKS[:, 0] - 100_000.0, atol=1e-6)
        np.testing.assert_allclose(obs.number("stop_y"), BLOCKS[:, 3] + 50_000.0, atol=1e-6)
    terrain = Terrain.from_file(site / "dem.tif")
    blocks = blocks_on(obs, terrain, crs=terrain.crs)
    np.testing.assert_allclose(blocks.release, BLOCKS[:, :2], atol=1e-6)
    np.testing.assert_allclose(blocks.stop, BLOCKS[:, 2:], atol=1e-6)
    expected = np.hypot(*(BLOCKS[:, 2:] - BLOCKS[:, :2]).T)
    np.testing.assert_allclose(blocks.runout, expected, atol=1e-6)


def test_the_command_calibrates_on_a_geopackage_in_another_crs(site, tmp_path):
    path = write_gpkg(tmp_path / "stops.gpkg", BLOCKS, SHIFTED)
    out = tmp_path / "calib"
    argv = ["rockfall", "calibrate", "--config", str(site / "site.toml"), "--observations"]
    argv += [str(path), "--points", "4", "--orientations", "1", "--threads", "1"]
    argv += ["--free", "rolling_resistance=0:0.8", "--free", "mu_min=0.3:0.8"]
    assert main([*argv, "--out", str(out)]) == 0
    observed = json.loads((out / "calibration.json").read_text())["observed"]
    expected = np.hypot(*(BLOCKS[:, 2:] - BLOCKS[:, :2]).T)
    assert observed["blocks"] == 3
    assert observed["median_runout_m"] == pytest.approx(np.median(expected), abs=1e-6)
    # the report: run-out CDFs, the map of the stops, the parameter scatter, as PNG
    report = (out / "report.html").read_text()
    assert report.count('src="data:image/png;base64,') == 3
    assert "Observed and simulated stops over the DEM" in report
    assert "the best set a red star" in report


def refused(site: Path, path: Path, capsys) -> str:
    out = path.parent / "calib"
    argv = ["rockfall", "calibrate", "--config", str(site / "site.toml"), "--observations"]
    assert main([*argv, str(path), "--points", "2", "--out", str(out)]) == 2
    assert not out.exists()
    return capsys.readouterr().err


def test_a_stop_off_the_dem_after_the_transformation_is_named(site, tmp_path, capsys):
    blocks = BLOCKS.copy()
    blocks[1, 2] = X0 + 60.0  # beyond the DEM's 40 m
    err = refused(site, write_gpkg(tmp_path / "off.gpkg", blocks, SHIFTED), capsys)
    assert "row 2, column stop_x, stop_y" in err
    assert f"({X0 + 60:.10g}, " in err  # in the DEM's CRS
    assert "outside the DEM" in err


def test_a_stop_in_nodata_of_a_vector_file_is_named(site, tmp_path, capsys):
    blocks = BLOCKS.copy()
    blocks[2, 2] = X0 + 0.25  # the first column of the DEM is nodata
    err = refused(site, write_gpkg(tmp_path / "hole.gpkg", blocks, SHIFTED), capsys)
    assert "row 3, column stop_x, stop_y" in err
    assert "nodata" in err


def test_a_negative_mass_in_a_vector_file_is_named(site, tmp_path, capsys):
    path = write_gpkg(tmp_path / "mass.gpkg", BLOCKS, SHIFTED, mass=(400.0, -5.0, 600.0))
    assert "row 2, column mass: must be positive, got -5" in refused(site, path, capsys)


def test_a_line_where_a_stop_belongs_is_refused(tmp_path):
    line = shapely.LineString([(X0, Y0), (X0 + 1.0, Y0)])
    geometry = [shapely.points(X0, Y0), line, shapely.points(X0, Y0)]
    path = write_gpkg(tmp_path / "line.gpkg", BLOCKS, DEM_CRS, geometry=geometry)
    with pytest.raises(DataError, match="row 2, the stop: a LineString, not a point"):
        read_observations(path)
