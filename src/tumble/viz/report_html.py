"""The text of a run's report: numbers, percentages, tables, configuration and provenance as
HTML (:mod:`tumble.viz.run_report`)."""

from __future__ import annotations

import base64
import html
import json
import math
import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.io.overrides import flatten_keys
from tumble.rockfall.ensemble.censoring import format_percent
from tumble.viz.report_labels import column_label

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain


#: the per-rock statistics of ``summary.json``: (label, unit, path of keys in the summary)
STATISTICS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("kinetic energy (translation + rotation)", "kJ", ("kinetic_energy_kJ", "rock_max")),
    ("velocity of the centre of mass", "m/s", ("velocity_ms", "rock_max")),
    ("rotational velocity", "rev/s", ("rotational_velocity_rps", "rock_max")),
    (
        "vertical jump height of the centre of mass (flights after the first contact)",
        "m",
        ("jump_height_m", "rock_max"),
    ),
    (
        "release drop (centre of mass above the terrain before the first contact)",
        "m",
        ("release_drop_m",),
    ),
    ("run-out (horizontal, release to final point)", "m", ("runout_m",)),
    ("lateral spread (offset across the main direction)", "m", ("lateral_spread_m",)),
)

#: outcome of the rocks: key of ``summary["fractions"]`` -> label
OUTCOMES = {
    "stopped": "stopped on the DEM",
    "left_domain": "left the DEM",
    "timed_out": "still moving at t_max",
    "failed": "numerical failure",
}

#: records rendered as their own tables: summary key -> heading
RECORD_TABLES = {"barriers": "Barriers", "sources": "Release sources", "classes": "Rock classes"}


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
  color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h3 { margin-top: 1.5em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f2f2; } td.text { text-align: left; }
figure { margin: 1.5em 0; } img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
.note, .ci { color: #555; font-size: 0.92em; } .ci { white-space: nowrap; }
.warnings { border: 2px solid #b34700; background: #fff3e6; padding: 0.6em 1.2em;
  margin: 1em 0; border-radius: 4px; }
.warnings h2 { margin-top: 0.2em; border: none; color: #b34700; font-size: 1.2em; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.8em; white-space: pre-wrap;
  overflow-wrap: anywhere; font-size: 0.88em; }
.wide { max-width: 100%; overflow-x: auto; }
th { font-weight: 600; vertical-align: bottom; }
@page { size: A4; margin: 14mm 12mm 16mm 12mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 9.5pt; line-height: 1.3; }
  h1 { font-size: 15pt; } h2 { font-size: 12.5pt; margin-top: 1.2em; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  figure, .warnings, tr, img { break-inside: avoid; page-break-inside: avoid; }
  figure { margin: 0.8em 0; } img { max-height: 235mm; width: auto; border: none; }
  table { font-size: 7.5pt; width: 100%; } th, td { padding: 2px 4px; }
  .wide { overflow: visible; } .ci { white-space: normal; }
  pre { font-size: 7.5pt; }
  thead { display: table-header-group; }
}
"""


#: percentages as every output of a run writes them (never 0 % or 100 % unless exact)
percent = format_percent


def number(value: Any) -> str:
    """A value of the summary as text: 4 significant digits, full digits from 10 000 on (no
    exponent for coordinates or counts), ``n/a`` for None and NaN."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not math.isfinite(value):
            return "n/a" if math.isnan(value) else str(value)
        if abs(value) >= 1e4:
            return f"{value:.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(number(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return json.dumps(value, default=str)
    return str(value)


def _with_interval(value: Any, interval: Any) -> str:
    """HTML of a value and, if ``interval`` is a [low, high] pair, the interval beside it."""
    text = html.escape(number(value))
    if isinstance(interval, (list, tuple)) and len(interval) == 2:
        low, high = (html.escape(number(v)) for v in interval)
        text += f' <span class="ci">[{low}, {high}]</span>'
    return text


def crs_unit(crs: Any) -> str:
    """Short name of the linear unit of a CRS (``linear_units`` of a rasterio CRS): ``m``,
    ``ft``, ``US ft``; ``m`` without a CRS or a unit."""
    units = getattr(crs, "linear_units", None)
    if not units or units == "unknown":
        return "m"
    short = {"metre": "m", "meter": "m", "foot": "ft", "us survey foot": "US ft"}
    return short.get(str(units).lower(), str(units))


def _data_uri(path: Path) -> str:
    mime = {
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".gif": "image/gif",
        ".svg": "image/svg+xml",
        ".webp": "image/webp",
    }.get(path.suffix.lower())
    if mime is None:
        raise ValueError(f"{path}: not an image the report can embed (png, jpg, gif, svg, webp)")
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _figure(path: Path, relative: str, caption: str) -> str:
    return (
        f'<figure><img alt="{html.escape(caption)}" src="{_data_uri(path)}">'
        f"<figcaption>{html.escape(caption)} <span class='note'>File: "
        f"<code>{html.escape(relative)}</code>.</span></figcaption></figure>"
    )


def _cell(value: Any, interval: Any = None, text: bool = False) -> str:
    css = ' class="text"' if text else ""
    return f"<td{css}>{_with_interval(value, interval)}</td>"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table from escaped header texts and rows of ready ``<td>`` cells, in a box that
    scrolls on a narrow screen rather than clipping it."""
    header = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return (
        f"<div class='wide'><table><thead><tr>{header}</tr></thead><tbody>{body}</tbody>"
        "</table></div>"
    )


def _value_cell(key: str, value: Any, interval: Any = None) -> str:
    if (
        any("fraction" in part for part in key.split("."))
        and isinstance(value, (float, int))
        and not isinstance(value, bool)
        and 0.0 <= value <= 1.0
    ):
        return f"<td>{html.escape(percent(value))}</td>"
    return _cell(value, interval, text=isinstance(value, str))


#: a table of records with more columns than this is printed turned: one column per record
MAX_COLUMNS = 8


def records_table(records: Sequence[Mapping[str, Any]]) -> str:
    """Any list of records (dicts, nested dicts flattened to dotted column names) as a table
    whose headers are words with units (:func:`column_label`); a column ``<key>_ci``
    ([low, high]) is shown beside ``<key>``, not as a column of its own. More than
    :data:`MAX_COLUMNS` columns for a few records (a release area's or a barrier's statistics)
    are turned, one row per quantity and one column per record, so that the table fits a
    page."""
    flat = [flatten_keys(r) for r in records]
    columns: list[str] = []
    for row in flat:
        columns += [k for k in row if k not in columns]
    shown = [c for c in columns if not (c.endswith("_ci") and c[:-3] in columns)]
    if len(shown) > MAX_COLUMNS and len(flat) <= MAX_COLUMNS - 2:
        key = shown[0]
        head = [html.escape(column_label(key))] + [html.escape(number(r.get(key))) for r in flat]
        body = [
            [_cell(column_label(c), text=True)]
            + [_value_cell(c, row.get(c), row.get(f"{c}_ci")) for row in flat]
            for c in shown[1:]
        ]
        return _table(head, body)
    rows = [[_value_cell(c, row.get(c), row.get(f"{c}_ci")) for c in shown] for row in flat]
    return _table([html.escape(column_label(c)) for c in shown], rows)


def values_table(values: Mapping[str, Any]) -> str:
    """Scalars and nested dicts (dotted names) as a two-column table; intervals beside values."""
    flat = flatten_keys(values)
    rows = [
        [_cell(column_label(key), text=True), _value_cell(key, value, flat.get(f"{key}_ci"))]
        for key, value in flat.items()
        if not (key.endswith("_ci") and key[:-3] in flat)
    ]
    return _table(["quantity", "value"], rows)


def _warnings(summary: Mapping[str, Any]) -> str:
    warnings = [str(w) for w in summary.get("warnings") or []]
    if not warnings:
        return ""
    items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings)
    title = "Warning" if len(warnings) == 1 else f"{len(warnings)} warnings"
    return (
        f'<div class="warnings" role="alert"><h2>{title}: read before using the results</h2>'
        f"<ul>{items}</ul></div>"
    )


def _statistics(summary: Mapping[str, Any]) -> str:
    entries = []
    for label, unit, keys in STATISTICS:
        stats: Any = summary
        for key in keys:
            stats = stats.get(key) if isinstance(stats, Mapping) else None
        if isinstance(stats, Mapping):
            entries.append((label, unit, stats))
    if not entries:
        return "<p class='note'>The summary holds no per-rock statistics.</p>"
    columns: list[str] = []
    for _, _, stats in entries:
        columns += [
            k for k in stats if not k.endswith("_ci") and k != "samples" and k not in columns
        ]
    names = {"mean": "mean", "std": "std", "p50": "median (p50)", "p95": "p95", "max": "max"}
    rows = [
        [_cell(label, text=True), _cell(unit, text=True)]
        + [
            _cell(stats[c], stats.get(f"{c}_ci")) if c in stats else "<td>&ndash;</td>"
            for c in columns
        ]
        for label, unit, stats in entries
    ]
    head = ["per rock", "unit", *(html.escape(names.get(c, c)) for c in columns)]
    return _table(head, rows)


def _path_statistics(summary: Mapping[str, Any]) -> str:
    rows = []
    for label, unit, keys in STATISTICS:
        path = summary.get(keys[0], {})
        path = path.get("path") if isinstance(path, Mapping) else None
        if isinstance(path, Mapping):
            rows.append(
                [
                    _cell(label, text=True),
                    _cell(unit, text=True),
                    _cell(path.get("mean"), path.get("mean_ci")),
                    _cell(path.get("std"), path.get("std_ci")),
                    _cell(path.get("samples")),
                ]
            )
    if not rows:
        return ""
    return (
        "<h3>Along the paths</h3><p class='note'>Mean and standard deviation over the saved "
        "samples of the moving rocks (the jump height over the samples in flight after the "
        "first contact: the fall from the release is not a jump).</p>"
        + _table(["quantity", "unit", "mean", "std", "samples"], rows)
    )


def _outcomes(summary: Mapping[str, Any]) -> str:
    fractions = summary.get("fractions")
    if not isinstance(fractions, Mapping):
        return ""
    n = summary.get("n_rocks")
    rows = []
    for key, value in fractions.items():
        known = isinstance(n, int) and isinstance(value, (int, float))
        count = str(round(value * n)) if known else "n/a"
        rows.append(
            [
                _cell(OUTCOMES.get(key, key.replace("_", " ")), text=True),
                f"<td>{html.escape(percent(value))}</td>",
                f"<td>{count}</td>",
            ]
        )
    return _table(["outcome of the rocks", "share", "rocks"], rows)


#: the kinds of exit of ``summary["exits"]`` -> label (:mod:`tumble.rockfall.exits`)
EXIT_LABELS = {
    "downslope_edge": "across the downslope edge",
    "side_edge": "across a side edge",
    "nodata_hole": "into a nodata hole inside the footprint",
}


def _exit_tables(summary: Mapping[str, Any]) -> str:
    """Where the rocks that left the DEM left it: rocks and share per kind, the holes they fell
    into, per source for release areas, and the rule of the kinds."""
    exits = summary.get("exits")
    if not isinstance(exits, Mapping) or not exits.get("rocks"):
        return ""
    counts, fractions = exits.get("counts") or {}, exits.get("fractions") or {}
    rows = [
        [
            _cell(label, text=True),
            f"<td>{html.escape(percent(fractions.get(kind)))}</td>",
            _cell(counts.get(kind)),
        ]
        for kind, label in EXIT_LABELS.items()
    ]
    parts = [
        "<h3>Where rocks left the DEM</h3>",
        _table(["left the DEM", "share of all rocks", "rocks"], rows),
    ]
    holes = exits.get("holes")
    if isinstance(holes, list) and holes:
        parts += ["<p class='note'>Nodata holes the rocks fell into:</p>", records_table(holes)]
    sources = exits.get("sources")
    if isinstance(sources, list) and sources:
        parts += ["<p class='note'>Per release area (shares of its rocks):</p>"]
        parts.append(records_table(sources))
    if exits.get("rule"):
        parts.append(f"<p class='note'>Kinds: {html.escape(str(exits['rule']))}.</p>")
    return "".join(parts)


def _soils(summary: Mapping[str, Any]) -> str:
    """The soils of the run (``summary["soil"]``, :mod:`tumble.rockfall.site.soil_record`): each
    soil's preset and every value it used, a field the configuration gave over the preset
    marked; a note for the summary of an older release, which does not hold them."""
    from tumble.rockfall.site.soil_record import soil_text
    from tumble.rockfall.soil_values import UNITS

    record = summary.get("soil")
    soils = record.get("soils") if isinstance(record, Mapping) else None
    if not isinstance(record, Mapping) or not isinstance(soils, Mapping) or not soils:
        return (
            "<h3>Soil</h3><p class='note'>This run's summary does not name its soil presets and "
            "their values (a run of an older release): see the resolved configuration below.</p>"
        )
    fields = list(next(iter(soils.values())).get("values") or {})
    head = ["field", "unit"] + [
        html.escape(f"{where}: {soil.get('preset') or 'no preset'}")
        for where, soil in soils.items()
    ]
    presets = record.get("presets") or {}
    rows = []
    for name in fields:
        row = [_cell(name, text=True), _cell(UNITS.get(name, ""), text=True)]
        for soil in soils.values():
            value = (soil.get("values") or {}).get(name)
            shown = number(value) if isinstance(value, int | float) else str(value)
            if name in (soil.get("given") or {}):
                preset = soil.get("preset")
                own = (presets.get(preset) or {}).get(name)
                shown += f" (given; {preset} {number(own)})" if own is not None else " (given)"
            row.append(_cell(shown, text=True))
        rows.append(row)
    note = (
        "<p class='note'>"
        + html.escape(soil_text(record))
        + ". Every value the run used; (given): set by the configuration over the preset's "
        "own value, shown beside it. A released preset keeps its numbers: a changed model takes "
        "a new name.</p>"
    )
    return "<h3>Soil</h3>" + note + _table(head, rows)


def _soil_uncertainty(summary: Mapping[str, Any]) -> str:
    """The soil parameters each rock drew (``summary["soil"]["uncertainty"]``), and that the
    maps, barrier values and zones include this model uncertainty; nothing when none was
    drawn."""
    soil = summary.get("soil")
    drawn = soil.get("uncertainty") if isinstance(soil, Mapping) else None
    if not isinstance(drawn, Mapping) or drawn.get("mode", "none") == "none":
        return ""
    rows = []
    for where, entry in (drawn.get("categories") or {}).items():
        if not isinstance(entry, Mapping):
            continue
        if entry.get("mode") == "sets":
            spread = f"one of {entry.get('sets')} equivalent parameter sets, equally likely"
        else:
            spread = ", ".join(
                f"{name} uniform in [{lo:g}, {hi:g}]"
                for name, (lo, hi) in (entry.get("uniform") or {}).items()
            )
        rows.append(
            [
                _cell(where, text=True),
                _cell(str(entry.get("category")), text=True),
                _cell(spread, text=True),
                _cell(str(entry.get("source")), text=True),
            ]
        )
    note = (
        "<p class='note'><b>The maps, the barrier design values and the zones include model "
        "uncertainty:</b> every rock ran with soil parameters drawn for it alone from its "
        "category's spread (soil.uncertainty), so the results pool the predictions over the "
        "parameter values the sources cannot tell apart. Each rock's draw is in deposits.csv "
        "(soil_draw and the drawn fields).</p>"
    )
    return (
        "<h3>Soil parameter uncertainty</h3>"
        + note
        + _table(["soil", "category", "each rock draws", "source of the spread"], rows)
    )


def _release(summary: Mapping[str, Any]) -> str:
    """What the release did to fit the rocks on the terrain (``summary["release"]``): the
    height, the rocks lifted (how many, median and largest lift), the rocks placed again and
    the release places clipped to the DEM's data."""
    release = summary.get("release")
    if not isinstance(release, Mapping) or not release:
        return ""
    n = summary.get("n_rocks")
    rows = [
        ("release height above the terrain (centre of mass)", number(release.get("height_m")), "m"),
        (
            "rocks lifted to clear the terrain by that height",
            number(release.get("adjusted")),
            f"of {n}",
        ),
        ("median lift of the lifted rocks", number(release.get("lift_median_m")), "m"),
        ("largest lift", number(release.get("lift_max_m")), "m"),
        (
            "rocks placed again (hull over nodata or off the DEM)",
            number(release.get("moved")),
            f"of {n}",
        ),
    ]
    for clip in release.get("clipped") or []:
        if isinstance(clip, Mapping):
            label = f"{clip.get('name')}: share clipped off the DEM"
            rows.append((label, percent(clip.get("clipped_share")), ""))
    cells = [
        [_cell(label, text=True), _cell(value), _cell(unit, text=True)]
        for label, value, unit in rows
    ]
    note = (
        "<p class='note'>Every rock starts with its hull clear of the terrain: a rock that "
        "would reach into a steep face or a crest at the release height is lifted until its "
        "lowest point is that height above the terrain, measured vertically.</p>"
    )
    return "<h3>Release</h3>" + note + _table(["release", "value", ""], cells)


#: keys of the summary shown in the run table, with labels and units
RUN_KEYS = {
    "n_rocks": ("rocks simulated", ""),
    "scheme": ("rotation scheme", ""),
    "seed": ("random seed", ""),
    "dt": ("time step", "s"),
    "t_max": ("maximum simulated time per rock", "s"),
    "sample_every": ("path samples every", "steps"),
}


def _run_table(summary: Mapping[str, Any], terrain: Terrain) -> str:
    rows = [
        [_cell(label, text=True), _cell(summary[key], text=True), _cell(unit, text=True)]
        for key, (label, unit) in RUN_KEYS.items()
        if key in summary
    ]
    ny, nx = terrain.heights.shape
    unit = crs_unit(terrain.crs)
    crs = terrain.crs.to_string() if terrain.crs is not None else "none given"
    b = terrain.bounds
    rows += [
        [
            _cell("DEM grid", text=True),
            _cell(f"{nx} x {ny} samples, {number(terrain.dx)} x {number(terrain.dy)}", text=True),
            _cell(unit, text=True),
        ],
        [
            _cell("DEM extent (sample centres)", text=True),
            _cell(
                f"E {number(b.x_min)} to {number(b.x_max)}, N {number(b.y_min)} to "
                f"{number(b.y_max)}",
                text=True,
            ),
            _cell(unit, text=True),
        ],
        [_cell("coordinate reference system", text=True), _cell(crs, text=True), "<td></td>"],
    ]
    return _table(["setting", "value", "unit"], rows)


def _provenance(provenance: Mapping[str, Any]) -> str:
    command = provenance.get("command")
    if isinstance(command, (list, tuple)):
        command = shlex.join(str(c) for c in command)
    labels = {
        "tumble_version": "tumble version",
        "git": "source commit",
        "created_utc": "created (UTC)",
        "seed": "seed",
        "python": "Python",
        "platform": "platform",
        "cpu_count": "CPUs",
    }
    rows = [[_cell("command", text=True), _cell(command, text=True)]] if command else []
    rows += [
        [_cell(label, text=True), _cell(provenance[key], text=True)]
        for key, label in labels.items()
        if key in provenance
    ]
    record = provenance.get("config")
    if isinstance(record, Mapping):
        rows += [
            [_cell(f"config: {key}", text=True), _cell(value, text=True)]
            for key, value in record.items()
            if key != "resolved" and not isinstance(value, Mapping)
        ]
    used = {"command", "config", "timings_s", "packages", *labels}
    rows += [
        [_cell(key, text=True), _cell(value, text=True)]
        for key, value in provenance.items()
        if key not in used
    ]
    parts = [_table(["record", "value"], rows)]
    timings = provenance.get("timings_s")
    if isinstance(timings, Mapping) and timings:
        parts.append(
            _table(
                ["timing", "seconds"],
                [[_cell(k, text=True), _cell(v)] for k, v in timings.items()],
            )
        )
    packages = provenance.get("packages")
    if isinstance(packages, Mapping) and packages:
        parts.append(
            _table(
                ["package", "version"],
                [[_cell(k, text=True), _cell(v, text=True)] for k, v in packages.items()],
            )
        )
    return "".join(parts)


# --- the page --------------------------------------------------------------------------------


def _relative(directory: Path, figure: str | os.PathLike) -> tuple[Path, str]:
    path = Path(figure)
    full = path if path.is_absolute() else directory / path
    try:
        relative = full.resolve().relative_to(directory.resolve())
    except ValueError:
        raise ValueError(f"figure {figure} is not inside the run folder {directory}") from None
    if not full.is_file():
        raise ValueError(f"figure {figure} does not exist in the run folder {directory}")
    return full, relative.as_posix()
