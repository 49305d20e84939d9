"""The Authume prediction with the calibration's uncertainty carried along.

The calibration leaves several parameter sets that its profiles cannot tell from the best
(:data:`tumble.validation.authume.CALIBRATION_EQUIVALENT`, the best first: the first stage's
points on P1, each with each of the second stage's values of the rocky zone's ``mu_r`` on P2).
This script runs the releases of a profile once per set, each rock with one of the sets drawn
from its own soil stream (the general path of ``soil.uncertainty = "sets"``:
``run_profile(..., sets=..., repeat=len(sets))``), then prints per release seed the scores
against the measured stop points (KS statistic and p-value of the run-out, run-out Wasserstein
distance, measured blocks inside the 95 % envelope, the simulated 5 % quantile of the run-out
against half the measured one (early stops), the share past 65 m), each set's own KS p-value
over its rocks, and whether the seed passes: KS p >= 0.05, the 5 % quantile above the
early-stop limit, and on P2 at least 80 % of the measured blocks inside.

With ``--uncertainty category`` each rock instead draws the soil strength ``Me`` of the scar
layer on the soil zone uniformly from the spread of the catalogue's category ``medium``, and the
rocky zone's ``mu_r`` from that of ``authume_rocky`` (``soil.uncertainty = "category"``), the
other numbers at the calibrated set (``run_profile(..., spread=..., repeat=4)``).

Run from the repository root:

    PYTHONPATH=src python benchmarks/authume_equivalent_sets.py [--profile p2] [--seeds 5]
        [--scheme implicit] [--rocks 256] [--workers 2] [--uncertainty sets|category]
"""

from __future__ import annotations

import argparse

import numpy as np

from tumble.validation import authume


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", choices=authume.PROFILES, default="p2")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--scheme", choices=("implicit", "explicit"), default="implicit")
    parser.add_argument("--rocks", type=int, default=authume.ROCKS_PER_PROFILE)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--uncertainty", choices=("sets", "category"), default="sets")
    parser.add_argument(
        "--repeat", type=int, default=authume.CATEGORY_REPEAT, help="repetitions of the releases"
    )
    args = parser.parse_args()
    category = args.uncertainty == "category"
    sets = (authume.CALIBRATED,) if category else authume.CALIBRATION_EQUIVALENT
    # medium's spread on the soil zone, the rocky category's on the Red zone
    spread = authume.category_spread() if category else None
    measured = authume.measured_endpoints(args.profile)
    observed = authume.profile_coordinates(args.profile, measured.position)
    half_p05 = 0.5 * np.quantile(observed[:, 0], 0.05)
    print(f"{args.profile.upper()} {args.scheme}, {args.rocks} rocks per set, sets:")
    for parameters in sets:
        print(f"  {parameters.as_dict()}")
    if category:
        print(f"  each rock draws uniformly {spread} (repeat {args.repeat})")
    passed = 0
    for seed in range(args.seeds):
        run = authume.run_profile(
            args.profile,
            sets[0],
            args.scheme,
            n=args.rocks,
            seed=seed,
            workers=args.workers,
            sets=() if category else sets,
            repeat=args.repeat if category else len(sets),
            spread=spread,
        )
        ok = run.regular
        coords = run.coordinates[ok]
        d, p = authume.kolmogorov_smirnov(observed[:, 0], coords[:, 0])
        inside = authume.fraction_inside(
            authume.stop_envelope(run.stop[ok, :2]), measured.position[:, :2]
        )
        if category:
            # the KS p-value of the rocks in each third of the drawn range
            assert spread is not None
            low, high = spread["scar_strength"]
            drawn = run.drawn["scar_strength"]
            third = np.minimum((3 * (drawn - low) / (high - low)).astype(int), 2)
        else:
            assert run.soil_set is not None
            third = run.soil_set
        groups = 3 if category else len(sets)
        single = [
            authume.kolmogorov_smirnov(observed[:, 0], run.coordinates[ok & (third == i), 0])[1]
            for i in range(groups)
        ]
        p05 = float(np.quantile(coords[:, 0], 0.05))
        good = p >= 0.05 and p05 >= half_p05 and (args.profile == "p1" or inside >= 0.8)
        passed += good
        print(
            f"seed {seed}: n = {coords.shape[0]}  KS D {d:.3f} p {p:.3f}  "
            f"W {authume.wasserstein(observed[:, 0], coords[:, 0]):.2f} m  inside {inside:.2f}  "
            f"p05 {p05:.1f} m (limit {half_p05:.1f})  "
            f"past 65 m {np.mean(coords[:, 0] > 65):.2f}  rocks per "
            f"{'third of the range' if category else 'set'} "
            f"{np.bincount(third, minlength=groups).tolist()}  KS p of each "
            f"{np.round(single, 3).tolist()}  {'pass' if good else 'FAIL'}",
            flush=True,
        )
    print(f"passes in {passed}/{args.seeds} seeds")


if __name__ == "__main__":
    main()
