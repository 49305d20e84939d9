"""The real example site (examples/real_site): the facts of the Land Tirol crop that its README
states (CRS, grid, cliffs steeper than 70 degrees, the nodata footprint) read back through
``Terrain.from_file``, the site that ``make_site.py`` places on it, and a configuration that
validates. No simulation runs here.

The crop is ``examples/real_site/dem.tif`` where ``make_site.py --source avaHit.asc`` wrote it
(README.md there); else it is cropped here from AvaFrame's ``avaHit.asc``, found at
``$TUMBLE_AVAHIT`` or in ``../shared/validation/avaHit/`` beside the repository, into a
temporary folder (never into the repository). Where neither is found, the tests that read it
are skipped, saying so."""

import importlib.util
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import rasterio
import rasterio.crs
import shapely
from scipy import ndimage

from tumble.io.config import load_config
from tumble.io.vectors import read_lines, read_polygons
from tumble.rockfall.terrain import Terrain

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "real_site"
DEM = EXAMPLE / "dem.tif"

#: the grid the README states: 400 x 400 samples of 4.997678230579 m (AvaFrame's resampling of
#: the 5 m Land Tirol model), south-west sample at (272871.375, 357732.589) in EPSG:31287
SHAPE = (400, 400)
SPACING = 4.997678230579
ORIGIN = (272871.375, 357732.589)
EPSG = 31287

#: AvaFrame's avaHit.asc: $TUMBLE_AVAHIT, or the shared validation data beside the repository
SOURCES = (
    os.environ.get("TUMBLE_AVAHIT", ""),
    str(EXAMPLE.parents[2] / "shared" / "validation" / "avaHit" / "avaHit.asc"),
)
SOURCE = next((Path(p) for p in SOURCES if p and Path(p).is_file()), None)

needs_dem = pytest.mark.skipif(
    not DEM.is_file() and SOURCE is None,
    reason="examples/real_site/dem.tif not written and avaHit.asc not found ($TUMBLE_AVAHIT, "
    "../shared/validation/avaHit/)",
)


def make_site_module():
    spec = importlib.util.spec_from_file_location("make_real_site", EXAMPLE / "make_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dem(tmp_path_factory) -> Path:
    """The crop: the example's, else one cropped from the source into a temporary folder."""
    if DEM.is_file():
        return DEM
    assert SOURCE is not None
    return make_site_module().crop_source(SOURCE, tmp_path_factory.mktemp("real_site_dem"))


def slope_deg(terrain: Terrain) -> np.ndarray:
    """Slope (degrees) of each sample from central differences, as the README computes it."""
    gy, gx = np.gradient(terrain.heights, terrain.dy, terrain.dx)
    return np.degrees(np.arctan(np.hypot(gx, gy)))


@pytest.fixture(scope="module")
def terrain(dem) -> Terrain:
    return Terrain.from_file(dem)


@pytest.fixture(scope="module")
def site(tmp_path_factory, dem) -> Path:
    folder = tmp_path_factory.mktemp("real_site")
    shutil.copy(dem, folder / "dem.tif")
    make_site_module().write_site(folder)
    shutil.copy(EXAMPLE / "site.toml", folder / "site.toml")
    return folder


def test_configuration_validates(tmp_path):
    shutil.copy(EXAMPLE / "site.toml", tmp_path / "site.toml")
    config = load_config(tmp_path / "site.toml")
    assert config.dem == str(tmp_path / "dem.tif")
    assert config.rocks == 800
    assert config.soil.preset == "medium"
    assert [c.name for c in config.rock.classes] == ["small", "large"]
    assert sum(c.share for c in config.rock.classes) == pytest.approx(1.0)
    assert config.release.areas == str(tmp_path / "release.gpkg")
    assert (config.release.name_field, config.release.frequency_field) == ("name", "frequency")
    net, line = config.barrier
    assert (net.name, net.height, net.capacity) == ("net", 5.0, 3000.0)
    assert (line.name, line.height, line.capacity) == ("valley", None, None)


@needs_dem
def test_crs_and_grid_as_stated(terrain, dem):
    assert terrain.crs.to_epsg() == EPSG
    assert terrain.crs.is_projected and terrain.crs.linear_units_factor[1] == 1.0
    assert terrain.shape == SHAPE
    assert terrain.dx == pytest.approx(SPACING, abs=1e-9)
    assert terrain.dy == pytest.approx(SPACING, abs=1e-9)
    assert (terrain.x0, terrain.y0) == pytest.approx(ORIGIN, abs=1e-3)
    with rasterio.open(dem) as dataset:
        assert dataset.dtypes[0] == "float32"
        assert dataset.nodata == -9999.0
        assert dataset.compression is not None and dataset.compression.value == "DEFLATE"


@needs_dem
def test_cliffs_steeper_than_70_degrees(terrain):
    slope = slope_deg(terrain)
    # README: 82.3 degrees at most, 857 samples above 70 and 3711 above 60
    assert np.nanmax(slope) > 70.0
    assert np.nanmax(slope) == pytest.approx(82.27, abs=0.01)
    assert int(np.sum(slope > 70.0)) == 857
    assert int(np.sum(slope > 60.0)) == 3711


@needs_dem
def test_nodata_footprint_as_stated(terrain):
    holes = np.isnan(terrain.heights)
    # README: 28 381 of 160 000 samples (17.7 %) are nodata, all of them outside the clip
    # polygon of the data set (every nodata patch touches the edge of the crop: no hole inside)
    assert int(holes.sum()) == terrain.holes == 28381
    assert holes.mean() == pytest.approx(0.177, abs=0.0005)
    labels, count = ndimage.label(holes)
    border = np.unique(np.r_[labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    assert count == 4
    assert set(border) - {0} == set(range(1, count + 1))
    # irregular: the footprint is not a rectangle (rows have data over different columns)
    first = np.argmax(~holes, axis=1)
    assert len(set(first.tolist())) > 50


@needs_dem
def test_release_areas_on_the_rock_band(site, terrain):
    polygons, attributes, crs = read_polygons(site / "release.gpkg", fields=("name", "frequency"))
    assert attributes == {"name": ["west band", "east band"], "frequency": [0.2, 0.1]}
    assert rasterio.crs.CRS.from_wkt(crs).to_epsg() == EPSG
    slope = slope_deg(terrain)
    xs, ys = np.meshgrid(terrain.grid_x, terrain.grid_y)
    for parts in polygons:
        (rings,) = parts
        inside = shapely.contains_xy(shapely.Polygon(rings[0], rings[1:]), xs, ys)
        assert inside.sum() > 100
        # the samples steeper than 60 degrees, joined across one-cell gaps: mostly that steep
        assert np.median(slope[inside]) > 60.0
        # two samples off the nodata: every sample of a release cell is data
        assert np.isfinite(terrain.heights[ndimage.binary_dilation(inside, iterations=2)]).all()


@needs_dem
def test_barrier_lines_follow_their_contours(site, terrain):
    names, lines, crs = read_lines(site / "barrier.gpkg", name_field="name")
    assert names == ["net", "valley"]
    assert rasterio.crs.CRS.from_wkt(crs).to_epsg() == EPSG
    for vertices, level in zip(lines, (1900.0, 1510.0), strict=True):
        assert vertices.shape[1] == 3 and vertices.shape[0] > 10
        assert np.all(vertices[:, 2] == level)
        assert terrain.contains(vertices[:, 0], vertices[:, 1]).all()
        # a vertex every 10 m (equal steps along the contour, so equal chords up to its bends)
        steps = np.hypot(*np.diff(vertices[:, :2], axis=0).T)
        assert 9.0 < np.median(steps) < 11.0 and steps.max() < 11.0
        # on the contour of the bilinear surface, up to the chord's cut across a bend
        heights = terrain.height(vertices[:, 0], vertices[:, 1])
        assert np.abs(heights - level).max() < 1.0
