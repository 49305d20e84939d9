"""What the per-cell intervals, the convergence map, the energy line and the source maps cost
beside the simulation of a run, measured in one run (the machine's load cancels in the ratios).

    PYTHONPATH=src python benchmarks/uncertainty_cost.py [--rocks 1000]

On the default scenario (``tumble rockfall run``'s slope, t_max 30 s), chunk by chunk as a run
computes them: the simulation of each chunk with its cell reductions (``Ensemble._simulate``), and
apart from it the chunk's energy-line angles and minima and its per-source reach counts; then,
from the merged run, the interval rasters (Clopper-Pearson and the order-statistic interval of
the 95th-percentile energy), the convergence check and record, the per-source reach, the source
count and the reach outlines, the energy-line record, and the writing of ``converged.tif``,
``source_count.tif`` and ``reach_outlines.gpkg``. Prints each as a share of the simulation
(goal: all together <= 5 %).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from tumble.pipeline import RockfallRun
from tumble.pipeline.energy_line import release_places
from tumble.rockfall.ensemble.counts import exceedance_counts
from tumble.rockfall.ensemble.energy_line import cell_minima
from tumble.rockfall.ensemble.intervals import bin_quantile_interval, clopper_pearson
from tumble.rockfall.ensemble.reduce import RunReduction
from tumble.rockfall.hazard.convergence import Convergence, write_converged
from tumble.rockfall.hazard.energy_line import energy_line_record
from tumble.rockfall.hazard.reach import (
    outlines,
    source_count,
    source_reach,
    write_outlines,
    write_source_count,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rocks", type=int, default=1000)
    args = parser.parse_args()
    run = RockfallRun.from_config(settings={"rocks": args.rocks, "t_max": 30.0})
    ens, site = run.ensemble, run.setup.site
    ens.warm_up()
    reduction = RunReduction(ens)
    times: dict[str, float] = {}

    def timed(name, f, *a, **kw):
        s = time.perf_counter()
        out = f(*a, **kw)
        times[name] = times.get(name, 0.0) + time.perf_counter() - s
        return out

    size = ens.terrain.heights.size
    for a, b in ens.chunks(100):
        chunk, (rock, cell, value), reduced = timed("simulation", ens._simulate, a, b)
        angle = timed("energy line, chunks", ens.visit_angles, rock, cell)
        minima = timed("energy line, chunks", cell_minima, cell, angle)
        reach = timed(
            "source reach, chunks",
            exceedance_counts,
            rock,
            cell,
            value[:, 0],
            ens.reach_groups,
            ens.n_reach_groups,
            size,
            (None,),
        )
        chunk.update(reduced)
        chunk.update(minima)
        chunk["reach_key"], chunk["reach_count"] = reach["exceed_key"], reach["exceed_count"]
        reduction.add(chunk)
    result = reduction.result(times["simulation"])
    site.apply(result)
    merged = reduction._cells.result()
    timed("intervals", clopper_pearson, merged["cell_count"], ens.n_rocks)
    timed(
        "intervals",
        bin_quantile_interval,
        merged["cell_index"],
        merged["energy_bin_key"],
        merged["energy_bin_count"],
        0.95,
    )
    check = Convergence()
    converged = timed("convergence", lambda: check.check(result.rasters)[1])
    timed("convergence", check.record, result.rasters, ens.n_rocks)
    shape = ens.terrain.heights.shape
    reached = timed("source maps", source_reach, result.reach, len(site.source_names), shape)
    count = timed("source maps", source_count, reached)
    shapes = timed("source maps", outlines, ens.terrain, reached)
    places = release_places(run.setup.release)
    timed(
        "energy line record", energy_line_record, result.rasters, ens.terrain, result.rocks, places
    )
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        timed("files", write_converged, ens.terrain, converged, out)
        timed("files", write_source_count, ens.terrain, count, out)
        rocks = [int(np.sum(site.source_of == s)) for s in range(reached.shape[0])]
        timed(
            "files",
            write_outlines,
            out / "reach_outlines.gpkg",
            shapes,
            site.source_names,
            site.source_frequency,
            rocks,
            ens.terrain.crs,
        )
    simulation = times.pop("simulation")
    print(f"{args.rocks} rocks, {merged['cell_index'].size} cells reached")
    print(f"simulation (chunks with their cell reductions): {simulation:.2f} s")
    for name, seconds in times.items():
        print(f"  {name}: {seconds:.3f} s ({100 * seconds / simulation:.2f} % of the simulation)")
    total = sum(times.values()) / simulation
    print(f"total: {100 * total:.2f} % of the simulation (goal <= 5 %)")


if __name__ == "__main__":
    main()
