"""Observed rockfall blocks (silent witnesses, field tests) as ``tumble rockfall calibrate`` reads
them: one row per block, from a CSV file or a vector file of points at the stops.

Columns, exactly these names (:data:`COLUMNS`)::

    release_x, release_y       where the block started (m, the DEM's CRS; in a vector file
                               the file's CRS, transformed with its stops)
    release_z | release_height the centre's absolute height, or the height of the block's lowest
                               point above the terrain; neither: placed on the terrain
    vx, vy, vz                 initial velocity (m/s; 0 if absent)
    shape                      a shape of the catalogue (eota221, eota111), with mass or volume
    box_x, box_y, box_z        or a box of these edges (m), with mass
    mass, volume               kg, m^3
    class                      or a rock class of the configuration (its name)
    stop_x, stop_y             where it stopped (for a vector file: the point itself)
    id                         an optional label of the block, kept in the outputs

A cell left empty is the column's absence for that row. A row that cannot be used is refused
with its number (the first block is row 1) and its column; nothing else of the file is checked
against the terrain here (:mod:`tumble.pipeline.calibration.blocks` does that).
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tumble.errors import DataError

#: every column an observation file may have
COLUMNS = (
    "id",
    "release_x",
    "release_y",
    "release_z",
    "release_height",
    "vx",
    "vy",
    "vz",
    "shape",
    "mass",
    "volume",
    "box_x",
    "box_y",
    "box_z",
    "class",
    "stop_x",
    "stop_y",
)
#: columns every row needs
REQUIRED = ("release_x", "release_y", "stop_x", "stop_y")
#: columns holding text; the others are numbers
TEXT = ("id", "shape", "class")
#: the catalogue shapes a row may name
SHAPES = ("eota221", "eota111")
#: suffixes read as CSV; any other is read as a vector file of points
CSV_SUFFIXES = (".csv", ".txt")


@dataclass(frozen=True, eq=False)
class Observations:
    """The blocks of an observation file: ``values`` column -> (n,) float64 (NaN where empty),
    ``text`` column -> n strings ('' where empty), for the columns the file has; ``path``
    its name in messages; ``crs`` the vector file's CRS (WKT) or None."""

    path: str
    values: dict[str, np.ndarray]
    text: dict[str, tuple[str, ...]]
    crs: str | None = None

    def __len__(self) -> int:
        return len(self.values["release_x"])

    def number(self, column: str) -> np.ndarray:
        """The column's numbers, NaN for every row when the file has no such column."""
        return self.values.get(column, np.full(len(self), np.nan))

    def label(self, column: str) -> tuple[str, ...]:
        return self.text.get(column, ("",) * len(self))

    def refuse(self, row: int, column: str, why: str) -> DataError:
        """The error of row ``row`` (0-based index; printed from 1) and its column."""
        return DataError(f"{self.path}: row {row + 1}, column {column}: {why}")


def read_observations(path: str | os.PathLike) -> Observations:
    """The observations of a CSV file or a vector file of points (module docstring), checked
    row by row; :class:`~tumble.errors.DataError` naming the row and column of the first bad
    value, or the missing or unknown column."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"observation file {path} does not exist")
    if path.suffix.lower() in CSV_SUFFIXES:
        names, cells = _read_csv(path)
        crs = None
    else:
        names, cells, crs = _read_vector(path)
    unknown = [c for c in names if c not in COLUMNS]
    if unknown:
        raise DataError(
            f"{path}: unknown column {unknown[0]!r}; the columns are {', '.join(COLUMNS)}"
        )
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise DataError(f"{path}: the column {missing[0]} is missing (every row needs it)")
    if not cells:
        raise DataError(f"{path} holds no observed block")
    values: dict[str, np.ndarray] = {}
    text: dict[str, tuple[str, ...]] = {}
    for j, name in enumerate(names):
        column = [row[j].strip() for row in cells]
        if name in TEXT:
            text[name] = tuple(column)
            continue
        numbers = np.full(len(column), np.nan)
        for i, cell in enumerate(column):
            if not cell:
                continue
            try:
                numbers[i] = float(cell)
            except ValueError:
                raise DataError(
                    f"{path}: row {i + 1}, column {name}: {cell!r} is not a number"
                ) from None
            if not math.isfinite(numbers[i]):
                raise DataError(f"{path}: row {i + 1}, column {name}: {cell!r} is not finite")
        values[name] = numbers
    observations = Observations(str(path), values, text, crs)
    _check_rows(observations)
    return observations


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        lines = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    if not lines:
        raise DataError(f"{path} is empty: it needs a header row naming the columns")
    names = [c.strip() for c in lines[0]]
    for i, row in enumerate(lines[1:]):
        if len(row) != len(names):
            raise DataError(
                f"{path}: row {i + 1} has {len(row)} cells, the header {len(names)} columns"
            )
    return names, lines[1:]


def _read_vector(path: Path) -> tuple[list[str], list[list[str]], str | None]:
    """A vector file of points at the stops: its fields, and ``stop_x, stop_y`` from the
    points."""
    import pyogrio.raw
    import shapely

    from tumble.io.vectors import crs_wkt

    try:
        meta, _, wkb, field_data = pyogrio.raw.read(path)
    except Exception as err:
        raise DataError(f"cannot read points from {path}: {err}") from None
    names = [str(f) for f in meta["fields"]]
    if "stop_x" in names or "stop_y" in names:
        raise DataError(f"{path}: the stop of a vector file is its point, not stop_x/stop_y")
    if wkb is None:
        raise DataError(f"{path} holds no geometries")
    stops = []
    for i, blob in enumerate(wkb):
        geometry = None if blob is None else shapely.from_wkb(blob)
        if geometry is None or shapely.get_type_id(geometry) != shapely.GeometryType.POINT:
            kind = "no geometry" if geometry is None else f"a {geometry.geom_type}"
            raise DataError(f"{path}: row {i + 1}, the stop: {kind}, not a point")
        stops.append(shapely.get_coordinates(geometry)[0])
    cells = [
        [_cell(field_data[j][i]) for j in range(len(names))] + [repr(float(x)), repr(float(y))]
        for i, (x, y) in enumerate(stops)
    ]
    return [*names, "stop_x", "stop_y"], cells, crs_wkt(meta["crs"])


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _check_rows(obs: Observations) -> None:
    """Every row complete and consistent (module docstring)."""
    for column in REQUIRED:
        empty = np.flatnonzero(np.isnan(obs.values[column]))
        if empty.size:
            raise obs.refuse(int(empty[0]), column, "empty; every row needs it")
    for column in ("mass", "volume", "box_x", "box_y", "box_z"):
        bad = np.flatnonzero(obs.number(column) <= 0.0)
        if bad.size:
            value = obs.number(column)[bad[0]]
            raise obs.refuse(int(bad[0]), column, f"must be positive, got {value:g}")
    bad = np.flatnonzero(obs.number("release_height") < 0.0)
    if bad.size:
        raise obs.refuse(int(bad[0]), "release_height", "must not be negative")
    for i in range(len(obs)):
        given = {c for c in COLUMNS if c in obs.values and not np.isnan(obs.values[c][i])}
        given |= {c for c in TEXT if obs.label(c)[i]}
        if {"release_z", "release_height"} <= given:
            raise obs.refuse(i, "release_height", "give release_z or release_height, not both")
        box = [c for c in ("box_x", "box_y", "box_z") if c in given]
        shape = obs.label("shape")[i]
        if shape and shape not in SHAPES:
            raise obs.refuse(i, "shape", f"{shape!r} is not one of {', '.join(SHAPES)}")
        if shape and box:
            raise obs.refuse(i, box[0], "give shape or box_x, box_y, box_z, not both")
        if box and len(box) < 3:
            gap = next(c for c in ("box_x", "box_y", "box_z") if c not in given)
            raise obs.refuse(i, gap, "a box needs box_x, box_y and box_z")
        if box and "mass" not in given:
            raise obs.refuse(i, "mass", "a box needs its mass")
        if box and "volume" in given:
            raise obs.refuse(i, "volume", "a box takes its mass, not a volume")
        if shape and len({"mass", "volume"} & given) != 1:
            raise obs.refuse(i, "mass", f"shape {shape} needs mass or volume (one of them)")
        if not shape and not box and "class" not in given:
            raise obs.refuse(i, "shape", "give the rock: shape, box_x/box_y/box_z or class")
