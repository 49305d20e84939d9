"""Stratified releases of a site (tumble.rockfall.site.stratified): rocks in the cells of their
strata, the mean of an estimator over seeds equal to the exact value and to plain sampling's
(without the bias of rounding the split of the rocks), a smaller spread than plain sampling, and
the same numbers for any chunks and threads of a run."""

import math

import numpy as np
import pytest

from tumble.errors import ConfigError
from tumble.io.config import load_config
from tumble.io.vectors import write_polygons
from tumble.rockfall import Terrain
from tumble.rockfall.release import Release
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.areas import ReleaseArea, ReleaseAreas
from tumble.rockfall.site.from_config import build_run
from tumble.rockfall.site.rock_classes import RockClass, draw_classes
from tumble.rockfall.site.stratified import polygon_cells, stratified_release

X0, Y0 = 1000.0, 5000.0
#: two release areas: a 10 m square (x 10..20) and a 20 m x 15 m rectangle (x 50..70)
SQUARE = np.array([(10.0, 20.0), (20.0, 20.0), (20.0, 30.0), (10.0, 30.0)]) + (X0, Y0)
RECTANGLE = np.array([(50.0, 10.0), (70.0, 10.0), (70.0, 25.0), (50.0, 25.0)]) + (X0, Y0)
#: the exact mean of the estimator of :func:`estimate`: the mean x (m, from X0) of a start
#: uniform over both areas by their areas, (100 * 15 + 300 * 60) / 400, plus 50 times the
#: share of the second class, 0.3
EXACT = 48.75 + 50.0 * 0.3


@pytest.fixture(scope="module")
def terrain():
    z = (100.0 - np.arange(101.0)) * math.tan(math.radians(30.0))
    return Terrain.from_array(np.broadcast_to(z, (61, 101)), x0=X0, y0=Y0, dx=1.0)


@pytest.fixture(scope="module")
def classes():
    return [
        RockClass("small", Rock.eota111(mass=200.0), 0.7),
        RockClass("large", Rock.eota221(mass=2000.0), 0.3),
    ]


def areas(n):
    return ReleaseAreas(
        [
            ReleaseArea("square", (SQUARE,), 100.0, None, 100.0),
            ReleaseArea("rectangle", (RECTANGLE,), 300.0, None, 300.0),
        ],
        n,
    )


def estimate(terrain, classes, sampling, n, seed):
    """The mean over the rocks of ``x - X0 + 50 [class = large]`` of one release."""
    placed, class_id = stratified_release(sampling, areas(n), classes, n, seed, terrain)
    assert placed is not None
    states = Release(areas=placed, height=1.0).draw(terrain, n, seed)
    drawn = draw_classes(classes, n, seed, class_id)
    return float(np.mean(states.position[:, 0] - X0 + 50.0 * (drawn.class_id == 1)))


def test_cells_weigh_the_pieces_of_the_polygon(terrain):
    # a triangle over 1 m cells: the pieces' areas sum to its area, each at most a cell
    triangle = np.array([(5.2, 5.2), (12.7, 5.2), (5.2, 9.9)]) + (X0, Y0)
    bounds, weights = polygon_cells([triangle], terrain)
    assert weights.sum() == pytest.approx(0.5 * 7.5 * 4.7, rel=1e-12)
    assert np.all((weights > 0.0) & (weights <= 1.0 + 1e-12))
    assert np.all(bounds[:, 1] - bounds[:, 0] <= 1.0 + 1e-9)
    # consecutive cells of the Hilbert order are neighbours but for a few jumps
    centres = np.column_stack([bounds[:, :2].mean(axis=1), bounds[:, 2:].mean(axis=1)])
    step = np.abs(np.diff(np.floor(centres), axis=0)).sum(axis=1)
    assert np.mean(step <= 2) > 0.8


def test_rocks_start_in_the_cells_of_their_strata(terrain, classes):
    n, seed = 60, 4
    placed, class_id = stratified_release("stratified", areas(n), classes, n, seed, terrain)
    states = Release(areas=placed, height=1.0).draw(terrain, n, seed)
    x, y = states.position[:, 0], states.position[:, 1]
    source = placed.source_of(np.arange(n))
    for k in range(n):
        x_min, x_max, y_min, y_max = placed.pieces[source[k]][placed.cell_of[k]]
        assert x_min <= x[k] <= x_max and y_min <= y[k] <= y_max
    # the areas' shares 15 and 45 exactly, the classes' within 2 of 0.7 and 0.3 in each area
    assert placed.counts.tolist() == [15, 45]
    for s, rocks in enumerate((15, 45)):
        large = int(np.sum(class_id[source == s] == 1))
        assert abs(large - 0.3 * rocks) < 2.0
    # the rocks of a stratum spread over the area: the rectangle's rocks of each class cover
    # both its halves
    for c in (0, 1):
        mine = (source == 1) & (class_id == c)
        assert np.any(x[mine] < X0 + 60.0) and np.any(x[mine] > X0 + 60.0)


def test_mean_over_seeds_unbiased_and_spread_smaller(terrain, classes):
    seeds = range(200)
    # 40 rocks: the split of plain sampling, 10 and 30, is exact as well
    plain = np.array([estimate(terrain, classes, "random", 40, s) for s in seeds])
    strat = np.array([estimate(terrain, classes, "stratified", 40, s) for s in seeds])
    for values in (plain, strat):
        error = values.std(ddof=1) / math.sqrt(values.size)
        assert abs(values.mean() - EXACT) < 4.0 * error
    both = math.hypot(plain.std(ddof=1), strat.std(ddof=1)) / math.sqrt(len(seeds))
    assert abs(plain.mean() - strat.mean()) < 4.0 * both
    # the spread of the estimate: classes and places stratified, far below plain sampling's
    assert strat.var(ddof=1) < plain.var(ddof=1) / 4.0
    # 30 rocks: the quotas 7.5 and 22.5 are rounded to 8 and 22 by plain sampling every time
    # (its mean x is 48.0, not 48.75); stratified sampling rounds at random, unbiased
    strat30 = np.array([estimate(terrain, classes, "stratified", 30, s) for s in seeds])
    error = strat30.std(ddof=1) / math.sqrt(strat30.size)
    assert abs(strat30.mean() - EXACT) < 4.0 * error
    assert error < 0.75 / 4.0  # the test sees the rounding bias of plain sampling


def test_nothing_to_stratify_refused(terrain):
    with pytest.raises(ConfigError, match="nothing to stratify") as err:
        stratified_release("stratified", None, None, 10, 1, terrain)
    assert err.value.key == "release.sampling"
    assert stratified_release("random", None, None, 10, 1, terrain) == (None, None)


def _site(directory):
    z = np.maximum(60.0 - np.arange(81.0), 0.0) * math.tan(math.radians(35.0))
    Terrain.from_array(np.broadcast_to(z, (61, 81)), x0=X0, y0=Y0, dx=1.0, crs="EPSG:31254").write(
        directory / "dem.tif"
    )
    write_polygons(
        directory / "areas.gpkg",
        [[SQUARE - (5.0, 0.0)], [RECTANGLE - (40.0, -20.0)]],
        {"name": np.array(["south", "north"], dtype=object)},
        crs="EPSG:31254",
    )
    return {
        "dem": str(directory / "dem.tif"),
        "release.areas": str(directory / "areas.gpkg"),
        "release.name_field": "name",
        "release.sampling": "stratified",
        "rocks": 23,
        "seed": 7,
        "t_max": 4.0,
        "rock.classes": [
            {"name": "small", "shape": "eota111", "volume": 0.1, "share": 0.7},
            {
                "name": "large",
                "shape": "eota221",
                "volume": {"distribution": "lognormal", "median": 0.5, "sigma": 0.5},
                "share": 0.3,
            },
        ],
    }


def test_same_numbers_for_any_chunks_and_threads(tmp_path):
    config = load_config(settings=_site(tmp_path))
    runs = []
    for threads, chunk_size in ((1, 23), (2, 5), (1, 7)):
        setup = build_run(config, tmp_path)
        runs.append(setup.ensemble.run(threads=threads, chunk_size=chunk_size))
    first = runs[0]
    assert setup.site.class_of.tolist() != [0] * 23  # both classes are in the run
    for other in runs[1:]:
        assert first.rocks.keys() == other.rocks.keys()
        for name, values in first.rocks.items():
            nan = np.asarray(values).dtype.kind == "f"
            assert np.array_equal(values, other.rocks[name], equal_nan=nan), name
        for name in ("reach_probability", "max_kinetic_energy_kJ"):
            if name in first.rasters:
                assert np.array_equal(first.rasters[name], other.rasters[name], equal_nan=True)
    # and differ from plain sampling's (same seed): the release is another one
    plain = build_run(load_config(settings={**_site(tmp_path), "release.sampling": "random"}))
    stratified = build_run(config, tmp_path)
    assert not np.array_equal(plain.ensemble.states.position, stratified.ensemble.states.position)
