"""Quaternion and SO(3) mathematics (scalar-first quaternions mapping body to space)."""

from tumble.rotation.quaternion import (
    from_scipy,
    matrix_to_quat,
    quat_conj,
    quat_exp,
    quat_log,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
    to_scipy,
)
from tumble.rotation.so3 import (
    cayley,
    cayley_inverse,
    rodrigues,
    skew,
    so3_exp,
    so3_log,
    unskew,
)

__all__ = [
    "cayley",
    "cayley_inverse",
    "from_scipy",
    "matrix_to_quat",
    "quat_conj",
    "quat_exp",
    "quat_log",
    "quat_mul",
    "quat_normalize",
    "quat_rotate",
    "quat_to_matrix",
    "rodrigues",
    "skew",
    "so3_exp",
    "so3_log",
    "to_scipy",
    "unskew",
]
