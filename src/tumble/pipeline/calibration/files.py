"""The files of a calibration folder, written together or not at all
(:class:`tumble.io.results.ResultDir`)::

    calibration.toml   [soil] the best set, every field as tumble rockfall soils names it;
                       [[sets]] every set the data cannot reject at 5 %, with its scores
    calibration.json   every evaluated set with its scores, the settings, the observations
    report.html        observed and simulated run-out CDFs, the map of observed and simulated
                       stops, the parameter scatter of the sets, the table of the sets
    check.json         with --check: the held-out scores of the best and equivalent sets
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from tumble.io.calibration import SCORE_KEYS
from tumble.io.results import ResultDir
from tumble.io.toml_writer import toml_value
from tumble.pipeline.calibration.bayes import BATCH
from tumble.pipeline.calibration.search import Calibration

FILES = ("calibration.toml", "calibration.json", "report.html", "check.json")


def toml_text(cal: Calibration) -> str:
    """``calibration.toml`` (module docstring)."""
    lines = [
        "# tumble rockfall calibrate: the best soil set and every set the data cannot reject",
        f"# at {cal.settings['ks_level']:g} (KS p-value of the run-out); "
        'use it with [soil] calibration = "<this file>"',
        f"free = [{', '.join(json.dumps(f.text()) for f in cal.free)}]",
        f"observations = {json.dumps(cal.settings['observations'])}",
        f"best_set = {cal.best}",
        f"select = {json.dumps(cal.settings.get('select', 'objective'))}",
        "",
        "[soil]",
    ]
    lines += _fields(cal.soil_values(cal.best), "soil", [*_scores(cal.sets[cal.best])])
    for k in cal.equivalent:
        lines += ["", "[[sets]]", f"set = {k}"]
        lines += _fields(cal.soil_values(k), "sets", _scores(cal.sets[k]))
    return "\n".join(lines) + "\n"


def _fields(values: dict[str, Any], table: str, scores: list[str]) -> list[str]:
    """One set's fields, its scores and, on a soil map, one ``[TABLE.classes.CODE]`` table of
    fields per class."""
    classes = values.get("classes", {})
    lines = [f"{name} = {toml_value(v)}" for name, v in values.items() if name != "classes"]
    lines += [f"[{table}.scores]", *scores]
    for code, fields in classes.items():
        lines += [f"[{table}.classes.{code}]"]
        lines += [f"{name} = {toml_value(v)}" for name, v in fields.items()]
    return lines


def _scores(entry: dict[str, Any]) -> list[str]:
    return [f"{key} = {toml_value(entry[key])}" for key in SCORE_KEYS if key in entry]


def calibration_json(cal: Calibration) -> dict[str, Any]:
    return {
        "settings": cal.settings,
        "observed": cal.observed,
        "base_soil": cal.base_soil,
        "best": cal.best,
        "equivalent": cal.equivalent,
        "sets": [_finite(s) for s in cal.sets],
        **({"check": cal.check} if cal.check is not None else {}),
    }


def _finite(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in entry.items()
    }


def write_calibration(cal: Calibration, out: str | os.PathLike, figures: bool = True) -> Path:
    """Every file of the module docstring into ``out``, at once."""
    with ResultDir(out) as stage:
        (stage / "calibration.toml").write_text(toml_text(cal))
        text = json.dumps(calibration_json(cal), indent=1, sort_keys=False)
        (stage / "calibration.json").write_text(text + "\n")
        if cal.check is not None:
            (stage / "check.json").write_text(json.dumps(cal.check, indent=1) + "\n")
        (stage / "report.html").write_text(report_html(cal, figures))
    return Path(out)


def report_html(cal: Calibration, figures: bool = True) -> str:
    """A page: the observed and simulated run-out CDFs of the best set, the map of the observed
    and simulated stops, the parameter scatter of the sets, and the table of the best and
    equivalent sets."""
    names = [f.name for f in cal.free]
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    rows = []
    for k in [cal.best, *(k for k in cal.equivalent if k != cal.best)]:
        s = cal.sets[k]
        cells = "".join(f"<td>{s['values'][n]:.4g}</td>" for n in names)
        fresh = f"{s['fresh']['ks_pvalue']:.3g}" if "fresh" in s else ""
        rows.append(
            f"<tr><td>{k}{' (best)' if k == cal.best else ''}</td>{cells}"
            f"<td>{s.get('ks_pvalue', 0):.3g}</td><td>{s.get('median_ratio', math.nan):.3g}</td>"
            f"<td>{s.get('early_stop_share', math.nan):.3g}</td><td>{s['objective']:.3g}</td>"
            f"<td>{fresh}</td></tr>"
        )
    images = "".join(_figure(png, caption) for png, caption in _figures(cal) if figures)
    observed = cal.observed
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>tumble calibration</title>"
        "</head><body><h1>Soil calibration</h1>"
        f"<p>{observed['blocks']} observed blocks, median run-out "
        f"{observed['median_runout_m']:.1f} m; {len(cal.sets)} sets evaluated, "
        f"{len(cal.equivalent)} not rejected at {cal.settings['ks_level']:g} (KS p of the "
        f"run-out); free fields {html.escape(', '.join(cal.settings['free']))}; "
        f"{_search_text(cal.settings)}; {cal.seconds:.0f} s.</p>{images}"
        f"<table border='1'><tr><th>set</th>{head}<th>KS p</th><th>median ratio</th>"
        f"<th>early stops</th><th>objective</th><th>KS p, new orientations only</th></tr>"
        f"{''.join(rows)}</table>"
        f"{_check_html(cal, figures)}</body></html>\n"
    )


def _check_html(cal: Calibration, figures: bool) -> str:
    """The held-out check (``--check``): what it ran, whether the best set passes the rule,
    the held-out run-out CDFs of the best set and every checked set's scores."""
    c = cal.check
    if c is None:
        return ""
    verdict = "passes" if c["best_passes"] else f"fails ({html.escape(', '.join(c['failed']))})"
    text = (
        f"<h2>Held-out check</h2><p>{c['observed']['blocks']} held-out blocks "
        f"({html.escape(str(c['observations']))}), median run-out "
        f"{c['observed']['median_runout_m']:.1f} m, p05 {c['observed']['p05_runout_m']:.1f} m; "
        f"{c['orientations']} orientations each. The rule: {html.escape(c['rule'])}. "
        f"The best set {c['best']['set']} {verdict}; {sum(r['passes'] for r in c['sets'])} of "
        f"the {len(c['sets'])} checked sets pass.</p>"
    )
    if figures and c.get("best_runouts_m"):
        from tumble.viz.calibration import plot_runout_cdfs

        cdfs = plot_runout_cdfs(
            np.asarray(c["observed_runouts_m"]),
            np.asarray(c["best_runouts_m"]),
            f"simulated, best set {c['best']['set']}",
        )
        text += _figure(_png(cdfs), "Run-out of the held-out blocks and of the best set (CDFs).")
    rows = "".join(
        f"<tr><td>{r['set']}</td><td>{r.get('ks_pvalue', 0.0):.3g}</td>"
        f"<td>{r.get('median_ratio', math.nan):.3g}</td>"
        f"<td>{r.get('p05_runout_m', math.nan):.1f}</td>"
        f"<td>{r.get('inside_envelope', math.nan):.3g}</td>"
        f"<td>{'passes' if r['passes'] else html.escape('fails: ' + ', '.join(r['failed']))}"
        "</td></tr>"
        for r in c["sets"]
    )
    return (
        text + "<table border='1'><tr><th>set</th><th>KS p</th><th>median ratio</th>"
        "<th>simulated p05 (m)</th><th>inside the 95 % stop envelope</th><th>verdict</th></tr>"
        f"{rows}</table>"
    )


def _search_text(settings: dict[str, Any]) -> str:
    """How the sets were drawn and the best chosen, in a clause."""
    zoom = int(settings.get("zoom", 0))
    drawn = f"a Latin hypercube of {settings['points']} sets"
    if zoom:
        drawn += f" and {zoom} round{'s' if zoom > 1 else ''} narrowing it around the best set"
    bayes = int(settings.get("bayes", 0))
    if bayes:
        drawn += (
            f", then {bayes} sets proposed by Optuna's tree-structured Parzen estimator given "
            f"the sets before ({settings.get('batch', BATCH)} at a time)"
        )
    chosen = (
        "the best set is the medoid of the sets the observations do not reject (the least "
        "summed distance to the others, each field scaled to its range), run as many times as "
        "the refined sets"
        if settings.get("select") == "medoid"
        else "the best set is the least objective among the refined sets the observations do "
        "not reject"
    )
    return (
        f"{drawn}, the best {settings['refined']} run {settings['refine_rounds']} more times; "
        f"{chosen} (the least objective among all refined sets when they reject every one)"
    )


def _figure(png: str, caption: str) -> str:
    return (
        f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{png}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


def _figures(cal: Calibration) -> list[tuple[str, str]]:
    """``(base64 PNG, caption)`` of each figure of the report (:mod:`tumble.viz.calibration`)."""
    from tumble.viz.calibration import plot_parameter_pairs, plot_runout_cdfs, plot_stops_map

    label = f"simulated, best set {cal.best}"
    out = [
        (
            _png(plot_runout_cdfs(cal.observed_runout, cal.best_runout, label)),
            "Run-out: the observed blocks and the best set's simulated rocks (CDFs).",
        )
    ]
    if cal.terrain is not None and cal.observed_stop is not None and cal.best_stop is not None:
        assert cal.observed_release is not None
        figure = plot_stops_map(
            cal.terrain, cal.observed_release, cal.observed_stop, cal.best_stop, label
        )
        out.append((_png(figure), "Observed and simulated stops over the DEM's hillshade."))
    names = [f.name for f in cal.free]
    values = np.array([[s["values"][n] for n in names] for s in cal.sets])
    pvalue = np.array([s.get("ks_pvalue", 0.0) for s in cal.sets])
    equivalent = np.isin(np.arange(len(cal.sets)), cal.equivalent)
    pairs = plot_parameter_pairs(
        names, values, pvalue, equivalent, cal.best, cal.settings["ks_level"]
    )
    out.append(
        (
            _png(pairs),
            f"The evaluated sets (grey), the {int(equivalent.sum())} equivalent sets coloured "
            "by their KS p-value, the best set a red star.",
        )
    )
    return out


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")
