"""``tumble rockfall calibrate --config site.toml --observations stops.csv --out calib/``: the
soil of a site back-calculated from its observed blocks (:mod:`tumble.pipeline.calibration`,
``docs/calibration.md``).

Writes ``calib/calibration.toml`` (the best set and the equivalent sets), ``calibration.json``
(every evaluated set), ``report.html`` and, with ``--check held_out.csv``, ``check.json``; all
at once when the search is done, nothing when an input is refused.
"""

from __future__ import annotations

import argparse

from tumble.cli.common import non_negative_int, positive_int

EPILOG = """examples:
  tumble rockfall calibrate --config site.toml --observations stops.csv --out calib
  tumble rockfall calibrate --config site.toml --observations stops.csv --out calib \\
      --free rolling_resistance=0:0.8 --free mu_min=0.3:0.7 --check held_out.csv
  tumble rockfall calibrate --config site.toml --observations stops.csv --out calib \\
      --dask local:4
  tumble rockfall run --config site.toml soil.calibration='"calib/calibration.toml"'
"""


def add_calibrate_parser(actions) -> None:
    """Register ``calibrate`` among the actions of ``tumble rockfall``."""
    p = actions.add_parser(
        "calibrate",
        help="back-calculate the soil of a site from observed blocks",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run every observed block (its release, rock and stop) several times with random "
            "orientations on the configuration's terrain and soil, over a Latin hypercube of "
            "the free soil fields (with --zoom, narrowing rounds; with --bayes, sets proposed "
            "by a Bayesian optimiser), refine the best sets with more orientations, and write "
            "the best set and every set the observed run-outs cannot reject at 5 % (KS test)."
        ),
    )
    p.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="configuration overrides, dotted keys in TOML syntax (t_max=30)",
    )
    p.add_argument("--config", metavar="FILE", required=True, help="run configuration (TOML)")
    p.add_argument(
        "--observations",
        metavar="FILE",
        required=True,
        help="observed blocks: CSV or a vector file of stop points (docs/calibration.md)",
    )
    p.add_argument(
        "--free",
        action="append",
        metavar="NAME=LO:HI",
        help="a soil field to calibrate and its range (repeatable; default "
        "rolling_resistance=0:0.4 and mu_min=0.2:0.8)",
    )
    p.add_argument("--check", metavar="FILE", help="held-out blocks (same columns)")
    p.add_argument("--points", type=positive_int, default=16, help="sets of the design (16)")
    p.add_argument(
        "--orientations", type=positive_int, default=4, help="runs of each block per set (4)"
    )
    p.add_argument(
        "--zoom",
        type=non_negative_int,
        default=0,
        help="rounds that narrow the search around the best set, each with half the points "
        "of the design in a box of half the width of the last (0)",
    )
    p.add_argument(
        "--bayes",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="N more sets proposed by a Bayesian optimiser (Optuna's TPE) given every set "
        "evaluated before; needs pip install 'tumble[calibrate]' (0)",
    )
    p.add_argument(
        "--batch",
        type=positive_int,
        default=8,
        help="sets the optimiser proposes at once, run in parallel (8); the sets depend on it, "
        "not on --threads",
    )
    p.add_argument(
        "--select",
        choices=("medoid", "objective"),
        default="medoid",
        help="the rule of the best set: the medoid (centre) of the sets the observations do "
        "not reject, or the least objective among the refined sets they do not reject (medoid)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="random seed (0)")
    p.add_argument("--threads", type=positive_int, default=None, help="threads (all cores)")
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the sets on a Dask cluster (tcp://host:8786, or local:N worker processes); "
        "the numbers are those of a local run",
    )
    p.add_argument("--no-figures", action="store_true", help="no figure in report.html")
    p.add_argument("--out", default="out/calibration", help="output folder (out/calibration)")
    p.set_defaults(run=calibrate_command)


def calibrate_command(args) -> int:
    import os

    from tumble.cli.common import progress_bar
    from tumble.io.config import load_config
    from tumble.io.observations import read_observations
    from tumble.pipeline.calibration.files import write_calibration
    from tumble.pipeline.calibration.search import calibrate, check
    from tumble.pipeline.calibration.site import DEFAULT_FREE, parse_free, site_of

    free = parse_free(args.free or DEFAULT_FREE)
    observations = read_observations(args.observations)
    held_out = read_observations(args.check) if args.check else None
    config = load_config(args.config, overrides=args.overrides)
    site = site_of(config)
    threads = args.threads or os.cpu_count() or 1
    from tumble.rockfall.ensemble.cluster import client_for, close_client

    client = client_for(args.dask) if args.dask else None
    try:
        cal = calibrate(
            site,
            observations,
            free,
            points=args.points,
            orientations=args.orientations,
            zoom=args.zoom,
            bayes=args.bayes,
            batch=args.batch,
            select=args.select,
            seed=args.seed,
            threads=threads,
            progress=lambda total: progress_bar(total, "calibration"),
            client=client,
        )
        if held_out is not None:
            cal.check = check(
                site,
                held_out,
                cal,
                orientations=args.orientations,
                seed=args.seed,
                threads=threads,
                progress=lambda total: progress_bar(total, "check"),
                client=client,
            )
    finally:
        if client is not None:
            close_client(client)
    write_calibration(cal, args.out, figures=not args.no_figures)
    best = cal.sets[cal.best]
    values = ", ".join(f"{n} {v:.4g}" for n, v in best["values"].items())
    rule = " (the medoid of the equivalent sets)" if cal.settings["select"] == "medoid" else ""
    print(
        f"best set {cal.best}{rule}: {values}; KS p {best['ks_pvalue']:.3g}, median ratio "
        f"{best.get('median_ratio', float('nan')):.3g}, early stops "
        f"{best.get('early_stop_share', float('nan')):.3g}"
    )
    if cal.equivalent:
        for f in cal.free:
            span = [cal.sets[k]["values"][f.name] for k in cal.equivalent]
            print(
                f"{len(cal.equivalent)} equivalent sets (KS p >= 0.05): {f.name} "
                f"{min(span):.4g} to {max(span):.4g}"
            )
    else:
        print("warning: the observations reject every set at 5 % (KS p < 0.05): widen --free")
    if cal.check is not None:
        c = cal.check["best"]
        print(
            f"held out ({cal.check['observed']['blocks']} blocks), best set: median ratio "
            f"{c.get('median_ratio', float('nan')):.3g}, KS p {c['ks_pvalue']:.3g}, early stops "
            f"{c.get('early_stop_share', float('nan')):.3g}, inside the 95 % stop envelope "
            f"{c.get('inside_envelope', float('nan')):.3g} "
            + (
                f"(passes: {cal.check['rule']})"
                if cal.check["best_passes"]
                else f"(fails: {', '.join(cal.check['failed'])}; the rule: {cal.check['rule']})"
            )
        )
    print(f"{cal.seconds:.0f} s; wrote {args.out}/")
    return 0
