"""The Authume quarry full-scale rockfall tests: data files, frames, measured stop points, blocks.

Field data of Garcia et al. 2022 and Bourrier et al. 2021 (``dataset/README.md`` beside this
module: source, citation, the files' columns): the terrain as three triangle meshes by
substratum, four photogrammetric block shapes, four drop points per profile, 64 release
orientations and the stop points, masses and sizes of 89 blocks released on two profiles, P1
(41 blocks) and P2 (48 blocks). The data set ships inside the package (:data:`PACKAGE_DATA`);
:func:`data_directory` says where it is read from. This module reads the files; the
terrain is rasterised in :mod:`tumble.validation.authume.terrain` and the releases are drawn in
:mod:`tumble.validation.authume.releases`.

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

Blocks (:func:`authume_blocks`). The engine's rocks are convex, so each block is the convex
hull of its mesh vertices (:class:`tumble.bodies.polyhedron.ConvexPolyhedron`). The meshes are
closed except SP1A, whose single 3-edge hole is capped before its volume is taken; the
non-convexity ``1 - V_mesh / V_hull`` states how much the hull adds. Default density 2650
kg/m^3 (limestone, 2600-2700); the data agree: the SP3A block (P2, line 37) weighed 513 kg for a
mesh volume of 0.1954 m^3, i.e. 2626 kg/m^3 (+- 4 % from the +- 20 kg accuracy of the weighing).

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
639-654.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.polyhedron import ConvexPolyhedron
from tumble.io.mesh import cap_holes, is_closed, mesh_volume, read_mesh
from tumble.rockfall.rock import Rock
from tumble.rotation.quaternion import quat_mul

#: Environment variable naming the data directory when ``data_dir`` is not given.
DATA_ENV = "TUMBLE_AUTHUME_DATA"
#: The copy of the data set shipped inside the package (with its README: source and citation).
PACKAGE_DATA = Path(__file__).resolve().parent / "dataset"

#: Rotation from the data frame (y up) to tumble's frame (z up): ``X = x, Y = -z, Z = y``.
DATA_TO_TUMBLE = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
DATA_TO_TUMBLE.flags.writeable = False
#: The same rotation as a unit quaternion (+90 deg about x), scalar first.
Q_DATA_TO_TUMBLE = np.array([math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0])
Q_DATA_TO_TUMBLE.flags.writeable = False

#: Published shift from the source frame to Lambert-93 (m), as given with the data.
LAMBERT93_SHIFT = (-888600.0, -6671300.0, 0.0)

#: The four photogrammetric block shapes.
BLOCK_NAMES = ("SP1A", "SP2A", "SP2B", "SP3A")
#: Default rock density (kg/m^3), limestone.
DENSITY = 2650.0
#: The two test profiles.
PROFILES = ("p1", "p2")

# ---------------------------------------------------------------------------------------------
# files and frames


def data_directory(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data directory, the first of: ``data_dir``; ``$TUMBLE_AUTHUME_DATA`` (the directory
    itself or one holding it as ``authume/``); the copy in the package, :data:`PACKAGE_DATA`.
    ValueError if the directory chosen does not hold the data set."""
    if data_dir is None:
        data_dir = os.environ.get(DATA_ENV) or PACKAGE_DATA
        if (Path(data_dir) / "authume").is_dir():
            data_dir = Path(data_dir) / "authume"
    path = Path(data_dir)
    if not (path / "Geometries" / "STL").is_dir():
        raise ValueError(
            f"{str(path)!r} is not the Authume data directory (no Geometries/STL inside); pass "
            f"data_dir= or set {DATA_ENV} to the directory holding Drop_conditions/, "
            "EXP_endpoints/ and Geometries/"
        )
    return path


def to_tumble_frame(points: ArrayLike) -> np.ndarray:
    """Map points (..., 3) from the data frame (y up) to tumble's frame (z up)."""
    points = np.asarray(points, dtype=np.float64)
    if points.shape[-1:] != (3,):
        raise ValueError(f"points must have shape (..., 3); got {points.shape}")
    return points @ DATA_TO_TUMBLE.T


def _profile(profile: str | int) -> str:
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


def drop_points(profile: str | int, data_dir: str | os.PathLike[str] | None = None) -> np.ndarray:
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


def measured_endpoints(
    profile: str | int, data_dir: str | os.PathLike[str] | None = None
) -> MeasuredEndpoints:
    """Stop points, masses and sizes of the blocks released on a profile (41 on P1, 48 on P2)."""
    key = _profile(profile)
    path = data_directory(data_dir) / "EXP_endpoints" / f"Endpoints_{key.upper()}.txt"
    table = _table(path, 7)
    if not (table[:, 3] > 0).all() or not (table[:, 4:] > 0).all():
        raise ValueError(f"{path.name}: masses and sizes must be positive")
    return MeasuredEndpoints(to_tumble_frame(table[:, :3]), table[:, 3].copy(), table[:, 4:].copy())


def orientations(
    data_dir: str | os.PathLike[str] | None = None, frame: str = "tumble"
) -> np.ndarray:
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


def profile_geometry(
    profile: str | int, data_dir: str | os.PathLike[str] | None = None
) -> ProfileGeometry:
    """Main direction of a profile: from the mean drop point towards the mean measured stop
    point (module docstring)."""
    return _geometry(_profile(profile), data_directory(data_dir).resolve())


def profile_coordinates(
    profile: str | int, xy: ArrayLike, data_dir: str | os.PathLike[str] | None = None
) -> np.ndarray:
    """Distance along the profile from the drop line and lateral offset of points (..., 2) or
    (..., 3) (z ignored), in tumble's frame; returns (..., 2) ``(along, lateral)`` in m."""
    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim == 0 or xy.shape[-1] not in (2, 3):
        raise ValueError(f"points must have shape (..., 2) or (..., 3); got {xy.shape}")
    geometry = profile_geometry(profile, data_dir)
    offset = xy[..., :2] - geometry.origin
    return np.stack([offset @ geometry.direction, offset @ geometry.lateral], axis=-1)


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

    def scale_for_mass(self, mass: ArrayLike) -> np.ndarray:
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
        # the square as the ensemble driver takes it (a product; Python's scale**2 goes through
        # pow() and can be one ulp off), so that this rock is the driver's rock bit for bit
        inertia = np.ascontiguousarray(
            self.hull.inertia * (mass / self.hull.mass) * (scale * scale)
        )
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


def authume_blocks(
    data_dir: str | os.PathLike[str] | None = None, density: float = DENSITY
) -> dict[str, AuthumeBlock]:
    """The four block shapes SP1A, SP2A, SP2B, SP3A with their convex hulls at ``density``."""
    density = float(density)
    if not (math.isfinite(density) and density > 0):
        raise ValueError(f"density must be finite and positive; got {density}")
    stl = data_directory(data_dir).resolve() / "Geometries" / "STL"
    return {name: _block(stl / f"{name}.stl", density) for name in BLOCK_NAMES}
