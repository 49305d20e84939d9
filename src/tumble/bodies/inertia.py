"""Principal moments of inertia and their validation.

A rigid body is always represented in its principal frame at the centre of mass, so its inertia
is the triple ``(A, B, C)`` of principal moments (kg m^2). Physically possible triples are
positive and satisfy the triangle inequalities ``A + B >= C``, ``B + C >= A``, ``A + C >= B``
(equality for a flat lamina).
"""

from __future__ import annotations

import numpy as np

#: relative slack allowed in the triangle inequalities (round-off of computed moments)
TRIANGLE_RTOL = 1e-9


def principal_inertia(inertia, name: str = "inertia") -> np.ndarray:
    """Validate principal moments ``(A, B, C)`` and return them as a float64 array of shape (3,).

    Raises ``ValueError`` naming the problem for a wrong shape, NaN, non-positive moments or a
    violated triangle inequality.
    """
    arr = np.asarray(inertia, dtype=np.float64)
    if arr.shape != (3,):
        raise ValueError(
            f"{name} must be the three principal moments (A, B, C), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values: {arr.tolist()}")
    if np.any(arr <= 0.0):
        raise ValueError(f"{name} must be positive, got {arr.tolist()}")
    total = float(arr.sum())
    for i, j, k in ((0, 1, 2), (1, 2, 0), (0, 2, 1)):
        if arr[i] + arr[j] < arr[k] - TRIANGLE_RTOL * total:
            raise ValueError(
                f"{name} {arr.tolist()} is not physically possible: the triangle inequality "
                f"I{i + 1} + I{j + 1} >= I{k + 1} fails ({arr[i] + arr[j]:.6g} < {arr[k]:.6g})"
            )
    return np.array(arr, dtype=np.float64, order="C")  # a writable copy: one numba signature


def inertia_matrix(inertia) -> np.ndarray:
    """The diagonal inertia matrix ``diag(A, B, C)``."""
    return np.diag(principal_inertia(inertia))


def axis_order(inertia) -> dict[str, int]:
    """Indices of the minor, intermediate and major principal axes (smallest to largest moment)."""
    order = np.argsort(principal_inertia(inertia), kind="stable")
    return {"minor": int(order[0]), "intermediate": int(order[1]), "major": int(order[2])}
