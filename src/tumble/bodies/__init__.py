"""Rigid bodies: principal inertia, convex polyhedra from point clouds, and a shape catalogue."""

from tumble.bodies.inertia import axis_order, inertia_matrix, principal_inertia

__all__ = ["axis_order", "inertia_matrix", "principal_inertia"]
