"""Energy-line (reach) angles of a run folder: ``atan(drop / horizontal distance)`` from the
release of each rock (its centre of mass) to where it stopped, over the stopped rocks, with the
share of rocks that left the DEM (their final angle is lower than at the exit, so the stopped
rocks' low percentiles are an upper bound of the whole ensemble's).

    PYTHONPATH=src python benchmarks/reach_angles.py RUN_FOLDER [RUN_FOLDER ...]
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np


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
    args = parser.parse_args()
    for folder in args.folders:
        a, n, left = reach_angles(folder)
        p1, p5, p50 = np.percentile(a, (1, 5, 50))
        print(
            f"{folder}: {n} rocks, {a.size} stopped, {left} left the DEM; energy-line angle of "
            f"the stopped: min {a.min():.1f}, p1 {p1:.1f}, p5 {p5:.1f}, median {p50:.1f} deg"
        )


if __name__ == "__main__":
    main()
