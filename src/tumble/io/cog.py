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

Overviews (what a GIS shows zoomed out) are GDAL's block averages for floats and nearest samples
for integers, or, with ``pooling`` ``"max"``, ``"min"`` or ``"absmax"``, the largest, the
smallest or the largest-magnitude valid value of each block (nodata where the block has none),
which GDAL 3.10 cannot compute for overviews: :func:`write_cog` then computes each level from
the one below (a maximum of maxima is the maximum of the block), writes it to a sparse tiled
file and lets the ``COG`` driver copy the raster and those levels as they are (a VRT whose band
lists them as its overviews, ``OVERVIEWS=FORCE_USE_EXISTING``). A map of maxima or of hazard
classes zoomed out then shows the most hazardous value of each block, not a mean that hides it.
Levels halve the raster until its larger side is at most :data:`COG_BLOCKSIZE`, as the ``COG``
driver's own do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

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


#: overview poolings :func:`write_cog` computes itself: the largest, the smallest, or the value
#: of the largest magnitude (a change: the larger of two opposite ones)
POOLINGS = ("max", "min", "absmax")


def _absmax(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Elementwise the one of ``x``, ``y`` of the larger magnitude (of equal magnitudes the
    larger value), NaN only where both are: the maximum under the order of (|v|, v), so that
    pooling it block by block is exact."""
    ax, ay = np.abs(x), np.abs(y)
    with np.errstate(invalid="ignore"):
        take_y = (ay > ax) | ((ay == ax) & (y > x)) | np.isnan(x)
    return np.where(take_y, y, x)


def _tiled(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile of a sparse tiled GeoTIFF staging file (fast deflate)."""
    return dict(
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


def overview_factors(ny: int, nx: int) -> list[int]:
    """The reduction factors of the overview levels of an ``ny`` x ``nx`` raster: 2, 4, ...
    up to the first level whose larger side is at most :data:`COG_BLOCKSIZE` (none for a
    raster that small)."""
    factors: list[int] = []
    f = 1
    while max(-(-ny // f), -(-nx // f)) > COG_BLOCKSIZE:
        f *= 2
        factors.append(f)
    return factors


def pool_blocks(values: np.ndarray, first: tuple[int, int], pooling: str) -> tuple:
    """The largest (``"max"``), smallest (``"min"``) or largest-magnitude (``"absmax"``)
    value of each 2 x 2 block of a raster of which ``values`` (rows from the top, NaN for
    nodata) is the window at row and column ``first``; returns the pooled window (NaN where a
    block has no value) and its first row and column. Blocks are those of the whole raster:
    rows ``2 R, 2 R + 1``."""
    r0, c0 = first
    top, left = r0 % 2, c0 % 2
    rows, cols = values.shape
    padded = np.full((-(-(rows + top) // 2) * 2, -(-(cols + left) // 2) * 2), np.nan)
    padded[top : top + rows, left : left + cols] = values
    # NaN only where all four are NaN
    reduce: Callable[[np.ndarray, np.ndarray], np.ndarray] = (
        _absmax if pooling == "absmax" else np.fmax if pooling == "max" else np.fmin
    )
    pooled = reduce(
        reduce(padded[0::2, 0::2], padded[1::2, 0::2]),
        reduce(padded[0::2, 1::2], padded[1::2, 1::2]),
    )
    return pooled, (r0 // 2, c0 // 2)


def _write_levels(
    base: Path,
    profile: dict[str, Any],
    grid: np.ndarray,
    offset: tuple[int, int],
    pooling: str,
) -> list[Path]:
    """Write the pooled overview levels of the raster whose window ``grid`` (rows growing with
    y, NaN nodata) lies at ``offset`` (row, column from the south) to sparse tiled files next
    to ``base``; returns their paths, finest first."""
    import rasterio
    from affine import Affine
    from rasterio.windows import Window

    ny, nx = profile["height"], profile["width"]
    from_top = grid[::-1]  # a view: rows from the top
    first = (ny - (offset[0] + grid.shape[0]), offset[1])
    paths = []
    values = from_top
    for factor in overview_factors(ny, nx):
        if factor == 2:
            # the first level by strips of rows (its blocks whole in each), each taken to
            # float64 in turn: no copy of the grid at once
            parts, start = [], 0
            while start < grid.shape[0]:
                stop = min(grid.shape[0], start + 2 * STRIP_ROWS - (first[0] + start) % 2)
                strip = np.asarray(from_top[start:stop], dtype=np.float64)
                parts.append(pool_blocks(strip, (first[0] + start, first[1]), pooling)[0])
                start = stop
            values, first = np.concatenate(parts), (first[0] // 2, first[1] // 2)
        else:
            values, first = pool_blocks(values, first, pooling)
        level = base.with_name(f".{base.name}.ov{factor}.tif")
        transform = profile["transform"] @ Affine.scale(factor, factor)
        shape = (-(-ny // factor), -(-nx // factor))
        rows = min(values.shape[0], shape[0] - first[0])
        cols = min(values.shape[1], shape[1] - first[1])
        block = values[:rows, :cols]
        with np.errstate(invalid="ignore"):  # NaN cast to integers, overwritten just below
            out = block.astype(profile["dtype"])
        out[np.isnan(block)] = profile["nodata"]
        level_profile = dict(profile, height=shape[0], width=shape[1], transform=transform)
        with rasterio.open(level, "w", **_tiled(level_profile)) as dataset:
            dataset.write(out, 1, window=Window(first[1], first[0], cols, rows))
        paths.append(level)
    return paths


_VRT_TYPES = {
    "float32": "Float32",
    "float64": "Float64",
    "uint32": "UInt32",
    "uint8": "Byte",
    "int8": "Int8",
}


def _overview_vrt(
    path: Path,
    source: Path,
    levels: list[Path],
    profile: dict[str, Any],
    description: str | None,
    unit: str | None,
) -> None:
    """A VRT of ``source`` whose band lists ``levels`` as its overviews."""
    t = profile["transform"]
    crs = profile["crs"]
    nodata = profile["nodata"]
    nodata_text = "nan" if np.isnan(nodata) else repr(float(nodata))
    overviews = "".join(
        f"<Overview><SourceFilename>{escape(str(p.resolve()))}</SourceFilename>"
        "<SourceBand>1</SourceBand></Overview>"
        for p in levels
    )
    path.write_text(
        f'<VRTDataset rasterXSize="{profile["width"]}" rasterYSize="{profile["height"]}">'
        + (f"<SRS>{escape(crs.to_wkt())}</SRS>" if crs is not None else "")
        + f"<GeoTransform>{t.c!r},{t.a!r},{t.b!r},{t.f!r},{t.d!r},{t.e!r}</GeoTransform>"
        f'<VRTRasterBand dataType="{_VRT_TYPES[profile["dtype"]]}" band="1">'
        + (f"<Description>{escape(description)}</Description>" if description else "")
        + f"<NoDataValue>{nodata_text}</NoDataValue>"
        + (f"<UnitType>{escape(unit)}</UnitType>" if unit else "")
        + f"<SimpleSource><SourceFilename>{escape(str(source.resolve()))}</SourceFilename>"
        "<SourceBand>1</SourceBand></SimpleSource>"
        f"{overviews}</VRTRasterBand></VRTDataset>",
        encoding="utf-8",
    )


def write_cog(
    path: Path,
    profile: dict[str, Any],
    grid: np.ndarray,
    holes: np.ndarray,
    offset: tuple[int, int],
    integer: bool,
    description: str | None,
    unit: str | None,
    pooling: str | None = None,
) -> None:
    """A cloud-optimised GeoTIFF through a staging raster copied by GDAL block by block: in
    memory for a grid of at most :data:`MEMORY_STAGING_BYTES`, else a tiled sparse GeoTIFF
    written by strips (memory takes one strip, not the grid again). Blocks with nodata only
    are left out of the file either way. ``pooling`` (:data:`POOLINGS`, checked by
    :func:`tumble.io.dem.write_raster`): overviews of block maxima, minima or largest
    magnitudes (module docstring; the staging raster is then always a file)."""
    import rasterio

    size = profile["height"] * profile["width"] * np.dtype(profile["dtype"]).itemsize
    in_memory = size <= MEMORY_STAGING_BYTES and pooling is None
    tiles = path.with_name(f".{path.name}.tiles.tif")
    vrt = path.with_name(f".{path.name}.vrt")
    levels: list[Path] = []
    staging = dict(profile, driver="MEM") if in_memory else _tiled(profile)
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
        if pooling is not None:
            levels = _write_levels(path, profile, grid, offset, pooling)
            _overview_vrt(vrt, tiles, levels, profile, description, unit)
            _copy_cog(vrt, path, integer, existing=True)
        elif not in_memory:
            _copy_cog(tiles, path, integer)
    finally:
        for staged in (tiles, vrt, *levels):
            staged.unlink(missing_ok=True)


def _copy_cog(source: Any, path: Path, integer: bool, existing: bool = False) -> None:
    """GDAL's copy of ``source`` (a dataset or a file) to the cloud-optimised GeoTIFF ``path``;
    ``existing``: the source's own overviews, copied as they are."""
    import rasterio.shutil

    rasterio.shutil.copy(
        source,
        path,
        driver="COG",
        compress="deflate",
        predictor="yes",
        blocksize=COG_BLOCKSIZE,
        overviews="force_use_existing" if existing else "auto",
        overview_resampling="nearest" if integer else "average",
        sparse_ok=True,
        bigtiff="IF_SAFER",
    )


# --- coordinate reference systems and resampling ---------------------------------------------
