"""The energy-line record of a run (``summary.json["energy_line"]``): how far its rocks reached,
as energy-line (travel) angles beside the geometric method's range and the lowest angle field
records show, and the warning when the rocks reach further than field records.

An energy-line angle describes reach only where a rock has travelled: next to its release a
rock that moved a few decimetres, or one that rolled a little uphill, has an angle of any value
(down to negative ones) that says nothing of how far rocks run. The record therefore keeps the
rocks and cells **beyond the release** (:data:`RULE`): the rocks at rest whose final point, and
the cells of ``energy_line_angle.tif`` whose point, lie farther than :data:`BEYOND_RELEASE_M`
(horizontally) from every release place: outside each release area or polygon grown by that
distance, and farther than it from a release point or line. The raster itself keeps every cell.

On a synthetic terrain (a built-in scenario) the record names what the scenario reproduces and
why its reach differs from field slopes instead of comparing with field records: that
comparison and its warning belong to runs on real terrain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

#: the rocks at rest and the cells the record keeps lie farther than this (horizontally, m)
#: from every release place: on a slope of 30-40 degrees a rock that came so far has dropped
#: 15-20 m, so its angle describes where it went, not how it left its release
BEYOND_RELEASE_M = 25.0
#: the rule of the record, in words
RULE = (
    f"rocks at rest and cells farther than {BEYOND_RELEASE_M:g} m (horizontally) from every "
    f"release place: outside each release area or polygon grown by {BEYOND_RELEASE_M:g} m and "
    f"farther than {BEYOND_RELEASE_M:g} m from a release point or line; energy_line_angle.tif "
    "keeps every cell"
)
#: the travel angles of the geometric method (degrees) the report compares with, and its source
GEOMETRIC_RANGE_DEG = (27.0, 35.0)
GEOMETRIC_SOURCE = (
    "Evans & Hungr 1993 (Can. Geotech. J. 30, 620-636): minimum shadow angle 27.5 degrees; "
    "Jaboyedoff & Labiouse 2011 (NHESS 11, 819-828): energy-line angles of 28-35 degrees"
)
#: the lowest reach angle field records show: the empirical minimum shadow angle of Evans &
#: Hungr 1993, measured from the top of the talus to the farthest boulder; the angle from the
#: release point, higher up the cliff, to the same boulder is larger, so a rock at rest below
#: this angle from its release lies beyond every boulder of their records
LOWEST_OBSERVED_DEG = 27.5
LOWEST_OBSERVED_SOURCE = (
    "Evans & Hungr 1993, Can. Geotech. J. 30, 620-636: empirical minimum shadow angle, from the "
    "top of the talus"
)


def beyond_release(x: Any, y: Any, places: Any) -> np.ndarray:
    """Whether each point (x, y) lies farther than :data:`BEYOND_RELEASE_M` from ``places`` (a
    shapely geometry of every release place; a point inside an area is at distance 0); False
    for a point with a NaN coordinate."""
    import shapely

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = np.zeros(x.shape, dtype=bool)
    finite = np.isfinite(x) & np.isfinite(y)
    if finite.any():
        shapely.prepare(places)
        points = shapely.points(x[finite], y[finite])
        out[finite] = ~np.asarray(shapely.dwithin(places, points, BEYOND_RELEASE_M), dtype=bool)
    return out


def _window(rasters: Any, terrain: Any, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The raster ``name`` over the rasters' window (the whole grid without one) and the x and y
    of its cells' points."""
    if hasattr(rasters, "in_window"):
        grid = np.asarray(rasters.in_window(name), dtype=np.float64)
        j0, _, i0, _ = rasters.window
    else:
        grid = np.asarray(rasters[name], dtype=np.float64)
        j0 = i0 = 0
    ny, nx = grid.shape
    x = terrain.x0 + (i0 + np.arange(nx)) * terrain.dx
    y = terrain.y0 + (j0 + np.arange(ny)) * terrain.dy
    gx, gy = np.meshgrid(x, y)
    return grid, gx, gy


def energy_line_record(
    rasters: Any,
    terrain: Any,
    rocks: Mapping[str, Any],
    places: Any,
    reproduction: str | None = None,
) -> dict[str, Any]:
    """``summary.json["energy_line"]`` (module docstring): over the cells of
    ``energy_line_angle`` and the rocks at rest beyond the release (:func:`beyond_release` of
    the release ``places``), the smallest angle of the cells and of the rocks, the 1st, 5th and
    50th percentiles of the rocks' angles and how many lie below :data:`LOWEST_OBSERVED_DEG`,
    with how many reached cells and rocks at rest the rule left out. ``reproduction``: what a
    run on a synthetic terrain reproduces and why its reach differs from field slopes (then
    ``field_comparison`` is false and :func:`energy_line_warning` gives no warning)."""
    grid, gx, gy = _window(rasters, terrain, "energy_line_angle")
    reached = np.isfinite(grid)
    cells = reached & beyond_release(gx, gy, places)
    angles = np.asarray(rocks["energy_line_angle_deg"], dtype=np.float64)
    stopped = (np.asarray(rocks["status"]) == "stopped") & np.isfinite(angles)
    far = beyond_release(rocks["x"], rocks["y"], places)
    at_rest = angles[stopped & far]
    percentiles = (
        {f"p{q}": float(np.percentile(at_rest, q)) for q in (1, 5, 50)} if at_rest.size else None
    )
    record: dict[str, Any] = {
        "rule": RULE,
        "beyond_release_m": BEYOND_RELEASE_M,
        "min_angle_deg": float(grid[cells].min()) if cells.any() else None,
        "cells": int(cells.sum()),
        "cells_near_release": int(np.sum(reached & ~cells)),
        "min_deposit_angle_deg": float(at_rest.min()) if at_rest.size else None,
        "deposit_angle_percentiles_deg": percentiles,
        "rocks_at_rest": int(at_rest.size),
        "rocks_at_rest_near_release": int(np.sum(stopped & ~far)),
        "geometric_range_deg": list(GEOMETRIC_RANGE_DEG),
        "geometric_source": GEOMETRIC_SOURCE,
        "lowest_observed_deg": LOWEST_OBSERVED_DEG,
        "lowest_observed_source": LOWEST_OBSERVED_SOURCE,
        "rocks_at_rest_below_lowest_observed": int(np.sum(at_rest < LOWEST_OBSERVED_DEG)),
        "field_comparison": reproduction is None,
    }
    if reproduction is not None:
        record["reproduction"] = reproduction
    return record


def energy_line_warning(record: Mapping[str, Any]) -> str | None:
    """A warning when rocks of a run on real terrain came to rest, beyond the release
    (:data:`RULE`), below the lowest angle field records show: the soil lets them run further
    than observed rockfalls do. None on a synthetic terrain (``field_comparison`` false)."""
    below, total = record["rocks_at_rest_below_lowest_observed"], record["rocks_at_rest"]
    if not below or not record.get("field_comparison", True):
        return None
    return (
        f"{below} of the {total} rocks at rest farther than {record['beyond_release_m']:g} m "
        f"from every release place ({100.0 * below / total:.1f} %) stopped below an energy-line "
        f"angle of {LOWEST_OBSERVED_DEG} degrees from their release (smallest "
        f"{record['min_deposit_angle_deg']:.1f} degrees), the lowest reach field records show "
        f"({LOWEST_OBSERVED_SOURCE}): the soil may let rocks run further than observed "
        "rockfalls do; check the soil category, its rolling resistance and its scar layer "
        "(the default medium carries that of Lu et al. 2019, which shortens the reach on real "
        "terrain: docs/reach_and_start.md)"
    )
