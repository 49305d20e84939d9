"""Where rocks leave the DEM: the downslope edge, a side edge, or a nodata hole inside the
footprint (not the nodata margin of an irregular footprint), the point that left, and the exit
table, summary and warnings of an ensemble."""

import math

import numpy as np
import pytest

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.exits import Outside, classify_exits, fall_line
from tumble.rockfall.release import Release

SLOPE = 30.0
ROCK = Rock.box(1.0, 1.0, 1.0, mass=2000.0)
SOIL = Soil.coulomb(0.3)
DT = 0.002


def slope(nodata=None) -> Terrain:
    """A 30 degree plane descending along +x, x in [0, 60], y in [-15, 15], 1 m cells; the
    samples where ``nodata(x, y)`` is True are NaN."""
    x = np.arange(61.0)
    y = np.arange(-15.0, 16.0)
    heights = np.broadcast_to((60.0 - x) * math.tan(math.radians(SLOPE)), (y.size, x.size)).copy()
    if nodata is not None:
        heights[nodata(x[None, :], y[:, None])] = np.nan
    return Terrain.from_array(heights, x0=0.0, y0=-15.0, dx=1.0)


def run(terrain, release, n=4, t_max=10.0):
    ens = Ensemble(terrain, ROCK, SOIL, release.draw(terrain, n, 5), t_max=t_max, seed=5)
    return ens, ens.run(threads=2, chunk_size=3)


def travel(ens, result) -> np.ndarray:
    """How far a point of each exiting rock can move in one step: ``dt (|v| + |omega| R) +
    g dt^2`` from its last state (the point that left is at most that far beyond the edge)."""
    table = result.exits
    speed = table["velocity_ms"]
    omega = np.array([np.linalg.norm(ens.trajectory(int(k)).omega[-1]) for k in table["rock"]])
    return DT * (speed + omega * ROCK.radius) + 9.81 * DT * DT


def test_a_rock_rolling_off_the_lower_edge_left_downslope():
    """Released at x = 50, 10 m above the foot at x = 60: every rock leaves across x = 60,
    moving down the fall line; the point that left lies beyond x = 60 by less than one step's
    travel, and the summary counts them all as downslope_edge."""
    terrain = slope()
    ens, result = run(terrain, Release(point=(50.0, 0.0), height=1.0, orientation=(1, 0, 0, 0)))
    table = result.exits
    assert np.all(result.rocks["status"] == "left_domain")
    assert list(table["kind"]) == ["downslope_edge"] * 4
    beyond = table["x"] - 60.0
    assert np.all(beyond > 0.0) and np.all(beyond <= travel(ens, result))
    exits = result.summary["exits"]
    assert exits["rocks"] == 4
    assert exits["counts"] == {"downslope_edge": 4, "side_edge": 0, "nodata_hole": 0}
    assert exits["fractions"]["downslope_edge"] == 1.0 and exits["holes"] == []
    # the speed and energy where it left are those of its last state
    last = ens.trajectory(int(table["rock"][0]))
    assert table["velocity_ms"][0] == pytest.approx(np.linalg.norm(last.velocity[-1]), rel=1e-12)
    energy = last.kinetic_energy()[-1] * 1e-3
    assert table["kinetic_energy_kJ"][0] == pytest.approx(energy, rel=1e-12)
    (warning,) = [w for w in result.summary["warnings"] if "left the DEM" in w]
    assert "downslope edge" in warning and "extend the DEM downslope" in warning


def test_a_rock_thrown_across_a_tilted_plane_left_across_a_side():
    """Released 5 m from the side y = 15 with 10 m/s across the slope: it leaves across y = 15
    moving more than 45 degrees off the fall line (+x): side_edge, the point within a step's
    travel beyond y = 15."""
    terrain = slope()
    release = Release(
        point=(20.0, 10.0), height=1.0, velocity=(0.0, 10.0, 0.0), orientation=(1, 0, 0, 0)
    )
    ens, result = run(terrain, release, n=2)
    table = result.exits
    assert list(table["kind"]) == ["side_edge"] * 2
    beyond = table["y"] - 15.0
    assert np.all(beyond > 0.0) and np.all(beyond <= travel(ens, result))
    assert result.summary["exits"]["counts"]["side_edge"] == 2
    (warning,) = [w for w in result.summary["warnings"] if "left the DEM" in w]
    assert "side edge" in warning and "beyond its sides" in warning


def test_a_rock_rolling_into_a_hole_in_the_slope_fell_into_a_nodata_hole():
    """A nodata block of samples x in [30, 34], y in [-4, 4] in the middle of the slope: the
    rocks released above it at x = 20 leave into it (nodata_hole, hole 1); the point that left
    lies in the cells the block takes out of the surface, x in (29, 35), y in (-5, 5), within
    a step's travel of their edge; the hole's record gives its centre (32, 0), its 45 samples
    and their area; the warning names the hole and where it is."""
    terrain = slope(lambda x, y: (x >= 30) & (x <= 34) & (np.abs(y) <= 4))
    ens, result = run(terrain, Release(point=(20.0, 0.0), height=1.0, orientation=(1, 0, 0, 0)))
    table = result.exits
    assert list(table["kind"]) == ["nodata_hole"] * 4
    assert np.all(table["hole"] == 1)
    x, y = table["x"], table["y"]
    inside = (x > 29.0) & (x < 35.0) & (np.abs(y) < 5.0)
    assert inside.all()
    to_edge = np.minimum.reduce([x - 29.0, 35.0 - x, 5.0 - np.abs(y)])
    assert np.all(to_edge <= travel(ens, result))
    assert not terrain.contains(x, y).any()
    (hole,) = result.summary["exits"]["holes"]
    assert hole["hole"] == 1 and hole["rocks"] == 4 and hole["cells"] == 45
    assert (hole["x"], hole["y"], hole["area_m2"]) == (32.0, 0.0, 45.0)
    (warning,) = [w for w in result.summary["warnings"] if "hole" in w]
    assert "x = 32.0, y = 0.0" in warning and "fill the hole" in warning
    assert "rocks are lost there" in warning


def test_the_nodata_margin_of_an_irregular_footprint_is_an_edge_not_a_hole():
    """Nodata over x >= 45 for y >= -5 (a margin reaching the grid's border): a rock running
    into it leaves across the footprint's edge, downslope_edge; a nodata block away from the
    border is a hole."""
    terrain = slope(lambda x, y: (x >= 45) & (y >= -5))
    outside = Outside.of(terrain.heights)
    assert outside.holes == ()
    assert outside.part_at(terrain, 50.0, 0.0) == outside.margin
    assert outside.part_at(terrain, 20.0, 0.0) == 0
    _, result = run(terrain, Release(point=(35.0, 0.0), height=1.0, orientation=(1, 0, 0, 0)))
    assert list(result.exits["kind"]) == ["downslope_edge"] * 4
    assert np.all(result.exits["x"] > 44.0)
    assert result.summary["exits"]["holes"] == []


def test_fall_line_and_the_rule_on_flat_ground():
    """The fall line of the plane is +x; on flat ground the direction from the release stands
    for it: a rock leaving straight ahead left downslope, one leaving sideways a side."""
    np.testing.assert_allclose(fall_line(slope(), 30.0, 0.0), [1.0, 0.0], atol=1e-12)
    flat = Terrain.plane(0.0, size=(40.0, 20.0))
    assert not fall_line(flat, 20.0, 0.0).any()
    points = np.array([[40.2, 0.0], [30.0, 10.2]])
    velocity = np.array([[3.0, 0.1], [0.2, 3.0]])
    release = np.array([[10.0, 0.0], [10.0, 0.0]])
    kinds, hole, outside = classify_exits(flat, points, velocity, points - 0.5, release)
    assert list(kinds) == ["downslope_edge", "side_edge"]
    assert list(hole) == [0, 0] and outside is None
