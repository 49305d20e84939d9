"""Scale of a run: peak memory, size of the result folder, and the time after the simulation.

Runs ``tumble rockfall run`` in a subprocess and prints

* its peak memory (``ru_maxrss`` of the finished child, the resident set at its largest);
* the size of the result folder with the chunk files kept (``--keep-chunks``: the most a run
  holds on disk) and without them (what a run leaves by default);
* the wall time of the simulation (``provenance.json``: ``timings_s.simulation_s``) and the
  time after it (reduction, rasters, figures, report: the child's wall time less set-up,
  compilation and simulation), and their ratio.

Workloads, each with its goal and PASS or FAIL against it (figures from one run; the machine is
shared, so times are noisy and peaks are what to trust):

* ``ensemble`` (default): slope40, ``--rocks`` EOTA221 rocks of 780 kg (the default release),
  ``--t-max`` s each. Goals of 100 000 rocks with t_max 10 s: peak <= 1.5 GB, folder <= 200 MB,
  time after the simulation <= 30 % of it.
* ``terrain``: a synthetic ``--size`` x ``--size`` DEM of 1 m cells (a 35 degree slope over
  60 % of it, then flat, with waves across; written as a float32 GeoTIFF to a temporary folder),
  ``--rocks`` rocks released near its top, figures and maps written. Goal for 8000 x 8000 with
  200 rocks and the default t_max (rocks run about 3.4 km): peak <= 2.5 GB, figures and report
  written.
* ``million``: slope40, 10^6 rocks, t_max 0.1 s: set-up and write-out (wall time less the
  simulation) <= 20 s, peak <= 3 GB; ``--dask local:2`` runs it on a local Dask cluster.
  Last measured (docs/performance.md, fourth pass; beside the tree before it at a load of 6
  to 7): 89.4 s beyond the simulation against 101.8 s, peak 1.28 against 1.68 GB (FAIL, PASS).
* ``site``: the example site (``examples/site/make_site.py``) on 0.4 m cells, a 1001 x 501 DEM,
  800 rocks, run twice; the second (warm) run: wall time beyond the simulation <= 30 % of the
  simulation + 5 s.

    python benchmarks/scale.py --rocks 100000 --t-max 10
    python benchmarks/scale.py --workload terrain --size 8000 --rocks 200 --t-max 0
    python benchmarks/scale.py --workload million
    python benchmarks/scale.py --workload million --dask local:2
    python benchmarks/scale.py --workload site

``--t-max 0`` keeps the default t_max of the run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
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


def site_config(folder: Path) -> Path:
    """The example site of ``examples/site`` on a 1001 x 501 DEM of 0.4 m cells in ``folder``;
    returns its ``site.toml``."""
    import importlib.util

    here = Path(__file__).resolve().parent.parent / "examples" / "site"
    spec = importlib.util.spec_from_file_location("make_site", here / "make_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_site(folder, spacing=0.4, length=400.0)
    shutil.copy(here / "site.toml", folder / "site.toml")
    return folder / "site.toml"


def run_once(command: list[str], out: Path) -> dict[str, float]:
    """Wall time, peak memory (``ru_maxrss`` of the child) and the provenance's timings of one
    ``tumble rockfall run``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=os.environ.copy())
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"the run failed (status {status}): {' '.join(command)}")
    provenance = json.loads((out / "provenance.json").read_text())
    timings = provenance["timings_s"]
    compile_s = sum(s.get("compile_s", 0.0) for s in provenance.get("sessions", []))
    return {
        "wall": wall,
        "peak": usage.ru_maxrss * 1024.0,  # kB on Linux
        "setup": timings["setup_s"],
        "compile": compile_s,
        "simulation": timings["simulation_s"],
    }


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workload", choices=("ensemble", "terrain", "million", "site"), default="ensemble"
    )
    parser.add_argument("--rocks", type=int, default=None)
    parser.add_argument("--t-max", type=float, default=None, help="0: the run's default")
    parser.add_argument("--size", type=int, default=8000, help="DEM side, cells (terrain)")
    parser.add_argument("--chunk-size", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--dask", default=None, help="Dask scheduler, e.g. local:2")
    parser.add_argument("--out", help="result folder (default: a temporary one, removed)")
    args = parser.parse_args()
    rocks = args.rocks or {"million": 1_000_000, "site": 800, "terrain": 200}.get(
        args.workload, 10_000
    )
    defaults = {"million": 0.1, "ensemble": 10.0}  # terrain and site: the run's own t_max
    t_max = args.t_max if args.t_max is not None else defaults.get(args.workload, 0.0)

    scratch = Path(tempfile.mkdtemp(prefix="tumble-scale-"))
    out = Path(args.out) if args.out else scratch / "run"
    command = [sys.executable, "-m", "tumble.cli.main", "rockfall", "run"]
    if args.workload == "site":
        command += ["--config", str(site_config(scratch / "site")), f"rocks={rocks}"]
    else:
        command += ["--rocks", str(rocks), "--seed", "1"]
    if t_max > 0.0:
        command += ["--t-max", str(t_max)]
    command += ["--keep-chunks", "--quiet", "--force", "--out", str(out)]
    if args.chunk_size:
        command += ["--chunk-size", str(args.chunk_size)]
    if args.threads:
        command += ["--threads", str(args.threads)]
    if args.dask:
        command += ["--dask", args.dask]
    if args.workload == "terrain":
        dem = scratch / "dem.tif"
        x, y = synthetic_dem(dem, args.size)
        command += ["--dem", str(dem), "--release", f"{x},{y}"]
    try:
        runs = [run_once(command, out)]
        if args.workload == "site":
            runs.append(run_once(command, out))  # the second, warm run
        figures = sorted(p.name for p in (out / "figures").glob("*.png"))
        report = (out / "report.html").is_file()
        with_chunks = folder_size(out)
        shutil.rmtree(out / "chunks", ignore_errors=True)
        without = folder_size(out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    run = runs[-1]
    simulation, wall, peak = run["simulation"], run["wall"], run["peak"]
    after = wall - run["setup"] - run["compile"] - simulation
    beyond = wall - simulation
    what = {
        "ensemble": f"slope40, {rocks} rocks",
        "million": f"slope40, {rocks} rocks",
        "terrain": f"{args.size} x {args.size} DEM, {rocks} rocks",
        "site": f"example site on 1001 x 501 cells, {rocks} rocks, second run",
    }[args.workload]
    limit = f"t_max {t_max:g} s" if t_max > 0.0 else "default t_max"
    print(f"{what}, {limit}, chunk size {args.chunk_size or 'default'}, dask {args.dask}")
    print(f"peak memory                 {peak / 1e9:8.3f} GB")
    print(f"result folder with chunks   {with_chunks / 1e6:8.1f} MB")
    print(f"result folder (default)     {without / 1e6:8.1f} MB")
    print(f"figures, report             {len(figures)} PNG, report.html {verdict(report)}")
    print(f"set-up (before the chunks)  {run['setup']:8.1f} s")
    print(f"simulation                  {simulation:8.1f} s")
    print(f"after the simulation        {after:8.1f} s ({100 * after / simulation:.1f} %)")
    print(f"wall less the simulation    {beyond:8.1f} s")
    print(f"whole run (wall)            {wall:8.1f} s")
    if args.workload == "terrain":
        ok = peak <= 2.5e9 and report and bool(figures)
        print(f"goal: peak <= 2.5 GB, figures and report written: {verdict(ok)}")
    elif args.workload == "million":
        print(f"goal: wall less the simulation <= 20 s: {verdict(beyond <= 20.0)}")
        print(f"goal: peak <= 3 GB: {verdict(peak <= 3e9)}")
    elif args.workload == "site":
        goal = 0.3 * simulation + 5.0
        print(f"goal: wall beyond the simulation <= {goal:.1f} s: {verdict(beyond <= goal)}")
    else:
        print(f"goal (10^5 rocks): peak <= 1.5 GB: {verdict(peak <= 1.5e9)}")
        print(f"goal: folder <= 200 MB: {verdict(without <= 200e6)}")
        print(f"goal: after the simulation <= 30 %: {verdict(after <= 0.3 * simulation)}")


if __name__ == "__main__":
    main()
