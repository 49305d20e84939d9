"""An irregular DEM: a nodata margin inside the DEM's rectangle is named "a nodata area of the
DEM" in every message, never "outside the DEM" with an extent that contains the point; release
places that reach into it are clipped with their shares (hand-computed areas), and refused only
when nothing is left, naming them."""

import numpy as np
import pytest

from tumble.errors import DemError
from tumble.io.dem import write_raster
from tumble.io.vectors import write_polygons
from tumble.rockfall import Rock, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.release import Release
from tumble.rockfall.site.areas import ReleaseAreas

X0, Y0 = -8400.0, 194800.0
CRS = "EPSG:31254"


@pytest.fixture(scope="module")
def terrain():
    """A 30 degree slope on 1 m cells over x in [X0, X0 + 60], y in [Y0, Y0 + 40], whose samples
    with x > X0 + 40 and y > Y0 + 20 are nodata (an L-shaped footprint): the valid cells are
    the 60 x 20 strip at the bottom and the 40 x 20 block above it on the left."""
    x = np.arange(61.0)
    z = (60.0 - x) * np.tan(np.radians(30.0))
    heights = np.array(np.broadcast_to(z, (41, 61)))
    heights[21:, 41:] = np.nan  # rows j > 20 (y > Y0 + 20), columns i > 40
    return Terrain.from_array(heights, x0=X0, y0=Y0, dx=1.0, crs=CRS)


def rectangle(x1, y1, x2, y2):
    return np.array(
        [(X0 + x1, Y0 + y1), (X0 + x2, Y0 + y1), (X0 + x2, Y0 + y2), (X0 + x1, Y0 + y2)]
    )


def test_a_point_of_the_nodata_margin_is_named_nodata(terrain):
    x, y = X0 + 50.0, Y0 + 30.0  # inside the rectangle, in the margin
    for call in (terrain.height, terrain.normal):
        with pytest.raises(DemError) as info:
            call(x, y)
        message = str(info.value)
        assert "1 in a nodata area of the DEM" in message and "outside" not in message
    with pytest.raises(DemError, match=r"1 outside the DEM, which covers x in \[-8400, -8340\]"):
        terrain.height([X0 + 1.0, X0 - 5.0], [Y0 + 1.0, Y0 + 1.0])
    with pytest.raises(ValueError) as info:
        Release(point=(x, y)).draw(terrain, 1, seed=0)
    assert str(info.value) == "release.point: (-8350, 194830) lies in a nodata area of the DEM"
    with pytest.raises(ValueError, match=r"release.point: \(-8470, 194830\) lies outside the DEM"):
        Release(point=(X0 - 70.0, y)).draw(terrain, 1, seed=0)


def test_a_polygon_reaching_into_the_margin_is_clipped_by_its_share(terrain):
    """A 20 x 20 m square from x = 30 to 50, y = 10 to 30: the quarter x > 40, y > 20 is nodata
    (100 of 400 m^2: 25 %); every rock starts on the other three quarters."""
    release = Release(polygon=tuple(map(tuple, rectangle(30, 10, 50, 30))), height=1.5)
    (clip,) = release.clips(terrain)
    assert clip.nodata_share == pytest.approx(0.25, rel=1e-12) and clip.outside_share == 0.0
    assert clip.warning() == (
        "release.polygon: 25 % of its area lies off the DEM (25 % in a nodata area of the DEM) "
        "and was clipped: its rocks start on the remaining 75 %"
    )
    states = release.draw(terrain, 400, seed=3, hulls=Hulls.of(Rock.eota221(mass=200.0)))
    x, y = states.position[:, 0] - X0, states.position[:, 1] - Y0
    assert not np.any((x > 40.0) & (y > 20.0))
    assert terrain.contains(states.position[:, 0], states.position[:, 1]).all()


def test_a_line_across_the_margin_and_beyond_the_dem_is_clipped_by_length(terrain):
    """y = 30 from x = 20 to 80: 20 m on the DEM, 20 m in the margin (x in [40, 60]), 20 m
    beyond it."""
    release = Release(line=((X0 + 20.0, Y0 + 30.0), (X0 + 80.0, Y0 + 30.0)))
    (clip,) = release.clips(terrain)
    assert clip.nodata_share == pytest.approx(1 / 3, rel=1e-12)
    assert clip.outside_share == pytest.approx(1 / 3, rel=1e-12)
    assert "in a nodata area of the DEM" in clip.warning() and "outside the DEM" in clip.warning()
    states = release.draw(terrain, 50, seed=1)
    assert np.all(states.position[:, 0] <= X0 + 40.0)


def test_release_areas_over_the_margin_clipped_or_refused(terrain, tmp_path):
    """Area 'half' (x 30 to 50, y 25 to 35) has half its area in the margin; its default
    weight is the area left (100 m^2), beside 'whole' (100 m^2 on the DEM): the rocks split
    evenly. Area 'lost' lies entirely in the margin and is refused by name, as is 'far',
    beyond the DEM."""
    path = write_polygons(
        tmp_path / "areas.gpkg",
        [[rectangle(30, 25, 50, 35)], [rectangle(5, 5, 15, 15)]],
        {"name": ["half", "whole"]},
        CRS,
    )
    areas = ReleaseAreas.from_file(path, terrain, 100, name_field="name")
    half, whole = areas.clips(terrain)
    assert half.nodata_share == pytest.approx(0.5, rel=1e-12) and whole.share == 0.0
    assert areas.counts.tolist() == [50, 50]
    assert "release area 'half': 50 % of its area lies off the DEM" in half.warning()
    assert whole.warning() is None
    lost = write_polygons(
        tmp_path / "lost.gpkg", [[rectangle(45, 25, 55, 35)]], {"name": ["lost"]}, CRS
    )
    with pytest.raises(ValueError) as info:
        ReleaseAreas.from_file(lost, terrain, 10, name_field="name")
    assert str(info.value) == (
        "release area 'lost' lies entirely in a nodata area of the DEM: there is no place on "
        "the DEM where rocks fit"
    )
    far = write_polygons(
        tmp_path / "far.gpkg", [[rectangle(70, 5, 80, 15)]], {"name": ["far"]}, CRS
    )
    with pytest.raises(ValueError, match=r"release area 'far' lies outside the DEM, which covers"):
        ReleaseAreas.from_file(far, terrain, 10, name_field="name")


def test_an_area_with_no_room_for_the_rock_is_refused_naming_it(terrain, tmp_path):
    """A 0.5 m wide strip along the edge of the margin (x from 39.6 to 40.1, y 25 to 35): its
    centres lie on the DEM, but no 2 m rock placed there keeps its hull on it."""
    path = write_polygons(
        tmp_path / "strip.gpkg", [[rectangle(39.6, 25, 40.1, 35)]], {"name": ["ledge"]}, CRS
    )
    areas = ReleaseAreas.from_file(path, terrain, 5, name_field="name")
    release = Release(areas=areas, height=1.5)
    with pytest.raises(
        ValueError, match=r"release area 'ledge': there is no place where rocks fit"
    ):
        release.draw(terrain, 5, seed=0, hulls=Hulls.of(Rock.box(2.0, 2.0, 2.0)))


def test_a_source_raster_over_the_margin_is_clipped_by_weight(terrain, tmp_path):
    """Two releasing 4 m cells of weights 1 and 3: the first at x 30 to 34 (on the DEM), the
    second at x 42 to 46, y 26 to 30 (in the margin): 75 % of the weight is clipped; a raster
    whose cells all lie in the margin is refused."""
    values = np.zeros((2, 5))
    values[0, 0], values[0, 3] = 1.0, 3.0
    path = write_raster(tmp_path / "src.tif", values, X0 + 32.0, Y0 + 28.0, 4.0, 4.0, crs=CRS)
    areas = ReleaseAreas.from_raster(path, terrain, 40)
    (clip,) = areas.clips(terrain)
    assert clip.nodata_share == pytest.approx(0.75, rel=1e-12) and clip.measure == "weight"
    states = Release(areas=areas).draw(terrain, 40, seed=2)
    assert np.all(np.abs(states.position[:, 0] - (X0 + 32.0)) <= 2.0)
    values[0, 0] = 0.0
    path = write_raster(tmp_path / "lost.tif", values, X0 + 32.0, Y0 + 28.0, 4.0, 4.0, crs=CRS)
    with pytest.raises(ValueError, match=r"release.raster: all 1 releasing cells .* nodata area"):
        ReleaseAreas.from_raster(path, terrain, 40)
