"""The polygon toolkit against hand-computed areas and point-in-region answers."""

import numpy as np
import pytest

from tumble.rockfall.release.polygons import EvenOddGrid, inside_rings, ring_area

SQUARE = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])
HOLE = np.array([[1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0]])


def test_ring_area_is_the_shoelace_area_in_either_orientation_open_or_closed():
    assert ring_area(SQUARE) == 16.0
    assert ring_area(SQUARE[::-1]) == 16.0
    assert ring_area(np.vstack([SQUARE, SQUARE[:1]])) == 16.0
    triangle = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 2.0]])
    assert ring_area(triangle) == 3.0


def test_inside_rings_follows_the_even_odd_rule_over_holes_and_parts():
    x = np.array([0.5, 1.5, 3.5, 5.0, 6.5])
    y = np.array([0.5, 1.5, 3.5, 0.5, 0.5])
    part = np.array([[6.0, 0.0], [7.0, 0.0], [7.0, 1.0], [6.0, 1.0]])
    inside = inside_rings(x, y, [SQUARE, HOLE, part])
    # in the square, in its hole, in the square, outside everything, in the second part
    np.testing.assert_array_equal(inside, [True, False, True, False, True])
    np.testing.assert_array_equal(inside_rings(x, y, []), [False] * 5)


def _near_edges(rings, rng, far):
    """Points on, just beside and at the ends of every edge of ``rings`` (the points where the
    crossing count is decided by round-off), with ``far`` uniform points over their box."""
    closed = np.vstack([np.vstack([r, r[:1]]) for r in rings])
    a, b = closed[:-1], closed[1:]
    s = rng.random((a.shape[0], 1))
    on = a + s * (b - a)
    points = [on, on + 1e-9, np.nextafter(on, np.inf), np.nextafter(on, -np.inf), a]
    points.append(np.column_stack([np.nextafter(a[:, 0], np.inf), a[:, 1]]))
    lo, hi = closed.min(axis=0), closed.max(axis=0)
    points.append(lo - 1.0 + rng.random((far, 2)) * (hi - lo + 2.0))
    return np.vstack(points)


@pytest.mark.parametrize(
    "rings",
    [
        [SQUARE, HOLE],
        # a bow tie (its two triangles inside) and a second part with a hole, far from the origin
        [
            np.array([[0.0, 0.0], [3.0, 2.0], [3.0, 0.0], [0.0, 2.0]]) + (2.6e6, 1.2e6),
            SQUARE * 7.3 + (2.6e6 + 5.0, 1.2e6 + 0.1),
            HOLE * 7.3 + (2.6e6 + 5.0, 1.2e6 + 0.1),
        ],
        # a sliver of 1 mm over 100 m and a many-sided ring of random radii
        [np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 0.001], [0.0, 0.0005]])],
        [
            np.column_stack(
                [
                    np.cos(np.linspace(0.0, 2.0 * np.pi, 500, endpoint=False)),
                    np.sin(np.linspace(0.0, 2.0 * np.pi, 500, endpoint=False)),
                ]
            )
            * np.random.default_rng(3).uniform(50.0, 100.0, (500, 1))
            + (273_000.0, 358_000.0)
        ],
    ],
    ids=["hole", "bow_tie_and_part_far_away", "sliver", "many_sides"],
)
def test_even_odd_grid_gives_the_booleans_of_inside_rings(rings):
    """The grid's answers are those of the test over every edge, bit for bit, also on the
    edges, at the vertices and one unit of the last place beside them."""
    rng = np.random.default_rng(11)
    points = _near_edges(rings, rng, 20_000)
    grid = EvenOddGrid(rings)
    want = inside_rings(points[:, 0], points[:, 1], rings)
    np.testing.assert_array_equal(grid.inside(points[:, 0], points[:, 1]), want)
    # the grid decides most points without the edges (else it would gain nothing); a sliver
    # one cell high is crossed everywhere and tested against its edges only
    crossed = np.count_nonzero(grid.cells == 2) / grid.cells.size
    assert crossed == 1.0 if grid.cells.shape[0] == 1 else crossed < 0.5
    assert want.any() and not want.all()


def test_even_odd_grid_of_no_rings_holds_no_point():
    grid = EvenOddGrid([])
    np.testing.assert_array_equal(grid.inside(np.array([0.0, 1.0]), np.zeros(2)), [False] * 2)
