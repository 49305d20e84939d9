"""Checks of a terrain's grids before the engine uses them: read-only float64 copies, nodata
holes, a surface normal that is defined everywhere, and whole numbers of cells.

The normal is that of the bilinear surface of Leine et al. 2014, eq. 7
(:mod:`tumble.rockfall.step.surface`): ``(-dh_x dy, -dh_y dx, dx dy)`` normalised.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike


def frozen_grid(values: ArrayLike, what: str) -> np.ndarray:
    """C-contiguous read-only float64 copy of a 2-D grid (no copy if it is already one)."""
    try:
        grid = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be a 2-D array of numbers: {err}") from None
    if grid.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (ny, nx); got shape {grid.shape}")
    reusable = (
        grid.flags.c_contiguous and grid.flags.owndata and not grid.flags.writeable
    ) and grid is values
    if not reusable:
        grid = np.array(grid, dtype=np.float64, order="C", copy=True)
        grid.flags.writeable = False
    return grid


def holes_message(
    grid: np.ndarray, what: str, x0: float, y0: float, dx: float, dy: float
) -> str | None:
    bad = ~np.isfinite(grid)
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    j, i = np.argwhere(bad)[0]
    return (
        f"{what} has {count} nodata cells (holes) out of {grid.size}, the first at "
        f"x = {x0 + i * dx:.6g}, y = {y0 + j * dy:.6g}; fill them before use (e.g. with "
        "gdal_fillnodata.py or an interpolation) or crop to a region without holes"
    )


def has_full_cell(holes: np.ndarray) -> bool:
    """Whether some cell of a grid with these nodata samples has four valid corners."""
    full = ~(holes[:-1, :-1] | holes[1:, :-1] | holes[:-1, 1:] | holes[1:, 1:])
    return bool(full.any())


#: rows of the DEM checked at a time by :func:`degenerate_message`
CHECK_ROWS = 512

#: components of the unnormalised surface normal (L14 eq. 7) above this could overflow its norm
NORMAL_LIMIT = 1e150


def degenerate_message(
    heights: np.ndarray, x0: float, y0: float, dx: float, dy: float
) -> str | None:
    """Why the surface normal of the grid is undefined somewhere, or None.

    The normal of :mod:`tumble.rockfall.step.surface` is ``(-dh_x dy, -dh_y dx, dx dy)`` normalised:
    it needs distinct sample coordinates (a spacing too small for the origin in float64 puts
    neighbouring samples on one coordinate: duplicate samples, a cell of no width), a cell area
    ``dx dy`` that is a normal float (neither zero by underflow nor infinite), and height
    differences whose products with the spacing stay far from overflow."""
    ny, nx = heights.shape
    for name, origin, step, n in (("x", x0, dx, nx), ("y", y0, dy, ny)):
        coords = origin + step * np.arange(n, dtype=np.float64)
        if not np.all(np.isfinite(coords)) or np.any(np.diff(coords) <= 0.0):
            return (
                f"the DEM's {name} coordinates are degenerate: spacing d{name} = {step:g} at "
                f"origin {origin:g} puts neighbouring samples on the same coordinate in float64 "
                "(duplicate samples, cells of no width); the terrain normal is undefined"
            )
    area = dx * dy
    if not (np.isfinite(area) and area >= np.finfo(np.float64).tiny):
        return f"the DEM's cell area dx dy = {dx:g} x {dy:g} is not representable; rescale the grid"
    # nodata samples (NaN) are holes, checked elsewhere; the finite differences decide here.
    # Over blocks of rows, so that a large DEM needs no full-size temporaries
    steepest = area
    with np.errstate(over="ignore", invalid="ignore"):
        for j0 in range(0, ny, CHECK_ROWS):
            block = heights[j0 : j0 + CHECK_ROWS + 1]
            n_x = np.abs(np.diff(block[:CHECK_ROWS], axis=1)) * dy
            n_y = np.abs(np.diff(block, axis=0)) * dx
            for n in (n_x, n_y):
                if n.size:
                    largest = float(np.fmax.reduce(n, axis=None))
                    if not math.isnan(largest):
                        steepest = max(steepest, largest)
    if not steepest < NORMAL_LIMIT:
        return (
            "the DEM's height differences are too large for its spacing (the terrain normal "
            "overflows); check the heights' unit and nodata value"
        )
    return None


def whole_cells(length: float, spacing: float, what: str) -> int:
    if not (np.isfinite(length) and np.isfinite(spacing) and length > 0 and spacing > 0):
        raise ValueError(
            f"{what}: size and spacing must be finite and positive; got {length}, {spacing}"
        )
    cells = round(length / spacing)
    if cells < 1 or abs(cells * spacing - length) > 1e-9 * length:
        raise ValueError(f"{what}: size {length} is not a whole number of cells of {spacing}")
    return cells
