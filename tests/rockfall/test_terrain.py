"""Terrain: bilinear surface and normal (L14 section 3.3), scenarios, DEM files and bad inputs."""

import math
import pickle

import numpy as np
import pytest
import rasterio
from rasterio.transform import Affine
from scipy.interpolate import RegularGridInterpolator

from tumble.io import read_raster
from tumble.rockfall.terrain import SOIL_RASTERS, Terrain

SWISS = "EPSG:2056"


def tilted(x0, y0, dx, dy, shape, a=412.0, b=0.31, c=-0.17):
    """Heights of the plane z = a + b (x - x0) + c (y - y0) on a grid, and the plane itself."""
    ny, nx = shape
    x = x0 + dx * np.arange(nx)
    y = y0 + dy * np.arange(ny)
    heights = a + b * (x[None, :] - x0) + c * (y[:, None] - y0)

    def plane(px, py):
        return a + b * (np.asarray(px) - x0) + c * (np.asarray(py) - y0)

    return heights, plane


def random_points(terrain, rng, n=2000):
    b = terrain.bounds
    x = rng.uniform(b.x_min, b.x_max, n)
    y = rng.uniform(b.y_min, b.y_max, n)
    # the corners and the sample points themselves belong to the surface as well
    x[:4] = [b.x_min, b.x_max, b.x_min, b.x_max]
    y[:4] = [b.y_min, b.y_min, b.y_max, b.y_max]
    x[4:20] = terrain.x0 + terrain.dx * rng.integers(0, terrain.shape[1], 16)
    y[4:20] = terrain.y0 + terrain.dy * rng.integers(0, terrain.shape[0], 16)
    return x, y


# --- the bilinear surface -------------------------------------------------------------------


@pytest.mark.parametrize(("dx", "dy"), [(1.0, 1.0), (0.7, 1.3), (2.5, 0.4)])
def test_bilinear_height_reproduces_a_plane(dx, dy):
    rng = np.random.default_rng(1)
    heights, plane = tilted(-3.1, 2.2, dx, dy, (13, 17))
    terrain = Terrain.from_array(heights, x0=-3.1, y0=2.2, dx=dx, dy=dy)
    x, y = random_points(terrain, rng)
    np.testing.assert_allclose(terrain.height(x, y), plane(x, y), rtol=0, atol=1e-12)
    # gradient (0.31, -0.17): the unit normal is (-0.31, 0.17, 1) normalised, in every cell
    expected = np.array([-0.31, 0.17, 1.0]) / math.sqrt(1 + 0.31**2 + 0.17**2)
    np.testing.assert_allclose(terrain.normal(x, y), np.tile(expected, (x.size, 1)), atol=1e-14)


def test_height_matches_an_independent_bilinear_interpolator():
    rng = np.random.default_rng(2)
    heights = rng.normal(size=(9, 12)) * 5.0
    terrain = Terrain.from_array(heights, x0=10.0, y0=-4.0, dx=0.8, dy=1.7)
    reference = RegularGridInterpolator((terrain.grid_y, terrain.grid_x), heights)
    x, y = random_points(terrain, rng)
    np.testing.assert_allclose(
        terrain.height(x, y), reference(np.column_stack([y, x])), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("slope", [0.0, 10.0, 40.0, 75.0])
def test_plane_height_and_normal(slope):
    rng = np.random.default_rng(3)
    terrain = Terrain.plane(slope, size=(60.0, 20.0), spacing=0.5)
    a = math.radians(slope)
    assert terrain.bounds == (0.0, -10.0, 60.0, 10.0)
    x, y = random_points(terrain, rng)
    np.testing.assert_allclose(terrain.height(x, y), (60.0 - x) * math.tan(a), atol=1e-12)
    expected = np.tile([math.sin(a), 0.0, math.cos(a)], (x.size, 1))
    np.testing.assert_allclose(terrain.normal(x, y), expected, rtol=0, atol=1e-13)


def test_normal_is_the_normalised_gradient_of_the_bilinear_surface():
    rng = np.random.default_rng(4)
    dx, dy = 0.8, 1.7
    terrain = Terrain.from_array(rng.normal(size=(8, 10)) * 3.0, x0=1.0, y0=2.0, dx=dx, dy=dy)
    # points strictly inside cells, where the surface is smooth
    k = rng.integers(0, 9, 500)
    l = rng.integers(0, 7, 500)
    x = 1.0 + dx * (k + rng.uniform(0.05, 0.95, 500))
    y = 2.0 + dy * (l + rng.uniform(0.05, 0.95, 500))
    # z is linear in x at fixed y (and vice versa) inside a cell: central differences are exact
    # up to round-off
    h = 1e-5
    gx = (terrain.height(x + h, y) - terrain.height(x - h, y)) / (2 * h)
    gy = (terrain.height(x, y + h) - terrain.height(x, y - h)) / (2 * h)
    expected = np.column_stack([-gx, -gy, np.ones_like(gx)])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    normal = terrain.normal(x, y)
    np.testing.assert_allclose(normal, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(normal, axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.all(normal[:, 2] > 0)


def test_height_is_continuous_across_cell_edges():
    rng = np.random.default_rng(5)
    heights = rng.normal(size=(7, 9)) * 4.0
    terrain = Terrain.from_array(heights, x0=-2.0, y0=5.0, dx=1.5, dy=0.6)
    steepest = max(
        np.abs(np.diff(heights, axis=1)).max() / 1.5, np.abs(np.diff(heights, axis=0)).max() / 0.6
    )
    delta = 1e-9
    # vertical grid lines x = x_i: the surface there is the linear interpolant of the two
    # samples on the line, approached from both neighbouring cells
    i = rng.integers(1, 8, 300)
    t = rng.uniform(0, 1, 300)
    j = rng.integers(0, 6, 300)
    x = -2.0 + 1.5 * i
    y = 5.0 + 0.6 * (j + t)
    on_edge = (1 - t) * heights[j, i] + t * heights[j + 1, i]
    for shift in (-delta, 0.0, delta):
        np.testing.assert_allclose(
            terrain.height(x + shift, y), on_edge, rtol=0, atol=2 * steepest * delta + 1e-12
        )
    # horizontal grid lines y = y_j
    j = rng.integers(1, 6, 300)
    i = rng.integers(0, 8, 300)
    x = -2.0 + 1.5 * (i + t)
    y = 5.0 + 0.6 * j
    on_edge = (1 - t) * heights[j, i] + t * heights[j, i + 1]
    for shift in (-delta, 0.0, delta):
        np.testing.assert_allclose(
            terrain.height(x, y + shift), on_edge, rtol=0, atol=2 * steepest * delta + 1e-12
        )


def test_contains_and_bounds():
    terrain = Terrain.from_array(np.zeros((3, 4)), x0=1.0, y0=2.0, dx=2.0, dy=0.5)
    assert terrain.bounds == (1.0, 2.0, 7.0, 3.0)
    inside = terrain.contains(
        [1.0, 7.0, 4.0, 0.999, 7.001, 4.0, 4.0], [2.0, 3.0, 2.5, 2.5, 2.5, 1.9, 3.1]
    )
    assert inside.tolist() == [True, True, True, False, False, False, False]
    assert terrain.contains(4.0, 2.5) is np.True_
    assert terrain.height(np.full((2, 3), 4.0), 2.5).shape == (2, 3)
    assert terrain.normal(np.full((2, 3), 4.0), 2.5).shape == (2, 3, 3)


def test_hillshade_of_a_plane_is_lamberts_cosine():
    # a slope of 30 deg facing east (descending along +x), sun in the east 45 deg above the horizon:
    # n . s = sin 30 cos 45 + cos 30 sin 45 = sin 75
    terrain = Terrain.plane(30.0, size=(20.0, 10.0), spacing=1.0)
    shade = terrain.hillshade(azimuth_deg=90.0, altitude_deg=45.0)
    assert shade.shape == terrain.shape
    np.testing.assert_allclose(shade, math.sin(math.radians(75.0)), rtol=0, atol=1e-12)
    # lit from the west at 20 deg the slope is in its own shadow
    assert np.all(terrain.hillshade(azimuth_deg=270.0, altitude_deg=20.0) == 0.0)


def test_arrays_are_read_only_copies():
    heights = np.zeros((3, 3))
    terrain = Terrain.from_array(heights)
    heights[1, 1] = 5.0
    assert terrain.height(1.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="read-only"):
        terrain.heights[0, 0] = 1.0
    assert terrain.heights.flags.c_contiguous
    assert terrain.heights.dtype == np.float64
    # and after a trip through pickle (how terrains reach worker processes)
    copy = pickle.loads(pickle.dumps(Terrain.from_array(heights, soil={"drag": heights})))
    np.testing.assert_array_equal(copy.heights, heights)
    assert not copy.heights.flags.writeable
    assert not copy.soil["drag"].flags.writeable


# --- scenarios ------------------------------------------------------------------------------


def test_slope40_geometry():
    terrain = Terrain.scenario("slope40")
    top = 150.0 * math.tan(math.radians(40.0))
    assert terrain.bounds == (0.0, -250.0, 650.0, 250.0)
    assert terrain.shape == (501, 651)
    assert (terrain.dx, terrain.dy) == (1.0, 1.0)
    y = np.linspace(-250.0, 250.0, 7)
    np.testing.assert_allclose(terrain.height(0.0, y), top, rtol=1e-15)
    np.testing.assert_allclose(terrain.height(75.0, y), top / 2, rtol=1e-14)
    x = np.linspace(150.0, 650.0, 51)
    assert np.all(terrain.height(x, 12.3) == 0.0)
    a = math.radians(40.0)
    np.testing.assert_allclose(
        terrain.normal(80.5, 3.3), [math.sin(a), 0.0, math.cos(a)], atol=1e-15
    )
    np.testing.assert_allclose(terrain.normal(150.5, 3.3), [0.0, 0.0, 1.0], atol=0)


def test_unknown_scenario_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown terrain scenario 'slope41'; known: slope40"):
        Terrain.scenario("slope41")


# --- files ----------------------------------------------------------------------------------


def test_geotiff_round_trip_keeps_the_pixel_centre_convention(tmp_path):
    rng = np.random.default_rng(6)
    x0, y0, dx, dy = 2600000.0, 1200000.0, 2.0, 2.5
    heights, plane = tilted(x0, y0, dx, dy, (21, 30))
    terrain = Terrain.from_array(heights, x0=x0, y0=y0, dx=dx, dy=dy, crs=SWISS)
    path = terrain.write(tmp_path / "dem.tif")

    # the file itself, checked with rasterio: north-up, samples at pixel centres
    with rasterio.open(path) as dataset:
        assert dataset.crs.to_epsg() == 2056
        t = dataset.transform
        assert (t.a, t.b, t.d, t.e) == (dx, 0.0, 0.0, -dy)
        assert (t.c, t.f) == (x0 - dx / 2, y0 + 20.5 * dy)
        first = dataset.read(1)
        assert dataset.xy(0, 0) == (x0, y0 + 20 * dy)  # rasterio's centre of pixel (row 0, col 0)
    np.testing.assert_array_equal(first, heights[::-1])

    back = Terrain.from_file(path)
    np.testing.assert_array_equal(back.heights, heights)
    assert (back.x0, back.y0, back.dx, back.dy) == (x0, y0, dx, dy)
    assert back.crs.to_epsg() == 2056
    assert back.transform == terrain.transform
    x, y = random_points(terrain, rng)
    np.testing.assert_array_equal(back.height(x, y), terrain.height(x, y))
    np.testing.assert_array_equal(back.normal(x, y), terrain.normal(x, y))
    np.testing.assert_allclose(back.height(x, y), plane(x, y), rtol=1e-15)
    # a second round trip changes nothing
    again = Terrain.from_file(back.write(tmp_path / "again.tiff"))
    np.testing.assert_array_equal(again.heights, heights)
    assert again.transform == back.transform


def test_ascii_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    terrain = Terrain.plane(35.0, size=(40.0, 30.0), spacing=0.5)
    terrain = Terrain.from_array(
        terrain.heights + 700.0, x0=2600000.25, y0=1199990.0, dx=0.5, crs=SWISS
    )
    path = terrain.write(tmp_path / "dem.asc")
    header = dict(line.split() for line in path.read_text().splitlines()[:5])
    assert float(header["xllcorner"]) == 2600000.0
    assert float(header["yllcorner"]) == 1199989.75
    assert float(header["cellsize"]) == 0.5
    assert path.with_suffix(".prj").exists()
    back = Terrain.from_file(path)
    np.testing.assert_array_equal(back.heights, terrain.heights)
    assert (back.x0, back.y0, back.dx, back.dy) == (terrain.x0, terrain.y0, 0.5, 0.5)
    assert back.crs.to_epsg() == 2056
    x, y = random_points(terrain, rng)
    np.testing.assert_array_equal(back.height(x, y), terrain.height(x, y))


def ascii_grid(heights, corner_key, x, y, cellsize):
    """ESRI ASCII text of ``heights`` (rows south to north) with the given lower-left key."""
    ny, nx = heights.shape
    lines = [
        f"ncols {nx}",
        f"nrows {ny}",
        f"{corner_key[0]} {x!r}",
        f"{corner_key[1]} {y!r}",
        f"cellsize {cellsize!r}",
        "NODATA_value -9999",
    ]
    lines += [" ".join(repr(float(v)) for v in row) for row in heights[::-1]]
    return "\n".join(lines) + "\n"


def test_ascii_corner_and_centre_headers_read_to_the_same_surface(tmp_path):
    rng = np.random.default_rng(8)
    x0, y0, d = 500.0, -250.0, 2.0
    heights, plane = tilted(x0, y0, d, d, (11, 14))
    corner = tmp_path / "corner.asc"
    centre = tmp_path / "centre.asc"
    corner.write_text(ascii_grid(heights, ("xllcorner", "yllcorner"), x0 - 1.0, y0 - 1.0, d))
    centre.write_text(ascii_grid(heights, ("xllcenter", "yllcenter"), x0, y0, d))
    a = Terrain.from_file(corner)
    b = Terrain.from_file(centre)
    for terrain in (a, b):
        assert (terrain.x0, terrain.y0, terrain.dx, terrain.dy) == (x0, y0, d, d)
        np.testing.assert_array_equal(terrain.heights, heights)
        assert terrain.crs is None
    x, y = random_points(a, rng)
    np.testing.assert_array_equal(a.height(x, y), b.height(x, y))
    np.testing.assert_allclose(a.height(x, y), plane(x, y), rtol=0, atol=1e-12)


def test_south_up_geotiff_reads_to_the_same_surface(tmp_path):
    heights, _ = tilted(10.0, 20.0, 1.0, 2.0, (5, 6))
    path = tmp_path / "south_up.tif"
    profile = {"driver": "GTiff", "height": 5, "width": 6, "count": 1, "dtype": "float64"}
    transform = Affine(1.0, 0.0, 9.5, 0.0, 2.0, 19.0)  # row 0 is the southern edge
    with rasterio.open(path, "w", transform=transform, **profile) as dataset:
        dataset.write(heights, 1)
    terrain = Terrain.from_file(path)
    assert (terrain.x0, terrain.y0, terrain.dx, terrain.dy) == (10.0, 20.0, 1.0, 2.0)
    np.testing.assert_array_equal(terrain.heights, heights)
    # written back north-up
    with rasterio.open(terrain.write(tmp_path / "north_up.tif")) as dataset:
        assert tuple(dataset.transform)[:6] == (1.0, 0.0, 9.5, 0.0, -2.0, 29.0)


def test_soil_rasters(tmp_path):
    heights, _ = tilted(0.0, 0.0, 1.0, 1.0, (6, 8))
    mu = 0.3 + 0.01 * np.arange(8)[None, :] + 0.02 * np.arange(6)[:, None]
    zone = np.zeros((6, 8))
    zone[:, 4:] = 2
    terrain = Terrain.from_array(heights, soil={"mu_min": mu, "zone": zone})
    np.testing.assert_allclose(terrain.sample("mu_min", 2.25, 3.5), 0.3 + 0.0225 + 0.07, atol=1e-15)
    assert terrain.sample("zone", [3.4, 3.6], 1.0).tolist() == [0.0, 2.0]
    with pytest.raises(ValueError, match="no soil raster 'drag'"):
        terrain.sample("drag", 1.0, 1.0)
    with pytest.raises(ValueError, match="unknown soil raster 'mu'"):
        Terrain.from_array(heights, soil={"mu": mu})
    with pytest.raises(ValueError, match="shape"):
        Terrain.from_array(heights, soil={"mu_max": mu[:, :4]})
    assert set(SOIL_RASTERS) >= {"mu_min", "mu_max", "kappa", "beta", "restitution", "drag"}
    # a soil raster from a file on the DEM's grid
    dem = terrain.write(tmp_path / "dem.tif")
    kappa = terrain.write_raster(tmp_path / "kappa.asc", 0.7 + 0.0 * heights)
    read = Terrain.from_file(dem, soil={"kappa": kappa})
    assert np.all(read.sample("kappa", [0.0, 3.3, 7.0], 2.0) == 0.7)


def test_raster_holes_are_written_as_nodata(tmp_path):
    terrain = Terrain.from_array(np.zeros((4, 5)), x0=0.0, y0=0.0, dx=1.0)
    values = np.arange(20.0).reshape(4, 5)
    values[1, 2] = np.nan
    for name in ("map.tif", "map.asc"):
        grid = read_raster(terrain.write_raster(tmp_path / name, values))
        assert grid.holes == 1
        assert np.isnan(grid.values[1, 2])
        np.testing.assert_array_equal(
            np.delete(grid.values.ravel(), 7), np.delete(values.ravel(), 7)
        )


# --- bad inputs -----------------------------------------------------------------------------


def test_holes_are_outside_the_domain(tmp_path):
    heights = np.ones((5, 6))
    heights[2, 3] = np.nan
    with pytest.raises(ValueError, match="infinite"):
        Terrain.from_array(np.where(np.isnan(heights), np.inf, heights))
    terrain = Terrain.from_array(heights)
    assert terrain.holes == 1
    # the four cells around the hole are outside, the others inside
    assert not terrain.contains([2.5, 3.5, 2.5, 3.5], [1.5, 1.5, 2.5, 2.5]).any()
    assert terrain.contains([0.5, 4.5, 1.5], [0.5, 3.5, 1.5]).all()
    with pytest.raises(ValueError, match=r"\(3.2, 2.1\), in a nodata area of the DEM$"):
        terrain.height(3.2, 2.1)
    with pytest.raises(ValueError, match="no cell with four valid corners"):
        Terrain.from_array(np.where(np.arange(6) % 2 == 0, np.nan, 1.0) * np.ones((5, 1)))
    heights[4, 0] = -9999.0
    path = tmp_path / "holes.tif"
    profile = {"driver": "GTiff", "height": 5, "width": 6, "count": 1, "dtype": "float32"}
    with rasterio.open(
        path, "w", nodata=-9999.0, transform=Affine(1, 0, 0, 0, -1, 5), **profile
    ) as ds:
        ds.write(np.nan_to_num(heights, nan=-9999.0).astype(np.float32), 1)
    assert Terrain.from_file(path).holes == 2


def test_rotated_geotiff_is_refused(tmp_path):
    path = tmp_path / "rotated.tif"
    profile = {"driver": "GTiff", "height": 4, "width": 5, "count": 1, "dtype": "float64"}
    transform = Affine.rotation(15.0) @ Affine(2.0, 0.0, 100.0, 0.0, -2.0, 200.0)
    with rasterio.open(path, "w", transform=transform, **profile) as dataset:
        dataset.write(np.zeros((4, 5)), 1)
    with pytest.raises(ValueError, match="rotated or sheared"):
        Terrain.from_file(path)


def test_ungeoreferenced_geotiff_is_refused(tmp_path):
    path = tmp_path / "plain.tif"
    with (
        pytest.warns(rasterio.errors.NotGeoreferencedWarning),
        rasterio.open(path, "w", driver="GTiff", height=3, width=3, count=1, dtype="float64") as ds,
    ):
        ds.write(np.zeros((3, 3)), 1)
    with pytest.raises(ValueError, match="no geotransform"):
        Terrain.from_file(path)


@pytest.mark.parametrize("shape", [(1, 5), (5, 1), (1, 1)])
def test_too_small_grids_are_refused(shape):
    with pytest.raises(ValueError, match="at least 2 x 2 samples"):
        Terrain.from_array(np.zeros(shape))


def test_bad_arrays_and_spacing_are_refused():
    with pytest.raises(ValueError, match="2-D"):
        Terrain.from_array(np.zeros(5))
    for dx in (math.nan, math.inf):
        with pytest.raises(ValueError, match="dx must be finite"):
            Terrain.from_array(np.zeros((3, 3)), dx=dx)
    with pytest.raises(ValueError, match="positive"):
        Terrain.from_array(np.zeros((3, 3)), dx=1.0, dy=-1.0)
    with pytest.raises(ValueError, match="not a whole number of cells"):
        Terrain.plane(30.0, size=(10.0, 10.3), spacing=1.0)
    with pytest.raises(ValueError, match="slope"):
        Terrain.plane(90.0)


def test_bad_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        Terrain.from_file(tmp_path / "missing.tif")
    (tmp_path / "dem.png").write_bytes(b"\x89PNG")
    with pytest.raises(ValueError, match=r"unsupported raster format '\.png'"):
        Terrain.from_file(tmp_path / "dem.png")
    with pytest.raises(ValueError, match="unsupported raster format"):
        Terrain.plane(10.0).write(tmp_path / "dem.xyz")
    (tmp_path / "garbage.asc").write_text("this is not a grid\n")
    with pytest.raises(ValueError, match="cannot read"):
        Terrain.from_file(tmp_path / "garbage.asc")


def test_points_outside_the_grid_are_refused():
    terrain = Terrain.plane(20.0, size=(10.0, 4.0))
    with pytest.raises(ValueError, match=r"1 of 2 point\(s\) are not on the terrain.*\(10.5, 0\)"):
        terrain.height([1.0, 10.5], [0.0, 0.0])
    with pytest.raises(ValueError, match="outside the DEM, which covers x in"):
        terrain.normal(5.0, -2.01)
    with pytest.raises(ValueError, match="non-finite"):
        terrain.height(np.nan, 0.0)
    assert not terrain.contains(5.0, 2.01)
