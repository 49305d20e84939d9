"""The reach outline of a release area: exactly the union of the pixels its rocks reached."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import shapely

from tumble.rockfall.hazard.reach import outlines
from tumble.rockfall.release.polygons import cell_boxes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_outline_is_the_union_of_the_reached_pixels(seed):
    """Random masks (holes, pixels touching at a corner only, a source with no cell): the outline
    holds every reached pixel's centre and no other, its area is the pixels' (to 1e-9), and it
    equals the union of the pixels' squares (symmetric difference of area 0)."""
    rng = np.random.default_rng(seed)
    terrain = SimpleNamespace(x0=-8400.0, y0=194850.0, dx=2.0, dy=1.5)
    reached = rng.random((3, 30, 40)) < 0.45
    reached[1, 10:20, 10:20] = True
    reached[1, 14:16, 14:16] = False  # a hole
    reached[2] = False
    got = outlines(terrain, reached)
    ny, nx = reached.shape[1:]
    jj, ii = np.mgrid[0:ny, 0:nx]
    x = terrain.x0 + ii * terrain.dx
    y = terrain.y0 + jj * terrain.dy
    for mask, outline in zip(reached, got, strict=True):
        assert outline.is_valid
        if not mask.any():
            assert outline.is_empty
            continue
        assert np.array_equal(shapely.contains_xy(outline, x, y), mask)
        assert outline.area == pytest.approx(mask.sum() * terrain.dx * terrain.dy, rel=1e-9)
        boxes = cell_boxes(
            mask,
            terrain.x0 - 0.5 * terrain.dx,
            terrain.y0 - 0.5 * terrain.dy,
            terrain.dx,
            terrain.dy,
        )
        union = shapely.union_all(boxes)
        assert shapely.symmetric_difference(union, outline).area == pytest.approx(0.0, abs=1e-6)
