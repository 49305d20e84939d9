"""Which release areas endanger a place: ``tumble rockfall sources RUN --at X,Y`` (or a polygon
file), read from a finished run folder.

A release area endangers the place when its reach outline (``reach_outlines.gpkg``: the union of
the DEM cells its rocks' centres passed) contains the point or meets the polygon. Each is listed
with its frequency (onset events per year, or none), its rocks, and the energies of the run's
maps at the place (``kinetic_energy_max`` and ``kinetic_energy_p95`` with its 95 % interval, and
the reach probability with its interval: at the point, or the largest over the polygon's cells),
which are those of all release areas together.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.io import run_folder as layout

#: raster values reported at the place
PLACE_RASTERS = (
    "reach_probability",
    "reach_probability_low",
    "reach_probability_high",
    "kinetic_energy_max",
    "kinetic_energy_p95",
    "kinetic_energy_p95_low",
    "kinetic_energy_p95_high",
    "energy_line_angle",
    "source_count",
)


def sources_at(
    run: str | os.PathLike,
    at: tuple[float, float] | None = None,
    polygon: str | os.PathLike | None = None,
) -> dict[str, Any]:
    """The release areas whose rocks reached the point ``at`` or the polygons of the file
    ``polygon`` (module docstring): ``{"place", "sources": [{name, frequency, rocks}],
    "values": {raster: value}}``."""
    import pyogrio.raw
    import shapely

    paths = layout.RunPaths(run)
    outline_file = paths.path / layout.REACH_OUTLINES_GPKG
    if not paths.finished or not outline_file.is_file():
        raise DataError(f"{paths.path} is not a finished run with {layout.REACH_OUTLINES_GPKG}")
    if (at is None) == (polygon is None):
        raise ValueError("give a point (--at X,Y) or a polygon file, not both or neither")
    info = pyogrio.raw.read(outline_file)
    names = list(info[0]["fields"])
    columns = dict(zip(names, info[3], strict=True))
    geometries: list[Any] = list(np.asarray(shapely.from_wkb(info[2]), dtype=object))
    place: Any
    if at is not None:
        place = shapely.Point(*at)
        described = f"point {at[0]:.2f}, {at[1]:.2f}"
    else:
        from tumble.io.vectors import read_polygons

        assert polygon is not None
        parts, _, _ = read_polygons(polygon)
        shapes = [shapely.Polygon(rings[0], rings[1:]) for feature in parts for rings in feature]
        if not shapes:
            raise DataError(f"{polygon} holds no polygon")
        place = shapely.union_all(shapes)
        described = f"polygon {Path(polygon).name}"
    hits = [
        k
        for k, g in enumerate(geometries)
        if g is not None and not g.is_empty and g.intersects(place)
    ]
    sources = [
        {
            "name": str(columns["name"][k]),
            "frequency": None
            if not np.isfinite(columns["frequency"][k])
            else float(columns["frequency"][k]),
            "rocks": int(columns["rocks"][k]),
        }
        for k in hits
    ]
    return {"place": described, "sources": sources, "values": _values(paths, place)}


def _values(paths: layout.RunPaths, place: Any) -> dict[str, float | None]:
    """The largest value of each of :data:`PLACE_RASTERS` over the cells of the place (the
    cell of a point; the cells whose pixel meets a polygon)."""
    import rasterio
    import rasterio.features

    out: dict[str, float | None] = {}
    for name in PLACE_RASTERS:
        path = paths.raster(name)
        if not path.is_file():
            continue
        with rasterio.open(path) as src:
            band = src.read(1, masked=True).astype(np.float64).filled(np.nan)
            if place.geom_type == "Point":
                row, col = src.index(place.x, place.y)
                inside = 0 <= row < src.height and 0 <= col < src.width
                values = np.array([band[row, col]]) if inside else np.zeros(0)
            else:
                mask = rasterio.features.geometry_mask(
                    [place], band.shape, src.transform, all_touched=True, invert=True
                )
                values = band[mask]
        finite = values[np.isfinite(values)]
        low = name.endswith("_low") or name == "energy_line_angle"
        out[name] = None if finite.size == 0 else float(finite.min() if low else finite.max())
    return out
