"""Which release areas endanger a place: per cell the number of release areas whose rocks
reached it (``source_count.tif``), and per release area the outline of the cells its rocks
reached (``reach_outlines.gpkg``), from the per-source reach counts of the ensemble
(:attr:`tumble.rockfall.ensemble.reduce.EnsembleResult.reach`: rocks of each source whose centre
passed each cell).

An outline is the union of the DEM cells (each the pixel of its sample, ``dx`` by ``dy``) that
at least one rock of the area passed: a polygon or several, with the area's ``name``, its
``frequency`` (onset events per year, or none), ``rocks`` (released) and ``area_m2`` (of the
cells reached, in plan).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: the raster of this module
SOURCE_COUNT = "source_count"


def source_reach(
    reach: Mapping[str, np.ndarray], n_sources: int, shape: tuple[int, int]
) -> np.ndarray:
    """Boolean (n_sources, ny, nx): whether a rock of each source reached each cell."""
    size = shape[0] * shape[1]
    key = np.asarray(reach["reach_key"], dtype=np.int64)
    count = np.asarray(reach["reach_count"], dtype=np.int64)
    group, cell = np.divmod(key[count > 0], size)
    out = np.zeros((n_sources, size), dtype=bool)
    out[group, cell] = True
    return out.reshape(n_sources, *shape)


def source_count(reached: np.ndarray) -> np.ndarray:
    """Per cell, the number of sources that reached it (uint16: a quarter of the memory of
    float64 on a large DEM; counts above 65535 sources saturate)."""
    n = reached.shape[0]
    if n <= np.iinfo(np.uint16).max:
        return reached.sum(axis=0, dtype=np.uint16)
    return np.minimum(reached.sum(axis=0), np.iinfo(np.uint16).max).astype(np.uint16)


def write_source_count(
    terrain: Any, count: np.ndarray, directory: str | os.PathLike, ascii: bool = False
) -> Path:
    """``source_count.tif``: uint8, the release areas whose rocks reached the cell (0 where
    none did; 254 stands for 254 or more), nodata 255 in the DEM's holes; with ``ascii`` also
    ``source_count.asc``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    grid = np.minimum(count, 254).astype(np.float32)  # whole numbers, exact in float32
    grid[~np.isfinite(np.asarray(terrain.heights))] = np.nan
    if ascii:
        terrain.write_raster(directory / f"{SOURCE_COUNT}.asc", grid)
    return terrain.write_raster(
        directory / f"{SOURCE_COUNT}.tif",
        grid,
        nodata=255,
        dtype="uint8",
        description="number of release areas whose rocks' centres passed the cell",
        unit="release areas",
        cog=True,
        overviews="max",  # zoomed out: the most release areas of any cell of a block
    )


def outlines(terrain: Any, reached: np.ndarray) -> list[Any]:
    """Per source, the union of the pixels its rocks reached (a shapely geometry, empty when
    none): the pixels' edge-connected regions traced by GDAL's polygonize over the window of the
    reached cells (their holes included; regions that touch at a corner stay apart, as in a union
    of the pixels' squares), a Polygon or a MultiPolygon of them."""
    import shapely
    from rasterio.features import shapes
    from rasterio.transform import Affine

    out = []
    for mask in np.asarray(reached, dtype=bool):
        rows = np.flatnonzero(mask.any(axis=1))
        if rows.size == 0:
            out.append(shapely.union_all(np.empty(0, dtype=object)))
            continue
        cols = np.flatnonzero(mask.any(axis=0))
        j0, j1, i0, i1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        window = np.ascontiguousarray(mask[j0:j1, i0:i1])
        # row j of the window is the pixel y0 + (j0 + j - 1/2) dy .. y0 + (j0 + j + 1/2) dy
        transform = Affine(
            terrain.dx,
            0.0,
            terrain.x0 + (i0 - 0.5) * terrain.dx,
            0.0,
            terrain.dy,
            terrain.y0 + (j0 - 0.5) * terrain.dy,
        )
        parts: list[Any] = [
            shapely.geometry.shape(g)
            for g, _ in shapes(
                window.astype(np.uint8), mask=window, transform=transform, connectivity=4
            )
        ]
        out.append(parts[0] if len(parts) == 1 else shapely.MultiPolygon(parts))
    return out


def write_outlines(
    path: str | os.PathLike,
    geometries: Sequence[Any],
    names: Sequence[str],
    frequencies: Sequence[float | None],
    rocks: Sequence[int],
    crs: Any,
) -> Path:
    """``reach_outlines.gpkg``: one MultiPolygon per release area (module docstring)."""
    from tumble.io.vectors import write_multipolygons

    areas = [float(g.area) for g in geometries]
    return write_multipolygons(
        path,
        geometries,
        {
            "name": np.array(list(names), dtype=object),
            "frequency": np.array([np.nan if f is None else f for f in frequencies]),
            "rocks": np.asarray(rocks, dtype=np.int64),
            "area_m2": np.asarray(areas, dtype=np.float64),
        },
        crs,
    )
