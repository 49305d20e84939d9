"""``report.html`` of a comparison of two runs (:mod:`tumble.pipeline.compare`): one offline page
with the configuration keys that differ, the values of the soil presets that differ, the reached
cells of each run, the maps of the difference rasters (B minus A, zoomed to the cells either run
reached, with both runs' barrier lines and release areas), their statistics, the cells per change
of zone, and the side-by-side table of the two runs. The stylesheet and the print layout are
those of a run's report (:data:`tumble.viz.report_html.STYLE`)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.results import write_atomic
from tumble.viz.report_html import (
    STYLE,
    _cell,
    _figure,
    _table,
    _warnings,
    number,
    records_table,
)
from tumble.viz.report_maps import DELTA_MAPS, map_figure, map_window, relief

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain

#: what the statistics of a difference raster are called in the report, with units
STATISTIC_LABELS = {
    "cells": "cells either run reached",
    "cells_increased": "cells with an increase",
    "cells_decreased": "cells with a decrease",
    "area_increased_m2": "area with an increase (m\N{SUPERSCRIPT TWO})",
    "area_decreased_m2": "area with a decrease (m\N{SUPERSCRIPT TWO})",
    "min": "largest decrease",
    "max": "largest increase",
    "mean": "mean change",
}


def merged_geometry(records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
    """One geometry record to draw both runs: the barriers of either (each line once: a net
    of B over the same line as A's observation line wins) and the release of the first run
    that has one."""
    barriers: dict[tuple, dict] = {}
    release = None
    for record in records:
        if not record:
            continue
        for barrier in record.get("barriers") or []:
            key = (str(barrier.get("name")), str(barrier.get("line")))
            if key not in barriers or barrier.get("kind") == "net":
                barriers[key] = barrier
        if release is None and (record.get("release") or {}).get("kind"):
            release = record["release"]
    return {"barriers": list(barriers.values()), "release": release or {}}


def _values(value: Any) -> str:
    return "not set" if value is None else number(value)


def write_compare_report(
    directory: Path,
    *,
    summary: Mapping[str, Any],
    terrain: Terrain,
    deltas: Mapping[str, np.ndarray],
    reached: tuple[np.ndarray, np.ndarray],
    table: Sequence[Mapping[str, Any]],
    geometry: Sequence[Mapping[str, Any] | None] = (),
) -> Path:
    """Write ``directory / "report.html"`` and its maps ``directory / "figures" /
    "compare_<raster>.png"`` (module docstring); ``summary``: the comparison's summary;
    ``deltas``: the difference rasters on the DEM grid (NaN where neither run reached);
    ``reached``: the cells each run reached; ``table``: the side-by-side rows; ``geometry``:
    the two runs' geometry records (or None)."""
    directory = Path(directory)
    figure_dir = directory / layout.FIGURES
    figure_dir.mkdir(parents=True, exist_ok=True)
    labels = summary["labels"]
    run_a, run_b = (
        which if labels[key] == which else f"{which} ({labels[key]})"
        for which, key in (("A", "a"), ("B", "b"))
    )
    either = (reached[0] | reached[1]).astype(np.float64)
    window = map_window(terrain, {"passing_count": either, "deposit_count": 0 * either}, {})
    shaded = relief(terrain, window)
    drawing = merged_geometry(geometry)
    maps = []
    for name, values in deltas.items():
        drawn = map_figure(terrain, name, values, window, shaded=shaded, geometry=drawing)
        path = figure_dir / f"compare_{name}.png"
        drawn.figure.savefig(path, dpi=120)
        caption = (
            f"{DELTA_MAPS[name][0]}: {run_b} minus {run_a}; red where B "
            "is higher, blue where it is lower. A cell only one run reached counts 0 for the "
            "other; cells neither run reached are not coloured."
        )
        maps.append(_figure(path, f"{layout.FIGURES}/{path.name}", caption))
    title = f"Comparison of two rockfall runs: {run_b} minus {run_a}"
    runs = summary["runs"]
    n_rocks = summary.get("n_rocks") or {}
    run_rows = [
        [_cell(which, text=True), _cell(labels[k], text=True), _cell(runs[k], text=True)]
        + [_cell(n_rocks.get(k))]
        for which, k in (("A", "a"), ("B", "b"))
    ]
    differences = summary.get("differences") or []
    if differences:
        diff_table = _table(
            [
                "configuration key",
                f"A ({html.escape(labels['a'])})",
                f"B ({html.escape(labels['b'])})",
            ],
            [
                [
                    _cell(d["key"], text=True),
                    _cell(_values(d["a"]), text=True),
                    _cell(_values(d["b"]), text=True),
                ]
                for d in differences
            ],
        )
    else:
        diff_table = "<p>The two runs have the same configuration, defaults included.</p>"
    changed = summary.get("value_differences") or []
    value_table = (
        _table(
            ["value", f"A ({html.escape(labels['a'])})", f"B ({html.escape(labels['b'])})"],
            [
                [
                    _cell(d["key"], text=True),
                    _cell(_values(d["a"]), text=True),
                    _cell(_values(d["b"]), text=True),
                ]
                for d in changed
            ],
        )
        if changed
        else "<p>The soil presets both runs used have the same values in both.</p>"
    )
    value_notes = "".join(
        f"<p class='note'><b>Note:</b> {html.escape(n)}.</p>"
        for n in summary.get("value_notes") or []
    )
    area = float(terrain.dx * terrain.dy)
    cells = summary.get("reached_cells") or {}
    reach_rows = [
        [_cell(text, text=True), _cell(cells.get(key)), _cell(number(cells.get(key, 0) * area))]
        for key, text in (
            ("a_only", "reached by A only"),
            ("b_only", "reached by B only"),
            ("both", "reached by both"),
        )
    ]
    stats = summary.get("rasters") or {}
    stat_rows = [
        [_cell(label, text=True)] + [_cell(stats[name].get(key)) for name in stats]
        for key, label in STATISTIC_LABELS.items()
    ]
    stat_head = ["", *(html.escape(f"{DELTA_MAPS[n][0]} ({DELTA_MAPS[n][1]})") for n in stats)]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        _warnings(summary),
        f"<h1>{html.escape(title)}</h1>",
        "<p class='note'>Both runs on the same DEM grid. The difference rasters "
        "(rasters/delta_*.tif, GeoTIFF on the DEM's grid and coordinate system) and "
        "summary.json are in the same folder.</p>",
        "<h2>The two runs</h2>",
        _table(["run", "label", "folder", "rocks"], run_rows),
        "<h2>What differs between the configurations</h2>",
        "<p class='note'>Every setting of the resolved configurations (defaults included) "
        "whose value differs; list entries by their index (barrier.0 is the first "
        "barrier).</p>",
        diff_table,
        "<h3>Values of the soil presets</h3>",
        "<p class='note'>A configuration names a soil preset, not its numbers: every value of "
        "a preset both runs used that differs between the two runs (a preset whose numbers "
        "changed between the releases that made them; a released preset keeps its numbers, "
        "a changed model takes a new name).</p>",
        value_table,
        value_notes,
        "<h2>Where the rocks came</h2>",
        _table(["where", "cells", "area (m\N{SUPERSCRIPT TWO})"], reach_rows),
        "<h2>Difference maps</h2>",
        *maps,
        "<h3>Changes in numbers</h3>",
        _table(stat_head, stat_rows),
    ]
    transitions = summary.get("zone_transitions")
    if transitions:
        parts += [
            "<h3>Changes of hazard zone</h3>",
            "<p class='note'>Cells either run reached, by their zone in A and in B.</p>",
            records_table(transitions),
        ]
    if table:
        columns = list(table[0])
        parts += [
            "<h2>The two runs side by side</h2>",
            "<p class='note'>Mean and standard deviation over the path samples, per-rock "
            "statistics, the share of the rocks of each outcome, and every barrier line of "
            "either run: its crossings, energies and UNI 11211-4 design values "
            "(compare.csv).</p>",
            _table(
                [html.escape(c) for c in columns],
                [[_cell(row.get(c), text=True) for c in columns] for row in table],
            ),
        ]
    envelopes = directory / "envelopes.png"
    if envelopes.is_file():
        parts.append(_figure(envelopes, "envelopes.png", "Spread envelopes of the two runs"))
    parts.append("</body></html>")
    page = directory / layout.REPORT
    text = "\n".join(p for p in parts if p)
    write_atomic(page, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return page
