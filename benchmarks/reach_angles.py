"""Energy-line (reach) angles of a run folder: ``atan(drop / horizontal distance)`` from the
release of each rock (its centre of mass) to where it stopped, over the stopped rocks, with the
share of rocks that left the DEM (their final angle is lower than at the exit, so the stopped
rocks' low percentiles are an upper bound of the whole ensemble's).

    PYTHONPATH=src python benchmarks/reach_angles.py RUN_FOLDER [RUN_FOLDER ...] \
        [--plot FILE.png --labels "A" "B" ...]

``--plot`` draws the cumulative share of the stopped rocks below each angle, one curve a folder,
beside the lowest reach angles of the field inventories (Evans & Hungr 1993: minimum shadow
angle 27.5 deg; Onofri & Candian 1979: energy-line angle 28.3 deg) and the 1 % level of the
acceptance.
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np

from tumble.rockfall.hazard.energy_line import LOWEST_OBSERVED_DEG


def reach_angles(folder: Path) -> tuple[np.ndarray, int, int]:
    """``(angles of the stopped rocks in degrees, rocks, rocks that left the DEM)``."""
    with open(folder / "deposits.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    angles = []
    for r in rows:
        if r["status"] != "stopped":
            continue
        drop = float(r["release_z"]) - float(r["z"])
        run = math.hypot(
            float(r["x"]) - float(r["release_x"]), float(r["y"]) - float(r["release_y"])
        )
        angles.append(math.degrees(math.atan2(drop, run)))
    left = sum(r["status"] == "left_domain" for r in rows)
    return np.array(angles), len(rows), left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--plot", type=Path, help="draw the angles' distributions into FILE.png")
    parser.add_argument("--labels", nargs="+", help="one label a folder for --plot")
    args = parser.parse_args()
    if args.labels is not None and len(args.labels) != len(args.folders):
        parser.error(f"--labels needs one label a folder ({len(args.folders)})")
    for folder in args.folders:
        if not (folder / "deposits.csv").is_file():
            parser.error(f"{folder} holds no deposits.csv: not the folder of a finished run")
    runs = [reach_angles(folder) for folder in args.folders]
    for folder, (a, n, left) in zip(args.folders, runs, strict=True):
        p1, p5, p50 = np.percentile(a, (1, 5, 50))
        print(
            f"{folder}: {n} rocks, {a.size} stopped, {left} left the DEM; energy-line angle of "
            f"the stopped: min {a.min():.1f}, p1 {p1:.1f}, p5 {p5:.1f}, median {p50:.1f} deg"
        )
    if args.plot:
        labels = args.labels or [f.name for f in args.folders]
        plot([(a, left) for a, _, left in runs], labels, args.plot)
        print(f"wrote {args.plot}")


def plot(runs: list[tuple[np.ndarray, int]], labels: list[str], path: Path) -> None:
    """The cumulative share of each run's stopped rocks below each energy-line angle; ``runs``:
    the angles of the stopped rocks and the number that left the DEM, per run
    (:func:`reach_angles`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for (angles, left), label in zip(runs, labels, strict=True):
        a = np.sort(angles)
        share = np.arange(1, a.size + 1) / a.size
        p1 = np.percentile(a, 1)
        ax.step(a, share, where="post", label=f"{label} (p1 {p1:.1f} deg, {left} left the DEM)")
    lowest = f"{LOWEST_OBSERVED_DEG} deg: minimum shadow angle, Evans & Hungr 1993"
    ax.axvline(LOWEST_OBSERVED_DEG, color="k", lw=1.2, label=lowest)
    ax.axvline(28.3, color="k", ls="--", lw=1.0, label="28.3 deg: Onofri & Candian 1979")
    ax.axhline(0.01, color="grey", ls=":", lw=1.0, label="1 % of the stopped rocks")
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 1.0)
    ax.set_xlim(18.0, 45.0)
    ax.set_xlabel("energy-line angle from release to stop (deg)")
    ax.set_ylabel("share of the stopped rocks below the angle")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="lower right", framealpha=0.95)
    ax.set_title("Reach on the real site (Land Tirol DEM, 5 m), 1000 rocks a run", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
