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


#: a rock still moving at t_max slower than this, m/s, rolls on steadily rather than running
#: out: raising t_max only prolongs its roll
SLOW_SPEED = 2.0


def _timed_out_advice(speeds: Mapping[str, Any] | None) -> str:
    """What to do about the rocks still moving at t_max: raise it, unless some of them move
    slower than :data:`SLOW_SPEED` (a steady roll on a slope the soil's rolling resistance does
    not stop, which a longer t_max only prolongs)."""
    if not speeds or not speeds.get("slow"):
        return "raise t_max"
    said = f"{int(speeds['slow'])} of them move slower than {speeds['slow_below_ms']:g} m/s"
    if speeds.get("p50") is not None:
        said += f" (median speed of all {speeds['p50']:.2g} m/s)"
    return (
        f"{said}: a rock that rolls on slowly keeps its speed where the slope is steeper than "
        "its soil's rolling resistance and its impacts can stop, and a longer t_max only lets "
        "it roll further; the rolling resistance (soil rolling_resistance, tumble rockfall "
        "soils) decides where such rocks stop (docs/reach_and_start.md, 'Rocks that roll on'); "
        "raise t_max for the faster ones"
    )


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
            + _timed_out_advice(summary.get("timed_out_speed_ms"))
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
