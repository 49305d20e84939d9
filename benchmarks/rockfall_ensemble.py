"""1000 rocks on ``slope40`` with each rotation scheme: wall time, rock-steps per second, the
implicit/explicit cost ratio, and the ensemble statistics beside Leine et al. 2021, Table 2.

The setting of seed 000, section 6: EOTA221 rocks of 780 kg, random initial orientation, the
centre of mass released 1.5 m above the slope at x = 10 m with 1 m/s down the slope, Lu 2019 soil,
dt = 0.002 s. Both schemes start from the same orientations (same seed). RAMMS took 74.3 s
(explicit) and 161.5 s (implicit) for 1000 rocks, a ratio of 2.2.

Two cost ratios are printed: of the wall times (what a user waits; the implicit rocks also roll
farther, so they take more steps) and of the time per rock-step (what the scheme costs). The
kernels are compiled (or loaded from the cache) before the clock starts.

Last, the profile of ``benchmarks/contact_step.py`` says where a rock-step's time goes (flights
and contact steps and their parts, the bookkeeping of the kernel).

    python benchmarks/rockfall_ensemble.py [--rocks 1000] [--threads 2] [--seed 1]
        [--profile-rocks 10]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from contact_step import profile as step_profile  # benchmarks/contact_step.py
from tumble._jit import get_threads
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import CHUNK_SIZE, Ensemble
from tumble.rockfall.ensemble.reduce import STATISTICS
from tumble.rockfall.release import Release
from tumble.solver_defaults import ENSEMBLE_PGS_TOL as PGS_TOL
from tumble.validation.slope40 import PUBLISHED_SLOPE40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, default=CHUNK_SIZE)
    parser.add_argument(
        "--pgs-tol", type=float, default=PGS_TOL, help="Gauss-Seidel tolerance (default 1e-6)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--profile-rocks",
        type=int,
        default=10,
        help="rocks of the closing profile of where a rock-step's time goes (0: none)",
    )
    args = parser.parse_args()

    terrain = Terrain.scenario("slope40")
    states = Release.for_scenario("slope40").draw(terrain, args.rocks, args.seed)
    rock = Rock.eota221(mass=780.0)
    soil = Soil.preset("lu2019")
    results = {}
    for scheme in ("explicit", "implicit"):
        ensemble = Ensemble(
            terrain, rock, soil, states, scheme=scheme, seed=args.seed, pgs_tol=args.pgs_tol
        )
        ensemble.warm_up()
        cpu = time.process_time()
        result = ensemble.run(threads=args.threads, chunk_size=args.chunk_size)
        cpu = time.process_time() - cpu
        s = result.summary
        results[scheme] = {
            "wall_time_s": s["wall_time_s"],
            "cpu_time_s": cpu,
            "rock_steps": s["rock_steps"],
            "rock_steps_per_s": s["rock_steps_per_s"],
            "us_per_rock_step_cpu": 1e6 * cpu / s["rock_steps"],
            "summary": s,
        }
    threads = args.threads or get_threads()
    print(
        f"{args.rocks} EOTA221 rocks (780 kg) on slope40, seed {args.seed}, dt 0.002 s, "
        f"{threads} threads on {os.cpu_count()} cores, Gauss-Seidel tolerance {args.pgs_tol:g}"
    )
    print(
        f"{'':<10}{'wall s':>9}{'CPU s':>9}{'rock-steps':>12}{'M steps/s':>11}{'us/step CPU':>13}"
    )
    for scheme, r in results.items():
        print(
            f"{scheme:<10}{r['wall_time_s']:9.2f}{r['cpu_time_s']:9.2f}{r['rock_steps']:12d}"
            f"{r['rock_steps_per_s'] / 1e6:11.3f}{r['us_per_rock_step_cpu']:13.3f}"
        )
    e, i = results["explicit"], results["implicit"]
    wall_ratio = i["wall_time_s"] / e["wall_time_s"]
    step_ratio = i["us_per_rock_step_cpu"] / e["us_per_rock_step_cpu"]
    print(f"implicit/explicit: wall time {wall_ratio:.2f}, CPU time per rock-step {step_ratio:.2f}")
    print("(RAMMS, Leine et al. 2021 Table 1: 74.3 s and 161.5 s, ratio 2.17)")
    print()
    print("mean +- std over the path samples (seed 000, Table 2 beside)")
    print(f"{'':<26}{'explicit':>18}{'published':>18}{'implicit':>18}{'published':>18}")
    for name in STATISTICS:
        cells = []
        for scheme in ("explicit", "implicit"):
            path = results[scheme]["summary"][name]["path"]
            mean, std = PUBLISHED_SLOPE40[scheme][name]
            cells += [f"{path['mean']:.2f} +- {path['std']:.2f}", f"{mean:.2f} +- {std:.2f}"]
        print(f"{name:<26}" + "".join(f"{c:>18}" for c in cells))
    for scheme in ("explicit", "implicit"):
        s = results[scheme]["summary"]
        f = s["fractions"]
        print(
            f"{scheme}: run-out {s['runout_m']['mean']:.1f} +- {s['runout_m']['std']:.1f} m "
            f"(p95 {s['runout_m']['p95']:.1f}), lateral spread std "
            f"{s['lateral_spread_m']['std']:.1f} m; stopped {f['stopped']:.1%}, left the DEM "
            f"{f['left_domain']:.1%}, timed out {f['timed_out']:.1%}, failed {f['failed']:.1%}; "
            f"Gauss-Seidel cap hits {s['pgs_cap_hits']}"
        )
    profile = None
    if args.profile_rocks > 0:
        print()
        print("where a rock-step's time goes (benchmarks/contact_step.py):")
        profile = step_profile(args.profile_rocks, "implicit", args.seed)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(
                {
                    "wall_ratio": wall_ratio,
                    "step_ratio": step_ratio,
                    "threads": threads,
                    "profile_ns": profile,
                    **results,
                },
                handle,
                indent=2,
            )


if __name__ == "__main__":
    main()
