"""Stratified against plain sampling of the releases at equal rocks, on the example real site.

For each sampling (``release.sampling = "random"`` and ``"stratified"``), each number of rocks
and each of ``--seeds`` seeds, the run of ``examples/real_site/site.toml`` (both release areas,
both rock classes) is simulated (the ensemble only: no result folder) and three measures of its
sampling noise are taken over the seeds:

* ``reach line moved``: the settling measure of the reach line at p = 0.01
  (:func:`tumble.rockfall.hazard.settling.reach_line_moved`: the share of the line's cells more
  than one cell from the other run's line) between two runs of different seeds, averaged over
  the pairs of seeds: what a round-to-round comparison of independent runs sees;
* ``cell half-width``: the 95 % half-width of the reach probability from its spread over the
  seeds, ``1.96 sd(p)``, relative to the mean ``p``, averaged over the cells of mean reach
  probability >= 0.01; and ``variance``: the sum over those cells of the variance of ``p``
  over the seeds, whose ratio plain / stratified is the factor of rocks stratification saves
  for the reach map;
* ``E95 sd``: the spread over the seeds of the 95th percentile of the kinetic energy on each
  barrier line, relative to its mean.

Each measure is itself an estimate from ``--seeds`` runs (the variance to about
``sqrt(2 / (seeds - 1))`` relative). Run from the repository root (the site is written first):

    python examples/real_site/make_site.py --source ../shared/validation/avaHit/avaHit.asc
    PYTHONPATH=src python benchmarks/stratified_sampling.py --rocks 400 800 1600 --seeds 8
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from tumble.io.config import load_config
from tumble.rockfall.hazard.design import add_barrier_statistics
from tumble.rockfall.hazard.settling import reach_line_moved
from tumble.rockfall.site.from_config import build_run

SITE = Path(__file__).resolve().parents[1] / "examples" / "real_site" / "site.toml"
SAMPLINGS = ("random", "stratified")
#: the reach line's probability and the cells judged (those of the settling defaults)
PROBABILITY = 0.01


def one_run(
    site: Path, sampling: str, rocks: int, seed: int, threads: int
) -> tuple[np.ndarray, dict[str, float]]:
    """The reach probability (grid) and the E95 (kJ) of each barrier of one run."""
    config = load_config(
        site, overrides=[f"rocks={rocks}", f"seed={seed}", f"release.sampling={sampling}"]
    )
    setup = build_run(config, site.parent)
    result = setup.ensemble.run(threads=threads, chunk_size=100)
    add_barrier_statistics(result, setup.ensemble.barriers, setup.design, seed)
    e95 = {
        b["name"]: float(b["kinetic_energy_kJ"]["p95"])
        for b in result.summary.get("barriers", [])
        if b.get("kinetic_energy_kJ") and b["kinetic_energy_kJ"].get("p95") is not None
    }
    return np.asarray(result.rasters["reach_probability"], dtype=np.float64), e95


def measures(
    maps: list[np.ndarray], e95: list[dict[str, float]], cells: np.ndarray, pooled: np.ndarray
) -> dict:
    """The measures of the module docstring over the runs of one sampling and size, on
    ``cells`` whose reach probability over the runs of both samplings is ``pooled``."""
    stack = np.stack(maps)
    moved = [
        reach_line_moved(a >= PROBABILITY, b >= PROBABILITY)
        for a, b in itertools.combinations(stack, 2)
    ]
    mean = pooled[cells]
    sd = stack.std(axis=0, ddof=1)[cells]
    spread = {}
    for name in e95[0]:
        values = np.array([e[name] for e in e95 if name in e])
        spread[name] = float(values.std(ddof=1) / values.mean())
    return {
        "moved": float(np.mean([m for m in moved if m is not None])),
        "half_width": float(np.mean(1.96 * sd / mean)),
        "variance": float(np.sum(sd**2)),
        "e95_sd": spread,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=SITE)
    parser.add_argument("--rocks", type=int, nargs="+", default=[400, 800, 1600])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    table: dict[tuple[str, int], dict] = {}
    for rocks in args.rocks:
        runs = {
            s: [
                one_run(args.site, s, rocks, seed, args.threads)
                for seed in range(1, args.seeds + 1)
            ]
            for s in SAMPLINGS
        }
        pooled = np.mean([m for s in SAMPLINGS for m, _ in runs[s]], axis=0)
        cells = pooled >= PROBABILITY
        for s in SAMPLINGS:
            table[s, rocks] = measures(
                [m for m, _ in runs[s]], [e for _, e in runs[s]], cells, pooled
            )
            print(_row(s, rocks, table[s, rocks]), flush=True)
        print(f"{rocks} rocks done ({time.perf_counter() - start:.0f} s)", flush=True)
    print(
        f"\n{args.seeds} seeds per line; cells: mean reach probability >= {PROBABILITY:g}; "
        "variance: summed over those cells; E95 sd: of the barrier lines in order"
    )
    header = f"{'sampling':>10} {'rocks':>6} {'line moved':>10} {'half-width':>10} {'variance':>9}"
    print(header + f" {'E95 sd':>8}")
    for (s, rocks), m in sorted(table.items(), key=lambda item: (item[0][1], item[0][0])):
        print(_row(s, rocks, m))
    print("\nvariance ratio random / stratified (rocks saved for the reach map):")
    for rocks in args.rocks:
        ratio = table["random", rocks]["variance"] / table["stratified", rocks]["variance"]
        print(f"  {rocks} rocks: {ratio:.2f}")
    print(f"\nwall time {time.perf_counter() - start:.0f} s, threads {args.threads}")


def _row(sampling: str, rocks: int, m: dict) -> str:
    """One line of the table: the measures of one sampling and number of rocks."""
    spread = " ".join(f"{name} {value:.3f}" for name, value in sorted(m["e95_sd"].items()))
    return (
        f"{sampling:>10} {rocks:>6} {m['moved']:>10.3f} {m['half_width']:>10.3f} "
        f"{m['variance']:>9.4f}  {spread}"
    )


if __name__ == "__main__":
    main()
