"""Measured against simulated stop points of the Authume tests: the metrics.

Metrics (:func:`profile_metrics`), in the horizontal plane only (the measured stop heights lie
2.5-2.9 m above the terrain mesh, see :mod:`tumble.validation.authume.data`):

* run-out: distance along the profile from the drop line
  (:func:`~tumble.validation.authume.data.profile_coordinates`), lateral: the offset across it;
  medians, quantiles and the 1-Wasserstein distances between the measured and simulated samples
  (:func:`wasserstein`, the area between the two empirical CDFs, in metres);
* ``fraction_measured_inside_envelope``: the fraction of measured stop points inside the
  simulated 95 % stop envelope :func:`stop_envelope`, the highest-density region of a Gaussian
  kernel density estimate of the simulated stop points (isotropic, standard deviation
  ``bandwidth``, default :data:`ENVELOPE_BANDWIDTH`) whose density threshold is the 5 % quantile
  of the estimate at the simulated stop points themselves, so that the region holds 95 % of them
  (Hyndman 1996). Unlike a convex hull it follows several clusters (the quarry's benches) and
  excludes the empty ground between them;
* ``ks_statistic``, ``ks_pvalue``: the two-sample Kolmogorov-Smirnov test of the simulated
  against the measured run-out (:func:`kolmogorov_smirnov`); a p-value below 0.05 rejects at the
  5 % level that both samples come from one distribution.

The calibration on P1 that these metrics score is in
:mod:`tumble.validation.authume.calibration`; :func:`pooled_metrics` scores the pooled
prediction of its equivalent sets.

References: B. Garcia, P. Villard, V. Richefeu, D. Daudon, Eng. Geol. 310 (2022) 106855.
F. Bourrier, D. Toe, B. Garcia, J. Baroth, S. Lambert, Landslides 18 (2021) 639-654.
R. J. Hyndman, Computing and graphing highest density regions, Am. Stat. 50 (1996) 120-126.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import ks_2samp, wasserstein_distance

from tumble.validation.authume import data
from tumble.validation.authume.data import MeasuredEndpoints
from tumble.validation.authume.runs import ProfileRun
from tumble.validation.authume.terrain import ZONE_OUTSIDE, authume_terrain

#: Stop envelope: content and kernel standard deviation (m).
ENVELOPE_CONTENT = 0.95
ENVELOPE_BANDWIDTH = 3.0

# ---------------------------------------------------------------------------------------------
# metrics


def _sample(values: ArrayLike, name: str, ndim: int = 1) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != ndim or arr.shape[0] == 0 or (ndim == 2 and arr.shape[1] != 2):
        shape = "(n,)" if ndim == 1 else "(n, 2)"
        raise ValueError(f"{name} must be a non-empty array of shape {shape}, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def wasserstein(measured: ArrayLike, simulated: ArrayLike) -> float:
    """1-Wasserstein distance between two samples of a distance (m): the area between their
    empirical CDFs (``scipy.stats.wasserstein_distance``)."""
    return float(
        wasserstein_distance(_sample(measured, "measured"), _sample(simulated, "simulated"))
    )


def kolmogorov_smirnov(measured: ArrayLike, simulated: ArrayLike) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov test of two samples of a distance: the statistic (the
    largest gap between the empirical CDFs) and its two-sided p-value
    (``scipy.stats.ks_2samp``, exact for small samples, asymptotic otherwise)."""
    result = ks_2samp(_sample(simulated, "simulated"), _sample(measured, "measured"))
    return float(result.statistic), float(result.pvalue)


@dataclass(frozen=True, eq=False)
class StopEnvelope:
    """The highest-density region of a kernel density estimate of stop points (module docstring).

    ``points`` (n, 2): the simulated stop points; ``bandwidth``: standard deviation of the
    isotropic Gaussian kernel (m); ``level``: the density threshold (1/m^2); ``content``: the
    fraction of ``points`` the region was built to hold.
    """

    points: np.ndarray
    bandwidth: float
    level: float
    content: float

    def density(self, xy: ArrayLike) -> np.ndarray:
        """Kernel density estimate at points (..., 2), 1/m^2 (integrates to 1 over the plane)."""
        xy = np.asarray(xy, dtype=np.float64)
        if xy.shape[-1:] != (2,):
            raise ValueError(f"points must have shape (..., 2), got {xy.shape}")
        flat = xy.reshape(-1, 2)
        out = np.empty(flat.shape[0])
        h2 = self.bandwidth**2
        norm = 1.0 / (2.0 * math.pi * h2 * self.points.shape[0])
        for lo in range(0, flat.shape[0], 2048):
            chunk = flat[lo : lo + 2048]
            d2 = ((chunk[:, None, :] - self.points[None, :, :]) ** 2).sum(axis=-1)
            out[lo : lo + 2048] = norm * np.exp(-0.5 * d2 / h2).sum(axis=1)
        return out.reshape(xy.shape[:-1])

    def contains(self, xy: ArrayLike) -> np.ndarray:
        """Whether points (..., 2) lie in the envelope (density at least :attr:`level`)."""
        return self.density(xy) >= self.level

    def area(self, cell: float = 0.25) -> float:
        """Area of the envelope (m^2), counted on a square grid of spacing ``cell`` (m) that
        covers the points and four bandwidths around them."""
        cell = float(cell)
        if not (math.isfinite(cell) and cell > 0.0):
            raise ValueError(f"cell must be positive, got {cell!r}")
        lo = self.points.min(axis=0) - 4.0 * self.bandwidth
        hi = self.points.max(axis=0) + 4.0 * self.bandwidth
        gx = np.arange(lo[0] + 0.5 * cell, hi[0], cell)
        gy = np.arange(lo[1] + 0.5 * cell, hi[1], cell)
        inside = self.contains(np.stack(np.meshgrid(gx, gy), axis=-1))
        return float(inside.sum()) * cell * cell


def stop_envelope(
    points: ArrayLike, content: float = ENVELOPE_CONTENT, bandwidth: float = ENVELOPE_BANDWIDTH
) -> StopEnvelope:
    """The region of highest simulated stop density holding the fraction ``content`` of the
    stop points ``points`` (n, 2): its threshold is the density at the ``floor((1 - content)
    n)``-th lowest of the points, so that at least ``content n`` of them lie inside."""
    points = np.ascontiguousarray(_sample(points, "simulated stop points", ndim=2))
    content, bandwidth = float(content), float(bandwidth)
    if not (0.0 < content <= 1.0):
        raise ValueError(f"content must lie in (0, 1], got {content!r}")
    if not (math.isfinite(bandwidth) and bandwidth > 0.0):
        raise ValueError(f"bandwidth must be positive, got {bandwidth!r}")
    envelope = StopEnvelope(points, bandwidth, 0.0, content)
    at_points = np.sort(envelope.density(points))
    level = float(at_points[math.floor((1.0 - content) * points.shape[0] + 1e-9)])
    return StopEnvelope(points, bandwidth, level, content)


def fraction_inside(envelope: StopEnvelope, points: ArrayLike) -> float:
    """Fraction of ``points`` (n, 2) inside the envelope."""
    points = _sample(points, "measured stop points", ndim=2)
    return float(envelope.contains(points).mean())


def _quantiles(values: np.ndarray) -> dict[str, float]:
    levels = (0.05, 0.25, 0.5, 0.75, 0.95)
    values = np.quantile(values, levels)
    return {f"p{round(p * 100):02d}": float(v) for p, v in zip(levels, values, strict=True)}


def sample_metrics(
    profile: str | int,
    stops: ArrayLike,
    measured: MeasuredEndpoints,
    data_dir: str | os.PathLike[str] | None = None,
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
) -> dict[str, Any]:
    """Measured against simulated stop points ``stops`` (n, 2 or 3) of a profile: the run-out
    and lateral metrics, the KS test and the stop envelope (module docstring)."""
    stops = np.asarray(stops, dtype=np.float64)
    if stops.ndim == 2 and stops.shape[1] == 3:
        stops = stops[:, :2]  # heights carry no information (module docstring)
    stops = _sample(stops, "simulated stop points", ndim=2)
    simulated = data.profile_coordinates(profile, stops, data_dir)
    observed = data.profile_coordinates(profile, measured.position, data_dir)
    envelope = stop_envelope(stops, content, bandwidth)
    ks_statistic, ks_pvalue = kolmogorov_smirnov(observed[:, 0], simulated[:, 0])
    return {
        "median_runout_measured_m": float(np.median(observed[:, 0])),
        "median_runout_simulated_m": float(np.median(simulated[:, 0])),
        "runout_wasserstein_m": wasserstein(observed[:, 0], simulated[:, 0]),
        "lateral_wasserstein_m": wasserstein(observed[:, 1], simulated[:, 1]),
        "ks_statistic": ks_statistic,
        "ks_pvalue": ks_pvalue,
        "fraction_measured_inside_envelope": fraction_inside(envelope, measured.position[:, :2]),
        "runout_measured_quantiles_m": _quantiles(observed[:, 0]),
        "runout_simulated_quantiles_m": _quantiles(simulated[:, 0]),
        "median_lateral_measured_m": float(np.median(observed[:, 1])),
        "median_lateral_simulated_m": float(np.median(simulated[:, 1])),
        "lateral_spread_measured_m": float(np.std(observed[:, 1])),
        "lateral_spread_simulated_m": float(np.std(simulated[:, 1])),
        "envelope": {
            "content": content,
            "bandwidth_m": bandwidth,
            "level_per_m2": envelope.level,
            "area_m2": envelope.area(),
        },
        "n_measured": int(observed.shape[0]),
    }


def profile_metrics(
    run: ProfileRun,
    measured: MeasuredEndpoints,
    data_dir: str | os.PathLike[str] | None = None,
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
) -> dict[str, Any]:
    """Measured against simulated stop points of one profile and scheme (module docstring):
    :func:`sample_metrics` of the rocks that ended regularly, with the run's parameters,
    status counts and timing."""
    ok = run.regular
    if not ok.any():
        raise ValueError(f"no rock of {run.profile} ({run.scheme}) ended regularly")
    metrics = sample_metrics(run.profile, run.stop[ok], measured, data_dir, content, bandwidth)
    return {
        **metrics,
        "soil_parameters": run.parameters.as_dict(),
        "soil": run.parameters.table(),
        "n_simulated": len(run),
        "n_used": int(ok.sum()),
        "status": run.status_counts(),
        "fraction_stopped_outside_survey": _outside_fraction(run, ok, data_dir),
        "seconds": run.seconds,
    }


def pooled_metrics(
    runs: Iterable[ProfileRun],
    measured: MeasuredEndpoints,
    data_dir: str | os.PathLike[str] | None = None,
    content: float = ENVELOPE_CONTENT,
    bandwidth: float = ENVELOPE_BANDWIDTH,
) -> dict[str, Any]:
    """:func:`sample_metrics` of the stop points of several runs of one profile and scheme
    pooled, each run weighted by its rocks (runs of the same releases with different
    parameters: the prediction over the parameter sets), with each run's parameters and own KS
    p-value."""
    runs = list(runs)
    if not runs or len({(run.profile, run.scheme) for run in runs}) != 1:
        raise ValueError("pooled runs must be one or more runs of one profile and scheme")
    if not all(run.regular.any() for run in runs):
        raise ValueError(f"a run of {runs[0].profile} has no rock that ended regularly")
    stops = np.concatenate([run.stop[run.regular] for run in runs])
    metrics = sample_metrics(runs[0].profile, stops, measured, data_dir, content, bandwidth)
    observed = data.profile_coordinates(runs[0].profile, measured.position, data_dir)[:, 0]
    if len(runs) == 1 and runs[0].soil_set is not None:
        # one run whose rocks drew their sets (soil.uncertainty = "sets"): per set, its rocks
        run = runs[0]
        drawn = np.asarray(run.soil_set)
        parameters = [p.as_dict() for p in run.sets]
        per_set = [
            kolmogorov_smirnov(observed, run.coordinates[run.regular & (drawn == i), 0])[1]
            if np.any(run.regular & (drawn == i))
            else float("nan")
            for i in range(len(run.sets))
        ]
        rocks_per_set = np.bincount(drawn, minlength=len(run.sets)).tolist()
    else:
        parameters = [run.parameters.as_dict() for run in runs]
        per_set = [kolmogorov_smirnov(observed, run.coordinates[run.regular, 0])[1] for run in runs]
        rocks_per_set = [len(run) for run in runs]
    return {
        **metrics,
        "soil_parameters": parameters,
        "ks_pvalue_per_set": per_set,
        "rocks_per_set": rocks_per_set,
        "n_simulated": sum(len(run) for run in runs),
        "n_used": int(stops.shape[0]),
        "seconds": sum(run.seconds for run in runs),
    }


def _outside_fraction(
    run: ProfileRun, ok: np.ndarray, data_dir: str | os.PathLike[str] | None = None
) -> float:
    terrain = authume_terrain(data_dir, run.spacing)
    xy = run.stop[ok, :2]
    inside = terrain.contains(xy[:, 0], xy[:, 1])
    zone = np.full(xy.shape[0], ZONE_OUTSIDE, dtype=np.float64)
    if inside.any():
        zone[inside] = terrain.sample("zone", xy[inside, 0], xy[inside, 1])
    return float(np.mean(zone == ZONE_OUTSIDE))
