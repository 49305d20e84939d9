"""The polygon toolkit against hand-computed areas and point-in-region answers."""

import numpy as np

from tumble.rockfall.release.polygons import inside_rings, ring_area

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
