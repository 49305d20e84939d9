"""DEMs in degrees or feet: refused with a message naming the CRS and how to reproject, or
warped to a projected CRS in metres on request (``tumble.io.dem``, ``Terrain.from_file``)."""

import numpy as np
import pytest
from rasterio.crs import CRS
from rasterio.warp import transform

from tumble.cli.main import main
from tumble.errors import DemError
from tumble.io.dem import write_raster
from tumble.io.dem_checks import utm_epsg
from tumble.rockfall import Terrain

US_FOOT = 1200.0 / 3937.0  # m, the US survey foot (EPSG:2227's unit)


@pytest.fixture
def geographic(tmp_path):
    """A 40 x 30 sample DEM in WGS 84 near 8.5 E, 46.8 N (0.001 degree cells), heights 1000 m."""
    path = tmp_path / "wgs84.tif"
    write_raster(path, np.full((30, 40), 1000.0), 8.5, 46.8, 0.001, 0.001, crs="EPSG:4326")
    return path


@pytest.fixture
def feet(tmp_path):
    """A DEM in NAD83 / California zone 3 (ftUS), 20 ft cells, heights 3280 ft."""
    path = tmp_path / "feet.tif"
    write_raster(path, np.full((30, 40), 3280.0), 6.0e6, 2.1e6, 20.0, 20.0, crs="EPSG:2227")
    return path


def test_utm_zone_of_a_point():
    assert utm_epsg(8.5, 46.8) == 32632 and utm_epsg(-122.4, 37.8) == 32610
    assert utm_epsg(151.2, -33.9) == 32756


def test_a_geographic_dem_is_refused_naming_its_crs(geographic):
    with pytest.raises(ValueError) as info:
        Terrain.from_file(geographic)
    message = str(info.value)
    for part in ("EPSG:4326", "WGS 84", "degrees", "gdalwarp -t_srs EPSG:32632", "--reproject"):
        assert part in message


def test_a_dem_in_feet_is_refused_naming_its_unit(feet):
    with pytest.raises(ValueError, match=r"EPSG:2227 .*US survey foot.*--reproject"):
        Terrain.from_file(feet)


def test_reprojection_gives_metric_coordinates(geographic):
    terrain = Terrain.from_file(geographic, reproject="EPSG:32632")
    assert terrain.crs == CRS.from_epsg(32632)
    b = terrain.bounds
    # the centre of the warped grid maps back to the centre of the source, within a cell
    lon, lat = transform(
        "EPSG:32632", "EPSG:4326", [(b.x_min + b.x_max) / 2], [(b.y_min + b.y_max) / 2]
    )
    assert abs(lon[0] - (8.5 + 0.0195)) < 0.001 and abs(lat[0] - (46.8 + 0.0145)) < 0.001
    # 0.001 degree of latitude is about 111 m, of longitude at 46.8 N about 76 m
    assert 60.0 < terrain.dx < 115.0 and terrain.dx == terrain.dy
    assert 400000.0 < b.x_min < 500000.0 and 5.1e6 < b.y_min < 5.2e6
    heights = terrain.heights[np.isfinite(terrain.heights)]
    assert heights.size > 0.5 * terrain.heights.size
    np.testing.assert_allclose(heights, 1000.0, rtol=1e-12)


def test_reprojection_from_feet_converts_the_heights(feet):
    terrain = Terrain.from_file(feet, reproject="EPSG:32610")
    heights = terrain.heights[np.isfinite(terrain.heights)]
    np.testing.assert_allclose(heights, 3280.0 * US_FOOT, rtol=1e-9)
    assert 5.0 < terrain.dx < 7.0  # 20 ft is 6.1 m


def test_reprojection_to_a_crs_not_in_metres_is_refused(geographic):
    with pytest.raises(ValueError, match="not a projected CRS in metres"):
        Terrain.from_file(geographic, reproject="EPSG:4326")


def test_cli_refuses_a_geographic_dem_naming_its_crs(geographic, tmp_path, capsys):
    out = tmp_path / "run"
    args = ["rockfall", "run", "--dem", str(geographic), "--rocks", "1", "--out", str(out)]
    assert main([*args, "--release", "470000,5185000"]) == 2
    err = capsys.readouterr().err
    assert "tumble rockfall" in err and "EPSG:4326" in err and "degrees" in err
    assert not out.exists()


@pytest.fixture
def metric_as_degrees(tmp_path):
    """A DEM in MGI / Austria GK West coordinates (x near -8300 m, y near 194900 m) whose file
    says EPSG:4326: the label is wrong, not the grid."""
    path = tmp_path / "gk_as_wgs84.tif"
    x = np.arange(40.0)
    heights = np.broadcast_to(1500.0 + 2.0 * np.maximum(20.0 - x, 0.0), (30, 40))
    write_raster(path, heights, -8400.0, 194850.0, 5.0, 5.0, crs="EPSG:4326")
    return path


def test_coordinates_that_cannot_be_degrees_are_a_wrong_label(metric_as_degrees):
    """|y| > 90 cannot be a latitude: the message says the label is wrong and how to assign the
    right one, never a UTM zone (the centre would make it EPSG:32636, in Africa)."""
    for reproject in (None, "EPSG:31254"):
        with pytest.raises(DemError) as info:
            Terrain.from_file(metric_as_degrees, reproject=reproject)
        message = str(info.value)
        for part in ("EPSG:4326", "cannot be degrees", "label is wrong", "gdal_edit.py -a_srs"):
            assert part in message
        assert 'dem_crs = "EPSG:31254"' in message
        assert "EPSG:32636" not in message and "gdalwarp" not in message
    terrain = Terrain.from_file(metric_as_degrees, crs="EPSG:31254")
    assert terrain.crs == CRS.from_epsg(31254)
    assert terrain.bounds.x_min == -8400.0 and terrain.bounds.y_min == 194850.0


def test_the_configuration_assigns_the_crs_and_the_command_line_says_why_not(
    metric_as_degrees, tmp_path, capsys
):
    out = tmp_path / "run"
    args = ["rockfall", "run", "--dem", str(metric_as_degrees), "--rocks", "1", "--t-max", "1"]
    args += ["--release", "-8300,194900", "--no-figures", "--out", str(out)]
    for extra in ([], ["--reproject", "EPSG:31254"]):
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert "label is wrong" in err and "Traceback" not in err
    assert not out.exists()
    assert main([*args, "--dem-crs", "EPSG:31254"]) == 0, capsys.readouterr().err
    assert main([*args[:-1], str(tmp_path / "other"), "dem_crs='EPSG:31254'"]) == 0


@pytest.mark.parametrize(
    ("x0", "crs", "reproject", "expected"),
    [
        # UTM x of 90 000 km: PROJ transforms none of its points
        (9.0e7, "EPSG:32632", "EPSG:31254", "cannot be reprojected from EPSG:32632"),
        # a site at 171 W, 60 S is not in the Swiss grid: the warp leaves every sample empty
        (-171.0, "EPSG:4326", "EPSG:2056", "no cell left with four heights"),
    ],
)
def test_a_dem_whose_extent_does_not_transform_is_refused_in_one_sentence(
    tmp_path, x0, crs, reproject, expected
):
    path = tmp_path / "far.tif"
    cell = 5.0 if crs == "EPSG:32632" else 0.001
    y0 = 5.0e6 if crs == "EPSG:32632" else -60.5
    write_raster(path, np.full((30, 40), 1000.0), x0, y0, cell, cell, crs=crs)
    with pytest.raises(DemError, match=expected):
        Terrain.from_file(path, reproject=reproject)


def test_a_local_grid_is_refused_with_how_to_label_it(tmp_path):
    path = tmp_path / "local.tif"
    local = CRS.from_wkt(
        'LOCAL_CS["site grid",LOCAL_DATUM["site",0],UNIT["metre",1],AXIS["X",EAST],AXIS["Y",NORTH]]'
    )
    write_raster(path, np.full((30, 40), 1000.0), 100.0, 200.0, 5.0, 5.0, crs=local)
    for reproject in (None, "EPSG:32632"):
        with pytest.raises(DemError, match=r"local or engineering grid.*gdal_edit\.py -a_srs"):
            Terrain.from_file(path, reproject=reproject)
