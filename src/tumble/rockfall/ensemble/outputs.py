"""Files of a run that a GIS opens without our docs: labelled hazard rasters, deposits and
trajectories.

Hazard rasters (``NAME.tif``, NAME in :data:`~tumble.rockfall.ensemble.rasters.RASTERS`):
cloud-optimised GeoTIFFs on the DEM's grid and CRS, one band whose description and unit are
those of :data:`~tumble.rockfall.ensemble.rasters.RASTER_INFO`; float32 values, uint32 counts
(``RasterInfo.count``). **A band only where rocks came**: a cell no rock passed and none stopped
in is nodata in every raster, ``reach_probability`` and ``passing_count`` included (nodata, not
0); ``deposit_count`` is 0 where rocks passed but none stopped. The nodata value is NaN for the
float32 rasters and :data:`COUNT_NODATA` (4294967295, the largest uint32) for the counts. Where
rocks came but a value is undefined (no rock flew over the cell: the jump heights) the value is
nodata too. ESRI ASCII copies (``NAME.asc``) hold the same cells as float64 text with nodata
-9999. The in-memory rasters (:attr:`EnsembleResult.rasters`) are not changed: NaN where
undefined and 0 counts.

``deposits.gpkg`` (:func:`write_deposits_gpkg`): one Point Z per rock at its final position, with
every column of the per-rock table as attributes. ``exits.gpkg`` (:func:`write_exits_gpkg`): one
Point Z per rock that left the DEM, where it left (:mod:`tumble.rockfall.exits`).
``trajectories.gpkg`` (:func:`write_trajectories_gpkg`): one LineString Z per sampled rock through
its samples, with its release area, shape class, status and maxima. ``rasters/hazard_zone.tif`` and
the annual exceedance frequencies (:func:`write_zoning_rasters`) when the release areas carry
frequencies.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.io.points_process import PointsInBackground
from tumble.io.vectors import write_lines, write_points
from tumble.rockfall.ensemble.rasters import RASTER_INFO, RASTERS, Rasters

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain

#: nodata value of the count rasters (uint32): the largest uint32, a count no run reaches
COUNT_NODATA = 4294967295

#: attributes of an exit point, in this order (those the exit table has)
EXIT_FIELDS = ("rock", "source", "rock_class", "kind", "hole", "kinetic_energy_kJ", "velocity_ms")

#: attributes of a trajectory line taken from the per-rock table
TRAJECTORY_MAXIMA = ("kinetic_energy_max_kJ", "jump_height_max_m")


def reached_cells(rasters: Mapping[str, np.ndarray]) -> np.ndarray:
    """Cells some rock came to: its centre passed the cell, or it stopped there."""
    return (np.asarray(rasters["passing_count"]) > 0) | (np.asarray(rasters["deposit_count"]) > 0)


def write_hazard_rasters(
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    directory: str | os.PathLike,
    ascii: bool = False,
) -> list[Path]:
    """Every raster of ``RASTERS`` as a labelled cloud-optimised GeoTIFF (and ESRI ASCII grid
    with ``ascii``) on the terrain's grid, nodata where no rock came (module docstring).
    Returns the paths written, in the order of ``RASTERS``. A :class:`Rasters` is filled in
    over its window only, one raster at a time."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in RASTERS:
        info = RASTER_INFO[name]
        values, where = _reached_values(terrain, rasters, name)
        written.append(
            terrain.write_raster(
                directory / f"{name}.tif",
                values,
                nodata=COUNT_NODATA if info.count else math.nan,
                dtype="uint32" if info.count else "float32",
                description=info.description,
                unit=info.unit,
                cog=True,
                overviews=info.overviews,
                **where,
            )
        )
        if ascii:
            written.append(terrain.write_raster(directory / f"{name}.asc", values, **where))
    return written


#: the raster of tree impacts of a run with a forest (:mod:`tumble.rockfall.forest`)
TREE_IMPACTS = "tree_impacts"


def write_tree_impacts(
    terrain: Terrain, counts: np.ndarray, directory: str | os.PathLike, ascii: bool = False
) -> list[Path]:
    """``tree_impacts.tif``: the rock-tree impacts in every DEM cell (uint32 counts, nodata
    in the DEM's holes), and ``tree_impacts.asc`` with ``ascii``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    values = np.where(np.isfinite(terrain.heights), counts.astype(np.float64), np.nan)
    written = [
        terrain.write_raster(
            directory / f"{TREE_IMPACTS}.tif",
            values,
            nodata=COUNT_NODATA,
            dtype="uint32",
            description="rock-tree impacts in the cell (impacts of all rocks)",
            unit="impacts",
            cog=True,
            overviews="max",
        )
    ]
    if ascii:
        written.append(terrain.write_raster(directory / f"{TREE_IMPACTS}.asc", values))
    return written


def _reached_values(
    terrain: Terrain, rasters: Mapping[str, np.ndarray], name: str
) -> tuple[np.ndarray, dict[str, Any]]:
    """Raster ``name``, NaN where no rock came and in the DEM's holes: over the window of a
    :class:`Rasters` with its ``offset``, or on the full grid."""
    if isinstance(rasters, Rasters):
        w = rasters.window
        window = {key: rasters.in_window(key) for key in ("passing_count", "deposit_count")}
        reached = reached_cells(window) & np.isfinite(terrain.heights[w.j0 : w.j1, w.i0 : w.i1])
        return np.where(reached, rasters.in_window(name), np.nan), {"offset": (w.j0, w.i0)}
    reached = reached_cells(rasters) & np.isfinite(terrain.heights)
    return np.where(reached, rasters[name], np.nan), {}


def write_deposits_gpkg(path: str | os.PathLike, rocks: Mapping[str, np.ndarray], crs: Any) -> Path:
    """One Point Z per rock at its final position ``(x, y, z)`` of the per-rock table ``rocks``
    (:attr:`EnsembleResult.rocks`), with every column of the table as attributes; a rock
    without a finite final position has no geometry. Layer ``deposits`` for ``deposits.gpkg``."""
    xyz = np.column_stack([np.asarray(rocks[axis], dtype=np.float64) for axis in "xyz"])
    return write_points(path, xyz, rocks, crs)


def deposits_gpkg_in_background(
    path: str | os.PathLike, rocks: Mapping[str, np.ndarray], crs: Any
) -> PointsInBackground:
    """:func:`write_deposits_gpkg` in a process of its own beside the caller's work (for many
    rocks, :class:`~tumble.io.points_process.PointsInBackground`): the same file, once ``wait()``
    returns."""
    xyz = np.column_stack([np.asarray(rocks[axis], dtype=np.float64) for axis in "xyz"])
    return PointsInBackground(path, xyz, rocks, crs)


def write_exits_gpkg(path: str | os.PathLike, exits: Mapping[str, np.ndarray], crs: Any) -> Path:
    """One Point Z per rock that left the DEM, at the point of the rock that left it (``x``,
    ``y``, ``z`` of the exit table, :func:`tumble.rockfall.exits.exit_table`), with the
    attributes of :data:`EXIT_FIELDS`: ``rock``, ``source`` (release area), ``rock_class``,
    ``kind`` (``downslope_edge``, ``side_edge`` or ``nodata_hole``), ``hole`` (the number of the
    hole in ``summary.json`` exits.holes, 0 for an edge), ``kinetic_energy_kJ`` and
    ``velocity_ms`` in the rock's last step. Layer ``exits`` for ``exits.gpkg``; a run in which
    no rock left writes the layer without features."""
    xyz = np.column_stack([np.asarray(exits[axis], dtype=np.float64) for axis in "xyz"])
    attributes = {name: exits[name] for name in EXIT_FIELDS if name in exits}
    return write_points(path, xyz.reshape(-1, 3), attributes, crs)


def write_trajectories_gpkg(
    path: str | os.PathLike,
    samples: Mapping[str, np.ndarray],
    summary_rocks: Mapping[str, np.ndarray],
    crs: Any,
    shape_names: Sequence[str],
) -> Path:
    """One LineString Z per rock of a trajectory sample, through its samples in their order.

    ``samples``: columns ``rock``, ``x``, ``y``, ``z`` (and others) of the sampled rocks, one
    row per sample (the trajectory sample of ``tumble rockfall run``); ``summary_rocks``: the
    per-rock table (:attr:`EnsembleResult.rocks`); ``shape_names[shape_id]`` the name of each
    shape of the ensemble. Attributes: ``rock``, ``source`` (the release area's name from the
    table's ``source`` column; 0 for every rock without one), ``shape`` (the shape's name),
    ``rock_class`` (the rock class's name, as in ``deposits.gpkg``; only when the table has
    one), ``status``, ``kinetic_energy_max_kJ``, ``jump_height_max_m``.
    Samples with a non-finite coordinate are left out; a rock with a single sample gets a
    zero-length line (its point twice). Lines are in the order of the rock ids.
    """
    rock = np.asarray(samples["rock"], dtype=np.int64)
    vertices = np.column_stack([np.asarray(samples[axis], dtype=np.float64) for axis in "xyz"])
    ids = np.unique(rock)
    row_of = {int(r): i for i, r in enumerate(np.asarray(summary_rocks["rock"]))}
    missing = [int(k) for k in ids if int(k) not in row_of]
    if missing:
        raise ValueError(f"sampled rocks {missing} are not in the per-rock table")
    rows = np.array([row_of[int(k)] for k in ids], dtype=np.int64)
    lines = []
    for k in ids:
        line = vertices[rock == k]
        line = line[np.isfinite(line).all(axis=1)]
        if line.shape[0] == 0:
            raise ValueError(f"rock {k} of the trajectory sample has no finite sample")
        lines.append(line if line.shape[0] > 1 else np.repeat(line, 2, axis=0))
    shape_id = np.asarray(summary_rocks["shape_id"], dtype=np.int64)[rows]
    if shape_id.size and (shape_id.min() < 0 or shape_id.max() >= len(shape_names)):
        raise ValueError(f"shape ids {sorted(set(shape_id.tolist()))} do not index {shape_names}")
    source = summary_rocks.get("source")
    attributes = {
        "rock": ids,
        "source": np.zeros(ids.size, dtype=np.int64)
        if source is None
        else np.asarray(source, dtype=object)[rows],
        "shape": np.array([str(shape_names[s]) for s in shape_id], dtype=object),
        **(
            {"rock_class": np.asarray(summary_rocks["rock_class"], dtype=object)[rows]}
            if "rock_class" in summary_rocks
            else {}
        ),
        "status": np.asarray(summary_rocks["status"])[rows],
        **{name: np.asarray(summary_rocks[name])[rows] for name in TRAJECTORY_MAXIMA},
    }
    return write_lines(path, lines, attributes, crs)
