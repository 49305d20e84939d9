"""What the per-cell intervals, the convergence map, the energy line and the per-source reach
cost beside the simulation of a run.

    PYTHONPATH=src python benchmarks/uncertainty_cost.py [--rocks 2000]

Times, on the slope40 scenario: the run's simulation (its chunks), the interval rasters and the
convergence check from the merged cells, and the energy-line and per-source reductions of the
chunks (recomputed from the chunks' visits); prints each as a share of the simulation (goal:
<= 5 %).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tumble.pipeline import RockfallRun
from tumble.rockfall.ensemble.counts import exceedance_counts
from tumble.rockfall.ensemble.energy_line import cell_minima
from tumble.rockfall.ensemble.intervals import bin_quantile_interval, clopper_pearson
from tumble.rockfall.ensemble.reduce import RunReduction
from tumble.rockfall.hazard.convergence import Convergence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rocks", type=int, default=2000)
    args = parser.parse_args()
    run = RockfallRun.from_config(settings={"rocks": args.rocks, "t_max": 30.0})
    ens = run.ensemble
    ens.warm_up()
    reduction = RunReduction(ens)
    t0 = time.perf_counter()
    for a, b in ens.chunks(100):
        reduction.add(ens._run_chunk(a, b))
    simulation = time.perf_counter() - t0
    result = reduction.result(simulation)
    merged = reduction._cells.result()
    # the chunks' own energy-line and per-source reductions, timed again from chunk 0's visits
    rock, cell, value = ens.visits(0, min(100, ens.n_rocks))
    s = time.perf_counter()
    cell_minima(cell, ens.visit_angles(rock, cell))
    size = ens.terrain.heights.size
    exceedance_counts(rock, cell, value[:, 0], ens.reach_groups, 1, size, (None,))
    extra = (time.perf_counter() - s) * len(ens.chunks(100))
    s = time.perf_counter()
    clopper_pearson(merged["cell_count"], ens.n_rocks)
    bin_quantile_interval(
        merged["cell_index"], merged["energy_bin_key"], merged["energy_bin_count"], 0.95
    )
    Convergence().check(result.rasters)
    intervals = time.perf_counter() - s
    print(f"{args.rocks} rocks, {merged['cell_index'].size} cells reached")
    print(f"simulation (chunks, reductions included): {simulation:.2f} s")
    print(
        f"intervals + convergence from the merged cells: {intervals:.3f} s "
        f"({100 * intervals / simulation:.2f} % of the simulation)"
    )
    print(
        f"energy line + per-source reach of the chunks (estimated from chunk 0 x chunks): "
        f"{extra:.3f} s ({100 * extra / simulation:.2f} %)"
    )
    total = (intervals + extra) / simulation
    print(f"total: {100 * total:.2f} % (goal <= 5 %)")
    np.testing.assert_array_less(0.0, simulation)


if __name__ == "__main__":
    main()
