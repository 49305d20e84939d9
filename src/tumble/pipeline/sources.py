"""Which release areas and rocks endanger a place: ``tumble rockfall sources RUN --at X,Y`` (or a
polygon file), read from a finished run folder.

The place is a point in the DEM's coordinates (its cell: the pixel of the run's GeoTIFFs that
holds it) or the polygons of a vector file (transformed to the DEM's CRS when the file has
another; its cells: the pixels it touches). A point off the DEM, or a polygon that touches no
pixel of it, is refused (:class:`~tumble.errors.DemError`).

* ``rocks`` (runs with ``output.visits = true``, from ``visits.parquet``,
  :mod:`tumble.pipeline.visits`): every rock whose centre passed a cell of the place, in rock
  order, with its release area and its largest kinetic energy, speed, rotation rate and jump
  height over the place's cells, its smallest energy-line angle there and the number of the
  place's cells it passed. At one cell there are ``reach_probability * n_rocks`` of them. A run
  without the table has ``rocks`` None and a ``note`` that says how to get them.
* ``sources``: the release areas whose rocks reached the place, with their frequency (onset
  events per year, or none) and the rocks they released; with the visits also how many of
  their rocks reached it and the largest energy among those. Without the visits, a release area
  is listed when its reach outline (``reach_outlines.gpkg``, the union of the pixels its rocks
  passed) holds the centre of a cell of the place.
* ``values``: the run's maps at the place (those of all release areas together): at the
  point's cell, or the largest over the polygon's cells (the smallest energy-line angle), each
  interval's bounds those of the cell of its value. With the visits, a polygon's
  ``reach_probability`` is the place's own: the share of the rocks that passed any of its cells,
  with its Clopper-Pearson interval (``reach_probability_of`` says so). Nodata cells of the DEM
  are no part of a place, and a place with no other cell is refused.
* ``reached``: whether any rock of the run passed a cell of the place (``passing_count``); when
  none did, the reach probability is 0 with the Clopper-Pearson upper bound of 0 of ``n_rocks``
  rocks (``1 - 0.025^(1/n)``) as ``reach_probability_high``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError, DemError
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
    # zoned runs (release areas with frequencies): the zone code (0 none, 1 yellow, 2 blue,
    # 3 red; over a polygon the highest) and the annual frequencies
    "hazard_zone",
    "reach_frequency",
    "frequency_exceeding_30kJ",
    "frequency_exceeding_300kJ",
)
#: said when a run has no visits table
NO_VISITS = (
    "this run kept no per-rock visits, so its rocks at the place cannot be listed; run it "
    "again with output.visits = true (e.g. tumble rockfall run ... output.visits=true) to "
    "write visits.parquet"
)


@dataclass(frozen=True)
class _Grid:
    """The DEM grid of a run folder as the engine holds it (pixel centres from ``(x0, y0)``,
    ``y`` growing with ``j``), its north-up ``transform`` and ``crs``."""

    nx: int
    ny: int
    x0: float
    y0: float
    dx: float
    dy: float
    transform: Any
    crs: Any

    @property
    def heights(self) -> np.ndarray:
        """An array of the grid's shape taking no memory (what ``nearest_cells`` reads)."""
        return np.broadcast_to(np.int8(0), (self.ny, self.nx))


def _grid(paths: layout.RunPaths) -> _Grid:
    import rasterio

    with rasterio.open(paths.dem) as src:
        t = src.transform
        ny, nx = src.height, src.width
        dx, dy = float(t.a), float(-t.e)
        x0 = float(t.c) + 0.5 * dx
        y0 = float(t.f) - ny * dy + 0.5 * dy
        return _Grid(nx, ny, x0, y0, dx, dy, t, src.crs)


def sources_at(
    run: str | os.PathLike,
    at: tuple[float, float] | None = None,
    polygon: str | os.PathLike | None = None,
) -> dict[str, Any]:
    """The release areas and rocks that reached the point ``at`` or the polygons of the file
    ``polygon`` (module docstring): ``{"place", "cells", "reached", "sources", "rocks",
    "values", "note"}``."""
    from tumble.rockfall.ensemble.rasters import nearest_cells

    paths = layout.RunPaths(run)
    if not paths.finished or not paths.dem.is_file():
        raise DataError(f"{paths.path} is not a finished run folder (no summary.json or DEM)")
    if (at is None) == (polygon is None):
        raise ValueError("give a point (--at X,Y) or a polygon file, not both or neither")
    grid = _grid(paths)
    if at is not None:
        x, y = float(at[0]), float(at[1])
        cells = nearest_cells(grid, np.array([x]), np.array([y]))
        if not (np.isfinite(x) and np.isfinite(y)) or cells[0] < 0:
            b = _bounds(grid)
            raise DemError(
                f"point {_metres(x)}, {_metres(y)} is outside the DEM of {paths.path} (x from "
                f"{_metres(b[0])} to {_metres(b[2])}, y from {_metres(b[1])} to {_metres(b[3])}, "
                "in its CRS"
                f"{'' if grid.crs is None else ' ' + str(grid.crs)}); give DEM coordinates"
            )
        described = f"point {x:.2f}, {y:.2f}"
    else:
        assert polygon is not None
        cells = _polygon_cells(grid, Path(polygon))
        described = f"polygon {Path(polygon).name}"
    # the run knows nothing of nodata cells: a place there is refused, as a release there is
    on_data = np.isfinite(_read_cells(paths.dem, grid, cells))
    if not on_data.any():
        raise DemError(
            f"the {described} lies in a nodata area of the DEM of {paths.path}: no rock can "
            "reach it and the run's maps hold no value there; give a place on the DEM's data"
        )
    cells = cells[on_data]
    reached_cells = _passed(paths, grid, cells)
    record: dict[str, Any] = {
        "place": described,
        "cells": int(cells.size),
        "reached": bool(reached_cells.size),
        "sources": [],
        "rocks": None,
        "values": _values(paths, grid, cells),
        "note": None,
    }
    n_rocks = int(paths.read_json(paths.summary)["n_rocks"])
    if not reached_cells.size:
        # none of the n rocks came: the reach probability is 0, below the Clopper-Pearson bound
        record["n_rocks"] = n_rocks
        record["values"].update(_place_probability(0, n_rocks))
    info = _outline_info(paths)
    if paths.visits.is_file():
        rocks = _rocks(paths.visits, cells)
        record["rocks"] = rocks
        record["sources"] = _sources_of_rocks(rocks, info)
        if cells.size > 1:
            # the place's own reach probability (not the busiest cell's)
            record["values"].update(_place_probability(len(rocks), n_rocks))
            record["reach_probability_of"] = "the place (rocks that passed any of its cells)"
    else:
        record["note"] = NO_VISITS
        record["sources"] = _sources_of_outlines(paths, grid, cells, info)
    return record


def _place_probability(reaching: int, n_rocks: int) -> dict[str, float]:
    """The share of the ``n_rocks`` rocks that reached the place, ``reaching`` of them, with its
    Clopper-Pearson interval."""
    from tumble.rockfall.ensemble.intervals import clopper_pearson

    low, high = clopper_pearson(np.array([float(reaching)]), n_rocks)
    return {
        "reach_probability": reaching / n_rocks,
        "reach_probability_low": float(low[0]),
        "reach_probability_high": float(high[0]),
    }


def _metres(value: float) -> str:
    """A coordinate to the centimetre without trailing zeros (``2600190``, not ``2.60019e+06``:
    national grids have seven digits)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _bounds(grid: _Grid) -> tuple[float, float, float, float]:
    """The DEM's extent (the outer edges of its pixels)."""
    return (
        grid.x0 - 0.5 * grid.dx,
        grid.y0 - 0.5 * grid.dy,
        grid.x0 + (grid.nx - 0.5) * grid.dx,
        grid.y0 + (grid.ny - 0.5) * grid.dy,
    )


def _polygon_cells(grid: _Grid, path: Path) -> np.ndarray:
    """The cells ``j nx + i`` whose pixels the polygons of ``path`` touch, in the DEM's CRS."""
    import rasterio.features
    import shapely

    from tumble.io.vectors import read_polygons, transform_xy

    parts, _, crs = read_polygons(path)
    moved = crs is not None and grid.crs is not None and crs != grid.crs
    if moved:
        from rasterio.crs import CRS

        moved = CRS.from_user_input(crs) != CRS.from_user_input(grid.crs)
    shapes = []
    for feature in parts:
        for rings in feature:
            if moved:
                rings = [
                    np.column_stack(transform_xy(r[:, 0], r[:, 1], crs, grid.crs)) for r in rings
                ]
            shapes.append(shapely.Polygon(rings[0], rings[1:]))
    if not shapes:
        raise DataError(f"{path} holds no polygon")
    mask = rasterio.features.geometry_mask(
        [shapely.union_all(shapes)],
        (grid.ny, grid.nx),
        grid.transform,
        all_touched=True,
        invert=True,
    )
    row, col = np.nonzero(mask)
    if row.size == 0:
        b = _bounds(grid)
        raise DemError(
            f"the polygons of {path} lie outside the DEM (x from {_metres(b[0])} to "
            f"{_metres(b[2])}, y from {_metres(b[1])} to {_metres(b[3])}, in its CRS); give "
            "polygons on the DEM"
        )
    return np.sort((grid.ny - 1 - row) * grid.nx + col).astype(np.int64)


def _read_cells(path: Path, grid: _Grid, cells: np.ndarray) -> np.ndarray:
    """The values of the GeoTIFF ``path`` at ``cells`` (float64, NaN at nodata), read in the
    window that holds them."""
    import rasterio
    from rasterio.windows import Window

    row = grid.ny - 1 - cells // grid.nx
    col = cells % grid.nx
    r0, c0 = int(row.min()), int(col.min())
    window = Window(c0, r0, int(col.max()) - c0 + 1, int(row.max()) - r0 + 1)
    with rasterio.open(path) as src:
        band = src.read(1, window=window, masked=True).astype(np.float64).filled(np.nan)
    return band[row - r0, col - c0]


def _passed(paths: layout.RunPaths, grid: _Grid, cells: np.ndarray) -> np.ndarray:
    """The cells of the place that some rock passed (``passing_count`` > 0)."""
    count = _read_cells(paths.raster("passing_count"), grid, cells)
    return cells[np.isfinite(count) & (count > 0)]


def _values(paths: layout.RunPaths, grid: _Grid, cells: np.ndarray) -> dict[str, float | None]:
    """Each of :data:`PLACE_RASTERS` at the place: over several cells the largest value (the
    smallest energy-line angle), and an interval's bounds those of the cell of that value (an
    interval of one cell, not bounds gathered from several)."""
    out: dict[str, float | None] = {}
    at: dict[str, int | None] = {}
    for name in PLACE_RASTERS:
        path = paths.raster(name)
        if not path.is_file():
            continue
        values = _read_cells(path, grid, cells)
        base = name.removesuffix("_low").removesuffix("_high")
        if base != name and at.get(base) is not None:
            value = values[at[base]]
            out[name] = float(value) if np.isfinite(value) else None
            continue
        finite = np.isfinite(values)
        if not finite.any():
            out[name], at[name] = None, None
            continue
        pick = np.where(finite, values, np.inf if name == "energy_line_angle" else -np.inf)
        k = int(np.argmin(pick) if name == "energy_line_angle" else np.argmax(pick))
        out[name], at[name] = float(values[k]), k
    return out


def _outline_info(paths: layout.RunPaths) -> dict[str, dict[str, Any]]:
    """Per release area of ``reach_outlines.gpkg``: its frequency, rocks and outline."""
    import pyogrio.raw
    import shapely

    path = paths.path / layout.REACH_OUTLINES_GPKG
    if not path.is_file():
        return {}
    info = pyogrio.raw.read(path)
    columns = dict(zip(list(info[0]["fields"]), info[3], strict=True))
    geometries = list(np.asarray(shapely.from_wkb(info[2]), dtype=object))
    out = {}
    for k, name in enumerate(columns["name"]):
        frequency = float(columns["frequency"][k])
        out[str(name)] = {
            "frequency": frequency if np.isfinite(frequency) else None,
            "rocks": int(columns["rocks"][k]),
            "outline": geometries[k],
        }
    return out


def _sources_of_outlines(
    paths: layout.RunPaths, grid: _Grid, cells: np.ndarray, info: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The release areas whose reach outline holds the centre of a cell of the place."""
    import shapely

    if not info:
        raise DataError(
            f"{paths.path} holds neither {layout.VISITS_PARQUET} nor "
            f"{layout.REACH_OUTLINES_GPKG}; {NO_VISITS}"
        )
    x = grid.x0 + (cells % grid.nx) * grid.dx
    y = grid.y0 + (cells // grid.nx) * grid.dy
    out = []
    for name, item in info.items():
        g = item["outline"]
        if g is not None and not g.is_empty and bool(np.any(shapely.contains_xy(g, x, y))):
            out.append({"name": name, "frequency": item["frequency"], "rocks": item["rocks"]})
    return out


def _rocks(path: Path, cells: np.ndarray) -> list[dict[str, Any]]:
    """Every rock of the visits table that passed one of ``cells``, in rock order, with its
    largest values and smallest energy-line angle over those cells."""
    from tumble.pipeline.visits import read_visits

    v = read_visits(path, cells)
    rock = v["rock"]
    if rock.size == 0:
        return []
    order = np.argsort(rock, kind="stable")  # the file is by rock already; kept for clarity
    rock = rock[order]
    first = np.flatnonzero(np.r_[True, rock[1:] != rock[:-1]])

    def largest(name: str) -> np.ndarray:
        return np.fmax.reduceat(np.asarray(v[name], dtype=np.float64)[order], first)

    energy, speed = largest("kinetic_energy_kJ"), largest("velocity_ms")
    rotation, jump = largest("rotational_velocity_rps"), largest("jump_height_m")
    angle = np.fmin.reduceat(np.asarray(v["energy_line_angle_deg"], dtype=np.float64)[order], first)
    n_cells = np.diff(np.r_[first, rock.size])
    source = v["source"][order][first]
    return [
        {
            "rock": int(rock[f]),
            "source": str(source[k]),
            "kinetic_energy_kJ": float(energy[k]),
            "velocity_ms": float(speed[k]),
            "rotational_velocity_rps": float(rotation[k]),
            "jump_height_m": None if not np.isfinite(jump[k]) else float(jump[k]),
            "energy_line_angle_deg": None if not np.isfinite(angle[k]) else float(angle[k]),
            "cells": int(n_cells[k]),
        }
        for k, f in enumerate(first)
    ]


def _sources_of_rocks(
    rocks: list[dict[str, Any]], info: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The release areas of the listed rocks, in the order of the run's release areas, with how
    many of their rocks reached the place and the largest energy among them."""
    names = list(info) + sorted({r["source"] for r in rocks} - set(info))
    out = []
    for name in names:
        mine = [r for r in rocks if r["source"] == name]
        if not mine:
            continue
        item = info.get(name, {})
        out.append(
            {
                "name": name,
                "frequency": item.get("frequency"),
                "rocks": item.get("rocks"),
                "rocks_reaching": len(mine),
                "kinetic_energy_max_kJ": max(r["kinetic_energy_kJ"] for r in mine),
            }
        )
    return out
