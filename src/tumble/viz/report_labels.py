"""Words with units for the keys of a run's summary, as the report's table headers show them
(``runout_m.p95`` -> ``run-out, 95th percentile (m)``): a reader of the report never meets a
JSON key."""

from __future__ import annotations

#: units of the key suffixes of the summary: suffix -> unit, longest first
UNIT_SUFFIXES = (
    ("_kJ", "kJ"),
    ("_ms", "m/s"),
    ("_rps", "rev/s"),
    ("_m2", "m\N{SUPERSCRIPT TWO}"),
    ("_m3", "m\N{SUPERSCRIPT THREE}"),
    ("_kg", "kg"),
    ("_deg", "degrees"),
    ("_m", "m"),
    ("_s", "s"),
)
#: words for the parts of the summary's keys
KEY_WORDS = {
    "p50": "median",
    "p95": "95th percentile",
    "p99": "99th percentile",
    "max": "maximum",
    "min": "minimum",
    "mean": "mean",
    "std": "standard deviation",
    "x": "Easting (m)",
    "y": "Northing (m)",
    "x_min": "Easting from (m)",
    "x_max": "Easting to (m)",
    "y_min": "Northing from (m)",
    "y_max": "Northing to (m)",
    "runout": "run-out",
    "rock_class": "rock class",
    "rock_fraction": "share of the rocks",
    "left_domain": "left the DEM",
    "timed_out": "still moving at t_max",
    "timed_out_speed": "speed of the rocks still moving at t_max",
    "timed_out_slope": "slope where the rocks still moving at t_max are",
    "timed_out_motion": "rocks still moving at t_max",
    "kinetic_energy_max": "kinetic energy (largest per rock)",
    "velocity_max": "velocity (largest per rock)",
    "jump_height_max": "vertical jump height (largest per rock)",
    "frequency": "frequency (1/year)",
    "downslope_edge": "downslope edge",
    "side_edge": "side edge",
    "nodata_hole": "nodata hole",
    "zone_a": "zone in A",
    "zone_b": "zone in B",
    "n_released": "rocks released",
    "released": "rocks released",
    "kept": "rocks kept",
    "pgs_tol": "tolerance of the contact solver",
    "pgs_cap_hits": "steps at the contact solver's iteration cap",
    "ci_level": "confidence level of the intervals",
    "rock_steps": "rock-steps",
    "rock_steps_per_s": "rock-steps per second",
    "contact_step_fraction": "share of the steps in contact",
    "wall_time": "wall time",
    "sessions": "sessions that made the result",
}
#: the first part of a key that says what the columns under it count
KEY_GROUPS = {"fractions": "share", "counts": "rocks"}
#: a last part of a key that is a unit by itself: ``zoning.areas.red.m2`` -> ``(m²)``
UNIT_PARTS = {"m2": "m\N{SUPERSCRIPT TWO}", "ha": "ha", "cells": "cells", "years": "years"}
#: whole keys in words where the words of their parts would not read (the zoning record)
KEY_LABELS = {
    **{
        f"zoning.areas.{zone}": f"area of the {zone} hazard zone"
        for zone in ("yellow", "blue", "red")
    },
    "zoning.energy_thresholds_kJ": "hazard zones: energy limits of the intensity classes (kJ)",
    "zoning.return_periods_years": (
        "hazard zones: return-period limits of the probability classes (years)"
    ),
    "zoning.source": "hazard zones: intensity x probability matrix after",
}


def column_label(key: str) -> str:
    """Words with a unit for a (dotted) key of the summary: ``runout_m.p95`` -> ``run-out,
    95th percentile (m)``, ``fractions.stopped`` -> ``stopped (share)``; a key it does not
    know gets its underscores as spaces."""
    if " " in key:  # already words
        return key
    if key in KEY_LABELS:
        return KEY_LABELS[key]
    parts = key.split(".")
    unit = None
    if len(parts) > 1 and parts[-1] in UNIT_PARTS:
        unit, parts = UNIT_PARTS[parts[-1]], parts[:-1]
        if ".".join(parts) in KEY_LABELS:
            return f"{KEY_LABELS['.'.join(parts)]} ({unit})"
    if parts[0] in KEY_GROUPS and len(parts) > 1:
        unit, parts = KEY_GROUPS[parts[0]], parts[1:]
    words = []
    for part in parts:
        if part in KEY_WORDS:
            words.append(KEY_WORDS[part])
            continue
        for suffix, name in UNIT_SUFFIXES:
            if part.endswith(suffix) and len(part) > len(suffix) and unit is None:
                part, unit = part[: -len(suffix)], name
                break
        words.append(KEY_WORDS.get(part, part.replace("_", " ")))
    return ", ".join(words) + (f" ({unit})" if unit else "")
