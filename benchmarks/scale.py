"""Scale of a run: peak memory, size of the result folder, and the time after the simulation.

Runs ``tumble rockfall run`` in a subprocess and prints

* its peak memory (``ru_maxrss`` of the finished child, the resident set at its largest);
* the size of the result folder with the chunk files kept (``--keep-chunks``: the most a run
  holds on disk) and without them (what a run leaves by default);
* the wall time of the simulation (``provenance.json``: ``timings_s.simulation_s``) and the
  time after it (reduction, rasters, figures, report: the child's wall time less set-up,
  compilation and simulation), and their ratio.

Two workloads:

* ``ensemble`` (default): slope40, ``--rocks`` EOTA221 rocks of 780 kg (the default release),
  ``--t-max`` s each. Goals of 100 000 rocks with t_max 10 s: peak <= 1.5 GB, folder <= 200 MB,
  time after the simulation <= 30 % of it.
* ``terrain``: a synthetic ``--size`` x ``--size`` DEM of 1 m cells (a 35 degree slope over
  60 % of it, then flat, with waves across; written as a float32 GeoTIFF to a temporary folder),
  ``--rocks`` rocks released near its top, figures and maps written. Goal for 8000 x 8000 with
  200 rocks: peak <= 2.5 GB.

    python benchmarks/scale.py --rocks 100000 --t-max 10
    python benchmarks/scale.py --workload terrain --size 8000 --rocks 200 --t-max 30
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def synthetic_dem(path: Path, size: int) -> tuple[float, float]:
    """Write the DEM of the ``terrain`` workload; returns its release point (x, y)."""
    import numpy as np

    from tumble.io.dem import write_raster

    x = np.arange(size, dtype=np.float32)
    y = np.arange(size, dtype=np.float32)
    slope = np.maximum(0.6 * size - x, 0.0) * np.float32(math.tan(math.radians(35.0)))
    heights = (slope[None, :] + 2.0 * np.sin(y[:, None] / 37.0)).astype(np.float32)
    x0, y0 = 2_600_000.0, 1_200_000.0
    write_raster(path, heights, x0, y0, 1.0, 1.0, crs="EPSG:2056", dtype="float32")
    return x0 + 0.125 * size, y0 + 0.5 * size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("ensemble", "terrain"), default="ensemble")
    parser.add_argument("--rocks", type=int, default=10_000)
    parser.add_argument("--t-max", type=float, default=10.0)
    parser.add_argument("--size", type=int, default=8000, help="DEM side, cells (terrain)")
    parser.add_argument("--chunk-size", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", help="result folder (default: a temporary one, removed)")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="tumble-scale-"))
    out = Path(args.out) if args.out else scratch / "run"
    command = [sys.executable, "-m", "tumble.cli.main", "rockfall", "run"]
    command += ["--rocks", str(args.rocks), "--t-max", str(args.t_max), "--seed", "1"]
    command += ["--keep-chunks", "--quiet", "--force", "--out", str(out)]
    if args.chunk_size:
        command += ["--chunk-size", str(args.chunk_size)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.workload == "terrain":
        dem = scratch / "dem.tif"
        x, y = synthetic_dem(dem, args.size)
        command += ["--dem", str(dem), "--release", f"{x},{y}"]
    try:
        start = time.perf_counter()
        subprocess.run(command, check=True, env=os.environ.copy())
        wall = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kB on Linux
        provenance = json.loads((out / "provenance.json").read_text())
        timings = provenance["timings_s"]
        compile_s = sum(s.get("compile_s", 0.0) for s in provenance.get("sessions", []))
        simulation = timings["simulation_s"]
        after = wall - timings["setup_s"] - compile_s - simulation
        with_chunks = folder_size(out)
        shutil.rmtree(out / "chunks", ignore_errors=True)
        without = folder_size(out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    what = (
        f"slope40, {args.rocks} rocks"
        if args.workload == "ensemble"
        else f"{args.size} x {args.size} DEM, {args.rocks} rocks"
    )
    print(f"{what}, t_max {args.t_max:g} s, chunk size {args.chunk_size or 'default'}")
    print(f"peak memory                 {peak / 1e9:8.3f} GB")
    print(f"result folder with chunks   {with_chunks / 1e6:8.1f} MB")
    print(f"result folder (default)     {without / 1e6:8.1f} MB")
    print(f"simulation                  {simulation:8.1f} s")
    print(f"after the simulation        {after:8.1f} s ({100 * after / simulation:.1f} %)")
    print(f"whole run (wall)            {wall:8.1f} s")


if __name__ == "__main__":
    main()
