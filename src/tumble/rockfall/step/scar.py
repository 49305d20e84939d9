"""The scar layer of Lu et al. 2019: a rock that lands on soil ploughs into it before it meets
hard ground.

Lu, G., Caviezel, A., Christen, M., Demmel, S.E., Ringenbach, A., Bühler, Y., Dinneen, C.E.,
Gerber, W. & Bartelt, P. (2019), Modelling rockfall impact with scarring in compactable soils,
Landslides 16:2353-2367. On impact the rock first ploughs into a soft layer of depth::

    d_max = 0.1 M^(1/3) Me^(-0.4) |V_perp|^0.8        (M in kg, Me in kN/m^2, V in m/s, d in m)

against the drag ``F = 1/2 C_d rho A v^2`` (``C_d = 1 + C_s``, ``rho = 1700 kg/m^3``, ``A`` the
projected area of the immersed part), then meets hard ground on the plane at depth ``d_max``.
Their whole-trajectory calibration gives ``Me = 15 MN/m^2`` and ``C_s = 1.5``.

In the Moreau step (:func:`tumble.rockfall.step.moreau.rock_step`) this reads:

* a rock that touches the terrain after a flight (no hull vertex within the gap tolerance of the
  surface in the step before) makes a scar: ``V_perp`` is its speed into the terrain, ``-v . n``
  with ``n`` the terrain normal under its deepest vertex, and ``d_max`` follows (at most the
  radius of the rock's equivalent sphere: deeper, the rock would be buried). Lu et al. take the
  vertical component of the velocity whatever the slope; with it, the small hops of a block
  rolling down a moderate slope each dig a scar centimetres deep, and a quarter of the rocks of
  a real-terrain run crept on at about 1 m/s until ``t_max`` (``docs/reach_and_start.md``);
* while any vertex touches the soil, the surface is lowered by ``d_max`` under the rock: only
  the vertices deeper than ``d_max`` below it are hard contacts (the scar's floor);
* from the impact until a hard contact carries load or the rock stops moving into the terrain
  (``V_perp <= 0``), the rock ploughs: the drag acts on the centre of mass with ``A`` the
  projected area of the cap of the equivalent sphere immersed to the depth of the deepest vertex
  (at most ``d_max``): its base disc for a motion across the surface, the circular segment for
  a motion along it, and the sum of their projections between (:func:`scar_drag`). It is taken
  linearly implicit like the drag layer (``c = 1/2 C_d rho A |v_B|``), so its work is in the
  step's drag work;
* the scar ends when the rock leaves the surface; its next touch is a new impact.

A rock that keeps touching (rolling, sliding) ploughs only at its first touch: the drag of the
scar is the loss of an impact, the rolling resistance and the friction are those of the motion
on the ground. Ending the ploughing at the floor matters: a drag kept while the rock rolls on,
or vertices still under the original surface treated as hard, holds the rock in its own furrow
and lets it creep down slopes at a steady 1-2 m/s, which no rock does.

The equivalent sphere has the rock's mass and mean principal moment, ``R = sqrt(5 (A + B + C) /
(6 m))`` (a sphere's moment is ``2/5 m R^2``). Off unless the soil's ``scar_strength`` (``Me``)
is positive.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.rockfall.step.contact import C_GAP, C_W, C_WARM

#: density of the soil the rock ploughs through, kg/m^3 (Lu et al. 2019)
SCAR_DENSITY = 1700.0


@jit_leaf
def scar_depth(mass: float, strength: float, v_perp: float) -> float:
    """``d_max = 0.1 M^(1/3) Me^(-0.4) |V_perp|^0.8`` (m): ``mass`` in kg, ``strength`` (``Me``)
    in kN/m^2, ``v_perp`` in m/s; 0 for a rock that does not move into the terrain."""
    if v_perp <= 0.0 or strength <= 0.0:
        return 0.0
    return 0.1 * mass ** (1.0 / 3.0) * strength**-0.4 * v_perp**0.8


@jit_leaf
def immersed_area(radius: float, depth: float) -> float:
    """The area of the segment of a circle of ``radius`` below a chord ``depth`` from its lowest
    point: ``R^2 acos((R - d) / R) - (R - d) sqrt(2 R d - d^2)`` (m^2); the whole circle from
    ``d = 2 R``."""
    if depth <= 0.0:
        return 0.0
    if depth >= 2.0 * radius:
        return math.pi * radius * radius
    c = radius - depth
    return radius * radius * math.acos(c / radius) - c * math.sqrt(
        max(0.0, depth * (2.0 * radius - depth))
    )


@jit_leaf
def impact_speed(contacts: np.ndarray, n_closed: int, v: tuple[float, float, float]) -> float:
    """``-v . n`` with ``n`` the terrain normal under the deepest of the ``n_closed`` contacts."""
    deepest = 0
    for i in range(1, n_closed):
        if contacts[i, C_GAP] < contacts[deepest, C_GAP]:
            deepest = i
    return -(
        v[0] * contacts[deepest, C_W]
        + v[1] * contacts[deepest, C_W + 1]
        + v[2] * contacts[deepest, C_W + 2]
    )


@jit_leaf
def hard_contacts(
    contacts: np.ndarray, n_closed: int, depth: float, gap_tol: float
) -> tuple[int, float]:
    """Keep, in order, the closed contacts that lie ``depth`` or more below the surface (gap
    within ``gap_tol`` of ``-depth``), moving their rows up (the per-vertex warm-start column is
    left in place); returns ``(number kept, depth of the deepest vertex below the surface)``."""
    kept = 0
    deepest = 0.0
    for i in range(n_closed):
        gap = contacts[i, C_GAP]
        deepest = max(deepest, -gap)
        if gap + depth <= gap_tol:
            if kept != i:
                for c in range(C_WARM):
                    contacts[kept, c] = contacts[i, c]
            kept += 1
    return kept, deepest


@jit_leaf
def scar_drag(
    radius: float, immersion: float, depth: float, cs: float, speed: float, along: float
) -> float:
    """The linear drag coefficient ``1/2 (1 + C_s) rho A |v|`` (kg/s) of a rock immersed to
    ``d = min(immersion, depth)``, moving at ``speed`` with ``along = |v . n| / |v|`` the share
    of its velocity across the surface: ``A = along A_disc + sqrt(1 - along^2) A_segment``, the
    projections of the immersed cap of the equivalent sphere, its base disc of area
    ``pi d (2 R - d)`` seen from a motion across the surface and the circular segment
    (:func:`immersed_area`) seen from a motion along it (exact for both, and between them the
    sum of the two projections)."""
    d = min(immersion, depth, 2.0 * radius)
    if d <= 0.0 or speed <= 0.0:
        return 0.0
    across = min(1.0, max(0.0, along))
    disc = math.pi * d * (2.0 * radius - d)
    area = across * disc + math.sqrt(1.0 - across * across) * immersed_area(radius, d)
    return 0.5 * (1.0 + cs) * SCAR_DENSITY * area * speed
