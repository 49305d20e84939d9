"""The soil's response at a contact, as the Moreau step evaluates it: the soil parameters under a
contact point (constants or raster values on the DEM grid, :func:`soil_param`), the
slippage-dependent friction coefficient (:func:`friction`, Lu et al. 2019 after Bartelt 2016:
``mu = mu_min + 2/pi (mu_max - mu_min) atan(kappa s)``), and the rolling resistance impulse of
model A of Ai et al. 2011 (:func:`rolling_impulse`). Formulas and sources in
``physics/rockfall_model.md`` and :mod:`tumble.rockfall.soil`."""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rockfall.soil import KAPPA, MU_MAX, MU_MIN
from tumble.rockfall.step.contact import C_WARM
from tumble.rockfall.step.surface import bilinear
from tumble.rotation.vec3 import Mat3, Vec3, dot, matvec


@jit_leaf
def rolling_impulse(
    mu_r: float, vertices: np.ndarray, contacts: np.ndarray, rot_inv: Mat3, w: Vec3
) -> tuple[Vec3, Vec3]:
    """``(w_new, H)``: the angular velocity after the rolling-resistance impulse ``H`` (body
    frame) of :mod:`tumble.rockfall.soil`, ``H = -min(mu_r sum_k R_k P_N,k, H_stop) w / |w|``,
    with the previous step's normal percussions ``P_N,k`` (the warm start of the contact buffer)
    and ``H_stop = |w| / (w^ . rot_inv w^)``, the impulse that stops the rotation about ``w^``;
    ``w_new = w + rot_inv H``."""
    arm = 0.0
    for k in range(vertices.shape[0]):
        p_n = contacts[k, C_WARM]
        if p_n > 0.0:
            v = vertices[k]
            arm += p_n * math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    rate = math.sqrt(dot(w, w))
    if arm <= 0.0 or rate <= 0.0:
        return w, (0.0, 0.0, 0.0)
    axis = (w[0] / rate, w[1] / rate, w[2] / rate)
    response = matvec(rot_inv, axis)
    take = min(mu_r * arm, rate / dot(axis, response))
    impulse = (-take * axis[0], -take * axis[1], -take * axis[2])
    return (
        w[0] - take * response[0],
        w[1] - take * response[1],
        w[2] - take * response[2],
    ), impulse


@jit_leaf
def soil_param(
    j: int,
    values: np.ndarray,
    index: np.ndarray,
    rasters: np.ndarray,
    grid: np.ndarray,
    x: float,
    y: float,
) -> float:
    """Soil field ``j`` at (x, y): the constant, or the bilinear value of its raster."""
    k = index[j]
    if k < 0:
        return values[j]
    value, _ = bilinear(rasters[k], grid[0], grid[1], grid[2], grid[3], x, y)
    return value


@jit_leaf
def friction(
    soil_values: np.ndarray,
    soil_index: np.ndarray,
    soil_rasters: np.ndarray,
    grid: np.ndarray,
    x: float,
    y: float,
    slippage: float,
) -> float:
    """Friction coefficient at (x, y) after the slippage s (L14 eq. 51):
    ``mu_min + (2 / pi) (mu_max - mu_min) atan(kappa s)``."""
    mu_min = soil_param(MU_MIN, soil_values, soil_index, soil_rasters, grid, x, y)
    mu_max = soil_param(MU_MAX, soil_values, soil_index, soil_rasters, grid, x, y)
    kappa = soil_param(KAPPA, soil_values, soil_index, soil_rasters, grid, x, y)
    return mu_min + (2.0 / math.pi) * (mu_max - mu_min) * math.atan(kappa * slippage)
