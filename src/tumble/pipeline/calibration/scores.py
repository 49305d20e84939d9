"""How well a soil's simulated blocks match the observed ones (``docs/calibration.md``).

* ``wasserstein_rel``: the first Wasserstein distance between the observed and simulated
  horizontal run-outs (``scipy.stats.wasserstein_distance``), over the observed median run-out;
* ``ks_statistic``, ``ks_pvalue``: the two-sample Kolmogorov-Smirnov test of the run-outs
  (:func:`tumble.validation.authume.metrics.kolmogorov_smirnov`);
* ``median_ratio``: simulated over observed median run-out;
* ``early_stop_share``: the share of simulated rocks that stopped short of half the observed
  5th percentile of the run-out, and ``early_stops_ok``: the simulated 5th percentile is at least
  half the observed one (the Tschamut criterion of issue #48);
* ``stop_distance_median_m``: the spatial score, per block the median horizontal distance of its
  simulated stops from its observed stop, and their median over the blocks (a point-to-point
  error as Dorren et al. 2006 report for Rockyfor3D's validation; not in the objective);
* ``failed_share``: rocks that ended otherwise than stopped, left the DEM, timed out or caught.

The objective, smaller is better: ``wasserstein_rel + early_stop_share + failed_share``.
A set is *equivalent* (the data cannot reject it) when ``ks_pvalue >= KS_LEVEL``; the objective
ranks the equivalent sets before the others (:func:`tumble.pipeline.calibration.search.ranked`),
so the best set is one the data cannot reject whenever a refined set is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import wasserstein_distance

from tumble.validation.authume.metrics import kolmogorov_smirnov

#: level of the Kolmogorov-Smirnov test: a set with a p-value at least this is not rejected
KS_LEVEL = 0.05
#: the early-stop threshold as a share of the observed 5th percentile of the run-out
EARLY_SHARE_OF_P05 = 0.5


def runout_scores(
    observed: np.ndarray,
    simulated: np.ndarray,
    regular: np.ndarray,
    observed_stop: np.ndarray | None = None,
    simulated_stop: np.ndarray | None = None,
    block: np.ndarray | None = None,
) -> dict[str, Any]:
    """The scores of the module docstring: ``observed`` (m,) run-outs of the observed blocks,
    ``simulated`` (n,) of the simulated rocks and ``regular`` (n,) which of them ended
    regularly; with ``observed_stop`` (m, 2), ``simulated_stop`` (n, 2) and ``block`` (n,) the
    observed block of each rock, the spatial score too."""
    observed = np.asarray(observed, dtype=np.float64)
    simulated = np.asarray(simulated, dtype=np.float64)
    measured_median = float(np.median(observed))
    used = simulated[regular]
    failed = 1.0 - float(np.mean(regular)) if len(regular) else 1.0
    out: dict[str, Any] = {"rocks": len(simulated), "failed_share": failed}
    if used.size == 0:
        out.update(objective=float("inf"), ks_pvalue=0.0)
        return out
    threshold = EARLY_SHARE_OF_P05 * float(np.percentile(observed, 5))
    wasserstein = float(wasserstein_distance(observed, used)) / measured_median
    ks_d, ks_p = kolmogorov_smirnov(observed, used)
    early = float(np.mean(used < threshold))
    out.update(
        objective=wasserstein + early + failed,
        wasserstein_rel=wasserstein,
        ks_statistic=ks_d,
        ks_pvalue=ks_p,
        median_ratio=float(np.median(used)) / measured_median,
        median_runout_m=float(np.median(used)),
        p05_runout_m=float(np.percentile(used, 5)),
        early_stop_share=early,
        early_stops_ok=bool(np.percentile(used, 5) >= threshold),
    )
    if observed_stop is not None and simulated_stop is not None and block is not None:
        distance = np.hypot(*(simulated_stop - observed_stop[block]).T)
        per_block = [np.median(distance[block == b]) for b in np.unique(block)]
        out["stop_distance_median_m"] = float(np.median(per_block))
    return out


def observed_summary(observed: np.ndarray) -> dict[str, float]:
    """The observed run-outs in a few numbers (m)."""
    return {
        "blocks": len(observed),
        "median_runout_m": float(np.median(observed)),
        "p05_runout_m": float(np.percentile(observed, 5)),
        "p95_runout_m": float(np.percentile(observed, 95)),
    }
