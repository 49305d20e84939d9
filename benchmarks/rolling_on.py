"""Rocks that roll on: the share of rocks released with 1 m/s down a plane of 10 to 25 degrees
that come to rest within ``--t-max`` seconds, their median run-out and the median speed of those
still moving at the end, per soil category (``--soil``, default the categories with a rolling
resistance and ``lu2019`` without one).

A compact block (EOTA111, 0.1 m^3 of 2700 kg/m^3, as the small class of the real-site example)
rolls over its edges: each landing on a face is a plastic impact that takes part of its energy,
and the soil's rolling resistance ``mu_r`` takes ``mu_r m g cos(slope)`` per metre. Where the
slope gives more than both take, the rock settles into a steady roll whose speed does not
decay: it moves until ``t_max`` and a longer ``t_max`` only lets it roll further.

    PYTHONPATH=src python benchmarks/rolling_on.py [--soil medium,lu2019,...] [--rocks 40]
        [--slopes 10,12,15,17,20,25] [--t-max 60] [--threads 2]
"""

from __future__ import annotations

import argparse

import numpy as np

from start_of_motion import plane_run  # benchmarks/start_of_motion.py
from tumble.rockfall import Rock, RockStatus, Soil, Terrain
from tumble.rockfall.release import Release
from tumble.rockfall.step.model import S_V

SOILS = ("lu2019", "medium", "authume_hard", "authume_rocky")
SLOPES = (10.0, 12.0, 15.0, 17.0, 20.0, 25.0)


def roll(
    soil: Soil,
    slope: float,
    rocks: int,
    t_max: float = 60.0,
    threads: int | None = None,
    seed: int = 2,
) -> dict[str, float]:
    """Release ``rocks`` random orientations of a 0.1 m^3 EOTA111 block, lowest point 0.5 m
    above a plane of ``slope`` degrees, with 1 m/s down it: the share at rest at ``t_max``, the
    median run-out (m, horizontal) and the median speed of the rocks still moving (m/s)."""
    rock = Rock.eota111(mass=0.1 * 2700.0)
    terrain = Terrain.plane(slope, size=(1200.0, 40.0), spacing=2.0)
    release = Release(point=(20.0, 0.0), height=0.5, speed_downslope=1.0)
    chunk, runout = plane_run(terrain, rock, soil, release, rocks, seed, t_max, threads)
    final = chunk["final_state"]
    stopped = chunk["status"] == int(RockStatus.STOPPED)
    moving = chunk["status"] == int(RockStatus.TIMED_OUT)
    speed = np.linalg.norm(final[moving, S_V : S_V + 3], axis=1)
    return {
        "stopped": float(np.mean(stopped)),
        "moving": float(np.mean(moving)),
        "runout": float(np.median(runout)),
        "speed": float(np.median(speed)) if speed.size else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soil", default=",".join(SOILS))
    parser.add_argument("--slopes", default=",".join(f"{s:g}" for s in SLOPES))
    parser.add_argument("--rocks", type=int, default=40)
    parser.add_argument("--t-max", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    slopes = [float(s) for s in args.slopes.split(",")]
    print(f"EOTA111 0.1 m^3, {args.rocks} orientations, 1 m/s down the plane, t_max {args.t_max:g}")
    print("| soil | mu_r | slope | at rest | still moving | median run-out m | their speed m/s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.soil.split(","):
        soil = Soil.preset(name)
        for slope in slopes:
            r = roll(soil, slope, args.rocks, args.t_max, args.threads)
            speed = "-" if np.isnan(r["speed"]) else f"{r['speed']:.2f}"
            print(
                f"| `{name}` | {soil.rolling_resistance:g} | {slope:g} deg | "
                f"{100 * r['stopped']:.0f} % | {100 * r['moving']:.0f} % | {r['runout']:.1f} | "
                f"{speed} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
