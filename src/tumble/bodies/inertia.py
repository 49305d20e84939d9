"""Principal moments of inertia and their validation.

A rigid body is always represented in its principal frame at the centre of mass, so its inertia
is the triple ``(A, B, C)`` of principal moments (kg m^2). Physically possible triples are
positive and satisfy the triangle inequalities ``A + B >= C``, ``B + C >= A``, ``A + C >= B``
(equality for a flat lamina).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble._check import TRIANGLE_RTOL

__all__ = ["TRIANGLE_RTOL", "axis_order", "inertia_matrix", "principal_inertia"]


def principal_inertia(inertia: ArrayLike, name: str = "inertia") -> np.ndarray:
    """Validate principal moments ``(A, B, C)`` and return them as a float64 array of shape (3,).

    Raises ``ValueError`` naming the problem for a wrong shape, NaN, non-positive moments or a
    violated triangle inequality.
    """
    return _check.inertia(inertia, name)


def inertia_matrix(inertia: ArrayLike) -> np.ndarray:
    """The diagonal inertia matrix ``diag(A, B, C)``."""
    return np.diag(principal_inertia(inertia))


def axis_order(inertia: ArrayLike) -> dict[str, int]:
    """Indices of the minor, intermediate and major principal axes (smallest to largest moment)."""
    order = np.argsort(principal_inertia(inertia), kind="stable")
    return {"minor": int(order[0]), "intermediate": int(order[1]), "major": int(order[2])}
