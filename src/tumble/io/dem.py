"""DEMs and other rasters: GeoTIFF and ESRI ASCII grids through rasterio, on tumble's grid.

tumble's grid convention (used by every raster it reads or writes):
``values[j, i]`` is the sample at ``x = x0 + i dx``, ``y = y0 + j dy`` with ``dx, dy > 0``, so
rows run south to north and ``y`` grows with ``j``. Samples are **pixel centres**.

GeoTIFF. rasterio's transform ``(a, b, c, d, e, f)`` maps (column, row) of the *outer corner* of a
pixel to map coordinates, ``x = a col + b row + c``, ``y = d col + e row + f``; the centre of
pixel (row r, column k) is at ``(c + (k + 1/2) a, f + (r + 1/2) e)``. A usual north-up file has
``e < 0`` (row 0 is the northern edge), so reading reverses the rows and gives
``x0 = c + a/2``, ``y0 = f + (nrows - 1/2) e``, ``dx = a``, ``dy = -e``. Files with ``e > 0``
(south-up) or ``a < 0`` are read too, by flipping the other way. Writing always produces a
north-up file with ``c = x0 - dx/2``, ``f = y0 + (ny - 1/2) dy`` and the rows reversed back, so a
grid written and read back has identical values and, for the usual representable origins and
spacings (integers, halves, quarters...), bit-identical ``x0, y0, dx, dy``.

ESRI ASCII grid (``.asc``). The header gives the lower-left cell either by its outer corner
(``xllcorner``, ``yllcorner``) or by its centre (``xllcenter``, ``yllcenter``); GDAL turns both
into the corner transform above, so both read to the same samples. The data are read as float64
(GDAL's ASCII driver would otherwise guess float32 from the text). Written files use
``xllcorner``/``yllcorner`` and ``cellsize`` (GDAL's ``dx``/``dy`` header lines when
``dx != dy``, which GDAL reads but not every ESRI tool does), values with 20 significant digits,
and a ``.prj`` sidecar for the CRS.

Written GeoTIFFs are float64 (or float32, or uint32 for counts), DEFLATE-compressed, and always
carry a nodata value (NaN for floats unless another is given; uint32 files need one from the
caller). They may carry a band description and unit (what the band holds, for a GIS user), and be
cloud-optimised (``cog=True``: GDAL's ``COG`` driver, tiles of :data:`COG_BLOCKSIZE` pixels,
internal overviews averaged for floats and nearest for integers, IFDs first, so that a GIS or a
web viewer reads any zoom level without the whole file). An ESRI ASCII grid has no place for a
data type, description or unit: it is always float64 text, and those options are not written.

Coordinate reference systems. :func:`crs_problem` says why a CRS does not suit a DEM in metres
(geographic: degrees; projected in feet; a local grid) and how to reproject it, and
:func:`degrees_problem` why a grid labelled geographic cannot be in degrees (coordinates beyond
longitude [-180, 360] or latitude [-90, 90]: the label is wrong, to be replaced, not
reprojected); :func:`reproject_grid` warps a grid to another CRS (bilinear for heights, nodata
kept; a warp PROJ cannot do, or one that leaves no height, is a DemError in one sentence);
:func:`tumble.io.resample.resample_to_grid` brings any raster (a class map on its own grid,
extent and CRS) onto a target grid by nearest-neighbour resampling, refusing one that does not
overlap it or whose CRS cannot be transformed.

Errors. A raster that cannot be read or used raises :class:`tumble.errors.DataError` (a
``ValueError``), a DEM that cannot be reprojected :class:`tumble.errors.DemError`; both name the
file. Rotated or sheared transforms (``b != 0`` or ``d != 0``) are refused: resample to a
north-up grid first (``gdalwarp``). Cells equal to the nodata value (or NaN) come back as NaN;
deciding whether holes are acceptable is left to the caller. :func:`fill_problem` finds a fill
value the file does not tag (-9999, -32768, float32's -3.4e38, or a lowest height far below
the rest), which :func:`read_raster` takes as nodata when it is given (``nodata=``). rasterio
is imported on first use only, so that importing :mod:`tumble.io` stays cheap.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.errors import DataError, DemError
from tumble.io.cog import COG_BLOCKSIZE as COG_BLOCKSIZE  # part of this module's interface
from tumble.io.cog import POOLINGS, write_cog, write_rows
from tumble.io.dem_checks import (
    METRE_UNITS,
    as_crs,
    crs_label,
    crs_problem,
    degrees_problem,
    fill_problem,
    metric_crs,
)

if TYPE_CHECKING:
    from rasterio.transform import Affine

#: File suffixes understood by :func:`read_raster` and :func:`write_raster`, with GDAL's driver.
RASTER_SUFFIXES = {".tif": "GTiff", ".tiff": "GTiff", ".asc": "AAIGrid"}

#: Nodata value written to ESRI ASCII grids that contain NaN cells when none is given.
ASCII_NODATA = -9999.0

#: Data types of the GeoTIFFs :func:`write_raster` writes.
RASTER_DTYPES = ("float64", "float32", "uint32", "uint8", "int8")
#: the integer types of :data:`RASTER_DTYPES` (counts; uint8 for class maps such as hazard zones;
#: int8 for changes of class, such as a change of hazard zone)
INTEGER_DTYPES = ("uint32", "uint8", "int8")


# A rotation or shear term is ignored when it moves no sample by more than this fraction of a cell.
_ROTATION_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class RasterGrid:
    """One band of a raster file on tumble's grid convention (see the module docstring).

    ``values`` is C-contiguous float64 of shape ``(ny, nx)`` with NaN in nodata cells;
    ``transform`` is the affine transform exactly as stored in the file (rasterio ``Affine``),
    ``crs`` a rasterio ``CRS`` or None, ``nodata`` the file's nodata value or None,
    ``description`` and ``unit`` the band's description and unit when the file has them.
    """

    values: np.ndarray
    x0: float
    y0: float
    dx: float
    dy: float
    crs: Any
    transform: Any
    nodata: float | None
    path: Path
    description: str | None = None
    unit: str | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    @property
    def holes(self) -> int:
        """Number of nodata (NaN) cells."""
        return int(np.count_nonzero(np.isnan(self.values)))


def raster_driver(path: str | os.PathLike) -> str:
    """GDAL driver name for a raster path, from its suffix; DataError for other suffixes."""
    suffix = Path(path).suffix.lower()
    try:
        return RASTER_SUFFIXES[suffix]
    except KeyError:
        raise DataError(
            f"unsupported raster format {suffix or '(no suffix)'!r} for {path}: use .tif or .tiff "
            "(GeoTIFF) or .asc (ESRI ASCII grid)"
        ) from None


def north_up_transform(x0: float, y0: float, dx: float, dy: float, ny: int) -> Affine:
    """The north-up GeoTIFF transform whose pixel centres are tumble's samples.

    The outer corner of the first (northernmost) row is at ``(x0 - dx/2, y0 + (ny - 1/2) dy)``.
    """
    from rasterio.transform import Affine

    return Affine(dx, 0.0, x0 - 0.5 * dx, 0.0, -dy, y0 + (ny - 0.5) * dy)


def grid_from_transform(
    transform: Iterable[float], shape: tuple[int, int]
) -> tuple[float, float, float, float]:
    """``(x0, y0, dx, dy)`` of the pixel centres of a raster with this transform and shape.

    DataError for rotated or sheared transforms and for zero or non-finite pixel sizes.
    """
    nrows, ncols = shape
    a, b, c, d, e, f = (float(v) for v in tuple(transform)[:6])
    if not all(np.isfinite((a, b, c, d, e, f))) or a == 0.0 or e == 0.0:
        raise DataError(
            "the raster transform has a zero or non-finite pixel size or origin: "
            f"{tuple(transform)[:6]}"
        )
    # b shifts x along the rows, d shifts y along the columns
    if abs(b) * nrows > _ROTATION_TOL * abs(a) or abs(d) * ncols > _ROTATION_TOL * abs(e):
        angle = np.degrees(np.arctan2(d, a))
        raise DataError(
            f"the raster grid is rotated or sheared (transform terms b = {b:g}, d = {d:g}, "
            f"about {angle:.3g} deg); tumble needs a north-up grid with axis-aligned cells: "
            "resample it first, e.g. with gdalwarp"
        )
    dx, dy = abs(a), abs(e)
    x0 = c + 0.5 * a if a > 0 else c + (ncols - 0.5) * a
    y0 = f + 0.5 * e if e > 0 else f + (nrows - 0.5) * e
    return x0, y0, dx, dy


#: rows of a raster read at a time
READ_ROWS = 512

#: GDAL's block cache, MB, unless the environment sets ``GDAL_CACHEMAX``: GDAL's default (5 %
#: of the machine's memory) keeps the decompressed blocks of a large DEM in memory beside the
#: DEM's float64 grid, and the blocks of every raster written; reading and writing go through
#: each block once, so a small cache costs no time. Read when GDAL first caches a block.
GDAL_CACHE_MB = 64
os.environ.setdefault("GDAL_CACHEMAX", str(GDAL_CACHE_MB))


def _read_float64(dataset: Any, band: int, transform: Any) -> np.ndarray:
    """Band ``band`` of an open dataset as one float64 array, rows south to north (flipped
    as ``transform`` says), NaN where the file has nodata; read by :data:`READ_ROWS` rows, so
    that a large DEM stored as float32 takes no full-size copy as stored besides the result."""
    from rasterio.windows import Window

    ny, nx = dataset.height, dataset.width
    values = np.empty((ny, nx), dtype=np.float64)
    for a in range(0, ny, READ_ROWS):
        b = min(ny, a + READ_ROWS)
        masked = dataset.read(band, masked=True, window=Window(0, a, nx, b - a))
        block = np.ma.getdata(masked).astype(np.float64)
        block[np.ma.getmaskarray(masked)] = np.nan
        if transform.a < 0:
            block = block[:, ::-1]
        if transform.e < 0:  # file row a is the northernmost: row ny - 1 - a here
            values[ny - b : ny - a] = block[::-1]
        else:
            values[a:b] = block
    return values


def read_raster(path: str | os.PathLike, band: int = 1, nodata: float | None = None) -> RasterGrid:
    """Read one band of a GeoTIFF (``.tif``, ``.tiff``) or ESRI ASCII grid (``.asc``).

    Returns a :class:`RasterGrid` on tumble's convention (rows south to north, pixel-centre
    samples, float64, NaN where the file has nodata). ``nodata``, when given, is a value taken
    as nodata besides the file's own tag (a fill the file does not tag, e.g. -9999): cells
    whose stored value, as float64, equals it are holes too, and it is the grid's ``nodata``
    when the file has none. Raises DataError for a missing file, an unsupported suffix, an
    unreadable file, a band out of range, a raster without georeferencing, and rotated or
    sheared grids.
    """
    import rasterio
    from rasterio.errors import NotGeoreferencedWarning, RasterioIOError

    path = Path(path)
    given = nodata
    if given is not None and not math.isfinite(float(given)):
        raise DataError(f"the nodata value given for {path} must be a finite number, got {given}")
    if path.is_dir():
        raise DataError(f"raster file {path} is a folder, not a file (give the .tif or .asc)")
    driver = raster_driver(path)
    if not path.is_file():
        raise DataError(f"raster file {path} does not exist")
    options = {"DATATYPE": "Float64"} if driver == "AAIGrid" else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotGeoreferencedWarning)
            with rasterio.open(path, driver=driver, **options) as dataset:
                if not 1 <= band <= dataset.count:
                    raise DataError(f"{path} has {dataset.count} band(s); band {band} requested")
                transform = dataset.transform
                crs = dataset.crs
                if transform.is_identity and crs is None:
                    raise DataError(
                        f"{path} has no geotransform (pixel-to-map affine), so its cells have "
                        "no position; georeference it or build the grid from an array"
                    )
                nodata = dataset.nodatavals[band - 1]
                description = dataset.descriptions[band - 1] or None
                unit = dataset.units[band - 1] or None
                values = _read_float64(dataset, band, transform)
    except RasterioIOError as err:
        raise DataError(f"cannot read {path} as {driver}: {err}") from None
    x0, y0, dx, dy = grid_from_transform(transform, values.shape)
    tag = None if nodata is None else float(nodata)
    if given is not None:
        values[values == float(given)] = np.nan
        tag = float(given) if tag is None else tag
    values.flags.writeable = False
    return RasterGrid(
        values=values,
        x0=x0,
        y0=y0,
        dx=dx,
        dy=dy,
        crs=crs,
        transform=transform,
        nodata=tag,
        path=path,
        description=description,
        unit=unit,
    )


#: rows of a grid checked at a time by :func:`write_raster`
CHECK_ROWS = 512


def _row_blocks(grid: np.ndarray, holes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(rows, their holes)`` of ``grid`` by :data:`CHECK_ROWS` rows."""
    for a in range(0, grid.shape[0], CHECK_ROWS):
        yield grid[a : a + CHECK_ROWS], holes[a : a + CHECK_ROWS]


def _float_grid(values: ArrayLike) -> np.ndarray:
    """``values`` as float64, or as they are when float32 (exact in float64 too: a large grid of
    counts or flags is then not doubled before it is written)."""
    grid = np.asarray(values)
    return grid if grid.dtype == np.float32 else grid.astype(np.float64, copy=False)


def write_raster(
    path: str | os.PathLike,
    values: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    *,
    crs: Any = None,
    nodata: float | None = None,
    transform: Any = None,
    dtype: str = "float64",
    description: str | None = None,
    unit: str | None = None,
    cog: bool = False,
    shape: tuple[int, int] | None = None,
    offset: tuple[int, int] = (0, 0),
    overviews: str | None = None,
) -> Path:
    """Write a grid ``values[j, i]`` (sample at ``x0 + i dx, y0 + j dy``) as a north-up raster.

    ``shape`` (ny, nx), when given, is the size of the grid written and ``values`` the window
    of it from row ``offset[0]`` and column ``offset[1]`` on; the rest is nodata (a cloud-
    optimised GeoTIFF then leaves those blocks out instead of building the full grid).

    The format follows the suffix: ``.tif``/``.tiff`` GeoTIFF (deflate), ``.asc`` ESRI ASCII
    grid with a ``.prj`` sidecar when ``crs`` is given (a stale sidecar of the same name is
    removed otherwise). ``transform``, when given, must be the north-up transform of this grid
    (it is written as is, so that a grid read from a file is written back with the file's exact
    transform). Returns the path written.

    NaN cells are written as ``nodata``. A GeoTIFF always carries a nodata value: NaN for float
    types unless one is given; an integer (uint32, uint8) file needs one from the caller (a
    value no valid cell takes, such as 4294967295). An ASCII grid gets :data:`ASCII_NODATA` when
    it has NaN cells and no finite ``nodata`` is given.

    GeoTIFF options (an ASCII grid is always float64 text and has no place for them):
    ``dtype``, one of :data:`RASTER_DTYPES` (integer values must be whole numbers in range;
    float32 rounds); ``description`` and ``unit`` of the band (GDAL band description and unit,
    shown by QGIS); ``cog``, a cloud-optimised GeoTIFF (tiled, internal overviews: block
    averages for floats, nearest samples for integers, or with ``overviews`` ``"max"``,
    ``"min"`` or ``"absmax"`` the largest, smallest or largest-magnitude value of each block,
    :mod:`tumble.io.cog`).
    """
    import rasterio
    from rasterio.crs import CRS

    path = Path(path)
    driver = raster_driver(path)
    if dtype not in RASTER_DTYPES:
        raise ValueError(f"raster dtype must be one of {', '.join(RASTER_DTYPES)}; got {dtype!r}")
    if overviews is not None and overviews not in POOLINGS:
        raise ValueError(f"overviews must be one of {', '.join(POOLINGS)}; got {overviews!r}")
    grid = _float_grid(values)
    if grid.ndim != 2 or min(grid.shape) < 1:
        raise ValueError(f"a raster needs a 2-D array of values; got shape {grid.shape}")
    ny, nx = grid.shape if shape is None else (int(shape[0]), int(shape[1]))
    offset = (int(offset[0]), int(offset[1]))
    if not (0 <= offset[0] <= ny - grid.shape[0] and 0 <= offset[1] <= nx - grid.shape[1]):
        raise ValueError(f"a window {grid.shape} at {offset} does not fit a {ny} x {nx} grid")
    if not (np.isfinite(dx) and np.isfinite(dy) and dx > 0 and dy > 0):
        raise ValueError(f"raster spacing must be finite and positive; got dx = {dx}, dy = {dy}")
    if transform is None:
        transform = north_up_transform(x0, y0, dx, dy, ny)
    else:
        if not (transform.a > 0 and transform.e < 0):
            raise ValueError(f"transform {tuple(transform)[:6]} is not north-up")
        gx0, gy0, gdx, gdy = grid_from_transform(transform, (ny, nx))
        if gdx != dx or gdy != dy or abs(gx0 - x0) > 1e-9 * dx or abs(gy0 - y0) > 1e-9 * dy:
            raise ValueError(
                f"transform {tuple(transform)[:6]} does not describe the grid x0 = {x0}, "
                f"y0 = {y0}, dx = {dx}, dy = {dy}"
            )
    holes = ~np.isfinite(grid)
    if any(np.isinf(block).any() for block, _ in _row_blocks(grid, holes)):
        raise ValueError(f"cannot write infinite values to {path}")
    if driver == "AAIGrid":
        dtype = "float64"
        if nodata is not None and np.isnan(nodata):
            nodata = None
        if (holes.any() or grid.shape != (ny, nx)) and nodata is None:
            nodata = ASCII_NODATA
    elif nodata is None:
        if dtype in INTEGER_DTYPES:
            raise ValueError(
                f"a {dtype} raster needs a nodata value (one no valid cell takes) for {path}"
            )
        nodata = float("nan")
    integer = dtype in INTEGER_DTYPES
    top = float(np.iinfo(dtype).max) if integer else math.inf
    bottom = float(np.iinfo(dtype).min) if integer else -math.inf

    # the checks go by blocks of rows: no copy of a large grid's valid cells at once
    def valids() -> Iterator[np.ndarray]:
        return (block[~hole] for block, hole in _row_blocks(grid, holes))

    if integer:
        if any(np.any(v != np.round(v)) or np.any(v < bottom) or np.any(v > top) for v in valids()):
            raise ValueError(
                f"a {dtype} raster holds whole numbers in [{bottom:.0f}, {top:.0f}]: {path}"
            )
    elif dtype == "float32" and any(np.any(np.abs(v) > np.finfo(np.float32).max) for v in valids()):
        raise ValueError(f"some values of {path} are out of the float32 range")
    if nodata is not None:
        nodata = float(nodata)
        if (driver == "AAIGrid" or integer) and not np.isfinite(nodata):
            raise ValueError(f"{path} needs a finite nodata value; got {nodata}")
        if integer and not (nodata == round(nodata) and bottom <= nodata <= top):
            raise ValueError(
                f"the nodata value of a {dtype} raster must be a {dtype}; got {nodata}"
            )
        if np.isfinite(nodata) and any(
            np.any(v.astype(dtype) == np.asarray(nodata, dtype=dtype)) for v in valids()
        ):
            raise ValueError(
                f"some valid cells equal the nodata value {nodata} and would read back as holes"
            )
    if crs is not None and not isinstance(crs, CRS):
        crs = CRS.from_user_input(crs)
    profile: dict[str, Any] = {
        "driver": driver,
        "height": ny,
        "width": nx,
        "count": 1,
        "dtype": dtype,
        "crs": crs,
        "transform": transform,
        "nodata": nodata,
    }
    if driver == "GTiff" and cog:
        write_cog(path, profile, grid, holes, offset, integer, description, unit, overviews)
        return path
    if driver == "GTiff":
        profile.update(compress="deflate", predictor=2 if integer else 3)
    else:
        prj = path.with_suffix(".prj")
        if crs is None and prj.exists():
            prj.unlink()
    if (ny, nx) != grid.shape:  # a window: the full grid, nodata around it
        full = np.full((ny, nx), np.nan)
        full[offset[0] : offset[0] + grid.shape[0], offset[1] : offset[1] + grid.shape[1]] = grid
        grid, holes = full, ~np.isfinite(full)
    with rasterio.open(path, "w", **profile) as dataset:
        write_rows(dataset, grid, holes, (0, 0), ny, dtype, nodata)
        if driver == "GTiff":
            if description is not None:
                dataset.set_band_description(1, description)
            if unit is not None:
                dataset.set_band_unit(1, unit)
    return path


def _north_up(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values[::-1])


def reproject_grid(grid: RasterGrid, crs: Any, height_factor: float = 1.0) -> RasterGrid:
    """``grid`` warped to the CRS ``crs`` (projected, metres) by bilinear resampling, on square
    cells of about the source resolution (GDAL's default for the warp); cells outside the
    source or next to its nodata are NaN. Values are multiplied by ``height_factor`` (e.g. feet
    to metres). The result's ``transform`` is the warped north-up transform."""
    from rasterio.warp import Resampling, calculate_default_transform, reproject

    if grid.crs is None:
        raise DemError(f"{grid.path} has no CRS: it cannot be reprojected")
    target = metric_crs(crs, "reproject:")
    ny, nx = grid.shape
    source_transform = north_up_transform(grid.x0, grid.y0, grid.dx, grid.dy, ny)
    left, top = source_transform.c, source_transform.f
    right, bottom = left + nx * grid.dx, top - ny * grid.dy
    wrong = degrees_problem(grid.crs, (left, bottom, right, top), grid.path)
    if wrong:
        raise DemError(wrong)
    source = crs_label(grid.crs)
    if not (grid.crs.is_geographic or grid.crs.is_projected):
        raise DemError(
            f"{grid.path} has the CRS {source}, a local or engineering grid that cannot be "
            f"reprojected to {crs_label(target)}: no transformation joins them. Assign the "
            f"projected CRS its coordinates are in (gdal_edit.py -a_srs EPSG:XXXX {grid.path}, "
            'or dem_crs = "EPSG:XXXX" in the configuration)'
        )
    try:
        transform, width, height = calculate_default_transform(
            grid.crs, target, nx, ny, left=left, bottom=bottom, right=right, top=top
        )
        out = np.full((height, width), np.nan)
        reproject(
            _north_up(grid.values) * height_factor,
            out,
            src_transform=source_transform,
            src_crs=grid.crs,
            src_nodata=np.nan,
            dst_transform=transform,
            dst_crs=target,
            dst_nodata=np.nan,
            resampling=Resampling.bilinear,
        )
    except Exception as err:  # rasterio's CRSError, GDAL's CPLE_* errors of the warp
        reason = str(err).splitlines()[0][:300].rstrip(".")
        raise DemError(
            f"{grid.path} cannot be reprojected from {source} to {crs_label(target)}: "
            f"{reason}. Its extent (x in [{left:.10g}, {right:.10g}], "
            f"y in [{bottom:.10g}, {top:.10g}]) may not be where {source} places the site: "
            "check the CRS label of the file (gdal_edit.py -a_srs, or dem_crs) and the target"
        ) from None
    x0, y0, dx, dy = grid_from_transform(transform, out.shape)
    values = np.array(out[::-1], dtype=np.float64, order="C")
    holes = np.isnan(values)
    full = ~(holes[:-1, :-1] | holes[1:, :-1] | holes[:-1, 1:] | holes[1:, 1:])
    if not full.any():
        raise DemError(
            f"{grid.path} reprojected from {source} to {crs_label(target)} has no cell left "
            f"with four heights ({int(holes.sum())} of {holes.size} warped samples are empty): "
            f"{crs_label(target)} does not cover the site, which {source} places at x in "
            f"[{left:.10g}, {right:.10g}], y in [{bottom:.10g}, {top:.10g}]. Reproject to the "
            "CRS of the site (its UTM zone, or its national grid), or check the file's CRS label"
        )
    values.flags.writeable = False
    return RasterGrid(values, x0, y0, dx, dy, target, transform, grid.nodata, grid.path, "m")


def read_dem(
    path: str | os.PathLike,
    band: int = 1,
    nodata: float | None = None,
    crs: Any = None,
    reproject: Any = None,
) -> RasterGrid:
    """A DEM read (:func:`read_raster`) and checked before use: ``crs`` replaces the file's CRS
    label, an untagged nodata fill is refused (:func:`tumble.io.dem_checks.fill_problem`), and
    the DEM is warped to ``reproject`` (heights in feet converted to metres unless its band unit
    says metres) or else refused when its CRS is not projected in metres or its label is wrong
    (:func:`tumble.io.dem_checks.crs_problem`). :class:`~tumble.errors.DemError` naming the
    problem and its fix."""
    dem = read_raster(path, band=band, nodata=nodata)
    if crs is not None:
        try:
            label = as_crs(crs)
        except ValueError as err:
            raise DemError(f"dem_crs: {err}") from None
        dem = dataclasses.replace(dem, crs=label)
    fill = fill_problem(dem.values, dem.path)
    if fill:
        raise DemError(fill)
    if reproject is not None:
        factor = 1.0
        if dem.crs is not None and dem.crs.is_projected:
            unit = (dem.unit or "").strip().lower()
            factor = 1.0 if unit in METRE_UNITS else dem.crs.linear_units_factor[1]
        dem = reproject_grid(dem, reproject, height_factor=factor)
    else:
        centre = (
            dem.x0 + 0.5 * (dem.shape[1] - 1) * dem.dx,
            dem.y0 + 0.5 * (dem.shape[0] - 1) * dem.dy,
        )
        b = (
            dem.x0 - 0.5 * dem.dx,
            dem.y0 - 0.5 * dem.dy,
            dem.x0 + (dem.shape[1] - 0.5) * dem.dx,
            dem.y0 + (dem.shape[0] - 0.5) * dem.dy,
        )
        problem = crs_problem(dem.crs, *centre, dem.path, bounds=b)
        if problem:
            raise DemError(problem)
    return dem
