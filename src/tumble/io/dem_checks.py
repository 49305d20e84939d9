"""Checks of a DEM before it is used, each returning the sentence that names the problem and its
fix (or None): a CRS in degrees or feet, or a geographic label on coordinates that cannot be
degrees (:func:`degrees_problem`, :func:`crs_problem`), an untagged nodata fill such as -9999
(:func:`fill_problem`), and the CRS helpers they share (:func:`crs_label`, :func:`metric_crs`)."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

#: band units that say a raster's values are metres
METRE_UNITS = ("m", "metre", "metres", "meter", "meters")


def as_crs(crs: Any) -> Any:
    """``crs`` (anything rasterio reads, or None) as a rasterio CRS; ValueError naming it."""
    from rasterio.crs import CRS

    if crs is None or isinstance(crs, CRS):
        return crs
    try:
        return CRS.from_user_input(crs)
    except Exception as err:
        raise ValueError(f"unknown coordinate reference system {crs!r}: {err}") from None


def crs_label(crs: Any) -> str:
    """A short name of a CRS: its EPSG code when it has one, else its name or WKT."""
    import re

    crs = as_crs(crs)
    epsg = crs.to_epsg()
    found = re.search(r'"([^"]*)"', crs.to_wkt())
    name = found.group(1) if found else ""
    if epsg is None:
        return name or crs.to_string()
    return f"EPSG:{epsg} ({name})" if name else f"EPSG:{epsg}"


def utm_epsg(lon: float, lat: float) -> int:
    """EPSG code of the WGS 84 / UTM zone holding a longitude and latitude (degrees):
    326NN north of the equator, 327NN south of it, NN = floor((lon + 180) / 6) + 1."""
    zone = int(np.floor((lon + 180.0) / 6.0)) % 60 + 1
    return (32600 if lat >= 0 else 32700) + zone


#: the coordinates a geographic CRS can have, degrees: longitude (some grids run 0 to 360) and
#: latitude
LONGITUDES = (-180.0, 360.0)
LATITUDES = (-90.0, 90.0)


def _number_text(value: float) -> str:
    """A number as a user types it: ``-9999`` for a whole number, else its shortest repr."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


def degrees_problem(
    crs: Any, bounds: tuple[float, float, float, float], path: str | os.PathLike
) -> str | None:
    """Why a DEM labelled with a geographic CRS cannot be in it: coordinates beyond any
    longitude (:data:`LONGITUDES`) or latitude (:data:`LATITUDES`), as a grid in metres labelled
    EPSG:4326 has; None when the label is not geographic or the coordinates fit it. ``bounds``
    is ``(x_min, y_min, x_max, y_max)`` in the file's coordinates."""
    crs = as_crs(crs)
    if crs is None or not crs.is_geographic:
        return None
    x_min, y_min, x_max, y_max = (float(v) for v in bounds)
    if (
        LONGITUDES[0] <= x_min
        and x_max <= LONGITUDES[1]
        and LATITUDES[0] <= y_min
        and y_max <= LATITUDES[1]
    ):
        return None
    return (
        f"{path} is labelled with the geographic CRS {crs_label(crs)}, whose coordinates are "
        f"degrees, but its coordinates (x in [{x_min:.10g}, {x_max:.10g}], y in "
        f"[{y_min:.10g}, {y_max:.10g}]) cannot be degrees (longitude in "
        f"[{LONGITUDES[0]:g}, {LONGITUDES[1]:g}], latitude in [{LATITUDES[0]:g}, "
        f"{LATITUDES[1]:g}]): the CRS label is wrong, not the grid, and reprojecting it would "
        "only move the error. Assign the projected CRS its coordinates are in, e.g. "
        f"gdal_edit.py -a_srs EPSG:31254 {path} for MGI / Austria GK West (EPSG:2056 for the "
        "Swiss LV95, EPSG:326NN for a UTM zone), or give it in the configuration: dem_crs = "
        '"EPSG:31254" (--dem-crs EPSG:31254)'
    )


#: heights DEM tools write into cells without data (ESRI and GDAL's -9999, SRTM's -32768, ...);
#: a height of any of them, or of a magnitude :data:`HUGE_HEIGHT` or more (float32's extremes
#: -3.4028235e38 and their roundings), is an untagged fill
FILL_VALUES = (-9999.0, -99999.0, -999.0, -32767.0, -32768.0, 32767.0, 65535.0)
HUGE_HEIGHT = 1e30
#: the lowest height of a DEM is an untagged fill when it lies below all other heights by more
#: than their relief (highest minus lowest of them) and by more than this, m
FILL_GAP = 1000.0


#: rows of a DEM scanned at a time for its second lowest height
SCAN_ROWS = 512


def _lowest_above(values: np.ndarray, lo: float) -> float:
    """The lowest height above ``lo`` (NaN when there is none), by blocks of
    :data:`SCAN_ROWS` rows: no full-size copy of a large DEM."""
    flat = values.reshape(values.shape[0], -1) if values.ndim > 1 else values.reshape(1, -1)
    lowest = math.inf
    with np.errstate(invalid="ignore"):
        for a in range(0, flat.shape[0], SCAN_ROWS):
            block = flat[a : a + SCAN_ROWS]
            above = block[block > lo]
            if above.size:
                lowest = min(lowest, float(above.min()))
    return lowest if lowest < math.inf else math.nan


def fill_problem(values: np.ndarray, path: str | os.PathLike) -> str | None:
    """Why the heights ``values`` (NaN: tagged nodata) hold a nodata fill value the file does
    not tag as nodata, and how to tag it; None when they do not. A fill is a height of
    :data:`FILL_VALUES`, one of magnitude :data:`HUGE_HEIGHT` or more, or a lowest height that
    lies below every other height by more than their relief and more than :data:`FILL_GAP`
    (a -9999 the list would miss, a 0 below a 2000 m plateau...)."""
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(values)
        if not finite.any():
            return None
        lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    fill = None
    for value in (lo, hi):
        if abs(value) >= HUGE_HEIGHT:
            fill = value
            break
    if fill is None and (lo <= max(FILL_VALUES) and hi >= min(FILL_VALUES)):
        present = [v for v in FILL_VALUES if lo <= v <= hi and np.any(values == v)]
        if present:
            fill = present[0]
    if fill is None and hi - lo > FILL_GAP:
        above = _lowest_above(values, lo)
        if above - lo > max(hi - above, FILL_GAP) and hi > above:
            fill = lo
    if fill is None:
        return None
    count = int(np.count_nonzero(values == fill))
    with np.errstate(invalid="ignore"):
        rest = values[finite & (values != fill)]
    text = _number_text(fill)
    within = (
        f"the other heights lie in [{float(rest.min()):.6g}, {float(rest.max()):.6g}] m"
        if rest.size
        else "no other height is left"
    )
    return (
        f"{path}: {count} of {values.size} cells ({100.0 * count / values.size:.3g} %) hold the "
        f"height {text}, a nodata fill value the file does not tag as nodata ({within}); "
        "rocks would run over it as terrain. Tag it as nodata: gdal_edit.py -a_nodata "
        f"{text} {path}, or give it in the configuration: dem_nodata = {text} "
        f"(--dem-nodata {text})"
    )


def crs_problem(
    crs: Any,
    x: float,
    y: float,
    path: str | os.PathLike,
    bounds: tuple[float, float, float, float] | None = None,
) -> str | None:
    """Why the CRS of the DEM ``path`` does not give metres, and how to reproject; None when it
    does (a projected CRS in metres, or no CRS at all). ``(x, y)`` is a point of the DEM in its
    own coordinates (for geographic CRSs: longitude, latitude), used to suggest a UTM zone;
    ``bounds`` ``(x_min, y_min, x_max, y_max)``, when given, are checked to be degrees in a
    geographic CRS first (:func:`degrees_problem`)."""
    crs = as_crs(crs)
    if crs is None:
        return None
    label = crs_label(crs)
    wrong = degrees_problem(crs, bounds if bounds is not None else (x, y, x, y), path)
    if wrong:
        return wrong
    if crs.is_geographic:
        target = f"EPSG:{utm_epsg(x, y)}"
        return (
            f"{path} is in the geographic CRS {label}: its coordinates are degrees of longitude "
            "and latitude, not metres. Reproject it to a projected CRS in metres, e.g. the UTM "
            f"zone of the site: gdalwarp -t_srs {target} -r bilinear {path} dem_utm.tif, or run "
            f'with --reproject {target} (configuration key reproject = "{target}")'
        )
    if crs.is_projected:
        unit, factor = crs.linear_units_factor
        if abs(factor - 1.0) > 1e-12:
            return (
                f"{path} is in the CRS {label}, whose unit is the {unit} ({factor:.10g} m), not "
                "the metre. Reproject it to a projected CRS in metres (gdalwarp -t_srs EPSG:XXXX "
                f"{path} dem_m.tif, and convert the heights to metres), or run with --reproject "
                "EPSG:XXXX (configuration key reproject), which also converts heights in feet"
            )
        return None
    return (
        f"{path} has the CRS {label}, which is neither projected nor geographic (a local or "
        "engineering grid): tumble cannot tell that its unit is the metre. Assign the projected "
        f"CRS its coordinates are in (gdal_edit.py -a_srs EPSG:XXXX {path}, or dem_crs = "
        '"EPSG:XXXX" in the configuration)'
    )


def metric_crs(crs: Any, what: str) -> Any:
    """``crs`` as a rasterio CRS, checked to be projected in metres (ValueError otherwise)."""
    target = as_crs(crs)
    if target is None or not target.is_projected or target.linear_units_factor[1] != 1.0:
        raise ValueError(
            f"{what} {crs!r} is not a projected CRS in metres; give one such as the UTM zone "
            "of the site (EPSG:326NN north, EPSG:327NN south) or a national grid"
        )
    return target
