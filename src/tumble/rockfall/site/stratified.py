"""Stratified releases of a site (``[release] sampling = "stratified"``): the release areas, rock
classes and release cells of a run by the strata of :mod:`tumble.rockfall.release.strata`.

The release cells of a polygon area are the valid cells of the DEM (:attr:`Terrain.valid_cells
<tumble.rockfall.terrain.Terrain.valid_cells>`) that it overlaps, each weighted by the area of
its piece of the polygon (exact, with shapely); those of a source raster are its releasing
cells, weighted by their values. The cells of an area are ordered along a Hilbert curve
(:func:`tumble.rockfall.release.strata.hilbert_order`), so that the rocks of a stratum start in
one compact patch. A rock's place is uniform over its cell's piece (pairs of uniforms of its
release stream in the piece's bounding box until one falls inside the area). When that point is
off the terrain (a raster cell over a nodata area, round-off at a cell's edge) or the rock does
not fit there (its hull reaches off the DEM), its place is drawn again as with plain sampling,
uniform over the whole area on the DEM, which keeps every rock's distribution exactly that of
plain sampling. A release point, line or typed-in polygon is not divided into cells: its places
are those of plain sampling, and its rock classes are stratified.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tumble.errors import ConfigError
from tumble.rockfall.release.first_places import box_batches
from tumble.rockfall.release.polygons import inside_rings, region
from tumble.rockfall.release.strata import Strata, hilbert_order, split
from tumble.rockfall.site.areas import BATCH, MAX_BATCHES, ReleaseAreas

if TYPE_CHECKING:
    from tumble.rockfall.site.rock_classes import RockClass
    from tumble.rockfall.terrain import Terrain


def polygon_cells(rings: Sequence[np.ndarray], terrain: Terrain) -> tuple[np.ndarray, np.ndarray]:
    """The release cells of a polygon area (module docstring): ``(bounds (m, 4), weights
    (m,))``, the bounding box ``x_min, x_max, y_min, y_max`` of each valid DEM cell's piece of the
    polygon and the piece's area (m^2), in the Hilbert order of the cells."""
    import shapely

    corners = np.vstack([np.asarray(r, dtype=np.float64)[:, :2] for r in rings])
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    valid = terrain.valid_cells
    ny, nx = valid.shape
    x0, y0, dx, dy = terrain.x0, terrain.y0, terrain.dx, terrain.dy
    i0 = int(np.clip(np.floor((lo[0] - x0) / dx), 0, nx))
    i1 = int(np.clip(np.ceil((hi[0] - x0) / dx), 0, nx))
    j0 = int(np.clip(np.floor((lo[1] - y0) / dy), 0, ny))
    j1 = int(np.clip(np.ceil((hi[1] - y0) / dy), 0, ny))
    jj, ii = np.nonzero(valid[j0:j1, i0:i1])
    boxes = shapely.box(
        x0 + (i0 + ii) * dx, y0 + (j0 + jj) * dy, x0 + (i0 + ii + 1) * dx, y0 + (j0 + jj + 1) * dy
    )
    area = region(rings)
    shapely.prepare(area)
    pieces = shapely.intersection(area, boxes)
    weights = np.asarray(shapely.area(pieces), dtype=np.float64)
    keep = weights > 0.0
    order = hilbert_order(ii[keep], jj[keep])
    bounds = np.asarray(shapely.bounds(pieces[keep]), dtype=np.float64)[order]
    return np.ascontiguousarray(bounds[:, [0, 2, 1, 3]]), weights[keep][order]


def raster_cells(cells: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The releasing cells of a source raster ``cells`` (m, 4) ``x_min, x_max, y_min, y_max``
    with their ``weights`` (m,), in the Hilbert order of the cells."""
    width = float(cells[0, 1] - cells[0, 0])
    height = float(cells[0, 3] - cells[0, 2])
    i = np.rint((cells[:, 0] - cells[:, 0].min()) / width).astype(np.int64)
    j = np.rint((cells[:, 2] - cells[:, 2].min()) / height).astype(np.int64)
    order = hilbert_order(i, j)
    return np.ascontiguousarray(cells[order]), np.asarray(weights, dtype=np.float64)[order]


class StratifiedAreas(ReleaseAreas):
    """Release areas whose rocks are split over the areas, and placed in the areas' cells, by
    their strata (module docstring)."""

    def __init__(self, areas: ReleaseAreas, strata: Strata, terrain: Terrain) -> None:
        self.__dict__.update(areas.__dict__)
        if strata.source.shape != (self.rocks,):
            raise ValueError(f"strata of {strata.source.size} rocks for {self.rocks} rocks")
        self.strata = strata
        self.counts = strata.counts(len(self.areas))
        self.first = np.concatenate([[0], np.cumsum(self.counts)])
        self.pieces: list[np.ndarray] = []
        self.cell_of = np.zeros(self.rocks, dtype=np.int64)
        for s, area in enumerate(self.areas):
            if self.cells is not None and self.cdf is not None:
                bounds, weights = raster_cells(self.cells, np.diff(self.cdf, prepend=0.0))
            else:
                bounds, weights = polygon_cells(area.rings, terrain)
            if weights.size == 0:
                raise ValueError(f"release area {area.name!r}: no valid cell of the DEM in it")
            mine = strata.source == s
            if mine.any():
                self.cell_of[mine] = split(strata.rest[mine], weights)[0]
            self.pieces.append(bounds)

    def source_of(self, k: int | np.ndarray) -> np.ndarray:
        """The area index of rock(s) ``k``, from their strata."""
        k = np.asarray(k)
        if np.any(k < 0) or np.any(k >= self.rocks):
            raise ValueError(f"rock index outside [0, {self.rocks})")
        return self.strata.source[k]

    def first_places(
        self, uniforms: np.ndarray, rocks: np.ndarray, terrain: Terrain | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The places in their cells of ``rocks`` (n,) from the first uniforms of their streams
        ``uniforms`` (n, m) as :meth:`place` draws them, for all at once; -1 in ``used`` for a
        rock whose first point inside is off the terrain or not among the uniforms (left to
        :meth:`place`; :mod:`tumble.rockfall.release.first_places`)."""
        xy, used = np.full((rocks.size, 2), np.nan), np.full(rocks.size, -1, dtype=np.int64)
        source = self.strata.source[rocks]
        for s in np.unique(source):
            mine = np.flatnonzero(source == s)
            boxes = self.pieces[int(s)][self.cell_of[rocks[mine]]]
            grid = self.grid(int(s)) if self.areas[int(s)].rings else None
            xy[mine], used[mine] = box_batches(
                uniforms[mine], boxes, grid, terrain, BATCH, on_terrain_first=False
            )
        return xy, used

    def place(
        self,
        rng: np.random.Generator,
        k: int,
        terrain: Terrain | None = None,
        again: bool = False,
    ) -> tuple[float, float]:
        """The start (x, y) of rock ``k`` in its cell, drawn from its stream ``rng``; drawn as
        with plain sampling when it is off ``terrain`` or ``again`` (module docstring)."""
        if again:
            return super().place(rng, k, terrain)
        s = int(self.strata.source[k])
        x_min, x_max, y_min, y_max = self.pieces[s][self.cell_of[k]]
        rings = self.areas[s].rings
        for _ in range(MAX_BATCHES):
            pairs = rng.random((BATCH, 2))
            xs = x_min + pairs[:, 0] * (x_max - x_min)
            ys = y_min + pairs[:, 1] * (y_max - y_min)
            inside = inside_rings(xs, ys, rings) if rings else np.ones(BATCH, dtype=bool)
            hit = np.flatnonzero(inside)
            if hit.size:
                x, y = float(xs[hit[0]]), float(ys[hit[0]])
                if terrain is None or bool(terrain.contains(x, y)):
                    return x, y
                return super().place(rng, k, terrain)
        raise ValueError(
            f"release area {self.areas[s].name!r}: no point inside its cell "
            f"{int(self.cell_of[k])} was drawn in {MAX_BATCHES * BATCH} tries"
        )


def stratified_release(
    sampling: str,
    areas: ReleaseAreas | None,
    classes: Sequence[RockClass] | None,
    rocks: int,
    seed: int,
    terrain: Terrain,
) -> tuple[ReleaseAreas | None, np.ndarray | None]:
    """``(areas, class_id)`` of a run of ``rocks`` rocks: with ``sampling = "stratified"`` the
    areas as :class:`StratifiedAreas` and the rock class of every rock from the strata (None
    without classes); with ``"random"`` the areas as given and None. ConfigError for a
    stratified run with neither release areas nor rock classes (nothing to stratify)."""
    if sampling == "random":
        return areas, None
    if sampling != "stratified":
        raise ConfigError(
            f"release.sampling must be 'random' or 'stratified', got {sampling!r}",
            "release.sampling",
        )
    if areas is None and not classes:
        raise ConfigError(
            "release.sampling = 'stratified' divides release areas (release.areas, "
            "release.raster) and rock classes ([[rock.classes]]) into strata; this run has "
            "neither, so there is nothing to stratify: leave release.sampling at 'random'",
            "release.sampling",
        )
    weights = [a.weight for a in areas.areas] if areas is not None else [1.0]
    shares = [c.share for c in classes] if classes else [1.0]
    strata = Strata.draw(seed, rocks, weights, shares)
    try:
        stratified = None if areas is None else StratifiedAreas(areas, strata, terrain)
    except ValueError as err:
        raise ConfigError(str(err), "release.sampling") from err
    return stratified, (strata.class_id if classes else None)
