"""The Tschamut 2014 rockfall tests: a held-out check of the soil categories, never tuned on.

The tests (Volkwein et al. 2018) released natural blocks of 40-79 kg down a meadow slope near
Tschamut (Graubuenden, CH) and tracked them with a local positioning system (LPS). The data set is
EnviDat "Tschamut 2014" (doi:10.16904/envidat.34, ODbL/DbCL). tumble does not ship it: this module
reads a directory in the processed format below, which the open project rust_rockfall
(github.com/ofuhrer/rust_rockfall, ``scripts/preprocess_datasets.py``) writes from the EnviDat
files ``all_LPS_splined.txt`` and ``OverviewAllTests.txt``:

* ``release_points.csv``: one row per run, ``trajectory_id``, ``x_m``, ``y_m``, ``z_m`` (the
  block's centre: terrain proxy height plus the block's equivalent radius), ``ground_z_m``,
  ``vx_mps``, ``vy_mps``, ``vz_mps`` (the velocity of the first tracked sample), ``block_id``,
  ``mass_kg``, ``radius_m``; the release is the first sample of the tracked trajectory;
* ``observed_deposition.csv``: the same ids, the stop point ``x_m``, ``y_m``, ``z_m`` (the last
  tracked sample, z again terrain proxy plus radius), ``release_x_m``, ``release_y_m``,
  ``release_z_m`` and ``observed_runout_m``, the horizontal distance from release to stop
  (checked here against the coordinates, :data:`RUNOUT_TOLERANCE`);
* ``block_metadata.csv``: ``block_id``, ``name``, ``mass_kg``, ``radius_m`` (equivalent sphere),
  ``size_x_m``, ``size_y_m``, ``size_z_m`` (the measured principal lengths);
* ``terrain.asc``: an ESRI ASCII grid in the local LPS frame (no CRS), the producer's proxy of
  the slope: a trend plane plus inverse-distance-weighted residuals of the LPS heights. It is not
  a surveyed DEM. Its producer samples height ``(col, row)`` at ``xllcorner + col cellsize``,
  ``yllcorner + row cellsize`` (the corner, not the cell centre of the ESRI convention);
  :func:`read_terrain` reads it so, and :func:`load` reports how far the bilinear terrain lies
  from the data's own ``ground_z_m`` at the release and stop points.

Simulation (:func:`run_category`): each run is released from its measured release point with its
measured velocity (no spin: none is given), ``orientations`` times, each time in a uniformly random
orientation from the rock's own stream (``SeedSequence(seed, spawn_key=(k,))``, rock
``k = run orientations + j``), its centre above the release point and its lowest point
:data:`RELEASE_CLEARANCE` above the terrain (the exact hull clearance,
:mod:`tumble.rockfall.clearance`). The block is a box of the measured principal lengths carrying
the measured mass (``shape="box"``; the blocks are irregular and the box is their bounding box,
so the density it implies, :attr:`TschamutBlock.box_density`, is below that of rock), or the
EOTA111 shape with the measured mass at :data:`EOTA_DENSITY` (``shape="eota111"``). The soil is
one category of :data:`tumble.rockfall.soil.CATALOGUE` by name, everywhere; with ``uncertainty``
``"sets"`` or ``"category"`` each rock draws its parameters from its soil stream exactly as a run
with ``soil.uncertainty`` does (:mod:`tumble.rockfall.site.soil_uncertainty`). The rocks run
through :class:`tumble.rockfall.ensemble.Ensemble`.

Metrics (:func:`category_metrics`): run-out = horizontal distance release to stop (the centre of
mass); the ratio of the simulated to the measured median run-out; the two-sample
Kolmogorov-Smirnov test of the run-out; the share of simulated rocks stopping within
:data:`EARLY_STOP_DISTANCES` of their release; the rocks that left the terrain or timed out
(counted apart; their run-out, a lower bound, stays in the sample, as in the Authume
validation), those that ended in a numerical failure (counted, left out); the energy-line (reach)
angle ``atan(drop / horizontal distance)`` of the centre of mass, measured and simulated.

Held-out discipline: no parameter of tumble is fitted to these data.

References: A. Volkwein et al., Repetitive Rockfall Trajectory Testing, Geosciences 8 (2018) 88,
doi:10.3390/geosciences8030088. Data: doi:10.16904/envidat.34.
"""

from __future__ import annotations

import csv
import math
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tumble import _check
from tumble.errors import DataError
from tumble.rockfall.clearance import Hulls, rock_clearances
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import ReleaseStates, rock_rng, uniform_quaternion
from tumble.rockfall.rock import Rock
from tumble.rockfall.site.soil_draws import uniform_soil_table
from tumble.rockfall.site.soil_uncertainty import check_mode, set_index, soil_uniforms
from tumble.rockfall.soil import CATALOGUE, FIELDS, Soil
from tumble.rockfall.status import REGULAR, status_name
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import quat_to_matrix
from tumble.validation.authume.metrics import kolmogorov_smirnov

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
#: gap (m) between a released rock's lowest point and the terrain
RELEASE_CLEARANCE = 0.01
#: early stops: shares of rocks stopping within these horizontal distances (m) of their release
EARLY_STOP_DISTANCES = (10.0, 1.4)
#: simulated time per rock (s)
T_MAX = 60.0
#: rocks per chunk of the ensemble driver (progress is reported per chunk)
CHUNK_ROCKS = 64
SHAPES = ("box", "eota111")
SCHEMES = ("implicit", "explicit")
#: quantiles (%) of the energy-line angle reported besides the minimum
ANGLE_PERCENTILES = (1, 5, 50)


# ---------------------------------------------------------------------------------------------
# data


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
        measured mass at :data:`EOTA_DENSITY`)."""
        if shape == "box":
            return Rock.box(*self.size, mass=self.mass)
        if shape == "eota111":
            return Rock.eota111(mass=self.mass, density=EOTA_DENSITY)
        raise ValueError(f"unknown block shape {shape!r}; choose one of {', '.join(SHAPES)}")


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


# ---------------------------------------------------------------------------------------------
# releases and runs


@dataclass(frozen=True, eq=False)
class CategoryRun:
    """Rocks of one soil category: ``run_index`` (n,) index of the run in the data, ``orientation``
    (n,) its number ``0 .. orientations - 1``; ``states`` the releases; ``stop`` (n, 3) final
    centre; ``status`` (n,) how each rock ended; ``t_end`` (n,) s; ``soil_set`` (n,) the drawn
    set (uncertainty ``"sets"``, else -1); ``drawn`` field -> each rock's value (uncertainty
    ``"category"``)."""

    category: str
    uncertainty: str
    shape: str
    scheme: str
    seed: int
    orientations: int
    run_index: np.ndarray
    orientation: np.ndarray
    states: ReleaseStates
    stop: np.ndarray
    status: tuple[str, ...]
    t_end: np.ndarray
    seconds: float
    soil_set: np.ndarray
    drawn: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.status)

    @property
    def label(self) -> str:
        """``category`` with its uncertainty mode and any non-default shape or scheme."""
        parts = [
            self.category if self.uncertainty == "none" else f"{self.category}:{self.uncertainty}"
        ]
        if self.shape != "box":
            parts.append(self.shape)
        if self.scheme != "implicit":
            parts.append(self.scheme)
        return " ".join(parts)

    @property
    def runout(self) -> np.ndarray:
        return horizontal_distance(self.states.position, self.stop)

    @property
    def reach_angle(self) -> np.ndarray:
        return reach_angle(self.states.position, self.stop)

    @property
    def regular(self) -> np.ndarray:
        names = {status_name(code) for code in REGULAR}
        return np.array([s in names for s in self.status], dtype=bool)


def releases(
    data: TschamutData, orientations: int, seed: int, shape: str = "box"
) -> tuple[ReleaseStates, np.ndarray, np.ndarray, tuple[Rock, ...], np.ndarray]:
    """The releases of every run ``orientations`` times (module docstring): the states, the run
    and orientation of each rock, the block shapes (one per block, in the order of
    ``data.blocks``) and each rock's shape index."""
    orientations = _check.positive_int(orientations, "orientations")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    names = tuple(data.blocks)
    shapes = tuple(data.blocks[b].rock(shape) for b in names)
    n = len(data) * orientations
    run_index = np.repeat(np.arange(len(data)), orientations)
    orientation = np.tile(np.arange(orientations), len(data))
    shape_id = np.array([names.index(data.block_id[i]) for i in run_index], dtype=np.int64)
    quaternion = np.array([uniform_quaternion(rock_rng(seed, k)) for k in range(n)])
    xy = data.release[run_index, :2]
    # the centre well above the terrain; then moved down to RELEASE_CLEARANCE (a vertical shift
    # changes the vertical gap by as much)
    high = data.terrain.height(xy[:, 0], xy[:, 1]) + max(
        2.0 * Hulls.of(s).radius(0) for s in shapes
    )
    centre = np.column_stack([xy, high])
    hulls = Hulls.of(shapes, shape_id)
    gap, on_terrain = rock_clearances(data.terrain, hulls, 0, centre, quat_to_matrix(quaternion))
    if not on_terrain.all():
        k = int(np.argmin(on_terrain))
        raise DataError(
            f"the block of run {data.run_id[run_index[k]]} reaches off the terrain at its release"
        )
    centre[:, 2] -= gap - RELEASE_CLEARANCE
    states = ReleaseStates(centre, quaternion, data.velocity[run_index], np.zeros((n, 3)))
    return states, run_index, orientation, shapes, shape_id


def _soils(
    category: str, uncertainty: str, seed: int, n: int
) -> tuple[Soil, dict[str, Any], np.ndarray, dict[str, np.ndarray]]:
    """The soil of a category, the per-rock soil table of its uncertainty (keywords of
    :class:`Ensemble`, :func:`tumble.rockfall.site.soil_draws.uniform_soil_table` as a run with
    ``soil.uncertainty`` builds it), each rock's set (-1 without) and its drawn fields."""
    soil = Soil.preset(category)
    preset = CATALOGUE[category]
    check_mode(preset, category, uncertainty)
    no_set = np.full(n, -1, dtype=np.int64)
    if uncertainty == "none":
        return soil, {}, no_set, {}
    soils, row, values = uniform_soil_table(category, uncertainty, seed, n)
    table = {"soils": list(soils), "soil_row": row}
    if uncertainty == "sets":
        return soil, table, set_index(soil_uniforms(seed, n)[:, 0], len(preset.sets)), {}
    drawn = {name: values[:, FIELDS.index(name)] for name in preset.spread}
    return soil, table, no_set, drawn


def run_category(
    data: TschamutData,
    category: str,
    uncertainty: str = "none",
    orientations: int = 16,
    seed: int = 0,
    scheme: str = "implicit",
    shape: str = "box",
    t_max: float = T_MAX,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> CategoryRun:
    """Simulate every run ``orientations`` times on the soil ``category`` (module docstring).
    ``progress(done)`` is called after each chunk with the rocks finished so far. The result does
    not depend on ``workers``."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}, got {shape!r}")
    t_max = float(t_max)
    if not (math.isfinite(t_max) and t_max > 0.0):
        raise ValueError(f"t_max must be positive, got {t_max!r}")
    workers = _check.positive_int(workers, "workers")
    start = time.perf_counter()
    states, run_index, orientation, shapes, shape_id = releases(data, orientations, seed, shape)
    n = len(states)
    soil, table, soil_set, drawn = _soils(category, uncertainty, seed, n)
    ensemble = Ensemble(
        data.terrain,
        shapes,
        soil,
        states,
        shape_id=shape_id,
        seed=seed,
        scheme=scheme,
        t_max=t_max,
        **table,
    )
    codes = np.empty(n, dtype=np.int64)
    steps = np.empty(n, dtype=np.int64)
    stop = np.empty((n, 3))
    for lo in range(0, n, CHUNK_ROCKS):
        hi = min(lo + CHUNK_ROCKS, n)
        chunk = ensemble.run_chunk(lo, hi, workers)
        codes[lo:hi] = chunk["status"]
        steps[lo:hi] = chunk["steps"]
        stop[lo:hi] = chunk["final_state"][:, :3]
        if progress is not None:
            progress(hi)
    return CategoryRun(
        category=category,
        uncertainty=uncertainty,
        shape=shape,
        scheme=scheme,
        seed=int(seed),
        orientations=int(orientations),
        run_index=run_index,
        orientation=orientation,
        states=states,
        stop=stop,
        status=tuple(status_name(int(c)) for c in codes),
        t_end=steps * ensemble.options.dt,
        seconds=time.perf_counter() - start,
        soil_set=soil_set,
        drawn=drawn,
    )


# ---------------------------------------------------------------------------------------------
# metrics


def angle_summary(angles: np.ndarray) -> dict[str, float]:
    """Minimum and the :data:`ANGLE_PERCENTILES` of energy-line angles (degrees)."""
    angles = np.asarray(angles, dtype=np.float64)
    out = {"min_deg": float(angles.min())}
    for p in ANGLE_PERCENTILES:
        out[f"p{p}_deg" if p != 50 else "median_deg"] = float(np.percentile(angles, p))
    return out


def measured_metrics(data: TschamutData) -> dict[str, Any]:
    """The measured run-outs and energy-line angles, and how many ran less than 40 m."""
    runout = data.runout
    return {
        "runs": len(data),
        "median_runout_m": float(np.median(runout)),
        "min_runout_m": float(runout.min()),
        "runout_percentiles_m": {
            f"p{p}": float(np.percentile(runout, p)) for p in (1, 5, 25, 75, 95)
        },
        "runs_below_40_m": int(np.count_nonzero(runout < 40.0)),
        "reach_angle": angle_summary(data.reach_angle),
        "blocks": {
            b: {
                "name": blk.name,
                "mass_kg": blk.mass,
                "size_m": list(blk.size),
                "box_density_kg_m3": blk.box_density,
                "runs": int(sum(1 for x in data.block_id if x == b)),
            }
            for b, blk in data.blocks.items()
        },
        "terrain_minus_ground_z_m": data.ground_check,
    }


def category_metrics(run: CategoryRun, data: TschamutData) -> dict[str, Any]:
    """Simulated against measured run-out of one category's run (module docstring)."""
    measured = data.runout
    regular = run.regular
    runout = run.runout
    counts = Counter(run.status)
    stopped = np.array([s == "stopped" for s in run.status])
    out: dict[str, Any] = {
        "category": run.category,
        "uncertainty": run.uncertainty,
        "shape": run.shape,
        "scheme": run.scheme,
        "rocks": len(run),
        "status_counts": dict(sorted(counts.items())),
        "left_terrain": int(counts.get("left_domain", 0)),
        "timed_out": int(counts.get("timed_out", 0)),
        "failed": int(np.count_nonzero(~regular)),
        "median_runout_measured_m": float(np.median(measured)),
        "seconds": run.seconds,
    }
    if not regular.any():
        out.update(median_runout_simulated_m=None, runout_ratio=None, ks_statistic=None)
        return out
    sim = runout[regular]
    median = float(np.median(sim))
    ks_d, ks_p = kolmogorov_smirnov(measured, sim)
    out.update(
        median_runout_simulated_m=median,
        runout_ratio=median / float(np.median(measured)),
        ks_statistic=ks_d,
        ks_pvalue=ks_p,
        runout_percentiles_simulated_m={
            f"p{p}": float(np.percentile(sim, p)) for p in (1, 5, 25, 75, 95)
        },
        reach_angle=angle_summary(run.reach_angle[regular]),
    )
    for d in EARLY_STOP_DISTANCES:
        out[f"stopped_within_{d:g}_m"] = float(np.mean(stopped & (runout < d)))
    per_block = {}
    blocks = np.array(data.block_id)[run.run_index]
    for b in data.blocks:
        mine = regular & (blocks == b)
        there = np.array(data.block_id) == b
        if mine.any() and there.any():
            per_block[b] = float(np.median(runout[mine]) / np.median(measured[there]))
    out["runout_ratio_per_block"] = per_block
    return out


def stop_columns(run: CategoryRun, data: TschamutData) -> dict[str, np.ndarray]:
    """One row per simulated rock, for the stop table."""
    n = len(run)
    return {
        "soil": np.full(n, run.label),
        "rock": np.arange(n),
        "trajectory_id": np.array(data.run_id)[run.run_index],
        "orientation": run.orientation,
        "block_id": np.array(data.block_id)[run.run_index],
        "mass_kg": data.mass[run.run_index],
        "soil_set": run.soil_set,
        "status": np.array(run.status),
        "t_end_s": run.t_end,
        "release_x_m": run.states.position[:, 0],
        "release_y_m": run.states.position[:, 1],
        "release_z_m": run.states.position[:, 2],
        "x_m": run.stop[:, 0],
        "y_m": run.stop[:, 1],
        "z_m": run.stop[:, 2],
        "runout_m": run.runout,
        "reach_angle_deg": run.reach_angle,
    }
