"""``tumble demo``: the main job on built-in defaults.

1. The free-rotation comparison of the seeds: the Leine cuboid near its major and intermediate
   axes with every scheme beside the exact solution, invariant drift, and the convergence orders
   on the Betsch & Siebert body.
2. The rockfall ensembles of Leine et al. 2021, section 6: 1000 EOTA221 rocks on ``slope40``
   with the explicit and the implicit scheme, and their side-by-side table.
3. ``report.html`` with all of it.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np

CUBOID = (5 / 12, 10 / 12, 13 / 12)
BETSCH = (6.0, 8.0, 3.0)
BETSCH_OMEGA0 = (10.0, 20.0, 20.0)
STEPS = {
    "explicit": [25600, 51200, 102400, 204800],
    "rk4": [50, 100, 200, 400],
}
DEFAULT_STEPS = [200, 400, 800, 1600]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="run the main comparison on built-in defaults",
        description=(
            "Free-rotation comparison of every scheme (Leine et al. 2021 cuboid, Betsch & Siebert "
            "2009 body): figures, tables and a summary in --out."
        ),
    )
    p.add_argument("--out", default="out/demo", help="output directory (default out/demo)")
    p.add_argument("--rocks", type=int, default=1000, help="rocks per rockfall ensemble")
    p.add_argument("--seed", type=int, default=1, help="seed of the rockfall ensembles")
    p.set_defaults(run=run)


def run(args) -> int:
    from tumble.freerot import STEPPERS, exact, integrate
    from tumble.freerot.convergence import convergence
    from tumble.freerot.invariants import relative_drift
    from tumble.io import ResultDir, write_csv
    from tumble.io.provenance import write_provenance
    from tumble.viz.freerot import plot_convergence, plot_drift, plot_omega

    timings: dict[str, float] = {}
    summary: dict = {}
    with ResultDir(args.out) as stage:
        # 1. major axis: seed 000, Fig. 2
        start = time.perf_counter()
        major = {
            name: integrate(name, CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
            for name in STEPPERS
        }
        major["exact"] = exact(CUBOID, (1e-3, 1e-3, 10.0), (1, 0, 0, 0), major["implicit"].t)
        timings["major_axis"] = time.perf_counter() - start
        plot_omega(
            [major["explicit"], major["implicit"], major["exact"]],
            stage / "major_axis_omega.png",
            title="Leine cuboid near the major axis, dt = 0.01 s (seed 000, Fig. 2)",
        )
        plot_drift(
            list(major.values()),
            stage / "major_axis_drift.png",
            title="Invariant drift, Leine cuboid near the major axis, dt = 0.01 s",
        )
        explicit = major["explicit"]
        leave = float(explicit.t[np.argmax(explicit.omega[:, 2] < 5.0)])
        summary["major_axis"] = {
            "explicit_leaves_major_axis_at_s": leave,
            "explicit_final_omega": explicit.omega[-1].tolist(),
            "minor_axis_rate_predicted": -float(np.sqrt(CUBOID[2] / CUBOID[0]) * 10.0),
            "implicit_max_deviation_from_major_axis": float(
                np.abs(major["implicit"].omega - [0, 0, 10.0]).max()
            ),
            "max_energy_drift": {
                k: float(relative_drift(v.energy()).max()) for k, v in major.items()
            },
            "max_spin_drift": {k: float(relative_drift(v.spin()).max()) for k, v in major.items()},
        }
        # 2. intermediate axis: seed 000, Fig. 4
        start = time.perf_counter()
        inter = {
            name: integrate(name, CUBOID, (1e-3, 10.0, 1e-3), dt=0.01, t_end=20.0)
            for name in ("explicit", "implicit")
        }
        inter["exact"] = exact(CUBOID, (1e-3, 10.0, 1e-3), (1, 0, 0, 0), inter["implicit"].t)
        timings["intermediate_axis"] = time.perf_counter() - start
        plot_omega(
            list(inter.values()),
            stage / "intermediate_axis_omega.png",
            title="Leine cuboid near the intermediate axis, dt = 0.01 s (seed 000, Fig. 4)",
        )
        # 3. convergence on the Betsch & Siebert body
        start = time.perf_counter()
        table: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
        rows: dict[str, list[Any]] = {"scheme": [], "dt": [], "error": [], "seconds_per_step": []}
        for name in STEPPERS:
            result = convergence(name, BETSCH, BETSCH_OMEGA0, STEPS.get(name, DEFAULT_STEPS))
            table[name] = (result.dts, result.errors, result.order)
            for dt, err, sec in zip(
                result.dts, result.errors, result.seconds_per_step, strict=True
            ):
                rows["scheme"].append(name)
                rows["dt"].append(dt)
                rows["error"].append(err)
                rows["seconds_per_step"].append(sec)
        timings["convergence"] = time.perf_counter() - start
        plot_convergence(
            table,
            stage / "convergence.png",
            title="Betsch & Siebert body, attitude error at T = 1 s",
        )
        write_csv(stage / "convergence.csv", rows)
        summary["fitted_orders"] = {name: table[name][2] for name in table}
        (stage / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        write_provenance(
            stage,
            config={"cuboid": CUBOID, "betsch_body": BETSCH, "betsch_omega0": BETSCH_OMEGA0},
            timings=timings,
        )
    m = summary["major_axis"]
    print("Leine cuboid near the major axis, dt = 0.01 s, 20 s:")
    leave = m["explicit_leaves_major_axis_at_s"]
    print(f"  explicit leaves the major axis (omega_z < 5 rad/s) at t = {leave:.2f} s")
    print(
        f"  explicit ends at omega = {np.round(m['explicit_final_omega'], 3).tolist()} rad/s "
        f"(minor axis: {m['minor_axis_rate_predicted']:.2f})"
    )
    deviation = m["implicit_max_deviation_from_major_axis"]
    print(f"  implicit stays within {deviation:.2e} rad/s of (0, 0, 10)")
    print("Fitted orders on the Betsch & Siebert body:")
    for name, order in summary["fitted_orders"].items():
        print(f"  {name:<9} {order:5.2f}")
    rockfall_report(args)
    print(f"wrote {args.out}/ (open {args.out}/report.html)")
    return 0


def rockfall_report(args) -> None:
    """Run the two slope40 ensembles and their comparison, then write report.html."""
    from pathlib import Path

    from tumble.cli.common import reproduction_note
    from tumble.pipeline import RockfallRun
    from tumble.pipeline.compare import compare_runs
    from tumble.rockfall.ensemble import summary_line
    from tumble.rockfall.step.model import SCHEME_NAMES
    from tumble.viz.report import write_report

    out = Path(args.out)
    runs: dict[str, Path] = {}
    for scheme in SCHEME_NAMES:
        run_dir = out / f"rockfall_{scheme}"
        settings = {"scenario": "slope40", "rocks": args.rocks, "scheme": scheme, "seed": args.seed}
        run = RockfallRun.from_config(settings=settings)
        # a finished identical run is reused, an interrupted one finished; a run with other
        # settings (say another --rocks) is replaced
        try:
            outcome = run.run(run_dir, resume=run_dir.exists())
        except ValueError:
            outcome = run.run(run_dir, force=True)
        for warning in outcome.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        # what the two ensembles reproduce, said once before their lines
        note = reproduction_note(outcome.summary)
        if note and not runs:
            print(note)
        print(summary_line(outcome.summary))
        runs[scheme] = run_dir
    compare_dir = out / "rockfall_compare"
    compare_runs(runs["explicit"], runs["implicit"], compare_dir)
    write_report(out / "report.html", out, runs, compare_dir)
