"""Start of motion: the share of rocks released at rest (or at 1-2 m/s down the slope) on a plane of
35, 40 and 45 degrees that stop within 2 m of their release, for a box, EOTA111 and EOTA221,
over ``--rocks`` random orientations (seed 1, one stream per rock). The rocks start with their
lowest point ``--height`` (default 1 cm) above the plane (the release's clearance lift).

    PYTHONPATH=src python benchmarks/start_of_motion.py [--rocks 100] [--soil medium]
        [--height 0.01] [--threads 2]
"""

from __future__ import annotations

import argparse

import numpy as np

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release

SHAPES = {
    "box 0.4x0.3x0.2": lambda: Rock.box(0.4, 0.3, 0.2, density=2700.0),
    "EOTA111 270 kg": lambda: Rock.eota111(mass=270.0),
    "EOTA221 780 kg": lambda: Rock.eota221(mass=780.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=100)
    parser.add_argument("--soil", default="medium")
    parser.add_argument("--height", type=float, default=0.01)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    soil = Soil.preset(args.soil)
    print(f"{args.rocks} orientations, soil {args.soil}, clearance {args.height} m")
    for slope in (35.0, 40.0, 45.0):
        terrain = Terrain.plane(slope, size=(200.0, 40.0), spacing=1.0)
        for speed in (0.0, 1.0, 2.0):
            for name, make in SHAPES.items():
                rock = make()
                release = Release(
                    point=(40.0, 0.0), height=args.height, speed_downslope=speed or None
                )
                states = release.draw(terrain, args.rocks, 1, hulls=Hulls.of(rock))
                result = Ensemble(terrain, rock, soil, states, seed=1, t_max=8.0).run(
                    threads=args.threads
                )
                runout = result.rocks["runout_m"]
                early = (runout < 2.0) & (result.rocks["status"] == "stopped")
                print(
                    f"{slope:4.0f} deg, {speed:.0f} m/s, {name:<16} stop within 2 m: "
                    f"{early.mean():6.1%}  median run-out {np.median(runout):6.1f} m",
                    flush=True,
                )


if __name__ == "__main__":
    main()
