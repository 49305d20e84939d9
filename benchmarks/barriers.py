"""What barrier bookkeeping costs: rock-steps per second on ``slope40`` without barriers and with
observation lines across the slope and the run-out, measured side by side in one run.

The lines do not change the motion (observation lines only), so both runs take the same steps and
the ratio of their rates is the cost of testing every step's path against every barrier segment
and recording the crossings. Goal: at most 5 % slower. Each configuration is run ``--repeat``
times, alternating, after the kernels are compiled; the best rate of each (rock-steps per
second of the process's CPU time, steadier than wall time on a shared machine) is compared.

    python benchmarks/barriers.py [--rocks 500] [--lines 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.barriers import Barrier
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=500)
    parser.add_argument("--lines", type=int, default=3, help="observation lines (10 vertices)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--threads", type=int, default=1, help="threads (default 1: steadier timings)"
    )
    args = parser.parse_args()

    terrain = Terrain.scenario("slope40")
    states = Release.for_scenario("slope40").draw(terrain, args.rocks, args.seed)
    rock = Rock.eota221(mass=780.0)
    soil = Soil.preset("medium")
    barriers = []
    for k, x in enumerate(np.linspace(60.0, 300.0, args.lines)):
        y = np.linspace(-70.0, 70.0, 10)
        line = np.column_stack([x + 2.0 * np.sin(y / 10.0), y])
        barriers.append(Barrier(f"line {k + 1}", line, None, None))
    runs = {
        "no barriers": Ensemble(terrain, rock, soil, states, seed=args.seed),
        f"{args.lines} lines": Ensemble(
            terrain, rock, soil, states, seed=args.seed, barriers=barriers
        ),
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    steps: dict[str, int] = {}
    for ensemble in runs.values():
        ensemble.warm_up()
    for _ in range(args.repeat):
        for name, ensemble in runs.items():
            # CPU time of this process: steadier than wall time on a shared machine
            cpu = time.process_time()
            result = ensemble.run(threads=args.threads)
            cpu = time.process_time() - cpu
            rates[name].append(result.summary["rock_steps"] / cpu)
            steps[name] = result.summary["rock_steps"]
            if ensemble.barriers:
                crossings = len(result.crossings["rock"]) if result.crossings else 0
    base, lined = (max(rates[name]) for name in runs)
    print(
        f"{args.rocks} rocks on slope40, implicit scheme, {args.threads} thread(s), "
        f"best of {args.repeat}"
    )
    for name in runs:
        print(f"  {name:>14}: {max(rates[name]) / 1e6:6.2f} M rock-steps/s ({steps[name]} steps)")
    print(f"  crossings recorded: {crossings}")
    print(f"  cost of the barrier bookkeeping: {100.0 * (1.0 - lined / base):+.1f} % (goal <= 5 %)")
    if steps["no barriers"] != steps[f"{args.lines} lines"]:
        raise SystemExit("observation lines changed the motion: the steps differ")


if __name__ == "__main__":
    main()
