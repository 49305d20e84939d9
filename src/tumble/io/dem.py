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

Rotated or sheared transforms (``b != 0`` or ``d != 0``) are refused: resample to a north-up grid
first (``gdalwarp``). Cells equal to the nodata value (or NaN) come back as NaN; deciding whether
holes are acceptable is left to the caller. rasterio is imported on first use only, so that
importing :mod:`tumble.io` stays cheap.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from rasterio.transform import Affine

#: File suffixes understood by :func:`read_raster` and :func:`write_raster`, with GDAL's driver.
RASTER_SUFFIXES = {".tif": "GTiff", ".tiff": "GTiff", ".asc": "AAIGrid"}

#: Nodata value written to ESRI ASCII grids that contain NaN cells when none is given.
ASCII_NODATA = -9999.0

#: Data types of the GeoTIFFs :func:`write_raster` writes.
RASTER_DTYPES = ("float64", "float32", "uint32")

#: Tile size (pixels) of a cloud-optimised GeoTIFF.
COG_BLOCKSIZE = 256

# A rotation or shear term is ignored when it moves no sample by more than this fraction of a cell.
_ROTATION_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class RasterGrid:
    """One band of a raster file on tumble's grid convention (see the module docstring).

    ``values`` is C-contiguous float64 of shape ``(ny, nx)`` with NaN in nodata cells;
    ``transform`` is the affine transform exactly as stored in the file (rasterio ``Affine``),
    ``crs`` a rasterio ``CRS`` or None, ``nodata`` the file's nodata value or None.
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

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    @property
    def holes(self) -> int:
        """Number of nodata (NaN) cells."""
        return int(np.count_nonzero(np.isnan(self.values)))


def raster_driver(path: str | os.PathLike) -> str:
    """GDAL driver name for a raster path, from its suffix; ValueError for other suffixes."""
    suffix = Path(path).suffix.lower()
    try:
        return RASTER_SUFFIXES[suffix]
    except KeyError:
        raise ValueError(
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

    ValueError for rotated or sheared transforms and for zero or non-finite pixel sizes.
    """
    nrows, ncols = shape
    a, b, c, d, e, f = (float(v) for v in tuple(transform)[:6])
    if not all(np.isfinite((a, b, c, d, e, f))) or a == 0.0 or e == 0.0:
        raise ValueError(
            "the raster transform has a zero or non-finite pixel size or origin: "
            f"{tuple(transform)[:6]}"
        )
    # b shifts x along the rows, d shifts y along the columns
    if abs(b) * nrows > _ROTATION_TOL * abs(a) or abs(d) * ncols > _ROTATION_TOL * abs(e):
        angle = np.degrees(np.arctan2(d, a))
        raise ValueError(
            f"the raster grid is rotated or sheared (transform terms b = {b:g}, d = {d:g}, "
            f"about {angle:.3g} deg); tumble needs a north-up grid with axis-aligned cells: "
            "resample it first, e.g. with gdalwarp"
        )
    dx, dy = abs(a), abs(e)
    x0 = c + 0.5 * a if a > 0 else c + (ncols - 0.5) * a
    y0 = f + 0.5 * e if e > 0 else f + (nrows - 0.5) * e
    return x0, y0, dx, dy


def read_raster(path: str | os.PathLike, band: int = 1) -> RasterGrid:
    """Read one band of a GeoTIFF (``.tif``, ``.tiff``) or ESRI ASCII grid (``.asc``).

    Returns a :class:`RasterGrid` on tumble's convention (rows south to north, pixel-centre
    samples, float64, NaN where the file has nodata). Raises ValueError for a missing file, an
    unsupported suffix, an unreadable file, a band out of range, a raster without
    georeferencing, and rotated or sheared grids.
    """
    import rasterio
    from rasterio.errors import NotGeoreferencedWarning, RasterioIOError

    path = Path(path)
    if path.is_dir():
        raise ValueError(f"raster file {path} is a folder, not a file (give the .tif or .asc)")
    driver = raster_driver(path)
    if not path.is_file():
        raise ValueError(f"raster file {path} does not exist")
    options = {"DATATYPE": "Float64"} if driver == "AAIGrid" else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotGeoreferencedWarning)
            with rasterio.open(path, driver=driver, **options) as dataset:
                if not 1 <= band <= dataset.count:
                    raise ValueError(f"{path} has {dataset.count} band(s); band {band} requested")
                transform = dataset.transform
                crs = dataset.crs
                if transform.is_identity and crs is None:
                    raise ValueError(
                        f"{path} has no geotransform (pixel-to-map affine), so its cells have "
                        "no position; georeference it or build the grid from an array"
                    )
                nodata = dataset.nodatavals[band - 1]
                masked = dataset.read(band, masked=True)
    except RasterioIOError as err:
        raise ValueError(f"cannot read {path} as {driver}: {err}") from None
    x0, y0, dx, dy = grid_from_transform(transform, masked.shape)
    values = np.ma.filled(masked.astype(np.float64), np.nan)
    if transform.e < 0:
        values = values[::-1]
    if transform.a < 0:
        values = values[:, ::-1]
    values = np.array(values, dtype=np.float64, order="C")
    values.flags.writeable = False
    return RasterGrid(
        values=values,
        x0=x0,
        y0=y0,
        dx=dx,
        dy=dy,
        crs=crs,
        transform=transform,
        nodata=None if nodata is None else float(nodata),
        path=path,
    )


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
) -> Path:
    """Write a grid ``values[j, i]`` (sample at ``x0 + i dx, y0 + j dy``) as a north-up raster.

    The format follows the suffix: ``.tif``/``.tiff`` GeoTIFF (deflate), ``.asc`` ESRI ASCII
    grid with a ``.prj`` sidecar when ``crs`` is given (a stale sidecar of the same name is
    removed otherwise). ``transform``, when given, must be the north-up transform of this grid
    (it is written as is, so that a grid read from a file is written back with the file's exact
    transform). Returns the path written.

    NaN cells are written as ``nodata``. A GeoTIFF always carries a nodata value: NaN for float
    types unless one is given; a ``"uint32"`` file needs one from the caller (a value no valid
    cell takes, such as 4294967295). An ASCII grid gets :data:`ASCII_NODATA` when it has NaN
    cells and no finite ``nodata`` is given.

    GeoTIFF options (an ASCII grid is always float64 text and has no place for them):
    ``dtype``, one of :data:`RASTER_DTYPES` (uint32 values must be whole numbers in range;
    float32 rounds); ``description`` and ``unit`` of the band (GDAL band description and unit,
    shown by QGIS); ``cog``, a cloud-optimised GeoTIFF (tiled, internal overviews).
    """
    import rasterio
    from rasterio.crs import CRS

    path = Path(path)
    driver = raster_driver(path)
    if dtype not in RASTER_DTYPES:
        raise ValueError(f"raster dtype must be one of {', '.join(RASTER_DTYPES)}; got {dtype!r}")
    grid = np.asarray(values, dtype=np.float64)
    if grid.ndim != 2 or min(grid.shape) < 1:
        raise ValueError(f"a raster needs a 2-D array of values; got shape {grid.shape}")
    ny, nx = grid.shape
    if not (np.isfinite(dx) and np.isfinite(dy) and dx > 0 and dy > 0):
        raise ValueError(f"raster spacing must be finite and positive; got dx = {dx}, dy = {dy}")
    if transform is None:
        transform = north_up_transform(x0, y0, dx, dy, ny)
    else:
        if not (transform.a > 0 and transform.e < 0):
            raise ValueError(f"transform {tuple(transform)[:6]} is not north-up")
        gx0, gy0, gdx, gdy = grid_from_transform(transform, grid.shape)
        if gdx != dx or gdy != dy or abs(gx0 - x0) > 1e-9 * dx or abs(gy0 - y0) > 1e-9 * dy:
            raise ValueError(
                f"transform {tuple(transform)[:6]} does not describe the grid x0 = {x0}, "
                f"y0 = {y0}, dx = {dx}, dy = {dy}"
            )
    holes = ~np.isfinite(grid)
    if np.isinf(grid).any():
        raise ValueError(f"cannot write infinite values to {path}")
    if driver == "AAIGrid":
        dtype = "float64"
        if nodata is not None and np.isnan(nodata):
            nodata = None
        if holes.any() and nodata is None:
            nodata = ASCII_NODATA
    elif nodata is None:
        if dtype == "uint32":
            raise ValueError(
                f"a uint32 raster needs a nodata value (one no valid cell takes) for {path}"
            )
        nodata = float("nan")
    integer = dtype == "uint32"
    top = float(np.iinfo(np.uint32).max)
    valid = grid[~holes]
    if integer:
        if np.any(valid != np.round(valid)) or np.any(valid < 0) or np.any(valid > top):
            raise ValueError(f"a uint32 raster holds whole numbers in [0, {top:.0f}]: {path}")
    elif dtype == "float32" and np.any(np.abs(valid) > np.finfo(np.float32).max):
        raise ValueError(f"some values of {path} are out of the float32 range")
    if nodata is not None:
        nodata = float(nodata)
        if (driver == "AAIGrid" or integer) and not np.isfinite(nodata):
            raise ValueError(f"{path} needs a finite nodata value; got {nodata}")
        if integer and not (nodata == round(nodata) and 0 <= nodata <= top):
            raise ValueError(f"the nodata value of a uint32 raster must be a uint32; got {nodata}")
        if np.isfinite(nodata) and np.any(valid.astype(dtype) == np.asarray(nodata, dtype=dtype)):
            raise ValueError(
                f"some valid cells equal the nodata value {nodata} and would read back as holes"
            )
        if np.isfinite(nodata):
            grid = np.where(holes, nodata, grid)
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
        profile.update(
            driver="COG",
            compress="deflate",
            predictor="yes",
            blocksize=COG_BLOCKSIZE,
            overviews="auto",
            overview_resampling="nearest" if integer else "average",
        )
    elif driver == "GTiff":
        profile.update(compress="deflate", predictor=2 if integer else 3)
    else:
        prj = path.with_suffix(".prj")
        if crs is None and prj.exists():
            prj.unlink()
    with rasterio.open(path, "w", **profile) as dataset:
        dataset.write(np.ascontiguousarray(grid[::-1].astype(dtype)), 1)
        if driver == "GTiff":
            if description is not None:
                dataset.set_band_description(1, description)
            if unit is not None:
                dataset.set_band_unit(1, unit)
    return path
