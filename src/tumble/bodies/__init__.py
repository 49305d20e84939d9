"""Rigid bodies: principal inertia, convex polyhedra from point clouds, and a shape catalogue."""

from tumble.bodies.catalogue import (
    Body,
    crossed_rods,
    cuboid,
    cylinder,
    ellipsoid,
    eota111,
    eota111_vertices,
    eota221,
    polyhedron,
)
from tumble.bodies.inertia import axis_order, inertia_matrix, principal_inertia
from tumble.bodies.polyhedron import ConvexPolyhedron

__all__ = [
    "Body",
    "ConvexPolyhedron",
    "axis_order",
    "crossed_rods",
    "cuboid",
    "cylinder",
    "ellipsoid",
    "eota111",
    "eota111_vertices",
    "eota221",
    "inertia_matrix",
    "polyhedron",
    "principal_inertia",
]
