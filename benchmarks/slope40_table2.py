"""Which statistics and which model details are consistent with Leine et al. 2021, Table 2?

Runs the ``slope40`` ensemble of ``tumble rockfall run --scenario slope40 --seed 1`` with both
rotation schemes and reduces every rock, at every step, under each candidate definition of
:data:`tumble.validation.slope40_table2.CANDIDATES` (path samples, per-rock maxima and means,
time and distance averages, slope or run-out only, fast samples, stopped rocks, per-cell maxima
and means as in the "statistic mode" of RAMMS::ROCKFALL). Prints, as Markdown, one table per
candidate (explicit and implicit, mean +- std, beside the published values, and whether the
seed's finding holds), then an overview of every candidate: the means, their mean relative
deviation from the published means and standard deviations, and the seed's findings that fail.

``--variants`` also runs a priori alternatives of the model details the paper does not give
(release height 1.0 and 3.0 m instead of 1.5 m, release speed 0 and 5 m/s instead of 1 m/s, the
soils ``l14_scarring`` and ``l14_wheel`` of Leine et al. 2014 instead of the ``medium`` soil of
Lu et al. 2019, the seed's reference [17]) and prints the overview of each, all with
``--variant-rocks`` rocks and beside the default model with as many rocks (the per-cell
candidates depend on the number of rocks: more rocks reach more cells and raise the per-cell
maxima). Nothing is fitted: the alternatives are fixed here, before any comparison.

    python benchmarks/slope40_table2.py [--rocks 1000] [--seed 1] [--threads 2]
                                        [--variants [--variant-rocks N]]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tumble.io.config import validate
from tumble.rockfall.site.from_config import build_ensemble
from tumble.validation.slope40 import PUBLISHED_SLOPE40
from tumble.validation.slope40_table2 import (
    CANDIDATES,
    QUANTITIES,
    TABLE2_QUANTITIES,
    published_error,
    seed_findings,
    table2_candidates,
)

SCHEMES = ("explicit", "implicit")
NAMES = {
    "kinetic_energy_kJ": "kinetic energy (kJ)",
    "velocity_ms": "translational velocity (m/s)",
    "rotational_velocity_rps": "rotational velocity (rot/s)",
    "jump_height_m": "jump height (m)",
    "jump_height_normal_m": "jump height along the normal (m)",
}
SHORT = {
    "kinetic_energy_kJ": "E kJ",
    "velocity_ms": "v m/s",
    "rotational_velocity_rps": "rot/s",
    "jump_height_m": "jump m",
    "jump_height_normal_m": "jump normal m",
}
#: the model details the paper does not give: the default and a priori alternatives
VARIANTS: dict[str, dict[str, Any]] = {
    "default (height 1.5 m, 1 m/s, medium soil)": {},
    "release height 1.0 m": {"release": {"height": 1.0}},
    "release height 3.0 m": {"release": {"height": 3.0}},
    "release speed 0 m/s": {"release": {"speed_downslope": 0.0}},
    "release speed 5 m/s": {"release": {"speed_downslope": 5.0}},
    "soil l14_scarring": {"soil": {"preset": "l14_scarring"}},
    "soil l14_wheel": {"soil": {"preset": "l14_wheel"}},
}


def _pm(value: tuple[float, float]) -> str:
    return f"{value[0]:.2f} +- {value[1]:.2f}"


def run_setting(
    changes: dict[str, Any], rocks: int, seed: int, threads: int
) -> tuple[dict, dict, dict]:
    """Candidate results and how the rocks ended, per scheme, and the seconds each took."""
    results, statuses, seconds = {}, {}, {}
    for scheme in SCHEMES:
        config = validate(
            {"scenario": "slope40", "rocks": rocks, "scheme": scheme, "seed": seed, **changes}
        )
        ensemble = build_ensemble(config)
        t0 = time.perf_counter()
        table = table2_candidates(ensemble, threads=threads)
        seconds[scheme] = time.perf_counter() - t0
        results[scheme] = table.results()
        statuses[scheme] = dict(sorted(table.statuses.items()))
    return results, statuses, seconds


def candidate_tables(results: dict) -> str:
    """One Markdown table per candidate, mean +- std beside Table 2."""
    out = []
    for name, description in CANDIDATES.items():
        e, i = results["explicit"][name], results["implicit"][name]
        holds = seed_findings(e, i)
        out.append(f"#### `{name}`: {description}\n")
        out.append(
            "| quantity | explicit | implicit | published explicit | published implicit "
            "| seed's finding |"
        )
        out.append("|---|---|---|---|---|---|")
        for q in QUANTITIES:
            pub = q if q in TABLE2_QUANTITIES else "jump_height_m"
            finding = ("holds" if holds[q] else "FAILS") if q in holds else ""
            out.append(
                f"| {NAMES[q]} | {_pm(e[q])} | {_pm(i[q])} "
                f"| {_pm(PUBLISHED_SLOPE40['explicit'][pub])} "
                f"| {_pm(PUBLISHED_SLOPE40['implicit'][pub])} | {finding} |"
            )
        out.append("")
    return "\n".join(out)


def overview(results: dict) -> str:
    """One row per candidate: the explicit / implicit means, the mean relative deviation of
    means and standard deviations from Table 2, and the seed's findings that fail."""
    head = " | ".join(SHORT[q] for q in QUANTITIES)
    out = [
        f"| candidate | {head} | dev. of means | dev. of stds | seed's findings |",
        "|---|" + "---|" * (len(QUANTITIES) + 3),
    ]
    pub = " | ".join(
        f"{PUBLISHED_SLOPE40['explicit'][q][0]:.2f} / {PUBLISHED_SLOPE40['implicit'][q][0]:.2f}"
        for q in TABLE2_QUANTITIES
    )
    out.append(f"| published (Table 2) | {pub} | | | | |")
    for name in CANDIDATES:
        e, i = results["explicit"][name], results["implicit"][name]
        means = " | ".join(f"{e[q][0]:.2f} / {i[q][0]:.2f}" for q in QUANTITIES)
        dev_mean, dev_std = published_error(e, i)
        failing = [SHORT[q] for q, ok in seed_findings(e, i).items() if not ok]
        findings = "all hold" if not failing else "fail: " + ", ".join(failing)
        out.append(f"| `{name}` | {means} | {dev_mean:.0%} | {dev_std:.0%} | {findings} |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variants", action="store_true", help="also the model alternatives")
    parser.add_argument(
        "--variant-rocks",
        type=int,
        default=None,
        help="rocks of each alternative (default --rocks)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    args = parser.parse_args()
    variant_rocks = args.rocks if args.variant_rocks is None else args.variant_rocks
    if min(args.rocks, variant_rocks, args.threads) < 1:
        parser.error("--rocks, --variant-rocks and --threads must be positive")

    default = next(iter(VARIANTS))
    runs = [(default, VARIANTS[default], args.rocks, True)]
    if args.variants:
        runs += [
            (label, changes, variant_rocks, False)
            for label, changes in VARIANTS.items()
            if label != default or variant_rocks != args.rocks
        ]
    everything = {}
    for label, changes, rocks, full in runs:
        results, statuses, seconds = run_setting(changes, rocks, args.seed, args.threads)
        everything[f"{label}, {rocks} rocks"] = {
            "results": results,
            "statuses": statuses,
            "seconds": seconds,
        }
        ends = "; ".join(
            f"{s}: " + ", ".join(f"{n} {c}" for n, c in statuses[s].items()) for s in SCHEMES
        )
        print(f"### {label}, {rocks} rocks\n")
        print(f"{rocks} rocks, seed {args.seed}; rocks ended: {ends}.\n")
        if full:
            print(candidate_tables(results))
        print(overview(results))
        print(
            "seconds: "
            + ", ".join(f"{s} {seconds[s]:.0f}" for s in SCHEMES)
            + f" ({args.threads} threads, kernels compiled on the first call)\n",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
