"""The Authume quarry full-scale rockfall tests: terrain, blocks, releases and measured stop points.

Field data of Garcia et al. 2022 and Bourrier et al. 2021 (``data/authume/README.md``): the
terrain as three triangle meshes by substratum, four photogrammetric block shapes, four drop
points per profile, 64 release orientations and the stop points, masses and sizes of 89 blocks
released on two profiles, P1 (41 blocks) and P2 (48 blocks).

Frames. The data use one local Cartesian frame with **y up** (the height of the four drop
points of a profile is their common y; the measured stop points cluster on platform heights in
y). tumble's frame has z up, so every position is mapped by the proper rotation of +90 deg
about x (:data:`DATA_TO_TUMBLE`, quaternion :data:`Q_DATA_TO_TUMBLE`)::

    (X, Y, Z)_tumble = (x, -z, y)_data

which keeps the frame right-handed, so that block shapes and orientations keep their
handedness. A release orientation ``q`` of the data (block mesh frame to data frame, scalar
first) becomes ``Q_DATA_TO_TUMBLE (x) q`` in tumble's frame. The published shift to the French
Lambert-93 frame (dx = -888600 m, dy = -6671300 m, dz = 0) is given for the source frame and is
not applied here; terrains carry no CRS.

Terrain (:func:`authume_terrain`). The three meshes (Blue: vegetated slopes, Gray: hard surfaces,
vertical rock walls and sturdy platforms, Red: rocky slope) are rasterised by
:func:`rasterise_triangles` onto a regular grid (0.5 m by default): each grid node takes the
height of the triangle above it by barycentric interpolation, and the zone of that triangle.
Where several triangles lie over one node (folds of the mesh along vertical walls and
overhangs) the **highest** one wins, so the DEM is the upper envelope of the mesh. Consequences:

* a vertical wall of height ``dh`` becomes a ramp between two neighbouring nodes, of slope
  ``atan(dh / spacing)`` (87.1 deg for a 10 m wall at 0.5 m, 88.6 deg at 0.25 m): steep but
  continuous, so a rock meets a surface instead of passing "into" the wall, and the wall's
  normal is tilted ``atan(spacing / dh)`` upwards from horizontal (2.9 deg for 10 m at 0.5 m);
* the foot of a wall moves out by at most one cell, and the space under an overhang is solid;
* elsewhere the bilinear DEM differs from the TIN by at most ``sqrt(2) spacing G``, ``G`` the
  steepest facet within ``sqrt(2) spacing`` (the four nodes of a cell lie that close to any
  point of the cell and carry the exact TIN heights); measured on the Red and Blue zones at
  0.5 m: median 2 mm, 95th percentile 4 cm.

Nodes under no triangle are filled from the nearest covered node (a Euclidean distance
transform): nodes connected to the grid's border lie outside the survey and get the zone
:data:`ZONE_OUTSIDE` (0), so that a simulation can tell rocks that left the surveyed area;
enclosed gaps (none at 0.5 m) keep the nearest node's zone. Per-zone soil tables therefore
need an entry for zone 0 too (or treat reaching it as leaving the domain).
:func:`authume_raster` returns the raster with its coverage, fill mask and timing.

Blocks (:func:`authume_blocks`). The engine's rocks are convex, so each block is the convex
hull of its mesh vertices (:class:`tumble.bodies.polyhedron.ConvexPolyhedron`). The meshes are
closed except SP1A, whose single 3-edge hole is capped before its volume is taken; the
non-convexity ``1 - V_mesh / V_hull`` states how much the hull adds. Default density 2650
kg/m^3 (limestone, 2600-2700); the data agree: the SP3A block (P2, line 37) weighed 513 kg for a
mesh volume of 0.1954 m^3, i.e. 2626 kg/m^3 (+- 4 % from the +- 20 kg accuracy of the weighing).

Releases (:func:`authume_releases`). Rock ``k`` draws from its own stream
``default_rng(SeedSequence(seed).spawn(n)[k])``, so a rock's release does not depend on ``n``
or on how an ensemble is chunked. Rocks ``k < 256`` take drop point ``k mod 4`` and orientation
``(k div 4) mod 64``: 256 rocks release every (drop point, orientation) pair once. Beyond, the
drop point is uniform and the orientation a uniformly random rotation (Shoemake 1992), since the
64 given orientations are spread evenly over all rotations (they hold 60 distinct rotations:
numbers 1-4 recur as 64-61). The mass is a bootstrap draw from
the profile's measured masses (default) or from the log-normal fitted to them (mean and
standard deviation of ``log m``); see :func:`authume_releases` for the choice of shape and
the scaling.

Measured stop points (:func:`measured_endpoints`): their heights lie 2.5-2.9 m above the
terrain mesh with a spread of only 0.2-0.3 m on both profiles, a vertical offset in the data
(no horizontal shift of up to 5 m reduces the spread by more than 0.05 m); their horizontal
positions fit the terrain, so comparisons use x and y only.

Profiles (:func:`profile_geometry`). The main direction of a profile is the horizontal unit
vector from the mean drop point towards the mean measured stop point; :func:`profile_coordinates`
gives the distance along it from the drop line (the line through the mean drop point normal to
the direction) and the lateral offset (positive to the left, looking downhill).

References: B. Garcia, P. Villard, V. Richefeu, D. Daudon, Comparison of full-scale rockfall
tests with 3D complex-shaped discrete element simulations, Eng. Geol. 310 (2022) 106855.
F. Bourrier, D. Toe, B. Garcia, J. Baroth, S. Lambert, Experimental investigations on complex
block propagation for the assessment of propagation models quality, Landslides 18 (2021)
639-654. K. Shoemake, Uniform random rotations, Graphics Gems III (1992) 124-132.
"""

from __future__ import annotations

import functools
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from scipy import ndimage

from tumble.bodies.polyhedron import ConvexPolyhedron
from tumble.io.mesh import cap_holes, is_closed, mesh_volume, read_mesh
from tumble.rockfall.release import uniform_quaternion
from tumble.rockfall.rock import Rock
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import quat_mul, quat_rotate

#: Environment variable naming the data directory when ``data_dir`` is not given.
DATA_ENV = "TUMBLE_AUTHUME_DATA"

#: Rotation from the data frame (y up) to tumble's frame (z up): ``X = x, Y = -z, Z = y``.
DATA_TO_TUMBLE = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
DATA_TO_TUMBLE.flags.writeable = False
#: The same rotation as a unit quaternion (+90 deg about x), scalar first.
Q_DATA_TO_TUMBLE = np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])
Q_DATA_TO_TUMBLE.flags.writeable = False

#: Published shift from the source frame to Lambert-93 (m), as given with the data.
LAMBERT93_SHIFT = (-888600.0, -6671300.0, 0.0)

#: Zone ids of the DEM's ``zone`` raster: file stem colour -> id.
ZONE_IDS = {"blue": 1, "gray": 2, "red": 3}
#: Zone id of filled nodes outside the surveyed area.
ZONE_OUTSIDE = 0
#: Zone id -> substratum.
ZONE_NAMES = {
    ZONE_OUTSIDE: "outside the survey (filled from the nearest surveyed node)",
    1: "Blue: vegetated slope",
    2: "Gray: hard surface (vertical rock walls and sturdy platforms)",
    3: "Red: rocky slope",
}

#: The four photogrammetric block shapes.
BLOCK_NAMES = ("SP1A", "SP2A", "SP2B", "SP3A")
#: Default rock density (kg/m^3), limestone.
DENSITY = 2650.0
#: Profiles, and the built-in scenario names.
PROFILES = ("p1", "p2")
SCENARIO_NAMES = ("authume-p1", "authume-p2")
#: Releases cycling deterministically through every (drop point, orientation) pair.
N_CYCLE = 4 * 64


# ---------------------------------------------------------------------------------------------
# files and frames


def data_directory(data_dir: str | os.PathLike | None = None) -> Path:
    """The data directory: ``data_dir``, else ``$TUMBLE_AUTHUME_DATA``, else the repository's
    ``data/authume``; ValueError if it does not hold the data set."""
    if data_dir is None:
        data_dir = os.environ.get(DATA_ENV) or Path(__file__).resolve().parents[3] / "data"
        data_dir = Path(data_dir)
        if (data_dir / "authume").is_dir():
            data_dir = data_dir / "authume"
    path = Path(data_dir)
    if not (path / "Geometries" / "STL").is_dir():
        raise ValueError(
            f"{str(path)!r} is not the Authume data directory (no Geometries/STL inside); pass "
            f"data_dir= or set {DATA_ENV} to the directory holding Drop_conditions/, "
            "EXP_endpoints/ and Geometries/"
        )
    return path


def to_tumble_frame(points) -> np.ndarray:
    """Map points (..., 3) from the data frame (y up) to tumble's frame (z up)."""
    points = np.asarray(points, dtype=np.float64)
    if points.shape[-1:] != (3,):
        raise ValueError(f"points must have shape (..., 3); got {points.shape}")
    return points @ DATA_TO_TUMBLE.T


def _profile(profile) -> str:
    key = str(profile).strip().lower().removeprefix("authume-")
    key = {"1": "p1", "2": "p2"}.get(key, key)
    if key not in PROFILES:
        raise ValueError(f"unknown Authume profile {profile!r}; known: P1, P2")
    return key


def _table(path: Path, columns: int, header: bool = False) -> np.ndarray:
    if not path.is_file():
        raise ValueError(f"Authume data file {str(path)!r} does not exist")
    try:
        table = np.loadtxt(path, dtype=np.float64, skiprows=1 if header else 0, ndmin=2)
    except ValueError as err:
        raise ValueError(f"{path.name}: not a table of numbers: {err}") from None
    if table.shape[1] != columns or not np.isfinite(table).all():
        raise ValueError(f"{path.name}: expected {columns} finite columns, got {table.shape[1]}")
    return table


def drop_points(profile, data_dir=None) -> np.ndarray:
    """The four drop points (4, 3) of a profile in tumble's frame (m): the positions of the
    block's mesh origin (its centre of mass to within 2 mm) at release."""
    key = _profile(profile)
    path = data_directory(data_dir) / "Drop_conditions" / f"positions_{key.upper()}.xyz"
    return to_tumble_frame(_table(path, 3))


class MeasuredEndpoints(NamedTuple):
    """Measured stop points of a profile: ``position`` (n, 3) in tumble's frame (m),
    ``mass`` (n,) kg, ``size`` (n, 3) the measured bounding box ``L1 >= L2 >= L3`` (m,
    +- 0.1 m)."""

    position: np.ndarray
    mass: np.ndarray
    size: np.ndarray


def measured_endpoints(profile, data_dir=None) -> MeasuredEndpoints:
    """Stop points, masses and sizes of the blocks released on a profile (41 on P1, 48 on P2)."""
    key = _profile(profile)
    path = data_directory(data_dir) / "EXP_endpoints" / f"Endpoints_{key.upper()}.txt"
    table = _table(path, 7)
    if not (table[:, 3] > 0).all() or not (table[:, 4:] > 0).all():
        raise ValueError(f"{path.name}: masses and sizes must be positive")
    return MeasuredEndpoints(to_tumble_frame(table[:, :3]), table[:, 3].copy(), table[:, 4:].copy())


def orientations(data_dir=None, frame: str = "tumble") -> np.ndarray:
    """The 64 release orientations (64, 4), unit quaternions, scalar first, normalised on input.

    They map the block's mesh frame to space; ``frame="tumble"`` (default) gives them in tumble's
    frame (``Q_DATA_TO_TUMBLE (x) q``), ``frame="data"`` as in the file.
    """
    path = data_directory(data_dir) / "Drop_conditions" / "orientations.txt"
    q = _table(path, 4, header=True)
    norm = np.linalg.norm(q, axis=1)
    if not (np.abs(norm - 1.0) < 1e-6).all():
        raise ValueError(f"{path.name}: quaternion norms deviate from 1 by more than 1e-6")
    q = q / norm[:, None]
    if frame == "data":
        return q
    if frame != "tumble":
        raise ValueError(f"frame must be 'tumble' or 'data'; got {frame!r}")
    return quat_mul(np.broadcast_to(Q_DATA_TO_TUMBLE, q.shape), q)


# ---------------------------------------------------------------------------------------------
# profiles


class ProfileGeometry(NamedTuple):
    """Straight reference line of a profile in the horizontal plane (tumble's frame):
    ``origin`` (2,) the mean drop point, ``direction`` (2,) unit vector towards the mean measured
    stop point, ``lateral`` (2,) the direction turned +90 deg (to the left, looking downhill)."""

    origin: np.ndarray
    direction: np.ndarray
    lateral: np.ndarray

    @property
    def azimuth_deg(self) -> float:
        """Direction as an angle from +x towards +y, degrees."""
        return math.degrees(math.atan2(self.direction[1], self.direction[0]))


@functools.lru_cache(maxsize=8)
def _geometry(key: str, data_dir: Path) -> ProfileGeometry:
    origin = drop_points(key, data_dir)[:, :2].mean(axis=0)
    target = measured_endpoints(key, data_dir).position[:, :2].mean(axis=0)
    direction = (target - origin) / np.linalg.norm(target - origin)
    lateral = np.array([-direction[1], direction[0]])
    for array in (origin, direction, lateral):
        array.flags.writeable = False
    return ProfileGeometry(origin, direction, lateral)


def profile_geometry(profile, data_dir=None) -> ProfileGeometry:
    """Main direction of a profile: from the mean drop point towards the mean measured stop
    point (module docstring)."""
    return _geometry(_profile(profile), data_directory(data_dir).resolve())


def profile_coordinates(profile, xy, data_dir=None) -> np.ndarray:
    """Distance along the profile from the drop line and lateral offset of points (..., 2) or
    (..., 3) (z ignored), in tumble's frame; returns (..., 2) ``(along, lateral)`` in m."""
    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim == 0 or xy.shape[-1] not in (2, 3):
        raise ValueError(f"points must have shape (..., 2) or (..., 3); got {xy.shape}")
    geometry = profile_geometry(profile, data_dir)
    offset = xy[..., :2] - geometry.origin
    return np.stack([offset @ geometry.direction, offset @ geometry.lateral], axis=-1)


# ---------------------------------------------------------------------------------------------
# terrain


@dataclass(frozen=True, eq=False)
class TinRaster:
    """A triangle mesh sampled on a regular grid (see :func:`rasterise_triangles`).

    ``heights[j, i]`` at ``x0 + i spacing, y0 + j spacing`` (NaN where no triangle lies over
    the node until :meth:`filled_holes` is called); ``zone`` the zone id of the winning
    triangle (:data:`ZONE_OUTSIDE` where none);
    ``coverage`` how many triangles lie over the node; ``filled`` True where the height was
    filled; ``seconds`` the time taken.
    """

    heights: np.ndarray
    zone: np.ndarray
    coverage: np.ndarray
    filled: np.ndarray
    x0: float
    y0: float
    spacing: float
    seconds: float

    @property
    def shape(self) -> tuple[int, int]:
        return self.heights.shape

    @property
    def n_filled_outside(self) -> int:
        """Filled nodes connected to the grid border (outside the survey)."""
        return int(np.count_nonzero(self.filled & (self.zone == ZONE_OUTSIDE)))

    @property
    def n_filled_inside(self) -> int:
        """Filled nodes enclosed by covered ones (gaps in the mesh)."""
        return int(np.count_nonzero(self.filled & (self.zone != ZONE_OUTSIDE)))

    def zone_fractions(self) -> dict[int, float]:
        """Fraction of the grid's nodes in each zone id."""
        ids, counts = np.unique(self.zone, return_counts=True)
        return {int(i): float(c) / self.zone.size for i, c in zip(ids, counts, strict=True)}

    def filled_holes(self) -> TinRaster:
        """A copy without holes: every uncovered node takes the height of the nearest covered
        node (Euclidean distance on the grid); its zone becomes :data:`ZONE_OUTSIDE` if the
        hole touches the grid border, else the nearest node's zone."""
        start = time.perf_counter()
        holes = self.coverage == 0
        if holes.all():
            raise ValueError("no triangle lies over any grid node: nothing to fill from")
        heights = self.heights.copy()
        zone = self.zone.copy()
        if holes.any():
            nearest = ndimage.distance_transform_edt(
                holes, return_distances=False, return_indices=True
            )
            heights[holes] = self.heights[nearest[0][holes], nearest[1][holes]]
            zone[holes] = self.zone[nearest[0][holes], nearest[1][holes]]
            labels, _ = ndimage.label(holes)
            rim = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
            outside = np.isin(labels, rim[rim > 0])
            zone[outside] = ZONE_OUTSIDE
        return TinRaster(
            heights,
            zone,
            self.coverage,
            holes,
            self.x0,
            self.y0,
            self.spacing,
            self.seconds + time.perf_counter() - start,
        )


#: Candidate (triangle, node) pairs handled per vectorised batch (bounds the memory).
_BATCH_PAIRS = 2_000_000


def rasterise_triangles(triangles, spacing: float, zone=None) -> TinRaster:
    """Sample triangles (m, 3, 3) (corners x, y, z in a z-up frame) on a regular grid.

    The grid nodes are the multiples of ``spacing`` inside the triangles' xy bounding box. For
    each triangle the nodes inside its xy projection (closed, up to a relative 1e-9 in the
    barycentric coordinates, so that shared edges leave no cracks) get the height of the plane
    through its corners; triangles whose projection has no area (vertical) are skipped, their
    edges belong to their neighbours. A node under several triangles keeps the **highest**
    height and that triangle's ``zone`` id (default 1). Vectorised over batches of candidate
    (triangle, node) pairs from the triangles' bounding boxes.
    """
    start = time.perf_counter()
    tri = np.asarray(triangles, dtype=np.float64)
    if tri.ndim != 3 or tri.shape[1:] != (3, 3) or tri.shape[0] == 0:
        raise ValueError(f"triangles must have shape (m, 3, 3) with m >= 1; got {tri.shape}")
    if not np.isfinite(tri).all():
        raise ValueError("triangles have non-finite coordinates")
    h = float(spacing)
    if not (math.isfinite(h) and h > 0):
        raise ValueError(f"spacing must be finite and positive; got {spacing}")
    zone = np.ones(len(tri), dtype=np.int64) if zone is None else np.asarray(zone, np.int64)
    if zone.shape != (len(tri),):
        raise ValueError(f"zone must have one id per triangle, shape ({len(tri)},)")

    lo = tri[:, :, :2].min(axis=(0, 1))
    hi = tri[:, :, :2].max(axis=(0, 1))
    x0 = math.ceil(lo[0] / h) * h
    y0 = math.ceil(lo[1] / h) * h
    nx = math.floor((hi[0] - x0) / h) + 1
    ny = math.floor((hi[1] - y0) / h) + 1
    if nx < 2 or ny < 2:
        raise ValueError(f"spacing {h} is too coarse: the triangles span less than two nodes")

    a = tri[:, 1, :2] - tri[:, 0, :2]
    b = tri[:, 2, :2] - tri[:, 0, :2]
    det = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    extent = np.maximum(np.ptp(tri[:, :, 0], axis=1), np.ptp(tri[:, :, 1], axis=1))
    flat = np.abs(det) > 1e-10 * extent**2
    i_lo = np.ceil((tri[:, :, 0].min(axis=1) - x0) / h - 1e-9).astype(np.int64)
    i_hi = np.floor((tri[:, :, 0].max(axis=1) - x0) / h + 1e-9).astype(np.int64)
    j_lo = np.ceil((tri[:, :, 1].min(axis=1) - y0) / h - 1e-9).astype(np.int64)
    j_hi = np.floor((tri[:, :, 1].max(axis=1) - y0) / h + 1e-9).astype(np.int64)
    i_lo, i_hi = np.clip(i_lo, 0, nx - 1), np.clip(i_hi, 0, nx - 1)
    j_lo, j_hi = np.clip(j_lo, 0, ny - 1), np.clip(j_hi, 0, ny - 1)
    width = np.maximum(i_hi - i_lo + 1, 0)
    count = np.where(flat & (i_hi >= i_lo) & (j_hi >= j_lo), width * (j_hi - j_lo + 1), 0)

    top = np.full(nx * ny, -np.inf)
    cover = np.zeros(nx * ny, dtype=np.int64)
    cells, heights, owners = [], [], []
    used = np.flatnonzero(count)
    bounds = np.searchsorted(np.cumsum(count[used]), np.arange(1, 1 + count.sum() // _BATCH_PAIRS))
    for batch in np.split(used, np.unique(bounds)):
        if batch.size == 0:
            continue
        c = count[batch]
        t = np.repeat(batch, c)
        local = np.arange(c.sum()) - np.repeat(np.cumsum(c) - c, c)
        i = i_lo[t] + local % width[t]
        j = j_lo[t] + local // width[t]
        px = x0 + i * h - tri[t, 0, 0]
        py = y0 + j * h - tri[t, 0, 1]
        l1 = (px * b[t, 1] - py * b[t, 0]) / det[t]
        l2 = (a[t, 0] * py - a[t, 1] * px) / det[t]
        l0 = 1.0 - l1 - l2
        inside = (l0 >= -1e-9) & (l1 >= -1e-9) & (l2 >= -1e-9)
        t, l0, l1, l2 = t[inside], l0[inside], l1[inside], l2[inside]
        z = l0 * tri[t, 0, 2] + l1 * tri[t, 1, 2] + l2 * tri[t, 2, 2]
        node = (j * nx + i)[inside]
        np.maximum.at(top, node, z)
        np.add.at(cover, node, 1)
        cells.append(node)
        heights.append(z)
        owners.append(t)
    winner = np.full(nx * ny, ZONE_OUTSIDE, dtype=np.int64)
    if cells:
        node, z, t = np.concatenate(cells), np.concatenate(heights), np.concatenate(owners)
        # the zone of the highest triangle; among equal heights (shared edges) the first one
        best = z == top[node]
        first = np.full(nx * ny, len(tri), dtype=np.int64)
        np.minimum.at(first, node[best], t[best])
        covered = cover > 0
        winner[covered] = zone[first[covered]]
    heights = np.where(cover > 0, top, np.nan).reshape(ny, nx)
    return TinRaster(
        heights,
        winner.reshape(ny, nx),
        cover.reshape(ny, nx),
        np.zeros((ny, nx), dtype=bool),
        x0,
        y0,
        h,
        time.perf_counter() - start,
    )


def terrain_triangles(data_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """Triangles (m, 3, 3) of the three terrain meshes in tumble's frame and their zone ids."""
    stl = data_directory(data_dir) / "Geometries" / "STL"
    triangles, zones = [], []
    for colour, zone_id in ZONE_IDS.items():
        vertices, faces = read_mesh(stl / f"DTM_{colour.capitalize()}_zone.stl")
        triangles.append(to_tumble_frame(vertices)[faces])
        zones.append(np.full(len(faces), zone_id, dtype=np.int64))
    return np.concatenate(triangles), np.concatenate(zones)


@functools.lru_cache(maxsize=4)
def _raster(data_dir: Path, spacing: float) -> TinRaster:
    start = time.perf_counter()
    triangles, zones = terrain_triangles(data_dir)
    raster = rasterise_triangles(triangles, spacing, zones).filled_holes()
    for array in (raster.heights, raster.zone, raster.coverage, raster.filled):
        array.flags.writeable = False
    return TinRaster(
        raster.heights,
        raster.zone,
        raster.coverage,
        raster.filled,
        raster.x0,
        raster.y0,
        raster.spacing,
        time.perf_counter() - start,
    )


def authume_raster(data_dir=None, spacing: float = 0.5) -> TinRaster:
    """The quarry's terrain meshes rasterised and hole-filled (module docstring), with the
    coverage and fill diagnostics; ``seconds`` includes reading the meshes. Cached."""
    spacing = float(spacing)
    if not (math.isfinite(spacing) and 0.0 < spacing <= 10.0):
        raise ValueError(f"spacing must be in (0, 10] m; got {spacing}")
    return _raster(data_directory(data_dir).resolve(), spacing)


def authume_terrain(data_dir=None, spacing: float = 0.5) -> Terrain:
    """The quarry's DEM at ``spacing`` (m) with the per-node ``zone`` raster (:data:`ZONE_IDS`,
    :data:`ZONE_OUTSIDE` for filled nodes outside the survey).

    Upper envelope of the three terrain meshes: vertical walls become ramps of slope
    ``atan(height / spacing)`` and overhangs are filled (module docstring); nodes outside the
    survey are filled from the nearest surveyed node.
    """
    raster = authume_raster(data_dir, spacing)
    return Terrain.from_array(
        raster.heights,
        x0=raster.x0,
        y0=raster.y0,
        dx=raster.spacing,
        soil={"zone": raster.zone.astype(np.float64)},
    )


# ---------------------------------------------------------------------------------------------
# blocks


@dataclass(frozen=True, eq=False)
class AuthumeBlock:
    """One photogrammetric block shape and its convex hull.

    ``vertices`` (n, 3) and ``faces`` (m, 3): the mesh in its own frame (origin at its centre of
    mass, as the release orientations expect); ``hull``: the convex hull at ``density``;
    ``mesh_volume``: volume of the mesh (capped first if it has holes, ``holes_capped`` of
    them); ``size``: edges of the minimum-volume oriented bounding box, descending (m), the
    analogue of the measured ``L1 >= L2 >= L3``; ``principal_size``: extents of the hull along
    its principal axes, descending (m).
    """

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    hull: ConvexPolyhedron
    mesh_volume: float
    closed: bool
    holes_capped: int
    size: np.ndarray
    principal_size: np.ndarray
    density: float

    @property
    def hull_volume(self) -> float:
        return self.hull.volume

    @property
    def mass(self) -> float:
        """Mass of the rock as the mesh describes it (mesh volume times density), kg."""
        return self.mesh_volume * self.density

    @property
    def hull_mass(self) -> float:
        """Mass of the convex hull at the density, kg."""
        return self.hull.mass

    @property
    def non_convexity(self) -> float:
        """``1 - V_mesh / V_hull``: the fraction of the hull that the rock does not fill."""
        return 1.0 - self.mesh_volume / self.hull.volume

    def scale_for_mass(self, mass) -> np.ndarray:
        """Isotropic scale factor giving the rock (mesh volume) the mass ``mass`` (kg)."""
        return np.cbrt(np.asarray(mass, dtype=np.float64) / self.mass)

    def rock(self, mass: float | None = None) -> Rock:
        """The convex hull as a :class:`tumble.rockfall.Rock` carrying ``mass`` (default: the
        mesh's mass), scaled isotropically so that the rock's mesh volume at the density has
        that mass; the hull then has the effective density ``density (1 - non_convexity)``.

        The body frame is the hull's principal frame :attr:`hull`, whose orientation relative
        to the mesh frame is ``hull.quaternion`` at every scale.
        """
        mass = self.mass if mass is None else float(mass)
        if not (math.isfinite(mass) and mass > 0):
            raise ValueError(f"mass must be finite and positive; got {mass}")
        scale = float(self.scale_for_mass(mass))
        vertices = np.ascontiguousarray(self.hull.vertices * scale)
        inertia = np.ascontiguousarray(self.hull.inertia * (mass / self.hull.mass) * scale**2)
        return Rock(self.name, mass, inertia, vertices, self.hull.volume * scale**3)


@functools.lru_cache(maxsize=8)
def _block(path: Path, density: float) -> AuthumeBlock:
    vertices, faces = read_mesh(path)
    holes = 0
    if not is_closed(faces):
        faces, holes = cap_holes(faces)
    volume = abs(mesh_volume(vertices, faces))
    hull = ConvexPolyhedron.from_points(vertices, density=density)
    import trimesh

    _, box = trimesh.bounds.oriented_bounds(hull.vertices)
    size = np.sort(np.asarray(box, dtype=np.float64))[::-1]
    principal_size = np.sort(np.ptp(hull.vertices, axis=0))[::-1]
    for array in (vertices, faces, size, principal_size):
        array.flags.writeable = False
    return AuthumeBlock(
        path.stem,
        vertices,
        faces,
        hull,
        volume,
        holes == 0,
        holes,
        size,
        principal_size,
        float(density),
    )


def authume_blocks(data_dir=None, density: float = DENSITY) -> dict[str, AuthumeBlock]:
    """The four block shapes SP1A, SP2A, SP2B, SP3A with their convex hulls at ``density``."""
    density = float(density)
    if not (math.isfinite(density) and density > 0):
        raise ValueError(f"density must be finite and positive; got {density}")
    stl = data_directory(data_dir).resolve() / "Geometries" / "STL"
    return {name: _block(stl / f"{name}.stl", density) for name in BLOCK_NAMES}


# ---------------------------------------------------------------------------------------------
# releases


@dataclass(frozen=True, eq=False)
class AuthumeReleases:
    """Initial states of ``n`` rocks on a profile, tumble's frame, batch first.

    ``position`` (n, 3): centre of mass of the rock's hull (m); ``quaternion`` (n, 4): the hull's
    principal frame (the body frame of :meth:`rock`) to space, scalar first;
    ``mesh_quaternion`` (n, 4): the block's mesh frame to space; ``shape_id`` (n,): index into
    ``shape_names``; ``mass`` (n,) kg; ``scale`` (n,): isotropic scale of the shape;
    ``drop_id`` (n,): drop point 0..3; ``orientation_id`` (n,): index of the given orientation,
    -1 for a random one; ``measured_id`` (n,): the measured block whose mass (bootstrap) and
    aspect were drawn. Velocities are zero: the blocks were released from a shovel.
    """

    profile: str
    seed: int
    position: np.ndarray
    quaternion: np.ndarray
    mesh_quaternion: np.ndarray
    shape_id: np.ndarray
    mass: np.ndarray
    scale: np.ndarray
    drop_id: np.ndarray
    orientation_id: np.ndarray
    measured_id: np.ndarray
    shape_names: tuple[str, ...]
    blocks: dict[str, AuthumeBlock]

    def __len__(self) -> int:
        return int(self.mass.shape[0])

    def rock(self, k: int) -> Rock:
        """The rock released as number ``k`` (its hull, scaled, with its mass)."""
        return self.blocks[self.shape_names[self.shape_id[k]]].rock(float(self.mass[k]))


def _aspect(size: np.ndarray) -> np.ndarray:
    """``log(L2 / L1), log(L3 / L1)`` of sizes sorted descending, shape (..., 2)."""
    size = np.asarray(size, dtype=np.float64)
    return np.log(size[..., 1:] / size[..., :1])


def authume_releases(
    profile,
    n: int = N_CYCLE,
    seed: int = 0,
    data_dir=None,
    mass: str = "bootstrap",
    shape: str = "aspect",
    density: float = DENSITY,
) -> AuthumeReleases:
    """Release ``n`` blocks on a profile, matching its measured masses (module docstring).

    Per rock ``k``, from its own stream (``SeedSequence(seed).spawn(n)[k]``) in this order:

    1. a measured block of the profile, uniformly (the bootstrap);
    2. its mass: that block's measured mass (``mass="bootstrap"``), or a draw from the
       log-normal fitted to the profile's masses (``mass="lognormal"``);
    3. the shape: ``shape="aspect"`` takes the shape whose bounding-box aspect ratios
       ``L2/L1, L3/L1`` (:attr:`AuthumeBlock.size`) are nearest (in log) to the measured
       block's, and among shapes of equal aspect (SP2A, SP2B) the one whose own mass is
       nearest (in log) to the drawn mass; ``"uniform"`` one of the four at random; a block
       name uses that shape for every rock;
    4. drop point and orientation: ``k mod 4`` and ``(k div 4) mod 64`` for ``k < 256``, then a
       uniform drop point and a uniformly random rotation.

    The shape is scaled isotropically so that its mesh volume times ``density`` equals the
    mass; the rock (the convex hull) carries that mass. The hull's centre of mass is placed
    where the drop point puts the mesh frame's origin.
    """
    key = _profile(profile)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if mass not in ("bootstrap", "lognormal"):
        raise ValueError(f"mass must be 'bootstrap' or 'lognormal'; got {mass!r}")
    if shape not in ("aspect", "uniform", *BLOCK_NAMES):
        raise ValueError(
            f"shape must be 'aspect', 'uniform' or one of {BLOCK_NAMES}; got {shape!r}"
        )
    blocks = authume_blocks(data_dir, density)
    measured = measured_endpoints(key, data_dir)
    drops = drop_points(key, data_dir)
    given = orientations(data_dir)

    names = tuple(blocks)
    shape_aspect = np.array([_aspect(blocks[s].size) for s in names])
    shape_log_mass = np.log([blocks[s].mass for s in names])
    log_mass = np.log(measured.mass)
    mu, sigma = log_mass.mean(), log_mass.std(ddof=1)
    measured_aspect = _aspect(measured.size)

    measured_id = np.empty(n, dtype=np.int64)
    masses = np.empty(n)
    shape_id = np.empty(n, dtype=np.int64)
    drop_id = np.empty(n, dtype=np.int64)
    orientation_id = np.full(n, -1, dtype=np.int64)
    q_mesh = np.empty((n, 4))
    for k, child in enumerate(np.random.SeedSequence(int(seed)).spawn(n)):
        rng = np.random.default_rng(child)
        m_id = int(rng.integers(measured.mass.size))
        m = measured.mass[m_id] if mass == "bootstrap" else math.exp(rng.normal(mu, sigma))
        if shape == "aspect":
            distance = np.linalg.norm(shape_aspect - measured_aspect[m_id], axis=1)
            # shapes of equal aspect (within 1 %) are told apart by their mass
            near = distance <= distance.min() + 0.01
            s_id = int(np.argmin(np.where(near, np.abs(shape_log_mass - math.log(m)), np.inf)))
        elif shape == "uniform":
            s_id = int(rng.integers(len(names)))
        else:
            s_id = names.index(shape)
        if k < N_CYCLE:
            drop_id[k], orientation_id[k] = k % 4, (k // 4) % 64
            q_mesh[k] = given[orientation_id[k]]
        else:
            drop_id[k] = int(rng.integers(4))
            q_mesh[k] = quat_mul(Q_DATA_TO_TUMBLE[None], uniform_quaternion(rng)[None])[0]
        measured_id[k], masses[k], shape_id[k] = m_id, m, s_id

    scale = np.array(
        [blocks[names[s]].scale_for_mass(m) for s, m in zip(shape_id, masses, strict=True)]
    )
    hull_q = np.array([blocks[s].hull.quaternion for s in names])[shape_id]
    centroid = np.array([blocks[s].hull.centroid for s in names])[shape_id] * scale[:, None]
    position = drops[drop_id] + quat_rotate(q_mesh, centroid)
    quaternion = quat_mul(q_mesh, hull_q)
    quaternion *= np.where(quaternion[:, :1] < 0, -1.0, 1.0)
    arrays = [position, quaternion, q_mesh, shape_id, masses, scale, drop_id, orientation_id]
    for array in (*arrays, measured_id):
        array.flags.writeable = False
    return AuthumeReleases(key, int(seed), *arrays, measured_id, names, blocks)


# ---------------------------------------------------------------------------------------------
# scenarios


@dataclass(frozen=True, eq=False)
class AuthumeScenario:
    """A profile's test: the terrain, the blocks, the releases and the measured stop points."""

    name: str
    profile: str
    terrain: Terrain
    blocks: dict[str, AuthumeBlock]
    releases: AuthumeReleases
    endpoints: MeasuredEndpoints
    geometry: ProfileGeometry
    settings: dict[str, Any]


def authume_scenario(
    name: str,
    n: int = N_CYCLE,
    seed: int = 0,
    spacing: float = 0.5,
    data_dir=None,
    mass: str = "bootstrap",
    shape: str = "aspect",
    density: float = DENSITY,
) -> AuthumeScenario:
    """The scenario ``authume-p1`` or ``authume-p2``: the quarry DEM at ``spacing`` with its
    zones, ``n`` releases from the profile's four drop points (256 = every drop point with every
    given orientation), the block shapes and the measured stop points."""
    if name not in SCENARIO_NAMES:
        raise ValueError(f"unknown Authume scenario {name!r}; known: {', '.join(SCENARIO_NAMES)}")
    key = _profile(name)
    releases = authume_releases(key, n, seed, data_dir, mass=mass, shape=shape, density=density)
    settings = {
        "n": int(n),
        "seed": int(seed),
        "spacing": float(spacing),
        "mass": mass,
        "shape": shape,
        "density": float(density),
    }
    return AuthumeScenario(
        name,
        key,
        authume_terrain(data_dir, spacing),
        releases.blocks,
        releases,
        measured_endpoints(key, data_dir),
        profile_geometry(key, data_dir),
        settings,
    )


#: Scenario name -> builder (keyword arguments as :func:`authume_scenario`).
SCENARIOS = {name: functools.partial(authume_scenario, name) for name in SCENARIO_NAMES}
