"""The Tschamut 2014 data as processed by rust_rockfall: the four files read and checked, the
blocks, the runs' release and stop points, the proxy terrain (:mod:`tumble.validation.tschamut`
describes the format and its caveats)."""

from __future__ import annotations

import csv
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.rockfall.rock import Rock
from tumble.rockfall.terrain import Terrain
from tumble.validation.authume.data import authume_blocks

#: environment variable naming the data directory (tests; the CLI takes ``--data-dir``)
DATA_ENV = "TUMBLE_TSCHAMUT_DATA"
#: where the data come from, for error messages
DATA_SOURCE = (
    "the Tschamut 2014 tests are not shipped with tumble: they are EnviDat 'Tschamut 2014' "
    "(doi:10.16904/envidat.34, ODbL/DbCL), processed into release_points.csv, "
    "observed_deposition.csv, block_metadata.csv and terrain.asc by "
    "github.com/ofuhrer/rust_rockfall (scripts/preprocess_datasets.py --dataset tschamut2014)"
)
RELEASE_FILE = "release_points.csv"
DEPOSITION_FILE = "observed_deposition.csv"
BLOCK_FILE = "block_metadata.csv"
TERRAIN_FILE = "terrain.asc"
RELEASE_COLUMNS = (
    "trajectory_id",
    "x_m",
    "y_m",
    "z_m",
    "ground_z_m",
    "vx_mps",
    "vy_mps",
    "vz_mps",
    "block_id",
    "mass_kg",
)
DEPOSITION_COLUMNS = (
    "trajectory_id",
    "x_m",
    "y_m",
    "z_m",
    "ground_z_m",
    "release_x_m",
    "release_y_m",
    "release_z_m",
    "observed_runout_m",
    "block_id",
)
BLOCK_COLUMNS = ("block_id", "name", "mass_kg", "radius_m", "size_x_m", "size_y_m", "size_z_m")
#: largest accepted gap (m) between ``observed_runout_m`` and the horizontal distance of the
#: coordinates, and between the two files' release points (they are written with 6 decimals)
RUNOUT_TOLERANCE = 1e-3
#: density (kg/m^3) of the EOTA111 sensitivity shape
EOTA_DENSITY = 2650.0
#: the block shapes: the bounding box, EOTA111, or natural hulls (:func:`natural_rocks`)
SHAPES = ("box", "eota111", "natural")
#: the natural hulls: the four photogrammetric blocks of the Authume tests
#: (:func:`tumble.validation.authume.data.authume_blocks`, in this order)
NATURAL_HULLS = ("SP1A", "SP2A", "SP2B", "SP3A")


@dataclass(frozen=True)
class TschamutBlock:
    """A test block: id, name, measured mass (kg), equivalent radius (m) and measured principal
    lengths ``size`` (3,) m."""

    block_id: str
    name: str
    mass: float
    radius: float
    size: tuple[float, float, float]

    @property
    def box_density(self) -> float:
        """The density (kg/m^3) of a box of the measured lengths carrying the measured mass."""
        return self.mass / float(np.prod(self.size))

    def rock(self, shape: str = "box") -> Rock:
        """The block as a rock: ``"box"`` (measured lengths and mass) or ``"eota111"`` (the
        measured mass at :data:`EOTA_DENSITY`); ``"natural"`` is several rocks
        (:meth:`natural_rocks`)."""
        if shape == "box":
            return Rock.box(*self.size, mass=self.mass)
        if shape == "eota111":
            return Rock.eota111(mass=self.mass, density=EOTA_DENSITY)
        if shape == "natural":
            raise ValueError("the natural shape is one rock per hull: use natural_rocks()")
        raise ValueError(f"unknown block shape {shape!r}; choose one of {', '.join(SHAPES)}")

    def natural_rocks(self) -> tuple[Rock, ...]:
        """The block as natural rocks, one per hull of :data:`NATURAL_HULLS`: the hull of a
        photogrammetric block of the Authume tests stretched along its principal axes so that
        its extents there are the measured principal lengths (longest to longest), carrying the
        measured mass (:func:`natural_hull_rock`)."""
        hulls = authume_blocks()
        return tuple(
            natural_hull_rock(hulls[name].hull.vertices, self.size, self.mass, name)
            for name in NATURAL_HULLS
        )


def natural_hull_rock(
    vertices: np.ndarray, size: Sequence[float], mass: float, name: str = "natural"
) -> Rock:
    """A hull (vertices in its principal frame, (n, 3)) stretched along those axes so that its
    extents are ``size`` (the longest extent to the longest length), as a rock of ``mass``."""
    vertices = np.asarray(vertices, dtype=np.float64)
    extent = np.ptp(vertices, axis=0)
    order = np.argsort(extent)[::-1]
    scale = np.empty(3)
    scale[order] = np.sort(np.asarray(size, dtype=np.float64))[::-1] / extent[order]
    return Rock.from_points(vertices * scale, mass=mass, name=name)


@dataclass(frozen=True, eq=False)
class TschamutData:
    """The runs (batch first, in the files' order), the blocks and the terrain.

    ``run_id`` (n,); ``release`` (n, 3) release centre; ``velocity`` (n, 3) velocity of the first
    tracked sample (m/s); ``block_id`` (n,); ``stop`` (n, 3) measured stop centre;
    ``ground_check``: how far the bilinear terrain lies from the files' ``ground_z_m``
    (``{"release"|"stop": {"max_abs_m", "median_m"}}``, terrain minus file).
    """

    directory: Path
    run_id: tuple[str, ...]
    release: np.ndarray
    velocity: np.ndarray
    block_id: tuple[str, ...]
    stop: np.ndarray
    blocks: dict[str, TschamutBlock]
    terrain: Terrain
    ground_check: dict[str, dict[str, float]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.run_id)

    @property
    def runout(self) -> np.ndarray:
        """Measured horizontal distance release to stop (n,), m."""
        return horizontal_distance(self.release, self.stop)

    @property
    def reach_angle(self) -> np.ndarray:
        """Measured energy-line angle of the centre (n,), degrees."""
        return reach_angle(self.release, self.stop)

    @property
    def mass(self) -> np.ndarray:
        return np.array([self.blocks[b].mass for b in self.block_id])


def horizontal_distance(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Horizontal distance (m) between points (n, 3) or (n, 2)."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    return np.hypot(end[:, 0] - start[:, 0], end[:, 1] - start[:, 1])


def reach_angle(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Energy-line angle ``atan(drop / horizontal distance)`` (degrees) from ``start`` to
    ``end`` (n, 3); 90 for a rock that fell straight down, negative for one that rose."""
    start, end = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    return np.degrees(np.arctan2(start[:, 2] - end[:, 2], horizontal_distance(start, end)))


def data_directory(path: str | os.PathLike[str] | None) -> Path:
    """The data directory ``path``; DataError (saying where the data come from) when it is None
    or not a directory."""
    if path is None or str(path) == "":
        raise DataError(f"no Tschamut data directory given (--data-dir); {DATA_SOURCE}")
    directory = Path(path)
    if not directory.is_dir():
        raise DataError(f"Tschamut data directory {str(directory)!r} not found; {DATA_SOURCE}")
    return directory


def _read_table(path: Path, columns: Sequence[str], text: Sequence[str]) -> dict[str, list]:
    """The columns of a CSV file; ``text`` columns as str, the others as finite floats."""
    if not path.is_file():
        raise DataError(f"{path}: file not found; {DATA_SOURCE}")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = [h.strip() for h in reader.fieldnames or ()]
        missing = [c for c in columns if c not in header]
        if missing:
            raise DataError(f"{path}: missing column(s) {', '.join(missing)}")
        rows = [{k.strip(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    if not rows:
        raise DataError(f"{path}: no rows")
    out: dict[str, list] = {c: [] for c in columns}
    for line, row in enumerate(rows, start=2):
        for c in columns:
            value = row.get(c, "")
            if c in text:
                if not value:
                    raise DataError(f"{path}, line {line}: empty {c}")
                out[c].append(value)
                continue
            try:
                number = float(value)
            except ValueError:
                raise DataError(f"{path}, line {line}: {c} = {value!r} is not a number") from None
            if not math.isfinite(number):
                raise DataError(f"{path}, line {line}: {c} is {value or 'empty'} (not finite)")
            out[c].append(number)
    return out


def read_terrain(path: str | os.PathLike[str]) -> Terrain:
    """The terrain of an ESRI ASCII grid written by the data's producer: height ``(col, row)``
    at ``xllcorner + col cellsize``, ``yllcorner + row cellsize`` (module docstring); a grid
    giving ``xllcenter`` is read at its centres, which is the same rule. Local frame, no CRS."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found; {DATA_SOURCE}")
    header: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for _ in range(6):
            parts = handle.readline().split()
            if len(parts) != 2:
                break
            header[parts[0].lower()] = parts[1]
    terrain = Terrain.from_file(path)
    if "xllcorner" in header and "yllcorner" in header:
        x0, y0 = float(header["xllcorner"]), float(header["yllcorner"])
    elif "xllcenter" in header and "yllcenter" in header:
        x0, y0 = float(header["xllcenter"]), float(header["yllcenter"])
    else:
        raise DataError(f"{path}: the header gives neither xllcorner/yllcorner nor xllcenter")
    return Terrain.from_array(terrain.heights, x0=x0, y0=y0, dx=terrain.dx, dy=terrain.dy)


def load(data_dir: str | os.PathLike[str] | None) -> TschamutData:
    """Read and check a data directory (module docstring). DataError for a missing directory,
    file or column, a value that is not a finite number, ids that differ between the files or
    repeat, a block the block table lacks, a mass that differs from the block's, release points
    that differ between the two files, an ``observed_runout_m`` that is not the horizontal
    distance of the coordinates, or a point off the terrain."""
    directory = data_directory(data_dir)
    rel = _read_table(directory / RELEASE_FILE, RELEASE_COLUMNS, ("trajectory_id", "block_id"))
    dep = _read_table(
        directory / DEPOSITION_FILE, DEPOSITION_COLUMNS, ("trajectory_id", "block_id")
    )
    blk = _read_table(directory / BLOCK_FILE, BLOCK_COLUMNS, ("block_id", "name"))

    blocks: dict[str, TschamutBlock] = {}
    for i, block_id in enumerate(blk["block_id"]):
        if block_id in blocks:
            raise DataError(f"{directory / BLOCK_FILE}: block_id {block_id} repeats")
        size = (blk["size_x_m"][i], blk["size_y_m"][i], blk["size_z_m"][i])
        values = (blk["mass_kg"][i], blk["radius_m"][i], *size)
        if min(values) <= 0.0:
            raise DataError(f"{directory / BLOCK_FILE}: block {block_id} has a length or mass <= 0")
        blocks[block_id] = TschamutBlock(
            block_id, blk["name"][i], blk["mass_kg"][i], blk["radius_m"][i], size
        )

    ids = tuple(rel["trajectory_id"])
    for name, table in ((RELEASE_FILE, rel), (DEPOSITION_FILE, dep)):
        repeated = sorted(k for k, c in Counter(table["trajectory_id"]).items() if c > 1)
        if repeated:
            raise DataError(f"{directory / name}: trajectory_id repeats: {', '.join(repeated)}")
    if set(ids) != set(dep["trajectory_id"]):
        only_rel = sorted(set(ids) - set(dep["trajectory_id"]))
        only_dep = sorted(set(dep["trajectory_id"]) - set(ids))
        raise DataError(
            f"{directory}: the trajectory ids of {RELEASE_FILE} and {DEPOSITION_FILE} differ "
            f"(only in {RELEASE_FILE}: {', '.join(only_rel) or 'none'}; only in "
            f"{DEPOSITION_FILE}: {', '.join(only_dep) or 'none'})"
        )
    order = [dep["trajectory_id"].index(k) for k in ids]

    def column(table: dict[str, list], names: Sequence[str], rows: Any = None) -> np.ndarray:
        arr = np.column_stack([np.asarray(table[n], dtype=np.float64) for n in names])
        return arr if rows is None else arr[rows]

    release = column(rel, ("x_m", "y_m", "z_m"))
    velocity = column(rel, ("vx_mps", "vy_mps", "vz_mps"))
    stop = column(dep, ("x_m", "y_m", "z_m"), order)
    dep_release = column(dep, ("release_x_m", "release_y_m", "release_z_m"), order)
    block_id = tuple(rel["block_id"])
    for k, (run, b) in enumerate(zip(ids, block_id, strict=True)):
        if b not in blocks:
            raise DataError(f"{directory / RELEASE_FILE}: run {run}: unknown block_id {b}")
        if dep["block_id"][order[k]] != b:
            raise DataError(f"{directory}: run {run} has another block_id in {DEPOSITION_FILE}")
        if abs(rel["mass_kg"][k] - blocks[b].mass) > 1e-6 * blocks[b].mass:
            raise DataError(
                f"{directory / RELEASE_FILE}: run {run}: mass_kg {rel['mass_kg'][k]} differs from "
                f"block {b}'s {blocks[b].mass}"
            )
    gap = np.abs(dep_release - release).max(axis=1)
    if np.any(gap > RUNOUT_TOLERANCE):
        k = int(np.argmax(gap))
        raise DataError(
            f"{directory}: run {ids[k]}: the release point of {DEPOSITION_FILE} lies "
            f"{gap[k]:.3g} m from that of {RELEASE_FILE}"
        )
    given = np.asarray(dep["observed_runout_m"], dtype=np.float64)[order]
    off = np.abs(given - horizontal_distance(release, stop))
    if np.any(off > RUNOUT_TOLERANCE):
        k = int(np.argmax(off))
        raise DataError(
            f"{directory / DEPOSITION_FILE}: run {ids[k]}: observed_runout_m {given[k]} is not "
            f"the horizontal distance release-stop of the coordinates "
            f"({horizontal_distance(release, stop)[k]:.6f} m)"
        )

    terrain = read_terrain(directory / TERRAIN_FILE)
    check: dict[str, dict[str, float]] = {}
    for what, points, ground in (
        ("release", release, np.asarray(rel["ground_z_m"])),
        ("stop", stop, np.asarray(dep["ground_z_m"])[order]),
    ):
        inside = terrain.contains(points[:, 0], points[:, 1])
        if not inside.all():
            k = int(np.argmin(inside))
            raise DataError(
                f"{directory / TERRAIN_FILE}: the {what} point of run {ids[k]} "
                f"({points[k, 0]:.2f}, {points[k, 1]:.2f}) is {terrain.off_terrain(*points[k, :2])}"
            )
        diff = terrain.height(points[:, 0], points[:, 1]) - ground
        check[what] = {"max_abs_m": float(np.abs(diff).max()), "median_m": float(np.median(diff))}
    for arr in (release, velocity, stop):
        arr.flags.writeable = False
    return TschamutData(directory, ids, release, velocity, block_id, stop, blocks, terrain, check)
