"""The discrete element trajectories published with the Authume data, scored per block shape.

Prints, per profile, the scores of the published Rockable end points
(:mod:`tumble.validation.authume.reference`) against the measured stop points: all 1024
trajectories and each block shape alone (KS statistic and p-value of the run-out, run-out
Wasserstein distance, measured blocks inside the 95 % envelope, run-out quantiles, the share
past 65 m and the trajectories still moving when they end).

With ``--extract DIR`` it first rebuilds the end-point table of the data directory from the
folder ``SIM_Trajectories`` of a copy of the data repository
(github.com/richefeu/AuthumeQuarryRockfalls_Data-in-Brief).

Run from the repository root:

    PYTHONPATH=src python benchmarks/authume_rockable.py [--extract PATH/SIM_Trajectories]
"""

from __future__ import annotations

import argparse

import numpy as np

from tumble.validation import authume


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--extract", help="the SIM_Trajectories folder to rebuild the table from")
    parser.add_argument(
        "--data-dir",
        help="the Authume data directory (default: $TUMBLE_AUTHUME_DATA, else the package's copy)",
    )
    args = parser.parse_args()
    if args.extract:
        out = authume.reference_file(args.data_dir)
        rows = authume.extract_reference_endpoints(args.extract, out)
        print(f"wrote {rows} end points to {out}")
    for profile in authume.PROFILES:
        reference = authume.reference_endpoints(profile, args.data_dir)
        if reference is None:
            raise SystemExit(f"no end-point table {authume.reference_file(args.data_dir)}")
        measured = authume.measured_endpoints(profile, args.data_dir)
        observed = authume.profile_coordinates(profile, measured.position, args.data_dir)
        coords = authume.profile_coordinates(profile, reference.position, args.data_dir)
        print(
            f"{profile.upper()}: measured n = {observed.shape[0]}, run-out quantiles 5/25/50/75/95 "
            f"% {np.round(np.quantile(observed[:, 0], [0.05, 0.25, 0.5, 0.75, 0.95]), 1)}, "
            f"past 65 m {np.mean(observed[:, 0] > 65):.2f}"
        )
        groups = [("all", np.ones(coords.shape[0], bool))]
        groups += [(name, reference.shape == name) for name in authume.BLOCK_NAMES]
        for name, rows in groups:
            runout = coords[rows, 0]
            d, p = authume.kolmogorov_smirnov(observed[:, 0], runout)
            envelope = authume.stop_envelope(reference.position[rows, :2])
            inside = authume.fraction_inside(envelope, measured.position[:, :2])
            q = np.quantile(runout, [0.05, 0.25, 0.5, 0.75, 0.95])
            print(
                f"  {name:<5} n = {rows.sum():4d}  KS D {d:.3f} p {p:.2g}  "
                f"W {authume.wasserstein(observed[:, 0], runout):5.2f} m  inside {inside:.2f}  "
                f"quantiles {np.round(q, 1)}  past 65 m {np.mean(runout > 65):.2f}  "
                f"moving {int(reference.moving[rows].sum())}"
            )


if __name__ == "__main__":
    main()
