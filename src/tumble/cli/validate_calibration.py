"""The calibration of ``tumble validate authume --calibrate``: its two stages run with progress
bars, their tables, record and figures written, their result printed.

The first stage (:func:`tumble.validation.authume.calibrate`) searches the grid on P1 and refines
the points near its best; the second (:func:`tumble.validation.authume.calibrate_rocky`) the
rolling resistance of the rocky zone, which only P2 crosses, on P2 with the first stage's best
(``docs/validation_authume.md``, *The current calibration: two stages*).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.cli.common import progress_bar

if TYPE_CHECKING:
    from tumble.validation.authume import Calibration


def run_calibration(
    args: argparse.Namespace, n: int, workers: int
) -> tuple[Calibration, Calibration]:
    """Both stages with the command's settings (``n`` rocks per run on ``workers`` threads):
    the first stage's result and the second's, whose best is the calibrated set."""
    from tumble.validation import authume

    grid = authume.CALIBRATION_GRIDS[args.calibration_grid]
    seeds = args.calibration_seeds or authume.CALIBRATION_SEEDS
    refine_seeds = args.calibration_refine_seeds or authume.REFINE_SEEDS
    grid_runs = len(authume.calibration_points(grid)) * len(seeds)
    bars = [progress_bar(grid_runs, "calibration on P1")]

    def advance(i: int, total: int) -> None:
        if i == grid_runs:  # the first run of the refinement
            bars[0].close()
            bars[0] = progress_bar(total - grid_runs, "calibration on P1, refinement")
        bars[0].update(1)

    # the settings both stages run with
    common: dict[str, Any] = {
        "scheme": args.calibration_scheme,
        "n": n,
        "t_max": args.t_max,
        "workers": workers,
        "data_dir": args.data_dir,
    }
    first = authume.calibrate(
        grid, seeds=seeds, progress=advance, refine_seeds=refine_seeds, **common
    )
    bars[0].close()
    # the second stage: the Red zone's rolling resistance on P2, the only profile crossing it
    rocky_runs = len(authume.calibration_points(authume.ROCKY_CALIBRATION_GRID)) * len(refine_seeds)
    bar = progress_bar(rocky_runs, "calibration on P2, rocky zone")
    rocky = authume.calibrate_rocky(
        first.best, seeds=refine_seeds, progress=lambda i, total: bar.update(1), **common
    )
    bar.close()
    return first, rocky


def _write_rows(path: Path, rows: list[dict]) -> None:
    """A calibration table (one dict per grid point, the same keys) as CSV, one column a key."""
    from tumble.io import write_csv

    write_csv(path, {k: np.array([row[k] for row in rows]) for k in rows[0]})


def write_calibration(
    stage: Path,
    calibration: Calibration,
    rocky: Calibration,
    grid_record: list[dict[str, list[float]]],
    n: int,
) -> None:
    """Into the run's folder ``stage``: ``calibration.csv`` (the first stage's refined points,
    or its grid without a refinement), ``calibration_grid.csv`` (its grid),
    ``calibration_rocky.csv`` (the second stage), ``calibration.json`` (both stages' settings,
    best and equivalent points, the rule) and the figures ``calibration.png`` and
    ``calibration_rocky.png``."""
    from tumble.validation import authume
    from tumble.viz.validation import plot_calibration, plot_rocky_calibration

    _write_rows(stage / "calibration.csv", calibration.rows)
    record = {
        "profile": "p1",
        "scheme": calibration.scheme,
        "rocks": calibration.n,
        "seeds": list(calibration.seeds),
        "objective": "runout_wasserstein_m + lateral_wasserstein_m on P1, mean over the seeds",
        "grid": grid_record,
        "refine_seeds": list(calibration.seeds),
        "grid_seeds": list(calibration.grid_seeds),
        "best": calibration.best.as_dict(),
        "equivalent": [p.as_dict() for p in calibration.equivalent],
        "equivalent_rule": "the best (smallest objective among the points whose geometric mean "
        f"KS p-value on P1 over the seeds is >= {authume.KS_LEVEL}), and the refined points "
        "that also pass that KS test and whose objective is at most the best's in at least "
        f"{authume.EQUIVALENCE_SHARE:.0%} of {authume.BOOTSTRAP_RESAMPLES} bootstrap resamples "
        "of P1's measured blocks (column bootstrap_share); without a refinement, the points "
        "within one standard error (over the seeds) of its objective",
        "seconds": calibration.seconds,
        "rocky_zone": {
            "profile": "p2",
            "grid": {k: list(v) for k, v in authume.ROCKY_CALIBRATION_GRID.items()},
            "seeds": list(rocky.seeds),
            "objective": "runout_wasserstein_m + lateral_wasserstein_m on P2, mean over the "
            "seeds, the other zones at the first stage's best",
            "best": rocky.best.as_dict(),
            "equivalent": [p.as_dict() for p in rocky.equivalent],
            "seconds": rocky.seconds,
        },
    }
    (stage / "calibration.json").write_text(json.dumps(record, indent=2) + "\n")
    if calibration.grid_rows:
        _write_rows(stage / "calibration_grid.csv", calibration.grid_rows)
    _write_rows(stage / "calibration_rocky.csv", rocky.rows)
    plot_rocky_calibration(
        rocky.rows,
        stage / "calibration_rocky.png",
        title=f"calibration on P2, the rocky zone ({rocky.scheme}, {n} rocks, "
        f"seeds {', '.join(map(str, rocky.seeds))})",
    )
    plot_calibration(
        calibration.grid_rows or calibration.rows,
        stage / "calibration.png",
        title=f"calibration on P1 ({calibration.scheme}, {n} rocks, "
        f"seeds {', '.join(map(str, calibration.grid_seeds or calibration.seeds))})",
        chosen=calibration.best.as_dict(),
    )


def print_calibration(calibration: Calibration, rocky: Calibration) -> None:
    """The two stages' results in a few lines."""
    from tumble.validation import authume

    print(
        f"calibration on P1 ({calibration.scheme}): {len(calibration.rows)} grid points x "
        f"{len(calibration.seeds)} seeds, "
        f"{calibration.seconds:.1f} s; best {calibration.best.as_dict()}"
    )
    print(
        f"P1 cannot tell apart {len(calibration.equivalent)} grid point(s) (P1's KS test "
        "passed on the geometric mean of the seeds' p-values, and at least as good as the "
        f"best in {authume.EQUIVALENCE_SHARE:.0%} of the bootstrap resamples of P1's "
        "measured blocks, or within one standard error without a refinement); see "
        "calibration.csv, columns passes_ks, bootstrap_share, within_one_se, equivalent"
    )
    values = ", ".join(f"{p.rocky_mu_r:g}" for p in rocky.equivalent)
    print(
        f"rocky zone on P2: mu_r {rocky.best.rocky_mu_r:g}, P2 cannot tell apart {values} "
        f"({len(rocky.rows)} values x {len(rocky.seeds)} seeds, {rocky.seconds:.1f} s); see "
        "calibration_rocky.csv"
    )
