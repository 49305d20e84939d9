"""The first tries of many rocks' release places at once, the same places as one rock at a time.

A rock's place inside a polygon or in a source raster's cell is drawn from its own stream by
tries (:meth:`tumble.rockfall.site.areas.ReleaseAreas.place`, :meth:`Release._place
<tumble.rockfall.release.Release>`): a try takes a fixed number of uniforms and either gives the
place or is followed by the next. The functions here take the first uniforms of every rock's
stream (:func:`tumble.rockfall.release.streams.first_uniforms`, ``(n, m)``), make as many whole
tries as ``m`` holds for all rocks at once with the same arithmetic, and return

* ``xy`` (n, 2): the place of each rock whose place was found in those tries,
* ``used`` (n,): how many uniforms its place took (its orientation's uniforms follow), -1 for
  a rock whose place was not found in them (left to the rock-by-rock draw).

The floating-point operations are those of the rock-by-rock draw, element by element, and the
point-in-polygon test is :class:`tumble.rockfall.release.polygons.EvenOddGrid`, which gives
:func:`~tumble.rockfall.release.polygons.inside_rings`'s booleans: every place is the same to
the last bit (``tests/rockfall/release/test_first_places.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tumble.rockfall.release.polygons import EvenOddGrid

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain


def _not_found(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.full((n, 2), np.nan), np.full(n, -1, dtype=np.int64)


def _on_terrain(terrain: Terrain | None, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if terrain is None or x.size == 0:
        return np.ones(x.shape, dtype=bool)
    return np.asarray(terrain.contains(x, y), dtype=bool).reshape(x.shape)


def _first_true(hits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(any, first)`` along the last axis of the boolean (n, t) ``hits``."""
    return np.asarray(hits.any(axis=1)), np.argmax(hits, axis=1)


def box_batches(
    uniforms: np.ndarray,
    box: np.ndarray,
    grid: EvenOddGrid | None,
    terrain: Terrain | None,
    batch: int,
    on_terrain_first: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Tries of ``batch`` pairs of uniforms in each rock's box ``(x_min, x_max, y_min, y_max)``
    (``box`` (n, 4), or (4,) for all), each try's first point inside ``grid``'s rings (all
    points without ``grid``) and, with ``on_terrain_first``, on ``terrain`` (the plain draw in
    a polygon area). Without it (the draw in a stratified cell), a rock's place is its first
    point inside the rings when that is on ``terrain``; when it is not, the rock is left to the
    rock-by-rock draw. Returns ``(xy, used)`` (module docstring)."""
    n, m = uniforms.shape
    xy, used = _not_found(n)
    box = np.broadcast_to(np.asarray(box, dtype=np.float64), (n, 4))
    x_min, x_max, y_min, y_max = (box[:, c : c + 1] for c in range(4))
    todo = np.arange(n)
    for t in range(m // (2 * batch)):
        pairs = uniforms[todo, 2 * batch * t : 2 * batch * (t + 1)]
        xs = x_min[todo] + pairs[:, 0::2] * (x_max[todo] - x_min[todo])
        ys = y_min[todo] + pairs[:, 1::2] * (y_max[todo] - y_min[todo])
        if grid is None:
            inside = np.ones(xs.shape, dtype=bool)
        else:
            inside = grid.inside(xs.ravel(), ys.ravel()).reshape(xs.shape)
        if on_terrain_first and terrain is not None:
            rows, cols = np.nonzero(inside)
            inside[rows, cols] = _on_terrain(terrain, xs[rows, cols], ys[rows, cols])
        done, first = _first_true(inside)
        rows = np.flatnonzero(done)
        x, y = xs[rows, first[rows]], ys[rows, first[rows]]
        if not on_terrain_first:
            # the first point inside decides: off the terrain, the rock-by-rock draw goes on
            keep = _on_terrain(terrain, x, y)
            rows, x, y = rows[keep], x[keep], y[keep]
        xy[todo[rows], 0], xy[todo[rows], 1] = x, y
        used[todo[rows]] = 2 * batch * (t + 1)
        todo = todo[~done]
        if todo.size == 0:
            break
    return xy, used


def raster_tries(
    uniforms: np.ndarray, cdf: np.ndarray, cells: np.ndarray, terrain: Terrain | None
) -> tuple[np.ndarray, np.ndarray]:
    """Tries of three uniforms in a source raster (cumulative weights ``cdf`` (m,), ``cells``
    (m, 4) ``x_min, x_max, y_min, y_max``): the cell by the first, the point in it by the next
    two, until it lies on ``terrain``. Returns ``(xy, used)`` (module docstring)."""
    n, m = uniforms.shape
    xy, used = _not_found(n)
    todo = np.arange(n)
    for t in range(m // 3):
        u = uniforms[todo, 3 * t] * float(cdf[-1])
        i = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1)
        x_min, x_max, y_min, y_max = (cells[i, c] for c in range(4))
        a, b = uniforms[todo, 3 * t + 1], uniforms[todo, 3 * t + 2]
        x, y = x_min + a * (x_max - x_min), y_min + b * (y_max - y_min)
        ok = _on_terrain(terrain, x, y)
        xy[todo[ok], 0], xy[todo[ok], 1] = x[ok], y[ok]
        used[todo[ok]] = 3 * (t + 1)
        todo = todo[~ok]
        if todo.size == 0:
            break
    return xy, used
