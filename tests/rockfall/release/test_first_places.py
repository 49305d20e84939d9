"""The places of release polygons and areas drawn for many rocks at once
(tumble.rockfall.release.first_places): the same starts, bit for bit, as the rock-by-rock draw
from each rock's stream, for plain and stratified sampling, polygon areas with holes and parts,
a source raster and a typed-in polygon, partly over nodata; and the same release for any
division of the rocks into chunks."""

import itertools
import math

import numpy as np
import pytest

from tumble.io.dem import write_raster
from tumble.rockfall import Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.release import Release, rock_rng
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.areas import ReleaseArea, ReleaseAreas
from tumble.rockfall.site.rock_classes import RockClass
from tumble.rockfall.site.stratified import stratified_release

X0, Y0 = 2_600_000.0, 1_200_000.0
#: an L-shaped area with a square hole, and a triangle reaching over the nodata hole of the DEM
L_SHAPE = np.array([(10, 10), (40, 10), (40, 20), (20, 20), (20, 50), (10, 50)]) + (X0, Y0)
HOLE = np.array([(12, 12), (16, 12), (16, 16), (12, 16)]) + (X0, Y0)
TRIANGLE = np.array([(50, 15), (80, 20), (60, 45)]) + (X0, Y0)


@pytest.fixture(scope="module")
def terrain():
    """A 30 degree slope, 100 m x 60 m on 1 m cells, with a nodata hole under the triangle."""
    x = np.arange(101.0)
    z = np.array(np.broadcast_to((100.0 - x) * math.tan(math.radians(30.0)), (61, 101)))
    z[25:35, 58:66] = np.nan
    return Terrain.from_array(z, x0=X0, y0=Y0, dx=1.0)


def areas(n):
    return ReleaseAreas(
        [
            ReleaseArea("l", (L_SHAPE, HOLE), 584.0, None, 584.0),
            ReleaseArea("triangle", (TRIANGLE,), 325.0, None, 325.0),
        ],
        n,
    )


@pytest.fixture(scope="module")
def raster_areas(terrain, tmp_path_factory):
    """A source raster of 2 m cells over the slope, some of them over the nodata hole."""
    values = np.random.default_rng(2).random((10, 12)) + 0.05
    values[4:6, :3] = 0.0
    path = tmp_path_factory.mktemp("raster") / "source.tif"
    write_raster(path, values, X0 + 41.0, Y0 + 21.0, 2.0, 2.0)
    return lambda n: ReleaseAreas.from_raster(path, terrain, n)


def one_by_one(release, terrain, n, seed, first=0):
    place, orientation = np.empty((n, 2)), np.empty((n, 4))
    for i in range(n):
        place[i], orientation[i] = release._start(rock_rng(seed, first + i), first + i, terrain)
    return place, orientation


def releases(terrain, raster_areas, n, seed):
    classes = [
        RockClass("small", Rock.eota111(mass=200.0), 0.7),
        RockClass("large", Rock.eota221(mass=2000.0), 0.3),
    ]
    stratified = stratified_release("stratified", areas(n), classes, n, seed, terrain)[0]
    raster_stratified = stratified_release("stratified", raster_areas(n), None, n, seed, terrain)[0]
    return {
        "areas": Release(areas=areas(n), height=1.0),
        "areas_fixed_orientation": Release(areas=areas(n), orientation=(0.0, 0.0, 1.0, 0.0)),
        "stratified": Release(areas=stratified, height=1.0),
        "raster": Release(areas=raster_areas(n), height=1.0),
        "raster_stratified": Release(areas=raster_stratified, height=1.0),
        "polygon": Release(polygon=tuple(map(tuple, TRIANGLE)), height=1.0),
    }


@pytest.mark.parametrize(
    "name",
    ["areas", "areas_fixed_orientation", "stratified", "raster", "raster_stratified", "polygon"],
)
def test_draw_gives_the_starts_of_the_rock_by_rock_draw(terrain, raster_areas, name):
    n, seed = 1200, 17
    release = releases(terrain, raster_areas, n, seed)[name]
    states = release.draw(terrain, n, seed)
    place, orientation = one_by_one(release, terrain, n, seed)
    assert np.array_equal(states.position[:, :2], place)
    assert np.array_equal(states.orientation, orientation)
    assert terrain.contains(place[:, 0], place[:, 1]).all()


@pytest.mark.parametrize(
    ("name", "widths"), [("areas", (2, 4)), ("raster", (3,)), ("polygon", (2, 4))]
)
def test_rocks_the_first_uniforms_do_not_place_are_drawn_one_by_one(
    terrain, raster_areas, monkeypatch, name, widths
):
    """With only the first try (or two) at once, the rocks whose tries all missed (outside the
    polygon, over the nodata hole) are left to the rock-by-rock draw: the release is the
    same (release areas here with tries of one pair of uniforms, not 16)."""
    import tumble.rockfall.release as release_module
    import tumble.rockfall.site.areas as areas_module

    monkeypatch.setattr(release_module, "FIRST_UNIFORMS", widths)
    monkeypatch.setattr(areas_module, "BATCH", 1)
    n, seed = 1000, 3
    release = releases(terrain, raster_areas, n, seed)[name]
    place, orientation = np.empty((n, 2)), np.empty((n, 4))
    left = release._first_places(terrain, n, seed, 0, place, orientation)
    assert left.size > 0
    want = one_by_one(release, terrain, n, seed)
    states = release.draw(terrain, n, seed)
    assert np.array_equal(states.position[:, :2], want[0])
    assert np.array_equal(states.orientation, want[1])


@pytest.mark.parametrize("name", ["areas", "stratified", "raster"])
@pytest.mark.parametrize("chunks", [(1000,), (7, 993), (250, 1, 749), (333, 333, 334)])
def test_same_release_for_any_chunks(terrain, raster_areas, name, chunks):
    """Rocks drawn in chunks (``first``, ``n``), their hulls cleared of the terrain, equal the
    rocks of one draw of all, every number."""
    n, seed = 1000, 8
    release = releases(terrain, raster_areas, n, seed)[name]
    hulls = Hulls.of(Rock.eota221(mass=2000.0))
    whole = release.draw(terrain, n, seed, hulls=hulls)
    starts = np.concatenate([[0], np.cumsum(chunks)])
    parts = [
        release.draw(terrain, int(b - a), seed, first=int(a), hulls=hulls)
        for a, b in itertools.pairwise(starts)
    ]
    for field in ("position", "orientation", "velocity", "omega", "lift", "moves"):
        joined = np.concatenate([getattr(p, field) for p in parts])
        assert np.array_equal(joined, getattr(whole, field)), field
