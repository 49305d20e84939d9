"""Per-zone soils of the Authume DEM: the soil table, its calibrated numbers, the soil rasters.

Each zone of the DEM (:mod:`tumble.validation.authume.terrain`: Blue vegetated slope, Gray hard
surface, Red rocky slope) gets one row of a parameter table (:meth:`SoilParameters.table`);
:func:`zone_soil` turns the table and the zone raster into a :class:`~tumble.rockfall.soil.Soil`
whose fields are rasters on the DEM grid (constant where all zones agree). Nodes outside the
survey (zone 0, filled from the nearest surveyed node, mostly the continuation of the quarry's
platforms) take the **Gray** row; rocks that reach them keep rolling, and rocks that reach the
DEM's border end as ``left_domain``. All zones start from the slippage-dependent friction of the
one published field-calibrated set (Lu et al. 2019 after Bartelt 2016: ``mu_min = 0.55``,
``mu_max = 2``, ``kappa = 3 /m``, ``beta = 185 /s``) with no restitution, as in RAMMS (Leine et
al. 2014). The Red zone (rocky slope) keeps that friction (``rocky_friction = 1``). It lies on
P2's path only, so P1 cannot inform it: its rolling resistance ``rocky_rolling_resistance`` is
the second stage of the calibration, on P2
(:func:`tumble.validation.authume.calibration.calibrate_rocky`). Five numbers are calibrated
on P1 (:func:`tumble.validation.authume.calibration.calibrate`):

* ``vegetation_drag`` ``c`` (kg/s): the linear drag layer of Leine et al. 2014 (eq. 10-11) on
  the Blue zone, the crude model of forest and bush, active while the centre of mass is less than
  :data:`VEGETATION_HEIGHT` above the terrain. ``c`` is the coefficient of a block of
  :data:`VEGETATION_REFERENCE_VOLUME` (1 m^3); a block of volume ``V`` gets
  ``c (V / 1 m^3)^(2/3)``: the resistance of the vegetation grows with the block's projected
  area, as the drag of the soil layer of Lu et al. (2019, ``F = C_d rho A v^2 / 2``), so the
  deceleration ``c / m`` falls as ``m^(-1/3)`` instead of ``m^(-1)`` (:meth:`SoilParameters.table`
  with ``volume``; :func:`vegetation_scale`). The layer resists translation only: the
  rotational drag is ``c VEGETATION_LEVER^2`` with :data:`VEGETATION_LEVER` = 0 (the stems press
  on the block's front, so their resultant passes close to the centre of mass; a fixed lever of
  0.5 m, used before, damped the spin of the light blocks at a rate ``c (0.5 m)^2 / I``, about
  ``m^(-5/3)``, stopped their rolling and left them to the slippage friction on the vegetated
  slope, see ``docs/validation_authume.md``);
* ``hard_friction``: a factor on ``mu_min`` and ``mu_max`` of the Gray zone (walls and
  platforms);
* ``rolling_resistance``: the rolling resistance ``mu_r`` (model A of Ai et al. 2011,
  :mod:`tumble.rockfall.soil`) of the Gray zone, and of the Red zone where
  ``rocky_rolling_resistance`` is None. The 0.5 m DEM is smooth
  where the quarry's floor and talus are strewn with debris; a rolling block loses energy on
  that roughness, which the rolling resistance stands for. On Blue the vegetation layer resists
  the motion instead;
* ``vegetated_friction``: a factor on ``mu_min`` and ``mu_max`` of the Blue zone. On the
  vegetated slope the friction is what turns a landing block's speed into rotation: with the
  base set (``mu_min = 0.55``, close to ``tan 29 deg``) an elongated block landing on its broad
  side slides and stops on the 28-32 deg upper slope, with a larger friction it tips over its
  front edge and tumbles on (``docs/validation_authume.md``);
* ``drop_offset`` (m): not a soil number but the one unknown of the release, kept here so that
  the calibration searches it with the others: the horizontal distance beyond the crest of the
  cliff top, along the profile, at which the blocks leave the shovel
  (:func:`tumble.validation.authume.releases.authume_releases`); ``None`` keeps the published
  drop points.

:data:`CALIBRATION_GRID` is the grid searched on P1; :data:`CALIBRATED` holds the result of
:data:`CALIBRATION_COMMAND`.

References: R. I. Leine et al., Multibody Syst. Dyn. 32 (2014) 241-271. G. Lu et al.,
Landslides 16 (2019) 2353-2367. J. Ai et al., Powder Technol. 206 (2011) 269-282.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from tumble.rockfall.soil import CATALOGUE, FIELDS, LU_SCAR_CS, PRESETS, Soil
from tumble.validation.authume.terrain import ZONE_OUTSIDE

#: Zone id -> row of the soil table; zone 0 (outside the survey) takes the Gray row.
ZONE_ROWS = {ZONE_OUTSIDE: "gray", 1: "blue", 2: "gray", 3: "red"}
#: Rows of the soil table.
ZONES = ("blue", "gray", "red")
#: Height of the vegetation drag layer on the Blue zone, m.
VEGETATION_HEIGHT = 2.0
#: Lever arm of the rotational vegetation drag: ``drag_torque = drag * LEVER**2``, m. Zero: the
#: vegetation layer resists the translation of a block, not its rotation (module docstring).
VEGETATION_LEVER = 0.0
#: Volume of the block whose vegetation drag is ``vegetation_drag``, m^3.
VEGETATION_REFERENCE_VOLUME = 1.0
#: The friction law every zone starts from (Lu et al. 2019 after Bartelt 2016).
BASE_FRICTION = {k: float(v) for k, v in PRESETS["lu2019"].items()}
#: ``C_s`` of the scar layer where ``SoilParameters.scar_strength`` is set: Lu et al. 2019's
#: whole-trajectory calibration at Chant Sura (the category ``medium``'s).
SCAR_CS = LU_SCAR_CS
#: Zones whose ground carries the scar layer where ``SoilParameters.scar_strength`` is set: the
#: layer is soil a landing block ploughs (Lu et al. 2019), which the vegetated slopes (Blue) are;
#: the walls and sturdy platforms (Gray) and the rocky slope (Red) are rock and debris.
SCAR_ZONES = ("blue",)


def vegetation_scale(volume: ArrayLike) -> np.ndarray:
    """Factor on ``vegetation_drag`` for blocks of ``volume`` (m^3): ``(V / V_ref)^(2/3)``, the
    ratio of projected areas to the reference block of :data:`VEGETATION_REFERENCE_VOLUME`."""
    volume = np.asarray(volume, dtype=np.float64)
    if not (np.all(np.isfinite(volume)) and np.all(volume > 0.0)):
        raise ValueError("block volumes must be finite and positive")
    return (volume / VEGETATION_REFERENCE_VOLUME) ** (2.0 / 3.0)


@dataclass(frozen=True)
class SoilParameters:
    """The calibrated numbers of the Authume model (module docstring).

    ``vegetation_drag``: drag coefficient of the Blue zone's vegetation layer for a block of
    :data:`VEGETATION_REFERENCE_VOLUME`, kg/s; ``hard_friction``: factor on ``mu_min`` and
    ``mu_max`` of the Gray zone; ``drop_offset``: horizontal distance beyond the crest at which
    the blocks are released, m, or ``None`` for the published drop points;
    ``vegetated_friction``: factor on ``mu_min`` and ``mu_max`` of the Blue zone;
    ``rolling_resistance``: dimensionless ``mu_r`` of the Gray zone (and of the Red zone where
    ``rocky_rolling_resistance`` is None);
    ``rocky_friction``: factor on ``mu_min`` and ``mu_max`` of the Red zone (not calibrated);
    ``scar_strength``: the soil strength ``Me`` (kN/m^2) of
    the scar layer of Lu et al. 2019 on the soil of the Blue zone (:data:`SCAR_ZONES`), with
    ``C_s`` = :data:`SCAR_CS`; 0 = no layer; ``rocky_rolling_resistance``: ``mu_r`` of the Red
    zone, or None for the Gray zone's (:attr:`rocky_mu_r`).
    """

    vegetation_drag: float = 0.0
    hard_friction: float = 1.0
    drop_offset: float | None = None
    vegetated_friction: float = 1.0
    rolling_resistance: float = 0.0
    rocky_friction: float = 1.0
    scar_strength: float = 0.0
    rocky_rolling_resistance: float | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("drop_offset", "rocky_rolling_resistance") and value is None:
                continue
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{f.name} must be a number, got {value!r}") from None
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{f.name} must be finite and not negative, got {value!r}")
            object.__setattr__(self, f.name, value)
        for name in ("hard_friction", "vegetated_friction", "rocky_friction"):
            if getattr(self, name) == 0.0:
                raise ValueError(f"{name} must be positive, got 0")

    def table(self, volume: float = VEGETATION_REFERENCE_VOLUME) -> dict[str, dict[str, float]]:
        """The soil table of a block of ``volume`` (m^3; default the reference block): zone row
        (:data:`ZONES`) -> every field of :class:`Soil`."""
        drag = self.vegetation_drag * float(vegetation_scale(volume))
        base = dict.fromkeys(FIELDS, 0.0) | BASE_FRICTION
        scar = (
            {"scar_strength": self.scar_strength, "scar_cs": SCAR_CS}
            if self.scar_strength > 0.0
            else {}
        )

        def row(zone: str, friction: float, **fields: float) -> dict[str, float]:
            """The base row, its friction scaled by ``friction``, with ``fields`` set and the
            scar layer on :data:`SCAR_ZONES`."""
            scaled = {"mu_min": base["mu_min"] * friction, "mu_max": base["mu_max"] * friction}
            return base | scaled | (scar if zone in SCAR_ZONES else {}) | fields

        return {
            "blue": row(
                "blue",
                self.vegetated_friction,
                drag=drag,
                drag_torque=drag * VEGETATION_LEVER**2,
                drag_height=VEGETATION_HEIGHT if drag > 0.0 else 0.0,
            ),
            "gray": row("gray", self.hard_friction, rolling_resistance=self.rolling_resistance),
            "red": row("red", self.rocky_friction, rolling_resistance=self.rocky_mu_r),
        }

    @property
    def rocky_mu_r(self) -> float:
        """The rolling resistance of the Red zone: ``rocky_rolling_resistance``, or that of the
        Gray zone where it is None."""
        if self.rocky_rolling_resistance is None:
            return self.rolling_resistance
        return self.rocky_rolling_resistance

    def as_dict(self) -> dict[str, float | None]:
        return asdict(self)


#: The fields of :class:`SoilParameters` that act on the Red zone only: the second stage's.
ROCKY_FIELDS = ("rocky_rolling_resistance", "rocky_friction")


def with_rocky_zone(
    first: Sequence[SoilParameters], rocky: Sequence[SoilParameters]
) -> tuple[SoilParameters, ...]:
    """Every set of ``first`` with the Red zone's fields (:data:`ROCKY_FIELDS`) of every set of
    ``rocky``, ``first``'s order outermost: the calibration's two stages act on different zones,
    so each stage's uncertainty goes with each of the other's."""
    red = [{name: getattr(p, name) for name in ROCKY_FIELDS} for p in rocky]
    return tuple(replace(p, **values) for p in first for values in red)


#: The calibration grid: every combination is run on P1 with each of CALIBRATION_SEEDS. The drop
#: offset is held at 3.5 m, the value of the previous grid over {1.5, 2.5, 3.5} m, which left it
#: undetermined to within the seed scatter (docs/validation_authume.md).
CALIBRATION_GRID = {
    "vegetation_drag": (700.0, 900.0),
    "hard_friction": (0.3, 0.5),
    "drop_offset": (3.5,),
    "vegetated_friction": (1.25, 1.5),
    "rolling_resistance": (0.0, 0.05, 0.1, 0.15, 0.2),
}
#: The joint grid with the scar layer of Lu et al. 2019 (``tumble validate authume --calibrate
#: --calibration-grid scar``): ``scar_strength`` Me on the soil of the Blue zone
#: (:data:`SCAR_ZONES`, ``C_s`` = :data:`SCAR_CS`) from Lu et al.'s 15 MN/m^2 to four times
#: stronger (a shallower scar), searched with the vegetation drag it shares the Blue zone with,
#: the Blue zone's friction factor and the rolling resistance of the unvegetated zones; the hard
#: zone's friction factor at the standard grid's best.
SCAR_CALIBRATION_GRID = {
    "vegetation_drag": (300.0, 500.0, 700.0),
    "hard_friction": (0.3,),
    "drop_offset": (3.5,),
    "vegetated_friction": (1.25, 1.5),
    "rolling_resistance": (0.05, 0.1, 0.15),
    "scar_strength": (15000.0, 30000.0, 60000.0),
}
#: The grids ``tumble validate authume --calibrate --calibration-grid NAME`` searches; ``all``:
#: both, one after the other (the grid of :data:`CALIBRATION_COMMAND`).
CALIBRATION_GRIDS: dict[str, tuple[dict[str, tuple[float, ...]], ...]] = {
    "standard": (CALIBRATION_GRID,),
    "scar": (SCAR_CALIBRATION_GRID,),
    "all": (CALIBRATION_GRID, SCAR_CALIBRATION_GRID),
}
#: The second stage of the calibration
#: (:func:`tumble.validation.authume.calibration.calibrate_rocky`): the rolling resistance of the
#: Red zone (the rocky slope below the quarry), searched on P2, the only profile that crosses the
#: zone, with the first stage's best on the other zones; from the first stage's ``mu_r`` (0.1) up.
ROCKY_CALIBRATION_GRID = {"rocky_rolling_resistance": (0.1, 0.15, 0.2, 0.25, 0.3)}
#: What each profile calibrates: P1 (the first stage) the parameters of the soil and hard zones
#: and the drop offset; P2 (the second stage) the rocky zone's, the one zone only P2 crosses.
PROFILE_ROLES = {
    "p1": "vegetation drag, friction factors of the soil (Blue) and hard (Gray) zones, their "
    "rolling resistance and scar layer, drop offset",
    "p2": "rolling resistance of the rocky zone (Red), which only P2 crosses",
}
#: Release seeds of every calibration point; the objective is averaged over them.
CALIBRATION_SEEDS = (0, 1, 2)
#: Release seeds of the refinement: the grid points close to the best over
#: CALIBRATION_SEEDS are run again with these, and the best and the equivalent points are chosen
#: on them (:func:`tumble.validation.authume.calibration.calibrate`, ``refine_seeds``).
REFINE_SEEDS = tuple(range(10))
#: The refinement runs again the grid points whose objective over CALIBRATION_SEEDS exceeds the
#: best's by at most this many of the best's standard errors
#: (:func:`tumble.validation.authume.calibration.screen_for_refinement`).
REFINE_SE_FACTOR = 2.0
#: The calibration table shipped with the package: ``calibration.csv`` of
#: :data:`CALIBRATION_COMMAND`, the rows of its refinement (the 6 points of both grids within two
#: standard errors of the best over seeds 0-2, run again with seeds 0-9, with their bootstrap
#: shares; P1 only, implicit, 256 rocks; ``docs/validation_authume.md``). :data:`CALIBRATED`
#: and :data:`CALIBRATION_EQUIVALENT` follow from it by
#: :func:`tumble.validation.authume.calibration.select_calibration`
#: (:func:`tumble.validation.authume.calibration.stored_calibration` reads it).
CALIBRATION_TABLE = Path(__file__).with_name("calibration_p1.csv")
#: The stored table of the second stage (:data:`ROCKY_CALIBRATION_GRID` on P2 over
#: :data:`REFINE_SEEDS`, the other zones at :data:`CALIBRATED_P1`, with the bootstrap shares over
#: P2's measured blocks): ``calibration_rocky.csv`` of :data:`CALIBRATION_COMMAND`.
ROCKY_CALIBRATION_TABLE = Path(__file__).with_name("calibration_p2_rocky.csv")
#: The command whose calibration gave :data:`CALIBRATED` (the first stage on P1, implicit scheme,
#: 256 rocks, both grids over seeds 0, 1, 2, refined over seeds 0-9; the second stage on P2 over
#: seeds 0-9).
CALIBRATION_COMMAND = "tumble validate authume --out out/authume --calibrate"
#: The first stage's choice, on P1: the scar layer of Lu et al. 2019 on the soil zone with their
#: ``Me`` = 15 MN/m^2, and ``mu_r`` 0.1 on the hard zone. Over seeds 0-2 the best of both grids
#: was the same with ``mu_r`` 0.15 (3.70 m, standard error 0.11 m); of the 6 points the screen
#: kept, refined over seeds 0-9, this one scores best, 3.81 m with a standard error of 0.10 m
#: and KS p 0.076 (geometric mean), the best without the layer 4.36 m. The Red zone's rolling
#: resistance is not set (None: the hard zone's): P1 does not cross the zone.
CALIBRATED_P1 = SoilParameters(
    vegetation_drag=700.0,
    hard_friction=0.3,
    drop_offset=3.5,
    vegetated_friction=1.5,
    rolling_resistance=0.1,
    scar_strength=15000.0,
)
#: The calibrated parameters: :data:`CALIBRATED_P1` with the second stage's rolling resistance of
#: the Red zone, 0.2 (P2 over seeds 0-9: 6.47 m with a standard error of 0.17 m, KS p 0.135;
#: the hard zone's 0.1 scores 8.74 m and fails P2's KS test, p 0.019).
CALIBRATED = replace(CALIBRATED_P1, rocky_rolling_resistance=0.2)
#: The calibration on P1 and P2 together (the multi-site objective of
#: ``docs/calibration_objective.md``, :data:`JOINT_COMMAND`): the two-stage values with the Blue
#: zone's vegetation drag and the Red zone's rolling resistance chosen on both profiles at once.
#: On a grid of the drag (500, 560, 620, 700 kg/s) and the Red ``mu_r`` (0.17, 0.2), scored by
#: ``J = W1(P1) / median(P1) + W1(P2) / median(P2)`` over the release seeds 0-4, the point of
#: least ``J`` among those whose run-outs pass the KS test in at least 4 of the 5 seeds on both
#: profiles; verified on the seeds 5-9, which chose nothing.
CALIBRATED_JOINT = replace(CALIBRATED, vegetation_drag=620.0, rocky_rolling_resistance=0.17)
#: The command that prints the joint calibration's grid, choice and verification.
JOINT_COMMAND = "python benchmarks/authume_joint.py"
#: The named parameter sets of ``tumble validate authume --parameters``.
PARAMETER_SETS = {"joint": CALIBRATED_JOINT, "two-stage": CALIBRATED}
#: The first stage's refined points P1 cannot tell apart from the best and that pass P1's own KS
#: test (:func:`~tumble.validation.authume.calibration.select_calibration` on
#: :data:`CALIBRATION_TABLE`): in at least 5 % of the bootstrap resamples of P1's 41 measured
#: blocks their objective is at most the best's
#: (:func:`~tumble.validation.authume.calibration.bootstrap_shares`), and the geometric mean of
#: their KS p-values on P1 over the seeds is at least 0.05. :data:`CALIBRATED_P1` first, then the
#: soil zone's friction factor 1.25 (3.93 m, bootstrap share 0.35, KS p 0.086) and its ``Me``
#: 60 MN/m^2 (4.00 m, 0.18, KS p 0.117).
CALIBRATION_EQUIVALENT_P1 = (
    CALIBRATED_P1,
    replace(CALIBRATED_P1, vegetated_friction=1.25),
    replace(CALIBRATED_P1, scar_strength=60000.0),
)
#: The second stage's equivalent values of the Red zone's rolling resistance (the same rule on
#: :data:`ROCKY_CALIBRATION_TABLE`, P2's 48 measured blocks resampled): the best, 0.2, and 0.15
#: (6.85 m, bootstrap share 0.17, KS p 0.222).
ROCKY_EQUIVALENT = (0.2, 0.15)
#: Every combination of the two stages' equivalent points (the stages act on different zones,
#: so their uncertainties combine): the first stage's sets, each with each equivalent Red
#: ``mu_r``, :data:`CALIBRATED` first. ``tumble validate authume --equivalent`` pools their
#: predictions.
CALIBRATION_EQUIVALENT = with_rocky_zone(
    CALIBRATION_EQUIVALENT_P1,
    [replace(CALIBRATED_P1, rocky_rolling_resistance=mu_r) for mu_r in ROCKY_EQUIVALENT],
)


#: Repetitions of the releases of a prediction whose rocks draw from :func:`category_spread`.
CATEGORY_REPEAT = 4


def category_spread() -> dict[str, tuple[float, float]]:
    """The spread of the catalogue's categories on the Authume zones, as ``soil.uncertainty =
    "category"`` draws it (``run_profile(..., spread=...)``): the soil zone's ``Me`` over the
    range of ``medium``, the rocky zone's ``mu_r`` over that of ``authume_rocky``."""
    return {
        "scar_strength": CATALOGUE["medium"].spread["scar_strength"],
        "rocky_rolling_resistance": CATALOGUE["authume_rocky"].spread["rolling_resistance"],
    }


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
