"""The clearance of a rock's hull above the terrain (tumble.rockfall.clearance): exact against hand
values where the smallest gap is at a vertex, along an edge and at a grid node, and never above
the smallest gap of dense samples of the hull's surface."""

import math

import numpy as np
import pytest

from tumble.bodies.polyhedron import hull_triangles
from tumble.rockfall import Rock, Terrain
from tumble.rockfall.clearance import Hulls, clearance
from tumble.rockfall.release import uniform_quaternion
from tumble.rotation.quaternion import quat_to_matrix

IDENTITY = np.eye(3)


def peak() -> Terrain:
    """Flat ground z = 0 on [0, 20] x [0, 20] (1 m cells) with one sample at (10, 10) raised to
    1 m: a bilinear spike falling to 0 one cell away."""
    heights = np.zeros((21, 21))
    heights[10, 10] = 1.0
    return Terrain.from_array(heights, dx=1.0)


def test_a_spike_under_the_bottom_face_is_found_at_its_grid_node():
    """A 1.6 m cube with its bottom face at z = 0.5 over the spike: every vertex and every edge
    is above the ground (the spike is 0.8 m wide at the edges' height 0.2 m), but the spike's
    node pokes 0.5 m into the rock; the clearance is 0.5 - 1 = -0.5."""
    hulls = Hulls.of(Rock.box(1.6, 1.6, 1.6))
    centre = np.array([10.0, 10.0, 0.5 + 0.8])
    gap, on = clearance(peak(), hulls, 0, centre, IDENTITY)
    assert on and gap == pytest.approx(-0.5, abs=1e-12)
    corners = centre + hulls.of_rock(0)[0]
    vertex_gaps = corners[:, 2] - peak().height(corners[:, 0], corners[:, 1])
    assert vertex_gaps.min() > 0.45  # a check of the vertices alone would call it clear


def test_an_edge_over_a_ridge_is_found_between_its_vertices():
    """A ridge z = 2 - |x - 10| (samples 1 m apart) under a horizontal 4 m edge of a box lying
    across it at height 1.5: its vertices are at x = 8 and 12, 1.5 m above the flanks, its edge
    passes 0.5 m under the crest; the clearance is -0.5 at the crest."""
    x = np.arange(21.0)
    terrain = Terrain.from_array(np.broadcast_to(2.0 - np.abs(x - 10.0), (11, 21)), dx=1.0)
    hulls = Hulls.of(Rock.box(4.0, 1.0, 1.0))
    centre = np.array([10.0, 5.0, 2.0])  # bottom face at z = 1.5
    gap, on = clearance(terrain, hulls, 0, centre, IDENTITY)
    assert on and gap == pytest.approx(-0.5, abs=1e-12)
    # the same box moved down the flank (x in [11, 15], where z <= 1) clears it
    gap, _ = clearance(terrain, hulls, 0, np.array([13.0, 5.0, 2.0]), IDENTITY)
    assert gap > 0.0


def test_a_rock_off_the_dem_or_over_nodata_has_no_clearance():
    heights = np.zeros((11, 11))
    heights[5, 8] = np.nan
    terrain = Terrain.from_array(heights, dx=1.0)
    hulls = Hulls.of(Rock.box(1.0, 1.0, 1.0))
    assert clearance(terrain, hulls, 0, np.array([3.0, 5.0, 1.0]), IDENTITY) == (0.5, True)
    # its corners at x = 7.5 reach the cells next to the nodata sample (x in [7, 9])
    assert not clearance(terrain, hulls, 0, np.array([7.0, 5.0, 1.0]), IDENTITY)[1]
    assert not clearance(terrain, hulls, 0, np.array([9.7, 5.0, 1.0]), IDENTITY)[1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clearance_is_the_smallest_gap_of_the_whole_hull(seed):
    """On a rough terrain (random heights on 0.5 m cells, smaller than the rock), the clearance
    of a randomly turned EOTA221 rock is never above the smallest gap of 3000 samples per hull
    triangle, and within 2 cm of it (the samples' spacing)."""
    rng = np.random.default_rng(seed)
    terrain = Terrain.from_array(rng.random((21, 21)), dx=0.5)
    rock = Rock.eota221(size=2.0)
    hulls = Hulls.of(rock)
    index, triangles, _ = hull_triangles(rock.vertices)
    uv = rng.random((3000, 2))
    uv[uv.sum(axis=1) > 1.0] = 1.0 - uv[uv.sum(axis=1) > 1.0]
    for _ in range(10):
        rotation = quat_to_matrix(uniform_quaternion(rng)[None, :])[0]
        centre = np.array([5.0, 5.0, 1.4])
        gap, on = clearance(terrain, hulls, 0, centre, rotation)
        assert on
        corners = centre + rock.vertices[index] @ rotation.T
        a, b, c = (corners[triangles[:, k]] for k in range(3))
        points = (
            a[:, None] + uv[None, :, :1] * (b - a)[:, None] + uv[None, :, 1:] * (c - a)[:, None]
        )
        points = points.reshape(-1, 3)
        sampled = points[:, 2] - terrain.height(points[:, 0], points[:, 1])
        assert gap <= sampled.min() + 1e-12
        assert gap >= sampled.min() - 0.02


def test_classes_of_shapes_and_scales():
    """Rock k is shape ``shape_id[k]`` scaled by ``scale[k]``: a 1 m cube at scale 2 over flat
    ground with its centre 1.5 m up clears it by 0.5 m, the 2 m cube at scale 1 likewise."""
    terrain = Terrain.from_array(np.zeros((11, 11)), dx=1.0)
    hulls = Hulls.of([Rock.box(1.0, 1.0, 1.0), Rock.box(2.0, 2.0, 2.0)], [0, 1], [2.0, 1.0])
    for k in (0, 1):
        gap, on = clearance(terrain, hulls, k, np.array([5.0, 5.0, 1.5]), IDENTITY)
        assert on and gap == pytest.approx(0.5, abs=1e-12)
    assert hulls.radius(0) == pytest.approx(math.sqrt(3.0), rel=1e-12)


def test_many_rocks_at_once_give_each_rock_its_own_clearance_whatever_the_threads():
    """rock_clearances of 301 rocks of two shapes and random scales, places and rotations
    (some off the DEM) on a rough terrain, on 1 and on 2 threads: bit for bit the clearance
    of each rock computed alone (the rocks go in blocks over threads; a rock's numbers do not
    depend on its block)."""
    from tumble._jit import get_threads, set_threads
    from tumble.rockfall.clearance import rock_clearances

    rng = np.random.default_rng(3)
    terrain = Terrain.from_array(rng.random((30, 40)) * 2.0, dx=1.0)
    n = 301
    hulls = Hulls.of(
        [Rock.box(1.6, 1.0, 0.7), Rock.box(0.5, 0.5, 0.5)],
        shape_id=rng.integers(0, 2, n),
        scale=rng.uniform(0.5, 2.0, n),
    )
    position = np.column_stack(
        [rng.uniform(-2.0, 42.0, n), rng.uniform(-2.0, 32.0, n), rng.uniform(0.0, 3.0, n)]
    )
    rotation = np.array([quat_to_matrix(uniform_quaternion(rng)) for _ in range(n)])
    alone = [clearance(terrain, hulls, k, position[k], rotation[k]) for k in range(n)]
    before = get_threads()
    try:
        for threads in (1, 2):
            set_threads(threads)
            gap, on = rock_clearances(terrain, hulls, 0, position, rotation)
            np.testing.assert_array_equal(gap, [g for g, _ in alone])
            np.testing.assert_array_equal(on, [o for _, o in alone])
    finally:
        set_threads(before)
    assert (~on).any() and on.any()
