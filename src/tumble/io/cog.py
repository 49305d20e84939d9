"""Cloud-optimised GeoTIFFs of large grids written with little memory.

:func:`write_cog` writes a grid (or a window of one) by strips of :data:`STRIP_ROWS` rows into a
tiled GeoTIFF whose blocks without data are left out (``SPARSE_OK``), then lets GDAL copy it to
a cloud-optimised GeoTIFF (``COG`` driver, tiles of :data:`COG_BLOCKSIZE` pixels, deflate,
internal overviews) block by block: memory holds one strip in the file's type besides the grid,
and a raster that holds values over a small window of a large DEM is written from that window.
A grid of at most :data:`MEMORY_STAGING_BYTES` in the file's type is staged in GDAL's memory
driver instead (``MEM``): GDAL then copies the same cells without deflating the staging file
and reading it back, and writes the same file (blocks of nodata only are left out of it all
the same, since GDAL checks each block's values when it writes).
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

#: largest grid (bytes in the file's type) staged in memory rather than in a tiled file
MEMORY_STAGING_BYTES = 64 * 2**20


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
    """A cloud-optimised GeoTIFF through a staging raster copied by GDAL block by block: in
    memory for a grid of at most :data:`MEMORY_STAGING_BYTES`, else a tiled sparse GeoTIFF
    written by strips (memory takes one strip, not the grid again). Blocks with nodata only
    are left out of the file either way."""
    import rasterio

    size = profile["height"] * profile["width"] * np.dtype(profile["dtype"]).itemsize
    in_memory = size <= MEMORY_STAGING_BYTES
    tiles = path.with_name(f".{path.name}.tiles.tif")
    if in_memory:
        staging = dict(profile, driver="MEM")
    else:
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
        with rasterio.open("" if in_memory else tiles, "w", **staging) as dataset:
            if in_memory and grid.shape != (profile["height"], profile["width"]):
                # a window: the cells around it are nodata, as the sparse file's missing blocks
                dataset.write(
                    np.full(
                        (profile["height"], profile["width"]), profile["nodata"], staging["dtype"]
                    ),
                    1,
                )
            write_rows(
                dataset, grid, holes, offset, profile["height"], profile["dtype"], profile["nodata"]
            )
            if description is not None:
                dataset.set_band_description(1, description)
            if unit is not None:
                dataset.set_band_unit(1, unit)
            if in_memory:
                _copy_cog(dataset, path, integer)
        if not in_memory:
            _copy_cog(tiles, path, integer)
    finally:
        tiles.unlink(missing_ok=True)


def _copy_cog(source: Any, path: Path, integer: bool) -> None:
    """GDAL's copy of ``source`` (a dataset or a file) to the cloud-optimised GeoTIFF ``path``."""
    import rasterio.shutil

    rasterio.shutil.copy(
        source,
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


# --- coordinate reference systems and resampling ---------------------------------------------
