"""Cloud-optimised GeoTIFFs of large grids written with little memory.

:func:`write_cog` writes a grid (or a window of one) by strips of :data:`STRIP_ROWS` rows into a
tiled GeoTIFF whose blocks without data are left out (``SPARSE_OK``), then lets GDAL copy it to
a cloud-optimised GeoTIFF (``COG`` driver, tiles of :data:`COG_BLOCKSIZE` pixels, deflate,
internal overviews) block by block: memory holds one strip in the file's type besides the grid,
and a raster that holds values over a small window of a large DEM is written from that window.
File formats only; :func:`tumble.io.dem.write_raster` validates the values first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: Tile size (pixels) of a cloud-optimised GeoTIFF.
COG_BLOCKSIZE = 256


#: rows of a grid converted to the file's type at a time
STRIP_ROWS = 1024


def write_rows(
    dataset: Any,
    grid: np.ndarray,
    holes: np.ndarray,
    offset: tuple[int, int],
    ny: int,
    dtype: str,
    nodata: float | None,
) -> None:
    """Write ``grid`` (rows growing with y) at ``offset`` (row, column) of a north-up file of
    ``ny`` rows, :data:`STRIP_ROWS` rows at a time (no full copy in the file's type)."""
    from rasterio.windows import Window

    rows, cols = grid.shape
    for a in range(0, rows, STRIP_ROWS):
        b = min(rows, a + STRIP_ROWS)
        with np.errstate(invalid="ignore"):  # holes cast to integers, overwritten just below
            block = np.ascontiguousarray(grid[a:b][::-1].astype(dtype))
        if nodata is not None and np.isfinite(nodata):
            block[holes[a:b][::-1]] = nodata
        top = ny - (offset[0] + b)
        dataset.write(block, 1, window=Window(offset[1], top, cols, b - a))


def write_cog(
    path: Path,
    profile: dict[str, Any],
    grid: np.ndarray,
    holes: np.ndarray,
    offset: tuple[int, int],
    integer: bool,
    description: str | None,
    unit: str | None,
) -> None:
    """A cloud-optimised GeoTIFF through a tiled sparse GeoTIFF written by strips, copied by
    GDAL block by block: memory takes one strip, not the grid again, and blocks with nodata
    only are left out of both files."""
    import rasterio
    import rasterio.shutil

    tiles = path.with_name(f".{path.name}.tiles.tif")
    staging = dict(
        profile,
        driver="GTiff",
        tiled=True,
        blockxsize=COG_BLOCKSIZE,
        blockysize=COG_BLOCKSIZE,
        sparse_ok=True,
        compress="deflate",
        zlevel=1,
        bigtiff="IF_SAFER",
    )
    try:
        with rasterio.open(tiles, "w", **staging) as dataset:
            write_rows(
                dataset, grid, holes, offset, profile["height"], profile["dtype"], profile["nodata"]
            )
            if description is not None:
                dataset.set_band_description(1, description)
            if unit is not None:
                dataset.set_band_unit(1, unit)
        rasterio.shutil.copy(
            tiles,
            path,
            driver="COG",
            compress="deflate",
            predictor="yes",
            blocksize=COG_BLOCKSIZE,
            overviews="auto",
            overview_resampling="nearest" if integer else "average",
            sparse_ok=True,
            bigtiff="IF_SAFER",
        )
    finally:
        tiles.unlink(missing_ok=True)


# --- coordinate reference systems and resampling ---------------------------------------------
