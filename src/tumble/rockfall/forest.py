"""Forest as foresters describe it: rock-tree impacts from stands or from single trees.

A :class:`Forest` is either a *stand* map (stems per hectare and mean diameter at breast height,
DBH, per DEM cell, as an inventory gives them, optionally an energy factor per stand) or a list
of *single trees* (stem positions and DBH, e.g. from a LiDAR tree detection). The per-rock loops
test for impacts after every step (:func:`tumble.rockfall.step.trees.forest_step`); stems are
vertical cylinders reaching ``stem_height`` above the terrain (no limit by default).

**Meeting a stem.** Single trees: a rock meets a stem when the horizontal distance from its centre
to the stem's axis becomes less than ``(D + d) / 2`` (``D`` the DBH, ``d`` the rock's diameter,
taken as that of the sphere of equal volume) while it approaches the stem. Stands: stems stand at
random positions of density ``n`` (stems per m^2 = stems_per_ha / 10 000); a rock whose centre
moves a horizontal distance ``ds`` sweeps a band of width ``D + d`` and meets a stem with the
rate ``lambda = n (D + d)`` per metre, so the distance to the next impact is exponential with
mean ``1 / (n (D + d))`` (the mean free path of a disc among Poisson points). PlatRock (Irstea /
INRAE; Toe et al. 2017, the model of its ``OneDTreeGenerator``) writes the same encounter with
screens of stems a distance ``l = 1 / sqrt(n)`` apart: ``P(no impact over x) = q^(x / l)``,
``q = 1 - (D + d) sqrt(n)``, whose rate ``-ln(q) / l`` equals ``n (D + d)`` to first order in
``(D + d) sqrt(n)``; the Poisson form is used here because single trees placed at random give
exactly it, and it stays defined where ``(D + d) sqrt(n) >= 1``. The impact position across the
band is uniform: the stem's axis lies at ``b (D + d) / 2`` from the rock's path, ``b`` uniform
on [0, 1), on either side with equal chance. Random numbers come from each rock's own stream
(:func:`tumble.rockfall.step.trees.uniform`, keyed by the run's seed and the rock's index).

**Energy a stem takes.** A stem dissipates at most ``FE = 38.7 DBH^2.31`` J (DBH in cm;
Dorren, L.K.A. & Berger, F. 2006, Stem breakage of trees and energy dissipation during rockfall
impacts, Tree Physiology 26:63-71, as used by Rockyfor3D: Dorren 2016, Rockyfor3D (v5.2)
revealed, ecorisQ, section 3.4), times the stand's ``energy_factor`` (1 for the species of the
experiments; no species table is entered: give the factor). FE(30 cm) = 99.9 kJ. The rock's
velocity is split at the contact into the component along the contact normal (horizontal, from
the stem's axis to the rock's centre) and the rest; the stem takes the kinetic energy of the
normal component ``E_n = m v_n^2 / 2`` up to ``FE``. A stem that holds (``E_n <= FE``) leaves the
rock its tangential and vertical velocity: a central impact stops the rock's horizontal motion, a
grazing one deflects it by ``90 deg - asin(b)`` and takes little. A stem that breaks takes ``FE``
and the rock goes on through it with ``E_n - FE`` along the normal; a broken single tree is gone
for that rock. The rotation of the rock is not changed by an impact. A stem that holds keeps
holding the rock that leans on it: a single tree stands where it is, and a stand's stem stays
where the rock met it, ``(D + d) / 2`` from the rock's centre along the contact normal, until the
rock has moved out of its reach or broken it; while the rock leans on it, each step's motion
towards it is taken again, without a new impact.

What is not from Rockyfor3D: the text of its section 3.4 (the probability of an impact, the
reduction of energy with the impact position, the deflection angles) could not be checked by
this project; the dependence on the impact position above is the mechanics of a perfectly
plastic frictionless contact with a fixed cylinder, not Rockyfor3D's curve, and no species
factors are entered. ``tumble rockfall soils`` lists what is used and its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tumble.rockfall.step.trees import (
    FE_COEFF,
    FE_EXPONENT,
    MODE_NONE,
    MODE_STAND,
    MODE_TREES,
    N_PARAMS,
    P_MAX_DBH,
    P_MODE,
    P_STEM_HEIGHT,
)

#: what `tumble rockfall soils` lists of the forest model: (quantity, value, source)
FOREST_MODEL = (
    (
        "stem capacity FE",
        f"{FE_COEFF} DBH^{FE_EXPONENT} J, DBH in cm (FE(30 cm) = 99.9 kJ)",
        "Dorren & Berger 2006, Tree Physiology 26:63-71; Rockyfor3D v5.2 revealed, 3.4",
    ),
    (
        "impact rate in a stand",
        "n (D + d) per metre of horizontal path, n stems/m^2, D DBH, d rock diameter",
        "mean free path among Poisson stems; PlatRock's screen model to first order",
    ),
    (
        "impact position",
        "uniform across the band of width D + d",
        "random stem positions",
    ),
    (
        "energy taken, deflection",
        "kinetic energy of the velocity along the contact normal, up to FE; the tangential "
        "velocity kept",
        "plastic frictionless contact with a fixed stem (not Rockyfor3D's curve: unchecked)",
    ),
    ("species", "energy_factor per stand or tree (default 1)", "no species table entered"),
)


def stem_capacity_J(dbh_cm: Any, energy_factor: Any = 1.0) -> Any:
    """Energy a stem of ``dbh_cm`` dissipates before it breaks, J (module docstring)."""
    return np.asarray(energy_factor) * FE_COEFF * np.asarray(dbh_cm, dtype=float) ** FE_EXPONENT


def rock_diameter(volume: Any) -> Any:
    """Diameter of the sphere of volume ``volume`` (m^3), m: the rock's size against stems."""
    return (6.0 * np.asarray(volume, dtype=float) / math.pi) ** (1.0 / 3.0)


class StandInputError(ValueError):
    """A stand input that is wrong: ``field`` names it (``stems_per_ha``, ``dbh_cm`` or
    ``energy_factor``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _field(value: Any, shape: tuple[int, int], name: str) -> np.ndarray:
    try:
        array = np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), shape))
    except ValueError:
        array = None
    if array is None or array.shape != shape:
        raise StandInputError(name, f"forest {name} must be a number or a raster of shape {shape}")
    return array


def _where(terrain: Any, bad: np.ndarray) -> str:
    """Where the first of the ``bad`` DEM samples lies, and how many there are."""
    j, i = np.argwhere(bad)[0]
    x = terrain.x0 + i * terrain.dx
    y = terrain.y0 + j * terrain.dy
    return f"{int(bad.sum())} DEM sample(s), the first at x = {x:.2f}, y = {y:.2f}"


@dataclass(frozen=True, eq=False)
class Forest:
    """Stems on one DEM grid (module docstring). Build with :meth:`stand` or :meth:`trees`."""

    mode: int
    shape: tuple[int, int]
    #: stems per m^2, DBH (m), energy factor of every DEM sample (stands)
    density: np.ndarray = field(repr=False)
    dbh: np.ndarray = field(repr=False)
    factor: np.ndarray = field(repr=False)
    #: single trees sorted by DEM cell: position (n, 2), DBH (m), energy factor, cell offsets
    tree_xy: np.ndarray = field(repr=False)
    tree_dbh: np.ndarray = field(repr=False)
    tree_factor: np.ndarray = field(repr=False)
    tree_start: np.ndarray = field(repr=False)
    stem_height: float = math.inf

    @classmethod
    def stand(
        cls,
        terrain: Any,
        stems_per_ha: Any,
        dbh_cm: Any,
        energy_factor: Any = 1.0,
        stem_height: float = math.inf,
    ) -> Forest:
        """Stands on the DEM grid: ``stems_per_ha`` and ``dbh_cm`` (numbers or rasters on the
        DEM's samples; 0 or NaN = no forest), ``energy_factor`` (number or raster)."""
        shape = terrain.heights.shape
        n = _field(stems_per_ha, shape, "stems_per_ha")
        d = _field(dbh_cm, shape, "dbh_cm")
        f = _field(energy_factor, shape, "energy_factor")
        forest = np.isfinite(n) & np.isfinite(d) & (n > 0.0) & (d > 0.0)
        for name, a in (("stems_per_ha", n), ("dbh_cm", d)):
            bad = np.isfinite(a) & (a < 0.0)
            if bad.any():
                raise StandInputError(
                    name,
                    f"forest {name} must not be negative, got {float(a[bad][0]):g} "
                    f"({_where(terrain, bad)})",
                )
        bad = forest & ~(np.isfinite(f) & (f > 0.0))
        if bad.any():
            raise StandInputError(
                "energy_factor",
                f"forest energy_factor must be positive where there is forest, got "
                f"{float(f[bad][0]):g} ({_where(terrain, bad)})",
            )
        empty = np.zeros((0, 2))
        return cls(
            MODE_STAND,
            shape,
            np.where(forest, n / 10_000.0, 0.0).ravel(),
            np.where(forest, d / 100.0, 0.0).ravel(),
            np.where(forest, f, 1.0).ravel(),
            empty,
            np.zeros(0),
            np.zeros(0),
            np.zeros(shape[0] * shape[1] + 1, dtype=np.int64),
            _height(stem_height),
        )

    @classmethod
    def trees(
        cls,
        terrain: Any,
        x: Any,
        y: Any,
        dbh_cm: Any,
        energy_factor: Any = 1.0,
        stem_height: float = math.inf,
    ) -> Forest:
        """Single trees at ``x``, ``y`` (DEM coordinates) of ``dbh_cm``; trees off the DEM and
        trees without a positive DBH are dropped by the caller's checks (ValueError here)."""
        x = np.asarray(x, dtype=np.float64).ravel()
        y = np.asarray(y, dtype=np.float64).ravel()
        d = np.broadcast_to(np.asarray(dbh_cm, dtype=np.float64), x.shape).copy()
        f = np.broadcast_to(np.asarray(energy_factor, dtype=np.float64), x.shape).copy()
        if x.shape != y.shape:
            raise ValueError("forest trees need as many x as y")
        if not (np.all(np.isfinite(d)) and np.all(d > 0.0)):
            raise ValueError("every tree needs a positive DBH (cm)")
        if not (np.all(np.isfinite(f)) and np.all(f > 0.0)):
            raise ValueError("every tree's energy factor must be positive")
        ny, nx = terrain.heights.shape
        i = np.floor((x - terrain.x0) / terrain.dx + 0.5).astype(np.int64)
        j = np.floor((y - terrain.y0) / terrain.dy + 0.5).astype(np.int64)
        off = (i < 0) | (j < 0) | (i >= nx) | (j >= ny)
        if off.any():
            raise ValueError(
                f"{int(off.sum())} tree(s) lie outside the DEM, the first at x = "
                f"{x[off][0]:.6g}, y = {y[off][0]:.6g}"
            )
        cell = j * nx + i
        order = np.argsort(cell, kind="stable")
        start = np.searchsorted(cell[order], np.arange(nx * ny + 1)).astype(np.int64)
        zeros = np.zeros(nx * ny)
        return cls(
            MODE_TREES,
            (ny, nx),
            zeros,
            zeros,
            zeros,
            np.ascontiguousarray(np.column_stack([x[order], y[order]])),
            d[order] / 100.0,
            f[order],
            start,
            _height(stem_height),
        )

    @property
    def n_trees(self) -> int:
        return int(self.tree_dbh.size)

    def params(self) -> np.ndarray:
        out = np.zeros(N_PARAMS)
        out[P_MODE] = self.mode
        out[P_STEM_HEIGHT] = self.stem_height
        out[P_MAX_DBH] = float(self.tree_dbh.max()) if self.tree_dbh.size else 0.0
        return out

    def pack(self) -> tuple[np.ndarray, ...]:
        """The kernel tuple of :mod:`tumble.rockfall.step.trees`."""
        return (
            self.params(),
            self.density,
            self.dbh,
            self.factor,
            self.tree_xy,
            self.tree_dbh,
            self.tree_factor,
            self.tree_start,
        )

    def forest_mask(self) -> np.ndarray:
        """(ny, nx) True where the forest stands (stands: stems > 0; single trees: a stem in
        the cell or in one of its eight neighbours, so that a rock at rest against a stem
        across a cell edge counts as in the forest, and a stand of trees a few cells apart is
        one area)."""
        if self.mode == MODE_STAND:
            return (self.density > 0.0).reshape(self.shape)
        from scipy import ndimage

        stems = (np.diff(self.tree_start) > 0).reshape(self.shape)
        return ndimage.binary_dilation(stems, structure=np.ones((3, 3), dtype=bool))

    def stems_per_ha(self) -> np.ndarray:
        """(ny, nx) stems per hectare of every DEM cell (single trees: the trees whose stem
        is nearest the cell's sample, per the cell's area), 0 without forest."""
        if self.mode == MODE_STAND:
            return (self.density * 10_000.0).reshape(self.shape)
        return np.diff(self.tree_start).astype(np.float64).reshape(self.shape)

    def describe(self) -> dict[str, Any]:
        """What ``summary.json["forest"]`` says of the forest itself."""
        out: dict[str, Any] = {
            "model": "rock-tree impacts (tumble.rockfall.forest)",
            "mode": "stand" if self.mode == MODE_STAND else "trees",
            "stem_height_m": None if math.isinf(self.stem_height) else self.stem_height,
            "forest_cells": int(self.forest_mask().sum()),
        }
        if self.mode == MODE_STAND:
            inside = self.density > 0.0
            if inside.any():
                out["stems_per_ha_mean"] = float(self.density[inside].mean() * 10_000.0)
                out["dbh_cm_mean"] = float(self.dbh[inside].mean() * 100.0)
        else:
            out["trees"] = self.n_trees
            out["dbh_cm_mean"] = float(self.tree_dbh.mean() * 100.0) if self.n_trees else None
        return out


def _height(value: float) -> float:
    h = float(value)
    if not h > 0.0:
        raise ValueError(f"forest stem_height must be positive, got {value!r}")
    return h


def no_forest() -> tuple[np.ndarray, ...]:
    """The kernel tuple of a run without forest."""
    params = np.zeros(N_PARAMS)
    params[P_MODE] = MODE_NONE
    empty = np.zeros(0)
    return (
        params,
        empty,
        empty,
        empty,
        np.zeros((0, 2)),
        empty,
        empty,
        np.zeros(1, dtype=np.int64),
    )


def rock_keys(seed: int | None, n: int) -> np.ndarray:
    """The key of every rock's random stream (uint64): SplitMix64 of the run's seed (0 when
    none) and the rock's index, so that rock k draws the same numbers in any chunk."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        base = np.uint64((0 if seed is None else int(seed)) & 0xFFFFFFFFFFFFFFFF)
        z = base * golden + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return np.ascontiguousarray(z ^ (z >> np.uint64(31)))
