"""``report.html`` of a rockfall run: one offline page a hazard engineer can send to a client.

:func:`write_run_report` writes, into the run folder, a page with, in this order:

1. the run's warnings (``summary["warnings"]``) in a box at the top, if there are any;
2. what was simulated (rocks, scheme, DEM grid and CRS) and the outcome of the rocks (stopped,
   left the DEM, reached t_max, failed) as percentages from :func:`percent`, which never shows
   0 % or 100 % unless that is exact, and where the rocks that left the DEM left it (per kind of
   exit: downslope edge, side edge, nodata hole, with the holes and, for release areas, per
   source; :mod:`tumble.rockfall.exits`);
3. hazard maps (:func:`map_figure`, written as ``figures/report_<raster>.png``) of reach
   probability, maximum and 95th percentile kinetic energy, maximum jump height (vertical, and
   normal to the slope) and deposits (the converged cells over the reached ones only),
   each with its description and unit from :data:`~tumble.rockfall.ensemble.rasters.RASTER_INFO`,
   and the hazard zones when the run has them (``rasters["hazard_zone"]``, yellow, blue, red;
   :mod:`tumble.rockfall.hazard.zoning`);
4. the statistics of ``summary.json``: per-rock maxima (mean, std, p50, p95, max, each with its
   unit and, where the summary gives one as ``<key>_ci = [low, high]``, its confidence interval
   beside it), the path statistics, and any list of records under ``barriers``, ``sources`` or
   ``classes`` as a table; which rocks' paths were kept and how they were chosen
   (``trajectories``: a sentence and the rocks per release area and class); every other entry
   of the summary in a table of further values, so nothing the run reports is lost;
5. the other figures of the run, the resolved configuration as a TOML-like block and the
   provenance record (version, commit, command, time, timings, packages).

The page needs no network and no script: CSS is inline and every image is embedded as PNG data
(the same files are in ``figures/`` for other documents), so ``report.html`` alone can be mailed.

Maps. The raster is drawn only where it is defined: NaN cells, and zero cells of the rasters where
zero means "no rock" (reach probability and the counts), are transparent. Below it lies a
multidirectional hillshade of the DEM: the mean of the Lambertian shadings
(:meth:`Terrain.hillshade`) lit from the azimuths 225, 270, 315 and 360 degrees at 45 degrees
above the horizon. A single light shades slopes whose aspect is perpendicular to it like flat
ground; four lights keep the relief of slopes facing any way. Shading 0 is drawn mid-grey, not
black, so that the colours over it keep their hue.

Vertical exaggeration (:func:`vertical_exaggeration`): ``1 / g95``, clipped to [0.5, 10], with
``g95`` the 95th percentile of the slope gradient ``|grad z|`` in the mapped window. It turns the
95th percentile slope into a 45 degree slope, whose shading under a sun 45 degrees high spans the
whole grey range (0 facing away from the sun, 1 facing it): the relief uses the grey range
whatever the site, only the steepest 5 % of the cells saturate. A gentle site (a run-out fan)
gets a larger factor so that its undulations read; the clip keeps near-flat grids from
amplifying noise and cliffs from being flattened to nothing. The factor is printed under the map.

Extent and furniture: an overview map shows the reach probability over the whole DEM with the
frame of the detailed maps; these are cropped to the cells the rocks reached and the release and
final points, plus a margin of 8 % of the larger side (at least 3 cells), the shorter side
widened to at least half the longer, within the DEM. A scale bar of a round length (1, 2 or 5
times a power of ten, about a fifth of the map width); a north arrow to true north (meridian
convergence from the CRS; grid north, and said so, without a CRS); axes Easting and Northing in
the CRS's linear unit, with full coordinates (no offset, no scientific notation); the barrier
lines with their names and the release areas as outlines with their names, from the run's
``geometry.json`` (a run without release areas: release points as triangles, over 30 release
cells the outline of the cells); on the overview, reach and deposit maps the points where rocks
left the DEM, one marker per kind of exit.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.overrides import flatten_keys
from tumble.io.results import write_atomic
from tumble.rockfall.ensemble.rasters import RASTER_INFO
from tumble.rockfall.hazard.zoning import ZONING_RASTERS
from tumble.viz.grids import window_values
from tumble.viz.png import save_png
from tumble.viz.report_convergence import CONVERGENCE_FIGURE, convergence_section

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain


from tumble.io.toml_writer import toml_text
from tumble.viz.map_overlays import EXIT_MAPS
from tumble.viz.relief import multidirectional_hillshade, vertical_exaggeration
from tumble.viz.report_html import (
    RECORD_TABLES,
    RUN_KEYS,
    STATISTICS,
    STYLE,
    _exit_tables,
    _figure,
    _outcomes,
    _path_statistics,
    _provenance,
    _relative,
    _release,
    _run_table,
    _soil_uncertainty,
    _soils,
    _statistics,
    _warnings,
    number,
    percent,
    records_table,
    values_table,
)
from tumble.viz.report_maps import (
    MAPS,
    OPTIONAL_MAPS,
    MapFigure,
    MapSeries,
    Window,
    _colorbar_label,
    converged_where_reached,
    map_figure,
    map_window,
    relief,
)

__all__ = [
    "MAPS",
    "MapFigure",
    "Window",
    "barrier_records",
    "draw_report_maps",
    "map_figure",
    "map_window",
    "multidirectional_hillshade",
    "number",
    "percent",
    "records_table",
    "relief",
    "toml_text",
    "values_table",
    "vertical_exaggeration",
    "write_run_report",
]


def _kept_trajectories(summary: Mapping[str, Any]) -> str:
    """Which rocks' paths the run kept and how they were chosen (``summary["trajectories"]``):
    a sentence and the per-group counts."""
    kept = summary.get("trajectories")
    if not isinstance(kept, Mapping):
        return ""
    n_kept, released = kept.get("n_kept"), kept.get("n_released")
    rocks = [str(k) for k in kept.get("rocks") or []]
    listed = ", ".join(rocks[:20]) + (", ..." if len(rocks) > 20 else "")
    text = (
        f"The paths of {number(n_kept)} of the {number(released)} rocks "
        f"({percent(kept.get('share'))}) are kept "
        f"(trajectories.parquet, one sample every {number(kept.get('every_steps'))} steps, with "
        "the steps across the run's barriers): rocks "
        f"{listed}. Chosen {kept.get('selection', '')}. The barrier replay (tumble rockfall "
        "barriers) describes these rocks, each weighed equally."
    )
    parts = ["<h3>Kept trajectories</h3>", f"<p class='note'>{html.escape(text)}</p>"]
    groups = kept.get("groups")
    if isinstance(groups, list) and groups:
        parts.append(records_table([g for g in groups if isinstance(g, Mapping)]))
    return "\n".join(parts)


def _forest(summary: Mapping[str, Any]) -> str:
    """The forest of the run and what its stems did (``summary["forest"]``), if it has one."""
    forest = summary.get("forest")
    if not isinstance(forest, Mapping):
        return ""
    return (
        "<h2>Forest</h2><p class='note'>Rock-tree impacts (tumble.rockfall.forest): stems as "
        "vertical cylinders of the stand's density and diameter at breast height, or single "
        "trees; a stem takes the energy of the rock's velocity along the contact normal up to "
        "38.7 DBH^2.31 J (Dorren &amp; Berger 2006), and breaks above it. The maps 'Forest, "
        "stems per hectare' and 'Tree impacts' below show where the forest stands and where "
        "rocks hit it. Forest cells: the DEM cells of the stands, or with single trees the "
        "cells with a stem or next to one; stopped in forest: the rocks at rest in such a "
        "cell, and their fraction of all the rocks of the run.</p>" + values_table(dict(forest))
    )


def _zoning(summary: Mapping[str, Any]) -> str:
    """The area of each hazard zone and the classes the zoning used."""
    record = summary.get("zoning")
    if not isinstance(record, Mapping) or not isinstance(record.get("areas"), Mapping):
        return ""
    low, high = record.get("energy_thresholds_kJ") or (None, None)
    periods = record.get("return_periods_years") or (None, None, None)
    rows = [
        {"zone": name, "cells": a.get("cells"), "area ha": a.get("ha")}
        for name, a in record["areas"].items()
        if isinstance(a, Mapping)
    ]
    frequency = record.get("frequency")
    used = (
        f" Onset frequency: {html.escape(str(frequency['text']))} ({frequency['key']})."
        if isinstance(frequency, Mapping)
        else ""
    )
    return (
        "<h2>Hazard zones</h2><p class='note'>Intensity from the kinetic energy of a block "
        f"(strong above {number(high)} kJ, medium above {number(low)} kJ, weak below), "
        f"probability from the return period of exceeding it (high up to {number(periods[0])} "
        f"years, medium up to {number(periods[1])}, low up to {number(periods[2])}; beyond, the "
        "residual hazard, not drawn), the zone from the nine-field diagram ("
        + html.escape(str(record.get("source", "")))
        + "; hazard_zone.tif)."
        + used
        + " Area of each zone (DEM samples times the cell area):</p>"
        + records_table(rows)
    )


def _energy_line(summary: Mapping[str, Any]) -> str:
    """The smallest energy-line angle the rocks of the run reached beyond their release (the
    record's rule), beside the geometric method's range on real terrain, or with what a
    synthetic terrain reproduces."""
    record = summary.get("energy_line")
    if not isinstance(record, Mapping):
        return ""
    low, high = record.get("geometric_range_deg") or (None, None)
    rule = record.get("rule")
    kept = f" The angles below are over the {html.escape(str(rule))}." if rule else ""
    reproduction = record.get("reproduction")
    if reproduction:
        meaning = f"</p><p class='note'>{html.escape(str(reproduction))}.</p>"
    else:
        meaning = (
            f" The geometric method usually takes {number(low)}-{number(high)} degrees ("
            + html.escape(str(record.get("geometric_source", "")))
            + "): a smaller angle here means rocks of this run travel beyond the geometric "
            "method's reach.</p>"
        )
    return (
        "<h2>Energy line</h2><p class='note'>The energy-line (travel) angle of a cell is the "
        "angle of the line from a rock's release point down to the cell, atan(drop / horizontal "
        "distance), the smallest over the rocks that reached it (energy_line_angle.tif, every "
        f"cell; per rock, release to stop, in deposits.csv).{kept} The smallest angle the rocks "
        f"of this run reached: <b>{number(record.get('min_angle_deg'))} degrees</b> (over the "
        f"rocks at rest: {number(record.get('min_deposit_angle_deg'))} degrees)."
        + meaning
        + _energy_line_field(record)
    )


def _energy_line_field(record: Mapping[str, Any]) -> str:
    """The rocks at rest beside the lowest reach angle field records show."""
    lowest = record.get("lowest_observed_deg")
    q = record.get("deposit_angle_percentiles_deg")
    if lowest is None or not isinstance(q, Mapping):
        return ""
    beyond = record.get("beyond_release_m")
    where = (
        f"farther than {number(beyond)} m from every release place"
        if beyond is not None
        else f"beyond {number(record.get('beyond_m', 2.0))} m of their release"
    )
    return (
        f"<p class='note'>Rocks at rest {where}, energy-line angle from release to stop: 1st "
        f"percentile {number(q.get('p1'))}, 5th {number(q.get('p5'))}, median "
        f"{number(q.get('p50'))} degrees. "
        f"{number(record.get('rocks_at_rest_below_lowest_observed'))} of "
        f"{number(record.get('rocks_at_rest'))} rocks at rest lie below {number(lowest)} degrees, "
        "the lowest reach field records show ("
        + html.escape(str(record.get("lowest_observed_source", "")))
        + ").</p>"
    )


def draw_report_maps(
    directory: Path,
    *,
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    rocks: Mapping[str, np.ndarray],
    exits: Mapping[str, np.ndarray] | None = None,
    n_rocks: Any = None,
    draw_maps: bool = True,
    geometry: Mapping[str, Any] | None = None,
) -> list[tuple[Path, str]]:
    """Draw the maps of :func:`write_run_report` (its arguments) into ``directory / "figures" /
    "report_<raster>.png"``; returns each map's path and caption in the page's order (none when
    ``draw_maps`` is False)."""
    directory = Path(directory)
    figure_dir = directory / layout.FIGURES
    figure_dir.mkdir(parents=True, exist_ok=True)
    maps: list[tuple[Path, str]] = []
    names = [name for name in (*MAPS, *OPTIONAL_MAPS) if name in rasters] if draw_maps else []
    window = map_window(terrain, rasters, rocks)
    shaded = relief(terrain, window) if names else None
    whole = Window(0, terrain.shape[0], 0, terrain.shape[1])
    if names and "reach_probability" in rasters and window != whole:
        drawn = map_figure(
            terrain,
            "reach_probability",
            window_values(rasters, "reach_probability", *whole),
            whole,
            rocks=rocks,
            n_rocks=n_rocks if isinstance(n_rocks, int) else None,
            exits=exits,
            geometry=geometry,
            frame=window,
        )
        drawn.ax.set_title("Overview: the whole DEM, reach probability", fontsize=11)
        path = figure_dir / "report_overview.png"
        save_png(drawn.figure, path, 120)
        caption = (
            "Overview of the whole DEM with the reach probability; the dashed frame is the "
            "extent of the detailed maps below (the reached area with a margin)."
        )
        maps.append((path, caption))
    series = (
        MapSeries(terrain, window, rocks=rocks, shaded=shaded, exits=exits, geometry=geometry)
        if names
        else None
    )
    for name in names:
        if name not in rasters or series is None:
            continue
        values = window_values(rasters, name, *window)
        if name == "converged" and "passing_count" in rasters:
            passing = window_values(rasters, "passing_count", *window)
            values = converged_where_reached(values, passing)
        drawn = series.draw(
            name,
            values,
            n_rocks=n_rocks if isinstance(n_rocks, int) else None,
            exits=exits is not None and name in EXIT_MAPS,
        )
        path = figure_dir / f"report_{name}.png"
        save_png(drawn.figure, path, 120)
        info = RASTER_INFO.get(name) or ZONING_RASTERS.get(name)
        title = {**MAPS, **OPTIONAL_MAPS}[name][0]
        caption = f"{_colorbar_label(name)}: {info.description}." if info else f"{title}."
        maps.append((path, caption))
    return maps


def write_run_report(
    directory: Path,
    *,
    summary: dict,
    terrain: Terrain,
    rasters: Mapping[str, np.ndarray],
    rocks: Mapping[str, np.ndarray],
    exits: Mapping[str, np.ndarray] | None = None,
    config: Mapping[str, Any],
    provenance: Mapping[str, Any],
    figures: Sequence[str | os.PathLike] = (),
    draw_maps: bool = True,
    geometry: Mapping[str, Any] | None = None,
    drawn_maps: Sequence[tuple[Path, str]] | None = None,
) -> Path:
    """Write ``directory / "report.html"`` and its maps ``directory / "figures" /
    "report_<raster>.png"`` (module docstring) and return the page's path.

    ``summary``: the content of ``summary.json``; ``terrain``: the run's DEM; ``rasters`` and
    ``rocks``: the hazard rasters and the per-rock table of the ensemble result; ``exits``: its
    exit table (where rocks left the DEM, drawn on the reach and deposit maps); ``config``: the
    resolved configuration (``RockfallConfig.model_dump()``); ``provenance``: the record of
    :func:`tumble.io.provenance.provenance`; ``figures``: other images of the run inside
    ``directory`` (paths relative to it, or absolute), shown at the end. ValueError for a figure
    outside ``directory`` or missing. ``draw_maps=False`` leaves the maps out (a run without
    figures); the page says so. ``geometry``: the run's ``geometry.json`` record, whose barrier
    lines (with names) and release areas (outlines) the maps draw. ``drawn_maps``: the maps
    :func:`draw_report_maps` drew for these arguments (in another process, beside the rest of
    the write-out: :mod:`tumble.pipeline.drawing`), None to draw them here.
    """
    directory = Path(directory)
    others = [_relative(directory, f) for f in figures]
    n_rocks = summary.get("n_rocks")
    if drawn_maps is None:
        drawn_maps = draw_report_maps(
            directory,
            terrain=terrain,
            rasters=rasters,
            rocks=rocks,
            exits=exits,
            n_rocks=n_rocks,
            draw_maps=draw_maps,
            geometry=geometry,
        )
    maps = [
        _figure(path, path.relative_to(directory).as_posix(), text) for path, text in drawn_maps
    ]
    missing = [MAPS[name][0].lower() for name in MAPS if name not in rasters]
    if not draw_maps:
        maps.append(
            "<p class='note'>The maps were not drawn (a run without figures); the hazard "
            "rasters are in the folder.</p>"
        )

    scheme = summary.get("scheme", "?")
    title = f"Rockfall simulation: {number(n_rocks)} rocks, {scheme} scheme"
    created = str(provenance.get("created_utc") or "").replace("T", " ").removesuffix("+00:00")
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        _warnings(summary),
        f"<h1>{html.escape(title)}</h1>",
        "<p class='note'>Computed with tumble "
        + html.escape(str(provenance.get("tumble_version", "")))
        + (f" on {html.escape(created)} UTC" if created else "")
        + ". The hazard rasters (GeoTIFF, with the DEM's grid and coordinate system), the "
        "per-rock table and the statistics are in the same run folder.</p>",
        "<h2>The run</h2>",
        _run_table(summary, terrain),
        _outcomes(summary),
        _exit_tables(summary),
        _release(summary),
        _forest(summary),
        _soils(summary),
        _soil_uncertainty(summary),
        "<h2>Hazard maps</h2>",
        "<p class='note'>A cell is coloured if the centre of mass of at least one rock passed "
        "it (deposits: stopped in it), and its value is taken over those rocks (a jump height "
        "is 0 m where they rolled; the vertical one is measured up from the terrain, the one "
        "normal to the slope, which a net's height is compared with, along its normal); "
        "elsewhere the map shows the shaded relief only. The maps show the reached "
        "area with a margin; the overview shows the whole DEM. Black outlines: the release "
        "areas (white triangles: release points of a run without areas); solid black lines: "
        "nets, dashed: observation lines, each with its name; crosses and circles on the "
        "overview, reach and deposit maps: where rocks left the DEM (exits.gpkg). Coordinates "
        "in the DEM's coordinate reference system.</p>",
        *maps,
    ]
    if missing:
        parts.append(f"<p class='note'>Not in this run: {html.escape(', '.join(missing))}.</p>")
    has_ci = any(key.endswith("_ci") for key in flatten_keys(summary))
    ci_level = summary.get("ci_level")
    level = f"{percent(ci_level)} " if isinstance(ci_level, float) else ""
    parts += [
        "<h2>Statistics</h2>",
        "<p class='note'>Per rock: each rock's largest value along its path (run-out and lateral "
        "spread: at its final point), then the mean, standard deviation, median, 95th "
        f"percentile and maximum over the {number(n_rocks)} rocks. "
        + (
            f"Values in brackets are {level}confidence intervals [low, high] given by the run."
            if has_ci
            else "The run gives no confidence intervals: percentiles of a finite number of "
            "rocks carry a sampling error that is not shown here."
        )
        + "</p>",
        _statistics(summary),
        _path_statistics(summary),
    ]
    for key, heading in RECORD_TABLES.items():
        records = summary.get(key)
        if key == "barriers" and isinstance(records, list) and records:
            records = barrier_records(records)
        if isinstance(records, list) and records:
            parts += [
                f"<h3>{html.escape(heading)}</h3>",
                records_table([r if isinstance(r, Mapping) else {key: r} for r in records]),
            ]
    parts.append(_kept_trajectories(summary))
    parts.append(_zoning(summary))
    parts.append(convergence_section(summary))
    parts.append(_energy_line(summary))
    used = {
        "convergence",
        "energy_line",
        "trajectories",
        "warnings",
        "fractions",
        "exits",
        "release",
        "forest",
        "soil",
        *RUN_KEYS,
        *RECORD_TABLES,
        *(keys[0] for _, _, keys in STATISTICS),
    }
    further = {k: v for k, v in summary.items() if k not in used}
    if further:
        parts += ["<h3>Further values of the run</h3>", values_table(further)]
    if others:
        parts.append("<h2>Other figures of the run</h2>")
        parts += [_figure(path, relative, figure_caption(relative)) for path, relative in others]
    parts += [
        "<h2>Resolved configuration</h2>",
        "<p class='note'>Every setting of the run, defaults included, as TOML.</p>",
        f"<pre>{html.escape(toml_text(config))}</pre>",
        "<h2>Provenance</h2>",
        _provenance(provenance),
        "</body></html>",
    ]
    page = directory / layout.REPORT
    text = "\n".join(p for p in parts if p)
    write_atomic(page, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return page


#: captions of the run's other figures (``figures/<name>.png``)
FIGURE_CAPTIONS = {
    "energy_map": "Largest kinetic energy of the rocks over the hillshade, with the envelope of "
    "their spread",
    "profile": "Altitude and rotational velocity of rock 0 against its distance along the path",
    "histograms": "Histograms of the rocks' run-out and largest kinetic energy",
    "convergence": CONVERGENCE_FIGURE,
}


def figure_caption(relative: str) -> str:
    """The caption of one of the run's other figures from its file name: the barrier figures
    (:mod:`tumble.viz.barriers`) and :data:`FIGURE_CAPTIONS`; the file name for any other."""
    stem = Path(relative).stem
    if stem.startswith("barrier_") and stem.endswith("_exceedance"):
        name = stem[len("barrier_") : -len("_exceedance")]
        return (
            f"Barrier {name}: exceedance curves of the crossing rocks' kinetic energy and passing "
            "height at their first downslope crossing, with the 95th and 99th percentiles, their "
            "intervals and the design values."
        )
    if stem.startswith("barrier_") and stem.endswith("_along"):
        name = stem[len("barrier_") : -len("_along")]
        return f"Barrier {name}: where along the line the rocks cross, by outcome."
    if stem in FIGURE_CAPTIONS:
        return f"{FIGURE_CAPTIONS[stem]}."
    return relative


def barrier_side(b: Mapping[str, Any]) -> str:
    """The side a barrier's rocks come from, as the report shows it: ``"left (release 100 %)"``,
    ``"right (configured)"``; seen along the line from its first point to its last; for a line
    that judges each crossing from its rock's start, that rule."""
    uphill = b.get("uphill")
    if uphill is None:
        return "n/a"
    source = b.get("uphill_from")
    share = b.get("release_share_uphill")
    if b.get("direction_from") == "start" and share is not None and share < 1.0:
        other = "right" if uphill == "left" else "left"
        return (
            f"each rock's own side (release {percent(share)} {uphill}, "
            f"{percent(b.get('release_share_downslope'))} {other})"
        )
    if source == "release" and share is not None:
        return f"{uphill} (release {percent(share)})"
    if source in ("configuration", "file"):
        return f"{uphill} (given{'' if share is None else f'; release {percent(share)}'})"
    return str(uphill)


def barrier_records(barriers: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One flat row per barrier of ``summary["barriers"]``: the side its rocks come from,
    crossings both ways, the percentiles a fence is designed for with their intervals, and the
    design values with their verification."""

    def cell(stats: Mapping[str, Any] | None, key: str, digits: int) -> str:
        if not stats or stats.get(key) is None:
            return "n/a"
        text = f"{stats[key]:.{digits}f}"
        ci = stats.get(key + "_ci")
        return text + (f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "")

    rows = []
    for b in barriers:
        design = b.get("design") or {}
        verdict = []
        for key, what in (("energy_ok", "energy"), ("height_ok", "height")):
            if design.get(key) is not None:
                verdict.append(f"{what} {'ok' if design[key] else 'NOT ok'}")
        rows.append(
            {
                "barrier": str(b.get("name")),
                "kind": str(b.get("kind")),
                "rocks come from (side seen along the line)": barrier_side(b),
                "rocks crossing": (
                    f"{b.get('rocks_crossing')} ({percent(b.get('fraction_crossing'))})"
                ),
                "crossings down / up": (
                    f"{b.get('crossings_downslope', 'n/a')} / {b.get('crossings_upslope', 'n/a')}"
                ),
                "energy p95 (kJ)": cell(b.get("kinetic_energy_kJ"), "p95", 0),
                "energy p99 (kJ)": cell(b.get("kinetic_energy_kJ"), "p99", 0),
                "velocity p95 (m/s)": cell(b.get("velocity_ms"), "p95", 1),
                "passing height p95 (m)": cell(b.get("passing_height_m"), "p95", 2),
                "top height p95 (m)": cell(b.get("top_height_m"), "p95", 2),
                "E_d (kJ)": number(design.get("E_d_kJ")),
                "h_d (m)": number(design.get("h_d_m")),
                "required height (m)": number(design.get("required_height_m")),
                "verification": ", ".join(verdict) or "-",
            }
        )
    return rows
