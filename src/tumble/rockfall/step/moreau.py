"""Moreau time-stepping of one rock on a DEM, with the explicit or the implicit rotation scheme.

The step follows Leine et al. 2021 (seed 000), section 5, on the contact model of Leine et al.
2014 (L14). State ``q = (r, p)`` (centre of mass in I, unit quaternion K -> I, eq. 76) and
``u = (v, omega)`` (velocity in I, angular velocity in K, eq. 77); external forces are gravity and
the linear drag of eq. 78, ``f = -c v + f_grav``, ``M = -C omega`` with ``C = c_r 1``, active
while the centre of mass is less than ``drag_height`` above the terrain. With ``h = dt / 2``:

1. Midpoint (eq. 79)::

       r_M = r_B + h v_B,        p_M = normalise(p_B + h F(p_B) omega_B)

   Closed vertex contacts, their frames and force directions ``W = (W_v, W_omega)`` are taken at
   ``q_M`` (L14 eq. 7-8, 25-27); soil parameters and the drag layer at the centre of mass r_M.

2. Velocities, linear in the percussions P (drag linearly implicit):

   * translation (eq. 81): ``(m + h c) v_E = (m - h c) v_B + f_grav dt + W_v P``;
   * rotation, ``explicit`` (eq. 80, 82)::

         (Theta + h (G(omega_B) + C)) omega_E = (Theta - h (G(omega_B) + C)) omega_B + W_omega P,
         G(w) = Theta w~ + w~ Theta

   * rotation, ``implicit`` (eq. 84-85): first the free angular velocity by the implicit
     midpoint rule, ``Theta (omega_free - omega_B) + dt w_m x (Theta w_m) = 0`` with
     ``w_m = (omega_B + omega_free) / 2`` (Newton, :func:`midpoint_omega`); then
     ``Theta (omega_E - omega_free) = -dt C (omega_free + omega_E) / 2 + W_omega P``, i.e. the drag
     torque of eq. 85 taken at the mean of the two velocities of the contact step.

   The contact problem (Newton impact with eps_N, eps_T = 0, spatial Coulomb friction with
   ``mu(s_B)``) is solved for P by projected Gauss-Seidel (:mod:`tumble.rockfall.step.contact`).

3. Positions: ``r_E = r_M + h v_E`` (eq. 83, 86). Orientation, ``explicit``:
   ``p_E = normalise(p_M + h F(p_M) omega_E)`` (eq. 83); ``implicit``: the spin-preserving update
   of eq. 87 driven by omega_FREE, ``A_E = A_B exp(dt w_m~) B(omega_B, omega_free)``
   (:func:`spin_preserving_update`), because the contact step does not conserve the spin.
   A free flight of a body with two equal moments turns the step before's increment
   ``exp(dt w_m~) B`` by the free precession instead of forming it (:func:`implicit_orientation`).

   With ``soil.rolling_resistance > 0`` and closed contacts, the free angular velocity first
   receives the rolling-resistance impulse of :func:`rolling_impulse` (Ai et al. 2011, model A;
   see :mod:`tumble.rockfall.soil`), from the previous step's normal percussions.

   With ``soil.collision_froude > 0`` a rock that has not yet been in motion (its speed at a
   contact below ``v^2 = collision_froude g R``, :mod:`tumble.rockfall.soil`) receives no
   rolling-resistance impulse and gathers no slippage, and only a contact whose centre meets
   the soil at ``v_n^2 >= collision_froude g R`` rebounds with eps_N (the others are plastic).

   With ``soil.scar_strength > 0`` (the scar layer of Lu et al. 2019,
   :mod:`tumble.rockfall.step.scar`) a rock that touches the terrain after a flight ploughs
   into the soil first: only the vertices deeper than the scar's depth are hard contacts, and
   until one of them carries load (or the rock stops moving into the terrain) the drag of the
   soil adds ``1/2 C_d rho A |v_B|`` to ``c`` above. The scar's floor holds until the rock
   leaves the surface.

4. Slippage (L14 eq. 51): ``s_E = s_B + dt |v_E|`` if a vertex touches the soil, else
   ``s_B exp(-beta dt)``; the friction of the next step is ``mu(s_E)``.

Energy balance (L14 eq. 54): since ``r_E - r_B = dt (v_B + v_E) / 2``, the scheme satisfies
exactly (to round-off)::

    T_E - T_B + m g (z_E - z_B) = P . W^T (u_S + u_E) / 2 - dt (c |v_m|^2 + c_r |omega_m|^2)
                                   + H . omega_m

with ``u_S = (v_B, omega_B)`` (explicit) or ``(v_B, omega_free)`` (implicit; the free rotation
keeps T exactly), ``v_m, omega_m`` the means of the start and end velocities of the linear update.
(``H`` the rolling-resistance impulse, zero unless it is switched on). The kernel reports both
work terms of every step, the last two together as the drag work.

Kernels: :func:`rock_step` advances one rock by one step on plain arrays and returns a status code
(``OK``, ``LEFT_DOMAIN`` or a failure code of :class:`tumble.status.Status`, among them
``PENETRATED`` when a closed contact at the midpoint lies deeper below the terrain than the rock's
radius, :func:`penetrated`: a step too large for the contact model, which a rock never survives
as "stopped");
:func:`tumble.rockfall.step.stepping.stopping_rules` (at rest, ``t_max``) ends the per-rock
loops of :func:`tumble.rockfall.step.stepping.run_rock` (which saves samples) and of the ensemble
driver (which keeps statistics). The model is the tuple
``(heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options)`` of
:class:`tumble.rockfall.step.model.RockModel`, shared and read-only; the state (``STATE_SIZE``
floats of :mod:`tumble.rockfall.step.model`) and the contact buffer (``n_vertices x NCOL``, which
carries the warm start of the contact solver) belong to the rock.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit, jit_leaf
from tumble.freerot.explicit import quaternion_half_step
from tumble.freerot.implicit_midpoint import (
    free_midpoint_omega,
    free_precession,
    spin_preserving_increment,
    spin_preserving_update,
    turn_increment,
)
from tumble.rockfall.soil import (
    BETA,
    COLLISION_FROUDE,
    DRAG,
    DRAG_HEIGHT,
    DRAG_TORQUE,
    RESTITUTION,
    ROLLING,
    SCAR_CS,
    SCAR_STRENGTH,
)
from tumble.rockfall.status import (
    LEFT_DOMAIN,
    NEWTON_NOT_CONVERGED,
    NO_SOLUTION,
    NON_FINITE,
    OK,
    PENETRATED,
    SINGULAR_MATRIX,
)
from tumble.rockfall.step.buffers import (
    B_A,
    B_AXIS,
    B_COS,
    B_DECAY,
    B_DQ,
    B_GX,
    B_GY,
    B_HALF,
    B_INV_A,
    B_INV_B,
    B_INV_C,
    B_INV_M,
    B_LOW,
    B_MOVING,
    B_RADIUS,
    B_SCAR_DEPTH,
    B_SCAR_ON,
    B_SCAR_R,
    B_SIN,
    B_SLOPE,
    B_TURN_W,
    B_WARM,
    B_X,
    B_Y,
    D_CAPPED,
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG,
    D_DRAG_WORK,
    D_LOADED,
    D_MU,
    D_SWEEPS,
    FLIGHT_MARGIN,
)
from tumble.rockfall.step.contact import (
    C_GAP,
    contact_work,
    forget_percussions,
    inverse3,
    prepare_contacts,
    solve_pgs,
)
from tumble.rockfall.step.detection import find_contacts, find_contacts_below
from tumble.rockfall.step.friction import friction, rolling_impulse, soil_param
from tumble.rockfall.step.model import (
    EXPLICIT,
    IMPLICIT,
    O_DT,
    O_GAP_TOL,
    O_GRAVITY,
    O_NEWTON_MAX_ITER,
    O_NEWTON_TOL,
    O_PGS_MAX_ITER,
    O_PGS_TOL,
    O_SCHEME,
    S_OMEGA,
    S_P,
    S_R,
    S_SLIP,
    S_V,
)
from tumble.rockfall.step.scar import hard_contacts, impact_speed, scar_depth, scar_drag
from tumble.rockfall.step.surface import bilinear, plane_envelope
from tumble.rotation.quaternion import Quat, q_mul, q_normalize, q_to_matrix
from tumble.rotation.vec3 import Mat3, Vec3, Vec3Like, cross, dot, matvec
from tumble.status import Status


@jit
def explicit_rotation_matrix(inertia: Vec3Like, w: Vec3, h: float, c_r: float) -> Mat3:
    """``Theta + h (G(w) + c_r 1)`` of eq. 82, ``G(w)_ij = (I_i + I_j) (w~)_ij``."""
    a, b, c = inertia
    return (
        (a + h * c_r, -h * (a + b) * w[2], h * (a + c) * w[1]),
        (h * (a + b) * w[2], b + h * c_r, -h * (b + c) * w[0]),
        (-h * (a + c) * w[1], h * (b + c) * w[0], c + h * c_r),
    )


@jit_leaf
def penetrated(contacts: np.ndarray, n_closed: int, radius: float) -> bool:
    """True if the deepest of the ``n_closed`` closed contacts lies deeper below the terrain
    than the rock's radius (the largest distance of a hull vertex from the centre of mass)."""
    deepest = 0.0
    for i in range(n_closed):
        deepest = min(deepest, contacts[i, C_GAP])
    return -deepest > radius


@jit(inline="always")
def implicit_orientation(
    bounds: np.ndarray, p_b: Quat, w_b: Vec3, w_s: Vec3, inertia: Vec3Like, dt: float
) -> Quat:
    """The orientation at the end of an implicit step from ``p_b``, driven by ``w_b`` and the
    free midpoint solution ``w_s`` (eq. 87, :func:`spin_preserving_update`).

    For a body with two equal moments (``bounds[B_AXIS] >= 0``) a step that starts where the
    last free step ended (``w_b`` equal to ``B_TURN_W``) takes that step's increment turned by
    the free precession (:func:`tumble.freerot.implicit_midpoint.free_precession`), any other
    step forms it afresh; the increment, ``w_s`` and the precession are kept in ``bounds``
    for the next step. Returns the unit quaternion of the end of the step.
    """
    if bounds[B_AXIS] < 0.0:
        return spin_preserving_update(p_b, w_b, w_s, inertia, dt)
    if (
        w_b[0] == bounds[B_TURN_W]
        and w_b[1] == bounds[B_TURN_W + 1]
        and (w_b[2] == bounds[B_TURN_W + 2])
    ):
        dq = turn_increment(
            (bounds[B_DQ], bounds[B_DQ + 1], bounds[B_DQ + 2], bounds[B_DQ + 3]),
            int(bounds[B_AXIS]),
            bounds[B_COS],
            bounds[B_SIN],
        )
    else:
        dq = spin_preserving_increment(w_b, w_s, inertia, dt)
        _, bounds[B_COS], bounds[B_SIN] = free_precession(inertia, w_s, dt)
    bounds[B_DQ], bounds[B_DQ + 1], bounds[B_DQ + 2], bounds[B_DQ + 3] = dq
    bounds[B_TURN_W], bounds[B_TURN_W + 1], bounds[B_TURN_W + 2] = w_s
    return q_normalize(q_mul(p_b, dq))


# inlined into the per-rock loops (run_one, run_rock): the loop and the step are then compiled as
# one function, whose arrays are passed once per rock instead of once per step
@jit(inline="always")
def rock_step(
    heights: np.ndarray,
    grid: np.ndarray,
    soil_values: np.ndarray,
    soil_index: np.ndarray,
    soil_rasters: np.ndarray,
    vertices: np.ndarray,
    body: np.ndarray,
    options: np.ndarray,
    state: np.ndarray,
    contacts: np.ndarray,
    diag: np.ndarray,
    bounds: np.ndarray,
) -> int:
    """Advance one rock by one step in place; returns a status code.

    Model: ``heights`` (ny, nx) and ``grid = (x0, y0, dx, dy)`` of the DEM; the packed soil
    ``(values, index, rasters)``; the hull ``vertices`` (m, 3) in the principal frame;
    ``body = (mass, A, B, C)``; ``options`` (``O_*`` layout). Rock: ``state`` (``S_*`` layout,
    updated only on success), ``contacts`` (m, NCOL) buffer that also carries the percussions of
    the previous step (clear it with :func:`forget_percussions` before a rock's first step),
    ``diag`` (``D_*`` layout, written on success); ``bounds`` (``B_*`` layout of
    :mod:`tumble.rockfall.step.buffers`, set by its ``reset_bounds`` before a rock's first step)
    its bounding radius and the cached terrain bound of its flights. No allocation; never raises.

    A flight costs a few comparisons: when the rock lies above a plane that lies above the
    terrain around it (:func:`tumble.rockfall.step.surface.plane_envelope`, with the slope of the
    terrain, so that on a planar slope it is the surface itself), no vertex can touch and the
    contact search is skipped (the same result as the search, which would find no closed
    contact). The plane is cached over a square reaching :data:`FLIGHT_MARGIN` beyond the
    radius and taken again once the rock leaves it; the bounding sphere is tested against it,
    then the lowest hull vertex, and only then are the vertices searched
    (:func:`tumble.rockfall.step.detection.find_contacts`). The same plane answers the drag layer
    test wherever the centre of mass lies that high above it. The soil's friction and restitution
    are looked up only for a step with contacts, its slippage decay only for a flight with
    slippage left, and the warm start is cleared only when the previous step left one. None of
    this changes a number: every shortcut gives what the full computation gives, apart from
    the orientation increment of a free flight (:func:`implicit_orientation`, the same to
    round-off).
    """
    dt = options[O_DT]
    h = 0.5 * dt
    gravity = options[O_GRAVITY]
    scheme = int(options[O_SCHEME])
    mass = body[0]
    inertia = (body[1], body[2], body[3])
    r_b = (state[S_R], state[S_R + 1], state[S_R + 2])
    p_b = (state[S_P], state[S_P + 1], state[S_P + 2], state[S_P + 3])
    v_b = (state[S_V], state[S_V + 1], state[S_V + 2])
    w_b = (state[S_OMEGA], state[S_OMEGA + 1], state[S_OMEGA + 2])
    s_b = state[S_SLIP]

    # midpoint configuration (eq. 79)
    r_m = (r_b[0] + h * v_b[0], r_b[1] + h * v_b[1], r_b[2] + h * v_b[2])
    # p_m is taken where it is needed: a flight clear of the terrain never needs it
    p_m = p_b
    have_p_m = False

    # the cached terrain bound: a plane above the terrain over a square inside the grid
    # (without holes) that holds the rock's square of half-width radius around r_m, so that r_m
    # and every vertex are inside too
    x, y = r_m[0], r_m[1]
    radius = bounds[B_RADIUS]
    room = bounds[B_HALF] - radius
    if not (abs(x - bounds[B_X]) <= room and abs(y - bounds[B_Y]) <= room):
        half = radius + FLIGHT_MARGIN
        a, b, g_x, g_y, bounded = plane_envelope(
            heights, grid[0], grid[1], grid[2], grid[3], x, y, half
        )
        bounds[B_X] = x
        bounds[B_Y] = y
        bounds[B_HALF] = half if bounded else -1.0
        bounds[B_A] = a
        bounds[B_LOW] = b
        bounds[B_GX] = g_x
        bounds[B_GY] = g_y
        bounds[B_SLOPE] = math.sqrt(1.0 + g_x * g_x + g_y * g_y)
        cached = bounded
    else:
        cached = True
    g_x = bounds[B_GX]
    g_y = bounds[B_GY]
    # the height of r_m above the plane, a lower bound of its height above the terrain
    above = r_m[2] - bounds[B_A] - g_x * (x - bounds[B_X]) - g_y * (y - bounds[B_Y])

    # drag layer at the centre of mass
    drag_height = soil_param(DRAG_HEIGHT, soil_values, soil_index, soil_rasters, grid, x, y)
    if cached and above >= drag_height:
        in_drag = False  # the terrain below lies lower than the plane
    else:
        z_m, inside = bilinear(heights, grid[0], grid[1], grid[2], grid[3], x, y)
        if not inside:
            return LEFT_DOMAIN
        in_drag = r_m[2] - z_m < drag_height
    c_v = 0.0
    c_r = 0.0
    if in_drag:
        c_v = soil_param(DRAG, soil_values, soil_index, soil_rasters, grid, x, y)
        c_r = soil_param(DRAG_TORQUE, soil_values, soil_index, soil_rasters, grid, x, y)

    # closed contacts and force directions at the midpoint (L14 eq. 7-8, 25-27); none when the
    # rock lies above the plane: a vertex P at height above + m . K_r_SP over it, with
    # m = A_IK^T (-g_x, -g_y, 1), first for the bounding sphere (|m| radius), then per vertex
    gap_tol = options[O_GAP_TOL]
    clear = False
    below = False  # the vertices to search lie over the cached plane
    m0 = m1 = m2 = 0.0
    a_ik = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    if cached:
        clear = above - bounds[B_SLOPE] * radius > gap_tol
        if not clear:
            p_m = q_normalize(quaternion_half_step(p_b, w_b, h))
            have_p_m = True
            a_ik = q_to_matrix(p_m)
            m0 = a_ik[2][0] - g_x * a_ik[0][0] - g_y * a_ik[1][0]
            m1 = a_ik[2][1] - g_x * a_ik[0][1] - g_y * a_ik[1][1]
            m2 = a_ik[2][2] - g_x * a_ik[0][2] - g_y * a_ik[1][2]
            # the test of find_contacts_below on every vertex, without branches and without
            # a chain through a running minimum (so that it can run in SIMD lanes): a vertex
            # that is not more than gap_tol above the plane is evaluated there, and when none
            # is the step has no contact. It is the test the lowest vertex took before (the
            # rounded sum is monotonic in the vertex's height), in one pass instead of two.
            near = False
            for k in range(vertices.shape[0]):
                near |= not (
                    above + (m0 * vertices[k, 0] + m1 * vertices[k, 1] + m2 * vertices[k, 2])
                    > gap_tol
                )
            clear = not near
            below = True
    if clear:
        n_closed = 0
    elif below:
        # only the vertices less than gap_tol above the plane are evaluated
        n_closed = find_contacts_below(
            heights, grid, vertices, r_m, a_ik, (m0, m1, m2, above), gap_tol, contacts
        )
    else:
        if not have_p_m:
            p_m = q_normalize(quaternion_half_step(p_b, w_b, h))
            have_p_m = True
        n_closed, inside = find_contacts(
            heights, grid, vertices, r_m, p_m, gap_tol, contacts, radius
        )
        if not inside:
            return LEFT_DOMAIN
    # the scar layer (step/scar.py): a touch after a flight is an impact that ploughs a scar;
    # only the vertices below its floor are hard contacts, and while the rock moves into the
    # soil before the floor carries it, the soil's drag acts on it (B_SCAR_ON 1: ploughing,
    # 2: on the floor, 0: not touching)
    touching = n_closed
    # the laws of motion from rest (soil.collision_froude > 0, tumble.rockfall.soil): the rock
    # is in motion once its speed at a contact has reached the Froude number v^2 / (g R) =
    # collision_froude (R the radius of its equivalent sphere); until then neither does its
    # friction build up with the slippage nor does the rolling resistance act; and only a
    # collision rebounds (below)
    froude = 0.0
    if touching > 0:
        froude = soil_param(COLLISION_FROUDE, soil_values, soil_index, soil_rasters, grid, x, y)
        if (
            froude > 0.0
            and bounds[B_MOVING] == 0.0
            and dot(v_b, v_b) >= froude * gravity * bounds[B_SCAR_R]
        ):
            bounds[B_MOVING] = 1.0
    at_rest_start = froude > 0.0 and bounds[B_MOVING] == 0.0
    depth = 0.0
    if n_closed > 0:
        strength = soil_param(SCAR_STRENGTH, soil_values, soil_index, soil_rasters, grid, x, y)
        if strength > 0.0:
            v_perp = impact_speed(contacts, n_closed, v_b)
            if bounds[B_SCAR_ON] == 0.0:
                # the first touch after a flight: an impact
                bounds[B_SCAR_DEPTH] = min(scar_depth(mass, strength, v_perp), bounds[B_SCAR_R])
                bounds[B_SCAR_ON] = 1.0 if v_perp > 0.0 else 2.0
            elif bounds[B_SCAR_ON] == 1.0 and v_perp <= 0.0:
                bounds[B_SCAR_ON] = 2.0
            depth = bounds[B_SCAR_DEPTH]
            n_closed, immersion = hard_contacts(contacts, n_closed, depth, gap_tol)
            if bounds[B_SCAR_ON] == 1.0:
                cs = soil_param(SCAR_CS, soil_values, soil_index, soil_rasters, grid, x, y)
                speed = math.sqrt(dot(v_b, v_b))
                along = v_perp / speed if speed > 0.0 else 0.0
                c_v = c_v + scar_drag(bounds[B_SCAR_R], immersion, depth, cs, speed, along)
    elif bounds[B_SCAR_ON] != 0.0:
        bounds[B_SCAR_ON] = 0.0
    mu = 0.0
    eps_n = 0.0
    if n_closed > 0:
        # a vertex deeper below the terrain than the rock's radius: the previous step carried
        # the rock through the surface further than any contact can push it back (dt too large)
        if penetrated(contacts, n_closed, radius + depth):
            return PENETRATED
        mu = friction(soil_values, soil_index, soil_rasters, grid, x, y, s_b)
        eps_n = soil_param(RESTITUTION, soil_values, soil_index, soil_rasters, grid, x, y)
        if eps_n > 0.0 and froude > 0.0:
            # with soil.collision_froude = F > 0 only a collision rebounds: a contact whose
            # centre meets the soil at v_n^2 >= F g R; a rolling or pivoting rock's contacts
            # close slower and are plastic
            v_n = impact_speed(contacts, n_closed, v_b)
            if v_n * v_n < froude * gravity * bounds[B_SCAR_R]:
                eps_n = 0.0

    # free velocities: eq. 81-82 (explicit) or 84-85 (implicit) with P = 0
    # (mass + h c_v = mass exactly without drag: the cached inverse is the same number)
    m_inv = bounds[B_INV_M] if c_v == 0.0 else 1.0 / (mass + h * c_v)
    fall = -gravity * dt * (mass * m_inv)
    v_free = (
        v_b[0] - dt * c_v * v_b[0] * m_inv,
        v_b[1] - dt * c_v * v_b[1] * m_inv,
        v_b[2] - dt * c_v * v_b[2] * m_inv + fall,
    )
    if scheme == EXPLICIT:
        rot_inv, ok = inverse3(explicit_rotation_matrix(inertia, w_b, h, c_r))
        if not ok:
            return SINGULAR_MATRIX
        gyro = cross(w_b, (inertia[0] * w_b[0], inertia[1] * w_b[1], inertia[2] * w_b[2]))
        rhs = (
            -dt * (gyro[0] + c_r * w_b[0]),
            -dt * (gyro[1] + c_r * w_b[1]),
            -dt * (gyro[2] + c_r * w_b[2]),
        )
        dw = matvec(rot_inv, rhs)
        w_s = w_b
        w_free = (w_b[0] + dw[0], w_b[1] + dw[1], w_b[2] + dw[2])
    elif scheme == IMPLICIT:
        w_s, status = free_midpoint_omega(
            inertia, w_b, dt, options[O_NEWTON_TOL], int(options[O_NEWTON_MAX_ITER])
        )
        if status == Status.NEWTON_NOT_CONVERGED:
            return NEWTON_NOT_CONVERGED
        if status != Status.OK:
            return SINGULAR_MATRIX
        if c_r == 0.0:
            d0, d1, d2 = bounds[B_INV_A], bounds[B_INV_B], bounds[B_INV_C]
        else:
            d0 = 1.0 / (inertia[0] + h * c_r)
            d1 = 1.0 / (inertia[1] + h * c_r)
            d2 = 1.0 / (inertia[2] + h * c_r)
        rot_inv = ((d0, 0.0, 0.0), (0.0, d1, 0.0), (0.0, 0.0, d2))
        w_free = (
            w_s[0] - dt * c_r * w_s[0] * d0,
            w_s[1] - dt * c_r * w_s[1] * d1,
            w_s[2] - dt * c_r * w_s[2] * d2,
        )
    else:
        return NO_SOLUTION

    # rolling resistance: an angular impulse against the rotation while in contact
    rolling = (0.0, 0.0, 0.0)
    if n_closed > 0:
        mu_r = soil_param(ROLLING, soil_values, soil_index, soil_rasters, grid, x, y)
        if mu_r > 0.0 and not at_rest_start:
            w_free, rolling = rolling_impulse(mu_r, vertices, contacts, rot_inv, w_free)

    # contact problem: percussions by projected Gauss-Seidel
    u_s = (v_b[0], v_b[1], v_b[2], w_s[0], w_s[1], w_s[2])
    u_free = (v_free[0], v_free[1], v_free[2], w_free[0], w_free[1], w_free[2])
    sweeps = 0
    capped = False
    work = 0.0
    loaded = 0
    if n_closed > 0:
        u_pre = (v_b[0], v_b[1], v_b[2], w_b[0], w_b[1], w_b[2])
        if not prepare_contacts(contacts, n_closed, m_inv, rot_inv, u_pre):
            return SINGULAR_MATRIX
        u_e, sweeps, ok = solve_pgs(
            contacts, n_closed, u_free, mu, eps_n, options[O_PGS_TOL], int(options[O_PGS_MAX_ITER])
        )
        capped = not ok
        work, loaded = contact_work(contacts, n_closed, u_s, u_e)
        if loaded > 0 and bounds[B_SCAR_ON] == 1.0:
            bounds[B_SCAR_ON] = 2.0  # the scar's floor carries the rock: the ploughing ends
        bounds[B_WARM] = 1.0
    else:
        if bounds[B_WARM] != 0.0:
            forget_percussions(contacts)
            bounds[B_WARM] = 0.0
        u_e = u_free
    v_e = (u_e[0], u_e[1], u_e[2])
    w_e = (u_e[3], u_e[4], u_e[5])

    # positions (eq. 83, 86) and orientation (eq. 83 or 87)
    r_e = (r_m[0] + h * v_e[0], r_m[1] + h * v_e[1], r_m[2] + h * v_e[2])
    if scheme == EXPLICIT:
        if not have_p_m:
            p_m = q_normalize(quaternion_half_step(p_b, w_b, h))
        p_e = q_normalize(quaternion_half_step(p_m, w_e, h))
    else:
        p_e = implicit_orientation(bounds, p_b, w_b, w_s, inertia, dt)

    # slippage (L14 eq. 51), while the rock touches the soil
    if touching > 0:
        if at_rest_start:
            s_e = s_b  # not yet in motion: the friction does not build up
        else:
            s_e = s_b + dt * math.sqrt(dot(v_e, v_e))
    elif s_b != 0.0:
        if soil_index[BETA] < 0:
            decay = bounds[B_DECAY]
            if math.isnan(decay):
                decay = math.exp(-soil_values[BETA] * dt)
                bounds[B_DECAY] = decay
        else:
            beta = soil_param(BETA, soil_values, soil_index, soil_rasters, grid, x, y)
            decay = math.exp(-beta * dt)
        s_e = s_b * decay
    else:
        s_e = 0.0

    # drag work of the linear update
    vm = (0.5 * (v_b[0] + v_e[0]), 0.5 * (v_b[1] + v_e[1]), 0.5 * (v_b[2] + v_e[2]))
    wm = (0.5 * (w_s[0] + w_e[0]), 0.5 * (w_s[1] + w_e[1]), 0.5 * (w_s[2] + w_e[2]))
    drag_work = -dt * (c_v * dot(vm, vm) + c_r * dot(wm, wm)) + dot(rolling, wm)

    # one sum of every new number, NaN or infinite if any of them is; summed as a tree, so
    # that the test does not wait for a chain of additions after the last of them
    total = (
        ((r_e[0] + r_e[1]) + (r_e[2] + s_e))
        + ((v_e[0] + v_e[1]) + (v_e[2] + work))
        + ((w_e[0] + w_e[1]) + w_e[2])
        + ((p_e[0] + p_e[1]) + (p_e[2] + p_e[3]))
    )
    if not math.isfinite(total):
        return NON_FINITE

    state[S_R], state[S_R + 1], state[S_R + 2] = r_e
    state[S_P], state[S_P + 1], state[S_P + 2], state[S_P + 3] = p_e
    state[S_V], state[S_V + 1], state[S_V + 2] = v_e
    state[S_OMEGA], state[S_OMEGA + 1], state[S_OMEGA + 2] = w_e
    state[S_SLIP] = s_e
    diag[D_CONTACTS] = touching
    diag[D_LOADED] = loaded
    diag[D_MU] = mu
    diag[D_CONTACT_WORK] = work
    diag[D_DRAG_WORK] = drag_work
    diag[D_SWEEPS] = sweeps
    diag[D_CAPPED] = 1.0 if capped else 0.0
    diag[D_DRAG] = 1.0 if in_drag else 0.0
    return OK
