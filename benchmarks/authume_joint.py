"""The Authume zones calibrated on P1 and P2 together: the multi-site objective of
``docs/calibration_objective.md`` on a grid around the two-stage calibration.

The two-stage calibration (:data:`tumble.validation.authume.CALIBRATED`) fitted P1 first and the
Red zone's rolling resistance on P2 second; over the release seeds 0-4 its run-outs pass the KS
test (p >= 0.05) in 3 of 5 seeds on each profile. This script scores each point of a grid of
the fields that both profiles see (the Blue zone's vegetation drag, crossed by every block of
both profiles) and the Red zone's rolling resistance (P2 only) with

    J = W1(P1) / median(P1) + W1(P2) / median(P2)

(``W1`` the Wasserstein-1 distance of the simulated to the measured run-outs, the mean over the
screening seeds; ``median`` the measured median run-out), every other field at the two-stage
values, 256 rocks per profile and seed, implicit. It prints every point's ``J`` and KS p-values,
picks the point of least ``J`` among those that pass the KS test in at least 4 of the screening
seeds on both profiles, and runs it, with the two-stage point beside it, on the verification
seeds (never used to choose).

    PYTHONPATH=src python benchmarks/authume_joint.py [--drag 500,560,620,700]
        [--rocky 0.17,0.2] [--seeds 0,1,2,3,4] [--verify 5,6,7,8,9] [--json FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np

from tumble.validation.authume import CALIBRATED, measured_endpoints, profile_metrics, run_profile

PROFILES = ("P1", "P2")
ROCKS = 256
KS_LEVEL = 0.05


def score(drag: float, rocky: float, seeds: list[int]) -> dict:
    """J, the KS p-values and the medians of one point over ``seeds``."""
    parameters = dataclasses.replace(
        CALIBRATED, vegetation_drag=drag, rocky_rolling_resistance=rocky
    )
    row: dict = {"vegetation_drag": drag, "rocky_rolling_resistance": rocky, "seeds": seeds}
    j = 0.0
    for profile in PROFILES:
        measured = measured_endpoints(profile)
        metrics = [
            profile_metrics(run_profile(profile, parameters, n=ROCKS, seed=s), measured)
            for s in seeds
        ]
        ks = [m["ks_pvalue"] for m in metrics]
        w1 = float(np.mean([m["runout_wasserstein_m"] for m in metrics]))
        j += w1 / metrics[0]["median_runout_measured_m"]
        row[profile] = {
            "ks_pvalue": ks,
            "passes": sum(p >= KS_LEVEL for p in ks),
            "wasserstein_m": w1,
            "median_m": [m["median_runout_simulated_m"] for m in metrics],
            "inside": [m["fraction_measured_inside_envelope"] for m in metrics],
        }
    row["J"] = j
    return row


def line(row: dict) -> str:
    p1, p2 = row["P1"], row["P2"]
    return (
        f"| {row['vegetation_drag']:g} | {row['rocky_rolling_resistance']:g} | {row['J']:.4f} "
        f"| {p1['passes']}/{len(row['seeds'])} ({min(p1['ks_pvalue']):.3f}) "
        f"| {p2['passes']}/{len(row['seeds'])} ({min(p2['ks_pvalue']):.3f}) "
        f"| {min(p2['inside']):.0%} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drag", default="500,560,620,700")
    parser.add_argument("--rocky", default="0.17,0.2")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--verify", default="5,6,7,8,9")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    verify = [int(s) for s in args.verify.split(",")]
    header = (
        "| vegetation drag (kg/s) | Red zone mu_r | J | P1 KS passes (least p) "
        "| P2 KS passes (least p) | P2 inside (least) |\n|---|---|---|---|---|---|"
    )
    print(f"screening, seeds {args.seeds}\n{header}", flush=True)
    rows = []
    for drag in (float(d) for d in args.drag.split(",")):
        for rocky in (float(r) for r in args.rocky.split(",")):
            rows.append(score(drag, rocky, seeds))
            print(line(rows[-1]), flush=True)
    need = 4 * len(seeds) / 5
    eligible = [r for r in rows if r["P1"]["passes"] >= need and r["P2"]["passes"] >= need]
    if not eligible:
        print("no point passes both profiles in 4 of 5 screening seeds")
        return
    best = min(eligible, key=lambda r: r["J"])
    two_stage = (CALIBRATED.vegetation_drag, CALIBRATED.rocky_mu_r)
    print(f"\nchosen: drag {best['vegetation_drag']:g}, mu_r {best['rocky_rolling_resistance']:g}")
    print(f"verification, seeds {args.verify}\n{header}", flush=True)
    checked = [score(best["vegetation_drag"], best["rocky_rolling_resistance"], verify)]
    print(line(checked[-1]), flush=True)
    checked.append(score(*two_stage, verify))
    print(line(checked[-1]) + " (two-stage)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"screening": rows, "chosen": best, "verification": checked}, f, indent=1)


if __name__ == "__main__":
    main()
