"""``tumble validate tschamut``: the Tschamut 2014 tests as a held-out check of the soil categories.

The data are not shipped (:data:`tumble.validation.tschamut.DATA_SOURCE`); ``--data-dir`` names
a directory in the format of :mod:`tumble.validation.tschamut`. Nothing is tuned on them.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from tumble.cli.common import (
    add_validation_run_arguments,
    non_negative_int,
    positive_int,
    progress_bar,
)
from tumble.rockfall.ensemble.progress import Progress


def soil_list(text: str) -> tuple[tuple[str, str], ...]:
    """argparse type: soil categories ``name`` or ``name:mode`` (mode ``sets`` or
    ``category``, the category's uncertainty), comma separated, or ``all``."""
    from tumble.rockfall.site.soil_uncertainty import UNCERTAINTY_MODES
    from tumble.rockfall.soil import CATALOGUE

    if text.strip() == "all":
        return tuple((name, "none") for name in CATALOGUE)
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, _, mode = part.partition(":")
        mode = mode or "none"
        if name not in CATALOGUE:
            raise argparse.ArgumentTypeError(
                f"unknown soil category {name!r}; choose from {', '.join(CATALOGUE)} or 'all' "
                "(tumble rockfall soils)"
            )
        if mode not in UNCERTAINTY_MODES:
            raise argparse.ArgumentTypeError(
                f"unknown uncertainty {mode!r} in {part!r}; choose from "
                f"{', '.join(UNCERTAINTY_MODES)}"
            )
        out.append((name, mode))
    if not out or len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"expected distinct soil categories, got {text!r}")
    return tuple(out)


def add_parser(sites) -> None:
    p = sites.add_parser(
        "tschamut",
        help="the Tschamut 2014 tests: a held-out check, never tuned on (data not shipped)",
        description=(
            "Release every run of the Tschamut 2014 tests from its measured release point with "
            "its measured velocity, --orientations times in random orientations, on one soil "
            "category at a time, and compare the horizontal run-out with the measured one "
            "(median ratio, Kolmogorov-Smirnov test), the early stops (within 10 m and 1.4 m), "
            "the rocks leaving the terrain or timing out, and the energy-line angles. Writes "
            "metrics.json, stops.csv, measured.csv and runout.png. Held out: no parameter is "
            "tuned on these data (docs/reach_and_start.md)."
        ),
    )
    p.add_argument(
        "--data-dir",
        default=None,
        help="directory of the processed Tschamut data (required; not shipped: EnviDat "
        "doi:10.16904/envidat.34, processed by github.com/ofuhrer/rust_rockfall)",
    )
    p.add_argument("--out", default="out/tschamut", help="output directory")
    p.add_argument(
        "--soil",
        type=soil_list,
        default=(("medium", "none"),),
        help="soil categories, comma separated, each optionally with its uncertainty "
        "(medium:sets, medium:category), or 'all' (tumble rockfall soils); default medium",
    )
    p.add_argument(
        "--orientations",
        type=positive_int,
        default=16,
        help="random orientations per run (default 16)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed (default 0)")
    p.add_argument(
        "--scheme", choices=("implicit", "explicit"), default="implicit", help="rotation scheme"
    )
    p.add_argument(
        "--shape",
        choices=("box", "eota111", "natural"),
        default="box",
        help="block shape: box of the measured lengths and mass (default), EOTA111 of the "
        "measured mass at 2650 kg/m^3, or natural: the four photogrammetric blocks of the "
        "Authume tests stretched to the measured lengths, at the measured mass (orientation j "
        "of a run takes hull j mod 4)",
    )
    p.add_argument(
        "--placement",
        choices=("clearance", "bounding", "recorded"),
        default="clearance",
        help="how a block starts above its release point: its lowest point 1 cm above the "
        "terrain (default); its centre its bounding radius above the terrain (a drop of up "
        "to a few decimetres, depending on the orientation); or its bounding radius above the "
        "files' ground height, a median 0.48 m above the proxy terrain (a drop of up to about "
        "a metre)",
    )
    add_validation_run_arguments(p, 60.0)
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble._jit import get_threads
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance
    from tumble.validation import tschamut
    from tumble.viz.tschamut import plot_runout_ecdf

    data = tschamut.load(args.data_dir)  # a missing or broken data set fails before any work
    workers = args.workers or get_threads()
    metrics: dict[str, Any] = {
        "site": "tschamut",
        "held_out": True,
        "data_dir": str(data.directory),
        "source": tschamut.DATA_SOURCE,
        "release": "first tracked sample: measured position and velocity, no spin; "
        + (
            f"lowest point {tschamut.RELEASE_CLEARANCE} m above the terrain"
            if args.placement == "clearance"
            else "centre its bounding radius above the "
            + ("terrain" if args.placement == "bounding" else "files' ground height")
            + " (at least the clearance)"
        ),
        "terrain": "proxy of the producer (trend plane plus IDW residuals of the LPS heights), "
        "not a surveyed DEM; heights sampled at xllcorner + i cellsize",
        "settings": {
            "orientations": args.orientations,
            "seed": args.seed,
            "scheme": args.scheme,
            "shape": args.shape,
            "placement": args.placement,
            "t_max_s": args.t_max,
            "eota_density_kg_m3": tschamut.EOTA_DENSITY if args.shape == "eota111" else None,
        },
        "measured": tschamut.measured_metrics(data),
        "categories": {},
    }
    runs = []
    timings: dict[str, float] = {}
    for name, mode in args.soil:
        n = len(data) * args.orientations
        bar = progress_bar(n, f"{name}" + ("" if mode == "none" else f":{mode}"))

        def advance(k: int, bar: Progress = bar) -> None:
            bar.update(k - bar.done)

        result = tschamut.run_category(
            data,
            name,
            mode,
            orientations=args.orientations,
            seed=args.seed,
            scheme=args.scheme,
            shape=args.shape,
            t_max=args.t_max,
            workers=workers,
            progress=advance,
            placement=args.placement,
        )
        bar.close()
        runs.append(result)
        metrics["categories"][result.label] = tschamut.category_metrics(result, data)
        timings[result.label] = result.seconds
    start = time.perf_counter()
    with ResultDir(args.out) as stage:
        (stage / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
        tables = [tschamut.stop_columns(r, data) for r in runs]
        write_csv(
            stage / "stops.csv", {k: np.concatenate([t[k] for t in tables]) for k in tables[0]}
        )
        write_csv(
            stage / "measured.csv",
            {
                "trajectory_id": np.array(data.run_id),
                "block_id": np.array(data.block_id),
                "mass_kg": data.mass,
                "release_x_m": data.release[:, 0],
                "release_y_m": data.release[:, 1],
                "release_z_m": data.release[:, 2],
                "x_m": data.stop[:, 0],
                "y_m": data.stop[:, 1],
                "z_m": data.stop[:, 2],
                "runout_m": data.runout,
                "reach_angle_deg": data.reach_angle,
            },
        )
        plot_runout_ecdf(
            data.runout,
            {r.label: r.runout[r.regular] for r in runs},
            stage / "runout.png",
            title=f"Tschamut 2014 (held out): {len(data)} runs x {args.orientations} "
            f"orientations, {args.shape}, {args.scheme}, seed {args.seed}",
        )
        timings["output"] = time.perf_counter() - start
        config = {
            "site": "tschamut",
            "soil": [f"{n}:{m}" for n, m in args.soil],
            "orientations": args.orientations,
            "seed": args.seed,
            "scheme": args.scheme,
            "shape": args.shape,
            "placement": args.placement,
            "t_max": args.t_max,
            "workers": workers,
            "data_dir": str(data.directory),
        }
        write_provenance(stage, config=config, timings=timings, seed=args.seed)

    m = metrics["measured"]
    print(
        f"measured: {m['runs']} runs, median run-out {m['median_runout_m']:.1f} m, shortest "
        f"{m['min_runout_m']:.1f} m ({m['runs_below_40_m']} below 40 m), energy-line angle "
        f"min {m['reach_angle']['min_deg']:.1f}, median {m['reach_angle']['median_deg']:.1f} deg"
    )
    print(
        f"{'soil':<24}{'median':>8}{'ratio':>7}{'KS p':>9}{'<10 m':>7}{'<1.4 m':>7}"
        f"{'left':>6}{'t/o':>5}{'fail':>5}{'ang min':>8}{'p1':>6}{'p5':>6}{'med':>6}"
    )
    for label, c in metrics["categories"].items():
        if c["median_runout_simulated_m"] is None:
            print(f"{label:<24} every rock failed")
            continue
        a = c["reach_angle"]
        print(
            f"{label:<24}{c['median_runout_simulated_m']:8.1f}{c['runout_ratio']:7.2f}"
            f"{c['ks_pvalue']:9.2g}{c['stopped_within_10_m']:7.2f}{c['stopped_within_1.4_m']:7.2f}"
            f"{c['left_terrain']:6d}{c['timed_out']:5d}{c['failed']:5d}{a['min_deg']:8.1f}"
            f"{a['p1_deg']:6.1f}{a['p5_deg']:6.1f}{a['median_deg']:6.1f}"
        )
    print(f"wrote {args.out}/")
    return 0
