"""Whether a run's maps have settled: per cell, are the 95 % intervals of the reach probability
and of the 95th-percentile energy narrow enough?

A cell counts when its reach probability ``p`` is at least ``min_probability`` (rarer cells need
far more rocks: the relative half-width of ``p`` shrinks as ``1 / sqrt(n p)``). It has converged
when both intervals of :mod:`tumble.rockfall.ensemble.intervals` are within ``target`` of their
value, relative to it::

    max(p - p_low, p_high - p) <= target p      and
    max(E95 - E95_low, E95_high - E95) <= target E95

(a cell with too few rocks for an interval of its 95th percentile has not converged).
``converged.tif`` is 1 in the cells that counted and converged, 0 elsewhere on the DEM.
``summary.json["convergence"]``: ``rocks``, ``converged`` (every cell that counts has converged,
and there is at least one), ``target``, ``min_probability``, ``cells``, ``cells_converged``, and
for ``rocks = "auto"`` runs ``max_rocks``, ``rounds`` (rocks, cells, cells converged per round)
and the products' record of :mod:`tumble.rockfall.hazard.settling` (whose ``converged`` replaces
this one's: an auto run is judged on the products, this criterion among them only when asked).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.rockfall.ensemble.intervals import relative_half_width
from tumble.rockfall.ensemble.rasters import Rasters

#: the raster of this module
CONVERGED = "converged"
#: defaults of the ``[convergence]`` table
TARGET = 0.1
MIN_PROBABILITY = 0.01
MAX_ROCKS = 20_000
#: nodata of converged.tif (in the DEM's holes only)
CONVERGED_NODATA = 255


@dataclass(frozen=True)
class Convergence:
    """Settings of the check (module docstring)."""

    target: float = TARGET
    min_probability: float = MIN_PROBABILITY

    def __post_init__(self) -> None:
        if not self.target > 0.0:
            raise ValueError(f"convergence.target must be positive, got {self.target!r}")
        if not 0.0 < self.min_probability <= 1.0:
            raise ValueError(
                f"convergence.min_probability must be in (0, 1], got {self.min_probability!r}"
            )

    def check(self, rasters: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """``(counted, converged)``: boolean grids of the cells that count and of those that
        have converged. For the windowed rasters of a run (:class:`~tumble.rockfall.ensemble.
        rasters.Rasters`) the intervals are computed over the window the rocks reached only:
        outside it the reach probability is 0, below any ``min_probability``, so no cell there
        counts."""
        if not isinstance(rasters, Rasters):
            return self._check(rasters.__getitem__)
        w = rasters.window
        counted_w, converged_w = self._check(rasters.in_window)
        counted = np.zeros(rasters.shape, dtype=bool)
        converged = np.zeros(rasters.shape, dtype=bool)
        counted[w.j0 : w.j1, w.i0 : w.i1] = counted_w
        converged[w.j0 : w.j1, w.i0 : w.i1] = converged_w
        return counted, converged

    def _check(self, get: Any) -> tuple[np.ndarray, np.ndarray]:
        p = np.asarray(get("reach_probability"), dtype=np.float64)
        counted = p >= self.min_probability
        reach = relative_half_width(
            p, np.asarray(get("reach_probability_low")), np.asarray(get("reach_probability_high"))
        )
        energy = relative_half_width(
            np.asarray(get("kinetic_energy_p95")),
            np.asarray(get("kinetic_energy_p95_low")),
            np.asarray(get("kinetic_energy_p95_high")),
        )
        return counted, counted & (reach <= self.target) & (energy <= self.target)

    def record(self, rasters: Mapping[str, np.ndarray], rocks: int) -> dict[str, Any]:
        """The ``summary.json["convergence"]`` record of a run of ``rocks`` rocks."""
        counted, converged = self.check(rasters)
        cells = int(counted.sum())
        done = int(converged.sum())
        return {
            "rocks": int(rocks),
            "converged": bool(cells > 0 and done == cells),
            "target": self.target,
            "min_probability": self.min_probability,
            "cells": cells,
            "cells_converged": done,
        }


def write_converged(
    terrain: Any, converged: np.ndarray, directory: str | os.PathLike, ascii: bool = False
) -> Path:
    """``converged.tif``: uint8, 1 where the cell counted and converged, 0 elsewhere, nodata
    255 in the DEM's holes; with ``ascii`` also ``converged.asc``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    grid = converged.astype(np.float32)  # 0 and 1 exactly, half the memory of float64
    grid[~np.isfinite(np.asarray(terrain.heights))] = np.nan
    if ascii:
        terrain.write_raster(directory / f"{CONVERGED}.asc", grid)
    return terrain.write_raster(
        directory / f"{CONVERGED}.tif",
        grid,
        nodata=CONVERGED_NODATA,
        dtype="uint8",
        description=(
            "1 where the 95 % intervals of the reach probability and of the 95th-percentile "
            "energy are within the target relative half-width (cells with reach probability "
            ">= min_probability), else 0"
        ),
        unit="1",
        cog=True,
        overviews="min",  # zoomed out: a block with a cell not converged shows 0
    )
