"""Rocks: convex polyhedra with homogeneous density, in their principal frame.

A rock is the convex hull of a point cloud (Leine et al. 2014, section 3.1); contact with the
terrain is tested at the hull vertices only, so the number of hull vertices is the capacity of the
contact buffers. Mass properties come from :mod:`tumble.bodies` (exact polyhedral integrals, or
closed forms for boxes and the EOTA shapes); the body frame K is principal and centred at the
centre of mass, so ``rock.inertia`` holds the principal moments about the body axes x, y, z.

Units are SI: lengths in m, densities in kg/m^3, masses in kg. Without a density or mass the rock
density of the published EOTA ensembles, 2740 kg/m^3, is used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies import catalogue
from tumble.bodies.catalogue import ROCK_DENSITY, Body
from tumble.io.mesh import check_mesh_file, existing_file

#: mesh formats read with trimesh; everything else is read as a plain text point list
MESH_SUFFIXES = (".stl", ".ply", ".obj", ".off", ".glb", ".gltf")
#: text point-list formats (x y z per line, whitespace or comma separated, '#' comments)
POINT_SUFFIXES = (".xyz", ".txt", ".csv", ".pts")


@dataclass(frozen=True, eq=False)
class Rock:
    """A convex rock in its principal frame at the centre of mass.

    Attributes
    ----------
    name : a label (``"box"``, ``"EOTA221"``, the file name, ...).
    mass : kg.
    inertia : (3,) principal moments about the body axes x, y, z, kg m^2.
    vertices : (m, 3) hull vertices in the body frame (m), C-contiguous float64; the contact
        points and their fixed order.
    volume : m^3.
    """

    name: str
    mass: float
    inertia: np.ndarray
    vertices: np.ndarray
    volume: float

    @property
    def density(self) -> float:
        return self.mass / self.volume

    @property
    def n_vertices(self) -> int:
        """Number of hull vertices: the capacity of the contact buffers."""
        return int(self.vertices.shape[0])

    @property
    def radius(self) -> float:
        """Largest distance of a vertex from the centre of mass (m)."""
        return float(np.sqrt((self.vertices**2).sum(axis=1).max()))

    def with_volume(self, volume: float, density: float | None = None) -> Rock:
        """The same shape scaled isotropically about its centre of mass to ``volume`` (m^3), at
        ``density`` (kg/m^3; default this rock's): vertices times ``s = (volume / V)^(1/3)``,
        mass ``density volume``, principal moments times ``(m' / m) s^2``."""
        size = float(volume)
        if not (np.isfinite(size) and size > 0.0):
            raise ValueError(f"a rock's volume must be positive, got {volume!r}")
        rho = self.density if density is None else float(density)
        if not (np.isfinite(rho) and rho > 0.0):
            raise ValueError(f"a rock's density must be positive, got {density!r}")
        s = (size / self.volume) ** (1.0 / 3.0)
        mass = rho * size
        inertia = np.asarray(self.inertia) * (mass / self.mass) * (s * s)
        return Rock(self.name, mass, inertia, np.ascontiguousarray(self.vertices * s), size)

    @classmethod
    def from_body(cls, body: Body, name: str | None = None) -> Rock:
        if body.vertices is None:
            raise ValueError(f"{body.name} has no vertices: a rock must be a polyhedron")
        return cls(name or body.name, body.mass, body.inertia, body.vertices, body.volume)

    @classmethod
    def box(
        cls,
        a: float,
        b: float,
        c: float,
        density: float | None = None,
        mass: float | None = None,
    ) -> Rock:
        """Rectangular block with edges ``a, b, c`` (m) along the body axes x, y, z."""
        density = ROCK_DENSITY if density is None and mass is None else density
        return cls.from_body(catalogue.cuboid(a, b, c, mass=mass, density=density), "box")

    @classmethod
    def eota111(
        cls, size: float | None = None, mass: float | None = None, density: float | None = None
    ) -> Rock:
        """EOTA111 block of edge ``size`` (m) or of the given ``mass`` (kg)."""
        return cls.from_body(catalogue.eota111(size=size, mass=mass, density=density))

    @classmethod
    def eota221(
        cls, size: float | None = None, mass: float | None = None, density: float | None = None
    ) -> Rock:
        """EOTA221 block ``size x size x size/2`` (m) or of the given ``mass`` (kg)."""
        return cls.from_body(catalogue.eota221(size=size, mass=mass, density=density))

    @classmethod
    def from_points(
        cls,
        points: ArrayLike,
        density: float | None = None,
        mass: float | None = None,
        name: str = "polyhedron",
    ) -> Rock:
        """Convex hull of a point cloud (n, 3) in any frame; principal axes by ascending moment."""
        density = ROCK_DENSITY if density is None and mass is None else density
        return cls.from_body(catalogue.polyhedron(points, mass=mass, density=density, name=name))

    @classmethod
    def from_file(
        cls, path: str | os.PathLike, density: float | None = None, mass: float | None = None
    ) -> Rock:
        """Convex hull of the vertices of a mesh (STL, PLY, OBJ, ... via trimesh) or of a text
        point list (XYZ: three coordinates per line, in m)."""
        path = existing_file(path, "rock file")
        suffix = path.suffix.lower()
        if suffix in MESH_SUFFIXES:
            points = _mesh_points(path)
        elif suffix in POINT_SUFFIXES:
            points = _text_points(path)
        else:
            raise ValueError(
                f"rock file {path.name!r}: unknown format {suffix!r}; use a mesh "
                f"({', '.join(MESH_SUFFIXES)}) or a point list ({', '.join(POINT_SUFFIXES)})"
            )
        return cls.from_points(points, density=density, mass=mass, name=path.stem)


def _mesh_points(path: Path) -> np.ndarray:
    check_mesh_file(path, "rock")
    import trimesh

    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:
        raise ValueError(f"rock file {path.name!r} could not be read as a mesh: {exc}") from None
    points = np.asarray(getattr(loaded, "vertices", np.empty((0, 3))), dtype=np.float64)
    if points.ndim != 2 or points.shape[0] < 4:
        raise ValueError(f"rock file {path.name!r} holds no mesh with at least 4 vertices")
    return points


def _text_points(path: Path) -> np.ndarray:
    text = path.read_text().replace(",", " ")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            values = [float(v) for v in line.split()]
        except ValueError:
            raise ValueError(
                f"rock file {path.name!r}, line {number}: expected numbers x y z, got {line!r}"
            ) from None
        if len(values) < 3:
            raise ValueError(f"rock file {path.name!r}, line {number}: expected x y z")
        rows.append(values[:3])
    if not rows:
        raise ValueError(f"rock file {path.name!r} contains no points")
    return np.array(rows, dtype=np.float64)
