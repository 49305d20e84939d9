"""Shared rocks of the rockfall tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Rock

#: radius (m) of the sphere the points of :func:`sphere_like_rock` lie on
SPHERE_RADIUS = 0.5


@pytest.fixture(scope="session")
def sphere_like_rock() -> Rock:
    """A sphere-like rock: the convex hull of 400 points spread evenly (the golden-angle
    spiral) over a sphere of :data:`SPHERE_RADIUS`, 2700 kg/m^3; the rock the rolling law of
    Azzoni et al. 1995 is checked on."""
    n = 400
    i = np.arange(n) + 0.5
    polar = np.arccos(1.0 - 2.0 * i / n)
    azimuth = math.pi * (1.0 + math.sqrt(5.0)) * i
    points = SPHERE_RADIUS * np.column_stack(
        [np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar), np.cos(polar)]
    )
    return Rock.from_points(points, density=2700.0)
