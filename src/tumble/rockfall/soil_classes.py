"""Terrain classes a practitioner maps, translated into tumble's contact model: the lithological
classes of STONE and the soil types of Rockyfor3D.

Both tools describe terrain by coefficients of a lumped-mass model (a point that bounces and
rolls); tumble's rocks are rigid polyhedra with a friction law, Newton's impact law and a
rolling resistance. The translation, stated once and tested
(``tests/rockfall/test_soil_classes.py``):

* **Rolling friction angle -> rolling resistance.** STONE's block rolls with the deceleration
  ``g (sin theta - tan(beta) cos theta)`` and decelerates where ``tan(theta) < tan(beta)``
  (Guzzetti et al. 2002). Model A of tumble's rolling resistance (Ai et al. 2011) gives a
  rolling sphere the same threshold with ``mu_r = tan(beta)``: on a plane of slope theta its
  ``v^2`` changes by ``2 A g cos(theta) (tan(theta) - mu_r)`` per metre, ``A = m / (m + I /
  R^2)`` (the rolling law of Azzoni et al. 1995). So ``rolling_resistance = tan(beta)``: a
  sphere-like rock decelerates in tumble on exactly the slopes where STONE's block does.
* **Normal restitution -> ``restitution``.** A lumped mass's normal restitution is the ratio of
  the normal speeds after and before a bounce: the rebound of a drop test. A sphere dropped
  without spin meets the ground below its centre, where Newton's law of tumble's contact gives
  the rebound ratio ``eps_N`` itself; so ``restitution`` = the class's normal coefficient.
* **Not translated**: STONE's tangential restitution (tumble's friction and the rock's rotation
  take its place: a sphere that grips leaves an impact with 5/7 of its tangential speed, a
  property of the body, not of the soil), Rockyfor3D's tangential coefficient (a function of the
  surface roughness ``rg70, rg20, rg10`` and the rock's radius that could not be read) and its
  roughness. The friction of every class is the one published set of tumble's friction law, Lu et
  al. 2019 (``lu2019``: ``mu_min`` 0.55, ``mu_max`` 2, ``kappa`` 3 1/m, ``beta`` 185 1/s).
* **Motion from rest**: every class sets ``collision_froude = 1``
  (:mod:`tumble.rockfall.soil`), so that a rock at rest is held by ``mu_min`` and its shape,
  not by a rolling resistance that describes a rolling block, nor by a friction that builds up
  while it creeps (STONE starts its blocks with a non-null velocity; its rolling law is that of
  a block in motion).

Spreads: STONE draws each coefficient from a Gaussian centred on the class's value and limited
to +-10 % of it (r.stone manual, OSGeo grass-addons); tumble draws uniformly within those limits
(``soil.uncertainty = "category"``). Rockyfor3D gives a range of the normal restitution per type
(Dorren et al. 2023, Geosciences 13(6):182): the category's value is its middle, its spread the
range.

Sources: Guzzetti, F., Crosta, G., Detti, R. & Agliardi, F. (2002), STONE: a computer program for
the three-dimensional simulation of rock-falls, Computers & Geosciences 28:1079-1093, with the
class values of Alvioli, M. et al. (2021), Eng. Geol. 293:106301, as the r.stone manual prints
them; Azzoni, A., La Barbera, G. & Zaninetti, A. (1995), Int. J. Rock Mech. Min. Sci. 32:709-724;
Ai, J. et al. (2011), Powder Technology 206:269-282; Lu, G. et al. (2019), Landslides
16:2353-2367.
"""

from __future__ import annotations

import math
from typing import Any

#: the friction law of every class: Lu et al. 2019 after Bartelt 2016 (the preset ``lu2019``)
CLASS_FRICTION = {"mu_min": 0.55, "mu_max": 2.0, "kappa": 3.0, "beta": 185.0}
#: the relative half-width of STONE's draws of a coefficient (r.stone manual)
STONE_SPREAD = 0.10

STONE_SOURCE = (
    "STONE (Guzzetti et al. 2002, Comput. Geosci. 28:1079-1093), class values of Alvioli et al. "
    "2021 (Eng. Geol. 293:106301) as the r.stone manual (OSGeo grass-addons) prints them: "
    "rolling_resistance = tan(beta), restitution = normal restitution; friction of Lu et al. "
    "2019 (lu2019); tumble.rockfall.soil_classes"
)
STONE_SPREAD_SOURCE = (
    "STONE draws each coefficient from a Gaussian limited to +-10 % of the class value (r.stone "
    "manual); here uniform within those limits"
)
ROCKYFOR3D_SOURCE = (
    "Rockyfor3D soil type (Dorren et al. 2023, Geosciences 13(6):182): restitution = the middle "
    "of its normal restitution range; friction of Lu et al. 2019 (lu2019), no rolling "
    "resistance (Rockyfor3D has none); tumble.rockfall.soil_classes"
)
ROCKYFOR3D_SPREAD_SOURCE = "the normal restitution range of the Rockyfor3D soil type"

#: STONE classes: name -> (the classes as Alvioli et al. name them, tan(beta), normal
#: restitution in percent)
STONE_CLASSES = {
    "stone_deposits": (
        "alluvial, lacustrine, marine, eluvial and colluvial deposits",
        0.80,
        15,
    ),
    "stone_debris": ("anthropic, coastal, landslide and glacial deposits", 0.65, 35),
    "stone_clastic": (
        "consolidated clastic deposits, marl, flysch, pyroclastic rocks and ignimbrites",
        0.40,
        55,
    ),
    "stone_loose": (
        "loosely packed clastic deposits, chaotic rocks (melange), evaporites",
        0.35,
        45,
    ),
    "stone_schist": ("carbonate-siliciclastic and marl sequences, schists", 0.35, 60),
    "stone_bedrock": (
        "carbonate rocks, lava and basalts, intrusive igneous rocks, non-schists",
        0.30,
        65,
    ),
    "stone_lake_glacier": ("lakes, glaciers", 0.95, 10),
}

#: Rockyfor3D soil types: name -> (its description, normal restitution range). Types 0 (river
#: or swamp: a rock stops, not a restitution) and 5 (printed with the range of type 1, a
#: probable transcription slip) are left out (:data:`LEFT_OUT`).
ROCKYFOR3D_TYPES = {
    "rf3d_1_fine_soil": ("type 1: fine soil material (depth > 100 cm)", (0.21, 0.25)),
    "rf3d_2_shallow_soil": (
        "type 2: fine soil material (depth < 100 cm), or sand and gravel",
        (0.30, 0.36),
    ),
    "rf3d_3_scree": (
        "type 3: scree (< 10 cm), medium compact soil with small rock fragments, forest road",
        (0.34, 0.42),
    ),
    "rf3d_4_talus": (
        "type 4: talus (> 10 cm), compact soil with large rock fragments",
        (0.39, 0.47),
    ),
    "rf3d_6_bedrock": ("type 6: bedrock", (0.48, 0.58)),
    "rf3d_7_asphalt": ("type 7: asphalt road", (0.32, 0.39)),
}

#: published classes left out, and why
LEFT_OUT = {
    "Rockyfor3D soil type 0 (river or swamp)": "a rock that reaches it stops (restitution 0 in "
    "the table): a stopping rule, not a contact property; map such areas as outside the DEM or "
    "as a barrier instead",
    "Rockyfor3D soil type 5 (bedrock with thin weathered material)": "printed with the range of "
    "type 1 (0.21-0.25), probably a transcription slip; no value entered until it is checked",
}


def _rounded(value: float) -> float:
    return float(round(value, 6))


def stone_values(tan_beta: float, restitution_percent: float) -> dict[str, float]:
    """The soil of a STONE class (module docstring)."""
    return {
        **CLASS_FRICTION,
        "restitution": _rounded(restitution_percent / 100.0),
        "rolling_resistance": float(tan_beta),
        "collision_froude": 1.0,
    }


def rockyfor3d_values(low: float, high: float) -> dict[str, float]:
    """The soil of a Rockyfor3D soil type (module docstring)."""
    return {
        **CLASS_FRICTION,
        "restitution": _rounded(0.5 * (low + high)),
        "collision_froude": 1.0,
    }


def class_presets() -> dict[str, dict[str, Any]]:
    """Every class as the keywords of :class:`tumble.rockfall.soil.SoilPreset`."""
    out: dict[str, dict[str, Any]] = {}
    for name, (classes, tan_beta, percent) in STONE_CLASSES.items():
        values = stone_values(tan_beta, percent)
        out[name] = {
            "values": values,
            "source": STONE_SOURCE,
            "use": f"STONE class: {classes} (rolling friction angle "
            f"{math.degrees(math.atan(tan_beta)):.1f} deg, normal restitution {percent} %)",
            "spread": {
                f: (
                    _rounded(values[f] * (1.0 - STONE_SPREAD)),
                    _rounded(values[f] * (1.0 + STONE_SPREAD)),
                )
                for f in ("restitution", "rolling_resistance")
            },
            "spread_source": STONE_SPREAD_SOURCE,
        }
    for name, (description, (low, high)) in ROCKYFOR3D_TYPES.items():
        out[name] = {
            "values": rockyfor3d_values(low, high),
            "source": ROCKYFOR3D_SOURCE,
            "use": f"Rockyfor3D soil {description} (normal restitution {low}-{high})",
            "spread": {"restitution": (low, high)},
            "spread_source": ROCKYFOR3D_SPREAD_SOURCE,
        }
    return out
