"""Where on the platforms the Authume blocks stop: at a lip, against a rise, or on the flat.

For each profile, the measured stop points and those of one simulated run with the stored
calibrated parameters (:data:`tumble.validation.authume.CALIBRATED`) are classified by the
terrain ahead of them, along the profile's direction ``d``: a **lip** when the terrain 2 m ahead
lies more than 1 m lower (the block rests at the edge of a drop), **against a rise** when the
terrain rises by more than 0.1 m within 3 m ahead (1, 2 and 3 m), and the share of each class is
printed with the share of stops in the run-out windows of the platforms' outer edges (P1 bench
edge 37.5-41 m, P2 platform edge 54-58 m). Heights are those of the 0.5 m DEM of
:func:`tumble.validation.authume.authume_terrain`.

Run from the repository root:

    PYTHONPATH=src python benchmarks/authume_edges.py [--rocks 256] [--seed 0] [--scheme implicit]
"""

from __future__ import annotations

import argparse

import numpy as np

from tumble.validation import authume

#: Run-out window (m) of each profile's outer platform edge, where many measured blocks stop.
EDGE_WINDOW = {"p1": (37.5, 41.0), "p2": (54.0, 58.0)}


def classify(terrain, direction: np.ndarray, xy: np.ndarray) -> dict[str, float]:
    """Shares of stop points ``xy`` (n, 2) at a lip and against a rise, looking along
    ``direction`` (2,)."""

    def height(points: np.ndarray) -> np.ndarray:
        return terrain.height(points[:, 0], points[:, 1])

    here = height(xy)
    drop = height(xy + 2.0 * direction) - here
    rise = np.max([height(xy + k * direction) - here for k in (1.0, 2.0, 3.0)], axis=0)
    return {"lip": float(np.mean(drop < -1.0)), "rise": float(np.mean(rise > 0.1))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rocks", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scheme", choices=("implicit", "explicit"), default="implicit")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    terrain = authume.authume_terrain()
    print(f"parameters {authume.CALIBRATED.as_dict()}, {args.scheme}, seed {args.seed}")
    for profile in authume.PROFILES:
        direction = authume.profile_geometry(profile).direction
        measured = authume.measured_endpoints(profile).position[:, :2]
        run = authume.run_profile(
            profile,
            authume.CALIBRATED,
            args.scheme,
            n=args.rocks,
            seed=args.seed,
            workers=args.workers,
        )
        lo, hi = EDGE_WINDOW[profile]
        for name, xy in (("measured", measured), ("simulated", run.stop[run.regular, :2])):
            shares = classify(terrain, direction, xy)
            along = authume.profile_coordinates(profile, xy)[:, 0]
            edge = float(np.mean((along >= lo) & (along < hi)))
            print(
                f"{profile.upper()} {name:<9} n={len(xy):4d}  at a lip {100 * shares['lip']:3.0f} %"
                f"  against a rise {100 * shares['rise']:3.0f} %"
                f"  within {lo:g}-{hi:g} m {100 * edge:3.0f} %"
            )


if __name__ == "__main__":
    main()
