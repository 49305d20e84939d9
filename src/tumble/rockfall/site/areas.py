"""Release areas of a real site: polygons from a GIS file or a source raster, and how the rocks
of a run are split over them.

A :class:`ReleaseAreas` is one place of :class:`tumble.rockfall.release.Release` (beside a point,
a line or a typed-in polygon). It comes from

* a vector file (:meth:`ReleaseAreas.from_file`; GeoPackage, GeoJSON, Shapefile): every Polygon
  or MultiPolygon feature is one release area (a *source*), named by the attribute
  ``name_field`` (default ``area_1``, ``area_2``... in the file's order), with an optional onset
  frequency (events per year, attribute ``frequency_field``, for hazard zoning) and an optional
  weight (attribute ``weight_field``; default its area in m^2). A file in another CRS than the
  DEM's is transformed to it through PROJ (:func:`tumble.io.vectors.transform_xy`); a side
  without a CRS is taken to be in the other's; a file whose coordinates lie on the DEM as
  written but far off it once transformed is refused as a wrong CRS label;
* or a source raster (:meth:`ReleaseAreas.from_raster`): one source; every cell with a positive
  finite value releases rocks, with probability proportional to its value.

**Split of the rocks.** The ``rocks`` of a run are split over the areas in proportion to their
weights by the largest-remainder rule (:func:`largest_remainder`): area i gets
``floor(rocks w_i / sum w)`` rocks and the rocks left over go one each to the areas with the
largest fractional parts (ties to the area listed first). Rocks are numbered area by area: the
first ``n_1`` rocks start in area 1, the next ``n_2`` in area 2, and so on. The split depends on
the total only, never on chunks.

**Place of a rock** (:meth:`ReleaseAreas.place`), from rock k's own random stream
(:func:`tumble.rockfall.release.rock_rng`), so that it depends neither on the number of rocks
per chunk nor on the other rocks: in a polygon area, batches of :data:`BATCH` pairs of uniforms in
the area's bounding box until one falls inside it (even-odd rule over all its rings, so holes and
the parts of a MultiPolygon count right) and on the terrain: uniform over the area's part on the
DEM. From a raster, one uniform chooses the cell (inverse of the cumulative weights, in
row-major order of the raster) and two more place the rock uniformly in the cell's pixel, cut to
the DEM's surface rectangle, drawn again (all three) until the point is on the terrain. A run
draws the places of all its rocks at once (:meth:`ReleaseAreas.first_places`), the same numbers.

**Nodata.** An area that reaches into a nodata area of the DEM or beyond its rectangle is
clipped to the DEM's valid cells (:attr:`ReleaseArea.clip`: the shares of its area, exact, that
lie in nodata and outside; for a raster source, of its cells' weight): its rocks start on what is
left, its default weight is the area left, and the run warns with the shares
(:meth:`tumble.rockfall.release.Clip.warning`). An area with nothing left on the DEM is refused,
named.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.rockfall.release.first_places import box_batches, raster_tries
from tumble.rockfall.release.places import Clip
from tumble.rockfall.release.polygons import (
    EvenOddGrid,
    cell_boxes,
    inside_rings,
    lattice_points,
    on_cells,
    region,
    ring_area,
)

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain

#: pairs of uniforms drawn at a time while looking for a point inside a polygon area
BATCH = 16
#: a polygon draw gives up after this many batches (an area of almost no extent)
MAX_BATCHES = 10_000
#: about this many points stand for the release areas in :meth:`ReleaseAreas.footprint` (at
#: least :data:`FOOTPRINT_AREA_POINTS` per polygon area), and at most this many for a source
#: raster (more releasing cells are gathered into bins)
FOOTPRINT_POINTS = 1024
FOOTPRINT_AREA_POINTS = 32


def largest_remainder(weights: Sequence[float], total: int) -> np.ndarray:
    """``total`` split into integers proportional to ``weights`` (non-negative, some positive) by
    the largest-remainder rule (module docstring); the parts sum to ``total`` exactly."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be non-negative numbers with a positive sum, got {weights}")
    quota = total * w / w.sum()
    counts = np.floor(quota).astype(np.int64)
    left = int(total - counts.sum())
    # stable sort: equal remainders go to the area listed first
    order = np.argsort(-(quota - counts), kind="stable")
    counts[order[:left]] += 1
    return counts


@dataclass(frozen=True, eq=False)
class ReleaseArea:
    """One source: ``name``, ``rings`` (every ring of every part, (n, 2) arrays in the DEM's
    CRS; empty for a raster source), ``area_m2`` (polygon area without its holes, or the area
    of the raster's releasing cells), ``frequency`` (onset events per year or None),
    ``weight`` (its share of the rocks, relative) and ``clip``, the shares of it that lie off
    the DEM (module docstring; None before it met a terrain)."""

    name: str
    rings: tuple[np.ndarray, ...]
    area_m2: float
    frequency: float | None
    weight: float
    clip: Clip | None = None


class ReleaseAreas:
    """Release areas and the split of ``rocks`` rocks over them (module docstring).

    ``cells`` (m, 4) ``x_min, x_max, y_min, y_max`` and ``cell_weights`` (m,) make it a raster
    source (one area); ``description`` is what the resolved configuration shows.
    """

    def __init__(
        self,
        areas: Sequence[ReleaseArea],
        rocks: int,
        *,
        cells: np.ndarray | None = None,
        cell_weights: np.ndarray | None = None,
        description: dict[str, Any] | None = None,
    ) -> None:
        self.areas = tuple(areas)
        self._clips: dict[int, tuple[Clip, ...]] = {}
        self._grids: dict[int, EvenOddGrid] = {}
        if not self.areas:
            raise ValueError("release.areas: no release area")
        names = [a.name for a in self.areas]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(
                "release.areas: area names must be unique; "
                + ", ".join(f"{n!r} names {names.count(n)} areas" for n in repeated)
            )
        if isinstance(rocks, bool) or not isinstance(rocks, int | np.integer) or rocks < 1:
            raise ValueError(f"the number of rocks must be a positive integer, got {rocks!r}")
        self.rocks = int(rocks)
        self.counts = largest_remainder([a.weight for a in self.areas], self.rocks)
        self.first = np.concatenate([[0], np.cumsum(self.counts)])
        self.cells = cells
        self.cdf = None if cell_weights is None else np.cumsum(cell_weights)
        self.description = dict(description or {})
        self._boxes = [
            (np.vstack(a.rings).min(axis=0), np.vstack(a.rings).max(axis=0)) if a.rings else None
            for a in self.areas
        ]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.areas)

    @property
    def frequencies(self) -> tuple[float | None, ...]:
        return tuple(a.frequency for a in self.areas)

    def with_frequencies(
        self, frequencies: Sequence[float], description: dict[str, Any]
    ) -> ReleaseAreas:
        """The same areas, rocks and places with these onset frequencies (one per area) and
        ``description`` (:mod:`tumble.rockfall.site.release_sources`: densities times sizes)."""
        out = copy.copy(self)
        out.areas = tuple(
            dataclasses.replace(a, frequency=float(f))
            for a, f in zip(self.areas, frequencies, strict=True)
        )
        out.description = dict(description)
        return out

    def source_of(self, k: int | np.ndarray) -> np.ndarray:
        """The area index of rock(s) ``k`` (rocks are numbered area by area)."""
        k = np.asarray(k)
        if np.any(k < 0) or np.any(k >= self.rocks):
            raise ValueError(f"rock index outside [0, {self.rocks})")
        return np.searchsorted(self.first, k, side="right") - 1

    def place(
        self,
        rng: np.random.Generator,
        k: int,
        terrain: Terrain | None = None,
        again: bool = False,
    ) -> tuple[float, float]:
        """The start (x, y) of rock ``k`` drawn from its stream ``rng`` (module docstring), on
        ``terrain`` when it is given (the area clipped to its valid cells); ``again`` (a rock
        that did not fit where it was first placed) draws the same way."""
        s = int(self.source_of(k))
        area = self.areas[s]
        if self.cells is not None and self.cdf is not None:
            for _ in range(MAX_BATCHES * BATCH):
                u = float(rng.random()) * float(self.cdf[-1])
                i = min(int(np.searchsorted(self.cdf, u, side="right")), self.cdf.size - 1)
                x_min, x_max, y_min, y_max = self.cells[i]
                a, b = rng.random(2)
                x, y = float(x_min + a * (x_max - x_min)), float(y_min + b * (y_max - y_min))
                if terrain is None or bool(terrain.contains(x, y)):
                    return x, y
            raise ValueError(
                f"release area {area.name!r}: no point on the DEM was drawn in "
                f"{MAX_BATCHES * BATCH} tries; its cells lie almost all in a nodata area"
            )
        box = self._boxes[s]
        assert box is not None  # a polygon area has rings
        lo, hi = box
        for _ in range(MAX_BATCHES):
            pairs = rng.random((BATCH, 2))
            xs = lo[0] + pairs[:, 0] * (hi[0] - lo[0])
            ys = lo[1] + pairs[:, 1] * (hi[1] - lo[1])
            inside = inside_rings(xs, ys, area.rings)
            if terrain is not None and inside.any():
                inside &= np.asarray(terrain.contains(xs, ys), dtype=bool)
            hit = np.flatnonzero(inside)
            if hit.size:
                return float(xs[hit[0]]), float(ys[hit[0]])
        raise ValueError(
            f"release area {area.name!r}: no point inside it"
            + ("" if terrain is None else " and on the DEM")
            + f" was drawn in {MAX_BATCHES * BATCH} tries"
        )

    def first_places(
        self, uniforms: np.ndarray, rocks: np.ndarray, terrain: Terrain | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The places of ``rocks`` (n,) from the first uniforms of their streams ``uniforms``
        (n, m) as :meth:`place` draws them, for all at once: ``(xy (n, 2), used (n,))``, -1
        for a rock whose place the uniforms do not hold (:mod:`.release.first_places`)."""
        if self.cells is not None and self.cdf is not None:
            return raster_tries(uniforms, self.cdf, self.cells, terrain)
        xy, used = np.full((rocks.size, 2), np.nan), np.full(rocks.size, -1, dtype=np.int64)
        source = self.source_of(rocks)
        for s in np.unique(source):
            mine = np.flatnonzero(source == s)
            box = self._boxes[int(s)]
            assert box is not None  # a polygon area has rings
            (x_min, y_min), (x_max, y_max) = box
            xy[mine], used[mine] = box_batches(
                uniforms[mine],
                np.array([x_min, x_max, y_min, y_max]),
                self.grid(int(s)),
                terrain,
                BATCH,
            )
        return xy, used

    def grid(self, s: int) -> EvenOddGrid:
        """The point-in-polygon grid of area ``s`` (built once)."""
        if s not in self._grids:
            self._grids[s] = EvenOddGrid(self.areas[s].rings)
        return self._grids[s]

    def clips(self, terrain: Terrain) -> tuple[Clip, ...]:
        """The shares of each area off ``terrain`` (module docstring): those found when the
        areas were read, or computed now for areas built by hand."""
        if all(a.clip is not None for a in self.areas):
            return tuple(a.clip for a in self.areas if a.clip is not None)
        key = id(terrain)
        if key not in self._clips:
            if self.cells is not None:
                self._clips[key] = (
                    _raster_clip(self.areas[0].name, self.cells, self.cdf, terrain),
                )
            else:
                self._clips[key] = tuple(polygon_clip(a.name, a.rings, terrain) for a in self.areas)
        return self._clips[key]

    def footprint(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the rocks start, as weighted points ``(points (k, 2), weights (k,))`` summing to
        1 (:meth:`tumble.rockfall.release.Release.footprint`): each of the ``m`` polygon areas by
        a lattice of about ``max(FOOTPRINT_AREA_POINTS, FOOTPRINT_POINTS / m)`` points inside it
        (:func:`..release.polygons.lattice_points`) sharing the area's share of the rocks
        (its weight over the sum of the weights) equally; a source raster by its releasing cells'
        centres weighted by their values, gathered, when there are more than
        :data:`FOOTPRINT_POINTS`, into the squares of a lattice over them (each square's point:
        the weighted mean of its cells' centres, its weight their sum)."""
        if self.cells is not None and self.cdf is not None:
            centres = np.column_stack(
                [self.cells[:, :2].mean(axis=1), self.cells[:, 2:].mean(axis=1)]
            )
            weights = np.diff(np.concatenate([[0.0], self.cdf]))
            if centres.shape[0] > FOOTPRINT_POINTS:
                centres, weights = _binned(centres, weights, FOOTPRINT_POINTS)
            return centres, weights / weights.sum()
        total = sum(a.weight for a in self.areas)
        each = max(FOOTPRINT_AREA_POINTS, FOOTPRINT_POINTS // len(self.areas))
        parts: list[np.ndarray] = []
        shares: list[np.ndarray] = []
        for area in self.areas:
            inside = lattice_points(area.rings, area.area_m2, each)
            parts.append(inside)
            shares.append(np.full(inside.shape[0], area.weight / total / inside.shape[0]))
        return np.vstack(parts), np.concatenate(shares)

    def check_terrain(self, terrain: Terrain) -> None:
        """ValueError naming an area that has no place on the DEM's valid cells (it lies
        entirely in a nodata area of the DEM, or outside it)."""
        for clip in self.clips(terrain):
            clip.check(terrain)

    def summary(self) -> list[dict[str, Any]]:
        """One record per area: name, rocks, frequency, weight and area."""
        return [
            {
                "name": a.name,
                "rocks": int(c),
                "frequency": a.frequency,
                "weight": a.weight,
                "area_m2": a.area_m2,
            }
            for a, c in zip(self.areas, self.counts, strict=True)
        ]

    # --- from files ------------------------------------------------------------------------------

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike,
        terrain: Terrain,
        rocks: int,
        *,
        layer: str | None = None,
        name_field: str | None = None,
        frequency_field: str | None = None,
        weight_field: str | None = None,
    ) -> ReleaseAreas:
        """The polygons of a vector file as release areas on ``terrain`` (module docstring).

        ValueError for a missing file, a field the file does not have, a layer without
        polygons, a geometry that is not a polygon, an area of zero size, a missing or negative
        frequency or weight, a CRS that cannot be transformed to the DEM's, or an area off the
        DEM."""
        from tumble.io.vectors import read_polygons

        path = Path(path)
        fields = [f for f in (name_field, frequency_field, weight_field) if f is not None]
        polygons, values, crs = read_polygons(path, layer=layer, fields=list(dict.fromkeys(fields)))
        if not polygons:
            raise ValueError(f"{path} holds no polygons (an empty layer); nothing to release")
        polygons = _to_dem_crs(polygons, crs, terrain, path)
        areas = []
        for k, parts in enumerate(polygons):
            name = f"area_{k + 1}" if name_field is None else values[name_field][k]
            if name is None or not str(name).strip():
                raise ValueError(f"{path}: feature {k + 1} has no value in field {name_field!r}")
            name = str(name)
            size = sum(ring_area(p[0]) - sum(ring_area(h) for h in p[1:]) for p in parts)
            if not size > 0.0:
                raise ValueError(f"{path}: release area {name!r} has no area")
            rings = tuple(np.ascontiguousarray(r) for p in parts for r in p)
            clip = polygon_clip(name, rings, terrain)
            clip.check(terrain)
            frequency = None
            if frequency_field is not None:
                frequency = _number(values[frequency_field][k], path, name, frequency_field)
            # the area left on the DEM (the polygon's own area when nothing is clipped)
            weight = size if clip.share == 0.0 else size * (1.0 - clip.share)
            if weight_field is not None:
                weight = _number(values[weight_field][k], path, name, weight_field)
            areas.append(ReleaseArea(name, rings, float(size), frequency, float(weight), clip))
        if sum(a.weight for a in areas) <= 0.0:
            raise ValueError(f"{path}: the weights of the release areas sum to zero")
        description = {
            "areas": str(path),
            "layer": layer,
            "name_field": name_field,
            "frequency_field": frequency_field,
            "weight_field": weight_field,
        }
        return cls(areas, rocks, description={k: v for k, v in description.items() if v})

    @classmethod
    def from_raster(
        cls, path: str | os.PathLike, terrain: Terrain, rocks: int, name: str | None = None
    ) -> ReleaseAreas:
        """A source raster (any grid in the DEM's CRS) as one release source: every cell with a
        positive finite value releases rocks with probability proportional to its value, placed
        uniformly in the cell's pixel cut to the DEM's surface, on its valid cells (cells
        beyond the DEM or in its nodata areas are clipped: module docstring). ValueError for a
        raster without such cells, one in another CRS, or one with no releasing cell on the
        DEM."""
        from tumble.io.dem import read_raster

        path = Path(path)
        try:
            grid = read_raster(path)
        except (ValueError, OSError) as err:
            raise ValueError(f"release.raster: {err}") from None
        if grid.crs is not None and terrain.crs is not None and grid.crs != terrain.crs:
            raise ValueError(
                f"release.raster: {path} is in {grid.crs}, the DEM in {terrain.crs}; give the "
                "source raster in the DEM's coordinate reference system"
            )
        values = np.asarray(grid.values, dtype=np.float64)
        j, i = np.nonzero(np.isfinite(values) & (values > 0.0))
        if j.size == 0:
            raise ValueError(f"release.raster: {path} has no cell with a positive value")
        x, y = grid.x0 + i * grid.dx, grid.y0 + j * grid.dy
        b = terrain.bounds
        cells = np.column_stack(
            [
                np.maximum(x - 0.5 * grid.dx, b.x_min),
                np.minimum(x + 0.5 * grid.dx, b.x_max),
                np.maximum(y - 0.5 * grid.dy, b.y_min),
                np.minimum(y + 0.5 * grid.dy, b.y_max),
            ]
        )
        weights = values[j, i]
        name = name or path.stem
        on = _cell_area_on_terrain(cells, terrain)
        clip = _raster_clip(name, cells, np.cumsum(weights), terrain, on)
        if clip.share >= 1.0:
            where = (
                "lie in a nodata area of the DEM"
                if clip.outside_share == 0.0
                else f"lie outside the DEM or in its nodata areas; the DEM covers "
                f"{terrain.extent_text}"
            )
            raise ValueError(f"release.raster: all {j.size} releasing cells of {path} {where}")
        kept = on > 0.0
        cells, weights = cells[kept], weights[kept]
        size = float(np.sum(on[kept]))
        area = ReleaseArea(name, (), size, None, 1.0, clip)
        return cls(
            [area],
            rocks,
            cells=np.ascontiguousarray(cells),
            cell_weights=weights,
            description={"raster": str(path), "cells": int(j.size)},
        )


def _binned(points: np.ndarray, weights: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted points gathered into at most ``most`` squares of a lattice over their box: per
    occupied square, the weighted mean of its points and the sum of their weights."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    side = float(np.sqrt(max((hi - lo).prod(), 1e-12) / most))
    while True:
        counts = np.maximum(np.ceil((hi - lo) / side), 1).astype(np.int64)
        cell = np.minimum(((points - lo) / side).astype(np.int64), counts - 1)
        key = cell[:, 1] * counts[0] + cell[:, 0]
        occupied, index = np.unique(key, return_inverse=True)
        if occupied.size <= most:
            break
        side *= 1.25
    total = np.bincount(index, weights=weights)
    x = np.bincount(index, weights=weights * points[:, 0])
    y = np.bincount(index, weights=weights * points[:, 1])
    keep = total > 0.0
    return np.column_stack([x[keep] / total[keep], y[keep] / total[keep]]), total[keep]


def polygon_clip(name: str, rings: Sequence[np.ndarray], terrain: Terrain) -> Clip:
    """The shares of the region bounded by ``rings`` (even-odd) that lie in a nodata area of
    ``terrain`` and outside its rectangle, by area (exact:
    :func:`tumble.rockfall.release.polygons.on_cells`)."""
    whole, inside, on = on_cells(
        region(rings), terrain.valid_cells, terrain.x0, terrain.y0, terrain.dx, terrain.dy
    )
    return Clip.of(name, whole, inside, on)


def _cell_area_on_terrain(cells: np.ndarray, terrain: Terrain) -> np.ndarray:
    """The area of each cell rectangle (m, 4: ``x_min, x_max, y_min, y_max``) on the terrain's
    valid cells, m^2 (0 for a rectangle of no extent)."""
    import shapely

    empty = (cells[:, 1] <= cells[:, 0]) | (cells[:, 3] <= cells[:, 2])
    out = np.zeros(cells.shape[0])
    if terrain.valid_cells.all():
        size = (cells[:, 1] - cells[:, 0]) * (cells[:, 3] - cells[:, 2])
        return np.where(empty, 0.0, size)
    rects = shapely.box(cells[:, 0], cells[:, 2], cells[:, 1], cells[:, 3])
    window = (cells[:, 0].min(), cells[:, 2].min(), cells[:, 1].max(), cells[:, 3].max())
    boxes = cell_boxes(terrain.valid_cells, terrain.x0, terrain.y0, terrain.dx, terrain.dy, window)
    if len(boxes) == 0:
        return out
    cell, box = shapely.STRtree(boxes).query(rects, predicate="intersects")
    parts = shapely.area(shapely.intersection(rects[cell], boxes[box]))
    out += np.bincount(cell, weights=parts, minlength=cells.shape[0])
    return np.where(empty, 0.0, out)


def _raster_clip(
    name: str,
    cells: np.ndarray,
    cdf: np.ndarray | None,
    terrain: Terrain,
    on: np.ndarray | None = None,
) -> Clip:
    """The shares of a raster source's weight off ``terrain``: the weight of its cells beyond
    the DEM's rectangle (no extent left after the cut to it) and the weight of the parts of its
    cells in nodata areas (each cell's weight times the share of its rectangle there)."""
    assert cdf is not None
    weights = np.diff(np.concatenate([[0.0], cdf]))
    total = float(weights.sum())
    if on is None:
        on = _cell_area_on_terrain(cells, terrain)
    size = (cells[:, 1] - cells[:, 0]) * (cells[:, 3] - cells[:, 2])
    outside = size <= 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        nodata = np.where(outside, 0.0, 1.0 - np.minimum(on / np.where(outside, 1.0, size), 1.0))
    outside_share = float(weights[outside].sum()) / total
    nodata_share = float(np.sum(weights * nodata)) / total
    return Clip(name, nodata_share, outside_share, "weight")


def _number(value: Any, path: Path, name: str, field: str) -> float:
    """A non-negative finite attribute value, or ValueError naming the area and the field."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number >= 0.0):
        raise ValueError(
            f"{path}: release area {name!r} has {field} = {value!r}; it must be a non-negative "
            "number"
        )
    return number


def _to_dem_crs(
    polygons: list[list[list[np.ndarray]]], crs: str | None, terrain: Terrain, path: Path
) -> list[list[list[np.ndarray]]]:
    """The rings in the DEM's CRS: transformed when the file's CRS differs from it; unchanged
    when they agree or either side has none. ValueError when the file's CRS label looks wrong
    (:func:`_check_crs_label`)."""
    from rasterio.crs import CRS

    from tumble.io.vectors import transform_xy

    if crs is None or terrain.crs is None:
        return polygons
    source, target = CRS.from_user_input(crs), CRS.from_user_input(terrain.crs)
    if source == target:
        return polygons
    out = []
    for parts in polygons:
        moved = []
        for part in parts:
            rings = []
            for ring in part:
                try:
                    x, y = transform_xy(ring[:, 0], ring[:, 1], source, target)
                except ValueError as err:
                    raise ValueError(
                        f"{path} is in {_crs_text(source)}, the DEM in {_crs_text(target)}, and "
                        f"its polygons cannot be transformed to the DEM's: {err}; reproject "
                        "the file to the DEM's coordinate reference system"
                    ) from None
                rings.append(np.column_stack([x, y]))
            moved.append(rings)
        out.append(moved)
    written = np.vstack([ring for parts in polygons for part in parts for ring in part])
    placed = np.vstack([ring for parts in out for part in parts for ring in part])
    _check_crs_label(written, placed, terrain, path, _crs_text(source), _crs_text(target))
    return out


def _check_crs_label(
    written: np.ndarray, placed: np.ndarray, terrain: Terrain, path: Path, label: str, dem: str
) -> None:
    """ValueError saying that the CRS label of the file at ``path`` looks wrong when every
    point ``placed`` (n, 2) (the file's coordinates ``written`` (n, 2) transformed from its
    label's CRS to the DEM's) lies far outside the DEM, farther than the DEM's larger side from
    its rectangle, while every point as written lies on the DEM's rectangle: the coordinates are
    then in the DEM's own CRS and the label names another."""
    b = terrain.bounds
    side = max(b.x_max - b.x_min, b.y_max - b.y_min)
    gap_x = np.maximum(np.maximum(b.x_min - placed[:, 0], placed[:, 0] - b.x_max), 0.0)
    gap_y = np.maximum(np.maximum(b.y_min - placed[:, 1], placed[:, 1] - b.y_max), 0.0)
    gap = np.hypot(gap_x, gap_y)
    if not (np.all(gap > side) and np.all(terrain.within_extent(written[:, 0], written[:, 1]))):
        return
    raise ValueError(
        f"{path}: its CRS label looks wrong. Labelled {label}, its polygons lie outside the "
        f"DEM once transformed to the DEM's {dem} (at least {float(gap.min()):.4g} m "
        f"from it; the DEM covers {terrain.extent_text}), while its coordinates as written lie "
        f"on the DEM: they look like coordinates of the DEM's {dem}. If they are, label the "
        f"file so (e.g. ogr2ogr -a_srs {dem} fixed.gpkg {path}, or QGIS's Set Layer CRS)"
    )


def _crs_text(crs: Any) -> str:
    epsg = crs.to_epsg()
    return f"EPSG:{epsg}" if epsg is not None else str(crs.to_wkt())[:80] + "..."
