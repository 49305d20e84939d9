"""Soil parameters of the rock-terrain interaction: slippage-dependent friction, restitution, drag.

Friction grows with the slippage distance ``s`` as the rock ploughs into the soil ("scarring",
Leine et al. 2014, eq. 46-47; Lu et al. 2019, eq. 13-14)::

    mu(s) = mu_min + (2 / pi) (mu_max - mu_min) arctan(kappa s)

and the slippage follows L14 eq. 51: ``s_E = s_B + dt |v_E|`` while the rock touches the
terrain, ``s_E = s_B exp(-beta dt)`` in flight. ``mu_min == mu_max`` is plain Coulomb friction.
Impacts follow Newton's law with the normal restitution ``restitution`` (eps_N; eps_T = 0).
A linear drag layer (L14 eq. 10-11, Leine et al. 2021, eq. 78) of height ``drag_height`` above the
terrain acts on the centre of mass with ``F = -drag v`` and ``M = -drag_torque omega`` (the
rotational drag matrix is ``drag_torque`` times the identity) while the centre of mass is less
than ``drag_height`` above the terrain.

Rolling resistance (off unless ``rolling_resistance > 0``): the constant directional torque of
model A of Ai et al. 2011 (eq. 7), ``M_r = -mu_r R F_N omega / |omega|``, on percussion level: a
rock that touches the terrain receives in each step the angular impulse ``mu_r sum_k R_k P_N,k``
against its rotation, with ``P_N,k`` the normal percussion of hull vertex ``k`` in the previous
step and ``R_k`` its distance from the centre of mass (the rolling radius of a sphere), capped at
the impulse that stops the rotation about that direction, so that it never reverses it. It makes
a rock rolling like a wheel on a hard surface come to rest. ``rolling_resistance`` is the
dimensionless coefficient ``mu_r``; none is published with the seed's model. The default soil
``medium`` takes ``mu_r = 0.1`` from tumble's Authume calibration
(:data:`MEDIUM_ROLLING_RESISTANCE`); ``lu2019`` is the published friction without it.

Scar layer (off unless ``scar_strength > 0``; Lu et al. 2019, :mod:`tumble.rockfall.step.scar`):
a rock landing after a flight ploughs into the soil to the depth ``d_max = 0.1 M^(1/3)
Me^(-0.4) |V_perp|^0.8`` against the drag ``1/2 (1 + C_s) rho A v^2`` (``rho = 1700 kg/m^3``)
before it meets hard ground; ``scar_strength`` is the soil strength ``Me`` in kN/m^2 and
``scar_cs`` the coefficient ``C_s``. Lu et al.'s whole-trajectory calibration (Chant Sura) gives
``Me = 15 MN/m^2`` and ``C_s = 1.5``: the default category ``medium`` (its spread of ``Me``,
15-60 MN/m^2, from tumble's Authume calibration, :data:`MEDIUM_SCAR_RANGE`).

Motion from rest (off unless ``collision_froude > 0``): the slippage-dependent friction describes
scarring, "upon collision with the terrain the rock tends to slide along the slope pushing soil
in front of it which increases the friction and finally lets it tumble over" (Leine et al. 2021,
seed 000, section 5), and Lu et al. calibrated it on impacts at 10-30 m/s; the rolling
resistance models a rock that rolls. Neither describes a block that starts from rest, tips over
its first edge and slides its first slow metres. With ``collision_froude = F > 0`` a rock is *in
motion* once its speed at a contact has reached ``v^2 = F g R`` (``R`` the radius of its
equivalent sphere, ``sqrt(5 tr(Theta) / (6 m))``; ``F = 1``: the speed at which a rock pivoting
over an edge of its own size leaves the ground, ``v^2 / R = g``); until then its slippage does
not grow (it meets ``mu(0) = mu_min``) and the rolling resistance does not act, so that a rock
released at rest is held only where ``mu_min`` or its shape hold it. From then on every law is
the one above. The same speed separates a collision from a sustained contact: with ``F > 0`` a
contact rebounds with ``restitution`` only if the centre meets the soil at ``v_n^2 >= F g R``;
the slower contacts of a rock that rolls or pivots over its vertices are plastic (a lumped-mass
model's restitution acts on bounces, its rolling law on rolling: the terrain classes of
:mod:`tumble.rockfall.soil_classes`). ``0`` (every released preset before the terrain classes):
the laws act from the first contact, as before.

Ai, J., Chen, J.-F., Rotter, J.M. & Ooi, J.Y. (2011), Assessment of rolling resistance models in
discrete element simulations, Powder Technology 206:269-282.

Every field is one number or a raster on the DEM grid (a 2-D array of the DEM's shape, sampled at
the same points as the heights); rasters are interpolated bilinearly at the horizontal position
of the rock's centre of mass.

Units: ``kappa`` in 1/m, ``beta`` in 1/s, ``drag`` in kg/s, ``drag_torque`` in kg m^2/s,
``drag_height`` in m, ``scar_strength`` in kN/m^2; the rest (``rolling_resistance``,
``scar_cs`` and ``collision_froude`` included) is dimensionless.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tumble.rockfall.soil_classes import LEFT_OUT, class_presets
from tumble.rockfall.soil_statics import holding_angle, holding_slippage

#: order of the fields in the packed kernel arrays (:meth:`Soil.pack`), and below the index of
#: each, declared here only: the kernels (:mod:`tumble.rockfall.step.moreau`) import these plain
#: ints, which numba reads as compile-time constants
FIELDS = (
    "mu_min",
    "mu_max",
    "kappa",
    "beta",
    "restitution",
    "drag",
    "drag_torque",
    "drag_height",
    "rolling_resistance",
    "scar_strength",
    "scar_cs",
    "collision_froude",
)
(
    MU_MIN,
    MU_MAX,
    KAPPA,
    BETA,
    RESTITUTION,
    DRAG,
    DRAG_TORQUE,
    DRAG_HEIGHT,
    ROLLING,
    SCAR_STRENGTH,
    SCAR_CS,
    COLLISION_FROUDE,
) = range(len(FIELDS))


#: rolling resistance ``mu_r`` of the default soil ``medium``: the value the Authume field tests
#: gave for the hard zone (:data:`tumble.validation.authume.CALIBRATED`, the first stage of the
#: calibration, on profile P1; every set P1 cannot tell from the best has it; the rocky talus,
#: calibrated on P2, takes 0.15-0.2: ``authume_rocky``). Without it a rock rolls like
#: a wheel over long moderate slopes and real-terrain reach angles fall far below the observed
#: ones (``docs/reach_and_start.md``).
MEDIUM_ROLLING_RESISTANCE = 0.1

#: the scar layer of Lu et al. 2019 as their whole-trajectory calibration gives it: the soil
#: strength ``Me`` (kN/m^2) and the drag coefficient ``C_s`` (``C_d = 1 + C_s``)
LU_SCAR_STRENGTH = 15000.0
LU_SCAR_CS = 1.5
#: the soil strengths of the Authume calibration's equivalent sets on its soil zone
#: (:data:`tumble.validation.authume.CALIBRATION_EQUIVALENT`: Lu et al.'s 15 MN/m^2, and
#: 60 MN/m^2): the spread of ``medium``
MEDIUM_SCAR_RANGE = (LU_SCAR_STRENGTH, 60000.0)
#: the soil zone's strength in each of the first stage's three equivalent sets, in their order
#: (the best, the vegetated friction factor 1.25, Me 60 MN/m^2): two of three have 15 MN/m^2
MEDIUM_SCAR_SETS = (LU_SCAR_STRENGTH, LU_SCAR_STRENGTH, 60000.0)
#: the calibration's combined sets: the first stage's 3 (P1) each with the second stage's 2
#: (P2, the Red zone's mu_r), the first stage's outermost
#: (:data:`tumble.validation.authume.CALIBRATION_EQUIVALENT`)
AUTHUME_JOINT_SETS = 6
#: the rolling resistance of the Authume rocky zone (Red), best first, and the range they span:
#: the second stage of the calibration, on P2 (:data:`tumble.validation.authume.ROCKY_EQUIVALENT`)
AUTHUME_ROCKY_ROLLING_RESISTANCE = (0.2, 0.15)
AUTHUME_ROCKY_RANGE = (0.15, 0.2)
#: categories that were merged into others, with the name to use now; a released name still
#: resolves to the values it was released with (:data:`CATALOGUE`, ``released_soils.json``), and a
#: run that names it is warned
RETIRED = {
    "medium_scar": "medium (the scar layer of Lu et al. 2019 is part of it since the Authume "
    "calibration accepted the layer on its soil zone)",
}


@dataclass(frozen=True)
class SoilPreset:
    """A published soil parameter set: the values (fields of :class:`Soil`; the others keep
    their defaults), where they are published, and what they were used for.

    Its spread, where a source supports one (:mod:`tumble.rockfall.site.soil_uncertainty` draws
    from it): ``spread`` maps a field to the range ``(low, high)`` of a uniform distribution
    (``uncertainty = "category"``); ``sets`` holds parameter sets that a calibration cannot
    tell apart, each complete like ``values``, drawn with equal weight (``uncertainty =
    "sets"``); ``spread_source`` says where either comes from. A preset without a spread is a
    single value: its source gives none.

    Sets of one calibration are joint: ``set_joint`` is the number of the calibration's
    combined sets (0: this preset's own number) and ``set_stride`` how many of them follow
    each other with the same set of this preset, so that a rock's set of every preset is that
    of one combined set (:func:`tumble.rockfall.site.soil_uncertainty.set_index`).
    """

    values: dict[str, float]
    source: str
    use: str
    spread: dict[str, tuple[float, float]] = field(default_factory=dict)
    sets: tuple[dict[str, float], ...] = ()
    spread_source: str = ""
    set_stride: int = 1
    set_joint: int = 0

    def __post_init__(self) -> None:
        for name, bounds in self.spread.items():
            if name not in FIELDS:
                raise ValueError(f"spread of unknown soil field {name!r}")
            low, high = (float(b) for b in bounds)
            if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high):
                raise ValueError(f"spread of {name} must be 0 <= low <= high, got {bounds!r}")
        for values in self.sets:
            if set(values) != set(self.values):
                raise ValueError("every equivalent set must give the same fields as the values")
        if (self.spread or self.sets) and not self.spread_source:
            raise ValueError("a spread needs its source (spread_source)")
        joint = self.set_joint or len(self.sets) * self.set_stride
        if self.sets and (self.set_stride < 1 or joint % (len(self.sets) * self.set_stride)):
            raise ValueError("set_joint must be a multiple of the sets times set_stride")

    def set_values(self) -> dict[str, tuple[float, ...]]:
        """The fields whose values differ between the equivalent sets, each with its value in
        every set, in the sets' order."""
        columns = {f: tuple(float(s.get(f, 0.0)) for s in self.sets) for f in FIELDS}
        return {f: values for f, values in columns.items() if len(set(values)) > 1}


#: Source of the Authume categories: the calibration on profile P1 of the Authume quarry tests
#: (Garcia et al. 2022, Eng. Geol. 310:106855; Bourrier et al. 2021, Landslides 18:639-654) in
#: :mod:`tumble.validation.authume.soils` (``CALIBRATED``, ``CALIBRATION_EQUIVALENT``;
#: ``docs/validation_authume.md``). Their drag is that of a block of 1 m^3 (the validation
#: scales it with the block's projected area).
AUTHUME_SOURCE = (
    "calibration in tumble on the Authume quarry tests, profile P1 (Garcia et al. 2022, "
    "Eng. Geol. 310:106855; Bourrier et al. 2021, Landslides 18:639-654): "
    "tumble.validation.authume.soils.CALIBRATED, after Lu et al. 2019 (medium)"
)
AUTHUME_JOINT_SOURCE = (
    "calibration in tumble on the Authume quarry tests, profiles P1 and P2 together: "
    "tumble.validation.authume.soils.CALIBRATED_JOINT (benchmarks/authume_joint.py)"
)
#: Source of their spreads: the grid points P1 cannot tell apart, and the band of ``mu_r``
AUTHUME_SPREAD_SOURCE = (
    "the 3 refined grid points of the Authume calibration that pass P1's KS test and that P1's "
    "41 measured blocks cannot tell from the best (at least as good in >= 5 % of bootstrap "
    "resamples; CALIBRATION_EQUIVALENT, docs/validation_authume.md): all with mu_r 0.1, the soil "
    "zone with Me 15 or 60 MN/m^2 and friction factor 1.25 or 1.5"
)
#: The friction law the Authume categories start from (Lu et al. 2019 after Bartelt 2016)
_LU = {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0}


def _medium(scar_strength: float) -> dict[str, float]:
    """The medium soil of Lu et al. 2019 (friction law after Bartelt 2016, scar layer with
    ``Me = scar_strength`` and their ``C_s``) with the Authume ``mu_r``."""
    return {
        **_LU,
        "rolling_resistance": MEDIUM_ROLLING_RESISTANCE,
        "scar_strength": scar_strength,
        "scar_cs": LU_SCAR_CS,
    }


def _authume(
    friction: float,
    drag: float = 0.0,
    rolling_resistance: float = 0.0,
    scar_strength: float = 0.0,
) -> dict[str, float]:
    """One Authume zone row: the base friction law with ``mu_min`` and ``mu_max`` scaled by
    ``friction``, the vegetation drag of a 1 m^3 block (drag height 2 m when present), and
    ``mu_r``, the scar layer of soil strength ``scar_strength`` (with Lu et al.'s ``C_s``; 0: none);
    the formulas of :meth:`tumble.validation.authume.soils.SoilParameters.table`."""
    return {
        "mu_min": _LU["mu_min"] * friction,
        "mu_max": _LU["mu_max"] * friction,
        "kappa": _LU["kappa"],
        "beta": _LU["beta"],
        "restitution": 0.0,
        "drag": drag,
        "drag_torque": 0.0,
        "drag_height": 2.0 if drag > 0.0 else 0.0,
        "rolling_resistance": rolling_resistance,
        "scar_strength": scar_strength,
        "scar_cs": LU_SCAR_CS if scar_strength > 0.0 else 0.0,
        "collision_froude": 0.0,
    }


#: The soil catalogue: every parameter set with a source, published or calibrated on field data
#: inside the project, and its spread where the source supports one. The RAMMS::ROCKFALL terrain
#: categories are not listed: their values are published in the RAMMS::ROCKFALL user manual, not
#: in the papers, and no value is entered here before it has been checked against its source
#: (:data:`UNSOURCED`).
CATALOGUE = {
    "medium": SoilPreset(
        _medium(LU_SCAR_STRENGTH),
        "Lu et al. 2019, Landslides 16:2353-2367: friction law after Bartelt 2016 and scar layer "
        "(Me = 15 MN/m^2, C_s = 1.5) of their whole-trajectory calibration at Chant Sura; rolling "
        "resistance mu_r = 0.1: the Authume field calibration of tumble (profile P1, "
        "hard zone; the scar layer on its soil zone with Lu et al.'s Me is its best "
        "point, docs/validation_authume.md)",
        "a medium soil in which a landing rock ploughs a scar; the default",
        spread={"scar_strength": MEDIUM_SCAR_RANGE},
        sets=tuple(_medium(me) for me in MEDIUM_SCAR_SETS),
        set_stride=2,
        set_joint=AUTHUME_JOINT_SETS,
        spread_source=AUTHUME_SPREAD_SOURCE + "; the friction is Lu et al.'s single set",
    ),
    # released as a category of its own before the Authume calibration made its layer part of
    # medium (RETIRED): kept with the values it had then, so that a configuration naming it
    # runs as it did
    "medium_scar": SoilPreset(
        {
            "mu_min": 0.55,
            "mu_max": 2.0,
            "kappa": 3.0,
            "beta": 185.0,
            "rolling_resistance": 0.1,
            "scar_strength": 15000.0,
            "scar_cs": 1.5,
        },
        "medium with the scar layer of Lu et al. 2019, Landslides 16:2353-2367 (soil strength "
        "Me = 15 MN/m^2 and C_s = 1.5 of their whole-trajectory calibration at Chant Sura); "
        "mu_r = 0.1 as medium (Authume calibration)",
        "superseded by medium, which has the same values and the spread of Me of the Authume "
        "calibration; kept because a released name keeps its numbers",
    ),
    "lu2019": SoilPreset(
        {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0},
        "Lu et al. 2019, Landslides 16:2353-2367, after Bartelt 2016 (Chant Sura tests)",
        "the published set alone, without rolling resistance: the model of Leine et al. 2021 "
        "(the slope40 reproduction) and the base of the Authume zones",
    ),
    "l14_scarring": SoilPreset(
        {"mu_min": 0.2, "mu_max": 1.3, "kappa": 0.7, "beta": 20.0},
        "Leine et al. 2014, Multibody Syst Dyn 32:241-271, section 5.1",
        "scarring demonstration (octahedron on a 45 degree slope)",
    ),
    "l14_wheel": SoilPreset(
        {"mu_min": 10.0, "mu_max": 10.0, "kappa": 0.0, "beta": 0.0},
        "Leine et al. 2014, Multibody Syst Dyn 32:241-271, section 5.2 (mu = 10)",
        "wheel demonstration: no slip (box rolling down a 27 degree slope)",
    ),
    # the Authume zones: the calibrated set is (vegetation drag kg/s, vegetated friction
    # factor, hard friction factor, mu_r, Me of the soil zone) = (700, 1.5, 0.3, 0.1, 15000);
    # the equivalent sets differ on the soil zone only: (1.25, 15000) and (1.5, 60000); the
    # rocky zone keeps the base friction
    "authume_vegetated": SoilPreset(
        _authume(1.5, drag=700.0, scar_strength=LU_SCAR_STRENGTH),
        AUTHUME_SOURCE + "; the scar layer of Lu et al. 2019 with their C_s",
        "vegetated talus slope with bushes and young trees (Authume zone Blue), its soil "
        "ploughed by landing blocks; drag of a 1 m^3 block",
        sets=(
            _authume(1.5, drag=700.0, scar_strength=LU_SCAR_STRENGTH),
            _authume(1.25, drag=700.0, scar_strength=LU_SCAR_STRENGTH),
            _authume(1.5, drag=700.0, scar_strength=60000.0),
        ),
        spread_source=AUTHUME_SPREAD_SOURCE,
        set_stride=2,
        set_joint=AUTHUME_JOINT_SETS,
    ),
    "authume_hard": SoilPreset(
        _authume(0.3, rolling_resistance=MEDIUM_ROLLING_RESISTANCE),
        AUTHUME_SOURCE + "; the equivalent sets agree on this zone",
        "hard quarry floor, platforms and walls strewn with debris (Authume zone Gray)",
    ),
    "authume_rocky": SoilPreset(
        _authume(1.0, rolling_resistance=AUTHUME_ROCKY_ROLLING_RESISTANCE[0]),
        AUTHUME_SOURCE + "; its rolling resistance from the calibration's second stage on "
        "profile P2, the only profile that crosses the zone (tumble.validation.authume."
        "calibrate_rocky); its friction is not calibrated",
        "rocky slope below the quarry, talus of debris (Authume zone Red)",
        spread={"rolling_resistance": AUTHUME_ROCKY_RANGE},
        sets=tuple(_authume(1.0, rolling_resistance=m) for m in AUTHUME_ROCKY_ROLLING_RESISTANCE),
        set_joint=AUTHUME_JOINT_SETS,
        spread_source="the 2 values of the Red zone's mu_r that pass P2's KS test and that P2's "
        "48 measured blocks cannot tell from the best (at least as good in >= 5 % of bootstrap "
        "resamples; ROCKY_EQUIVALENT, docs/validation_authume.md)",
    ),
    # the Authume zones calibrated on P1 and P2 together (a new calibration: new names)
    "authume_vegetated_joint": SoilPreset(
        _authume(1.5, drag=620.0, scar_strength=LU_SCAR_STRENGTH),
        AUTHUME_JOINT_SOURCE,
        "as authume_vegetated, with the vegetation drag of the joint calibration",
    ),
    "authume_rocky_joint": SoilPreset(
        _authume(1.0, rolling_resistance=0.17),
        AUTHUME_JOINT_SOURCE,
        "as authume_rocky, with the rolling resistance of the joint calibration",
    ),
}

# the terrain classes of STONE and Rockyfor3D, translated by the mapping of
# tumble.rockfall.soil_classes
CATALOGUE.update({name: SoilPreset(**preset) for name, preset in class_presets().items()})

#: categories whose drag is that of a block of a given volume (m^3): the Authume calibration's
#: vegetation drag of a 1 m^3 block, which its validation scales with the block's projected area,
#: ``(V / 1 m^3)^(2/3)`` (:mod:`tumble.validation.authume.soils`)
DRAG_REFERENCE_VOLUME = {"authume_vegetated": 1.0}


#: published categories left out of :data:`CATALOGUE`, and why
UNSOURCED = {
    "the RAMMS::ROCKFALL terrain categories (extra soft to extra hard, snow)": "their values "
    "are published in the RAMMS::ROCKFALL user manual (v1.5 2013, v1.6 2015), whose table has "
    "not been read and checked; no per-category table of the open papers searched (Caviezel et "
    "al. 2021; Noel et al. 2022, Earth Surf. Dynam. 10:1141; Noel et al. 2023, Landslides; the "
    "Mel de la Niva benchmark, Geosciences 13:200, 2023) could be checked either",
    "a spread of the medium friction": "Lu et al. 2019 give one value per friction parameter, "
    "no range or standard deviation; for the scar layer their fits of four single impacts at "
    "Chant Sura gave Me 10-25 MN/m^2 and C_s 0.1-4.0 (their Table 3), and they varied Me over "
    "10-20 MN/m^2 and C_s over 1.0-2.0 to test the sensitivity (Table 5), which is no "
    "uncertainty statement; medium's spread is that of the Authume calibration's equivalent "
    "sets (Me 15 or 60 MN/m^2)",
    "Rockyfor3D's tangential coefficient and roughness (rg70, rg20, rg10)": "a function of the "
    "roughness and the rock's radius whose formula could not be read; the soil types' normal "
    "restitution is translated (rf3d_* categories, tumble.rockfall.soil_classes)",
    **LEFT_OUT,
}

#: the soil of a built-in terrain (:mod:`tumble.rockfall.scenarios`) whose configuration names no
#: soil preset: ``slope40`` reproduces Leine et al. 2021, whose model has no rolling resistance
SCENARIO_SOILS = {"slope40": "lu2019"}

#: published parameter sets by name: the values of :data:`CATALOGUE`
PRESETS = {name: preset.values for name, preset in CATALOGUE.items()}


def unknown_preset(name: object) -> str:
    """The message for a soil preset name that is not in the catalogue: what to use instead of
    a retired one (:data:`RETIRED`), else the names there are."""
    if isinstance(name, str) and name in RETIRED:
        return f"soil preset {name!r} is retired: use {RETIRED[name]}"
    return f"unknown soil preset {name!r}; choose one of {sorted(PRESETS)}"


def _field(value: Any, name: str) -> float | np.ndarray:
    """A finite float, or a read-only float64 2-D raster."""
    arr = np.asarray(value, dtype=np.float64) if not isinstance(value, float | int) else None
    if arr is None or arr.ndim == 0:
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"soil {name} must be a number or a 2-D raster, got {value!r}"
            ) from None
        if not math.isfinite(x):
            raise ValueError(f"soil {name} must be finite, got {x!r}")
        return x
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(
            f"soil {name} must be a number or a 2-D raster on the DEM grid, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"soil {name} raster contains NaN or infinite values")
    arr = np.array(arr, dtype=np.float64, order="C")  # a copy: the caller's array stays theirs
    arr.setflags(write=False)
    return arr


def _minimum(value: float | np.ndarray) -> float:
    return float(np.min(value)) if isinstance(value, np.ndarray) else value


@dataclass(frozen=True, eq=False)
class Soil:
    """Contact parameters of one soil (see the module docstring for the laws and units)."""

    mu_min: float | np.ndarray
    mu_max: float | np.ndarray
    kappa: float | np.ndarray
    beta: float | np.ndarray
    restitution: float | np.ndarray = 0.0
    drag: float | np.ndarray = 0.0
    drag_torque: float | np.ndarray = 0.0
    drag_height: float | np.ndarray = 0.0
    rolling_resistance: float | np.ndarray = 0.0
    scar_strength: float | np.ndarray = 0.0
    scar_cs: float | np.ndarray = 0.0
    collision_froude: float | np.ndarray = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _field(getattr(self, f.name), f.name))
        for name in FIELDS:
            if _minimum(getattr(self, name)) < 0.0:
                raise ValueError(f"soil {name} must not be negative, got {getattr(self, name)!r}")
        if np.any(np.asarray(self.mu_max) < np.asarray(self.mu_min)):
            raise ValueError(
                f"soil mu_max must be at least mu_min, got mu_min={self.mu_min!r}, "
                f"mu_max={self.mu_max!r}"
            )
        if np.any(np.asarray(self.restitution) > 1.0):
            raise ValueError(f"soil restitution must lie in [0, 1], got {self.restitution!r}")
        shapes = {
            getattr(self, n).shape for n in FIELDS if isinstance(getattr(self, n), np.ndarray)
        }
        if len(shapes) > 1:
            raise ValueError(f"soil rasters must all have the same shape, got {sorted(shapes)}")

    @classmethod
    def coulomb(
        cls,
        mu: float | np.ndarray,
        restitution: float | np.ndarray = 0.0,
        **drag: float | np.ndarray,
    ) -> Soil:
        """Plain Coulomb friction ``mu`` (no slippage dependence)."""
        return cls(mu_min=mu, mu_max=mu, kappa=0.0, beta=0.0, restitution=restitution, **drag)

    @classmethod
    def preset(cls, name: str, **overrides: float | np.ndarray) -> Soil:
        """A published parameter set (:data:`PRESETS`), with fields optionally overridden."""
        if name not in PRESETS:
            raise ValueError(unknown_preset(name))
        return cls(**{**PRESETS[name], **overrides})

    @classmethod
    def from_calibration(cls, path: str | os.PathLike) -> Soil:
        """The best set of a calibration file (``tumble rockfall calibrate``,
        :mod:`tumble.io.calibration`)."""
        from tumble.io.calibration import read_calibration

        data = read_calibration(path)
        if data["classes"]:
            codes = ", ".join(map(str, data["classes"]))
            raise ValueError(
                f"{path} calibrates the classes of a soil map ({codes}), not one soil: use it "
                "in a run with [soil] map and calibration"
            )
        values = data["soil"]
        unknown = sorted(set(values) - set(FIELDS))
        if unknown:
            raise ValueError(f"{path}: [soil] {unknown[0]} is not a soil field")
        return cls(**values)

    @property
    def rasters(self) -> tuple[str, ...]:
        """Names of the fields given as rasters."""
        return tuple(n for n in FIELDS if isinstance(getattr(self, n), np.ndarray))

    def mu(self, slippage: ArrayLike) -> np.ndarray | float:
        """Friction coefficient after the slippage ``slippage`` (m); constant fields only."""
        if {"mu_min", "mu_max", "kappa"} & set(self.rasters):
            raise ValueError(
                "Soil.mu needs constant mu_min, mu_max and kappa; sample rasters first"
            )
        s = np.asarray(slippage, dtype=np.float64)
        return self.mu_min + (2.0 / np.pi) * (self.mu_max - self.mu_min) * np.arctan(self.kappa * s)

    def holding_slippage(self, slope_deg: float) -> float:
        """The slippage (m) after which this soil holds a rock sliding down a plane of
        ``slope_deg`` degrees (:func:`~tumble.rockfall.soil_statics.holding_slippage`); constant
        fields only."""
        if {"mu_min", "mu_max", "kappa"} & set(self.rasters):
            raise ValueError(
                "Soil.holding_slippage needs constant mu_min, mu_max and kappa; "
                "sample rasters first"
            )
        return holding_slippage(
            float(self.mu_min), float(self.mu_max), float(self.kappa), slope_deg
        )

    def holding_angle(self) -> float:
        """The slope (degrees) below which this soil holds a sliding rock
        (:func:`~tumble.rockfall.soil_statics.holding_angle`); constant fields only."""
        self.holding_slippage(0.0)  # refuses rasters
        return holding_angle(float(self.mu_min), float(self.mu_max), float(self.kappa))

    def holds(self, slope_deg: float) -> bool:
        """Whether this soil's friction ever holds a rock sliding down a plane of ``slope_deg``
        degrees: ``mu(s) >= tan(slope)`` for some slippage
        (:func:`~tumble.rockfall.soil_statics.holding_slippage`)."""
        return math.isfinite(self.holding_slippage(slope_deg))

    def pack(self, grid_shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Kernel arrays ``(values (n,), index (n,) int64, rasters (k, ny, nx))``, ``n`` the
        number of :data:`FIELDS`.

        ``index[j] = -1`` marks a constant field ``values[j]``; otherwise field j is the raster
        ``rasters[index[j]]``. Rasters must have the DEM's ``grid_shape``.
        """
        values = np.zeros(len(FIELDS))
        index = np.full(len(FIELDS), -1, dtype=np.int64)
        layers: list[np.ndarray] = []
        for j, name in enumerate(FIELDS):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                if value.shape != tuple(grid_shape):
                    raise ValueError(
                        f"soil {name} raster has shape {value.shape}, "
                        f"the DEM has {tuple(grid_shape)}"
                    )
                index[j] = len(layers)
                layers.append(value)
            else:
                values[j] = value
        if layers:
            rasters = np.ascontiguousarray(np.stack(layers))
        else:
            rasters = np.zeros((0, 2, 2))
        return values, index, rasters


def pack_table(
    soils: tuple[Soil, ...] | list[Soil], grid_shape: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel arrays of a table of soils, one row per soil: ``(values (r, n), index (r, n)
    int64, rasters (k, ny, nx))``, row ``i`` as :meth:`Soil.pack` of ``soils[i]`` with its
    raster indices into the shared ``rasters`` (equal rasters stored once)."""
    if not soils:
        raise ValueError("a soil table needs at least one soil")
    values = np.zeros((len(soils), len(FIELDS)))
    index = np.full((len(soils), len(FIELDS)), -1, dtype=np.int64)
    layers: list[np.ndarray] = []
    for i, soil in enumerate(soils):
        row_values, row_index, row_rasters = soil.pack(grid_shape)
        values[i] = row_values
        for j in np.flatnonzero(row_index >= 0):
            layer = row_rasters[row_index[j]]
            same = [m for m, kept in enumerate(layers) if np.array_equal(kept, layer)]
            if same:
                index[i, j] = same[0]
            else:
                index[i, j] = len(layers)
                layers.append(layer)
    rasters = np.ascontiguousarray(np.stack(layers)) if layers else np.zeros((0, 2, 2))
    return values, index, rasters
