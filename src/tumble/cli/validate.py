"""``tumble validate authume``: simulated against measured stop points of the Authume tests."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.cli import validate_tschamut
from tumble.cli.common import (
    add_validation_run_arguments,
    non_negative_int,
    positive_float,
    positive_int,
    progress_bar,
)
from tumble.cli.validate_calibration import print_calibration, run_calibration, write_calibration
from tumble.rockfall.ensemble.progress import Progress

if TYPE_CHECKING:
    from tumble.validation.authume import MeasuredEndpoints, ProfileRun, SoilParameters

SCHEME_CHOICES = ("both", "implicit", "explicit")


def add_parser(sub) -> None:
    validate = sub.add_parser(
        "validate",
        help="compare simulated with measured stop points of field tests (Authume, Tschamut)",
        description="Compare simulated with measured stop points of field tests: 'authume' "
        "(calibration on both profiles, each zone on the profile that crosses it; data in the "
        "package) or 'tschamut' (held out, never "
        "tuned on; data not shipped, --data-dir).",
    )
    sites = validate.add_subparsers(dest="site", required=True, metavar="SITE")
    p = sites.add_parser(
        "authume",
        help="the Authume quarry tests (calibration: P1 the soil and hard zones, P2 the rocky "
        "zone)",
        description=(
            "Simulate the releases of the Authume quarry field tests on both profiles (P1, P2) "
            "with per-zone soils, compare the stop points with the measured ones (run-out along "
            "the profile, lateral offset, 95 % stop envelope, Kolmogorov-Smirnov test of the "
            "run-out) and write metrics.json, per-rock stop tables and figures. With "
            "--calibrate, first search the soil parameters and the release's offset beyond the "
            "crest on a "
            "grid on P1 (objective: run-out plus lateral Wasserstein distance), then the "
            "rolling resistance of the rocky zone, which only P2 crosses, on P2, and validate "
            "with the best; otherwise use the stored calibrated parameters "
            "(docs/validation_authume.md)."
        ),
    )
    p.add_argument("--out", default="out/authume", help="output directory")
    p.add_argument(
        "--scheme", choices=SCHEME_CHOICES, default="both", help="rotation scheme(s) to run"
    )
    p.add_argument(
        "--rocks-per-profile",
        type=positive_int,
        default=256,
        help="releases per profile (default 256: 4 drop points x 64 orientations)",
    )
    p.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of the releases (default 0)"
    )
    add_validation_run_arguments(p, 60.0)
    p.add_argument(
        "--parameters",
        choices=("joint", "two-stage"),
        default=None,
        help="the stored calibration to validate (without --calibrate): 'joint', P1 and P2 "
        "together (the default; benchmarks/authume_joint.py), or 'two-stage', P1 first and the "
        "rocky zone on P2 second (what --calibrate recomputes; the default with --equivalent, "
        "whose sets are the two-stage calibration's)",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="run the calibration first: the grid on P1, then the rocky zone on P2",
    )
    p.add_argument(
        "--calibration-scheme",
        choices=("implicit", "explicit"),
        default="implicit",
        help="scheme of the calibration runs (default implicit)",
    )
    p.add_argument(
        "--calibration-grid",
        choices=("standard", "scar", "all"),
        default="all",
        help="grid of the calibration: 'standard' (vegetation drag, friction factors, rolling "
        "resistance), 'scar' (with the scar layer of Lu et al. 2019, its soil strength "
        "searched; docs/reach_and_start.md) or 'all' (both; the default)",
    )
    p.add_argument(
        "--calibration-refine-seeds",
        type=_seed_list,
        default=None,
        help="release seeds with which the grid points within two standard errors of the best "
        "are run again to choose the best and the equivalent sets, and with which the rocky "
        "zone's values run on P2, comma separated (default 0,...,9)",
    )
    p.add_argument(
        "--calibration-seeds",
        type=_seed_list,
        default=None,
        help="release seeds of every calibration point, comma separated; the objective is "
        "averaged over them (default 0,1,2)",
    )
    p.add_argument(
        "--equivalent",
        action="store_true",
        help="also run every parameter set the calibration cannot tell apart from the best "
        "(each stage's points at least as good in 5 %% of the bootstrap resamples of its "
        "profile's measured blocks and passing its KS test, combined: the stored sets, or this "
        "run's with --calibrate) on the same releases, each rock drawing one, and report the "
        "pooled prediction",
    )
    p.add_argument(
        "--uncertainty",
        choices=("sets", "category"),
        default=None,
        help="with --equivalent, what each rock draws: 'sets' (one of the equivalent parameter "
        "sets, the default) or 'category' (the soil zone's Me over medium's range and the "
        "rocky zone's mu_r over authume_rocky's, uniformly; the releases run 4 times)",
    )
    p.add_argument(
        "--bandwidth",
        type=positive_float,
        default=3.0,
        help="kernel standard deviation of the stop envelope (m), default 3",
    )
    p.add_argument(
        "--data-dir",
        default=None,
        help="directory of the Authume data (default $TUMBLE_AUTHUME_DATA, else the copy "
        "in the package)",
    )
    p.set_defaults(run=run)
    validate_tschamut.add_parser(sites)


def _seed_list(text: str) -> tuple[int, ...]:
    """argparse type: distinct non-negative integers, comma separated."""
    import argparse

    seeds = tuple(non_negative_int(part) for part in text.split(",") if part.strip())
    if not seeds or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(
            f"expected distinct non-negative integers separated by commas, got {text!r}"
        )
    return seeds


def _stop_table(runs: ProfileRun | list[ProfileRun], path: Path) -> None:
    """One row per simulated rock; several runs (the parameter sets of a pooled prediction)
    one after the other, with the set's index in column ``set`` and, for rocks that drew their
    values from a spread, each drawn value in a column named by its parameter."""
    from tumble.io import write_csv

    if isinstance(runs, list):
        tables = [
            _stop_columns(run)
            | {"set": run.soil_set if run.soil_set is not None else np.full(len(run), i)}
            | dict(run.drawn)
            for i, run in enumerate(runs)
        ]
        write_csv(path, {k: np.concatenate([t[k] for t in tables]) for k in tables[0]})
    else:
        write_csv(path, _stop_columns(runs))


def _stop_columns(run: ProfileRun) -> dict[str, np.ndarray]:
    r = run.releases
    return {
        "rock": np.arange(len(run)),
        "drop": r.drop_id,
        "orientation": r.orientation_id,
        "shape": np.array([r.shape_names[s] for s in r.shape_id]),
        "mass_kg": r.mass,
        "status": np.array(run.status),
        "t_end_s": run.t_end,
        "x_m": run.stop[:, 0],
        "y_m": run.stop[:, 1],
        "z_m": run.stop[:, 2],
        "runout_m": run.coordinates[:, 0],
        "lateral_m": run.coordinates[:, 1],
    }


def _measured_table(
    profile: str,
    measured: MeasuredEndpoints,
    data_dir: str | os.PathLike[str] | None,
    path: Path,
) -> None:
    from tumble.io import write_csv
    from tumble.validation.authume import profile_coordinates

    coords = profile_coordinates(profile, measured.position, data_dir)
    write_csv(
        path,
        {
            "block": np.arange(1, measured.mass.size + 1),
            "mass_kg": measured.mass,
            "x_m": measured.position[:, 0],
            "y_m": measured.position[:, 1],
            "z_m": measured.position[:, 2],
            "runout_m": coords[:, 0],
            "lateral_m": coords[:, 1],
        },
    )


def _advance(bar: Any) -> Callable[[int], None]:
    """A per-rock progress callback that moves ``bar`` by one."""

    def advance(k: int) -> None:
        bar.update(1)

    return advance


def run(args) -> int:
    from tumble._jit import get_threads
    from tumble.io import ResultDir
    from tumble.io.provenance import write_provenance
    from tumble.validation import authume
    from tumble.viz.validation import plot_runout, plot_stop_map

    # the threads numba was started with: at most the CPUs this process may use
    workers = args.workers or get_threads()
    schemes = ("implicit", "explicit") if args.scheme == "both" else (args.scheme,)
    n = args.rocks_per_profile
    if args.uncertainty is not None and not args.equivalent:
        raise ValueError("--uncertainty chooses what the rocks of --equivalent draw: give both")
    uncertainty = args.uncertainty or "sets"
    authume.data_directory(args.data_dir)  # a missing data set fails before any work
    timings: dict[str, float] = {}

    calibration = None
    rocky = None
    if args.parameters == "joint" and args.equivalent:
        raise ValueError(
            "--equivalent pools the two-stage calibration's equivalent sets: give --parameters "
            "two-stage (or leave it out)"
        )
    if args.parameters is None:
        args.parameters = "two-stage" if args.equivalent else "joint"
    parameters = authume.PARAMETER_SETS[args.parameters]
    if args.calibrate:
        calibration, rocky = run_calibration(args, n, workers)
        parameters = rocky.best
        timings["calibration"] = calibration.seconds + rocky.seconds

    def simulate(profile: str, soil: SoilParameters, scheme: str, bar: Progress) -> ProfileRun:
        """One profile run with this command's settings, advancing ``bar`` per rock."""
        return authume.run_profile(
            profile,
            soil,
            scheme,
            n=n,
            seed=args.seed,
            t_max=args.t_max,
            workers=workers,
            data_dir=args.data_dir,
            progress=_advance(bar),
        )

    runs: dict[str, dict[str, ProfileRun]] = {}
    measured: dict[str, MeasuredEndpoints] = {}
    reference: dict[str, np.ndarray] = {}
    metrics: dict = {
        "site": "authume",
        "soil_parameters": parameters.as_dict(),
        "soil": parameters.table(),
        "zone_rows": {str(k): v for k, v in authume.ZONE_ROWS.items()},
        "calibrated_here": calibration is not None,
        "parameters": "calibrated here" if calibration is not None else args.parameters,
        "calibration_command": None
        if calibration is not None
        else (authume.JOINT_COMMAND if args.parameters == "joint" else authume.CALIBRATION_COMMAND),
        "envelope": {
            "method": "highest-density region of an isotropic Gaussian KDE of the simulated "
            "stop points (x, y) holding the given content of them",
            "content": authume.ENVELOPE_CONTENT,
            "bandwidth_m": args.bandwidth,
        },
        "settings": {
            "rocks_per_profile": n,
            "seed": args.seed,
            "t_max_s": args.t_max,
            "schemes": list(schemes),
            "spacing_m": 0.5,
        },
    }
    for profile in authume.PROFILES:
        measured[profile] = authume.measured_endpoints(profile, args.data_dir)
        coords = authume.profile_coordinates(profile, measured[profile].position, args.data_dir)
        entry: dict[str, Any] = {
            "median_runout_measured_m": float(np.median(coords[:, 0])),
            "n_measured": int(coords.shape[0]),
            # P1 calibrates the soil and hard zones, P2 the rocky zone only it crosses
            "held_out": False,
            "calibrates": authume.PROFILE_ROLES[profile],
        }
        runs[profile] = {}
        for scheme in schemes:
            bar = progress_bar(n, f"{profile.upper()} {scheme}")
            run = simulate(profile, parameters, scheme, bar)
            bar.close()
            runs[profile][scheme] = run
            timings[f"{profile}_{scheme}"] = run.seconds
            entry[scheme] = authume.profile_metrics(
                run, measured[profile], args.data_dir, bandwidth=args.bandwidth
            )
        endpoints = authume.reference_endpoints(profile, args.data_dir)
        entry["reference_dem"] = authume.reference_metrics(
            profile, measured[profile], args.data_dir, bandwidth=args.bandwidth, reference=endpoints
        )
        if endpoints is not None:
            reference[profile] = authume.profile_coordinates(
                profile, endpoints.position, args.data_dir
            )
        metrics[profile] = entry

    pooled: dict[str, dict[str, list[ProfileRun]]] = {}
    if args.equivalent:
        sets = (
            authume.two_stage_equivalent(calibration.equivalent, rocky)
            if calibration is not None and rocky is not None
            else authume.CALIBRATION_EQUIVALENT
        )
        # each rock draws one of the sets from its own soil stream (soil.uncertainty = "sets";
        # the releases run once per set), or its values from the categories' spread
        # (soil.uncertainty = "category"; the releases run CATEGORY_REPEAT times)
        draw: dict[str, Any]
        if uncertainty == "category":
            spread = authume.category_spread()
            metrics["equivalent_spread"] = {k: list(v) for k, v in spread.items()}
            draw = {"spread": spread, "repeat": authume.CATEGORY_REPEAT}
        else:
            metrics["equivalent_sets"] = [p.as_dict() for p in sets]
            draw = {"sets": sets, "repeat": len(sets)}
        metrics["equivalent_uncertainty"] = uncertainty
        for profile in authume.PROFILES:
            pooled[profile] = {}
            pooled_entry: dict[str, Any] = {}
            metrics[profile]["equivalent"] = pooled_entry
            for scheme in schemes:
                bar = progress_bar(n * draw["repeat"], f"{profile.upper()} {scheme}, {uncertainty}")
                pooled[profile][scheme] = [
                    authume.run_profile(
                        profile,
                        parameters,
                        scheme,
                        n=n,
                        seed=args.seed,
                        t_max=args.t_max,
                        workers=workers,
                        data_dir=args.data_dir,
                        progress=_advance(bar),
                        **draw,
                    )
                ]
                bar.close()
                pooled_entry[scheme] = authume.pooled_metrics(
                    pooled[profile][scheme],
                    measured[profile],
                    args.data_dir,
                    bandwidth=args.bandwidth,
                )

    terrain = authume.authume_terrain(args.data_dir)
    grid_record = [
        {k: list(v) for k, v in g.items()} for g in authume.CALIBRATION_GRIDS[args.calibration_grid]
    ]
    config = {
        "site": args.site,
        "schemes": list(schemes),
        "rocks_per_profile": n,
        "seed": args.seed,
        "t_max": args.t_max,
        "workers": workers,
        "calibrate": bool(args.calibrate),
        "equivalent": bool(args.equivalent),
        "uncertainty": uncertainty if args.equivalent else None,
        "calibration_scheme": args.calibration_scheme if args.calibrate else None,
        "calibration_seeds": list(calibration.grid_seeds or calibration.seeds)
        if calibration is not None
        else None,
        "calibration_refine_seeds": list(calibration.seeds)
        if calibration is not None and calibration.grid_seeds
        else None,
        "calibration_grid": grid_record,
        "bandwidth": args.bandwidth,
        "soil_parameters": parameters.as_dict(),
        "data_dir": str(authume.data_directory(args.data_dir)),
    }
    start = time.perf_counter()
    with ResultDir(args.out) as stage:
        (stage / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
        for profile, by_scheme in runs.items():
            _measured_table(
                profile, measured[profile], args.data_dir, stage / f"measured_{profile}.csv"
            )
            for scheme, run in by_scheme.items():
                _stop_table(run, stage / f"stops_{profile}_{scheme}.csv")
        for profile, by_scheme_runs in pooled.items():
            for scheme, group in by_scheme_runs.items():
                _stop_table(group, stage / f"stops_{profile}_{scheme}_equivalent.csv")
        label = f"soil {parameters.as_dict()}, {n} rocks per profile, seed {args.seed}"
        plot_stop_map(
            terrain, runs, measured, stage / "stop_map.png", bandwidth=args.bandwidth, title=label
        )
        pooled_coords = {
            profile: {
                scheme: np.concatenate([run.coordinates[run.regular] for run in group])
                for scheme, group in by_scheme_runs.items()
            }
            for profile, by_scheme_runs in pooled.items()
        }
        plot_runout(
            runs,
            measured,
            stage / "runout.png",
            title=label,
            reference=reference,
            pooled=pooled_coords,
        )
        if calibration is not None and rocky is not None:
            write_calibration(stage, calibration, rocky, grid_record, n)
        timings["output"] = time.perf_counter() - start
        write_provenance(stage, config=config, timings=timings, seed=args.seed)

    if calibration is not None and rocky is not None:
        print_calibration(calibration, rocky)
    print(f"soil parameters {parameters.as_dict()}")
    header = (
        f"{'profile':<8}{'scheme':<10}{'median meas':>12}{'median sim':>11}{'W runout':>10}"
        f"{'W lateral':>10}{'KS D':>7}{'KS p':>8}{'inside':>8}{'seconds':>9}"
    )
    print(header)
    for profile in runs:
        for scheme in runs[profile]:
            m = metrics[profile][scheme]
            print(
                f"{profile:<8}{scheme:<10}{m['median_runout_measured_m']:12.2f}"
                f"{m['median_runout_simulated_m']:11.2f}{m['runout_wasserstein_m']:10.2f}"
                f"{m['lateral_wasserstein_m']:10.2f}{m['ks_statistic']:7.3f}{m['ks_pvalue']:8.3f}"
                f"{m['fraction_measured_inside_envelope']:8.2f}"
                f"{m['seconds']:9.1f}"
            )
        ref = metrics[profile]["reference_dem"]
        if ref is not None:
            print(
                f"{profile:<8}{'rockable':<10}{m['median_runout_measured_m']:12.2f}"
                f"{ref['median_runout_simulated_m']:11.2f}{ref['runout_wasserstein_m']:10.2f}"
                f"{ref['lateral_wasserstein_m']:10.2f}{ref['ks_statistic']:7.3f}"
                f"{ref['ks_pvalue']:8.3f}{ref['fraction_measured_inside_envelope']:8.2f}"
                f"{'-':>9}"
            )
    if pooled:
        if uncertainty == "category":
            print(f"pooled over the categories' spread {metrics['equivalent_spread']}:")
        else:
            count = len(metrics["equivalent_sets"])
            print(f"pooled over the {count} equivalent parameter sets (--equivalent):")
        print(header)
        for profile in pooled:
            for scheme in pooled[profile]:
                m = metrics[profile]["equivalent"][scheme]
                print(
                    f"{profile:<8}{scheme:<10}{m['median_runout_measured_m']:12.2f}"
                    f"{m['median_runout_simulated_m']:11.2f}{m['runout_wasserstein_m']:10.2f}"
                    f"{m['lateral_wasserstein_m']:10.2f}{m['ks_statistic']:7.3f}"
                    f"{m['ks_pvalue']:8.3f}{m['fraction_measured_inside_envelope']:8.2f}"
                    f"{m['seconds']:9.1f}"
                )
    if not reference:
        print(
            "no published DEM end points in the data directory "
            f"({authume.REFERENCE_FILE}); the rockable rows are left out"
        )
    print(f"wrote {args.out}/")
    return 0
