"""``tumble rockfall soils``: the soil catalogue (name, parameters, source, spread) and the forest
model.

Every soil preset usable as ``--soil NAME``, ``[soil] preset = NAME`` or a class of a soil map
(``[soil.classes] 1 = NAME``) is listed with its source and, where the source supports one, its
spread (``soil.uncertainty = "category"``: a uniform range per field; ``"sets"``: parameter sets
a calibration cannot tell apart), and the slopes on which its friction holds a sliding rock
(below ``atan(mu_max)``) with the slippage it takes on 35, 40 and 45 degrees
(``docs/reach_and_start.md``); the categories left out for want of a checked source are named
below the table.
"""

from __future__ import annotations

import argparse
import json
import math

from tumble.rockfall.forest import FOREST_MODEL
from tumble.rockfall.site.landcover import FOREST_PRESETS, UNSOURCED_FOREST_PRESETS
from tumble.rockfall.soil import CATALOGUE, FIELDS, UNSOURCED, Soil

#: slopes (degrees) at which the listing gives the slippage after which the friction holds a
#: sliding rock (:meth:`tumble.rockfall.soil.Soil.holding_slippage`)
SLOPES = (35.0, 40.0, 45.0)
#: columns of the table and their units
COLUMNS = (
    ("mu_min", ""),
    ("mu_max", ""),
    ("kappa", "1/m"),
    ("beta", "1/s"),
    ("restitution", ""),
    ("drag", "kg/s"),
    ("drag_torque", "kg m2/s"),
    ("drag_height", "m"),
    ("rolling_resistance", ""),
    ("scar_strength", "kN/m2"),
    ("scar_cs", ""),
    ("collision_froude", ""),
)


def add_soils_parser(actions) -> None:
    soils = actions.add_parser(
        "soils",
        help="list the soil presets with their parameters and published sources",
        description=(
            "The soil catalogue: every preset with its parameters (slippage-dependent friction "
            "mu_min, mu_max, kappa, beta; restitution; drag layer) and where they are published."
        ),
    )
    soils.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    soils.set_defaults(run=soils_command)


def catalogue() -> list[dict]:
    """Every preset with all its fields (defaults included), source and use."""
    rows = []
    for name, preset in CATALOGUE.items():
        soil = Soil.preset(name)
        rows.append(
            {
                "name": name,
                **{field: float(getattr(soil, field)) for field in FIELDS},
                "holds_sliding_below_deg": soil.holding_angle(),
                "holding_slippage_m": {
                    f"{slope:g}": _finite(soil.holding_slippage(slope)) for slope in SLOPES
                },
                "source": preset.source,
                "use": preset.use,
                "spread": {k: [float(a), float(b)] for k, (a, b) in preset.spread.items()},
                "sets": [dict(v) for v in preset.sets],
                "spread_source": preset.spread_source,
                "uncertainty": [
                    mode for mode, ok in (("category", preset.spread), ("sets", preset.sets)) if ok
                ],
            }
        )
    return rows


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _holding_line(row: dict) -> str:
    """On which slopes the category's friction holds a sliding rock, and after what slippage."""
    after = ", ".join(
        f"{slope} deg " + ("never" if s is None else "at once" if s == 0.0 else f"after {s:.2f} m")
        for slope, s in row["holding_slippage_m"].items()
    )
    return (
        f"  friction holds a sliding rock on slopes below {row['holds_sliding_below_deg']:.1f} deg "
        f"(mu reaches tan(slope)); slippage to hold it: {after}"
    )


def _spread_lines(row: dict) -> list[str]:
    """How a category's parameters may be drawn (soil.uncertainty), or that they are fixed."""
    if not row["uncertainty"]:
        return ["  spread: none in its source (soil.uncertainty must stay 'none')"]
    lines = []
    for name, (low, high) in row["spread"].items():
        lines.append(f"  uncertainty = 'category': {name} uniform in [{low:g}, {high:g}]")
    if row["sets"]:
        varying = CATALOGUE[row["name"]].set_values()
        lines.append(
            f"  uncertainty = 'sets': one of {len(row['sets'])} equivalent sets, equally likely; "
            + "; ".join(f"{f} " + ", ".join(f"{v:g}" for v in vs) for f, vs in varying.items())
        )
    lines.append(f"  spread source: {row['spread_source']}")
    return lines


def soils_command(args: argparse.Namespace) -> int:
    rows = catalogue()
    if args.json:
        model = [
            dict(zip(("quantity", "value", "source"), row, strict=True)) for row in FOREST_MODEL
        ]
        print(json.dumps({"soils": rows, "left_out": UNSOURCED, "forest": model}, indent=2))
        return 0
    header = ["name"] + [f"{n} {u}".strip() for n, u in COLUMNS]
    table = [[r["name"]] + [f"{r[n]:g}" for n, _ in COLUMNS] for r in rows]
    widths = [max(len(row[k]) for row in [header, *table]) for k in range(len(header))]
    for row in [header, *table]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    for r in rows:
        print(f"{r['name']}: {r['use']}. Source: {r['source']}")
        print(_holding_line(r))
        for line in _spread_lines(r):
            print(line)
    print()
    for what, why in UNSOURCED.items():
        print(f"left out: {what}: {why}")
    forest = ", ".join(FOREST_PRESETS) or "none"
    print(
        f"forest presets: {forest}; {', '.join(UNSOURCED_FOREST_PRESETS)} are left out until "
        "their published drag coefficients are checked: give [forest.classes] drag, "
        "drag_height (and drag_torque) per class"
    )
    print()
    print("forest, rock-tree impacts ([forest] stems_per_ha, dbh_cm or trees):")
    for quantity, value, source in FOREST_MODEL:
        print(f"  {quantity}: {value}. Source: {source}")
    return 0
