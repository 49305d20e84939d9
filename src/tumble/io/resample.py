"""A raster of any grid, extent and CRS put on a DEM's grid by nearest-neighbour resampling
(GDAL's warp): soil and forest class maps, forest inventories."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.io.dem import north_up_transform, raster_driver
from tumble.io.dem_checks import as_crs, crs_label


def resample_to_grid(
    path: str | os.PathLike,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    shape: tuple[int, int],
    crs: Any,
    what: str = "raster",
) -> np.ndarray:
    """Band 1 of the raster ``path`` on the grid ``(x0, y0, dx, dy, shape)`` in the CRS ``crs``
    (tumble's convention, rows south to north), by nearest-neighbour resampling: each sample
    takes the value of the source pixel holding it (GDAL's warp), NaN where the source has
    nodata or does not reach. The raster may have any grid, extent and CRS: a raster without a
    CRS, or a target without one, is taken to be in the same CRS as the other. DataError for a
    raster that cannot be read, does not overlap the grid or whose CRS cannot be transformed to
    ``crs``."""
    import rasterio
    from rasterio.errors import CRSError, RasterioIOError
    from rasterio.warp import Resampling, reproject, transform_bounds

    path = Path(path)
    raster_driver(path)
    if not path.is_file():
        raise DataError(f"{what} {path} does not exist")
    try:
        with rasterio.open(path) as dataset:
            source = dataset.read(1, masked=True).astype(np.float64).filled(np.nan)
            source_transform, source_crs = dataset.transform, dataset.crs
            bounds = dataset.bounds
    except RasterioIOError as err:
        raise DataError(f"cannot read {what} {path}: {err}") from None
    target_crs = as_crs(crs)
    if source_crs is None or target_crs is None:
        # one side has no CRS: it is taken to be the other's (a placeholder when neither has one;
        # the warp between identical CRSs is the identity either way)
        source_crs = target_crs = source_crs or target_crs or as_crs("EPSG:3857")
    ny, nx = shape
    transform = north_up_transform(x0, y0, dx, dy, ny)
    extent = (transform.c, transform.f - ny * dy, transform.c + nx * dx, transform.f)
    if source_crs is not None and source_crs != target_crs:
        try:
            bounds = transform_bounds(source_crs, target_crs, *bounds)
        except (CRSError, Exception) as err:
            raise DataError(
                f"{what} {path} is in {crs_label(source_crs)}, which cannot be transformed to "
                f"the DEM's {crs_label(target_crs)}: {err}"
            ) from None
        if not all(np.isfinite(bounds)):
            raise DataError(
                f"{what} {path} is in {crs_label(source_crs)}, which cannot be transformed to "
                f"the DEM's {crs_label(target_crs)}"
            )
    left, bottom, right, top = bounds
    if left >= extent[2] or right <= extent[0] or bottom >= extent[3] or top <= extent[1]:
        raise DataError(
            f"{what} {path} does not overlap the DEM: it covers x in [{left:.6g}, {right:.6g}], "
            f"y in [{bottom:.6g}, {top:.6g}], the DEM x in [{extent[0]:.6g}, {extent[2]:.6g}], "
            f"y in [{extent[1]:.6g}, {extent[3]:.6g}] (in the DEM's CRS)"
        )
    out = np.full(shape, np.nan)
    try:
        reproject(
            source,
            out,
            src_transform=source_transform,
            src_crs=source_crs,
            src_nodata=np.nan,
            dst_transform=transform,
            dst_crs=target_crs,
            dst_nodata=np.nan,
            resampling=Resampling.nearest,
        )
    except Exception as err:
        raise DataError(f"cannot resample {what} {path} to the DEM's grid: {err}") from None
    return np.array(out[::-1], dtype=np.float64, order="C")
