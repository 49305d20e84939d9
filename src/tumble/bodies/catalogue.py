"""A catalogue of homogeneous bodies with closed-form principal inertia.

Every constructor returns a :class:`Body` in its principal frame at the centre of mass. The body
axes are the natural axes of the shape (cuboid edges, ellipsoid semi-axes, cylinder axis along
z); for :func:`crossed_rods` and :func:`polyhedron` they are the principal axes sorted by
ascending moment. Mass and size are linked by the density: give the size and either the mass
or the density (default 1, or rock density for the EOTA shapes), or for the EOTA shapes give the
mass instead of the size and the edge length is solved for.

Closed forms (homogeneous density, mass m):
* cuboid with edges a, b, c along x, y, z: ``(m/12)(b^2 + c^2, a^2 + c^2, a^2 + b^2)``;
* ellipsoid with semi-axes a, b, c: ``(m/5)(b^2 + c^2, a^2 + c^2, a^2 + b^2)``, volume
  ``4/3 pi a b c``;
* solid cylinder of radius r and length l, axis z: ``(m/12)(3 r^2 + l^2)`` twice and ``m r^2/2``;
* EOTA111 of size L (see :func:`eota111`): ``(21/170) m L^2`` about every axis;
* EOTA221 (EOTA111 scaled by 1/2 along z): ``(21/272) m L^2`` twice and ``(21/170) m L^2``.

The EOTA constants come from the exact tetrahedral integrals of :mod:`tumble.bodies.polyhedron`
over the EOTA111 hull, done in rational arithmetic: volume ``17/24 L^3`` and
``int x^2 dV / V = 21/340 L^2``. Scaling z by 1/2 keeps ``<x^2> = <y^2>`` and quarters
``<z^2>``, hence ``I_x = m (1 + 1/4)(21/340) L^2`` and ``I_z = 2 m (21/340) L^2``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import principal_inertia
from tumble.bodies.polyhedron import (
    ConvexPolyhedron,
    mass_density,
    positive_number,
    principal_frame,
)

#: density of the rock of the published EOTA rockfall ensembles, kg/m^3
ROCK_DENSITY = 2740.0

#: EOTA111 volume / L^3
EOTA111_VOLUME = 17.0 / 24.0
#: EOTA111 second moment <x^2> / L^2 about the centre (the same along every axis)
EOTA111_SECOND_MOMENT = 21.0 / 340.0


@dataclass(frozen=True, eq=False)
class Body:
    """A homogeneous rigid body in its principal frame at the centre of mass.

    Attributes
    ----------
    name : a label such as ``"cuboid"`` or ``"EOTA221"``.
    mass : kg.
    inertia : (3,) principal moments about the body axes x, y, z, kg m^2.
    vertices : (m, 3) hull vertices in the body frame (m), or None for curved shapes.
    volume : m^3 (0 for the idealised thin rods).
    size : (3,) extent of the body along x, y, z (m), for reference.
    """

    name: str
    mass: float
    inertia: np.ndarray
    vertices: np.ndarray | None
    volume: float
    size: np.ndarray

    @property
    def density(self) -> float:
        """Mass per volume (kg/m^3); infinite for zero-volume bodies."""
        return self.mass / self.volume if self.volume > 0.0 else float("inf")


def _body(
    name: str,
    mass: float,
    inertia: ArrayLike,
    vertices: ArrayLike | None,
    volume: float,
    size: ArrayLike,
) -> Body:
    moments = principal_inertia(inertia, name=f"{name} principal moments")
    moments.setflags(write=False)
    if vertices is not None:
        vertices = np.ascontiguousarray(vertices, dtype=np.float64)
        vertices.setflags(write=False)
    size = np.asarray(size, dtype=np.float64)
    size.setflags(write=False)
    return Body(name, float(mass), moments, vertices, float(volume), size)


def _length(value: float, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive length in m, got {value!r}") from None
    if not np.isfinite(x) or x <= 0.0:
        raise ValueError(f"{name} must be a positive finite length in m, got {value!r}")
    return x


def _box_corners(a: float, b: float, c: float) -> np.ndarray:
    half = 0.5 * np.array([a, b, c])
    return np.array(list(itertools.product((-1.0, 1.0), repeat=3))) * half


def cuboid(
    a: float, b: float, c: float, mass: float | None = None, density: float | None = None
) -> Body:
    """Rectangular box with edges ``a, b, c`` (m) along x, y, z; 8 corner vertices."""
    a, b, c = _length(a, "a"), _length(b, "b"), _length(c, "c")
    volume = a * b * c
    m, _ = mass_density(volume, density, mass)
    inertia = m / 12.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    return _body("cuboid", m, inertia, _box_corners(a, b, c), volume, (a, b, c))


def ellipsoid(
    a: float, b: float, c: float, mass: float | None = None, density: float | None = None
) -> Body:
    """Solid ellipsoid with semi-axes ``a, b, c`` (m) along x, y, z."""
    a, b, c = _length(a, "a"), _length(b, "b"), _length(c, "c")
    volume = 4.0 / 3.0 * np.pi * a * b * c
    m, _ = mass_density(volume, density, mass)
    inertia = m / 5.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    return _body("ellipsoid", m, inertia, None, volume, (2 * a, 2 * b, 2 * c))


def cylinder(
    radius: float, length: float, mass: float | None = None, density: float | None = None
) -> Body:
    """Solid circular cylinder of ``radius`` and ``length`` (m), axis along z."""
    r, l = _length(radius, "radius"), _length(length, "length")
    volume = np.pi * r * r * l
    m, _ = mass_density(volume, density, mass)
    perpendicular = m * (3.0 * r * r + l * l) / 12.0
    inertia = np.array([perpendicular, perpendicular, 0.5 * m * r * r])
    return _body("cylinder", m, inertia, None, volume, (2 * r, 2 * r, l))


def crossed_rods(
    length1: float,
    mass1: float,
    length2: float,
    mass2: float,
    angle: float = 0.5 * np.pi,
    crossing1: float = 0.5,
    crossing2: float = 0.5,
) -> Body:
    """Two thin uniform rods crossing each other at ``angle`` (rad, in (0, pi)).

    Rod k has length ``length_k`` (m) and mass ``mass_k`` (kg); the crossing point lies at the
    fraction ``crossing_k`` of its length from its first end (0.5: the rods cross at their
    centres). Each rod is a line mass: about its own centre its inertia tensor is
    ``m l^2 / 12 (1 - u u^T)`` for the unit direction ``u``. In a plane frame with the crossing
    at the origin, rod 1 along ``u_1 = e_x`` and rod 2 along ``u_2 = (cos angle, sin angle, 0)``,
    rod k's centre is ``c_k = (1/2 - crossing_k) l_k u_k``; the centre of mass is
    ``c = (m_1 c_1 + m_2 c_2) / (m_1 + m_2)`` and by the parallel-axis theorem

        J = sum_k [ m_k l_k^2 / 12 (1 - u_k u_k^T) + m_k (|d_k|^2 1 - d_k d_k^T) ],  d_k = c_k - c.

    The principal moments are the eigenvalues of J, ascending; the largest is about the plane
    normal and equals the sum of the other two (a planar body). Vertices are the four rod ends in
    the principal frame; the volume of ideal thin rods is 0.
    """
    l1, l2 = _length(length1, "length1"), _length(length2, "length2")
    m1, m2 = positive_number(mass1, "mass1"), positive_number(mass2, "mass2")
    angle = float(angle)
    if not np.isfinite(angle) or not 0.0 < angle < np.pi:
        raise ValueError(f"angle must lie strictly between 0 and pi rad, got {angle!r}")
    fractions = []
    for name, f in (("crossing1", crossing1), ("crossing2", crossing2)):
        f = float(f)
        if not np.isfinite(f) or not 0.0 <= f <= 1.0:
            raise ValueError(f"{name} is a fraction of the rod length in [0, 1], got {f!r}")
        fractions.append(f)

    directions = np.array([[1.0, 0.0, 0.0], [np.cos(angle), np.sin(angle), 0.0]])
    lengths, masses = np.array([l1, l2]), np.array([m1, m2])
    centres = ((0.5 - np.array(fractions)) * lengths)[:, None] * directions
    total = float(masses.sum())
    com = (masses[:, None] * centres).sum(axis=0) / total
    tensor = np.zeros((3, 3))
    for u, l, m, centre in zip(directions, lengths, masses, centres, strict=True):
        d = centre - com
        tensor += m * l * l / 12.0 * (np.eye(3) - np.outer(u, u))
        tensor += m * (d @ d * np.eye(3) - np.outer(d, d))
    moments, rotation = principal_frame(tensor)

    ends = np.concatenate(
        [
            centres + 0.5 * lengths[:, None] * directions,
            centres - 0.5 * lengths[:, None] * directions,
        ]
    )
    vertices = (ends - com) @ rotation
    size = vertices.max(axis=0) - vertices.min(axis=0)
    return _body("crossed rods", total, moments, vertices, 0.0, size)


def eota111_vertices(size: float) -> np.ndarray:
    """The 24 EOTA111 vertices: all permutations and sign combinations of (L/2, L/4, L/4)."""
    L = _length(size, "size")
    points = set()
    for perm in set(itertools.permutations((2, 1, 1))):
        for signs in itertools.product((1, -1), repeat=3):
            points.add(tuple(p * s for p, s in zip(perm, signs, strict=True)))
    return np.array(sorted(points), dtype=np.float64) * (0.25 * L)


def _eota_size(
    size: float | None,
    mass: float | None,
    density: float | None,
    volume_factor: float,
    name: str,
) -> tuple[float, float]:
    """Resolve ``(L, mass)`` from the size or the mass at the given density."""
    density = ROCK_DENSITY if density is None else density
    rho = positive_number(density, "density")
    if size is not None and mass is not None:
        raise ValueError(f"{name}: give either the size L or the mass, not both")
    if size is None and mass is None:
        raise ValueError(f"{name}: give the size L (m) or the mass (kg)")
    if size is not None:
        L = _length(size, "size")
        return L, rho * volume_factor * L**3
    m = positive_number(mass, "mass")
    return (m / (rho * volume_factor)) ** (1.0 / 3.0), m


def eota111(
    size: float | None = None, mass: float | None = None, density: float | None = None
) -> Body:
    """EOTA111 block of size ``L`` (m) or of the given ``mass`` (kg); density 2740 kg/m^3.

    A cube of edge L whose 12 edges are chamfered at 45 deg with leg L/4 and whose 8 corners are
    cut by the triangles joining the chamfers: the convex hull of the 24 vertices given by all
    permutations and sign combinations of (L/2, L/4, L/4). Volume (17/24) L^3, principal moments
    (21/170) m L^2 about every axis.
    """
    L, m = _eota_size(size, mass, density, EOTA111_VOLUME, "EOTA111")
    moment = 2.0 * EOTA111_SECOND_MOMENT * m * L * L
    return _body(
        "EOTA111", m, np.full(3, moment), eota111_vertices(L), EOTA111_VOLUME * L**3, (L, L, L)
    )


def eota221(
    size: float | None = None, mass: float | None = None, density: float | None = None
) -> Body:
    """EOTA221 block: EOTA111 of size ``L`` scaled by (1, 1, 1/2), i.e. L x L x L/2.

    Give the size ``L`` (m) or the ``mass`` (kg); density 2740 kg/m^3 unless given. Volume
    (17/48) L^3, principal moments (21/272) m L^2, (21/272) m L^2, (21/170) m L^2.
    """
    L, m = _eota_size(size, mass, density, 0.5 * EOTA111_VOLUME, "EOTA221")
    s = EOTA111_SECOND_MOMENT * m * L * L
    inertia = np.array([1.25 * s, 1.25 * s, 2.0 * s])
    vertices = eota111_vertices(L) * np.array([1.0, 1.0, 0.5])
    return _body("EOTA221", m, inertia, vertices, 0.5 * EOTA111_VOLUME * L**3, (L, L, 0.5 * L))


def polyhedron(
    points: ArrayLike,
    mass: float | None = None,
    density: float | None = None,
    name: str = "polyhedron",
) -> Body:
    """Convex hull of a point cloud as a :class:`Body` (principal axes, ascending moments)."""
    hull = ConvexPolyhedron.from_points(points, density=density, mass=mass)
    size = hull.vertices.max(axis=0) - hull.vertices.min(axis=0)
    return _body(name, hull.mass, hull.inertia, hull.vertices, hull.volume, size)
