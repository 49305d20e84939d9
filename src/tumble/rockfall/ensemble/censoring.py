"""What a run's statistics cannot be trusted for, said in words: censoring by ``t_max`` and by the
edges of the DEM, failed rocks, capped contact solves (:func:`censoring_warnings`), and where rocks
left the DEM, per kind of exit (:func:`exit_warnings`); percentages as the summary line prints
them (:func:`format_percent`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def format_percent(fraction: float | None) -> str:
    """A fraction as a percentage with as many decimals as it needs, at most 3: ``0.996`` ->
    ``"99.6 %"``, ``0.0004`` -> ``"0.04 %"``, ``1/3`` -> ``"33.333 %"``.

    Exactly 0 and 1 give ``"0 %"`` and ``"100 %"``; any other value never does: one that rounds
    to either at 3 decimals is shown as ``"> 99.999 %"`` or ``"< 0.001 %"``. None and NaN give
    ``"n/a"``.
    """
    if fraction is None or not math.isfinite(fraction):
        return "n/a"
    if fraction in (0.0, 1.0):
        return f"{100 * int(fraction)} %"
    value = 100.0 * float(fraction)
    text = f"{value:.3f}"
    for decimals in range(4):
        candidate = f"{value:.{decimals}f}"
        if abs(float(candidate) - value) <= 1e-9 * max(1.0, abs(value)):
            text = candidate
            break
    shown = float(text)
    if shown == 0.0:
        return "< 0.001 %" if value > 0 else "> -0.001 %"
    if shown == 100.0:
        return "> 99.999 %" if value < 100.0 else "< 100.001 %"
    return f"{text} %"


#: a rock still moving at t_max slower than this, m/s, is coming to rest or rolling steadily;
#: a faster one is still running out
SLOW_SPEED = 2.0
#: ground gentler than this at a slow rock's last position (degrees) is where it comes to rest:
#: compact blocks set rolling at 1 m/s come to rest on planes of 10 degrees of the default soil
#: and keep rolling on 12-20 degrees (benchmarks/rolling_on.py, docs/reach_and_start.md)
GENTLE_SLOPE = 10.0


def timed_out_motion(speed: np.ndarray, slope_deg: np.ndarray) -> dict[str, Any]:
    """``summary.json["timed_out_motion"]``: the rocks still moving at t_max by what they do at
    their last position, from their speed (m/s) and the slope of the terrain there (degrees):
    ``settling``, slower than :data:`SLOW_SPEED` on ground gentler than :data:`GENTLE_SLOPE`;
    ``rolling_on``, as slow on steeper ground; ``running``, faster; ``off_terrain``, slow
    above no terrain data (no slope)."""
    speed = np.asarray(speed, dtype=np.float64)
    slope_deg = np.asarray(slope_deg, dtype=np.float64)
    slow = speed < SLOW_SPEED
    return {
        "slow_below_ms": SLOW_SPEED,
        "gentle_below_deg": GENTLE_SLOPE,
        "settling": int(np.sum(slow & (slope_deg < GENTLE_SLOPE))),
        "rolling_on": int(np.sum(slow & (slope_deg >= GENTLE_SLOPE))),
        "running": int(np.sum(~slow)),
        "off_terrain": int(np.sum(slow & ~np.isfinite(slope_deg))),
    }


def _timed_out_advice(summary: Mapping[str, Any]) -> str:
    """What to do about the rocks still moving at t_max: raise it, with what the rocks do at
    their last position (:func:`timed_out_motion`): slow on gentle ground they come to rest, slow
    on a steeper slope they roll on to where it eases, faster they are still running out."""
    longer = f"raise t_max (to {2.0 * float(summary['t_max']):g} s, say)"
    motion = summary.get("timed_out_motion")
    if not motion:  # a summary of an earlier release: the speeds only
        return longer
    slow, gentle = f"{motion['slow_below_ms']:g} m/s", f"{motion['gentle_below_deg']:g} degrees"
    said = []
    if motion["settling"]:
        said.append(
            f"{motion['settling']} move slower than {slow} on ground gentler than {gentle}, "
            "where rocks come to rest: a longer t_max lets them stop"
        )
    if motion["rolling_on"]:
        said.append(
            f"{motion['rolling_on']} roll slower than {slow} on slopes of {gentle} or more: a "
            "longer t_max lets them roll on to where the slope eases and stop there; the soil's "
            "rolling resistance decides on which slopes they keep rolling (soil "
            "rolling_resistance, tumble rockfall soils; docs/reach_and_start.md, 'Rocks that "
            "roll on')"
        )
    if motion["running"]:
        said.append(f"{motion['running']} move at {slow} or faster and are still running out")
    if motion.get("off_terrain"):
        said.append(f"{motion['off_terrain']} move slowly above no terrain data")
    speed = (summary.get("timed_out_speed_ms") or {}).get("p50")
    slope = (summary.get("timed_out_slope_deg") or {}).get("p50")
    median = ""
    if speed is not None and slope is not None:
        median = f" (median speed {speed:.2g} m/s, median slope {slope:.1f} degrees)"
    return f"{longer}; at their last position{median}, " + "; ".join(said)


def censoring_warnings(summary: dict, exits: Mapping[str, np.ndarray] | None = None) -> list[str]:
    """What the statistics of a run do not show, in sentences for the screen and the report:
    rocks that left the DEM (per kind of exit when the summary has ``exits``:
    :func:`exit_warnings`, with where they left from the exit table ``exits``), were still
    moving at ``t_max``, failed numerically, or steps whose contact solver hit its iteration
    cap."""
    f = summary["fractions"]
    warnings = []
    if "exits" in summary:
        warnings += exit_warnings(summary["exits"], exits, summary["n_rocks"])
    elif f["left_domain"] > 0:
        warnings.append(
            f"{format_percent(f['left_domain'])} of the rocks left the DEM: their run-out is where "
            "they left it (a lower bound), they are missing from the deposits, and run-out "
            "percentiles describe a censored sample; extend the DEM downslope"
        )
    if f["timed_out"] > 0:
        warnings.append(
            f"{format_percent(f['timed_out'])} of the rocks were still moving at t_max = "
            f"{summary['t_max']:g} s: their run-out is a lower bound and they are not deposits; "
            + _timed_out_advice(summary)
        )
    if f["failed"] > 0:
        warnings.append(
            f"{format_percent(f['failed'])} of the rocks failed numerically "
            f"({', '.join(summary.get('failures', [])) or 'see deposits.csv status'}): they are "
            "left out of run-out and deposits and their maxima end at the failure; reduce dt"
        )
    if summary.get("pgs_cap_hits", 0) > 0:
        warnings.append(
            f"{summary['pgs_cap_hits']} steps hit the iteration cap of the contact solver "
            "(solver.pgs_max_iter): their percussions are approximate"
        )
    return warnings


#: holes named one by one in the warnings; the rest are counted together
NAMED_HOLES = 5


def _where(table: Mapping[str, np.ndarray], members: np.ndarray) -> str:
    x = np.asarray(table["x"], dtype=np.float64)[members]
    y = np.asarray(table["y"], dtype=np.float64)[members]
    if np.ptp(x) < 0.05 and np.ptp(y) < 0.05:
        return f"at x = {x[0]:.1f}, y = {y[0]:.1f}"
    return f"between x = {x.min():.1f} and {x.max():.1f}, y = {y.min():.1f} and {y.max():.1f}"


def exit_warnings(
    exits: Mapping[str, Any], table: Mapping[str, np.ndarray] | None, n_rocks: int
) -> list[str]:
    """Sentences for the screen and the report, one per kind of exit that occurred (one per
    hole, up to :data:`NAMED_HOLES`), with what it does to the results and the advice that fits
    it; ``table`` (the exit table) adds where the rocks left."""
    counts = exits["counts"]

    def share(count: int) -> str:
        return f"{format_percent(count / n_rocks)} of the rocks ({count})"

    def where(kind: str) -> str:
        if table is None:
            return ""
        members = np.asarray(table["kind"]) == kind
        return f" {_where(table, members)}" if members.any() else ""

    warnings = []
    if counts["downslope_edge"]:
        warnings.append(
            f"{share(counts['downslope_edge'])} left the DEM across its downslope edge"
            f"{where('downslope_edge')} (exits.gpkg): their run-out is where they left it (a "
            "lower bound), they are missing from the deposits, and run-out percentiles "
            "describe a censored sample; extend the DEM downslope"
        )
    if counts["side_edge"]:
        warnings.append(
            f"{share(counts['side_edge'])} left the DEM across a side edge{where('side_edge')} "
            "(exits.gpkg), moving across or up the slope: the lateral spread and the reach "
            "beyond that edge are cut off and these rocks are missing from the deposits; extend "
            "the DEM beyond its sides there"
        )
    holes = list(exits.get("holes") or [])
    holes.sort(key=lambda h: -int(h["rocks"]))
    for record in holes[:NAMED_HOLES]:
        warnings.append(
            f"{share(int(record['rocks']))} fell into nodata hole {record['hole']} of the DEM, "
            f"inside its footprint at x = {record['x']:.1f}, y = {record['y']:.1f} "
            f"({record['cells']} nodata cells, {record['area_m2']:.0f} m2), in their run-out "
            "path: the DEM has no terrain there, so these rocks are lost at the hole and missing "
            "from the run-out and the deposits beyond it; fill the hole (e.g. gdal_fillnodata.py "
            "or a survey of the gap) or accept that rocks are lost there"
        )
    rest = holes[NAMED_HOLES:]
    if rest:
        lost = sum(int(h["rocks"]) for h in rest)
        warnings.append(
            f"{share(lost)} fell into {len(rest)} further nodata holes of the DEM "
            "(summary.json exits.holes, exits.gpkg): fill them or accept that rocks are lost there"
        )
    return warnings
