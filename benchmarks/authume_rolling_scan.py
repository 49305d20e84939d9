"""How well a profile of the Authume tests fixes the rolling resistance of the hard zones.

Runs the stored calibrated set (:data:`tumble.validation.authume.CALIBRATED`) with the rolling
resistance ``mu_r`` of the Gray and Red zones set to each of ``--values``, for the release seeds
``0 .. --seeds - 1``, and prints per value: the calibration objective (run-out plus lateral
Wasserstein distance, m) as mean and standard error over the seeds and as the mean over the
first three seeds (those of the calibration), the number of seeds whose run-out passes the
two-sample KS test at 5 %, and the KS p-values. On P1 (the calibration profile) this is the
flatness of the calibration minimum in ``mu_r``; on P2 (held out) it is the sensitivity of the
held-out result.

``--scar-strength ME`` (kN/m^2) adds the scar layer of Lu et al. 2019 (``scar_strength`` ME,
``scar_cs`` ``--scar-cs``, default 1.5) to every zone: whether the Authume tests agree with the
category ``medium`` (Me = 15 000 kN/m^2).

Run from the repository root:

    PYTHONPATH=src python benchmarks/authume_rolling_scan.py [--profile p1] [--seeds 10]
        [--values 0.1,0.125,0.15,0.175,0.2] [--scheme implicit] [--workers 2]
        [--scar-strength 15000 [--scar-cs 1.5]]
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from tumble.validation import authume
from tumble.validation.authume import soils


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", choices=authume.PROFILES, default="p1")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--values", default="0.1,0.125,0.15,0.175,0.2")
    parser.add_argument("--scheme", choices=("implicit", "explicit"), default="implicit")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scar-strength", type=float, default=0.0)
    parser.add_argument("--scar-cs", type=float, default=1.5)
    args = parser.parse_args()
    if args.scar_strength > 0.0:
        # every zone row starts from the base friction (SoilParameters.table)
        soils.BASE_FRICTION["scar_strength"] = args.scar_strength
        soils.BASE_FRICTION["scar_cs"] = args.scar_cs
    values = [float(v) for v in args.values.split(",")]
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (the standard error needs two)")
    measured = authume.measured_endpoints(args.profile)
    print(
        f"{args.profile.upper()} {args.scheme}, {authume.CALIBRATED.as_dict()} with mu_r varied, "
        f"scar layer Me {args.scar_strength:g} kN/m^2, seeds 0-{args.seeds - 1}"
    )
    for value in values:
        parameters = dataclasses.replace(authume.CALIBRATED, rolling_resistance=value)
        objective, pvalues = [], []
        for seed in range(args.seeds):
            run = authume.run_profile(
                args.profile, parameters, args.scheme, seed=seed, workers=args.workers
            )
            metrics = authume.profile_metrics(run, measured)
            objective.append(metrics["runout_wasserstein_m"] + metrics["lateral_wasserstein_m"])
            pvalues.append(metrics["ks_pvalue"])
        obj = np.array(objective)
        passed = sum(p >= 0.05 for p in pvalues)
        print(
            f"mu_r {value:5.3f}: objective {obj.mean():.2f} +- "
            f"{obj.std(ddof=1) / np.sqrt(obj.size):.2f} m (seeds 0-2: {obj[:3].mean():.2f} m), "
            f"KS p >= 0.05 in {passed}/{obj.size}, p {np.round(pvalues, 3).tolist()}",
            flush=True,
        )


if __name__ == "__main__":
    main()
