"""Run-out and timeouts against stem density on a 38 degree slope with a forest band.

A 38 degree planar slope 80 m long above a flat run-out of 60 m (1 m grid, 40 m wide); rocks
(EOTA221 shape, 1400 kg) released at x = 5 m; a forest band of 30 cm DBH from x = 20 m to the
foot of the slope (x = 80 m) with 0, 300 and 900 stems per hectare (:mod:`tumble.rockfall.forest`).
Prints, for each density, the median and 95th percentile run-out (horizontal distance from the
release to the rest position), the timed-out share, the impacts per rock and the energy the
stems took.

    PYTHONPATH=src python benchmarks/forest_runout.py [rocks]
"""

from __future__ import annotations

import math
import sys

import numpy as np

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.forest import Forest
from tumble.rockfall.release import Release

SLOPE_DEG = 38.0
DENSITIES = (0.0, 300.0, 900.0)


def site() -> tuple[Terrain, np.ndarray]:
    x = np.arange(141.0)
    z = np.maximum(80.0 - x, 0.0) * math.tan(math.radians(SLOPE_DEG))
    terrain = Terrain.from_array(np.broadcast_to(z, (41, 141)), x0=0.0, y0=-20.0, dx=1.0)
    band = np.broadcast_to((x >= 20.0) & (x <= 80.0), (41, 141))
    return terrain, band


def run(stems_per_ha: float, rocks: int, seed: int = 3) -> dict:
    terrain, band = site()
    forest = (
        Forest.stand(terrain, np.where(band, stems_per_ha, 0.0), 30.0) if stems_per_ha else None
    )
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=1400.0),
        Soil.preset("medium"),
        Release(point=(5.0, 0.0), height=1.0, speed_downslope=1.0).draw(terrain, rocks, seed),
        seed=seed,
        t_max=60.0,
        forest=forest,
    )
    return ensemble.run().summary


def main() -> None:
    rocks = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"{rocks} rocks, {SLOPE_DEG:g} deg slope, forest band x = 20..80 m, DBH 30 cm")
    print("stems/ha  runout p50 (m)  runout p95 (m)  timed out  left DEM  impacts/rock  kJ taken")
    for n in DENSITIES:
        s = run(n, rocks)
        forest = s.get("forest", {})
        taken = forest.get("energy_absorbed_kJ", 0.0)
        print(
            f"{n:8.0f}  {s['runout_m']['p50']:14.1f}  {s['runout_m']['p95']:14.1f}  "
            f"{s['fractions']['timed_out']:9.1%}  {s['fractions']['left_domain']:8.1%}  "
            f"{forest.get('impacts', 0) / rocks:12.2f}  {taken:8.0f}"
        )


if __name__ == "__main__":
    main()
