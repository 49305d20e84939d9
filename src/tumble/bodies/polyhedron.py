"""Convex polyhedra from point clouds: exact volume, centre of mass and inertia.

A rock is the convex hull of a point cloud given in any body frame B (Leine et al. 2014). Its mass
properties for a homogeneous density are exact polyhedral integrals, computed by splitting the
hull into signed tetrahedra: one from a reference point ``o`` to each outward-oriented hull
triangle ``(a, b, c)``. With ``p_k`` the vertices relative to ``o``, the tetrahedron
``(0, p_1, p_2, p_3)`` has

    signed volume        V = det[p_1, p_2, p_3] / 6,
    first moment         int x dV = V (p_1 + p_2 + p_3) / 4,
    second moment        int x x^T dV = V / 20 (sum_k p_k p_k^T + s s^T),  s = p_1 + p_2 + p_3.

The second moment follows from the canonical tetrahedron ``(0, e_1, e_2, e_3)``, whose moment
is ``(I + 1 1^T) / 120``, pulled back by the linear map ``x = P u`` with ``P = [p_1 p_2 p_3]``
(Jacobian ``det P = 6 V``): ``int x x^T dV = det P * P (I + 1 1^T) P^T / 120``. Written out
component by component this is Tonon's closed form (F. Tonon 2005, Explicit exact formulas for
the 3-D tetrahedron inertia tensor in terms of its vertex coordinates, J. Math. Stat. 1(1):8-11).
Summing over the triangles, the signed pieces outside the hull cancel, so the result is exact
for any reference point; the mean of the hull vertices is used to keep round-off small.

With the centroid ``c`` and the second moment ``S_c = int (x - c)(x - c)^T dm`` about it, the
inertia tensor is ``J = tr(S_c) 1 - S_c``. Its eigen-decomposition ``J = R diag(A, B, C) R^T``
(moments ascending, ``det R = +1``) gives the principal frame K: ``x_B = c + R x_K``, so ``R`` is
A_BK and its quaternion maps K to B (the package convention, body to the outer frame).

Reference: Leine, Schweizer, Christen, Glover, Bartelt, Gerber (2014), Simulation of rockfall
trajectories with consideration of rock shape, Multibody Syst. Dyn. 32:241-271.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial import ConvexHull, QhullError

from tumble._check import positive_number
from tumble.bodies.inertia import principal_inertia
from tumble.rotation.quaternion import matrix_to_quat

#: smallest singular value of the centred cloud, relative to the largest, below which the
#: points count as coplanar (or collinear)
COPLANAR_RTOL = 1e-10


def as_point_cloud(points: ArrayLike, name: str = "points") -> np.ndarray:
    """Validate a 3D point cloud and return it as a float64 array of shape (n, 3).

    Raises ``ValueError`` for a wrong shape, NaN or infinite coordinates, fewer than 4 points, or
    points that do not span a volume (all on one plane or line).
    """
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 3D point cloud of shape (n, 3): {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"{name} must be a 3D point cloud of shape (n, 3), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contain NaN or infinite coordinates")
    if arr.shape[0] < 4:
        raise ValueError(
            f"{name}: a convex rock needs at least 4 points that are not coplanar, "
            f"got {arr.shape[0]}"
        )
    centred = arr - arr.mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    if singular[0] == 0.0 or singular[2] <= COPLANAR_RTOL * singular[0]:
        raise ValueError(f"the {name} are coplanar: a convex rock needs volume")
    return np.ascontiguousarray(arr)


def mass_density(
    volume: float, density: float | None = None, mass: float | None = None
) -> tuple[float, float]:
    """Resolve ``(mass, density)`` of a homogeneous body of the given volume.

    Exactly one of ``density`` or ``mass`` may be given; with neither the density is 1.
    """
    if density is not None and mass is not None:
        raise ValueError("give either density or mass, not both")
    if mass is not None:
        mass = positive_number(mass, "mass")
        return mass, mass / volume
    density = 1.0 if density is None else positive_number(density, "density")
    return density * volume, density


def hull_triangles(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Convex hull of a validated cloud: ``(vertex_index, triangles, normals)``.

    ``vertex_index`` lists the hull vertices among ``points``; ``triangles`` (k, 3) index into
    ``vertex_index`` and are ordered counter-clockwise seen from outside, so that
    ``(b - a) x (c - a)`` points along the outward unit ``normals`` (k, 3).
    """
    try:
        hull = ConvexHull(points)
    except QhullError as exc:
        raise ValueError(f"the convex hull of the points failed: {exc}") from None
    simplices = hull.simplices.copy()
    normals = np.ascontiguousarray(hull.equations[:, :3])
    a, b, c = (points[simplices[:, k]] for k in range(3))
    flip = np.einsum("ij,ij->i", np.cross(b - a, c - a), normals) < 0.0
    simplices[flip] = simplices[flip][:, ::-1]
    vertex_index = np.unique(simplices)
    remap = np.full(points.shape[0], -1, dtype=np.int64)
    remap[vertex_index] = np.arange(vertex_index.size)
    return vertex_index, remap[simplices], normals


def tetra_moments(
    vertices: np.ndarray, triangles: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume, first and second moments ``(V, int x dV, int x x^T dV)`` of a closed surface.

    ``vertices`` (m, 3) are taken relative to the origin; ``triangles`` (k, 3) are outward
    oriented. Exact for any closed, consistently oriented triangle mesh (signed tetrahedra).
    """
    p1, p2, p3 = (vertices[triangles[:, k]] for k in range(3))
    vol = np.einsum("ij,ij->i", p1, np.cross(p2, p3)) / 6.0
    s = p1 + p2 + p3
    volume = float(vol.sum())
    first = (vol[:, None] * s).sum(axis=0) / 4.0
    outer = (
        np.einsum("ki,kj->kij", p1, p1)
        + np.einsum("ki,kj->kij", p2, p2)
        + np.einsum("ki,kj->kij", p3, p3)
        + np.einsum("ki,kj->kij", s, s)
    )
    second = np.einsum("k,kij->ij", vol, outer) / 20.0
    return volume, first, second


def principal_frame(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (ascending) and rotation ``R`` (det +1) with ``tensor = R diag R^T``."""
    moments, rotation = np.linalg.eigh(0.5 * (tensor + tensor.T))
    if np.linalg.det(rotation) < 0.0:
        rotation[:, 2] = -rotation[:, 2]
    return moments, np.ascontiguousarray(rotation)


@dataclass(frozen=True, eq=False)
class ConvexPolyhedron:
    """A homogeneous convex polyhedron in its principal frame at the centre of mass.

    Attributes
    ----------
    vertices : (m, 3) hull vertices in the principal frame K, relative to the centre of mass.
    faces : (k, 3) triangles indexing ``vertices``, counter-clockwise seen from outside.
    normals : (k, 3) outward unit face normals in K.
    volume, mass, density : m^3, kg, kg/m^3.
    inertia : (3,) principal moments (A, B, C), ascending, kg m^2.
    centroid : (3,) centre of mass in the input frame B.
    rotation : (3, 3) A_BK, principal frame to input frame: ``x_B = centroid + rotation @ x_K``.
    quaternion : (4,) unit quaternion of ``rotation`` (maps K to B), scalar first.
    inertia_tensor : (3, 3) inertia tensor about the centre of mass in the input frame B.
    """

    vertices: np.ndarray
    faces: np.ndarray
    normals: np.ndarray
    volume: float
    mass: float
    density: float
    inertia: np.ndarray
    centroid: np.ndarray
    rotation: np.ndarray
    quaternion: np.ndarray
    inertia_tensor: np.ndarray

    @classmethod
    def from_points(
        cls, points: ArrayLike, density: float | None = None, mass: float | None = None
    ) -> ConvexPolyhedron:
        """Convex hull of ``points`` (n, 3) with homogeneous ``density`` or total ``mass``.

        Exactly one of ``density`` (kg/m^3) or ``mass`` (kg) may be given; with neither the
        density is 1. Points inside the hull are ignored.
        """
        if density is not None and mass is not None:
            raise ValueError("give either density or mass, not both")
        cloud = as_point_cloud(points)
        vertex_index, faces, normals_b = hull_triangles(cloud)
        hull_b = cloud[vertex_index]

        # moments about the mean hull vertex, then about the centroid
        origin = hull_b.mean(axis=0)
        volume, first, second = tetra_moments(hull_b - origin, faces)
        if not volume > 0.0:
            raise ValueError("the points are coplanar: a convex rock needs volume")
        offset = first / volume
        second_c = second - volume * np.outer(offset, offset)
        mass_, density_ = mass_density(volume, density, mass)
        tensor = density_ * (np.trace(second_c) * np.eye(3) - second_c)
        tensor = 0.5 * (tensor + tensor.T)

        moments, rotation = principal_frame(tensor)
        moments = principal_inertia(moments, name="principal moments of the hull")
        centroid = origin + offset
        vertices = (hull_b - centroid) @ rotation
        normals = normals_b @ rotation
        return cls(
            vertices=_frozen(vertices),
            faces=_frozen(faces),
            normals=_frozen(normals),
            volume=volume,
            mass=mass_,
            density=density_,
            inertia=_frozen(moments),
            centroid=_frozen(centroid),
            rotation=_frozen(rotation),
            quaternion=_frozen(matrix_to_quat(rotation)),
            inertia_tensor=_frozen(tensor),
        )

    @property
    def n_vertices(self) -> int:
        """Number of hull vertices (the contact-buffer capacity of a rock)."""
        return int(self.vertices.shape[0])

    def to_input_frame(self, points_k: ArrayLike) -> np.ndarray:
        """Map points (..., 3) from the principal frame K back to the input frame B."""
        return self.centroid + np.asarray(points_k, dtype=np.float64) @ self.rotation.T


def _frozen(arr: ArrayLike) -> np.ndarray:
    out = np.ascontiguousarray(arr)
    out.setflags(write=False)
    return out
