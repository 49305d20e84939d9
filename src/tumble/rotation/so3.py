"""The rotation group SO(3): hat map, exponential and logarithm, Rodrigues and Cayley maps.

* ``skew(w)`` is the hat map, ``skew(w) @ c == cross(w, c)``.
* ``so3_exp(w)`` is the matrix exponential of ``skew(w)`` by Rodrigues' formula
  ``I + sin(t)/t W + (1 - cos t)/t^2 W^2`` (Leine et al. 2021, eq. 72), with Taylor series near 0.
* ``so3_log(R)`` inverts it for angles in [0, pi]; it goes through Shepperd's quaternion so that
  angles near 0 and near pi are accurate (the arccos of the trace is not).
* ``cayley(a) = (I - a^/2)^-1 (I + a^/2)`` (rotation angle 2 atan(|a|/2)) and its inverse.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from tumble.rotation.quaternion import as_vectors, matrix_to_quat, quat_log


def skew(w: ArrayLike) -> np.ndarray:
    """Skew-symmetric matrices (..., 3, 3) with ``skew(w) @ c = w x c``."""
    w = as_vectors(w, "w")
    out = np.zeros(w.shape[:-1] + (3, 3))
    out[..., 0, 1] = -w[..., 2]
    out[..., 0, 2] = w[..., 1]
    out[..., 1, 0] = w[..., 2]
    out[..., 1, 2] = -w[..., 0]
    out[..., 2, 0] = -w[..., 1]
    out[..., 2, 1] = w[..., 0]
    return out


def unskew(m: ArrayLike) -> np.ndarray:
    """The vector of the skew-symmetric part of matrices (..., 3, 3)."""
    m = np.asarray(m, dtype=np.float64)
    return 0.5 * np.stack(
        [m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]],
        axis=-1,
    )


def so3_exp(w: ArrayLike) -> np.ndarray:
    """exp(skew(w)) by Rodrigues' formula, for rotation vectors of shape (..., 3)."""
    w = as_vectors(w, "w")
    t = np.linalg.norm(w, axis=-1)[..., None, None]
    small = t < 1e-4
    t_safe = np.where(small, 1.0, t)
    # sin(t)/t and (1 - cos t)/t^2 with series below 1e-4 (truncation below 1e-20)
    a = np.where(small, 1.0 - t**2 / 6.0 + t**4 / 120.0, np.sin(t_safe) / t_safe)
    b = np.where(small, 0.5 - t**2 / 24.0 + t**4 / 720.0, (1.0 - np.cos(t_safe)) / t_safe**2)
    k = skew(w)
    return np.eye(3) + a * k + b * (k @ k)


def rodrigues(axis: ArrayLike, angle: ArrayLike) -> np.ndarray:
    """Rotation matrix about the unit ``axis`` by ``angle`` radians (Rodrigues' formula)."""
    axis = as_vectors(axis, "axis")
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    if np.any(n == 0.0):
        raise ValueError("rotation axis must not be the zero vector")
    angle = np.asarray(angle, dtype=np.float64)
    return so3_exp(axis / n * angle[..., None])


def so3_log(r: ArrayLike) -> np.ndarray:
    """Rotation vectors (angle in [0, pi]) of rotation matrices (..., 3, 3)."""
    return quat_log(matrix_to_quat(r))


def cayley(a: ArrayLike) -> np.ndarray:
    """Cayley map ``(I - a^/2)^-1 (I + a^/2) = I + 4/(4 + |a|^2) (a^ + a^ a^ / 2)``."""
    a = as_vectors(a, "a")
    k = skew(a)
    f = 4.0 / (4.0 + np.sum(a * a, axis=-1))[..., None, None]
    return np.eye(3) + f * (k + 0.5 * (k @ k))


def cayley_inverse(r: ArrayLike) -> np.ndarray:
    """Inverse Cayley map: ``a`` with ``cayley(a) = R``; undefined for rotations by pi."""
    q = matrix_to_quat(r)
    if np.any(np.abs(q[..., 0]) < 1e-12):
        raise ValueError("the Cayley map is not defined for a rotation by pi")
    return 2.0 * q[..., 1:] / q[..., :1]
