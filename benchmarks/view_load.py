"""How long the 3D view (``tumble view``) takes to load a 1000-rock run, and a 1e7-cell DEM.

    python benchmarks/view_load.py [RUN_DIR] [--dem-cells 1e7] [--no-browser]

Without RUN_DIR a 1000-rock slope40 run that keeps every rock's path (``output.trajectories=
1000``, the largest load the page can get from 1000 rocks) is made once in
``out/bench/view_1000``. Prints:

* the server's start: reading the folder and building the page's record (what happens before
  ``tumble view`` prints its address);
* each endpoint the page loads (FastAPI TestClient: time and bytes), and their sum;
* in Debian's Chromium, when present: from opening the page to the scene drawn and ready
  (``window.tumbleView.loadMs`` measured by the page, and the wall time seen by the driver);
* a run folder whose DEM has ``--dem-cells`` cells (a synthetic float32 COG) and one overlay:
  the time to read and decimate them, the vertices sent, and the page's load in Chromium.

The target is a page ready in under 3 s for the 1000-rock run on this machine.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RUN = ROOT / "out" / "bench" / "view_1000"
PAGE_LOADS = ["/api/run", "/api/terrain", "/api/trajectories", "/api/deposits"]


def make_run(out: Path) -> None:
    argv = [sys.executable, "-m", "tumble.cli.main", "rockfall", "run", "--scenario", "slope40"]
    argv += ["--rocks", "1000", "--seed", "1", "output.trajectories=1000", "--no-figures"]
    argv += ["--quiet", "--out", str(out)]
    print(f"making the run: {' '.join(argv[2:])}", flush=True)
    subprocess.run(argv, check=True)


def time_endpoints(run_dir: Path) -> float:
    from fastapi.testclient import TestClient

    from tumble.web.run_data import RunFolder
    from tumble.web.view import create_view_app

    start = time.perf_counter()
    folder = RunFolder(run_dir)
    app = create_view_app(folder, 8000)
    startup = time.perf_counter() - start
    meta = folder.meta()
    stored = len(meta["trajectories"]["rocks"])
    samples = meta["trajectories"]["n"]
    print(f"run: {run_dir} ({meta['n_rocks']} rocks, {stored} paths, {samples} samples)")
    print(f"server start (read the folder, build the record): {startup:.2f} s")
    total = 0.0
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        for path in [*PAGE_LOADS, f"/api/raster/{meta['rasters'][0]}"]:
            begin = time.perf_counter()
            response = client.get(path)
            took = time.perf_counter() - begin
            assert response.status_code == 200, path
            if path in PAGE_LOADS:
                total += took
            print(f"  GET {path:<36} {took * 1e3:8.1f} ms {len(response.content) / 1e6:8.2f} MB")
    print(f"endpoints of the page's first load: {total:.2f} s")
    return total


def time_browser(run_dir: Path) -> None:
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        print("browser: skipped (no /usr/bin/chromium)")
        return
    from playwright.sync_api import sync_playwright

    proc = subprocess.Popen(
        [sys.executable, "-m", "tumble.web.view", str(run_dir), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not match:
            print(f"browser: the server did not start: {line!r}")
            return
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader"]
        args.append("--enable-unsafe-swiftshader")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=args, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            begin = time.perf_counter()
            page.goto(match.group(0))
            page.wait_for_function(
                "window.tumbleView && (window.tumbleView.ready || window.tumbleView.error)",
                timeout=120_000,
            )
            wall = time.perf_counter() - begin
            error = page.evaluate("window.tumbleView.error")
            load_ms = page.evaluate("window.tumbleView.loadMs")
            browser.close()
        if error:
            print(f"browser: the page failed: {error}")
        else:
            print(
                f"browser (Chromium, software WebGL): page ready in {load_ms / 1e3:.2f} s "
                f"after its script started, {wall:.2f} s from opening the address"
            )
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def time_large_dem(run_dir: Path, cells: float, browser: bool) -> None:
    from tumble.io.dem import write_raster
    from tumble.web.run_data import RunFolder

    n = math.isqrt(int(cells))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        (folder / "rasters").mkdir(parents=True)
        for name in ("summary.json", "provenance.json", "deposits.csv", "trajectories.parquet"):
            shutil.copy(run_dir / name, folder / name)
        y, x = np.mgrid[0:n, 0:n].astype(np.float32)
        heights = 200.0 + 40.0 * np.sin(x / 300.0) * np.cos(y / 200.0) - 0.05 * x
        labels = {"dtype": "float32", "cog": True}
        write_raster(
            folder / "rasters" / "dem.tif",
            heights,
            0.0,
            0.0,
            0.5,
            0.5,
            **labels,
            description="terrain height",
            unit="m",
        )
        reach = np.where(np.abs(y - n / 2) < n / 8, np.exp(-x / n), np.nan)
        write_raster(
            folder / "rasters" / "reach_probability.tif",
            reach,
            0.0,
            0.0,
            0.5,
            0.5,
            **labels,
            description="a synthetic overlay",
            unit="1",
        )
        del heights, reach, x, y
        begin = time.perf_counter()
        run = RunFolder(folder)
        terrain = run.terrain()
        grid = run.terrain_grid()
        took = time.perf_counter() - begin
        print(
            f"{n} x {n} DEM ({n * n / 1e6:.1f} M cells): read and decimated in {took:.2f} s to "
            f"{grid['nx']} x {grid['ny']} = {terrain.size} vertices (every {grid['stride']}th "
            f"sample), {terrain.nbytes / 1e6:.2f} MB"
        )
        begin = time.perf_counter()
        run.overlay("reach_probability")
        print(f"  an overlay of {n * n / 1e6:.1f} M cells: {time.perf_counter() - begin:.2f} s")
        if browser:
            time_browser(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", nargs="?", type=Path, help="a run folder (default: made)")
    parser.add_argument("--dem-cells", type=float, default=1e7, help="cells of the large DEM")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium timing")
    args = parser.parse_args()
    run_dir = args.run_dir or DEFAULT_RUN
    if args.run_dir is None and not (run_dir / "summary.json").is_file():
        make_run(run_dir)
    time_endpoints(run_dir)
    if not args.no_browser:
        time_browser(run_dir)
    if args.dem_cells > 0:
        time_large_dem(run_dir, args.dem_cells, not args.no_browser)
    return 0


if __name__ == "__main__":
    sys.exit(main())
