"""Built-in synthetic terrains, by name.

``slope40``
    The idealised slope of the ensemble comparison in Leine et al. 2021 (seed 000, Tables 1-3),
    whose exact geometry is not published; this is the geometry tumble uses: a 40 degree planar
    slope descending along +x over 150 m horizontal (x from 0 to 150 m, height
    ``(150 - x) tan 40 deg``, 125.86 m at the top), then a flat run-out at height 0 for 250 m
    (x from 150 to 400 m), 150 m wide (y from -75 to 75 m, centre line y = 0), sampled on a 1 m
    grid (401 x 151 samples) so that the kink at x = 150 m is a grid line and both parts are
    exact planes of the bilinear surface.

A scenario is a height grid (:class:`ScenarioGrid`); :meth:`tumble.rockfall.Terrain.scenario`
turns it into a terrain. For a plane of any slope use :meth:`tumble.rockfall.Terrain.plane`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class ScenarioGrid(NamedTuple):
    """Heights ``(ny, nx)`` with ``heights[j, i]`` at ``x = x0 + i dx``, ``y = y0 + j dy``."""

    heights: np.ndarray
    x0: float
    y0: float
    dx: float
    dy: float


def slope40() -> ScenarioGrid:
    """40 deg slope over 150 m, flat run-out of 250 m, 150 m wide, 1 m grid (module docstring)."""
    slope_length, runout, width, spacing = 150, 250, 150, 1.0
    x = spacing * np.arange(slope_length + runout + 1)
    drop = np.maximum(slope_length - x, 0.0) * math.tan(math.radians(40.0))
    heights = np.broadcast_to(drop, (width + 1, x.size))
    return ScenarioGrid(heights, 0.0, -0.5 * width, spacing, spacing)


#: Scenario name -> function building its height grid.
SCENARIOS: dict[str, Callable[[], ScenarioGrid]] = {"slope40": slope40}


def scenario(name: str) -> ScenarioGrid:
    """The grid of the built-in terrain ``name``; ValueError listing the known names otherwise."""
    try:
        build = SCENARIOS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown terrain scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}"
        ) from None
    return build()
