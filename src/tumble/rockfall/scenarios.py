"""Built-in synthetic terrains, by name.

``slope40``
    The idealised slope of the ensemble comparison in Leine et al. 2021 (seed 000, Tables 1-3),
    whose exact geometry is not published; this is the geometry tumble uses: a 40 degree planar
    slope descending along +x over 150 m horizontal (x from 0 to 150 m, height
    ``(150 - x) tan 40 deg``, 125.86 m at the top), then a flat run-out at height 0 for 500 m
    (x from 150 to 650 m), 500 m wide (y from -250 to 250 m, centre line y = 0), sampled on a 1 m
    grid (651 x 501 samples) so that the kink at x = 150 m is a grid line and both parts are
    exact planes of the bilinear surface. The run-out zone is long and wide enough for the rocks
    of both rotation schemes to stop on it (1000 rocks released at x = 10 m: every one stops,
    the farthest at x = 593 m and 195 m off the centre line, implicit scheme), so that run-out,
    energy and spread describe the whole ensemble and not a sample cut at the DEM's edge.

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
    """40 deg slope over 150 m, flat run-out of 500 m, 500 m wide, 1 m grid (module docstring)."""
    slope_length, runout, width, spacing = 150, 500, 500, 1.0
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
