"""Release areas (tumble.rockfall.site.areas): the largest-remainder split, rocks inside their own
polygons, a source raster, the CRS transform, bad inputs, and the footprint (the weighted points
the barriers' uphill sides are decided from): each area's share its weight's, a raster's cells
their values, binned into at most FOOTPRINT_POINTS points without moving the weight's centre."""

import json
import math

import numpy as np
import pytest
import shapely

from tumble.io.dem import write_raster
from tumble.io.vectors import transform_xy, write_polygons
from tumble.rockfall import Terrain
from tumble.rockfall.release import Release
from tumble.rockfall.site.areas import (
    FOOTPRINT_POINTS,
    ReleaseArea,
    ReleaseAreas,
    inside_rings,
    largest_remainder,
)

CRS = "EPSG:2056"
X0, Y0 = 2_600_000.0, 1_200_000.0


@pytest.fixture(scope="module")
def terrain():
    x = np.arange(101.0)
    z = (100.0 - x) * math.tan(math.radians(30.0))
    return Terrain.from_array(np.broadcast_to(z, (61, 101)), x0=X0, y0=Y0, dx=1.0, crs=CRS)


def square(x, y, side):
    return np.array(
        [(X0 + x, Y0 + y), (X0 + x + side, Y0 + y), (X0 + x + side, Y0 + y + side)]
        + [(X0 + x, Y0 + y + side)]
    )


def test_largest_remainder_exact_counts():
    # quotas 3.333.., 3.333.., 3.333..: the left-over rock goes to the area listed first
    assert largest_remainder([1.0, 1.0, 1.0], 10).tolist() == [4, 3, 3]
    # quotas 2.5 and 7.5: floors 2 and 7, the tie of remainders to the first
    assert largest_remainder([100.0, 300.0], 10).tolist() == [3, 7]
    # quotas 0.6, 1.2, 3.0, 5.2: floors 0, 1, 3, 5 (9); the largest remainder 0.6 gets the 10th
    assert largest_remainder([1.0, 2.0, 5.0, 26.0 / 3.0], 10).tolist() == [1, 1, 3, 5]
    for total in (1, 7, 1000):
        assert largest_remainder([0.3, 2.2, 1.1], total).sum() == total
    with pytest.raises(ValueError, match="positive sum"):
        largest_remainder([0.0, 0.0], 3)


def test_rocks_inside_their_polygons_split_by_area(terrain, tmp_path):
    # a 10 m square (100 m^2) and a 20 m x 15 m rectangle with a 5 m square hole (275 m^2)
    rect = np.array(
        [(X0 + 50, Y0 + 10), (X0 + 70, Y0 + 10), (X0 + 70, Y0 + 25), (X0 + 50, Y0 + 25)]
    )
    hole = square(55.0, 15.0, 5.0)
    path = write_polygons(
        tmp_path / "areas.gpkg",
        [[square(10.0, 20.0, 10.0)], [rect, hole]],
        {"name": ["upper", "lower"], "freq": [0.1, 0.02]},
        crs=CRS,
    )
    areas = ReleaseAreas.from_file(path, terrain, 150, name_field="name", frequency_field="freq")
    assert areas.names == ("upper", "lower")
    assert areas.frequencies == (0.1, 0.02)
    assert [a.area_m2 for a in areas.areas] == pytest.approx([100.0, 275.0])
    # quotas 150 * 100 / 375 = 40 and 110 exactly
    assert areas.counts.tolist() == [40, 110]
    release = Release(areas=areas, height=1.0)
    states = release.draw(terrain, 150, seed=3)
    source = areas.source_of(np.arange(150))
    assert source.tolist() == [0] * 40 + [1] * 110
    upper = shapely.Polygon(square(10.0, 20.0, 10.0))
    lower = shapely.Polygon(rect, [hole])
    x, y = states.position[:, 0], states.position[:, 1]
    assert shapely.contains_xy(upper, x[:40], y[:40]).all()
    assert shapely.contains_xy(lower, x[40:], y[40:]).all()
    # uniform over the area: the upper half of the square holds each rock with probability 1/2
    count = int(np.count_nonzero(y[:40] > Y0 + 25.0))
    assert abs(count - 20) <= 4 * math.sqrt(40 * 0.25)
    # each rock's place is its own: drawn alone it starts at the same point
    for k in (0, 39, 40, 149):
        alone = release.draw(terrain, 1, seed=3, first=k)
        np.testing.assert_array_equal(alone.position[0], states.position[k])


def test_weight_field_and_default_names(terrain, tmp_path):
    path = write_polygons(
        tmp_path / "w.gpkg",
        [[square(10.0, 10.0, 10.0)], [square(40.0, 10.0, 10.0)]],
        {"w": [1.0, 3.0]},
        crs=CRS,
    )
    areas = ReleaseAreas.from_file(path, terrain, 9, weight_field="w")
    assert areas.names == ("area_1", "area_2")
    assert areas.frequencies == (None, None)
    # quotas 2.25 and 6.75: floors 2 and 6, the 9th rock to the larger remainder (0.75)
    assert areas.counts.tolist() == [2, 7]


def test_release_areas_in_another_crs_are_transformed(terrain, tmp_path):
    ring = square(30.0, 20.0, 20.0)
    closed = np.vstack([ring, ring[:1]])
    lon, lat = transform_xy(closed[:, 0], closed[:, 1], CRS, "EPSG:4326")
    assert 5.0 < lon.min() < 10.5 and 45.0 < lat.min() < 48.0  # somewhere in Switzerland
    path = tmp_path / "wgs84.geojson"
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "properties": {"name": "cliff"},
                        "geometry": {
                            "type": "Polygon",
                            "coordinates": [np.column_stack([lon, lat]).tolist()],
                        },
                    }
                ],
            }
        )
    )
    areas = ReleaseAreas.from_file(path, terrain, 5, name_field="name")
    back = areas.areas[0].rings[0]
    # the corners come back in LV95 to within a centimetre (a closed ring: 5 points)
    np.testing.assert_allclose(back[:4], ring, atol=0.01, rtol=0)
    assert areas.areas[0].area_m2 == pytest.approx(400.0, abs=0.5)


def test_source_raster_cells_weighted_by_value(terrain, tmp_path):
    # a raster on a 5 m grid: two releasing cells with values 1 and 3, the rest 0
    values = np.zeros((4, 4))
    values[1, 1], values[2, 3] = 1.0, 3.0
    path = write_raster(tmp_path / "src.tif", values, X0 + 20.0, Y0 + 20.0, 5.0, 5.0, crs=CRS)
    areas = ReleaseAreas.from_raster(path, terrain, 400)
    assert areas.names == ("src",) and areas.counts.tolist() == [400]
    assert areas.areas[0].area_m2 == pytest.approx(50.0)
    states = Release(areas=areas, height=1.0).draw(terrain, 400, seed=5)
    x, y = states.position[:, 0] - X0, states.position[:, 1] - Y0
    first = (np.abs(x - 25.0) <= 2.5) & (np.abs(y - 25.0) <= 2.5)
    second = (np.abs(x - 35.0) <= 2.5) & (np.abs(y - 30.0) <= 2.5)
    assert np.all(first ^ second)
    # binomial(400, 1/4): within 4 standard deviations
    assert abs(np.count_nonzero(first) - 100) <= 4 * math.sqrt(400 * 0.25 * 0.75)


def test_inside_rings_even_odd():
    outer = np.array([(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)])
    hole = np.array([(1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)])
    x = np.array([0.5, 2.0, 3.5, 5.0])
    y = np.array([0.5, 2.0, 3.5, 2.0])
    assert inside_rings(x, y, [outer, hole]).tolist() == [True, False, True, False]


def test_bad_release_areas_are_refused(terrain, tmp_path):
    empty = write_polygons(tmp_path / "empty.gpkg", [], {"name": np.array([], dtype=object)}, CRS)
    with pytest.raises(ValueError, match="holds no polygons"):
        ReleaseAreas.from_file(empty, terrain, 10)
    outside = write_polygons(
        tmp_path / "outside.gpkg", [[square(120.0, 10.0, 20.0)]], {"name": ["far"]}, CRS
    )
    with pytest.raises(ValueError, match=r"release area 'far' lies outside the DEM, which covers"):
        ReleaseAreas.from_file(outside, terrain, 10, name_field="name")
    good = write_polygons(
        tmp_path / "good.gpkg", [[square(10.0, 10.0, 10.0)]], {"name": ["a"], "f": [-1.0]}, CRS
    )
    with pytest.raises(ValueError, match=r"no field 'nom'.*its fields: name, f"):
        ReleaseAreas.from_file(good, terrain, 10, name_field="nom")
    with pytest.raises(ValueError, match=r"'area_1' has f = -1\.0"):
        ReleaseAreas.from_file(good, terrain, 10, frequency_field="f")
    with pytest.raises(ValueError, match="does not exist"):
        ReleaseAreas.from_file(tmp_path / "missing.gpkg", terrain, 10)
    zeros = write_raster(tmp_path / "zeros.tif", np.zeros((3, 3)), X0, Y0, 5.0, 5.0, crs=CRS)
    with pytest.raises(ValueError, match="no cell with a positive value"):
        ReleaseAreas.from_raster(zeros, terrain, 10)
    with pytest.raises(ValueError, match="exactly one of"):
        Release(point=(X0 + 1.0, Y0 + 1.0), areas=ReleaseAreas.from_file(good, terrain, 10))


def test_release_area_over_a_nodata_hole_is_clipped(tmp_path):
    """5 x 5 nodata samples make the 6 x 6 cells around them (36 m^2) a hole in a 20 m square
    (400 m^2): 9 % of the area is clipped, no rock starts in the hole, the others stay
    uniform."""
    x = np.arange(61.0)
    z = np.array(np.broadcast_to((60.0 - x) * 0.5, (41, 61)))
    z[18:23, 28:33] = np.nan  # a hole in the middle of the area below
    terrain = Terrain.from_array(z, x0=X0, y0=Y0, dx=1.0, crs=CRS)
    path = write_polygons(
        tmp_path / "a.gpkg", [[square(20.0, 10.0, 20.0)]], {"name": ["over the hole"]}, CRS
    )
    areas = ReleaseAreas.from_file(path, terrain, 400, name_field="name")
    (clip,) = areas.clips(terrain)
    assert clip.nodata_share == pytest.approx(36.0 / 400.0, rel=1e-12)
    assert clip.outside_share == 0.0
    assert "release area 'over the hole': 9 % of its area lies off the DEM" in clip.warning()
    states = Release(areas=areas, height=1.0).draw(terrain, 400, seed=1)
    x, y = states.position[:, 0] - X0, states.position[:, 1] - Y0
    assert terrain.contains(states.position[:, 0], states.position[:, 1]).all()
    in_hole = (x >= 27.0) & (x <= 33.0) & (y >= 17.0) & (y <= 23.0)
    assert not in_hole.any()
    # the left half (x < 30, 200 m^2 with 18 m^2 of hole) holds 182/364 of the rocks
    p = 182.0 / 364.0
    assert abs(np.count_nonzero(x < 30.0) - 400 * p) <= 4.0 * math.sqrt(400 * p * (1 - p))


def test_source_raster_and_area_keys_from_a_configuration(terrain, tmp_path):
    from tumble.io.config import validate
    from tumble.rockfall.site.from_config import build_run

    dem = terrain.write(tmp_path / "dem.tif")
    values = np.zeros((3, 3))
    values[1, 1] = 2.0
    write_raster(tmp_path / "src.tif", values, X0 + 10.0, Y0 + 10.0, 4.0, 4.0, crs=CRS)
    config = validate(
        {"dem": str(dem), "rocks": 6, "release": {"raster": str(tmp_path / "src.tif")}}
    )
    setup = build_run(config)
    assert setup.site is not None and setup.site.source_names == ("src",)
    x = setup.ensemble.states.position[:, 0] - X0
    y = setup.ensemble.states.position[:, 1] - Y0
    assert np.all((np.abs(x - 14.0) <= 2.0) & (np.abs(y - 14.0) <= 2.0))
    assert "release.raster" in setup.inputs
    for release, message in (
        ({"raster": str(tmp_path / "src.tif"), "name_field": "name"}, "release.name_field"),
        ({"raster": str(tmp_path / "src.tif"), "areas": "a.gpkg"}, "not both"),
    ):
        with pytest.raises(ValueError, match=message):
            build_run(validate({"dem": str(dem), "rocks": 6, "release": release}))


def test_footprint_shares_follow_the_weights_and_stay_inside():
    """Two squares weighted 1 and 3: their footprint points lie inside them and carry 1/4 and
    3/4 of the weight; the points of one square are spread over it (their mean is its centre to
    within one lattice step)."""
    a = ReleaseArea("a", (square(10.0, 10.0, 10.0),), 100.0, None, 1.0)
    b = ReleaseArea("b", (square(40.0, 10.0, 20.0),), 400.0, None, 3.0)
    points, weights = ReleaseAreas([a, b], 10).footprint()
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    in_a = inside_rings(points[:, 0], points[:, 1], a.rings)
    in_b = inside_rings(points[:, 0], points[:, 1], b.rings)
    assert np.all(in_a ^ in_b)
    assert weights[in_a].sum() == pytest.approx(0.25, abs=1e-12)
    assert weights[in_b].sum() == pytest.approx(0.75, abs=1e-12)
    step = math.sqrt(100.0 / (FOOTPRINT_POINTS // 2))
    np.testing.assert_allclose(points[in_a].mean(axis=0), [X0 + 15.0, Y0 + 15.0], atol=step)


def test_raster_footprint_is_binned_without_moving_its_centre(tmp_path, terrain):
    """A raster of 100 x 60 releasing cells (1 m, values 1 .. 6000): more cells than the footprint
    holds, so they are gathered into at most FOOTPRINT_POINTS bins whose weighted mean is the
    cells' weighted mean (to round-off) and whose weights sum to 1."""
    values = np.arange(1.0, 6001.0).reshape(60, 100)
    path = write_raster(tmp_path / "all.tif", values, X0 + 0.5, Y0 + 0.5, 1.0, 1.0, crs=CRS)
    areas = ReleaseAreas.from_raster(path, terrain, 10)
    points, weights = areas.footprint()
    assert points.shape[0] <= FOOTPRINT_POINTS < 6000
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    cells = areas.cells
    centres = np.column_stack([cells[:, :2].mean(axis=1), cells[:, 2:].mean(axis=1)])
    cell_weights = np.diff(np.concatenate([[0.0], areas.cdf]))
    expected = (centres * cell_weights[:, None]).sum(axis=0) / cell_weights.sum()
    np.testing.assert_allclose((points * weights[:, None]).sum(axis=0), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("label", ["EPSG:21781", "EPSG:32632"])
def test_a_wrong_crs_label_is_named(terrain, tmp_path, label):
    """LV95 coordinates of a polygon on the DEM labelled LV03 (or UTM 32N): transformed from the
    label's CRS they lie far off the DEM, as written on it; the refusal says the label looks
    wrong and how to relabel, not only that the area lies outside the DEM."""
    path = write_polygons(
        tmp_path / "mislabelled.gpkg", [[square(30.0, 20.0, 20.0)]], {"name": ["cliff"]}, label
    )
    with pytest.raises(
        ValueError, match=rf"CRS label looks wrong\. Labelled {label}.*-a_srs EPSG:2056"
    ):
        ReleaseAreas.from_file(path, terrain, 5, name_field="name")


def test_an_area_far_off_the_dem_in_its_own_crs_is_not_called_mislabelled(terrain, tmp_path):
    """Coordinates in WGS 84 that lie off the DEM both as written and transformed: the plain
    refusal, without the label hint."""
    ring = square(130.0, 20.0, 20.0)
    lon, lat = transform_xy(ring[:, 0], ring[:, 1], CRS, "EPSG:4326")
    path = write_polygons(
        tmp_path / "off.gpkg", [[np.column_stack([lon, lat])]], {"name": ["off"]}, "EPSG:4326"
    )
    with pytest.raises(ValueError, match="lies outside the DEM") as err:
        ReleaseAreas.from_file(path, terrain, 5, name_field="name")
    assert "label" not in str(err.value)
