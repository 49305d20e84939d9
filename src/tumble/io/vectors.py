"""GeoPackage vectors: 3-D lines and points with attribute columns, through pyogrio and shapely.

A file written here holds one layer named after the file's stem (``deposits.gpkg`` holds layer
``deposits``), with LineString Z or Point Z features in the given CRS (a rasterio ``CRS``, a WKT
or ``"EPSG:2056"``-like string, or None for a file without one) and one field per attribute
column: integers, floats (NaN becomes null) and text. Files are written into a hidden directory
beside the target and renamed into place, so a reader never sees half a file.

:func:`read_lines` reads the lines of any vector format GDAL reads (GeoPackage, shapefile,
GeoJSON...), 2-D or 3-D, for inputs such as barrier lines. pyogrio and shapely are imported on
first use only, so that importing :mod:`tumble.io` stays cheap.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.errors import DataError

#: GDAL's driver of the files written here, and their suffix.
VECTOR_DRIVER = "GPKG"
VECTOR_SUFFIX = ".gpkg"


def crs_wkt(crs: Any) -> str | None:
    """WKT of a CRS given as a rasterio ``CRS``, WKT, ``"EPSG:..."`` string or EPSG code; None
    for None. ValueError for anything else."""
    if crs is None:
        return None
    from rasterio.crs import CRS

    try:
        value = crs if isinstance(crs, CRS) else CRS.from_user_input(crs)
    except Exception as err:
        raise ValueError(f"unknown coordinate reference system {crs!r}: {err}") from None
    return str(value.to_wkt())


def _fields(
    attributes: Mapping[str, ArrayLike], count: int, path: Path
) -> tuple[list[str], list[np.ndarray]]:
    """Field names and one 1-D column of ``count`` values each (text as Python strings)."""
    names, columns = [], []
    for name, values in attributes.items():
        column = np.asarray(values)
        if column.ndim != 1 or column.shape[0] != count:
            raise ValueError(
                f"attribute {name!r} of {path} has shape {column.shape}; expected ({count},), "
                "one value per feature"
            )
        if column.dtype.kind in "USO":
            column = np.array([str(v) for v in column], dtype=object)
        elif column.dtype.kind not in "biuf":
            raise ValueError(f"attribute {name!r} of {path} has unsupported type {column.dtype}")
        names.append(str(name))
        columns.append(column)
    return names, columns


#: name of the geometry column of the layers written (GDAL's default for a GeoPackage)
GEOMETRY_COLUMN = "geom"
#: field types GDAL takes from an Arrow stream as it takes them from numpy arrays
_ARROW_KINDS = {"b", "i", "f", "O"}


def _arrow_table(geometry: np.ndarray, names: list[str], columns: list[np.ndarray]) -> Any:
    """The layer as an Arrow table (the fields, then the geometry as WKB, null where None), for
    GDAL's Arrow writer, which inserts the features about twice as fast as feature by feature
    and writes the same layer (fields, types, fids, geometries, spatial index); None where GDAL
    or pyogrio cannot write Arrow, or a field has a type (unsigned integers) whose mapping could
    differ, so that the caller writes feature by feature."""
    import pyogrio

    if not hasattr(pyogrio.raw, "write_arrow") or pyogrio.__gdal_version__ < (3, 8, 0):
        return None
    if GEOMETRY_COLUMN in names:
        return None
    if any(c.dtype.kind not in _ARROW_KINDS for c in columns):
        return None
    import pyarrow as pa

    arrays = [
        pa.array(c, type=pa.string()) if c.dtype.kind == "O" else pa.array(c) for c in columns
    ]
    arrays.append(pa.array(geometry, type=pa.binary()))
    return pa.Table.from_arrays(arrays, names=[*names, GEOMETRY_COLUMN])


def _write_layer(
    path: str | os.PathLike,
    geometry: np.ndarray,
    geometry_type: str,
    attributes: Mapping[str, ArrayLike],
    crs: Any,
) -> Path:
    """One GeoPackage layer named after the file's stem, written atomically."""
    import pyogrio.raw

    path = Path(path)
    if path.suffix.lower() != VECTOR_SUFFIX:
        raise ValueError(f"vector files are GeoPackages ({VECTOR_SUFFIX}); got {path}")
    names, columns = _fields(attributes, geometry.shape[0], path)
    wkt = crs_wkt(crs)
    path.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        staged = stage / path.name
        with warnings.catch_warnings():
            # a file without a CRS is what the caller asked for
            warnings.filterwarnings("ignore", "'crs' was not provided", UserWarning)
            table = _arrow_table(geometry, names, columns)
            if table is not None:
                pyogrio.raw.write_arrow(
                    table,
                    staged,
                    layer=path.stem,
                    driver=VECTOR_DRIVER,
                    geometry_name=GEOMETRY_COLUMN,
                    geometry_type=geometry_type,
                    crs=wkt,
                )
            else:
                pyogrio.raw.write(
                    staged,
                    geometry,
                    columns,
                    names,
                    layer=path.stem,
                    driver=VECTOR_DRIVER,
                    geometry_type=geometry_type,
                    crs=wkt,
                )
        os.replace(staged, path)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return path


def write_lines(
    path: str | os.PathLike,
    lines: Sequence[ArrayLike],
    attributes: Mapping[str, ArrayLike],
    crs: Any = None,
) -> Path:
    """Write LineString Z features to a GeoPackage: ``lines[k]`` (n_k, 3) vertices ``x, y, z``
    (n_k >= 2, finite), ``attributes`` name -> one value per line. Returns the path written."""
    import shapely

    path = Path(path)
    vertices = [np.asarray(line, dtype=np.float64) for line in lines]
    for k, line in enumerate(vertices):
        if line.ndim != 2 or line.shape[1] != 3 or line.shape[0] < 2:
            raise ValueError(
                f"line {k} of {path} has shape {line.shape}; a line needs (n >= 2, 3) vertices"
            )
        if not np.isfinite(line).all():
            raise ValueError(f"line {k} of {path} has non-finite vertices")
    wkb = np.empty(len(vertices), dtype=object)
    if vertices:
        counts = [line.shape[0] for line in vertices]
        geometries = shapely.linestrings(
            np.concatenate(vertices), indices=np.repeat(np.arange(len(vertices)), counts)
        )
        wkb[:] = shapely.to_wkb(geometries, output_dimension=3)
    return _write_layer(path, wkb, "LineString Z", attributes, crs)


def write_points(
    path: str | os.PathLike,
    xyz: ArrayLike,
    attributes: Mapping[str, ArrayLike],
    crs: Any = None,
) -> Path:
    """Write Point Z features to a GeoPackage: ``xyz`` (n, 3), ``attributes`` name -> one value
    per point. A point with a non-finite coordinate is written without geometry (null), its
    attributes kept. Returns the path written."""
    import shapely

    path = Path(path)
    points = np.asarray(xyz, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 3:
        raise ValueError(f"points of {path} must have shape (n, 3); got {points.shape}")
    wkb = np.full(points.shape[0], None, dtype=object)
    finite = np.isfinite(points).all(axis=1)
    if finite.any():
        wkb[finite] = shapely.to_wkb(shapely.points(points[finite]), output_dimension=3)
    return _write_layer(path, wkb, "Point Z", attributes, crs)


def read_lines(
    path: str | os.PathLike, layer: str | int | None = None, name_field: str | None = None
) -> tuple[list[str], list[np.ndarray], str | None]:
    """The lines of a vector file: ``(names, vertices, crs)``.

    ``vertices[k]`` is an (n, 2) or (n, 3) float64 array (3 columns when the geometry has z);
    the parts of a MultiLineString are separate lines with the same name. ``names`` come from
    the field ``name_field`` (as text), or are the feature ids. ``crs`` is the layer's CRS as
    WKT, or None. ``layer`` (name or index) defaults to the first layer.
    :class:`~tumble.errors.DataError` for a missing or unreadable file, a missing field, or
    geometries that are not lines.
    """
    import pyogrio.raw
    import shapely

    path = Path(path)
    if not path.exists():
        raise DataError(f"vector file {path} does not exist")
    columns = None if name_field is None else [name_field]
    try:
        meta, fids, wkb, field_data = pyogrio.raw.read(
            path, layer=layer, columns=columns, return_fids=True
        )
    except Exception as err:
        raise DataError(f"cannot read lines from {path}: {err}") from None
    if name_field is not None and name_field not in list(meta["fields"]):
        available = [str(f) for f in pyogrio.read_info(path, layer=layer)["fields"]]
        raise DataError(
            f"{path} has no field {name_field!r}; its fields: {', '.join(available) or '(none)'}"
        )
    if wkb is None or fids is None:
        raise DataError(f"{path} holds no geometries")
    labels = [str(v) for v in (fids if name_field is None else field_data[0])]
    names: list[str] = []
    vertices: list[np.ndarray] = []
    for label, blob in zip(labels, wkb, strict=True):
        if blob is None:
            continue
        geometry = shapely.from_wkb(blob)
        kind = shapely.get_type_id(geometry)
        if kind == shapely.GeometryType.LINESTRING:
            parts = [geometry]
        elif kind == shapely.GeometryType.MULTILINESTRING:
            parts = list(shapely.get_parts(geometry))
        else:
            raise DataError(
                f"feature {label!r} of {path} is a {geometry.geom_type}, not a line; "
                "lines are LineString or MultiLineString"
            )
        for part in parts:
            coords = shapely.get_coordinates(part, include_z=bool(shapely.has_z(part)))
            names.append(label)
            vertices.append(np.ascontiguousarray(coords, dtype=np.float64))
    return names, vertices, crs_wkt(meta["crs"])


def read_line_field(
    path: str | os.PathLike, field: str, layer: str | int | None = None
) -> list[str | None] | None:
    """The attribute ``field`` of every line of :func:`read_lines` (same order: a multi-line's
    parts repeat its value), as text, None where it is empty; None when the layer has no such
    field. :class:`~tumble.errors.DataError` for a file that cannot be read."""
    import pyogrio.raw
    import shapely

    path = Path(path)
    try:
        info = pyogrio.read_info(path, layer=layer)
        if field not in [str(f) for f in info["fields"]]:
            return None
        _, _, wkb, field_data = pyogrio.raw.read(path, layer=layer, columns=[field])
    except Exception as err:
        raise DataError(f"cannot read lines from {path}: {err}") from None
    if wkb is None:
        raise DataError(f"{path} holds no geometries")
    values: list[str | None] = []
    for value, blob in zip(field_data[0], wkb, strict=True):
        if blob is None:
            continue
        geometry = shapely.from_wkb(blob)
        parts = 1
        if shapely.get_type_id(geometry) == shapely.GeometryType.MULTILINESTRING:
            parts = len(shapely.get_parts(geometry))
        text = None if value is None or str(value).strip() == "" else str(value).strip()
        values.extend([text] * parts)
    return values


# --- polygons (release areas) -------------------------------------------------------------------


def read_polygons(
    path: str | os.PathLike,
    layer: str | int | None = None,
    fields: Sequence[str] = (),
) -> tuple[list[list[list[np.ndarray]]], dict[str, list[Any]], str | None]:
    """The polygons of a vector file (GeoPackage, GeoJSON, Shapefile...): ``(polygons,
    attributes, crs)``.

    ``polygons[k]`` is feature k as a list of parts (one for a Polygon, several for a
    MultiPolygon), each part a list of rings, the exterior first and then its holes, every ring
    an (n, 2) float64 array of x, y (the closing point kept, z dropped). ``attributes`` maps each
    name of ``fields`` to its values, one per feature (None where null); ``crs`` is the layer's
    CRS as WKT or None. Features without geometry are skipped. ``layer`` (name or index)
    defaults to the first layer. :class:`~tumble.errors.DataError` for a missing or unreadable
    file, a field the layer does not have (naming those it has) or a geometry that is not a
    polygon.
    """
    import pyogrio.raw
    import shapely

    path = Path(path)
    if not path.exists():
        raise DataError(f"vector file {path} does not exist")
    try:
        info = pyogrio.read_info(path, layer=layer)
    except Exception as err:
        raise DataError(f"cannot read polygons from {path}: {err}") from None
    available = [str(f) for f in info["fields"]]
    missing = [f for f in fields if f not in available]
    if missing:
        raise DataError(
            f"{path} has no field {', '.join(map(repr, missing))}; its fields: "
            + (", ".join(available) or "none")
        )
    try:
        meta, _, wkb, field_data = pyogrio.raw.read(path, layer=layer, columns=list(fields))
    except Exception as err:
        raise DataError(f"cannot read polygons from {path}: {err}") from None
    polygons: list[list[list[np.ndarray]]] = []
    attributes: dict[str, list[Any]] = {name: [] for name in fields}
    columns = dict(zip(list(meta["fields"]), field_data, strict=True))
    for k, blob in enumerate([] if wkb is None else wkb):
        if blob is None:
            continue
        try:
            geometry = shapely.from_wkb(blob)
        except shapely.errors.GEOSException as err:
            raise DataError(f"feature {k + 1} of {path} is not a valid geometry: {err}") from None
        kind = shapely.get_type_id(geometry)
        if kind == shapely.GeometryType.POLYGON:
            parts = [geometry]
        elif kind == shapely.GeometryType.MULTIPOLYGON:
            parts = list(shapely.get_parts(geometry))
        else:
            raise DataError(
                f"feature {k + 1} of {path} is a {geometry.geom_type}, not a polygon; release "
                "areas are Polygon or MultiPolygon features"
            )
        rings = []
        for part in parts:
            if part.is_empty:
                continue
            shell = [np.asarray(shapely.get_coordinates(part.exterior), dtype=np.float64)]
            holes = [
                np.asarray(shapely.get_coordinates(r), dtype=np.float64) for r in part.interiors
            ]
            rings.append(shell + holes)
        if not rings:
            continue
        polygons.append(rings)
        for name in fields:
            value = columns[name][k]
            masked = np.ma.is_masked(value) or value is None
            attributes[name].append(None if masked else _plain(value))
    return polygons, attributes, crs_wkt(meta["crs"])


def read_points(
    path: str | os.PathLike, fields: Sequence[str] = (), layer: str | int | None = None
) -> tuple[np.ndarray, np.ndarray, dict[str, list[Any]], str | None]:
    """The points of a vector file (GeoPackage, GeoJSON, Shapefile...): ``(x, y, attributes,
    crs)``, z dropped, one row per Point (a MultiPoint's parts repeat its attributes);
    ``attributes`` maps each of ``fields`` to one value per row (None where null).
    :class:`~tumble.errors.DataError` for a missing or unreadable file, a missing field (naming
    those the layer has) or a geometry that is not a point."""
    import pyogrio.raw
    import shapely

    path = Path(path)
    if not path.exists():
        raise DataError(f"vector file {path} does not exist")
    try:
        info = pyogrio.read_info(path, layer=layer)
        available = [str(f) for f in info["fields"]]
        missing = [f for f in fields if f not in available]
        if missing:
            raise DataError(
                f"{path} has no field {', '.join(map(repr, missing))}; its fields: "
                + (", ".join(available) or "none")
            )
        meta, _, wkb, field_data = pyogrio.raw.read(path, layer=layer, columns=list(fields))
    except DataError:
        raise
    except Exception as err:
        raise DataError(f"cannot read points from {path}: {err}") from None
    columns = dict(zip(list(meta["fields"]), field_data, strict=True))
    xs: list[float] = []
    ys: list[float] = []
    attributes: dict[str, list[Any]] = {name: [] for name in fields}
    for k, blob in enumerate([] if wkb is None else wkb):
        if blob is None:
            continue
        geometry = shapely.from_wkb(blob)
        if shapely.get_type_id(geometry) not in (
            shapely.GeometryType.POINT,
            shapely.GeometryType.MULTIPOINT,
        ):
            raise DataError(f"feature {k + 1} of {path} is a {geometry.geom_type}, not a point")
        xy = shapely.get_coordinates(geometry)
        for px, py in xy:
            xs.append(float(px))
            ys.append(float(py))
            for name in fields:
                value = columns[name][k]
                masked = np.ma.is_masked(value) or value is None
                attributes[name].append(None if masked else _plain(value))
    return np.array(xs), np.array(ys), attributes, crs_wkt(meta["crs"])


def _plain(value: Any) -> Any:
    """A field value as a plain Python value (numpy scalars unwrapped)."""
    return value.item() if isinstance(value, np.generic) else value


def transform_xy(
    x: ArrayLike, y: ArrayLike, source_crs: Any, target_crs: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates ``x, y`` in ``source_crs`` transformed to ``target_crs`` (each a rasterio
    ``CRS``, WKT, ``"EPSG:..."`` text or EPSG code), through PROJ (``rasterio.warp.transform``),
    in the CRS's x/y (easting/northing, longitude/latitude) order. ValueError when a point
    cannot be transformed."""
    from rasterio.crs import CRS
    from rasterio.warp import transform

    xs = np.asarray(x, dtype=np.float64).ravel()
    ys = np.asarray(y, dtype=np.float64).ravel()
    try:
        tx, ty = transform(CRS.from_user_input(source_crs), CRS.from_user_input(target_crs), xs, ys)
    except Exception as err:
        raise ValueError(f"cannot transform coordinates: {err}") from None
    out_x, out_y = np.asarray(tx, dtype=np.float64), np.asarray(ty, dtype=np.float64)
    if not (np.isfinite(out_x).all() and np.isfinite(out_y).all()):
        raise ValueError("some coordinates cannot be transformed (outside the CRS's area of use)")
    return out_x, out_y


def write_polygons(
    path: str | os.PathLike,
    polygons: Sequence[Sequence[ArrayLike]],
    attributes: Mapping[str, ArrayLike],
    crs: Any = None,
) -> Path:
    """Write Polygon features to a GeoPackage: ``polygons[k]`` is a list of rings, the exterior
    first and then its holes, each an (n >= 3, 2) array of x, y (closed on writing);
    ``attributes`` name -> one value per polygon. Returns the path written."""
    import shapely

    path = Path(path)
    shapes = []
    for k, rings in enumerate(polygons):
        arrays = [np.asarray(r, dtype=np.float64) for r in rings]
        if not arrays or any(a.ndim != 2 or a.shape[1] != 2 or a.shape[0] < 3 for a in arrays):
            raise ValueError(f"polygon {k} of {path} needs rings of (n >= 3, 2) vertices")
        shapes.append(shapely.Polygon(arrays[0], list(arrays[1:])))
    wkb = np.empty(len(shapes), dtype=object)
    wkb[:] = [shapely.to_wkb(s) for s in shapes]
    return _write_layer(path, wkb, "Polygon", attributes, crs)


def barrier_entries(path: Path) -> list[dict]:
    """The ``[[barrier]]`` entries of a vector file of barrier lines, as
    :func:`tumble.io.config.load_barriers_file` describes them."""
    import pyogrio

    if not path.exists():
        raise DataError(f"barriers file {path} does not exist")
    try:
        fields = [str(f) for f in pyogrio.read_info(path)["fields"]]
    except Exception as err:
        raise DataError(f"cannot read barrier lines from {path}: {err}") from None
    name_field = "name" if "name" in fields else None
    names, lines, _ = read_lines(path, name_field=name_field)
    if not lines:
        raise DataError(f"barriers file {path} holds no lines")
    where = str(path.resolve())
    if name_field is None:
        return [
            {"name": f"line_{k}", "file": where, "feature": k} for k in range(1, len(lines) + 1)
        ]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DataError(
            f"barriers file {path}: "
            + ", ".join(f"name {n!r} is on {names.count(n)} lines" for n in repeated)
            + "; each barrier is one line with its own name (a multi-line's parts are lines)"
        )
    return [{"name": n, "file": where, "name_field": name_field} for n in names]


def write_multipolygons(
    path: str | os.PathLike,
    geometries: Sequence[Any],
    attributes: Mapping[str, ArrayLike],
    crs: Any = None,
) -> Path:
    """Write shapely (multi)polygons as MultiPolygon features of a GeoPackage (an empty
    geometry is written as a feature without geometry); ``attributes`` name -> one value per
    feature. Returns the path written."""
    import shapely

    wkb = np.empty(len(geometries), dtype=object)
    for k, geometry in enumerate(geometries):
        if geometry is None or geometry.is_empty:
            wkb[k] = None
            continue
        if geometry.geom_type == "Polygon":
            geometry = shapely.MultiPolygon([geometry])
        wkb[k] = shapely.to_wkb(geometry)
    return _write_layer(path, wkb, "MultiPolygon", attributes, crs)
