"""What changed from run A to run B of the same site (``tumble rockfall compare``): difference
rasters, the change of hazard zone, and the configuration keys that differ.

**Difference rasters** ``delta_<name>`` (``name`` in :data:`DELTA_RASTERS`): ``B - A`` per cell of
the common DEM grid, where a run's value in a cell none of its rocks reached is 0 (no rock came:
probability 0, no energy), so a cell a net now protects shows the whole energy it takes away
(negative) and a cell reached only with the change shows all it gains (positive). Cells neither
run reached are nodata. A cell is reached by a run where its ``reach_probability`` raster has a
value (the written rasters are nodata exactly where no rock came,
:mod:`tumble.rockfall.ensemble.outputs`).

**Zone change** ``delta_hazard_zone`` (both runs with release frequencies, hence hazard zones):
``zone_B - zone_A`` in the zone codes of :mod:`tumble.rockfall.hazard.zoning` (0 none, 1 yellow,
2 blue, 3 red), an integer from -3 (red to none) to +3 (none to red), 0 unchanged; nodata
(:data:`ZONE_CHANGE_NODATA`) where neither run reached the cell and in the DEM's holes.

**Configuration differences** (:func:`config_differences`): the resolved configurations of the
two runs (``provenance.json`` ``config.resolved``, every default written as its value) flattened
to dotted keys, tables of lists by their index (``barrier.0.height``; an empty list has no
key), and every key whose values differ with both values; ``None`` where a run does not have
the key.

**Resolved values** (:func:`soil_value_differences`): a configuration names a soil preset, not its
numbers, and a preset that took other numbers between two releases leaves the configurations
equal. Each run stores the values of every preset it used (``summary.json["soil"]["presets"]``,
:mod:`tumble.rockfall.site.soil_record`); every field that differs between the two runs' values
of one preset is listed as ``soil.<preset>.<field>``. A field one run does not store and the
other has at 0 does not differ: a soil field added later is 0 where it leaves the law as it was.

**Outcomes** (:func:`outcome_shares`): the share of the rocks of each run that stopped, were
caught by a net, left the DEM, were still moving at ``t_max`` and failed, every outcome either run
recorded (a run without nets caught none: 0); each run's shares sum to 1.

**Barrier lines** (:func:`barrier_comparison`): every barrier line or net of either run, by name,
with what each run's ``summary.json["barriers"]`` says of it (:data:`BARRIER_VALUES`: the rocks
crossing it downslope and the crossings both ways, the 95th percentile and largest kinetic
energy, the UNI 11211-4 design values ``E_d``, ``v_d``, ``h_d``, and what a net did to the rocks);
None for a run without that line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from tumble.errors import DataError
from tumble.io.run_folder import DELTA_PREFIX
from tumble.rockfall.hazard.zoning import ZONE_NAMES

#: the rasters of a run whose differences a comparison writes, with the unit of the difference
DELTA_RASTERS = {
    "reach_probability": "1",
    "kinetic_energy_p95": "kJ",
}
#: descriptions of the difference rasters (GeoTIFF band descriptions)
DELTA_DESCRIPTIONS = {
    "reach_probability": "change of the reach probability, B minus A "
    "(0 where a run did not reach the cell; nodata where neither did)",
    "kinetic_energy_p95": "change of the 95th percentile kinetic energy, B minus A "
    "(0 kJ where a run did not reach the cell; nodata where neither did)",
}
#: the zone change raster: its name, description and nodata value (int8)
ZONE_CHANGE = f"{DELTA_PREFIX}hazard_zone"
ZONE_CHANGE_DESCRIPTION = (
    "hazard zone change, B minus A in zone codes (0 none, 1 yellow, 2 blue, 3 red): "
    "-3 red to none ... +3 none to red, 0 unchanged; nodata where neither run reached"
)
ZONE_CHANGE_NODATA = -128


def delta_name(name: str) -> str:
    """The file stem of the difference raster of ``name``: ``delta_<name>``."""
    return f"{DELTA_PREFIX}{name}"


def grid_text(grid: Any) -> str:
    """A grid in words: samples, spacing, south-west sample, CRS."""
    ny, nx = grid.values.shape
    crs = grid.crs.to_string() if grid.crs is not None else "no CRS"
    return (
        f"{nx} x {ny} samples of {grid.dx:g} x {grid.dy:g} from ({grid.x0:.3f}, {grid.y0:.3f}) "
        f"in {crs}"
    )


def check_same_grid(a: Any, b: Any, labels: tuple[str, str]) -> None:
    """DataError unless the rasters ``a`` and ``b`` (:class:`tumble.io.dem.RasterGrid`) lie on
    one grid: the same samples, spacing, origin (to a thousandth of a cell) and CRS."""
    same = (
        a.values.shape == b.values.shape
        and math.isclose(a.dx, b.dx, rel_tol=1e-9)
        and math.isclose(a.dy, b.dy, rel_tol=1e-9)
        and abs(a.x0 - b.x0) <= 1e-3 * a.dx
        and abs(a.y0 - b.y0) <= 1e-3 * a.dy
        and (a.crs == b.crs)
    )
    if not same:
        raise DataError(
            f"the two runs are on different grids: {labels[0]} has {grid_text(a)}, "
            f"{labels[1]} has {grid_text(b)}; a comparison needs both runs on the same DEM "
            "grid (run the scenario again on the other run's DEM)"
        )


def reached(reach_probability: np.ndarray) -> np.ndarray:
    """Cells a run reached: where its written reach probability has a value."""
    return np.isfinite(np.asarray(reach_probability, dtype=np.float64))


def delta(
    values_a: np.ndarray, values_b: np.ndarray, reached_a: np.ndarray, reached_b: np.ndarray
) -> np.ndarray:
    """``B - A`` (module docstring): a run's value 0 where it has none, NaN where neither run
    reached the cell; float64."""
    a = np.where(reached_a & np.isfinite(values_a), values_a, 0.0)
    b = np.where(reached_b & np.isfinite(values_b), values_b, 0.0)
    return np.where(reached_a | reached_b, b - a, np.nan)


def zone_change(
    zone_a: np.ndarray, zone_b: np.ndarray, reached_a: np.ndarray, reached_b: np.ndarray
) -> np.ndarray:
    """``zone_B - zone_A`` as float64 (module docstring), NaN where neither run reached the cell
    or a zone is nodata (the DEM's holes)."""
    a = np.asarray(zone_a, dtype=np.float64)
    b = np.asarray(zone_b, dtype=np.float64)
    defined = (reached_a | reached_b) & np.isfinite(a) & np.isfinite(b)
    return np.where(defined, b - a, np.nan)


def zone_transitions(
    zone_a: np.ndarray, zone_b: np.ndarray, defined: np.ndarray, cell_area: float
) -> list[dict[str, Any]]:
    """The cells of each change of zone (A's zone to B's), over the ``defined`` cells, largest
    zone first, unchanged cells included: zone in A and in B, cells, area (m^2)."""
    a = np.asarray(zone_a)[defined].astype(np.int64)
    b = np.asarray(zone_b)[defined].astype(np.int64)
    rows = []
    for za in sorted(ZONE_NAMES, reverse=True):
        for zb in sorted(ZONE_NAMES, reverse=True):
            n = int(np.count_nonzero((a == za) & (b == zb)))
            if n:
                rows.append(
                    {
                        "zone_a": ZONE_NAMES[za],
                        "zone_b": ZONE_NAMES[zb],
                        "cells": n,
                        "area_m2": n * cell_area,
                    }
                )
    return rows


def delta_statistics(values: np.ndarray, cell_area: float) -> dict[str, Any]:
    """What a difference raster holds: defined cells, the cells (and area, m^2) that rose and
    fell, the smallest, largest and mean change."""
    defined = values[np.isfinite(values)]
    up, down = int(np.count_nonzero(defined > 0)), int(np.count_nonzero(defined < 0))
    return {
        "cells": int(defined.size),
        "cells_increased": up,
        "cells_decreased": down,
        "area_increased_m2": up * cell_area,
        "area_decreased_m2": down * cell_area,
        "min": float(defined.min()) if defined.size else None,
        "max": float(defined.max()) if defined.size else None,
        "mean": float(defined.mean()) if defined.size else None,
    }


def flatten_config(data: Any, prefix: str = "") -> dict[str, Any]:
    """A configuration as one level of dotted keys: tables by key, lists of tables by index
    (``barrier.0.height``); other lists and scalars are values; an empty list has no key."""
    flat: dict[str, Any] = {}
    if isinstance(data, Mapping):
        for key, value in data.items():
            flat.update(flatten_config(value, f"{prefix}{key}."))
    elif isinstance(data, list) and not data:
        pass  # an empty list has no entries to differ: its key is absent ("not set")
    elif isinstance(data, list) and any(isinstance(v, Mapping) for v in data):
        for index, value in enumerate(data):
            flat.update(flatten_config(value, f"{prefix}{index}."))
    else:
        flat[prefix.removesuffix(".")] = data
    return flat


def config_differences(config_a: Mapping[str, Any], config_b: Mapping[str, Any]) -> list[dict]:
    """Every dotted key whose value differs between the two configurations, sorted by key:
    ``{"key", "a", "b"}``, ``None`` where a configuration lacks the key."""
    a, b = flatten_config(config_a), flatten_config(config_b)
    return [
        {"key": key, "a": a.get(key), "b": b.get(key)}
        for key in sorted(set(a) | set(b))
        if a.get(key) != b.get(key)
    ]


def soil_value_differences(
    presets_a: Mapping[str, Any], presets_b: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Every field of a preset both runs used whose value differs (module docstring):
    ``{"key": "soil.<preset>.<field>", "a", "b"}``, ``None`` where a run does not store the
    field; in the order of the presets and fields of run B."""
    out = []
    for preset, values_b in presets_b.items():
        values_a = presets_a.get(preset)
        if not isinstance(values_a, Mapping) or not isinstance(values_b, Mapping):
            continue
        for field in [*values_b, *(f for f in values_a if f not in values_b)]:
            a, b = values_a.get(field), values_b.get(field)
            if a == b or (a is None and b == 0.0) or (b is None and a == 0.0):
                continue
            out.append({"key": f"soil.{preset}.{field}", "a": a, "b": b})
    return out


#: the outcomes of a rock, in the order a comparison lists them, and their labels
OUTCOME_LABELS = {
    "stopped": "stopped",
    "caught": "caught by a net",
    "left_domain": "left the DEM",
    "timed_out": "still moving at t_max",
    "failed": "failed",
}


def outcome_shares(summary_a: Mapping[str, Any], summary_b: Mapping[str, Any]) -> list[dict]:
    """The share of each outcome in both runs (module docstring): ``{"outcome", "label", "a",
    "b"}`` for every outcome of :data:`OUTCOME_LABELS` either run recorded, in that order, then
    any other outcome a run records; an outcome a run does not record is 0 (no nets: none
    caught)."""
    fractions = [dict(s.get("fractions") or {}) for s in (summary_a, summary_b)]
    known = [k for k in OUTCOME_LABELS if any(k in f for f in fractions)]
    other = sorted({k for f in fractions for k in f} - set(OUTCOME_LABELS))
    return [
        {
            "outcome": key,
            "label": OUTCOME_LABELS.get(key, key.replace("_", " ")),
            "a": fractions[0].get(key, 0.0),
            "b": fractions[1].get(key, 0.0),
        }
        for key in (*known, *other)
    ]


#: what a comparison takes of each barrier of ``summary.json["barriers"]``: a key of the
#: comparison, its label and unit, and its path in the barrier's entry
BARRIER_VALUES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "rocks_crossing": ("rocks crossing downslope", "", ("rocks_crossing",)),
    "fraction_crossing": ("share of the rocks crossing", "", ("fraction_crossing",)),
    "crossings_downslope": ("crossings downslope", "", ("crossings_downslope",)),
    "crossings_upslope": ("crossings upslope", "", ("crossings_upslope",)),
    "kinetic_energy_p95_kJ": ("kinetic energy p95", "kJ", ("kinetic_energy_kJ", "p95")),
    "kinetic_energy_max_kJ": ("kinetic energy max", "kJ", ("kinetic_energy_kJ", "max")),
    "passing_height_p95_m": ("passing height p95", "m", ("passing_height_m", "p95")),
    "E_d_kJ": ("design energy E_d", "kJ", ("design", "E_d_kJ")),
    "v_d_ms": ("design velocity v_d", "m/s", ("design", "v_d_ms")),
    "h_d_m": ("design height h_d", "m", ("design", "h_d_m")),
    "caught": ("rocks caught", "", ("outcomes", "caught")),
    "overtopped": ("rocks overtopping", "", ("outcomes", "overtopped")),
    "broke_through": ("rocks breaking through", "", ("outcomes", "broke_through")),
}


def _at(entry: Mapping[str, Any] | None, path: tuple[str, ...]) -> Any:
    value: Any = entry
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def barrier_comparison(summary_a: Mapping[str, Any], summary_b: Mapping[str, Any]) -> list[dict]:
    """Every barrier of either run (module docstring), those of A first, then those only B has:
    ``{"name", "kind": {"a", "b"}, <key of BARRIER_VALUES>: {"a", "b"}}``, None for a run
    without the barrier or a value it does not have (no rock crossed)."""
    entries = [
        {str(b["name"]): b for b in (s.get("barriers") or []) if isinstance(b, Mapping)}
        for s in (summary_a, summary_b)
    ]
    names = [*entries[0], *(n for n in entries[1] if n not in entries[0])]
    out = []
    for name in names:
        a, b = entries[0].get(name), entries[1].get(name)
        record: dict[str, Any] = {
            "name": name,
            "kind": {"a": _at(a, ("kind",)), "b": _at(b, ("kind",))},
        }
        for key, (_, _, path) in BARRIER_VALUES.items():
            record[key] = {"a": _at(a, path), "b": _at(b, path)}
        out.append(record)
    return out
