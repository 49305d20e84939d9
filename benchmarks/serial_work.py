"""The serial work of ``Ensemble.run`` on the MuJoCo workload, piece by piece, beside its kernels.

The workload of ``benchmarks/mujoco_speed.py`` (slope40, 1000 EOTA221 rocks of 780 kg, slope40's
soil, implicit scheme, dt 0.002 s, t_max 10 s, seed 1) is run once chunk by chunk (the default
chunk size) and each kernel's outputs are kept. The work ``Ensemble.run`` does on one thread
after each kernel is then timed on copies of them, best of ``--repeat`` passes:

* ``reduce``: ``Ensemble._reduce_kernel`` (the visits merged per rock and cell and reduced per
  cell, ``reduce_visits``, and the chunk's energy-line minima, ``chunk_minima``);
* ``chunk``: ``Ensemble._chunk_of`` (the chunk's dictionary; the angles of every visit only when
  the visits are kept);
* ``merge``: ``RunReduction.add`` (the chunk merged into the run's reduction);
* ``result``: ``RunReduction.result`` (the cells merged, the rasters, statistics and tables).

Beside them, the ten kernels alone and ``Ensemble.run`` itself (best of ``--repeat``), on
``--threads`` threads: the run's time less the kernels' is what the serial work costs the run.

    python benchmarks/serial_work.py [--repeat 15] [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tumble._jit import get_threads, set_threads
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.reduce import RunReduction
from tumble.rockfall.ensemble.sizes import VISIT_CAPACITY
from tumble.rockfall.release import Release
from tumble.rockfall.soil import SCENARIO_SOILS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--t-max",
        type=float,
        default=10.0,
        help="seconds simulated per rock (0: the whole run, the ensemble's own t_max)",
    )
    args = parser.parse_args()
    threads = args.threads or get_threads()
    set_threads(threads)
    terrain = Terrain.scenario("slope40")
    states = Release.for_scenario("slope40").draw(terrain, 1000, 1)
    ensemble = Ensemble(
        terrain,
        Rock.eota221(mass=780.0),
        Soil.preset(SCENARIO_SOILS["slope40"]),
        states,
        scheme="implicit",
        seed=1,
        **({"t_max": args.t_max} if args.t_max else {}),
    )
    ensemble.warm_up()
    spans = ensemble.chunks()
    kept = []
    for start, stop in spans:
        rocks = np.arange(start, stop, dtype=np.int64)
        kept.append((rocks, ensemble._kernel(rocks, VISIT_CAPACITY)))
    best = {name: float("inf") for name in ("reduce", "chunk", "merge", "result")}
    for _ in range(args.repeat):
        reduction = RunReduction(ensemble)
        copies = [(rocks, tuple(a.copy() for a in out)) for rocks, out in kept]
        spent = dict.fromkeys(best, 0.0)
        for rocks, out in copies:
            t0 = time.perf_counter()
            simulated = ensemble._reduce_kernel(rocks, out, ensemble.keep_visits)  # as run's
            t1 = time.perf_counter()
            chunk = ensemble._chunk_of(simulated)
            t2 = time.perf_counter()
            reduction.add(chunk)
            t3 = time.perf_counter()
            spent["reduce"] += t1 - t0
            spent["chunk"] += t2 - t1
            spent["merge"] += t3 - t2
        t0 = time.perf_counter()
        reduction.result(wall_time=1.0)
        spent["result"] = time.perf_counter() - t0
        for name, seconds in spent.items():
            best[name] = min(best[name], seconds)
    kernels = run = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for start, stop in spans:
            ensemble._kernel(np.arange(start, stop, dtype=np.int64), VISIT_CAPACITY)
        kernels = min(kernels, time.perf_counter() - t0)
        t0 = time.perf_counter()
        ensemble.run(threads=threads)
        run = min(run, time.perf_counter() - t0)
    print(
        f"slope40, 1000 rocks ({ensemble.t_max:g} s) in {len(spans)} chunks, {threads} threads; "
        f"best of {args.repeat} passes, ms"
    )
    for name, seconds in best.items():
        print(f"  {name:<8}{1e3 * seconds:8.2f}")
    print(f"  {'serial':<8}{1e3 * sum(best.values()):8.2f}  (one thread)")
    print(f"the kernels alone {1e3 * kernels:.1f}, Ensemble.run {1e3 * run:.1f}")


if __name__ == "__main__":
    main()
