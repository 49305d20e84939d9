"""The release places of a run as one geometry (tumble.pipeline.energy_line.release_places), and
which points lie beyond them (tumble.rockfall.hazard.energy_line.beyond_release), against
distances computed by hand for every kind of release place."""

import numpy as np
import pytest

from tumble.pipeline.energy_line import release_places, scenario_reach
from tumble.rockfall.hazard.energy_line import BEYOND_RELEASE_M, beyond_release
from tumble.rockfall.release import Release
from tumble.rockfall.site.areas import ReleaseArea, ReleaseAreas


def square(x0, y0, side):
    return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])


def _rectangle_distance(x, y, x0, x1, y0, y1):
    dx = np.maximum.reduce([x0 - x, np.zeros_like(x), x - x1])
    dy = np.maximum.reduce([y0 - y, np.zeros_like(y), y - y1])
    return np.hypot(dx, dy)


# points 1 m on either side of 25 m from the places below, and inside them
X = np.array([0.0, 24.0, 26.0, 5.0, 5.0, -30.0, 45.0, 70.0, np.nan])
Y = np.array([0.0, 0.0, 0.0, 24.0, 26.0, 0.0, 5.0, 5.0, 0.0])


@pytest.mark.parametrize(
    ("release", "distance"),
    [
        (Release(point=(0.0, 0.0)), lambda x, y: np.hypot(x, y)),
        (
            Release(line=((0.0, 0.0), (10.0, 0.0))),
            lambda x, y: _rectangle_distance(x, y, 0.0, 10.0, 0.0, 0.0),
        ),
        (
            Release(polygon=((0.0, -5.0), (20.0, -5.0), (20.0, 5.0), (0.0, 5.0))),
            lambda x, y: _rectangle_distance(x, y, 0.0, 20.0, -5.0, 5.0),
        ),
    ],
)
def test_points_beyond_a_point_a_line_and_a_polygon(release, distance):
    """Farther than 25 m from a point, a line and a rectangle, as their distances by hand say;
    a point with a NaN coordinate is never beyond."""
    places = release_places(release)
    expected = np.zeros(X.size, dtype=bool)
    finite = np.isfinite(X)
    expected[finite] = distance(X[finite], Y[finite]) > BEYOND_RELEASE_M
    assert np.array_equal(beyond_release(X, Y, places), expected)
    assert expected[finite].any() and not expected[finite].all()


def test_points_beyond_release_areas_with_a_hole_and_a_raster():
    """Two square areas, one with a square hole: a point in the hole 10 m from the area's ring
    is within it; a point beyond both is farther than 25 m from each. A source raster counts
    by its releasing cells' pixels."""
    outer, hole = square(0.0, 0.0, 60.0), square(20.0, 20.0, 20.0)
    areas = ReleaseAreas(
        [
            ReleaseArea("a", (outer, hole), 3200.0, None, 1.0),
            ReleaseArea("b", (square(200.0, 0.0, 10.0),), 100.0, None, 1.0),
        ],
        10,
    )
    places = release_places(Release(areas=areas))
    x = np.array([30.0, 86.0, 84.0, 174.0, 176.0, 236.0, 130.0])
    y = np.array([30.0, 30.0, 30.0, 5.0, 5.0, 5.0, 5.0])
    assert beyond_release(x, y, places).tolist() == [False, True, False, True, False, True, True]
    cells = np.array([[0.0, 5.0, 0.0, 5.0], [5.0, 10.0, 0.0, 5.0]])  # x_min, x_max, y_min, y_max
    raster = ReleaseAreas(
        [ReleaseArea("r", (), 50.0, None, 1.0)], 10, cells=cells, cell_weights=np.ones(2)
    )
    places = release_places(Release(areas=raster))
    x = np.array([34.0, 36.0, 5.0, 5.0])
    y = np.array([2.5, 2.5, 29.0, 31.0])
    assert beyond_release(x, y, places).tolist() == [False, True, False, True]


def test_a_synthetic_terrain_says_it_is_not_a_field_slope():
    assert scenario_reach("slope40").startswith("slope40 reproduces the ensembles of Leine")
    other = scenario_reach("ramp")
    assert other.startswith("ramp is a synthetic terrain") and "real terrain" in other
