"""Per-zone soils of the Authume DEM: the soil table, its two calibrated numbers, the soil rasters.

Each zone of the DEM (:mod:`tumble.validation.authume.terrain`: Blue vegetated slope, Gray hard
surface, Red rocky slope) gets one row of a parameter table (:meth:`SoilParameters.table`);
:func:`zone_soil` turns the table and the zone raster into a :class:`~tumble.rockfall.soil.Soil`
whose fields are rasters on the DEM grid (constant where all zones agree). Nodes outside the
survey (zone 0, filled from the nearest surveyed node, mostly the continuation of the quarry's
platforms) take the **Gray** row; rocks that reach them keep rolling, and rocks that reach the
DEM's border end as ``left_domain``. All zones start from the slippage-dependent friction of the
one published field-calibrated set (Lu et al. 2019 after Bartelt 2016: ``mu_min = 0.55``,
``mu_max = 2``, ``kappa = 3 /m``, ``beta = 185 /s``) with no restitution, as in RAMMS (Leine et
al. 2014). Two numbers are calibrated (:func:`tumble.validation.authume.metrics.calibrate`):

* ``vegetation_drag`` ``c`` (kg/s): the linear drag layer of Leine et al. 2014 (eq. 10-11) on
  the Blue zone, the crude model of forest and bush, active while the centre of mass is less than
  :data:`VEGETATION_HEIGHT` above the terrain, with the rotational drag ``c (0.5 m)^2`` (the
  drag force acting at a lever arm of 0.5 m, about the blocks' half size);
* ``hard_friction``: a factor on ``mu_min`` and ``mu_max`` of the Gray and Red zones.

:data:`CALIBRATION_GRID` is the grid searched on P1; :data:`CALIBRATED` holds the result of
:data:`CALIBRATION_COMMAND`.

References: R. I. Leine et al., Multibody Syst. Dyn. 32 (2014) 241-271. G. Lu et al.,
Landslides 16 (2019) 2353-2367.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from tumble.rockfall.soil import FIELDS, PRESETS, Soil
from tumble.validation.authume.terrain import ZONE_OUTSIDE

#: Zone id -> row of the soil table; zone 0 (outside the survey) takes the Gray row.
ZONE_ROWS = {ZONE_OUTSIDE: "gray", 1: "blue", 2: "gray", 3: "red"}
#: Rows of the soil table.
ZONES = ("blue", "gray", "red")
#: Height of the vegetation drag layer on the Blue zone, m.
VEGETATION_HEIGHT = 2.0
#: Lever arm of the rotational vegetation drag: ``drag_torque = drag * LEVER**2``, m.
VEGETATION_LEVER = 0.5
#: The friction law every zone starts from (Lu et al. 2019 after Bartelt 2016).
BASE_FRICTION = {k: float(v) for k, v in PRESETS["medium"].items()}


@dataclass(frozen=True)
class SoilParameters:
    """The calibrated numbers of the per-zone soil table (module docstring).

    ``vegetation_drag``: drag coefficient of the Blue zone's vegetation layer, kg/s;
    ``hard_friction``: factor on ``mu_min`` and ``mu_max`` of the Gray and Red zones.
    """

    vegetation_drag: float = 0.0
    hard_friction: float = 1.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{f.name} must be a number, got {value!r}") from None
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{f.name} must be finite and not negative, got {value!r}")
            object.__setattr__(self, f.name, value)
        if self.hard_friction == 0.0:
            raise ValueError("hard_friction must be positive, got 0")

    def table(self) -> dict[str, dict[str, float]]:
        """The soil table: zone row (:data:`ZONES`) -> every field of :class:`Soil`."""
        base = dict.fromkeys(FIELDS, 0.0) | BASE_FRICTION
        hard = base | {
            "mu_min": base["mu_min"] * self.hard_friction,
            "mu_max": base["mu_max"] * self.hard_friction,
        }
        blue = base | {
            "drag": self.vegetation_drag,
            "drag_torque": self.vegetation_drag * VEGETATION_LEVER**2,
            "drag_height": VEGETATION_HEIGHT if self.vegetation_drag > 0.0 else 0.0,
        }
        return {"blue": blue, "gray": dict(hard), "red": dict(hard)}

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


#: The calibration grid: every combination is one run of P1.
CALIBRATION_GRID = {
    "vegetation_drag": (0.0, 100.0, 150.0, 200.0, 250.0, 300.0),
    "hard_friction": (0.25, 0.5, 1.0, 2.0),
}
#: The command whose calibration gave :data:`CALIBRATED` (P1, implicit scheme, 256 rocks,
#: seed 0, the grid above).
CALIBRATION_COMMAND = "tumble validate authume --out out/authume --calibrate"
#: The parameters chosen by :data:`CALIBRATION_COMMAND`: objective 9.41 m on P1 (run-out
#: Wasserstein 6.92 m + lateral 2.49 m), next best 10.45 m (250 kg/s, 0.25).
CALIBRATED = SoilParameters(vegetation_drag=250.0, hard_friction=0.5)


def zone_soil(zone: ArrayLike, table: Mapping[str, Mapping[str, float]]) -> Soil:
    """A :class:`Soil` on the DEM grid from the zone raster and a soil table (zone row -> fields).

    Each field is a raster taking the value of its node's zone row (:data:`ZONE_ROWS`; zone 0
    takes the Gray row), or one number where all rows agree. The engine interpolates the rasters
    bilinearly, so parameters blend over one cell at zone borders.
    """
    zone = np.asarray(zone)
    if zone.ndim != 2:
        raise ValueError(f"the zone raster must be 2-D, got shape {zone.shape}")
    ids = np.rint(zone).astype(np.int64)
    unknown = sorted(set(np.unique(ids).tolist()) - set(ZONE_ROWS))
    if unknown:
        raise ValueError(f"zone ids {unknown} have no soil; known ids: {sorted(ZONE_ROWS)}")
    present = sorted({ZONE_ROWS[i] for i in np.unique(ids).tolist()})
    missing = [row for row in present if row not in table]
    if missing:
        raise ValueError(f"the soil table has no row for zone(s) {missing}")
    values = {}
    for name in FIELDS:
        per_row = {}
        for row in present:
            if name not in table[row]:
                raise ValueError(f"the soil table row {row!r} has no field {name!r}")
            per_row[row] = float(table[row][name])
        if len(set(per_row.values())) == 1:
            values[name] = per_row[present[0]]
            continue
        lookup = np.zeros(max(ZONE_ROWS) + 1)
        for i, row in ZONE_ROWS.items():
            lookup[i] = per_row.get(row, 0.0)
        values[name] = lookup[ids]
    return Soil(**values)
