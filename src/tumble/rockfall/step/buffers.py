"""The per-rock buffers of the Moreau step (:func:`tumble.rockfall.step.moreau.rock_step`): the
per-step diagnostics it writes, the bounds buffer it keeps between steps (cached terrain bounds,
inverses of the mass and moments, the state of the free flight's increment, the scar layer and the
laws of motion from rest), and :func:`reset_bounds`, which prepares it for a rock's first step."""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf
from tumble.freerot.implicit_midpoint import symmetry_axes
from tumble.rockfall.step.detection import bounding_radius

#: per-step diagnostics written by rock_step: closed contacts, loaded contacts (P_N > 0), the
#: friction coefficient used, contact work, drag work (J), PGS sweeps, 1 if the PGS cap was hit,
#: 1 if the drag layer was active
D_CONTACTS, D_LOADED, D_MU, D_CONTACT_WORK, D_DRAG_WORK, D_SWEEPS, D_CAPPED, D_DRAG = range(8)
N_DIAG = 8
#: saved diagnostics per row: the above (work summed, sweeps maximal, caps counted since the
#: previous row) plus the height of the centre of mass above the terrain and 1 once a step with
#: a closed contact has been taken (at or before the row; 0 during the fall from the release)
D_HEIGHT = 8
D_TOUCHED = 9
N_SAVED_DIAG = 10

#: the per-rock bounds buffer of :func:`rock_step` (:func:`reset_bounds`): the rock's bounding
#: radius about its centre of mass; a square of half-width B_HALF centred at (B_X, B_Y) with a
#: plane above the terrain over it, ``z <= B_A + B_GX (x - B_X) + B_GY (y - B_Y)``
#: (:func:`tumble.rockfall.step.surface.plane_envelope`; B_HALF < 0: none); B_WARM 1 while the
#: contact buffer may hold percussions of the previous step; B_DECAY the slippage decay of a
#: flight step, ``exp(-beta dt)``, for a soil with one beta (NaN until the first flight takes it)
B_RADIUS, B_X, B_Y, B_HALF, B_A, B_GX, B_GY, B_WARM, B_DECAY = range(9)
#: and, for the steps without drag, ``sqrt(1 + B_GX^2 + B_GY^2)`` and the inverses of the mass
#: and of the principal moments of inertia
B_SLOPE, B_INV_M, B_INV_A, B_INV_B, B_INV_C = range(9, 14)
#: and, for the implicit scheme and a body with two equal moments, the symmetry axis (B_AXIS,
#: -1 for none) and the free flight's increment of the orientation (:func:`rock_step`): the
#: increment B_DQ (4) of the last step, the angular velocity B_TURN_W (3) the next step starts
#: from if that step was free (NaN until the first step) and cos, sin of the free precession
B_AXIS, B_TURN_W, B_DQ, B_COS, B_SIN = 14, 15, 18, 22, 23
#: and the scar layer (:mod:`tumble.rockfall.step.scar`): the radius of the rock's equivalent
#: sphere, the depth of the current scar and 1 while the rock is in it
B_SCAR_R, B_SCAR_DEPTH, B_SCAR_ON = 24, 25, 26
#: and a plane below the terrain over the same square, parallel to the one above it,
#: ``z >= B_LOW + B_GX (x - B_X) + B_GY (y - B_Y)``
#: (:func:`tumble.rockfall.step.surface.plane_envelope`; it bounds the jump height in the
#: ensemble kernel)
B_LOW = 27
#: and 1 once the rock has been in motion (:data:`tumble.rockfall.soil.COLLISION_FROUDE`; never
#: reset)
B_MOVING = 28
N_BOUNDS = 29
#: how far beyond the rock's radius the cached terrain bound of a flight reaches, m: a rock
#: moves this far horizontally before the bound is taken again
FLIGHT_MARGIN = 1.0


@jit_leaf
def reset_bounds(bounds: np.ndarray, vertices: np.ndarray, body: np.ndarray) -> None:
    """Prepare the bounds buffer (``N_BOUNDS``) of :func:`rock_step` for a rock's first step:
    its bounding radius (the largest distance of a hull vertex from the centre of mass), the
    inverses of its mass and moments (``body``), no cached terrain bound, and a warm start to
    be cleared."""
    bounds[B_RADIUS] = bounding_radius(vertices)
    bounds[B_X] = 0.0
    bounds[B_Y] = 0.0
    bounds[B_HALF] = -1.0
    bounds[B_A] = math.inf
    bounds[B_LOW] = -math.inf
    bounds[B_GX] = 0.0
    bounds[B_GY] = 0.0
    bounds[B_WARM] = 1.0
    bounds[B_DECAY] = math.nan
    bounds[B_SLOPE] = 1.0
    bounds[B_INV_M] = 1.0 / body[0]
    bounds[B_INV_A] = 1.0 / body[1]
    bounds[B_INV_B] = 1.0 / body[2]
    bounds[B_INV_C] = 1.0 / body[3]
    bounds[B_AXIS] = symmetry_axes((body[1], body[2], body[3]))[0]
    for j in range(3):
        bounds[B_TURN_W + j] = math.nan
    bounds[B_SCAR_R] = math.sqrt(5.0 * (body[1] + body[2] + body[3]) / (6.0 * body[0]))
    bounds[B_SCAR_DEPTH] = 0.0
    bounds[B_SCAR_ON] = 0.0
    bounds[B_MOVING] = 0.0
