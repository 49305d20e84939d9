"""Terrain: a regular DEM with the bilinear surface of Leine et al. 2014, section 3.3.

Grid convention: ``heights[j, i]`` is the height at ``x = x0 + i dx``, ``y = y0 + j dy`` with
``dx, dy > 0`` (rows run south to north, ``y`` grows with ``j``). The samples are the **pixel
centres** of a GeoTIFF: a north-up file with transform ``(a, 0, c, 0, e, f)``, ``e < 0``, gives
``x0 = c + a/2``, ``y0 = f + (nrows - 1/2) e`` and its rows reversed; ESRI ASCII grids with
``xllcorner`` or ``xllcenter`` headers are both honoured (:mod:`tumble.io.dem` states the
conversions; writing inverts them exactly, so a DEM survives a round trip).

The surface is the bilinear interpolant of the samples with the upward normal of L14 eq. 7
(formulas and compiled kernels in :mod:`tumble.rockfall.step.surface`). It is defined on the
rectangle spanned by the outer sample centres (:attr:`Terrain.bounds`), half a cell smaller on
each side than a GeoTIFF's pixel extent. Cells may be non-square (``dx != dy``); rotated or
sheared grids are refused.

Holes: nodata samples of the DEM are NaN. Every cell with a NaN corner is outside the domain,
like the area beyond the grid's edge: a rock reaching it has left the DEM (status ``left``), a
point there has no height (:meth:`Terrain.contains` is False). Messages name such a point as
"in a nodata area of the DEM" when it lies inside the DEM's rectangle, and "outside the DEM"
only beyond it (:meth:`Terrain.off_terrain`). A terrain needs at least one
cell with four valid corners. Soil rasters may have nodata only where the DEM has (such samples
are never read and are stored as 0).

Coordinate reference system: the engine works in metres. :meth:`Terrain.from_file` refuses a
DEM whose CRS is geographic (degrees) or whose linear unit is not the metre (feet), naming the
CRS and the command that reprojects it, unless it is asked to reproject the DEM
(``reproject="EPSG:XXXX"``, a projected CRS in metres; :func:`tumble.io.dem.reproject_grid`).
A DEM labelled geographic whose coordinates cannot be degrees is refused as a wrong label
(``crs=`` assigns the right one, as ``gdal_edit.py -a_srs`` does), and a nodata fill the file
does not tag (-9999...) as such (``nodata=`` tags it, as ``gdal_edit.py -a_nodata`` does).

Errors: a DEM that cannot be used (CRS, grid, nodata) and a point off the terrain raise
:class:`tumble.errors.DemError`, a soil raster that does not fit it
:class:`tumble.errors.DataError`; both are ``ValueError`` s.

Per-cell soil parameters are optional rasters on the same grid (:data:`SOIL_RASTERS`),
interpolated bilinearly like the heights (zone ids by the nearest sample); uniform values
belong to the soil model, not to the terrain.

Citation: R. I. Leine, A. Schweizer, M. Christen, J. Glover, P. Bartelt, W. Gerber, Simulation of
rockfall trajectories with consideration of rock shape, Multibody Syst. Dyn. 32 (2014) 241-271.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from tumble.errors import DataError, DemError
from tumble.io.dem import (
    north_up_transform,
    read_dem,
    read_raster,
    write_raster,
)
from tumble.io.resample import resample_to_grid
from tumble.rockfall.grid_checks import (
    degenerate_message,
    frozen_grid,
    has_full_cell,
    holes_message,
    whole_cells,
)
from tumble.rockfall.scenarios import scenario
from tumble.rockfall.soil import FIELDS as SOIL_FIELDS
from tumble.rockfall.step.surface import (
    EDGE_SLACK,
    bilinear,
    bilinear_batch,
    surface,
    surface_batch,
)

__all__ = [
    "EDGE_SLACK",
    "SOIL_RASTERS",
    "Bounds",
    "Terrain",
    "bilinear",
    "bilinear_batch",
    "surface",
    "surface_batch",
]

#: Names of the per-cell soil rasters a terrain may carry ("zone" holds integer zone ids).
SOIL_RASTERS = (*SOIL_FIELDS, "zone")


class Bounds(NamedTuple):
    """Rectangle on which the bilinear surface is defined (outer sample centres)."""

    x_min: float
    y_min: float
    x_max: float
    y_max: float


@dataclass(frozen=True, eq=False, repr=False)
class Terrain:
    """A regular DEM and optional per-cell soil rasters (see the module docstring).

    Attributes are read-only: ``heights`` (ny, nx) C-contiguous float64, NaN in nodata holes;
    the grid ``x0, y0, dx, dy`` (sample ``heights[j, i]`` at ``x0 + i dx, y0 + j dy``); ``crs`` (a
    rasterio ``CRS`` or None; anything ``CRS.from_user_input`` takes is accepted);
    ``transform``, the north-up GeoTIFF transform of the grid (pixel-centre samples; derived from
    the grid when not given, kept exactly when read from a file so that writing reproduces it);
    ``nodata``, the nodata value of the source file (metadata only; holes are NaN);
    ``soil``, a dict name -> (ny, nx) float64 raster with names from :data:`SOIL_RASTERS`.

    Build one with :meth:`from_file`, :meth:`from_array`, :meth:`plane` or :meth:`scenario`.
    """

    heights: np.ndarray
    x0: float
    y0: float
    dx: float
    dy: float
    crs: Any = None
    transform: Any = None
    nodata: float | None = None
    soil: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        heights = frozen_grid(self.heights, "the DEM heights")
        ny, nx = heights.shape
        if ny < 2 or nx < 2:
            raise DemError(
                f"a DEM needs at least 2 x 2 samples (one cell) for the bilinear surface; "
                f"got {ny} x {nx} (rows x columns)"
            )
        grid = {name: getattr(self, name) for name in ("x0", "y0", "dx", "dy")}
        for name, value in grid.items():
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise DemError(f"DEM {name} must be a number; got {value!r}") from None
            if not math.isfinite(value):
                raise DemError(f"DEM {name} must be finite; got {value}")
            grid[name] = value
        if grid["dx"] <= 0 or grid["dy"] <= 0:
            raise DemError(
                f"DEM spacing must be positive (dx, dy > 0, y growing with the row index); "
                f"got dx = {grid['dx']}, dy = {grid['dy']}"
            )
        x0, y0, dx, dy = grid["x0"], grid["y0"], grid["dx"], grid["dy"]
        holes = np.isnan(heights)
        if np.isinf(heights).any():
            raise DemError("the DEM heights contain infinite values")
        if holes.any() and not has_full_cell(holes):
            raise DemError(
                f"the DEM has {int(holes.sum())} nodata samples out of {heights.size} and no cell "
                "with four valid corners: nothing is left to simulate on"
            )
        message = degenerate_message(heights, x0, y0, dx, dy)
        if message:
            raise DemError(message)
        crs = self.crs
        if crs is not None:
            from rasterio.crs import CRS

            if not isinstance(crs, CRS):
                try:
                    crs = CRS.from_user_input(crs)
                except Exception as err:
                    raise DemError(f"unknown coordinate reference system {crs!r}: {err}") from None
        transform = self.transform
        if transform is None:
            transform = north_up_transform(x0, y0, dx, dy, ny)
        elif not (
            transform.b == 0.0
            and transform.d == 0.0
            and transform.a == dx
            and transform.e == -dy
            and abs(transform.c + 0.5 * dx - x0) <= 1e-9 * dx
            and abs(transform.f - (ny - 0.5) * dy - y0) <= 1e-9 * dy
        ):
            raise DemError(
                f"transform {tuple(transform)[:6]} is not the north-up transform of the grid "
                f"x0 = {x0}, y0 = {y0}, dx = {dx}, dy = {dy} with {ny} rows"
            )
        nodata = None if self.nodata is None else float(self.nodata)
        soil = {}
        for name, raster in dict(self.soil).items():
            if name not in SOIL_RASTERS:
                raise ValueError(f"unknown soil raster {name!r}; known: {', '.join(SOIL_RASTERS)}")
            values = frozen_grid(raster, f"soil raster {name!r}")
            if values.shape != heights.shape:
                raise DataError(
                    f"soil raster {name!r} has shape {values.shape}, the DEM {heights.shape}; "
                    "soil rasters must be on the DEM's grid"
                )
            if holes.any() and np.isnan(values[holes]).any():
                # samples in the DEM's holes are never read: store them as 0
                values = np.where(holes, np.nan_to_num(values, nan=0.0), values)
                values = frozen_grid(values, f"soil raster {name!r}")
            message = holes_message(values, f"soil raster {name!r}", x0, y0, dx, dy)
            if message:
                raise DataError(message)
            if name == "zone" and not np.array_equal(values, np.round(values)):
                raise DataError("soil raster 'zone' must hold integer zone ids")
            soil[name] = values
        for name, value in [
            ("heights", heights),
            *grid.items(),
            ("crs", crs),
            ("transform", transform),
            ("nodata", nodata),
            ("soil", soil),
        ]:
            object.__setattr__(self, name, value)

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def from_array(
        cls,
        heights: ArrayLike,
        x0: float = 0.0,
        y0: float = 0.0,
        dx: float = 1.0,
        dy: float | None = None,
        crs: Any = None,
        soil: Mapping[str, Any] | None = None,
    ) -> Terrain:
        """A terrain from ``heights[j, i]`` at ``x0 + i dx, y0 + j dy`` (``dy`` defaults to
        ``dx``). The array is copied."""
        return cls(
            heights=frozen_grid(heights, "the DEM heights"),
            x0=x0,
            y0=y0,
            dx=dx,
            dy=dx if dy is None else dy,
            crs=crs,
            soil=dict(soil or {}),
        )

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike,
        soil: Mapping[str, Any] | None = None,
        band: int = 1,
        reproject: Any = None,
        nodata: float | None = None,
        crs: Any = None,
    ) -> Terrain:
        """Read a DEM from a GeoTIFF (``.tif``, ``.tiff``) or ESRI ASCII grid (``.asc``).

        ``soil`` maps names of :data:`SOIL_RASTERS` to raster files or arrays on the same grid.
        Nodata cells become holes (module docstring); ``nodata`` is a fill value to take as
        nodata besides the file's tag (configuration key ``dem_nodata``), ``crs`` the CRS the
        file's coordinates are in when its label is missing or wrong (``dem_crs``; replaces the
        label). A fill value the file does not tag (-9999, -32768, -3.4e38, or a lowest height
        far below the rest: :func:`tumble.io.dem_checks.fill_problem`) is refused naming the value,
        its cells and how to tag it. A DEM whose CRS is geographic or not in metres is refused
        with a message naming the CRS and how to reproject it, unless ``reproject`` names a
        projected CRS in metres (``"EPSG:32632"``): the DEM is then warped to it (bilinear)
        and, when its CRS is in feet, its heights are converted to metres too (unless its band
        unit says metres). A DEM labelled geographic whose coordinates cannot be degrees is
        refused either way, saying the label is wrong.
        :class:`~tumble.errors.DemError` for a DEM in degrees or feet, a wrong CRS label, an
        untagged fill, no cell without holes or fewer than 2 x 2 samples;
        :class:`~tumble.errors.DataError` for a missing or unreadable file, an unsupported
        suffix, a rotated or sheared grid, or soil rasters on another grid.
        """
        dem = read_dem(path, band=band, nodata=nodata, crs=crs, reproject=reproject)
        transform = dem.transform
        if not (transform.b == 0 and transform.d == 0 and transform.a > 0 and transform.e < 0):
            transform = None
        try:
            return cls(
                heights=dem.values,
                x0=dem.x0,
                y0=dem.y0,
                dx=dem.dx,
                dy=dem.dy,
                crs=dem.crs,
                transform=transform,
                nodata=dem.nodata,
            ).with_soil(**(soil or {}))
        except DataError as err:
            raise type(err)(f"{dem.path}: {err}") from None
        except ValueError as err:
            raise ValueError(f"{dem.path}: {err}") from None

    @classmethod
    def plane(
        cls,
        slope_deg: float,
        size: tuple[float, float] = (100.0, 50.0),
        spacing: float | tuple[float, float] = 1.0,
    ) -> Terrain:
        """A planar slope descending along +x: ``z = (lx - x) tan(slope)``.

        ``x`` runs from 0 to ``lx`` (height ``lx tan(slope)`` at the top, 0 at the foot) and
        ``y`` from ``-ly/2`` to ``ly/2``, so ``y = 0`` is the centre line. ``size = (lx, ly)``
        must be whole numbers of cells of ``spacing`` (a number or ``(dx, dy)``). A slope of 0
        gives flat ground, a negative slope ascends along +x.
        """
        slope = float(slope_deg)
        if not (math.isfinite(slope) and abs(slope) < 90.0):
            raise ValueError(f"slope must be in (-90, 90) degrees; got {slope_deg}")
        # np.isscalar narrows to every scalar type numpy knows (the checker cannot tell that only
        # the float of the signature remains), hence the casts
        if np.isscalar(spacing):
            dx = dy = cast(float, spacing)
        else:
            dx, dy = cast(tuple[float, float], spacing)
        lx, ly = (float(v) for v in size)
        cells_x = whole_cells(lx, float(dx), "plane length")
        cells_y = whole_cells(ly, float(dy), "plane width")
        drop = (cells_x - np.arange(cells_x + 1)) * float(dx) * math.tan(math.radians(slope))
        heights = np.broadcast_to(drop, (cells_y + 1, cells_x + 1))
        return cls.from_array(heights, x0=0.0, y0=-0.5 * ly, dx=dx, dy=dy)

    @classmethod
    def scenario(cls, name: str) -> Terrain:
        """A built-in synthetic terrain by name (:mod:`tumble.rockfall.scenarios`)."""
        grid = scenario(name)
        return cls.from_array(grid.heights, x0=grid.x0, y0=grid.y0, dx=grid.dx, dy=grid.dy)

    def with_soil(self, **rasters: ArrayLike | str | os.PathLike) -> Terrain:
        """A copy with soil rasters added or replaced (arrays on this grid or raster files)."""
        soil: dict[str, Any] = dict(self.soil)  # arrays or array-likes, frozen by __post_init__
        for name, source in rasters.items():
            if isinstance(source, (str, os.PathLike)):
                raster = read_raster(source)
                same = (
                    raster.shape == self.shape
                    and raster.dx == self.dx
                    and raster.dy == self.dy
                    and abs(raster.x0 - self.x0) <= 1e-9 * self.dx
                    and abs(raster.y0 - self.y0) <= 1e-9 * self.dy
                )
                if not same:
                    raise DataError(
                        f"soil raster {name!r} ({source}) is not on the DEM's grid: "
                        f"{raster.shape[0]} x {raster.shape[1]} samples from "
                        f"({raster.x0:g}, {raster.y0:g}) spaced {raster.dx:g} x {raster.dy:g}, "
                        f"the DEM {self.shape[0]} x {self.shape[1]} from "
                        f"({self.x0:g}, {self.y0:g}) spaced {self.dx:g} x {self.dy:g}"
                    )
                source = raster.values
            soil[name] = source
        return dataclasses.replace(self, soil=soil)

    def resample(self, path: str | os.PathLike, what: str = "raster") -> np.ndarray:
        """Band 1 of the raster ``path`` on this DEM's grid, in any grid and CRS, by nearest
        neighbour (:func:`tumble.io.resample.resample_to_grid`; NaN for nodata)."""
        return resample_to_grid(
            path, self.x0, self.y0, self.dx, self.dy, self.shape, self.crs, what
        )

    # --- geometry ----------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nx)``: rows (along y) and columns (along x) of samples."""
        return self.heights.shape

    @property
    def holes(self) -> int:
        """Number of nodata (NaN) samples of the DEM."""
        return int(np.count_nonzero(np.isnan(self.heights)))

    @property
    def bounds(self) -> Bounds:
        """``(x_min, y_min, x_max, y_max)`` of the surface: the outer sample centres."""
        ny, nx = self.heights.shape
        return Bounds(self.x0, self.y0, self.x0 + (nx - 1) * self.dx, self.y0 + (ny - 1) * self.dy)

    @property
    def grid_x(self) -> np.ndarray:
        """x of the sample columns, shape (nx,)."""
        return self.x0 + self.dx * np.arange(self.heights.shape[1])

    @property
    def grid_y(self) -> np.ndarray:
        """y of the sample rows, shape (ny,)."""
        return self.y0 + self.dy * np.arange(self.heights.shape[0])

    def _points(self, x: ArrayLike, y: ArrayLike) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
        xs, ys = np.broadcast_arrays(
            np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        )
        shape = xs.shape
        xs = np.ascontiguousarray(xs).reshape(-1)
        ys = np.ascontiguousarray(ys).reshape(-1)
        bad = ~(np.isfinite(xs) & np.isfinite(ys))
        if bad.any():
            raise ValueError(f"{int(bad.sum())} point(s) have non-finite coordinates")
        return shape, xs, ys

    @property
    def extent_text(self) -> str:
        """``"x in [x_min, x_max], y in [y_min, y_max]"``, the rectangle of the surface."""
        b = self.bounds
        return f"x in [{b.x_min:.10g}, {b.x_max:.10g}], y in [{b.y_min:.10g}, {b.y_max:.10g}]"

    def within_extent(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Whether each point lies in the DEM's rectangle (:attr:`bounds`), on a valid cell or
        not: a point in it that is not on the terrain (:meth:`contains`) is in a nodata area."""
        b = self.bounds
        xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        return (b.x_min <= xs) & (xs <= b.x_max) & (b.y_min <= ys) & (ys <= b.y_max)

    def off_terrain(self, x: float, y: float) -> str:
        """Where a point that is not on the terrain lies, as messages say it: ``"in a nodata
        area of the DEM"`` inside the DEM's rectangle (a cell with a nodata corner), ``"outside
        the DEM, which covers x in [...], y in [...]"`` beyond it."""
        if bool(self.within_extent(x, y)):
            return "in a nodata area of the DEM"
        return f"outside the DEM, which covers {self.extent_text}"

    @property
    def valid_cells(self) -> np.ndarray:
        """Cells with four valid corners, (ny - 1, nx - 1) bool: cell ``[j, i]`` spans
        ``x0 + [i, i + 1] dx``, ``y0 + [j, j + 1] dy``. The terrain is their union."""
        holes = np.isnan(self.heights)
        return ~(holes[:-1, :-1] | holes[1:, :-1] | holes[:-1, 1:] | holes[1:, 1:])

    def _outside(self, xs: np.ndarray, ys: np.ndarray, inside: np.ndarray, count: int) -> DemError:
        off = ~inside
        nodata = int(np.count_nonzero(off & self.within_extent(xs, ys)))
        p = int(np.argmin(inside))
        parts = []
        if nodata:
            parts.append(f"{nodata} in a nodata area of the DEM")
        if count - nodata:
            parts.append(f"{count - nodata} outside the DEM, which covers {self.extent_text}")
        return DemError(
            f"{count} of {xs.size} point(s) are not on the terrain: {' and '.join(parts)}; "
            f"first: ({xs[p]:.10g}, {ys[p]:.10g}), {self.off_terrain(xs[p], ys[p])}"
        )

    def contains(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Whether each point (x, y) lies on the terrain (boolean, broadcast shape)."""
        shape, xs, ys = self._points(x, y)
        out = np.empty(xs.size)
        inside = np.empty(xs.size, dtype=np.bool_)
        bilinear_batch(self.heights, self.x0, self.y0, self.dx, self.dy, xs, ys, out, inside)
        return inside.reshape(shape)[()]

    def height(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Bilinear height at (x, y), broadcast over arrays; DemError for points outside."""
        shape, xs, ys = self._points(x, y)
        z = np.empty(xs.size)
        inside = np.empty(xs.size, dtype=np.bool_)
        outside = bilinear_batch(
            self.heights, self.x0, self.y0, self.dx, self.dy, xs, ys, z, inside
        )
        if outside:
            raise self._outside(xs, ys, inside, outside)
        return z.reshape(shape)[()]

    def normal(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Unit upward normal (L14 eq. 7) at (x, y), shape ``broadcast + (3,)``; DemError for
        points outside. On a cell edge the normal of the cell with the larger index is used
        (the last cell at the far boundary)."""
        shape, xs, ys = self._points(x, y)
        z = np.empty(xs.size)
        normal = np.empty((xs.size, 3))
        inside = np.empty(xs.size, dtype=np.bool_)
        outside = surface_batch(
            self.heights, self.x0, self.y0, self.dx, self.dy, xs, ys, z, normal, inside
        )
        if outside:
            raise self._outside(xs, ys, inside, outside)
        return normal.reshape((*shape, 3))

    def sample(self, name: str, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Soil raster ``name`` at (x, y): bilinear, except ``"zone"`` (the nearest sample)."""
        if name not in self.soil:
            present = ", ".join(self.soil) or "none"
            raise ValueError(f"the terrain has no soil raster {name!r} (present: {present})")
        shape, xs, ys = self._points(x, y)
        out = np.empty(xs.size)
        inside = np.empty(xs.size, dtype=np.bool_)
        values = self.soil[name]
        outside = bilinear_batch(values, self.x0, self.y0, self.dx, self.dy, xs, ys, out, inside)
        if outside:
            raise self._outside(xs, ys, inside, outside)
        if name == "zone":
            ny, nx = values.shape
            i = np.clip(np.rint((xs - self.x0) / self.dx).astype(np.int64), 0, nx - 1)
            j = np.clip(np.rint((ys - self.y0) / self.dy).astype(np.int64), 0, ny - 1)
            out = values[j, i]
        return out.reshape(shape)[()]

    def hillshade(
        self, azimuth_deg: float = 315.0, altitude_deg: float = 45.0, z_factor: float = 1.0
    ) -> np.ndarray:
        """Lambertian shading in [0, 1] of each sample, lit from ``azimuth_deg`` (clockwise from
        north, +y) at ``altitude_deg`` above the horizon; heights are scaled by ``z_factor``.

        Gradients by central differences (one-sided at the border). The result has the layout
        of ``heights`` (row j at y0 + j dy): show it with ``imshow(..., origin="lower")``.
        """
        dz_dy, dz_dx = np.gradient(z_factor * self.heights, self.dy, self.dx)
        azimuth = math.radians(azimuth_deg)
        altitude = math.radians(altitude_deg)
        sun = (
            math.sin(azimuth) * math.cos(altitude),
            math.cos(azimuth) * math.cos(altitude),
            math.sin(altitude),
        )
        shade = (-dz_dx * sun[0] - dz_dy * sun[1] + sun[2]) / np.sqrt(1.0 + dz_dx**2 + dz_dy**2)
        return np.clip(shade, 0.0, 1.0)

    # --- files -------------------------------------------------------------------------------

    def write(self, path: str | os.PathLike) -> Path:
        """Write the heights as GeoTIFF (``.tif``, ``.tiff``: cloud-optimised float64, band
        described as "terrain height" in m) or ESRI ASCII grid (``.asc``) with the terrain's CRS
        and transform; :meth:`from_file` reads it back unchanged."""
        return self.write_raster(
            path, self.heights, nodata=self.nodata, description="terrain height", unit="m", cog=True
        )

    def write_raster(
        self,
        path: str | os.PathLike,
        values: ArrayLike,
        nodata: float | None = None,
        **options: Any,
    ) -> Path:
        """Write another (ny, nx) raster on this terrain's grid (NaN cells become nodata).

        ``options`` go to :func:`tumble.io.dem.write_raster`: ``dtype``, ``description``,
        ``unit``, ``cog``, and ``offset`` (row, column): ``values`` is then a window of the
        grid from there on, and the rest of the grid is nodata."""
        grid = np.asarray(values)  # write_raster takes it to float64 (float32 as it is)
        if "offset" in options:
            options["shape"] = self.shape
        elif grid.shape != self.shape:
            raise ValueError(f"raster shape {grid.shape} differs from the terrain's {self.shape}")
        return write_raster(
            path,
            grid,
            self.x0,
            self.y0,
            self.dx,
            self.dy,
            crs=self.crs,
            nodata=nodata,
            transform=self.transform,
            **options,
        )

    def __setstate__(self, state: dict) -> None:
        # unpickled arrays come back writeable; a terrain's arrays are read-only everywhere
        for name, value in state.items():
            object.__setattr__(self, name, value)
        for array in (self.heights, *self.soil.values()):
            array.flags.writeable = False

    def __repr__(self) -> str:
        ny, nx = self.shape
        b = self.bounds
        crs = self.crs.to_string() if self.crs is not None else None
        return (
            f"Terrain({ny} x {nx} samples, dx = {self.dx:.10g}, dy = {self.dy:.10g}, "
            f"x in [{b.x_min:.10g}, {b.x_max:.10g}], y in [{b.y_min:.10g}, {b.y_max:.10g}], "
            f"crs = {crs}, "
            f"soil = {list(self.soil)})"
        )
