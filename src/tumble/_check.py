"""Validators shared by every API entry point: finite and positive numbers, integers, vectors,
quaternions, principal inertia.

Each returns the value in the form the kernels want (``float``, ``int``, a C-contiguous float64
array) or raises a ``ValueError`` whose message names the argument (``name``) and what is wrong
with it. Kernels never validate; the Python functions around them call these once.
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType
from typing import Any

import numpy as np

#: relative slack allowed in the triangle inequalities of principal moments (round-off of
#: computed moments)
TRIANGLE_RTOL = 1e-9


def finite(value: Any, name: str) -> float:
    """``float(value)``; ValueError unless it is a finite number (a boolean or a string is not
    one, although Python converts both)."""
    if isinstance(value, bool | str | bytes):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def positive(value: Any, name: str) -> float:
    """A finite number greater than zero."""
    x = finite(value, name)
    if x <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return x


def non_negative(value: Any, name: str) -> float:
    """A finite number not below zero."""
    x = finite(value, name)
    if x < 0.0:
        raise ValueError(f"{name} must not be negative, got {value!r}")
    return x


def positive_number(value: Any, name: str) -> float:
    """A positive finite number, with the message of a physical quantity (mass, density)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not math.isfinite(x) or x <= 0.0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return x


def strict_positive(value: Any, name: str) -> float:
    """A positive finite ``int`` or ``float`` (no strings, no booleans, no arrays)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def positive_int(value: Any, name: str) -> int:
    """An integer (not a bool) of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def vector(value: Any, n: int, name: str) -> np.ndarray:
    """``n`` finite numbers as a float64 array of shape (n,)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {n} numbers, got {value!r}") from None
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values: {arr.tolist()}")
    return arr


def pair(value: Any, name: str) -> tuple[float, float]:
    """Two finite numbers ``(x, y)``."""
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be two numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x, y


def triple(value: Any, name: str) -> tuple[float, float, float]:
    """Three finite numbers."""
    try:
        out = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be three numbers, got {value!r}") from None
    if len(out) != 3 or not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} must be three finite numbers, got {value!r}")
    return out[0], out[1], out[2]


def vectors(value: Any, name: str = "v") -> np.ndarray:
    """One or many 3-vectors, shape (..., 3), finite, C-contiguous float64."""
    arr = np.ascontiguousarray(value, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 3:
        raise ValueError(f"{name} must have shape (3,) or (n, 3), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def quaternions(value: Any, name: str = "q", unit_tol: float | None = None) -> np.ndarray:
    """One or many quaternions ``(w, x, y, z)``, shape (..., 4), finite; with ``unit_tol`` the
    norm of every one must be within ``unit_tol`` of 1 (they are not normalised here)."""
    arr = np.ascontiguousarray(value, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 4:
        raise ValueError(f"{name} must have shape (4,) or (n, 4) (w, x, y, z), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if unit_tol is not None:
        norms = np.linalg.norm(arr, axis=-1)
        if np.any(np.abs(norms - 1.0) > unit_tol):
            worst = float(norms.flat[np.argmax(np.abs(norms - 1.0))])
            raise ValueError(
                f"{name} must be a unit quaternion (w, x, y, z); its norm is {worst:.6g}"
            )
    return arr


def inertia(value: Any, name: str = "inertia") -> np.ndarray:
    """Principal moments ``(A, B, C)``: shape (3,), finite, positive, and physically possible
    (triangle inequalities ``A + B >= C`` and so on, equality for a flat lamina)."""
    arr = np.asarray(value, dtype=np.float64)
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


def times(value: Any, name: str = "t") -> np.ndarray:
    """A scalar or a 1-D array of finite times, as a new 1-D float64 array."""
    t = np.asarray(value, dtype=np.float64)
    if t.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D array of times, got shape {t.shape}")
    t = np.atleast_1d(t).copy()
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return t


class MissingExtra(ImportError):
    """An optional part of tumble is not installed; the message says which ``pip install``."""


#: optional dependency groups of pyproject.toml: extra -> what it is for
EXTRAS = {"web": "the local web views (FastAPI, uvicorn)", "cluster": "Dask clusters"}


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` of the optional dependencies ``tumble[extra]``, or raise
    :class:`MissingExtra` saying that ``purpose`` needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"{purpose} needs the optional package {module.split('.')[0]!r}, which is not "
            f"installed: pip install 'tumble[{extra}]'"
        ) from None
