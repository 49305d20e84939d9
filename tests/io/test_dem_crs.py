"""DEMs in degrees or feet: refused with a message naming the CRS and how to reproject, or
warped to a projected CRS in metres on request (``tumble.io.dem``, ``Terrain.from_file``)."""

import numpy as np
import pytest
from rasterio.crs import CRS
from rasterio.warp import transform

from tumble.cli.main import main
from tumble.io.dem import utm_epsg, write_raster
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
