"""The calibration of the Authume soil parameters in two stages, each zone on the profile that
crosses it: P1 for the soil and hard zones and the drop offset (:func:`calibrate`), then P2 for
the rocky zone that only P2 crosses (:func:`calibrate_rocky`).

:func:`calibrate`: a grid over the fields of
:class:`~tumble.validation.authume.soils.SoilParameters`
(:data:`~tumble.validation.authume.soils.CALIBRATION_GRIDS`), each point run on P1
(:func:`~tumble.validation.authume.runs.run_profile`) with each release seed of
:data:`~tumble.validation.authume.soils.CALIBRATION_SEEDS`; the objective is the sum of the
run-out and lateral Wasserstein distances on P1 (:mod:`tumble.validation.authume.metrics`)
averaged over the seeds, with its standard error over them. The function takes no profile
argument and reads only P1's data. :func:`calibrate_rocky` then runs P2 with the first stage's
best and each value of the rocky zone's parameters
(:data:`~tumble.validation.authume.soils.ROCKY_CALIBRATION_GRID`), and chooses by the same rule
with P2's measured blocks; P1's blocks never reach that zone, so its results stand.

With a refinement (``refine_seeds``), the grid points within
:data:`~tumble.validation.authume.soils.REFINE_SE_FACTOR` standard errors of the best
(:func:`screen_for_refinement`) run again with more seeds, and the best and the equivalent
points are chosen among them (:func:`select_calibration`): the best is the smallest objective
among the points that pass P1's KS test of the run-out (geometric mean of the p-values over the
seeds at least :data:`KS_LEVEL`); equivalent are the points that also pass it and that P1's
measured blocks cannot tell from the best, scoring at least as well in
:data:`EQUIVALENCE_SHARE` of the bootstrap resamples of the blocks (:func:`bootstrap_shares`).
Without a refinement the one-standard-error rule (Breiman et al. 1984) stands in for the
bootstrap. :data:`~tumble.validation.authume.soils.CALIBRATED` and
:data:`~tumble.validation.authume.soils.CALIBRATION_EQUIVALENT` (both stages combined,
:func:`two_stage_equivalent`) hold the result of
:data:`~tumble.validation.authume.soils.CALIBRATION_COMMAND` (the stored table,
:func:`stored_calibration`).

References: L. Breiman, J. H. Friedman, R. A. Olshen, C. J. Stone, Classification and
Regression Trees, Wadsworth (1984): the one-standard-error rule. B. Efron, R. J. Tibshirani,
An Introduction to the Bootstrap, Chapman & Hall (1993).
"""

from __future__ import annotations

import csv
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import product
from typing import Any

import numpy as np
from scipy.stats import wasserstein_distance

from tumble.validation.authume import data
from tumble.validation.authume.data import MeasuredEndpoints
from tumble.validation.authume.metrics import profile_metrics
from tumble.validation.authume.runs import ROCKS_PER_PROFILE, T_MAX, run_profile
from tumble.validation.authume.soils import (
    CALIBRATION_GRID,
    CALIBRATION_SEEDS,
    CALIBRATION_TABLE,
    REFINE_SE_FACTOR,
    REFINE_SEEDS,
    ROCKY_CALIBRATION_GRID,
    ROCKY_FIELDS,
    SoilParameters,
    with_rocky_zone,
)

#: Level of the KS test of the run-out that a calibration point must pass on P1, on the geometric
#: mean of its p-values over the calibration seeds (:func:`select_calibration`): the level of the
#: validation's goal.
KS_LEVEL = 0.05
#: Bootstrap of the refinement's equivalence (:func:`bootstrap_shares`): resamples of P1's
#: measured blocks, their seed, and the share of resamples in which a point must score at
#: least as well as the best to be equivalent (a one-sided test at 5 %).
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
EQUIVALENCE_SHARE = 0.05


@dataclass(frozen=True, eq=False)
class Calibration:
    """Result of :func:`calibrate`: one row per grid point (parameters, metrics on P1, objective)
    in grid order, and the best parameters (:func:`select_calibration`). With a refinement the
    rows are those of the refined points over :attr:`seeds`, the grid's in :attr:`grid_rows`."""

    rows: list[dict]
    best: SoilParameters
    scheme: str
    n: int
    seeds: tuple[int, ...]
    seconds: float
    #: the grid's rows over :attr:`grid_seeds` when :attr:`rows` are those of the refinement
    #: (:func:`calibrate` with ``refine_seeds``); empty without a refinement
    grid_rows: list[dict] = field(default_factory=list)
    grid_seeds: tuple[int, ...] = ()

    @property
    def equivalent(self) -> tuple[SoilParameters, ...]:
        """The grid points P1 cannot tell apart from the best and that pass P1's own KS test
        (the rows flagged ``equivalent`` by :func:`select_calibration`), the best first, then in
        grid order. With a single seed the standard error is unknown and only the best is
        returned."""
        names = [f.name for f in fields(SoilParameters)]
        chosen = [row for row in self.rows if row["equivalent"]]
        others = [SoilParameters(**{k: row[k] for k in names}) for row in chosen]
        return (self.best, *(p for p in others if p != self.best))


def select_calibration(rows: list[dict[str, Any]], level: float = KS_LEVEL) -> int:
    """Mark the rows of a calibration table in place and return the index of the best row.

    Each row needs ``objective_m``, ``objective_se_m`` and ``ks_pvalue_geomean`` (the geometric
    mean over the calibration seeds of the KS p-value of P1's run-out, ``exp(mean(log p))``). A
    row **passes P1's KS test** (``passes_ks``) when that mean is at least ``level``: the
    run-out distribution the point predicts is, on the average seed, not rejected by P1's own
    measured blocks. The log p-value is averaged over the seeds as the objective averages the
    distances: one seed's p-value moves by a factor of several, and a median of three hinges
    on one seed. The **best** is the smallest objective among the rows that pass (the first on
    ties; among all rows if none passes). ``within_one_se``: the objective exceeds the best's by
    at most the best's standard error over the seeds (the one-standard-error rule of Breiman et
    al. 1984), so P1's Wasserstein distances cannot tell the point from the best.
    ``equivalent``: the best, and every row within one standard error that also passes the KS
    test. Rows of a refinement carry ``bootstrap_share`` (:func:`bootstrap_shares`): there
    ``equivalent`` is the best and every row that passes the KS test and scores at least as
    well as the best in at least :data:`EQUIVALENCE_SHARE` of the bootstrap resamples of P1's
    measured blocks: the uncertainty of the 41 measurements, not only that of the seeds.
    """
    if not rows:
        raise ValueError("the calibration table has no rows")
    level = float(level)
    if not (0.0 < level < 1.0):
        raise ValueError(f"the KS level must lie in (0, 1), got {level!r}")
    for row in rows:
        row["passes_ks"] = bool(float(row["ks_pvalue_geomean"]) >= level)
    candidates = [i for i, row in enumerate(rows) if row["passes_ks"]] or list(range(len(rows)))
    i_best = min(candidates, key=lambda i: (float(rows[i]["objective_m"]), i))
    within = _within_errors(rows, i_best, 1.0)
    for row, near in zip(rows, within, strict=True):
        row["within_one_se"] = near
    for i, row in enumerate(rows):
        close = (
            float(row["bootstrap_share"]) >= EQUIVALENCE_SHARE
            if "bootstrap_share" in row
            else row["within_one_se"]
        )
        row["equivalent"] = i == i_best or bool(close and row["passes_ks"])
    return i_best


def bootstrap_shares(
    observed: np.ndarray,
    simulated: Sequence[Sequence[np.ndarray]],
    i_best: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """For each calibration point, the share of bootstrap resamples of the measured blocks in
    which its objective is at most the best's.

    ``observed`` (m, 2): the measured stops in profile coordinates (run-out, lateral offset);
    ``simulated[i][j]`` (n_ij, 2): point ``i``'s simulated stops with the ``j``-th seed. A resample
    draws ``m`` of the measured blocks with replacement (``numpy.random.default_rng(seed)``,
    the same resamples for every point); the objective on it is the calibration's, the mean
    over the seeds of the run-out and the lateral Wasserstein distances, with the measured
    sample weighted by how often each block was drawn. The seeds' standard error measures only
    the simulation's noise, which more seeds shrink without end; the measured sample is what
    limits how well P1 can rank two points (Efron & Tibshirani 1993, the bootstrap of a
    difference of statistics on the same sample). The best's own share is 1."""
    observed = np.asarray(observed, dtype=np.float64)
    if observed.ndim != 2 or observed.shape[1] != 2 or observed.shape[0] < 2:
        raise ValueError(f"observed must be an (m >= 2, 2) array, got shape {observed.shape}")
    if not 0 <= i_best < len(simulated):
        raise ValueError(f"i_best {i_best} is not a point of the {len(simulated)} given")
    if resamples < 1:
        raise ValueError(f"resamples must be positive, got {resamples!r}")
    rng = np.random.default_rng(seed)
    m = observed.shape[0]
    weights = [np.bincount(rng.integers(0, m, m), minlength=m) for _ in range(resamples)]
    objective = np.empty((resamples, len(simulated)))
    for i, per_seed in enumerate(simulated):
        if not per_seed:
            raise ValueError(f"point {i} has no simulated stops")
        for b, w in enumerate(weights):
            objective[b, i] = np.mean(
                [
                    wasserstein_distance(observed[:, 0], sim[:, 0], u_weights=w)
                    + wasserstein_distance(observed[:, 1], sim[:, 1], u_weights=w)
                    for sim in per_seed
                ]
            )
    return np.mean(objective <= objective[:, [i_best]], axis=0)


def screen_for_refinement(
    rows: list[dict[str, Any]], i_best: int, factor: float = REFINE_SE_FACTOR
) -> list[int]:
    """Mark the rows of a grid's calibration table with ``screened`` and return the indices of
    those the refinement runs again: the best (``i_best``, of :func:`select_calibration`) and every
    row whose objective exceeds the best's by at most ``factor`` times the best's standard
    error over the grid's seeds. The screen is wider than one standard error: three seeds
    estimate a standard error only to within about half its value (the standard deviation of
    three samples), so a best whose three seeds happen to agree would otherwise leave out
    points that more seeds rank ahead of it."""
    factor = float(factor)
    if not (math.isfinite(factor) and factor >= 1.0):
        raise ValueError(f"the screening factor must be finite and at least 1, got {factor!r}")
    within = _within_errors(rows, i_best, factor)
    for row, near in zip(rows, within, strict=True):
        row["screened"] = near
    return [i for i, near in enumerate(within) if near]


def _within_errors(rows: list[dict[str, Any]], i_best: int, factor: float) -> list[bool]:
    """Per row: the best itself, or an objective at most the best's plus ``factor`` times its
    standard error over the seeds (unknown with one seed: the best's objective itself)."""
    se = float(rows[i_best]["objective_se_m"])
    limit = float(rows[i_best]["objective_m"]) + (factor * se if math.isfinite(se) else 0.0)
    return [i == i_best or bool(float(row["objective_m"]) <= limit) for i, row in enumerate(rows)]


def stored_calibration(path: str | os.PathLike[str] = CALIBRATION_TABLE) -> list[dict[str, Any]]:
    """The rows of a calibration table written by ``tumble validate authume --calibrate``
    (``calibration.csv``; by default the stored one,
    :data:`~tumble.validation.authume.soils.CALIBRATION_TABLE`): numbers as floats, the flags
    as booleans, ``drop_offset`` None where empty."""
    with open(path, newline="") as handle:
        raw = list(csv.DictReader(handle))
    if not raw:
        raise ValueError(f"{path}: the calibration table has no rows")

    def value(key: str, text: str) -> Any:
        if text in ("True", "False"):
            return text == "True"
        if key in ("drop_offset", "rocky_rolling_resistance") and text in ("", "None", "nan"):
            return None
        return float(text)

    return [{k: value(k, v) for k, v in row.items()} for row in raw]


def calibration_points(
    grid: Mapping[str, Iterable[float]] | Sequence[Mapping[str, Iterable[float]]],
) -> list[SoilParameters]:
    """Every combination of a grid (parameter name -> values), the last name varying fastest;
    of several grids, their points one grid after the other."""
    if not isinstance(grid, Mapping):
        return [point for one in grid for point in calibration_points(one)]
    names = [f.name for f in fields(SoilParameters)]
    unknown = sorted(set(grid) - set(names))
    if unknown:
        raise ValueError(f"unknown calibration parameter(s) {unknown}; known: {names}")
    axes = {name: tuple(float(v) for v in values) for name, values in grid.items()}
    empty = [name for name, values in axes.items() if not values]
    if empty:
        raise ValueError(f"calibration grid axis {empty[0]!r} has no values")
    return [
        SoilParameters(**dict(zip(axes, combo, strict=True))) for combo in product(*axes.values())
    ]


def calibrate(
    grid: Mapping[str, Iterable[float]]
    | Sequence[Mapping[str, Iterable[float]]] = CALIBRATION_GRID,
    scheme: str = "implicit",
    n: int = ROCKS_PER_PROFILE,
    seeds: Iterable[int] = CALIBRATION_SEEDS,
    t_max: float = T_MAX,
    workers: int = 1,
    spacing: float = 0.5,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    refine_seeds: Iterable[int] | None = None,
) -> Calibration:
    """Grid search of the soil parameters on profile **P1 only**.

    Each grid point runs the same ``n`` releases of P1 for every release seed of ``seeds`` with
    ``scheme``; the objective is ``runout_wasserstein_m + lateral_wasserstein_m`` against P1's
    measured stop points, averaged over the seeds. Each row holds the means over the seeds and
    the range of the KS p-value. P2 is never read. ``progress(i, total)`` is called after each
    run (``total`` = grid points times seeds, then the refinement's runs added).

    ``refine_seeds`` (e.g. :data:`~tumble.validation.authume.soils.REFINE_SEEDS`): the grid
    points whose objective lies within one standard error of the best
    (:func:`select_calibration`) are run again with these seeds, and the best and the
    equivalent points are chosen among them on those runs: three seeds leave a standard error
    of about 0.25 m, larger than the differences near the minimum, and which point comes first
    changes with the seeds drawn.
    """
    start = time.perf_counter()
    points = calibration_points(grid)
    seeds = _seed_tuple(seeds)
    measured = data.measured_endpoints("p1", data_dir)
    total = len(points) * len(seeds)

    rows = _calibration_rows(
        points,
        seeds,
        scheme,
        n,
        t_max,
        workers,
        spacing,
        data_dir,
        measured,
        None if progress is None else (lambda k: progress(k, total)),
    )
    i_best = select_calibration(rows)
    if refine_seeds is None:
        return Calibration(rows, points[i_best], scheme, int(n), seeds, time.perf_counter() - start)
    refine = _seed_tuple(refine_seeds)
    screened = screen_for_refinement(rows, i_best)
    candidates = [points[i] for i in screened]
    done = total
    total += len(candidates) * len(refine)
    refined, i_best = _bootstrap_ranked(
        "p1",
        candidates,
        refine,
        (scheme, n, t_max, workers, spacing, data_dir),
        measured,
        None if progress is None else (lambda k: progress(done + k, total)),
    )
    return Calibration(
        refined,
        candidates[i_best],
        scheme,
        int(n),
        refine,
        time.perf_counter() - start,
        grid_rows=rows,
        grid_seeds=seeds,
    )


def calibrate_rocky(
    base: SoilParameters,
    grid: Mapping[str, Iterable[float]] = ROCKY_CALIBRATION_GRID,
    scheme: str = "implicit",
    n: int = ROCKS_PER_PROFILE,
    seeds: Iterable[int] = REFINE_SEEDS,
    t_max: float = T_MAX,
    workers: int = 1,
    spacing: float = 0.5,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Calibration:
    """The second stage: the Red zone's parameters on profile **P2**, the only profile that
    crosses it, with every other parameter of ``base`` (the first stage's best, on P1).

    Each point of ``grid`` (fields of :class:`SoilParameters` that act on the Red zone only:
    ``rocky_rolling_resistance``, ``rocky_friction``) replaces those fields of ``base`` and runs
    P2 with every seed of ``seeds``; the rows, the best and the equivalent points follow the
    first stage's refinement (:func:`select_calibration` with :func:`bootstrap_shares` over
    P2's measured blocks). P1 is not run: its blocks never reach the Red zone, so its results
    are those of ``base`` whatever this stage chooses."""
    if not isinstance(base, SoilParameters):
        raise ValueError(f"base must be SoilParameters, got {type(base).__name__}")
    start = time.perf_counter()
    other = sorted(set(grid) - set(ROCKY_FIELDS))
    if other:
        raise ValueError(
            f"the rocky zone's stage searches only {sorted(ROCKY_FIELDS)}, got {other}"
        )
    if not grid:
        raise ValueError("the rocky zone's grid needs at least one value per parameter")
    points = list(with_rocky_zone([base], calibration_points(grid)))
    seeds = _seed_tuple(seeds)
    total = len(points) * len(seeds)
    rows, i_best = _bootstrap_ranked(
        "p2",
        points,
        seeds,
        (scheme, n, t_max, workers, spacing, data_dir),
        data.measured_endpoints("p2", data_dir),
        None if progress is None else (lambda k: progress(k, total)),
    )
    return Calibration(rows, points[i_best], scheme, int(n), seeds, time.perf_counter() - start)


def _bootstrap_ranked(
    profile: str,
    points: list[SoilParameters],
    seeds: tuple[int, ...],
    settings: tuple[str, int, float, int, float, str | os.PathLike[str] | None],
    measured: MeasuredEndpoints,
    progress: Callable[[int], None] | None,
) -> tuple[list[dict[str, Any]], int]:
    """The rows of ``points`` on ``profile`` over ``seeds`` (``settings``: scheme, rocks,
    ``t_max``, workers, spacing, data directory), each with its ``bootstrap_share`` over the
    profile's measured blocks, flagged by :func:`select_calibration`; and the best's index."""
    stops: list[list[np.ndarray]] = []
    rows = _calibration_rows(points, seeds, *settings, measured, progress, stops, profile=profile)
    i_best = select_calibration(rows)
    observed = data.profile_coordinates(profile, measured.position, settings[-1])[:, :2]
    for row, share in zip(rows, bootstrap_shares(observed, stops, i_best), strict=True):
        row["bootstrap_share"] = float(share)
    return rows, select_calibration(rows)


def two_stage_equivalent(
    first: Sequence[SoilParameters], rocky: Calibration
) -> tuple[SoilParameters, ...]:
    """Every combination of the first stage's equivalent points (``first``, the best first) with
    the rocky zone's equivalent values of :func:`calibrate_rocky` (``rocky``): the stages act on
    different zones, so each of their uncertainties goes with each of the other's. The best of
    both first."""
    return with_rocky_zone(first, rocky.equivalent)


def _seed_tuple(seeds: Iterable[int]) -> tuple[int, ...]:
    seeds = tuple(int(s) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
        raise ValueError(f"seeds must be distinct non-negative integers, got {seeds!r}")
    return seeds


def _calibration_rows(
    points: list[SoilParameters],
    seeds: tuple[int, ...],
    scheme: str,
    n: int,
    t_max: float,
    workers: int,
    spacing: float,
    data_dir: str | os.PathLike[str] | None,
    measured: MeasuredEndpoints,
    progress: Callable[[int], None] | None,
    stops: list[list[np.ndarray]] | None = None,
    profile: str = "p1",
) -> list[dict[str, Any]]:
    """One row per point: the metrics on ``profile`` averaged over ``seeds`` (:func:`calibrate`,
    :func:`calibrate_rocky`).
    ``stops``: if given, receives per point the list over the seeds of the profile coordinates
    (run-out, lateral offset) of the rocks that ended regularly."""
    rows: list[dict[str, Any]] = []
    for i, parameters in enumerate(points):
        per_seed = []
        seconds = 0.0
        if stops is not None:
            stops.append([])
        for j, seed in enumerate(seeds):
            run = run_profile(
                profile, parameters, scheme, n, seed, t_max, workers, spacing, data_dir
            )
            per_seed.append(profile_metrics(run, measured, data_dir))
            if stops is not None:
                stops[-1].append(run.coordinates[run.regular])
            seconds += run.seconds
            if progress is not None:
                progress(i * len(seeds) + j)

        means = {
            key: float(np.mean([m[key] for m in per_seed]))
            for key in (
                "runout_wasserstein_m",
                "lateral_wasserstein_m",
                "median_runout_simulated_m",
                "ks_statistic",
                "fraction_measured_inside_envelope",
            )
        }
        pvalues = [m["ks_pvalue"] for m in per_seed]
        objectives = [m["runout_wasserstein_m"] + m["lateral_wasserstein_m"] for m in per_seed]
        rows.append(
            {
                **parameters.as_dict(),
                "objective_m": means["runout_wasserstein_m"] + means["lateral_wasserstein_m"],
                # standard error of the mean over the seeds; unknown with one seed
                "objective_se_m": float(np.std(objectives, ddof=1) / math.sqrt(len(seeds)))
                if len(seeds) > 1
                else math.nan,
                "runout_wasserstein_m": means["runout_wasserstein_m"],
                "lateral_wasserstein_m": means["lateral_wasserstein_m"],
                "median_runout_simulated_m": means["median_runout_simulated_m"],
                "ks_statistic": means["ks_statistic"],
                "ks_pvalue_min": float(min(pvalues)),
                "ks_pvalue_max": float(max(pvalues)),
                # a p-value of 0 counts as the smallest positive float
                "ks_pvalue_geomean": float(
                    np.exp(np.mean(np.log(np.maximum(pvalues, np.finfo(float).tiny))))
                ),
                **{f"ks_pvalue_seed{s}": float(p) for s, p in zip(seeds, pvalues, strict=True)},
                "fraction_measured_inside_envelope": means["fraction_measured_inside_envelope"],
                "n_used": int(sum(m["n_used"] for m in per_seed)),
                "seconds": seconds,
            }
        )
    return rows
