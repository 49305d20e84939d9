"""Start of motion: the share of rocks released at rest (or at 0.5-1 m/s down the slope) on a
plane of 26 to 45 degrees that stop within 2 m of their release, for a box, EOTA111 and EOTA221,
over ``--rocks`` random orientations (seed 1, one stream per rock), and which published value
holds each of them. The rocks start with their lowest point ``--height`` (default 1 cm) above
the plane (the release's clearance lift).

``--soil all`` runs every category of the soil catalogue (``tumble.rockfall.soil.CATALOGUE``)
and prints one markdown table per category. Beside each share: ``held`` says whether the
category's friction reaches ``tan(slope)`` at all and after which slippage ``s*``
(:func:`tumble.rockfall.soil_statics.holding_slippage`). A rock at rest on a plane needs friction
``mu >= tan(slope)`` whatever its contacts; the column ``held by`` says, of the row's early
stops, how many the friction at rest ``mu_min`` holds (``tan(slope) <= mu_min``), how many the
friction built up by sliding holds (``mu(s) >= tan(slope) > mu_min``: ``mu_max`` and ``kappa`` of
the category's slippage law), and how many neither (a stop the physics does not allow, up to the
rest criterion's tolerance of ``tests/rockfall/test_start_of_motion.py``).

    PYTHONPATH=src python benchmarks/start_of_motion.py [--rocks 100] [--soil medium|all|a,b]
        [--height 0.01] [--threads 2] [--t-max 8]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tumble.rockfall import Rock, RockStatus, Soil, Terrain
from tumble.rockfall.clearance import Hulls
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release
from tumble.rockfall.soil import CATALOGUE
from tumble.rockfall.step.model import S_R, S_SLIP

SHAPES = {
    "box": lambda: Rock.box(0.4, 0.3, 0.2, density=2700.0),
    "EOTA111": lambda: Rock.eota111(mass=270.0),
    "EOTA221": lambda: Rock.eota221(mass=780.0),
}
SLOPES = (26.0, 30.0, 35.0, 40.0, 45.0)
SPEEDS = (0.0, 0.5, 1.0)
#: a rock that stops closer than this to its release stopped "at once"
EARLY_M = 2.0


def plane_run(
    terrain: Terrain,
    rock: Rock,
    soil: Soil,
    release: Release,
    rocks: int,
    seed: int,
    t_max: float,
    threads: int | None,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``rocks`` random orientations of ``rock`` from ``release`` on ``terrain``: the chunk of
    :meth:`Ensemble.run_chunk` and each rock's horizontal run-out (m)."""
    states = release.draw(terrain, rocks, seed, hulls=Hulls.of(rock))
    ensemble = Ensemble(terrain, rock, soil, states, seed=seed, t_max=t_max)
    chunk = ensemble.run_chunk(0, rocks, threads)
    final = chunk["final_state"]
    runout = np.hypot(*(final[:, S_R : S_R + 2] - states.position[:, :2]).T)
    return chunk, runout


def early_stops(
    soil: Soil,
    rock: Rock,
    slope: float,
    speed: float,
    rocks: int,
    height: float = 0.01,
    t_max: float = 8.0,
    threads: int | None = None,
    seed: int = 1,
) -> dict[str, np.ndarray]:
    """Release ``rocks`` random orientations of ``rock`` at rest (``speed`` 0) or with ``speed``
    m/s down a plane of ``slope`` degrees, the lowest point ``height`` above it; per rock:
    ``early`` (stopped within :data:`EARLY_M` of the release), ``stopped``, ``runout`` (m,
    horizontal) and ``slippage`` (m, at the end)."""
    terrain = Terrain.plane(slope, size=(200.0, 40.0), spacing=1.0)
    release = Release(point=(40.0, 0.0), height=height, speed_downslope=speed or None)
    chunk, runout = plane_run(terrain, rock, soil, release, rocks, seed, t_max, threads)
    final = chunk["final_state"]
    stopped = chunk["status"] == int(RockStatus.STOPPED)
    return {
        "early": stopped & (runout < EARLY_M),
        "stopped": stopped,
        "runout": runout,
        "slippage": final[:, S_SLIP],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=100)
    parser.add_argument("--soil", default="medium", help="a catalogue name, or all")
    parser.add_argument("--height", type=float, default=0.01)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--t-max", type=float, default=8.0)
    args = parser.parse_args()
    names = list(CATALOGUE) if args.soil == "all" else args.soil.split(",")
    print(f"{args.rocks} orientations (seed 1), clearance {args.height} m, t_max {args.t_max} s")
    for name in names:
        soil = Soil.preset(name)
        print(f"\n### {name}\n")
        print("| slope | held (s*) | start | " + " | ".join(SHAPES) + " | held by |")
        print("|---" * (len(SHAPES) + 4) + "|")
        for slope in SLOPES:
            s_star = soil.holding_slippage(slope)
            held = f"yes ({s_star:.2f} m)" if math.isfinite(s_star) else "no"
            for speed in SPEEDS:
                cells, by_min, by_slip, by_none = [], 0, 0, 0
                tan = math.tan(math.radians(slope))
                for make in SHAPES.values():
                    out = early_stops(
                        soil,
                        make(),
                        slope,
                        speed,
                        args.rocks,
                        args.height,
                        args.t_max,
                        args.threads,
                    )
                    early = out["early"]
                    cells.append(f"{early.mean():.0%}")
                    mu_end = np.asarray(soil.mu(out["slippage"][early]))
                    if float(np.max(soil.mu_min)) >= tan:
                        by_min += int(early.sum())
                    else:
                        by_slip += int(np.count_nonzero(mu_end >= tan))
                        by_none += int(np.count_nonzero(mu_end < tan))
                start = f"{speed:g} m/s" if speed else "at rest"
                print(
                    f"| {slope:.0f} deg | {held} | {start} | "
                    + " | ".join(cells)
                    + " | "
                    + holders(by_min, by_slip, by_none)
                    + " |",
                    flush=True,
                )


def holders(by_min: int, by_slip: int, by_none: int) -> str:
    """The ``held by`` cell: the early stops by the value that holds them."""
    parts = [
        f"{n} {what}"
        for n, what in (
            (by_min, "mu_min"),
            (by_slip, "mu(s): mu_max, kappa"),
            (by_none, "neither"),
        )
        if n
    ]
    return ", ".join(parts) if parts else "none stop"


if __name__ == "__main__":
    main()
