"""The shaded relief under the report's maps: a multidirectional hillshade of the DEM with a
vertical exaggeration chosen from its slopes.

The hillshade is the mean of the shades lit from the azimuths :data:`HILLSHADE_AZIMUTHS` at the
altitude :data:`HILLSHADE_ALTITUDE` (:meth:`tumble.rockfall.terrain.Terrain.hillshade`); lit from
several directions, no slope facing away from one light goes black. The exaggeration ``1 / g95``
(``g95`` the 95th percentile of ``|grad z|``, clipped to :data:`EXAGGERATION_RANGE`) makes the
95th-percentile slope shade like a 45 degree one, so that flat and steep DEMs both span the grey
range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain

#: azimuths (degrees clockwise from north) and altitude of the multidirectional hillshade
HILLSHADE_AZIMUTHS = (225.0, 270.0, 315.0, 360.0)
HILLSHADE_ALTITUDE = 45.0
#: bounds of the vertical exaggeration of the hillshade
EXAGGERATION_RANGE = (0.5, 10.0)


def vertical_exaggeration(terrain: Terrain) -> float:
    """``1 / g95`` clipped to :data:`EXAGGERATION_RANGE`, ``g95`` the 95th percentile of the
    slope gradient ``|grad z|`` of the DEM (module docstring: it makes the 95th percentile slope
    a 45 degree one, whose shading spans the grey range)."""
    dz_dy, dz_dx = np.gradient(terrain.heights, terrain.dy, terrain.dx)
    gradient = np.hypot(dz_dx, dz_dy)
    gradient = gradient[np.isfinite(gradient)]  # not across the DEM's nodata holes
    g95 = float(np.percentile(gradient, 95)) if gradient.size else 0.0
    low, high = EXAGGERATION_RANGE
    return high if g95 <= 1.0 / high else float(np.clip(1.0 / g95, low, high))


def multidirectional_hillshade(terrain: Terrain, exaggeration: float) -> np.ndarray:
    """Mean of the hillshades lit from :data:`HILLSHADE_AZIMUTHS` at
    :data:`HILLSHADE_ALTITUDE`, heights scaled by ``exaggeration``; in [0, 1], layout of
    ``terrain.heights``."""
    # summed in place in the order of the azimuths, then divided: the numbers of np.mean over
    # the stacked shades, without holding them all at once (a large DEM's overview)
    total: np.ndarray | None = None
    for azimuth in HILLSHADE_AZIMUTHS:
        shade = np.asarray(terrain.hillshade(azimuth, HILLSHADE_ALTITUDE, z_factor=exaggeration))
        if total is None:
            total = np.array(shade, dtype=np.float64)
        else:
            total += shade
        del shade
    assert total is not None
    total /= len(HILLSHADE_AZIMUTHS)
    return total
