"""Run outputs a GIS opens without our docs: labelled cloud-optimised hazard rasters with nodata
wherever no rock came, the DEM, deposits and trajectories as GeoPackages, all matching the
in-memory results of a small ensemble."""

import math

import numpy as np
import pyogrio
import pyogrio.raw
import pytest
import rasterio
import shapely
from rasterio.crs import CRS

from tumble.io.dem import read_raster
from tumble.pipeline.trajectories import trajectory_sample
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import RASTER_INFO, RASTERS, Ensemble
from tumble.rockfall.ensemble.outputs import (
    COUNT_NODATA,
    write_deposits_gpkg,
    write_trajectories_gpkg,
)
from tumble.rockfall.release import Release

SAMPLED = 3


@pytest.fixture(scope="module")
def run():
    """Eight rocks on a 40 degree slope and a flat run-out (61 x 31 cells, EPSG:2056): most
    cells see no rock. Returns the ensemble and its result."""
    x = np.arange(61.0)
    heights = np.broadcast_to(np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0)), (31, 61))
    terrain = Terrain.from_array(heights, x0=2600000.0, y0=1199985.0, dx=1.0, crs="EPSG:2056")
    release = Release(point=(2600003.0, 1200000.0), height=1.2, speed_downslope=1.0)
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=780.0),
        Soil.preset("medium"),
        release.draw(terrain, 8, 7),
        scheme="implicit",
        t_max=6.0,
        seed=7,
    )
    return ensemble, ensemble.run(threads=1)


def read_band(path):
    """Values of a file's band in the layout of tumble's grid (rows south to north), masked
    where nodata, and the dataset's metadata."""
    with rasterio.open(path) as src:
        masked = src.read(1, masked=True)[::-1]
        meta = {
            "dtype": src.dtypes[0],
            "nodata": src.nodata,
            "description": src.descriptions[0],
            "unit": src.units[0],
            "tiled": src.profile["tiled"],
            "layout": src.tags(ns="IMAGE_STRUCTURE").get("LAYOUT"),
            "crs": src.crs,
            "transform": src.transform,
        }
    return masked, meta


def test_rasters_are_labelled_cogs_with_a_band_only_where_rocks_came(run, tmp_path):
    ensemble, result = run
    terrain = ensemble.terrain
    before = {name: result.rasters[name].copy() for name in RASTERS}
    written = result.write_rasters(terrain, tmp_path / "rasters", ascii=True)
    assert len(written) == 2 * len(RASTERS)
    reached = (result.rasters["passing_count"] > 0) | (result.rasters["deposit_count"] > 0)
    assert reached.any() and not reached.all()
    passed_not_stopped = (result.rasters["passing_count"] > 0) & (
        result.rasters["deposit_count"] == 0
    )
    assert passed_not_stopped.any()
    for name in RASTERS:
        info = RASTER_INFO[name]
        masked, meta = read_band(tmp_path / "rasters" / f"{name}.tif")
        assert meta["description"] == info.description, name
        assert meta["unit"] == info.unit, name
        assert meta["tiled"] and meta["layout"] == "COG", name
        assert meta["crs"] == CRS.from_epsg(2056) and meta["transform"] == terrain.transform
        if info.count:
            assert meta["dtype"] == "uint32" and meta["nodata"] == COUNT_NODATA, name
        else:
            assert meta["dtype"] == "float32" and math.isnan(meta["nodata"]), name
        memory = result.rasters[name]
        # nodata wherever no rock came, and wherever the value is undefined
        np.testing.assert_array_equal(masked.mask, ~reached | np.isnan(memory), err_msg=name)
        defined = reached & ~np.isnan(memory)
        np.testing.assert_array_equal(
            masked.data[defined], memory[defined].astype(masked.dtype), err_msg=name
        )
        # ESRI ASCII: the same cells as float64 text
        ascii = read_raster(tmp_path / "rasters" / f"{name}.asc")
        np.testing.assert_array_equal(ascii.values, np.where(reached, memory, np.nan))
        # the in-memory rasters are left as they were: 0 counts, NaN where undefined
        np.testing.assert_array_equal(memory, before[name])
    deposits, _ = read_band(tmp_path / "rasters" / "deposit_count.tif")
    assert np.all(deposits[passed_not_stopped] == 0)
    assert result.rasters["reach_probability"][~reached].tolist() == [0.0] * int((~reached).sum())


def test_dem_is_a_labelled_cog_that_reads_back_unchanged(run, tmp_path):
    terrain = run[0].terrain
    masked, meta = read_band(terrain.write(tmp_path / "dem.tif"))
    assert (meta["description"], meta["unit"]) == ("terrain height", "m")
    assert meta["dtype"] == "float64" and meta["layout"] == "COG"
    np.testing.assert_array_equal(masked.data, terrain.heights)
    back = Terrain.from_file(tmp_path / "dem.tif")
    np.testing.assert_array_equal(back.heights, terrain.heights)
    assert (back.x0, back.y0, back.dx, back.dy) == (terrain.x0, terrain.y0, terrain.dx, terrain.dy)


def test_deposits_are_one_point_per_rock_at_its_final_position(run, tmp_path):
    ensemble, result = run
    path = write_deposits_gpkg(tmp_path / "deposits.gpkg", result.rocks, ensemble.terrain.crs)
    info = pyogrio.read_info(path)
    assert info["layer_name"] == "deposits" and info["geometry_type"] == "Point Z"
    assert info["features"] == ensemble.n_rocks
    assert CRS.from_user_input(info["crs"]).to_epsg() == 2056
    meta, _, wkb, fields = pyogrio.raw.read(path)
    xyz = shapely.get_coordinates(shapely.from_wkb(wkb), include_z=True)
    expected = np.column_stack([result.rocks["x"], result.rocks["y"], result.rocks["z"]])
    np.testing.assert_array_equal(xyz, expected)
    assert list(meta["fields"]) == list(result.rocks)
    for name, column in zip(meta["fields"], fields, strict=True):
        if result.rocks[name].dtype.kind == "U":
            assert list(column) == result.rocks[name].tolist(), name
        else:
            np.testing.assert_array_equal(column, result.rocks[name], err_msg=name)


def test_trajectories_are_one_line_per_sampled_rock_through_its_samples(run, tmp_path):
    ensemble, result = run
    samples = trajectory_sample(ensemble, range(SAMPLED), 5)
    path = write_trajectories_gpkg(
        tmp_path / "trajectories.gpkg",
        samples,
        result.rocks,
        ensemble.terrain.crs,
        [shape.name for shape in ensemble.shapes],
    )
    info = pyogrio.read_info(path)
    assert info["layer_name"] == "trajectories" and info["geometry_type"] == "LineString Z"
    assert info["features"] == SAMPLED
    assert CRS.from_user_input(info["crs"]).to_epsg() == 2056
    meta, _, wkb, fields = pyogrio.raw.read(path)
    columns = dict(zip(meta["fields"], fields, strict=True))
    assert list(columns) == [
        "rock",
        "source",
        "shape",
        "status",
        "kinetic_energy_max_kJ",
        "jump_height_max_m",
    ]
    np.testing.assert_array_equal(columns["rock"], np.arange(SAMPLED))
    np.testing.assert_array_equal(columns["source"], np.zeros(SAMPLED))
    assert list(columns["shape"]) == ["EOTA221"] * SAMPLED
    assert list(columns["status"]) == result.rocks["status"][:SAMPLED].tolist()
    for name in ("kinetic_energy_max_kJ", "jump_height_max_m"):
        np.testing.assert_array_equal(columns[name], result.rocks[name][:SAMPLED])
    for k, geometry in enumerate(shapely.from_wkb(wkb)):
        rows = samples["rock"] == k
        expected = np.column_stack([samples["x"][rows], samples["y"][rows], samples["z"][rows]])
        assert expected.shape[0] > 2
        np.testing.assert_array_equal(shapely.get_coordinates(geometry, include_z=True), expected)


def test_ascii_copies_of_the_hazard_products_hold_the_geotiffs_cells(tmp_path):
    """The zone raster (uint8, nodata 255), a frequency raster (float32), converged.tif and
    source_count.tif written with ``ascii``: their ESRI ASCII copies hold the GeoTIFFs' cells
    (the frequencies to float32), nodata where the GeoTIFFs have it (the DEM's hole), on the
    same grid."""
    from tumble.rockfall.hazard.convergence import write_converged
    from tumble.rockfall.hazard.reach import write_source_count
    from tumble.rockfall.hazard.zoning import write_zoning_rasters

    heights = np.zeros((4, 5))
    heights[1, 2] = np.nan
    terrain = Terrain.from_array(heights, x0=100.0, y0=200.0, dx=2.0)
    zone = np.arange(20, dtype=np.float64).reshape(4, 5) % 4
    frequency = np.linspace(0.0, 0.05, 20).reshape(4, 5)
    zoning = {
        "hazard_zone": zone,
        "reach_frequency": frequency,
        "frequency_exceeding_30kJ": frequency / 2,
        "frequency_exceeding_300kJ": frequency / 4,
    }
    written = write_zoning_rasters(terrain, zoning, tmp_path, ascii=True)
    assert sorted(p.name for p in written if p.suffix == ".asc") == sorted(
        f"{name}.asc" for name in zoning
    )
    write_converged(terrain, zone > 1, tmp_path, ascii=True)
    write_source_count(terrain, zone.astype(np.uint16), tmp_path, ascii=True)
    for name in (*zoning, "converged", "source_count"):
        with rasterio.open(tmp_path / f"{name}.tif") as src:
            tif = np.flipud(src.read(1, masked=True).astype(np.float64).filled(np.nan))
        copy = read_raster(tmp_path / f"{name}.asc")
        assert (copy.x0, copy.y0, copy.dx) == (100.0, 200.0, 2.0), name
        assert np.isnan(copy.values[1, 2]) and np.isnan(tif[1, 2]), name
        np.testing.assert_array_equal(copy.values.astype(np.float32), tif.astype(np.float32))
