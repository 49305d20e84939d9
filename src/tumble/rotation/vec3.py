"""Compiled 3-vector and 3x3 kernels on tuples: cross and dot products, a 3x3 solve by Cramer's
rule. The integrators call these millions of times, so they never reach LAPACK."""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit

#: a 3-vector as the kernels pass it around
Vec3 = tuple[float, float, float]
#: a 3-vector argument that a kernel only indexes: a tuple or an array of shape (3,) (numba
#: compiles one version for each)
Vec3Like = Vec3 | np.ndarray
#: a 3x3 matrix as a tuple of three row tuples
Mat3 = tuple[Vec3, Vec3, Vec3]


@jit
def dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jit
def cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@jit
def norm(a: Vec3) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@jit
def add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@jit
def sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@jit
def scale(s: float, a: Vec3) -> Vec3:
    return (s * a[0], s * a[1], s * a[2])


@jit
def mul_diag(d: Vec3Like, a: Vec3) -> Vec3:
    """``diag(d) @ a``."""
    return (d[0] * a[0], d[1] * a[1], d[2] * a[2])


@jit
def matvec(m: Mat3, a: Vec3) -> Vec3:
    """``m @ a`` for a 3x3 matrix given as three row tuples."""
    return (dot(m[0], a), dot(m[1], a), dot(m[2], a))


@jit
def solve3(m: Mat3, b: Vec3) -> tuple[Vec3, bool]:
    """Solve ``m x = b`` by Cramer's rule; returns ``(x, ok)`` with ``ok`` False if singular.

    ``m`` is a tuple of three row tuples. Singular means |det| below 1e-300 or below 1e-14 times
    the product of the row norms.
    """
    c0 = cross(m[1], m[2])
    det = dot(m[0], c0)
    scale_ = norm(m[0]) * norm(m[1]) * norm(m[2])
    if not (abs(det) > 1e-14 * scale_ and abs(det) > 1e-300):
        return (0.0, 0.0, 0.0), False
    c1 = cross(m[2], m[0])
    c2 = cross(m[0], m[1])
    # inverse = [c0 c1 c2] / det (columns), so x = (c0 b0 + c1 b1 + c2 b2) / det
    inv = 1.0 / det
    return (
        (c0[0] * b[0] + c1[0] * b[1] + c2[0] * b[2]) * inv,
        (c0[1] * b[0] + c1[1] * b[1] + c2[1] * b[2]) * inv,
        (c0[2] * b[0] + c1[2] * b[1] + c2[2] * b[2]) * inv,
    ), True


@jit
def factor3(m: Mat3) -> tuple[Vec3, Vec3, Vec3, float, bool]:
    """Cofactor columns and inverse determinant of ``m``, for repeated solves with one matrix.

    Returns ``(c0, c1, c2, inv_det, ok)``; ``m^-1 b = (c0 b0 + c1 b1 + c2 b2) inv_det``. ``ok`` is
    False under the same singularity test as :func:`solve3`.
    """
    c0 = cross(m[1], m[2])
    c1 = cross(m[2], m[0])
    c2 = cross(m[0], m[1])
    det = dot(m[0], c0)
    scale2 = dot(m[0], m[0]) * dot(m[1], m[1]) * dot(m[2], m[2])
    if not (det * det > 1e-28 * scale2 and det != 0.0):
        return c0, c1, c2, 0.0, False
    return c0, c1, c2, 1.0 / det, True


@jit
def solve_factored(c0: Vec3, c1: Vec3, c2: Vec3, inv_det: float, b: Vec3) -> Vec3:
    """``m^-1 b`` from the output of :func:`factor3`."""
    return (
        (c0[0] * b[0] + c1[0] * b[1] + c2[0] * b[2]) * inv_det,
        (c0[1] * b[0] + c1[1] * b[1] + c2[1] * b[2]) * inv_det,
        (c0[2] * b[0] + c1[2] * b[1] + c2[2] * b[2]) * inv_det,
    )
