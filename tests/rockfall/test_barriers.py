"""Barrier lines and nets (tumble.rockfall.barriers): the crossing test by hand (half-open rule at
shared vertices), against shapely, the packed arrays for the kernels, and the uphill side: the
side of a line each point lies on by hand (segments, vertices, beyond the ends), the shares and
the two-thirds rule. Lines read from a configuration or from files:
``site/test_barrier_files.py``."""

import math

import numpy as np
import pytest
import shapely

from tumble._jit import jit
from tumble.rockfall.barriers import (
    Barrier,
    crossings,
    pack_barriers,
    point_sides,
    release_shares,
    segment_crossing,
    uphill_side,
    with_uphill,
)

# --- segment_crossing ----------------------------------------------------------------------------


def test_crossing_by_hand():
    hit, s, u = segment_crossing(0.0, 0.0, 4.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert hit
    assert s == pytest.approx(0.25, abs=1e-15)
    assert u == pytest.approx(0.5, abs=1e-15)
    # the other way round: the segment's fraction and the path's swap
    hit, s, u = segment_crossing(1.0, -1.0, 1.0, 1.0, 0.0, 0.0, 4.0, 0.0)
    assert hit and s == pytest.approx(0.5) and u == pytest.approx(0.25)


def test_crossing_in_swiss_coordinates():
    """Large coordinates (LV95) lose nothing: the orientations use differences."""
    x, y = 2_600_000.0, 1_200_000.0
    hit, s, u = segment_crossing(x, y, x + 4.0, y, x + 1.0, y - 1.0, x + 1.0, y + 3.0)
    assert hit and s == pytest.approx(0.25) and u == pytest.approx(0.25)


@pytest.mark.parametrize(
    "path, segment",
    [
        ((0, 0, 4, 0), (0, 1, 4, 1)),  # parallel
        ((0, 0, 4, 0), (1, 0, 3, 0)),  # collinear, overlapping
        ((0, 0, 4, 0), (5, 0, 6, 0)),  # collinear, apart
        ((2, 0, 2, 0), (1, -1, 3, 1)),  # a rock standing still on the segment
        ((0, 0, 4, 0), (1, 1, 1, 3)),  # the path's line crosses, the segment ends before
        ((0, 0, 0.5, 0), (1, -1, 1, 1)),  # the segment's line crosses, the path ends before
    ],
)
def test_no_crossing(path, segment):
    for last in (False, True):
        hit, s, u = segment_crossing(*map(float, path), *map(float, segment), last)
        assert not hit
        assert math.isnan(s) and math.isnan(u)


def test_touching_an_end_point():
    """A path through a segment's end point: the start counts, the end only on a line's last
    segment (half-open rule)."""
    # through the start c = (1, -1)
    hit, s, u = segment_crossing(0.0, -2.0, 2.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert hit and s == 0.5 and u == 0.0
    # through the end d = (1, 1)
    assert not segment_crossing(0.0, 0.0, 2.0, 2.0, 1.0, -1.0, 1.0, 1.0)[0]
    hit, s, u = segment_crossing(0.0, 0.0, 2.0, 2.0, 1.0, -1.0, 1.0, 1.0, True)
    assert hit and s == 0.5 and u == 1.0


def test_step_ending_on_the_line_counts_once():
    """A crossing at a step's end point belongs to that step, not to the next (0 < s <= 1)."""
    first = segment_crossing(0.0, 0.0, 1.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    second = segment_crossing(1.0, 0.0, 2.0, 0.0, 1.0, -1.0, 1.0, 1.0)
    assert first == (True, 1.0, 0.5)
    assert not second[0]
    path = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]
    line = Barrier("A", [(1.0, -1.0), (1.0, 1.0)])
    assert crossings(path, [line]) == [(0, 0, 1.0, 1.0)]


@pytest.mark.parametrize(
    "vertices",
    [
        [(1.0, -1.0), (1.0, 0.0), (1.0, 1.0)],  # straight through the shared vertex
        [(1.0, -1.0), (1.0, 0.0), (2.0, 1.0)],  # bent there
        [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0)],  # bent back
        [(0.3, -0.7), (1.0, 0.0), (1.3, 0.7)],  # not on a grid: the vertex as written
    ],
)
def test_shared_vertex_counted_once(vertices):
    """A path through the vertex two consecutive segments share crosses the line once."""
    barrier = Barrier("fence", vertices)
    found = crossings([(-2.0, 0.0), (3.0, 0.0)], [barrier])
    assert len(found) == 1
    step, index, s, along = found[0]
    assert (step, index) == (0, 0)
    assert s == pytest.approx(0.6)
    assert along == pytest.approx(math.dist(vertices[0], vertices[1]))


def test_shared_vertex_through_the_compiled_kernel():
    """Called from a compiled loop with eight arguments (``last`` defaults to False), as the
    engine does, and with ``last`` given per segment."""

    @jit
    def count(path, segments, last):
        n = 0
        for j in range(segments.shape[0]):
            x0, y0, x1, y1 = segments[j]
            hit, _, _ = segment_crossing(path[0], path[1], path[2], path[3], x0, y0, x1, y1)
            hit_last, _, _ = segment_crossing(
                path[0], path[1], path[2], path[3], x0, y0, x1, y1, last[j]
            )
            n += 10 * hit + hit_last
        return n

    arrays = pack_barriers([Barrier("A", [(1.0, -1.0), (1.0, 0.0), (1.0, 1.0)])])
    # through the shared vertex: once, either way
    assert count(np.array([0.0, 0.0, 2.0, 0.0]), arrays.segments, arrays.last) == 11
    # through the line's end point: only with the last segment's end counted
    assert count(np.array([0.0, 2.0, 2.0, 0.0]), arrays.segments, arrays.last) == 1


def test_crossings_agree_with_shapely():
    """Segments in general position (no touching): crossing exactly when shapely says they
    intersect, at the same point."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(2000):
        ax, ay, bx, by, cx, cy, dx, dy = rng.uniform(-1.0, 1.0, 8)
        hit, s, u = segment_crossing(ax, ay, bx, by, cx, cy, dx, dy)
        expected = shapely.LineString([(ax, ay), (bx, by)]).intersects(
            shapely.LineString([(cx, cy), (dx, dy)])
        )
        assert hit == expected
        if hit:
            hits += 1
            assert ax + s * (bx - ax) == pytest.approx(cx + u * (dx - cx), abs=1e-12)
            assert ay + s * (by - ay) == pytest.approx(cy + u * (dy - cy), abs=1e-12)
    assert 200 < hits < 1800


# --- Barrier and pack_barriers -------------------------------------------------------------------


def test_barrier_kind_length_and_read_only_line():
    line = Barrier("obs", [[0, 0], [3, 4], [3, 10]])
    assert line.kind == "line"
    assert line.length == pytest.approx(11.0)
    assert line.line.dtype == np.float64 and line.line.shape == (3, 2)
    assert not line.line.flags.writeable
    with pytest.raises(ValueError):
        line.line[0, 0] = 1.0
    assert Barrier("n", [[0, 0], [1, 0]], height=4.0).kind == "net"
    assert Barrier("n", [[0, 0], [1, 0]], capacity=500).kind == "net"
    assert Barrier("n", [[0, 0], [1, 0]], capacity=500).capacity == 500.0
    assert Barrier("a", [[0, 0], [1, 0]]) == Barrier("a", np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert Barrier("a", [[0, 0], [1, 0]]) != Barrier("a", [[0, 0], [1, 0]], height=2.0)


def test_pack_barriers_layout():
    a = Barrier("A", [[0, 0], [3, 4], [3, 10]], height=4.0, capacity=1000.0)
    b = Barrier("B", [[10, 0], [20, 0]])
    arrays = pack_barriers([a, b])
    np.testing.assert_array_equal(arrays.segments, [[0, 0, 3, 4], [3, 4, 3, 10], [10, 0, 20, 0]])
    assert arrays.segments.flags.c_contiguous and arrays.segments.dtype == np.float64
    np.testing.assert_array_equal(arrays.barrier_of, [0, 0, 1])
    assert arrays.barrier_of.dtype == np.int64
    np.testing.assert_array_equal(arrays.along, [0.0, 5.0, 0.0])
    np.testing.assert_array_equal(arrays.last, [False, True, True])
    assert arrays.height[0] == 4.0 and math.isnan(arrays.height[1])
    np.testing.assert_array_equal(arrays.capacity_J, [1.0e6, np.inf])
    np.testing.assert_array_equal(arrays.bbox, [[0, 3, 0, 10], [10, 20, 0, 0]])  # x, then y
    assert (arrays.n_barriers, arrays.n_segments) == (2, 3)
    for name in ("segments", "barrier_of", "along", "last", "height", "capacity_J", "bbox"):
        assert not getattr(arrays, name).flags.writeable, name
    # no side given: NaN; uphill right -> the left is downslope (+1), uphill left -> -1
    assert np.isnan(arrays.downhill).all()
    sided = pack_barriers(
        [
            Barrier("A", [[0, 0], [1, 0]], uphill="right"),
            Barrier("B", [[10, 0], [20, 0]], uphill="left"),
        ]
    )
    np.testing.assert_array_equal(sided.downhill, [1.0, -1.0])


def test_pack_no_barriers():
    arrays = pack_barriers([])
    assert arrays.segments.shape == (0, 4) and arrays.segments.dtype == np.float64
    assert arrays.barrier_of.shape == (0,) and arrays.barrier_of.dtype == np.int64
    assert arrays.along.shape == (0,) and arrays.last.shape == (0,)
    assert arrays.height.shape == (0,) and arrays.capacity_J.shape == (0,)
    assert arrays.bbox.shape == (0, 4)


# --- the uphill side ------------------------------------------------------------------------------


def test_point_sides_of_a_straight_line_and_beyond_its_ends():
    """Line (0, 0) -> (10, 0): left is y > 0; beyond the ends the line is extended straight, so
    (-5, 1) is left and (15, -3) right; points on the line or its extension are on neither."""
    line = [[0.0, 0.0], [10.0, 0.0]]
    points = [[5, 1], [5, -1], [-5, 1], [15, -3], [15, 0], [5, 0], [-3, 0]]
    np.testing.assert_array_equal(point_sides(line, points), [1, -1, 1, -1, 0, 0, 0])


@pytest.mark.parametrize(
    "line, points, sides",
    [
        # a left turn at (10, 0): the inside of the turn (x < 10, y > 0) is left; (20, 20) lies
        # beyond the end, right of the last segment extended (x = 10 upwards); (10, -5), below
        # the vertex, is right of the first segment
        (
            [[0, 0], [10, 0], [10, 10]],
            [[12, -2], [8, 2], [12, 5], [20, 20], [5, -5], [9, 1], [11, -1], [10, -5]],
            [-1, 1, -1, -1, -1, 1, -1, -1],
        ),
        # a right turn at (10, 0): the inside (x < 10, y < 0) is right; (10, 5) above the
        # vertex is left; (-5, 5) lies beyond the start, left of the first segment extended
        (
            [[0, 0], [10, 0], [10, -10]],
            [[12, 2], [8, -2], [12, -5], [-5, 5], [9, -1], [11, 1], [10, 5]],
            [1, -1, 1, 1, -1, 1, 1],
        ),
        # a hairpin (turn by 150 deg): points nearest the vertex, outside the sharp bend, lie
        # right; the narrow wedge inside the bend is left
        (
            [[0, 0], [10, 0], [10 - 10 * math.cos(math.radians(30)), 5]],
            [[13, 0], [12, 2], [10, -2], [6, 1.5]],
            [-1, -1, -1, 1],
        ),
    ],
)
def test_point_sides_at_vertices_by_hand(line, points, sides):
    np.testing.assert_array_equal(point_sides(line, points), sides)


def test_shares_and_the_two_thirds_rule():
    line = [[0.0, -10.0], [0.0, 10.0]]  # along +y: left is x < 0
    points = [[-1, 0], [-2, 0], [3, 0], [0, 5]]  # two left, one right, one on the line
    left, right = release_shares(line, points, [1.0, 1.0, 2.0, 4.0])
    assert (left, right) == (2.0 / 8.0, 2.0 / 8.0)
    assert uphill_side((2 / 3, 1 / 3)) == "left"
    assert uphill_side((0.0, 1.0)) == "right"
    assert uphill_side((0.6, 0.4)) is None
    assert uphill_side((0.0, 0.0)) is None


def test_with_uphill_takes_the_side_the_rocks_start_on():
    line = [[10.0, -5.0], [10.0, 5.0]]  # along +y: left is x < 10
    given = Barrier("given", line, uphill="right")
    (decided, kept) = with_uphill(
        [Barrier("open", line), given], [[2.0, 0.0, 5.0], [3.0, 1.0, 5.0]]
    )
    assert decided.uphill == "left" and kept is given
    (one,) = with_uphill([Barrier("open", line)], np.array([15.0, 0.0, 1.0]))
    assert one.uphill == "right"
    with pytest.raises(ValueError, match=r"barrier 'open'.*both sides.*50.0 % on its left"):
        with_uphill([Barrier("open", line)], [[2.0, 0.0], [12.0, 0.0]])
    with pytest.raises(ValueError, match=r"barrier 'open'.*no rock starts off its line"):
        with_uphill([Barrier("open", line)], [[10.0, 0.0]])


def test_an_uphill_side_is_left_or_right():
    with pytest.raises(ValueError, match=r"barrier 'b'.*uphill must be 'left' or 'right'"):
        Barrier("b", [[0, 0], [1, 0]], uphill="up")  # type: ignore[arg-type]
    a = Barrier("b", [[0, 0], [1, 0]], uphill="left")
    assert a != Barrier("b", [[0, 0], [1, 0]], uphill="right")
    assert a == Barrier("b", [[0, 0], [1, 0]], uphill="left")
