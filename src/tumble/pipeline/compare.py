"""Two finished runs side by side (``tumble rockfall compare A B --out C``).

Into ``C`` (written atomically: a refused comparison writes nothing):

* ``rasters/delta_reach_probability.tif``, ``rasters/delta_kinetic_energy_p95.tif``: B minus A
  per cell, and ``rasters/delta_hazard_zone.tif``, the zone change, when both runs have hazard
  zones (:mod:`tumble.pipeline.differences` defines the values and the nodata);
* ``summary.json``: the runs, their grid, ``differences`` (every configuration key whose value
  differs, with both values), ``value_differences`` (every value of a soil preset both runs used
  that differs: a preset that took other numbers in another release) with ``value_notes`` (a run
  folder of an older release, which does not store them), the statistics of each difference
  raster, the cells per change of zone, ``outcomes`` (the share of the rocks of each outcome,
  caught by a net included) and ``barriers`` (every barrier line and net of either run: its
  crossings and design values in both; :mod:`tumble.pipeline.differences`), and ``warnings``;
* ``report.html`` (:mod:`tumble.viz.compare_report`): the differences table and the maps;
* ``compare.csv``, ``compare.json``, ``compare.md``: the table of Leine et al. 2021, Table 2,
  with the published values beside when the runs are slope40's explicit and implicit ensembles,
  then a row per outcome of the rocks and rows per barrier line (its rocks crossing, crossings
  both ways, energies and design values);
  ``envelopes.png``: the two spread envelopes over the hillshade.

Runs on different grids are refused (:func:`tumble.pipeline.differences.check_same_grid`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.io import run_folder as layout
from tumble.io.dem import RasterGrid
from tumble.io.run_folder import RunPaths
from tumble.pipeline.differences import (
    BARRIER_VALUES,
    DELTA_DESCRIPTIONS,
    DELTA_RASTERS,
    ZONE_CHANGE,
    ZONE_CHANGE_DESCRIPTION,
    ZONE_CHANGE_NODATA,
    barrier_comparison,
    check_same_grid,
    config_differences,
    delta,
    delta_name,
    delta_statistics,
    outcome_shares,
    reached,
    soil_value_differences,
    zone_change,
    zone_transitions,
)


def _read_summary(directory: str | os.PathLike) -> dict:
    folder = Path(directory)
    if not folder.is_dir():
        raise DataError(f"{directory} is not a folder of a run")
    path = RunPaths(folder).summary
    if not path.is_file():
        raise DataError(f"{directory} holds no finished run (no summary.json)")
    try:
        summary = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise DataError(f"{path} is not a readable summary of a run: {err}") from None
    if not isinstance(summary, dict) or "scheme" not in summary or "fractions" not in summary:
        raise DataError(f"{path} is not the summary of a tumble rockfall run")
    return summary


def _resolved(directory: str | os.PathLike) -> dict[str, Any]:
    """The resolved configuration of a run (``provenance.json`` ``config.resolved``); empty for
    a run without one."""
    paths = RunPaths(directory)
    if not paths.provenance.is_file():
        return {}
    record = paths.read_json(paths.provenance).get("config")
    resolved = record.get("resolved") if isinstance(record, dict) else None
    return resolved if isinstance(resolved, dict) else {}


def _soil_presets(summary: dict) -> dict[str, Any] | None:
    """The values of the soil presets a run used (``summary.json["soil"]["presets"]``); None
    for a run of an older release, which does not store them."""
    soil = summary.get("soil")
    presets = soil.get("presets") if isinstance(soil, dict) else None
    return presets if isinstance(presets, dict) else None


def _raster(directory: str | os.PathLike, name: str) -> RasterGrid:
    from tumble.io import read_raster

    path = RunPaths(directory).raster(name)
    if not path.is_file():
        raise DataError(f"{directory} has no rasters/{name}.tif")
    return read_raster(path)


def _labels(
    a: dict, b: dict, run_a: str | os.PathLike, run_b: str | os.PathLike
) -> tuple[str, str]:
    labels = (str(a["scheme"]), str(b["scheme"]))
    if labels[0] == labels[1]:
        labels = (Path(run_a).resolve().name or "A", Path(run_b).resolve().name or "B")
    if labels[0] == labels[1]:
        labels = ("A", "B")
    return labels


def compare_runs(
    run_a: str | os.PathLike, run_b: str | os.PathLike, out: str | os.PathLike
) -> dict[str, Any]:
    """Write the comparison of two finished runs into ``out`` (module docstring); returns the
    comparison's summary (with the Table 2 rows under ``"table"``)."""
    from tumble.io import ResultDir, write_csv
    from tumble.rockfall.terrain import Terrain
    from tumble.validation.slope40 import compare_table, markdown
    from tumble.viz.compare_report import write_compare_report
    from tumble.viz.rockfall import plot_envelopes

    a, b = _read_summary(run_a), _read_summary(run_b)
    labels = _labels(a, b, run_a, run_b)
    dem_a, dem_b = (_raster(run, Path(layout.DEM).stem) for run in (run_a, run_b))
    check_same_grid(dem_a, dem_b, (f"A ({run_a})", f"B ({run_b})"))
    try:
        rows = compare_table(a, b, labels)
    except (KeyError, TypeError, IndexError) as err:
        raise DataError(
            f"the summaries of the two runs lack what the table needs ({err})"
        ) from None
    outcomes, barriers = outcome_shares(a, b), barrier_comparison(a, b)
    rows += _more_rows(rows, labels, outcomes, barriers)
    reach = [_raster(run, "reach_probability").values for run in (run_a, run_b)]
    reached_a, reached_b = reached(reach[0]), reached(reach[1])
    terrain = Terrain.from_file(RunPaths(run_a).dem)
    cell_area = float(terrain.dx * terrain.dy)
    deltas: dict[str, np.ndarray] = {}
    for name in DELTA_RASTERS:
        value_a, value_b = (_raster(run, name).values for run in (run_a, run_b))
        deltas[delta_name(name)] = delta(value_a, value_b, reached_a, reached_b)
    zones = [RunPaths(run).raster("hazard_zone") for run in (run_a, run_b)]
    transitions = None
    if all(path.is_file() for path in zones):
        zone_a, zone_b = (_raster(run, "hazard_zone").values for run in (run_a, run_b))
        deltas[ZONE_CHANGE] = zone_change(zone_a, zone_b, reached_a, reached_b)
        transitions = zone_transitions(zone_a, zone_b, np.isfinite(deltas[ZONE_CHANGE]), cell_area)
    passing = [_raster(run, "passing_count").values for run in (run_a, run_b)]
    warnings = _warnings(a, b, dem_a.values, dem_b.values, zones)
    resolved_a, resolved_b = _resolved(run_a), _resolved(run_b)
    presets = (_soil_presets(a), _soil_presets(b))
    notes = [
        f"run {which} ({run}) is a run folder of an older release: {what} not stored"
        for which, run, stored, resolved in (
            ("A", run_a, presets[0], resolved_a),
            ("B", run_b, presets[1], resolved_b),
        )
        for what in (
            *([] if stored is not None else ["resolved soil values (its presets' numbers)"]),
            *([] if resolved else ["resolved configuration"]),
        )
    ]
    summary: dict[str, Any] = {
        "runs": {"a": str(run_a), "b": str(run_b)},
        "labels": {"a": labels[0], "b": labels[1]},
        "n_rocks": {"a": a.get("n_rocks"), "b": b.get("n_rocks")},
        "grid": {
            "nx": int(terrain.shape[1]),
            "ny": int(terrain.shape[0]),
            "dx": float(terrain.dx),
            "dy": float(terrain.dy),
            "crs": terrain.crs.to_string() if terrain.crs is not None else None,
        },
        "differences": config_differences(resolved_a, resolved_b),
        "value_differences": soil_value_differences(presets[0] or {}, presets[1] or {}),
        "value_notes": notes,
        "reached_cells": {
            "a_only": int(np.count_nonzero(reached_a & ~reached_b)),
            "b_only": int(np.count_nonzero(reached_b & ~reached_a)),
            "both": int(np.count_nonzero(reached_a & reached_b)),
        },
        "rasters": {name: delta_statistics(values, cell_area) for name, values in deltas.items()},
        "outcomes": outcomes,
        "barriers": barriers,
        "warnings": warnings,
    }
    if transitions is not None:
        summary["zone_transitions"] = transitions
    with ResultDir(out) as stage:
        directory = stage / layout.RASTERS
        directory.mkdir()
        for name, values in deltas.items():
            if name == ZONE_CHANGE:
                terrain.write_raster(
                    directory / f"{name}.tif",
                    values,
                    nodata=ZONE_CHANGE_NODATA,
                    dtype="int8",
                    description=ZONE_CHANGE_DESCRIPTION,
                    unit="class",
                    cog=True,
                    overviews="absmax",
                )
            else:
                stem = name.removeprefix(layout.DELTA_PREFIX)
                terrain.write_raster(
                    directory / f"{name}.tif",
                    values,
                    description=DELTA_DESCRIPTIONS[stem],
                    unit=DELTA_RASTERS[stem],
                    dtype="float32",
                    cog=True,
                    # zoomed out: each block's largest change, a rise over an equal fall
                    overviews="absmax",
                )
        columns = {name: np.array([r[name] for r in rows]) for name in rows[0]}
        write_csv(stage / "compare.csv", columns)
        (stage / "compare.json").write_text(
            json.dumps({"runs": [str(run_a), str(run_b)], "labels": labels, "rows": rows}, indent=2)
            + "\n"
        )
        title = (
            "Leine et al. 2021, Table 2 analogue (mean +- std over path samples)"
            if "published explicit" in rows[0]
            else "Two runs side by side (mean +- std over path samples)"
        )
        (stage / "compare.md").write_text(f"# {title}\n\n" + markdown(rows))
        plot_envelopes(
            terrain,
            np.nan_to_num(passing[0]),
            np.nan_to_num(passing[1]),
            labels,
            stage / "envelopes.png",
            title=f"Spread envelopes: {labels[0]} (black), {labels[1]} (red)",
        )
        write_compare_report(
            stage,
            summary=summary,
            terrain=terrain,
            deltas=deltas,
            reached=(reached_a, reached_b),
            table=rows,
            geometry=(_geometry(run_a), _geometry(run_b)),
        )
        (stage / layout.SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return {**summary, "table": rows}


#: a barrier's kind as the comparison's rows name it
KIND_NAMES = {"line": "observation line", "net": "net"}


def _more_rows(
    table: list[dict[str, Any]],
    labels: tuple[str, str],
    outcomes: list[dict[str, Any]],
    barriers: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The table's rows of the outcomes (one per outcome: each run's column sums to 100 %) and
    of every barrier line (one per value of :data:`BARRIER_VALUES`), with the table's other
    columns (the published values) empty."""
    from tumble.rockfall.ensemble.censoring import format_percent
    from tumble.viz.report_html import number

    blank = {c: "" for c in table[0] if c not in ("quantity", *labels)} if table else {}

    def text(key: str, value: Any) -> str:
        if value is None:
            return "n/a"
        return format_percent(value) if key == "fraction_crossing" else number(value)

    rows = [
        {
            "quantity": f"rocks {o['label']}",
            labels[0]: format_percent(o["a"]),
            labels[1]: format_percent(o["b"]),
            **blank,
        }
        for o in outcomes
    ]
    for barrier in barriers:
        kinds = {k for k in barrier["kind"].values() if k}
        kind = " / ".join(KIND_NAMES.get(k, str(k)) for k in sorted(kinds))
        where = f"{kind} {barrier['name']!r}"
        for key, (label, unit, _) in BARRIER_VALUES.items():
            pair = barrier[key]
            if key in ("caught", "overtopped", "broke_through") and "net" not in kinds:
                continue
            shown = [
                "not in this run" if barrier["kind"][k] is None else text(key, pair[k])
                for k in ("a", "b")
            ]
            rows.append(
                {
                    "quantity": f"{where}: {label}" + (f" ({unit})" if unit else ""),
                    labels[0]: shown[0],
                    labels[1]: shown[1],
                    **blank,
                }
            )
    return rows


def _geometry(run: str | os.PathLike) -> dict[str, Any] | None:
    """The run's ``geometry.json`` (barrier lines, release areas), or None if it has none."""
    paths = RunPaths(run)
    if not paths.geometry.is_file():
        return None
    try:
        return paths.read_geometry()
    except ValueError:
        return None


def _warnings(
    a: dict, b: dict, heights_a: np.ndarray, heights_b: np.ndarray, zones: list[Path]
) -> list[str]:
    """What the reader of a comparison must know: runs of other DEM heights, one run with
    zones and not the other, and each run's own warnings."""
    warnings = []
    both = np.isfinite(heights_a) & np.isfinite(heights_b)
    moved = both & (heights_a != heights_b)
    if moved.any() or not np.array_equal(np.isfinite(heights_a), np.isfinite(heights_b)):
        dz = float(np.max(np.abs(heights_b[both] - heights_a[both]))) if both.any() else 0.0
        warnings.append(
            f"the two runs' DEMs share the grid but not the heights ({int(moved.sum())} cells "
            f"differ, by up to {dz:.3g} m): the differences include that of the terrain"
        )
    has = [path.is_file() for path in zones]
    if has[0] != has[1]:
        which = "A" if has[0] else "B"
        warnings.append(
            f"only run {which} has hazard zones (release frequencies): no zone change was written"
        )
    for label, summary in (("A", a), ("B", b)):
        warnings += [f"run {label}: {w}" for w in summary.get("warnings") or []]
    return warnings
