"""Untagged nodata fills of a DEM (tumble.io.dem_checks.fill_problem, Terrain.from_file): a -9999
or a float32 extreme that the file does not tag is refused naming the value, its cells and how to
tag it; ``dem_nodata`` tags it without GDAL; real relief is never taken for a fill."""

import numpy as np
import pytest

from tumble.errors import DemError
from tumble.io.config import load_config
from tumble.io.dem import write_raster
from tumble.io.dem_checks import fill_problem
from tumble.rockfall import Terrain
from tumble.rockfall.site.from_config import build_run

FLOAT32_LOWEST = float(np.finfo(np.float32).min)


def slope(ny: int = 30, nx: int = 40) -> np.ndarray:
    """A 35 degree slope from 1028 m down to a 1000 m foot, 1 m cells."""
    x = np.arange(float(nx))
    return np.array(np.broadcast_to(1000.0 + np.maximum(40.0 - x, 0.0) * 0.7, (ny, nx)))


@pytest.mark.parametrize(
    ("fill", "text"),
    [(-9999.0, "-9999"), (-32768.0, "-32768"), (FLOAT32_LOWEST, repr(FLOAT32_LOWEST))],
)
def test_an_untagged_fill_is_refused_naming_value_cells_and_the_tag(tmp_path, fill, text):
    heights = slope()
    heights[:, 30:] = fill  # 10 columns of 30 rows: 300 of 1200 cells
    path = tmp_path / "dem.tif"
    dtype = "float32" if fill == FLOAT32_LOWEST else "float64"
    write_raster(path, heights, 0.0, 0.0, 1.0, 1.0, crs="EPSG:2056", dtype=dtype)
    with pytest.raises(DemError) as info:
        Terrain.from_file(path)
    message = str(info.value)
    assert f"300 of 1200 cells (25 %) hold the height {text}," in message
    assert f"gdal_edit.py -a_nodata {text} {path}" in message
    assert f"dem_nodata = {text}" in message
    # tagged in the configuration: those cells are holes, the rest is the terrain
    terrain = Terrain.from_file(path, nodata=float(text))
    assert terrain.holes == 300
    kept = heights[:, :30].astype(dtype)  # as stored
    np.testing.assert_array_equal(terrain.heights[:, :30], kept)


def test_a_lowest_value_far_below_the_relief_is_a_fill():
    """0 under a plateau of 2000 to 2600 m: 2000 m below every other height, more than their
    600 m of relief; a real 0 to 2600 m slope and a two-level step are not fills."""
    heights = 2000.0 + 15.0 * np.arange(40.0)[None, :] + np.zeros((30, 1))
    heights[3:7, 5:9] = 0.0
    message = fill_problem(heights, "dem.tif")
    assert message is not None and "16 of 1200 cells" in message and "height 0," in message
    assert fill_problem(np.linspace(0.0, 2600.0, 1200).reshape(30, 40), "dem.tif") is None
    step = np.where(np.arange(40.0)[None, :] < 20, 1500.0, 0.0) + np.zeros((30, 1))
    assert fill_problem(step, "dem.tif") is None
    holed = slope()
    holed[:5] = np.nan  # tagged nodata is not a fill
    assert fill_problem(holed, "dem.tif") is None


def test_dem_nodata_from_the_configuration(tmp_path):
    heights = slope()
    heights[:, 32:] = -9999.0
    path = tmp_path / "dem.tif"
    write_raster(path, heights, 2600000.0, 1200000.0, 1.0, 1.0, crs="EPSG:2056")
    settings = {"dem": str(path), "rocks": 2, "release.point": [2600005.0, 1200015.0]}
    with pytest.raises(ValueError, match=r"dem_nodata = -9999"):
        build_run(load_config(None, settings))
    setup = build_run(load_config(None, {**settings, "dem_nodata": -9999}))
    assert setup.ensemble.terrain.holes == 30 * 8


def test_the_fill_below_the_relief_is_found_scanning_a_few_rows_at_a_time(monkeypatch):
    """The same verdict and message when the DEM is scanned 3 rows at a time (its 30 rows in
    10 blocks) as in one block: the lowest height above the fill is the 2000 m of the plateau,
    found in another block than the fill."""
    import tumble.io.dem_checks as checks

    heights = 2000.0 + 15.0 * np.arange(40.0)[None, :] + np.zeros((30, 1))
    heights[20:24, 5:9] = 0.0
    heights[:2] = np.nan
    whole = fill_problem(heights, "dem.tif")
    monkeypatch.setattr(checks, "SCAN_ROWS", 3)
    assert checks._lowest_above(heights, 0.0) == 2000.0
    assert fill_problem(heights, "dem.tif") == whole is not None
