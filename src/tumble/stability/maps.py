"""Stability maps: spectral radius of a scheme's one-step map over time step and inertia ratio.

The spectrum of the one-step map about steady rotation depends on the moments only through
their ratios and on ``dt`` and ``Omega`` only through ``dt Omega`` up to the scale of ``w``. A map
therefore spans ``dt`` (at a given rate) and the one-parameter family of bodies::

    inertia(r) = (1, 1 + m (r - 1), r),     r = I_max / I_min >= 1,

with ``m`` in [0, 1] placing the intermediate moment between the two others (``m = 1/2`` by
default; a body lies on the map of its own ``m``, see :func:`body_ratio`). The triangle
inequality of physical bodies limits ``r <= (2 - m) / (1 - m)`` (3 for ``m = 1/2``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from tumble.bodies.inertia import principal_inertia
from tumble.stability.manifold import AXIS_NAMES, resolve_axis
from tumble.stability.state_spectra import state_spectrum
from tumble.status import KernelError


@dataclass(frozen=True)
class StabilityMap:
    """Spectral radius ``radius[i, j]`` at ``ratio[i]`` and ``dt[j]``; NaN where a step failed.

    ``transverse[i, j]`` is the spectral radius of the one-step map on the scheme's state
    manifold without its trivial eigenvalues (symmetries, conserved quantities, gauge;
    :func:`tumble.stability.state_spectra.state_spectrum`): below 1 where the scheme damps
    perturbations; ``radius = max(1, transverse)``, the trivial eigenvalues lying on the unit
    circle or at 0.
    """

    scheme: str
    axis: str
    rate: float
    middle: float
    ratio: np.ndarray
    dt: np.ndarray
    radius: np.ndarray
    transverse: np.ndarray


def inertia_family(ratios: ArrayLike, middle: float = 0.5) -> np.ndarray:
    """Moments ``(1, 1 + middle (r - 1), r)`` for each ratio ``r``, shape (n, 3)."""
    ratios = np.atleast_1d(np.asarray(ratios, dtype=np.float64))
    if ratios.ndim != 1 or not np.all(np.isfinite(ratios)) or np.any(ratios < 1.0):
        raise ValueError("ratios must be a 1-D array of finite numbers >= 1 (I_max / I_min)")
    if not (0.0 <= middle <= 1.0):
        raise ValueError(f"middle must be in [0, 1], got {middle!r}")
    family = np.stack([np.ones_like(ratios), 1.0 + middle * (ratios - 1.0), ratios], axis=1)
    for moments in family:
        principal_inertia(moments, "inertia of the family")
    return family


def body_ratio(inertia: ArrayLike) -> tuple[float, float]:
    """``(r, m)`` placing a body on the family: ``r = I_max / I_min`` and the fraction ``m``."""
    low, mid, high = np.sort(principal_inertia(inertia))
    middle = 0.5 if high == low else float((mid - low) / (high - low))
    return float(high / low), middle


def stability_map(
    scheme: str,
    axis: str,
    dts: ArrayLike,
    ratios: ArrayLike,
    rate: float = 1.0,
    middle: float = 0.5,
) -> StabilityMap:
    """Spectral radius of ``scheme`` about the ``axis`` (``"major"``, ``"intermediate"``,
    ``"minor"``) of each body of :func:`inertia_family` at each time step in ``dts``."""
    if axis not in AXIS_NAMES:
        raise ValueError(f"axis must be one of {', '.join(AXIS_NAMES)}, got {axis!r}")
    dts = np.atleast_1d(np.asarray(dts, dtype=np.float64))
    if dts.ndim != 1 or not np.all(np.isfinite(dts)) or np.any(dts <= 0):
        raise ValueError("dts must be a 1-D array of positive time steps")
    family = inertia_family(ratios, middle)
    transverse = np.full((family.shape[0], dts.shape[0]), np.nan)
    for i, inertia in enumerate(family):
        k = resolve_axis(inertia, axis)
        for j, dt in enumerate(dts):
            try:
                transverse[i, j] = state_spectrum(
                    scheme, inertia, k, rate, float(dt)
                ).transverse_radius
            except KernelError:
                continue
    return StabilityMap(
        scheme=str(scheme),
        axis=axis,
        rate=float(rate),
        middle=float(middle),
        ratio=family[:, 2].copy(),
        dt=dts,
        radius=np.maximum(transverse, 1.0),
        transverse=transverse,
    )
