"""Hazard rasters on the DEM grid, from the per-cell accumulators of a run
(:mod:`tumble.rockfall.ensemble.cells`) or from one row per (rock, cell) with the rock's maxima.

One value per DEM sample, i.e. per GeoTIFF pixel; a rock is in the cell of the sample nearest to
its centre of mass:

* ``passing_count``: rocks whose centre of mass was in the cell after some step;
  ``reach_probability`` = passing_count / n_rocks; ``deposit_count``: rocks that stopped there;
* per cell, over the rocks passing it, of each rock's maximum in the cell:
  ``kinetic_energy_{max,mean,p95,p99}`` (kJ, translation plus rotation), ``velocity_max`` (m/s),
  ``rotational_velocity_max`` (rev/s), and ``jump_height_{max,p95}`` (m): the vertical height
  of the centre of mass above the terrain below it while the rock flew over the cell (no closed
  contact, after its first contact with the terrain: the fall from the release point is not a
  jump), 0 for a rock that rolled, slid or bounced through without flying there; so 0 m in a
  cell rocks reached and none flew over. ``jump_height_normal_{max,p95}`` (m): the same heights
  normal to the slope, the vertical ones times the cosine of the terrain's slope at the cell
  (:func:`slope_cosines`): the height of the centre above the terrain's tangent plane measured
  along its normal, exact on a plane, which is what a net's height (measured normal to the
  slope) is compared with. Cells no rock reached are NaN (nodata in the files). Percentiles
  interpolate linearly (numpy's default).

A run's rasters (:func:`rasters_from_cells`) come from the merged cell accumulators: counts and
maxima are exact, the mean is within 2^-25 J of the exact one, and the percentiles are within
0.78 % (:data:`~tumble.rockfall.ensemble.cells.RELATIVE_ERROR`) of the exact ones; all of them
are the same for any threads, chunking or Dask. They are held as a :class:`Rasters`: arrays over
the window of the cells rocks reached, which reads as a mapping of full (ny, nx) grids.
:func:`rasters_from_visits` computes the exact rasters from all visits at once (the reference of
the tests; memory grows with the rocks). To add a raster: compute it in both, and append its name
to :data:`RASTERS` (the order in which they are written) with its entry in :data:`RASTER_INFO`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tumble.rockfall.ensemble.cells import (
    N_BINS,
    add_rollers,
    bin_edges,
    bin_index,
    bin_percentile,
    energy_mean,
)
from tumble.rockfall.ensemble.energy_line import cell_minima
from tumble.rockfall.ensemble.intervals import (
    bin_quantile_interval,
    clopper_pearson,
    order_statistic_ranks,
)
from tumble.rockfall.ensemble.record import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED

#: raster names in the order they are written
RASTERS = (
    "reach_probability",
    "passing_count",
    "deposit_count",
    "kinetic_energy_max",
    "kinetic_energy_mean",
    "kinetic_energy_p95",
    "kinetic_energy_p99",
    "velocity_max",
    "rotational_velocity_max",
    "jump_height_max",
    "jump_height_p95",
    "jump_height_normal_max",
    "jump_height_normal_p95",
    "reach_probability_low",
    "reach_probability_high",
    "kinetic_energy_p95_low",
    "kinetic_energy_p95_high",
    "energy_line_angle",
)


@dataclass(frozen=True)
class RasterInfo:
    """What a raster holds: a description (the band description of the file), its unit,
    whether it is a count (written as unsigned integers) and the value its file's overviews
    show of each block (:data:`tumble.io.cog.POOLINGS`): the largest, the most hazardous, but
    for the energy line's angle the smallest, the farthest reach; a map zoomed out in a GIS
    hides no hazard in a mean."""

    description: str
    unit: str
    count: bool = False
    overviews: str = "max"


#: name -> what the raster holds; every name of :data:`RASTERS` has an entry
RASTER_INFO: dict[str, RasterInfo] = {
    "reach_probability": RasterInfo("fraction of released rocks whose centre passed the cell", "1"),
    "passing_count": RasterInfo("rocks whose centre passed the cell", "rocks", count=True),
    "deposit_count": RasterInfo("rocks that stopped in the cell", "rocks", count=True),
    "kinetic_energy_max": RasterInfo("maximum kinetic energy (translation + rotation)", "kJ"),
    "kinetic_energy_mean": RasterInfo(
        "mean over rocks of each rock's maximum kinetic energy", "kJ"
    ),
    "kinetic_energy_p95": RasterInfo(
        "95th percentile over rocks of the maximum kinetic energy", "kJ"
    ),
    "kinetic_energy_p99": RasterInfo(
        "99th percentile over rocks of the maximum kinetic energy", "kJ"
    ),
    "velocity_max": RasterInfo("maximum translational velocity of the centre of mass", "m/s"),
    "rotational_velocity_max": RasterInfo("maximum rotational velocity |omega| / 2 pi", "rev/s"),
    "jump_height_max": RasterInfo(
        "maximum vertical height of the centre of mass above the terrain in flight after the "
        "first contact (the fall from the release excluded; 0 where rocks rolled)",
        "m",
    ),
    "jump_height_p95": RasterInfo(
        "95th percentile over rocks of the vertical jump height in flight after the first "
        "contact (0 for a rock that rolled)",
        "m",
    ),
    "jump_height_normal_max": RasterInfo(
        "maximum jump height normal to the slope: the vertical one times the cosine of the "
        "slope at the cell (0 where rocks rolled)",
        "m",
    ),
    "jump_height_normal_p95": RasterInfo(
        "95th percentile over rocks of the jump height normal to the slope: the vertical one "
        "times the cosine of the slope at the cell (0 for a rock that rolled)",
        "m",
    ),
    "reach_probability_low": RasterInfo(
        "lower bound of the 95 % Clopper-Pearson interval of the reach probability", "1"
    ),
    "reach_probability_high": RasterInfo(
        "upper bound of the 95 % Clopper-Pearson interval of the reach probability", "1"
    ),
    "kinetic_energy_p95_low": RasterInfo(
        "lower bound of the 95 % distribution-free interval of kinetic_energy_p95 (order "
        "statistics, widened to the 1/64-octave histogram bins)",
        "kJ",
    ),
    "kinetic_energy_p95_high": RasterInfo(
        "upper bound of the 95 % distribution-free interval of kinetic_energy_p95 (order "
        "statistics, widened to the 1/64-octave histogram bins)",
        "kJ",
    ),
    "energy_line_angle": RasterInfo(
        "smallest energy-line angle over the rocks reaching the cell: atan of the drop from the "
        "terrain below the release to the cell over their horizontal distance",
        "degree",
        overviews="min",
    ),
}


def _segments(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, keys.size))
    return starts, counts


def cell_percentile(cells: np.ndarray, values: np.ndarray, q: float, size: int) -> np.ndarray:
    """Per-cell percentile ``q`` of ``values`` (linear interpolation, as numpy's default);
    NaN values are left out, cells without values are NaN."""
    out = np.full(size, np.nan)
    keep = np.isfinite(values)
    cells, values = cells[keep], values[keep]
    if cells.size == 0:
        return out
    order = np.lexsort((values, cells))
    c, v = cells[order], values[order]
    starts, counts = _segments(c)
    pos = q / 100.0 * (counts - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, counts - 1)
    frac = pos - lo
    a, b = v[starts + lo], v[starts + hi]
    out[c[starts]] = np.where(frac >= 0.5, b - (b - a) * (1.0 - frac), a + (b - a) * frac)
    return out


def cell_quantile_interval(
    cells: np.ndarray, values: np.ndarray, q: float, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the 95 % distribution-free interval of the ``q`` quantile (0-1) of its finite
    ``values`` from their exact order statistics, widened to the edges of the histogram bins
    that hold them (:mod:`tumble.rockfall.ensemble.intervals`): the interval the streamed
    histograms give. NaN where a cell has too few values."""
    low = np.full(size, np.nan)
    high = np.full(size, np.nan)
    keep = np.isfinite(values)
    cells, values = cells[keep], values[keep]
    if cells.size == 0:
        return low, high
    order = np.lexsort((values, cells))
    c, v = cells[order], values[order]
    starts, counts = _segments(c)
    rank_low, rank_high = order_statistic_ranks(counts, q)
    ok = (rank_low >= 1) & (rank_high <= counts)
    low[c[starts[ok]]] = bin_edges(bin_index(v[starts[ok] + rank_low[ok] - 1]))[0]
    high[c[starts[ok]]] = bin_edges(bin_index(v[starts[ok] + rank_high[ok] - 1]))[1]
    return low, high


def _cell_max(cells: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, -np.inf)
    keep = np.isfinite(values)
    np.maximum.at(out, cells[keep], values[keep])
    out[np.isneginf(out)] = np.nan
    return out


def slope_cosines(heights: np.ndarray, dx: float, dy: float, window: Window) -> np.ndarray:
    """The cosine of the terrain's slope at each sample of ``window`` of the DEM ``heights``
    (ny, nx) with spacings ``dx``, ``dy``: ``1 / sqrt(1 + z_x^2 + z_y^2)``, each slope ``z_x``,
    ``z_y`` the mean of the one-sided differences to the neighbouring samples with data (the
    central difference inside the DEM, one-sided at its edges and beside nodata; 0 along an
    axis where the sample has no neighbour with data): exact on a plane. NaN at a sample
    without data."""
    ny, nx = heights.shape
    j0, j1, i0, i1 = window
    z = np.full((j1 - j0 + 2, i1 - i0 + 2), np.nan)
    a, b, c, d = max(j0 - 1, 0), min(j1 + 1, ny), max(i0 - 1, 0), min(i1 + 1, nx)
    z[a - j0 + 1 : b - j0 + 1, c - i0 + 1 : d - i0 + 1] = heights[a:b, c:d]
    centre = z[1:-1, 1:-1]

    def mean_slope(forward: np.ndarray, backward: np.ndarray, spacing: float) -> np.ndarray:
        both = np.stack([forward, backward]) / abs(spacing)
        given = np.isfinite(both)
        count = given.sum(axis=0)
        total = np.where(given, both, 0.0).sum(axis=0)
        return total / np.maximum(count, 1)

    z_x = mean_slope(z[1:-1, 2:] - centre, centre - z[1:-1, :-2], dx)
    z_y = mean_slope(z[2:, 1:-1] - centre, centre - z[:-2, 1:-1], dy)
    return np.where(np.isfinite(centre), 1.0 / np.sqrt(1.0 + z_x**2 + z_y**2), np.nan)


def _cosines(terrain: Any, window: Window) -> np.ndarray:
    """:func:`slope_cosines` of ``terrain`` (an object with ``heights``, ``dx``, ``dy``) over
    ``window``; NaN without a terrain."""
    if terrain is None:
        return np.full((window.j1 - window.j0, window.i1 - window.i0), np.nan)
    heights = np.asarray(terrain.heights, dtype=np.float64)
    return slope_cosines(heights, float(terrain.dx), float(terrain.dy), window)


def with_rollers(
    cells: np.ndarray, count: np.ndarray, keys: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The jump histogram (``keys`` ``cell * N_BINS + bin``, sorted, and ``counts``) of the
    sorted ``cells`` with the rocks that passed a cell without flying there (``count`` passed,
    the histogram holds those that flew) added at jump height 0, in bin 0 (the first bin of the
    cell: one merge of the two sorted sequences,
    :func:`tumble.rockfall.ensemble.cells.add_rollers`)."""
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    out_key, out_count, ok = add_rollers(
        cells,
        np.ascontiguousarray(count, dtype=np.int64),
        keys,
        np.ascontiguousarray(counts, dtype=np.int64),
        N_BINS,
        int(bin_index(np.zeros(1))[0]),
    )
    if not ok:
        raise ValueError("the jump histogram holds a cell that no rock passed")
    return out_key, out_count


def rasters_from_visits(
    shape: tuple[int, int],
    n_rocks: int,
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_max: np.ndarray,
    deposit_cells: np.ndarray,
    visit_angle: np.ndarray | None = None,
    terrain: Any = None,
) -> dict[str, np.ndarray]:
    """The rasters of the module docstring from one row per (rock, cell) with the rock's maxima
    in the cell (kinetic energy J, speed, rotation rev/s, jump height or NaN: no flight there)
    and, optionally, its energy-line angle there (degrees; without it the raster is NaN) and
    the ``terrain`` (with ``heights``, ``dx``, ``dy``) whose slopes give the jump heights normal
    to it (without it those rasters are NaN)."""
    size = shape[0] * shape[1]
    order = np.lexsort((visit_rock, visit_cell))
    cells, values = visit_cell[order], visit_max[order]
    passing = np.bincount(cells, minlength=size).astype(np.float64)
    energy = values[:, Q_ENERGY] * 1e-3
    jump = np.where(np.isfinite(values[:, Q_JUMP]), values[:, Q_JUMP], 0.0)  # rolled: 0
    mean = np.full(size, np.nan)
    if cells.size:
        starts, counts = _segments(cells)
        mean[cells[starts]] = np.add.reduceat(energy, starts) / counts
    deposits = np.bincount(deposit_cells[deposit_cells >= 0], minlength=size).astype(np.float64)
    rasters = {
        "reach_probability": passing / n_rocks,
        "passing_count": passing,
        "deposit_count": deposits,
        "kinetic_energy_max": _cell_max(cells, energy, size),
        "kinetic_energy_mean": mean,
        "kinetic_energy_p95": cell_percentile(cells, energy, 95.0, size),
        "kinetic_energy_p99": cell_percentile(cells, energy, 99.0, size),
        "velocity_max": _cell_max(cells, values[:, Q_SPEED], size),
        "rotational_velocity_max": _cell_max(cells, values[:, Q_ROTATION], size),
        "jump_height_max": _cell_max(cells, jump, size),
        "jump_height_p95": cell_percentile(cells, jump, 95.0, size),
    }
    cosine = _cosines(terrain, Window(0, shape[0], 0, shape[1])).ravel()
    rasters["jump_height_normal_max"] = rasters["jump_height_max"] * cosine
    rasters["jump_height_normal_p95"] = rasters["jump_height_p95"] * cosine
    rasters["reach_probability_low"], rasters["reach_probability_high"] = clopper_pearson(
        passing, n_rocks
    )
    low, high = cell_quantile_interval(cells, values[:, Q_ENERGY], 0.95, size)
    # widened to the bins' edges, and never above the cell's largest value
    largest = rasters["kinetic_energy_max"]
    rasters["kinetic_energy_p95_low"] = np.minimum(low * 1e-3, largest)
    rasters["kinetic_energy_p95_high"] = np.minimum(high * 1e-3, largest)
    angle = np.full(size, np.nan)
    if visit_angle is not None:
        minima = cell_minima(visit_cell, visit_angle)
        angle[minima["angle_cell"]] = minima["angle_min"]
    rasters["energy_line_angle"] = angle
    return {name: rasters[name].reshape(shape) for name in RASTERS}


def nearest_cells(terrain: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Index ``j nx + i`` of the sample nearest to each point, -1 off the grid (``terrain``: any
    object with ``heights``, ``x0``, ``y0``, ``dx``, ``dy``, such as a Terrain)."""
    ny, nx = terrain.heights.shape
    u = np.floor((np.asarray(x) - terrain.x0) / terrain.dx + 0.5)
    v = np.floor((np.asarray(y) - terrain.y0) / terrain.dy + 0.5)
    ok = (u >= 0) & (v >= 0) & (u < nx) & (v < ny)
    return np.where(ok, v * nx + u, -1).astype(np.int64)


#: rasters that are 0, not NaN, where no rock came
ZERO_OUTSIDE = ("reach_probability", "passing_count", "deposit_count", "reach_probability_low")


class Window(NamedTuple):
    """Rows ``j0 .. j1 - 1`` and columns ``i0 .. i1 - 1`` of the DEM grid."""

    j0: int
    j1: int
    i0: int
    i1: int


class Rasters(Mapping[str, np.ndarray]):
    """The hazard rasters of a run: float64 arrays over ``window`` (the cells rocks reached),
    0 (counts, reach probability) or NaN (values) elsewhere.

    ``rasters[name]`` builds the full (ny, nx) grid (a new array each time);
    :meth:`in_window` gives the window's array without building it. :meth:`with_grids` adds
    rasters given on the whole grid (zoning, forest maps), which are returned as they are."""

    def __init__(
        self,
        shape: tuple[int, int],
        window: Window,
        values: dict[str, np.ndarray],
        outside: Mapping[str, float] | None = None,
    ):
        self._outside = dict(outside or {})
        self.shape = (int(shape[0]), int(shape[1]))
        self.window = Window(*(int(v) for v in window))
        size = (self.window.j1 - self.window.j0, self.window.i1 - self.window.i0)
        for name, grid in values.items():
            if grid.shape != size:
                raise ValueError(f"raster {name}: shape {grid.shape}, window {size}")
        self._values = dict(values)
        self._grids: dict[str, np.ndarray] = {}

    def with_grids(self, grids: Mapping[str, np.ndarray]) -> Rasters:
        """These rasters and ``grids`` (name -> an array of the whole grid's shape, which
        replaces a windowed raster of the same name), without building any full grid."""
        out = Rasters(self.shape, self.window, self._values, self._outside)
        out._grids = dict(self._grids)
        for name, grid in grids.items():
            if np.shape(grid) != self.shape:
                raise ValueError(f"raster {name}: shape {np.shape(grid)}, grid {self.shape}")
            out._values.pop(name, None)
            out._grids[name] = grid
        return out

    def is_grid(self, name: str) -> bool:
        """Whether ``name`` was given on the whole grid (:meth:`with_grids`)."""
        return name in self._grids

    def in_window(self, name: str) -> np.ndarray:
        """The raster over :attr:`window` (not a copy)."""
        if name in self._grids:
            w = self.window
            return self._grids[name][w.j0 : w.j1, w.i0 : w.i1]
        return self._values[name]

    def background(self, name: str) -> float:
        """The value outside the window: 0 for the counts and the reach probability, the upper
        bound of a count of 0 for ``reach_probability_high``, NaN else."""
        if name in self._outside:
            return self._outside[name]
        return 0.0 if name in ZERO_OUTSIDE else np.nan

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._grids:
            return self._grids[name]
        inner = self._values[name]
        grid = np.full(self.shape, self.background(name))
        w = self.window
        grid[w.j0 : w.j1, w.i0 : w.i1] = inner
        return grid

    def __contains__(self, name: object) -> bool:
        # not Mapping's, which would build the full grid to answer
        return name in self._values or name in self._grids

    def __iter__(self) -> Iterator[str]:
        return iter([*self._values, *self._grids])

    def __len__(self) -> int:
        return len(self._values) + len(self._grids)


def cells_window(shape: tuple[int, int], cells: np.ndarray) -> Window:
    """The smallest window holding the cells ``j nx + i`` (cells < 0 ignored); one cell at the
    origin when there are none."""
    cells = cells[cells >= 0]
    if cells.size == 0:
        return Window(0, 1, 0, 1)
    j, i = np.divmod(cells, shape[1])
    return Window(int(j.min()), int(j.max()) + 1, int(i.min()), int(i.max()) + 1)


def rasters_from_cells(
    shape: tuple[int, int],
    n_rocks: int,
    merged: dict[str, np.ndarray],
    deposit_cells: np.ndarray,
    angles: dict[str, np.ndarray] | None = None,
    terrain: Any = None,
) -> Rasters:
    """The rasters of the module docstring from a merged cell reduction
    (:func:`tumble.rockfall.ensemble.cells.merge_cells`), the cells where rocks stopped, the
    per-cell smallest energy-line angles (:mod:`tumble.rockfall.ensemble.energy_line`; without
    them that raster is NaN) and the ``terrain`` (with ``heights``, ``dx``, ``dy``) whose slopes
    give the jump heights normal to it (without it those rasters are NaN). The reduction's
    jump histogram holds the rocks that flew; those that rolled through a cell are added there
    at 0 (:func:`with_rollers`)."""
    cells = merged["cell_index"]
    deposits = deposit_cells[deposit_cells >= 0]
    window = cells_window(shape, np.concatenate([cells, deposits]))
    ny_w, nx_w = window.j1 - window.j0, window.i1 - window.i0

    def local(c: np.ndarray) -> np.ndarray:
        j, i = np.divmod(c, shape[1])
        return (j - window.j0) * nx_w + (i - window.i0)

    at = local(cells)
    size = ny_w * nx_w
    count = merged["cell_count"].astype(np.float64)
    maxima = merged["cell_max"]
    jump = np.where(np.isfinite(maxima[:, Q_JUMP]), maxima[:, Q_JUMP], 0.0)  # rolled: 0

    def grid(values: np.ndarray, fill: float = np.nan) -> np.ndarray:
        out = np.full(size, fill)
        out[at] = values
        return out.reshape(ny_w, nx_w)

    def percentile(name: str, q: float, largest: np.ndarray) -> np.ndarray:
        # read from histogram bins, with the cell's exact largest value for its top rank: never
        # above it, and a cell one rock passed has that rock's value, not its bin's
        keys, counts = merged[f"{name}_bin_key"], merged[f"{name}_bin_count"]
        if name == "jump":
            keys, counts = with_rollers(cells, merged["cell_count"], keys, counts)
        return bin_percentile(cells, keys, counts, q, largest)

    passing = grid(count, 0.0)
    deposit = np.bincount(local(deposits), minlength=size).astype(np.float64)
    values = {
        "reach_probability": passing / n_rocks,
        "passing_count": passing,
        "deposit_count": deposit.reshape(ny_w, nx_w),
        "kinetic_energy_max": grid(maxima[:, Q_ENERGY] * 1e-3),
        "kinetic_energy_mean": grid(energy_mean(merged) * 1e-3),
        "kinetic_energy_p95": grid(percentile("energy", 95.0, maxima[:, Q_ENERGY]) * 1e-3),
        "kinetic_energy_p99": grid(percentile("energy", 99.0, maxima[:, Q_ENERGY]) * 1e-3),
        "velocity_max": grid(maxima[:, Q_SPEED]),
        "rotational_velocity_max": grid(maxima[:, Q_ROTATION]),
        "jump_height_max": grid(jump),
        "jump_height_p95": grid(percentile("jump", 95.0, jump)),
    }
    cosine = _cosines(terrain, window)
    values["jump_height_normal_max"] = values["jump_height_max"] * cosine
    values["jump_height_normal_p95"] = values["jump_height_p95"] * cosine
    values["reach_probability_low"], values["reach_probability_high"] = clopper_pearson(
        passing, n_rocks
    )
    low, high = bin_quantile_interval(
        cells, merged["energy_bin_key"], merged["energy_bin_count"], 0.95
    )
    values["kinetic_energy_p95_low"] = grid(np.minimum(low, maxima[:, Q_ENERGY]) * 1e-3)
    values["kinetic_energy_p95_high"] = grid(np.minimum(high, maxima[:, Q_ENERGY]) * 1e-3)
    angle = np.full(size, np.nan)
    if angles is not None and angles["angle_cell"].size:
        inside = np.isin(angles["angle_cell"], cells)
        angle[local(angles["angle_cell"][inside])] = angles["angle_min"][inside]
    values["energy_line_angle"] = angle.reshape(ny_w, nx_w)
    outside = {"reach_probability_high": float(clopper_pearson(np.zeros(1), n_rocks)[1][0])}
    return Rasters(shape, window, {name: values[name] for name in RASTERS}, outside)
