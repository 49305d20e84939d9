"""Unit quaternions, scalar first: ``q = (w, x, y, z)``.

A quaternion maps body to space, ``a_space = q (x) a_body (x) conj(q)`` (it encodes A_IK of
Leine et al. 2021, eq. 10). Two layers live here:

* compiled kernels on tuples (``q_mul``, ``q_rotate``, ...) for the inner loops of the integrators
  and the rockfall engine: no allocation, no exceptions;
* a NumPy API on batch-first arrays (``quat_mul``, ``quat_to_matrix``, ...) that validates shapes
  and calls the kernels row by row.

Matrix to quaternion uses Shepperd's method (Shepperd 1978, J. Guidance Control 1:223): the
largest of ``w^2, x^2, y^2, z^2`` is taken from the diagonal and the others from off-diagonal sums,
so that no division by a small number occurs.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble._jit import jit
from tumble.rotation.vec3 import Mat3, Vec3

#: a quaternion ``(w, x, y, z)`` as the kernels pass it around
Quat = tuple[float, float, float, float]

# ----------------------------------------------------------------------------------------------
# kernels on tuples


@jit
def q_mul(a: Quat, b: Quat) -> Quat:
    """Hamilton product ``a (x) b`` of two quaternions given as 4-tuples."""
    a0, a1, a2, a3 = a
    b0, b1, b2, b3 = b
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


@jit
def q_conj(a: Quat) -> Quat:
    """Conjugate ``(w, -x, -y, -z)``."""
    return (a[0], -a[1], -a[2], -a[3])


@jit
def q_norm(a: Quat) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3])


@jit
def q_normalize(a: Quat) -> Quat:
    """``a / |a|``."""
    s = 1.0 / math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3])
    return (a[0] * s, a[1] * s, a[2] * s, a[3] * s)


@jit
def q_rotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate the 3-vector ``v`` by the unit quaternion ``q``: the vector part of q (x) v (x) q*."""
    w, x, y, z = q
    vx, vy, vz = v
    # t = 2 (q_vec x v); v' = v + w t + q_vec x t
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


@jit
def q_rotate_inverse(q: Quat, v: Vec3) -> Vec3:
    """Rotate ``v`` by the conjugate of ``q`` (space to body for a body-to-space ``q``)."""
    return q_rotate((q[0], -q[1], -q[2], -q[3]), v)


@jit
def q_to_matrix(q: Quat) -> Mat3:
    """Rotation matrix A_IK of a unit quaternion, as a tuple of three row tuples."""
    w, x, y, z = q
    return (
        (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
        (2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
        (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)),
    )


@jit
def matrix_to_q(r: Mat3) -> Quat:
    """Shepperd's method: unit quaternion (w >= 0) of a rotation matrix given as row tuples."""
    r00, r01, r02 = r[0]
    r10, r11, r12 = r[1]
    r20, r21, r22 = r[2]
    trace = r00 + r11 + r22
    if trace >= r00 and trace >= r11 and trace >= r22:
        w = 0.5 * math.sqrt(max(1.0 + trace, 0.0))
        f = 0.25 / w
        q = (w, (r21 - r12) * f, (r02 - r20) * f, (r10 - r01) * f)
    elif r00 >= r11 and r00 >= r22:
        x = 0.5 * math.sqrt(max(1.0 + r00 - r11 - r22, 0.0))
        f = 0.25 / x
        q = ((r21 - r12) * f, x, (r01 + r10) * f, (r02 + r20) * f)
    elif r11 >= r22:
        y = 0.5 * math.sqrt(max(1.0 - r00 + r11 - r22, 0.0))
        f = 0.25 / y
        q = ((r02 - r20) * f, (r01 + r10) * f, y, (r12 + r21) * f)
    else:
        z = 0.5 * math.sqrt(max(1.0 - r00 - r11 + r22, 0.0))
        f = 0.25 / z
        q = ((r10 - r01) * f, (r02 + r20) * f, (r12 + r21) * f, z)
    if q[0] < 0.0:
        q = (-q[0], -q[1], -q[2], -q[3])
    return q_normalize(q)


@jit(inline="always")
def half_angle_series(h2: float) -> tuple[float, float]:
    """``cos(h)`` and ``sin(h) / h`` from ``h2 = h^2`` for a half angle h below 0.1 rad (a time
    step of a spinning body), by their Taylor series through h^12, whose truncation errors
    h^14/15! and h^14/14! (below 1.2e-25) lie far below round-off; no library call."""
    c = 1.0 + h2 * (
        -1.0 / 2.0
        + h2
        * (
            1.0 / 24.0
            + h2
            * (-1.0 / 720.0 + h2 * (1.0 / 40320.0 + h2 * (-1.0 / 3628800.0 + h2 / 479001600.0)))
        )
    )
    sinc = 1.0 + h2 * (
        -1.0 / 6.0
        + h2
        * (
            1.0 / 120.0
            + h2
            * (-1.0 / 5040.0 + h2 * (1.0 / 362880.0 + h2 * (-1.0 / 39916800.0 + h2 / 6227020800.0)))
        )
    )
    return c, sinc


@jit
def q_exp(v: Vec3) -> Quat:
    """Unit quaternion of the rotation vector ``v`` (angle |v| about v/|v|): exp((0, v/2))."""
    angle2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    h2 = 0.25 * angle2  # the half angle squared
    if h2 < 0.01:
        c, sinc = half_angle_series(h2)
        s = 0.5 * sinc
        return (c, s * v[0], s * v[1], s * v[2])
    angle = math.sqrt(angle2)
    half = 0.5 * angle
    s = math.sin(half) / angle
    return (math.cos(half), s * v[0], s * v[1], s * v[2])


@jit
def q_log(q: Quat) -> Vec3:
    """Rotation vector (angle in [0, pi]) of a unit quaternion; inverse of :func:`q_exp`."""
    w, x, y, z = q
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-8 * w:
        # 2 atan2(s, w) / s = (2 / w) (1 - s^2 / (3 w^2) + ...), error below 1e-32
        f = 2.0 / w * (1.0 - s * s / (3.0 * w * w))
    else:
        f = 2.0 * math.atan2(s, w) / s
    return (f * x, f * y, f * z)


@jit
def q_between(b: Vec3, c: Vec3) -> Quat:
    """Unit quaternion of the shortest rotation taking the direction of ``b`` to that of ``c``.

    This is the rotation about k = b x c / |b x c| by the angle between b and c (Leine et al.
    2021, eq. 72-73), written as the quaternion (|b||c| + b.c, b x c), normalised. For b and c
    antiparallel the axis is not unique; any axis normal to b is then chosen.
    """
    kx = b[1] * c[2] - b[2] * c[1]
    ky = b[2] * c[0] - b[0] * c[2]
    kz = b[0] * c[1] - b[1] * c[0]
    nbc = math.sqrt(
        (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]) * (c[0] * c[0] + c[1] * c[1] + c[2] * c[2])
    )
    w = nbc + (b[0] * c[0] + b[1] * c[1] + b[2] * c[2])
    if w <= 1e-15 * nbc:
        # antiparallel: rotate by pi about an axis normal to b
        if abs(b[0]) < abs(b[2]):
            return q_normalize((0.0, 0.0, -b[2], b[1]))
        return q_normalize((0.0, -b[1], b[0], 0.0))
    return q_normalize((w, kx, ky, kz))


# ----------------------------------------------------------------------------------------------
# batch kernels and NumPy API


def as_quaternions(q: ArrayLike, name: str = "q", unit_tol: float | None = None) -> np.ndarray:
    """Validate and return ``q`` as a float64 array of shape (..., 4).

    With ``unit_tol`` the norm of every quaternion must be within ``unit_tol`` of 1.
    """
    return _check.quaternions(q, name, unit_tol)


def as_vectors(v: ArrayLike, name: str = "v") -> np.ndarray:
    """Validate and return ``v`` as a float64 array of shape (..., 3)."""
    return _check.vectors(v, name)


@jit
def _mul_rows(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        r = q_mul((a[i, 0], a[i, 1], a[i, 2], a[i, 3]), (b[i, 0], b[i, 1], b[i, 2], b[i, 3]))
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = r


@jit
def _rotate_rows(q: np.ndarray, v: np.ndarray, inverse: bool, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        qi = (q[i, 0], q[i, 1], q[i, 2], q[i, 3])
        vi = (v[i, 0], v[i, 1], v[i, 2])
        r = q_rotate_inverse(qi, vi) if inverse else q_rotate(qi, vi)
        out[i, 0], out[i, 1], out[i, 2] = r


@jit
def _to_matrix_rows(q: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        m = q_to_matrix((q[i, 0], q[i, 1], q[i, 2], q[i, 3]))
        for j in range(3):
            for k in range(3):
                out[i, j, k] = m[j][k]


@jit
def _from_matrix_rows(m: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        r = (
            (m[i, 0, 0], m[i, 0, 1], m[i, 0, 2]),
            (m[i, 1, 0], m[i, 1, 1], m[i, 1, 2]),
            (m[i, 2, 0], m[i, 2, 1], m[i, 2, 2]),
        )
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = matrix_to_q(r)


@jit
def _exp_rows(v: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = q_exp((v[i, 0], v[i, 1], v[i, 2]))


@jit
def _log_rows(q: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = q_log((q[i, 0], q[i, 1], q[i, 2], q[i, 3]))


def _broadcast_rows(*arrays: np.ndarray) -> tuple[tuple[int, ...], list[np.ndarray]]:
    shape = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    flat = [
        np.ascontiguousarray(np.broadcast_to(a, shape + a.shape[-1:]).reshape(-1, a.shape[-1]))
        for a in arrays
    ]
    return shape, flat


def quat_mul(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Hamilton product ``a (x) b`` of quaternions of shape (..., 4), broadcasting."""
    a = as_quaternions(a, "a")
    b = as_quaternions(b, "b")
    shape, (fa, fb) = _broadcast_rows(a, b)
    out = np.empty_like(fa)
    _mul_rows(fa, fb, out)
    return out.reshape(shape + (4,))


def quat_conj(q: ArrayLike) -> np.ndarray:
    """Conjugate quaternion(s)."""
    q = as_quaternions(q)
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_normalize(q: ArrayLike) -> np.ndarray:
    """Quaternion(s) divided by their norm; a zero quaternion is an error."""
    q = as_quaternions(q)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(n == 0.0):
        raise ValueError("cannot normalise a zero quaternion")
    return q / n


def quat_rotate(q: ArrayLike, v: ArrayLike, inverse: bool = False) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) by unit quaternions ``q`` (..., 4); body to space.

    With ``inverse=True`` the conjugate rotation (space to body) is applied.
    """
    q = as_quaternions(q)
    v = as_vectors(v)
    shape, (fq, fv) = _broadcast_rows(q, v)
    out = np.empty((fq.shape[0], 3))
    _rotate_rows(fq, fv, inverse, out)
    return out.reshape(shape + (3,))


def quat_to_matrix(q: ArrayLike) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4)."""
    q = as_quaternions(q)
    flat = np.ascontiguousarray(q.reshape(-1, 4))
    out = np.empty((flat.shape[0], 3, 3))
    _to_matrix_rows(flat, out)
    return out.reshape(q.shape[:-1] + (3, 3))


def matrix_to_quat(m: ArrayLike) -> np.ndarray:
    """Unit quaternions (w >= 0) of rotation matrices (..., 3, 3), by Shepperd's method."""
    m = np.ascontiguousarray(m, dtype=np.float64)
    if m.ndim < 2 or m.shape[-2:] != (3, 3):
        raise ValueError(f"rotation matrices must have shape (3, 3) or (n, 3, 3), got {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError("rotation matrix contains NaN or infinite values")
    flat = np.ascontiguousarray(m.reshape(-1, 3, 3))
    out = np.empty((flat.shape[0], 4))
    _from_matrix_rows(flat, out)
    return out.reshape(m.shape[:-2] + (4,))


def quat_exp(rotvec: ArrayLike) -> np.ndarray:
    """Unit quaternions of rotation vectors (..., 3): exp of the pure quaternion (0, v/2)."""
    v = as_vectors(rotvec, "rotvec")
    flat = np.ascontiguousarray(v.reshape(-1, 3))
    out = np.empty((flat.shape[0], 4))
    _exp_rows(flat, out)
    return out.reshape(v.shape[:-1] + (4,))


def quat_log(q: ArrayLike) -> np.ndarray:
    """Rotation vectors (angle in [0, pi]) of unit quaternions (..., 4)."""
    q = as_quaternions(q)
    flat = np.ascontiguousarray(q.reshape(-1, 4))
    out = np.empty((flat.shape[0], 3))
    _log_rows(flat, out)
    return out.reshape(q.shape[:-1] + (3,))


def to_scipy(q: ArrayLike) -> np.ndarray:
    """Scalar-last copy (x, y, z, w) for :class:`scipy.spatial.transform.Rotation`."""
    q = as_quaternions(q)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def from_scipy(q_xyzw: ArrayLike) -> np.ndarray:
    """Scalar-first copy (w, x, y, z) of a scipy scalar-last quaternion."""
    q = as_quaternions(q_xyzw)
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)
