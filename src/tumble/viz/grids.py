"""Grids as maps draw them: a raster over a window of the DEM, decimated to what a figure shows.

A map never needs more cells than its pixels: a window wider than :data:`MAX_MAP_CELLS` cells
on a side is drawn from blocks of ``step x step`` cells (:func:`decimation`), the hazard values
as the block maxima (:func:`block_max`: a block shows the largest value of its cells, so that no
reached cell disappears) and the terrain from every ``step``-th sample. Figures of a large DEM
thus take memory for the window rocks reached, at most about 1000 x 1000 cells.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from tumble.rockfall.ensemble.rasters import Rasters

#: the largest side of a drawn grid, cells
MAX_MAP_CELLS = 1000


class Window(NamedTuple):
    """Index ranges ``rows``, ``cols`` (half-open) of the mapped part of the DEM."""

    j0: int
    j1: int
    i0: int
    i1: int


def decimation(rows: int, cols: int, most: int = MAX_MAP_CELLS) -> int:
    """The block side (cells) that brings a window of ``rows x cols`` to at most ``most``
    cells a side; 1 for a window that fits."""
    return max(1, math.ceil(max(rows, cols) / most))


def block_max(values: np.ndarray, step: int) -> np.ndarray:
    """Maxima over blocks of ``step x step`` cells from the first row and column (the last
    blocks may be partial), NaN where a block holds no number."""
    grid = np.asarray(values, dtype=np.float64)
    if step <= 1:
        return grid
    ny, nx = grid.shape
    by, bx = -(-ny // step), -(-nx // step)
    out = np.empty((by, bx))
    row = np.full(bx * step, np.nan)
    for b in range(by):  # one band of rows at a time: no padded copy of a large window
        row[:nx] = np.fmax.reduce(grid[b * step : (b + 1) * step], axis=0)
        out[b] = np.fmax.reduce(row.reshape(bx, step), axis=1)
    return out


def window_values(
    rasters: Mapping[str, np.ndarray], name: str, j0: int, j1: int, i0: int, i1: int
) -> np.ndarray:
    """Raster ``name`` over rows ``j0 .. j1 - 1`` and columns ``i0 .. i1 - 1`` of the DEM grid,
    without building the full grid of a :class:`~tumble.rockfall.ensemble.rasters.Rasters`."""
    if not isinstance(rasters, Rasters) or rasters.is_grid(name):
        return np.asarray(rasters[name][j0:j1, i0:i1], dtype=np.float64)
    out = np.full((j1 - j0, i1 - i0), rasters.background(name))
    w = rasters.window
    a0, a1, b0, b1 = max(j0, w.j0), min(j1, w.j1), max(i0, w.i0), min(i1, w.i1)
    if a0 < a1 and b0 < b1:
        out[a0 - j0 : a1 - j0, b0 - i0 : b1 - i0] = rasters.in_window(name)[
            a0 - w.j0 : a1 - w.j0, b0 - w.i0 : b1 - w.i0
        ]
    return out
