"""A team of rocks stepped together, their free flights in SIMD lanes.

Most steps of a rock are flights clear of the terrain (95 % on ``slope40``), and such a step of
:func:`tumble.rockfall.step.moreau.rock_step` is a fixed chain of arithmetic: the midpoint, the
test against the cached plane above the terrain, the free velocities, the closed-form implicit
midpoint rule of an axisymmetric rock, the orientation increment of the step before turned by
the free precession, and the slippage's decay. What the ensemble kernel
(:func:`tumble.rockfall.ensemble.kernels.run_one`) then does with the step is as fixed when the
rock stays in its cell: count it, raise its maxima, and now and then take the jump height and
a path sample. :func:`team_lanes` performs both for :data:`LANES` rocks at once, held
structure-of-arrays in one flat buffer (``T_*`` and ``C_*`` rows, one column a rock), so that
the compiler turns the loop over the rocks into vector instructions (eight float64 lanes of a
512-bit register), and :func:`team_jumps` the jump heights and path samples of the steps it took.
:func:`tumble.rockfall.ensemble.teams.run_team` gives every other step to ``rock_step`` and
``run_one``'s bookkeeping, lane by lane.

Each lane performs the IEEE operations of the scalar code in the same order (the same helpers or
the same expressions, nothing fused or reordered), so a rock's numbers in a team are those of
``run_one`` bit for bit (``tests/rockfall/ensemble/test_lanes.py``). A step is a free flight here
(row ``C_FLIGHT``) when all of these hold, which are the conditions under which ``rock_step``
takes that path:

* the midpoint lies in the square of the cached plane, clear of it by more than the gap
  tolerance (the bounding sphere), and at least the drag layer's height above it;
* the warm start is clear and the scar layer is off (nothing to reset);
* the rock has two equal moments about the team's axis and starts from the angular velocity
  the last free step ended with (the carried increment of
  :func:`tumble.rockfall.step.moreau.implicit_orientation`);
* the slippage is zero or its decay is cached (a soil with one ``beta``);
* every new number is finite.

Such a step is also taken here (row ``C_TAKEN``) when it neither stops the rock nor ends its
time, stays in the rock's cell and follows its first contact with the terrain.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit
from tumble.freerot.implicit_midpoint import axisymmetric_solution, turn_increment
from tumble.rockfall.ensemble.record import Q_ENERGY, Q_JUMP, Q_ROTATION, Q_SPEED
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
    B_RADIUS,
    B_SCAR_ON,
    B_SIN,
    B_SLOPE,
    B_TURN_W,
    B_WARM,
    B_X,
    B_Y,
    N_BOUNDS,
)
from tumble.rockfall.step.model import S_OMEGA, S_P, S_R, S_SLIP, S_V, STATE_SIZE
from tumble.rockfall.step.stepping import kinetic_energy_of
from tumble.rockfall.step.surface import EDGE_SLACK
from tumble.rotation.quaternion import q_mul, q_normalize

#: rocks in a team: eight float64 lanes fill a 512-bit vector register
LANES = 8

#: rows of a team's buffer (one column a rock, ``LANES`` columns, flattened row by row, row r
#: of lane l at ``r * LANES + l``): the rock's state (``S_*`` layout), its bounds buffer
#: (``B_*`` layout of :mod:`tumble.rockfall.step.moreau`), its body (mass and principal moments)
#: and the drag layer's height of its soil (infinite for a soil whose height is a raster: no
#: such step is a flight here) ...
T_STATE = 0
T_BOUNDS = T_STATE + STATE_SIZE
T_BODY = T_BOUNDS + N_BOUNDS
T_DRAG_HEIGHT = T_BODY + 4
#: ... the values a rock carries from step to step, in the order of
#: :func:`tumble.rockfall.ensemble.record.record_step`'s tuple (as floats): the rock's maxima
#: (energy, squared speed, squared rotation rate, jump, release drop), its current visit's row
#: (-1 none) and maxima, whether it has touched the terrain, its visits, the steps to its next
#: path sample and its current cell; then its rest energy, steps, quiet steps, and 1.0 while the
#: lane holds a moving rock ...
T_CARRIED = T_DRAG_HEIGHT + 1
T_MAX_ENERGY, T_MAX_SPEED, T_MAX_ROTATION, T_MAX_JUMP, T_MAX_DROP = range(T_CARRIED, T_CARRIED + 5)
T_ROW, T_ROW_ENERGY, T_ROW_SPEED, T_ROW_ROTATION, T_ROW_JUMP = range(T_CARRIED + 5, T_CARRIED + 10)
T_TOUCHED, T_VISITS, T_COUNTDOWN, T_CURRENT = range(T_CARRIED + 10, T_CARRIED + 14)
T_REST, T_DONE, T_QUIET, T_ACTIVE = range(T_CARRIED + 14, T_CARRIED + 18)
#: ... the rock's path statistics (Welford's count, mean and sum of squared deviations of the
#: four quantities of :mod:`tumble.rockfall.ensemble.record`, row ``T_PATH + 3 q + c``) ...
T_PATH = T_ACTIVE + 1
#: ... and what :func:`team_lanes` writes: the new state of a flight (``S_*`` layout from
#: T_CAND), its orientation increment (4) and free angular velocity (3) for the bounds buffer,
#: 1.0 where the step is a free flight, 1.0 where it has also been taken (module docstring) ...
T_CAND = T_PATH + 12
C_DQ = T_CAND + STATE_SIZE
C_TURN_W = C_DQ + 4
C_FLIGHT = C_TURN_W + 3
C_TAKEN = C_FLIGHT + 1
#: ... and, for a step taken, 1.0 where it needs the jump height (run_one's test) and 1.0 where
#: a path sample is due, its kinetic energy, squared speed and squared rotation rate, and the
#: DEM cell under it for the jump height (:func:`tumble.rockfall.step.surface._cell_uv`: its
#: column and row, -1 off the grid, and the coordinates in it); the lane fills in the cell's
#: four heights (C_HEIGHTS) before :func:`team_jumps`
C_JUMP = C_TAKEN + 1
C_SAMPLE = C_JUMP + 1
C_ENERGY = C_SAMPLE + 1
C_SPEED = C_ENERGY + 1
C_ROTATION = C_SPEED + 1
C_COLUMN = C_ROTATION + 1
C_ROW = C_COLUMN + 1
C_ETA = C_ROW + 1
C_XI = C_ETA + 1
C_HEIGHTS = C_XI + 1
#: ... the cell the step ends in (a new visit when it is not the current one) and the jump
#: height :func:`team_jumps` found (-inf none)
C_CELL = C_HEIGHTS + 4
C_JUMP_HEIGHT = C_CELL + 1
N_TEAM = C_JUMP_HEIGHT + 1


@jit(inline="always")
def _welford_lane(team: np.ndarray, lane: int, q: int, x: float) -> None:
    """Welford's update of quantity ``q`` of a lane's path rows by ``x``
    (:func:`tumble.rockfall.ensemble.record._welford`'s operations)."""
    count = (T_PATH + 3 * q) * LANES + lane
    mean = count + LANES
    m2 = mean + LANES
    n = team[count] + 1.0
    delta = x - team[mean]
    team[count] = n
    team[mean] += delta / n
    team[m2] += delta * (x - team[mean])


@jit(inline="always")
def _team_lanes(team: np.ndarray, params: tuple, s: int, i: int, j: int) -> None:
    dt, gravity, gap_tol, grid, nx, ny, n_steps, rest_steps = params
    h = 0.5 * dt
    x0, y0, dx, dy = grid
    for lane in range(LANES):
        # the lane's state, bounds and body
        r_b0 = team[(T_STATE + S_R) * LANES + lane]
        r_b1 = team[(T_STATE + S_R + 1) * LANES + lane]
        r_b2 = team[(T_STATE + S_R + 2) * LANES + lane]
        p_b = (
            team[(T_STATE + S_P) * LANES + lane],
            team[(T_STATE + S_P + 1) * LANES + lane],
            team[(T_STATE + S_P + 2) * LANES + lane],
            team[(T_STATE + S_P + 3) * LANES + lane],
        )
        v0 = team[(T_STATE + S_V) * LANES + lane]
        v1 = team[(T_STATE + S_V + 1) * LANES + lane]
        v2 = team[(T_STATE + S_V + 2) * LANES + lane]
        w_b0 = team[(T_STATE + S_OMEGA) * LANES + lane]
        w_b1 = team[(T_STATE + S_OMEGA + 1) * LANES + lane]
        w_b2 = team[(T_STATE + S_OMEGA + 2) * LANES + lane]
        s_b = team[(T_STATE + S_SLIP) * LANES + lane]
        radius = team[(T_BOUNDS + B_RADIUS) * LANES + lane]
        b_x = team[(T_BOUNDS + B_X) * LANES + lane]
        b_y = team[(T_BOUNDS + B_Y) * LANES + lane]
        b_half = team[(T_BOUNDS + B_HALF) * LANES + lane]
        g_x = team[(T_BOUNDS + B_GX) * LANES + lane]
        g_y = team[(T_BOUNDS + B_GY) * LANES + lane]
        mass = team[T_BODY * LANES + lane]

        # the flight of rock_step, in its order of operations: midpoint and the cached plane
        r_m0 = r_b0 + h * v0
        r_m1 = r_b1 + h * v1
        r_m2 = r_b2 + h * v2
        room = b_half - radius
        cached = (abs(r_m0 - b_x) <= room) & (abs(r_m1 - b_y) <= room)
        above = (
            r_m2 - team[(T_BOUNDS + B_A) * LANES + lane] - g_x * (r_m0 - b_x) - g_y * (r_m1 - b_y)
        )
        clear = above - team[(T_BOUNDS + B_SLOPE) * LANES + lane] * radius > gap_tol
        # free velocities without drag (c_v = 0: the same operations)
        c_v = 0.0
        m_inv = team[(T_BOUNDS + B_INV_M) * LANES + lane]
        fall = -gravity * dt * (mass * m_inv)
        v_e0 = v0 - dt * c_v * v0 * m_inv
        v_e1 = v1 - dt * c_v * v1 * m_inv
        v_e2 = v2 - dt * c_v * v2 * m_inv + fall
        # the closed-form implicit midpoint rule about axis s without a torque impulse
        # (free_midpoint_omega of a body with two equal moments)
        w_b = (w_b0, w_b1, w_b2)
        inertia = (
            team[(T_BODY + 1) * LANES + lane],
            team[(T_BODY + 2) * LANES + lane],
            team[(T_BODY + 3) * LANES + lane],
        )
        w_s = axisymmetric_solution(inertia, w_b, dt, (s, i, j), 0.0, 0.0, 0.0)
        # without rotational drag (c_r = 0: the same operations)
        c_r = 0.0
        w_e0 = w_s[0] - dt * c_r * w_s[0] * team[(T_BOUNDS + B_INV_A) * LANES + lane]
        w_e1 = w_s[1] - dt * c_r * w_s[1] * team[(T_BOUNDS + B_INV_B) * LANES + lane]
        w_e2 = w_s[2] - dt * c_r * w_s[2] * team[(T_BOUNDS + B_INV_C) * LANES + lane]
        r_e0 = r_m0 + h * v_e0
        r_e1 = r_m1 + h * v_e1
        r_e2 = r_m2 + h * v_e2
        # the carried orientation increment, turned by the free precession
        same = (
            (w_b0 == team[(T_BOUNDS + B_TURN_W) * LANES + lane])
            & (w_b1 == team[(T_BOUNDS + B_TURN_W + 1) * LANES + lane])
            & (w_b2 == team[(T_BOUNDS + B_TURN_W + 2) * LANES + lane])
        )
        dq = turn_increment(
            (
                team[(T_BOUNDS + B_DQ) * LANES + lane],
                team[(T_BOUNDS + B_DQ + 1) * LANES + lane],
                team[(T_BOUNDS + B_DQ + 2) * LANES + lane],
                team[(T_BOUNDS + B_DQ + 3) * LANES + lane],
            ),
            s,
            team[(T_BOUNDS + B_COS) * LANES + lane],
            team[(T_BOUNDS + B_SIN) * LANES + lane],
        )
        p_e = q_normalize(q_mul(p_b, dq))
        # slippage: decays in a flight (the cached decay of a soil with one beta)
        decay = team[(T_BOUNDS + B_DECAY) * LANES + lane]
        s_e = s_b * decay if s_b != 0.0 else 0.0
        work = 0.0
        total = (
            ((r_e0 + r_e1) + (r_e2 + s_e))
            + ((v_e0 + v_e1) + (v_e2 + work))
            + ((w_e0 + w_e1) + w_e2)
            + ((p_e[0] + p_e[1]) + (p_e[2] + p_e[3]))
        )
        flight = (
            cached
            & (above >= team[T_DRAG_HEIGHT * LANES + lane])
            & clear
            & (team[(T_BOUNDS + B_WARM) * LANES + lane] == 0.0)
            & (team[(T_BOUNDS + B_SCAR_ON) * LANES + lane] == 0.0)
            & (team[(T_BOUNDS + B_AXIS) * LANES + lane] == s)
            & same
            & ((s_b == 0.0) | (decay == decay))
            & (total - total == 0.0)
        )

        # run_one's bookkeeping after such a step: the kinetic energy (stepping.kinetic_energy),
        # the squared speed and rotation rate, the pixel (surface.sample_cell)
        energy = kinetic_energy_of(mass, inertia, (v_e0, v_e1, v_e2), (w_e0, w_e1, w_e2))
        speed = v_e0 * v_e0 + v_e1 * v_e1 + v_e2 * v_e2
        rotation = w_e0 * w_e0 + w_e1 * w_e1 + w_e2 * w_e2
        # the grid coordinates (for the pixel, surface.sample_cell, and for the jump height)
        u_j = (r_e0 - x0) / dx
        v_j = (r_e1 - y0) / dy
        u = u_j + 0.5
        v = v_j + 0.5
        on_grid = (u >= 0.0) & (v >= 0.0) & (u < nx) & (v < ny)
        cell = float(int(v) * nx + int(u)) if on_grid else -1.0
        # a step taken here: a flight that neither stops the rock nor ends its time, that
        # stays in its cell, of a rock that has touched the terrain. run_one then counts it and
        # raises the maxima; the lane finishes it (kernels._finish_taken) where it needs the
        # jump height (run_one's test: the plane below the terrain does not show that it
        # cannot exceed the visit's, or the rock's, largest) or a path sample is due
        done = team[T_DONE * LANES + lane]
        countdown = team[T_COUNTDOWN * LANES + lane]
        row = team[T_ROW * LANES + lane]
        off_x = r_e0 - b_x
        off_y = r_e1 - b_y
        cap = r_e2 - (team[(T_BOUNDS + B_LOW) * LANES + lane] + g_x * off_x + g_y * off_y)
        # both loaded, then chosen (a choice of address would keep the loop from vectorising)
        row_jump = team[T_ROW_JUMP * LANES + lane]
        max_jump = team[T_MAX_JUMP * LANES + lane]
        largest = row_jump if row >= 0.0 else max_jump
        taken = (
            flight
            & (team[T_ACTIVE * LANES + lane] == 1.0)
            & (energy > team[T_REST * LANES + lane])
            & (done + 1.0 < n_steps)
            & (rest_steps > 0)
        )
        same_cell = cell == team[T_CURRENT * LANES + lane]
        touched = team[T_TOUCHED * LANES + lane] == 1.0
        # run_one skips the terrain's height only after the first contact, in the same cell
        # and before no path sample, when the plane below the terrain bounds the jump
        skip_jump = (
            touched
            & same_cell
            & (countdown != 1.0)
            & (abs(off_x) <= b_half)
            & (abs(off_y) <= b_half)
            & ~(cap > largest)
        )
        team[C_JUMP * LANES + lane] = 0.0 if skip_jump else 1.0
        team[C_CELL * LANES + lane] = cell
        # the cell of the bilinear height under the centre of mass (surface._cell_uv)
        in_box = (
            (u_j >= -EDGE_SLACK)
            & (v_j >= -EDGE_SLACK)
            & (u_j <= nx - 1 + EDGE_SLACK)
            & (v_j <= ny - 1 + EDGE_SLACK)
        )
        column = min(int(u_j), nx - 2) if in_box else 0
        row_j = min(int(v_j), ny - 2) if in_box else 0
        team[C_COLUMN * LANES + lane] = column if in_box else -1.0
        team[C_ROW * LANES + lane] = row_j
        team[C_ETA * LANES + lane] = u_j - column
        team[C_XI * LANES + lane] = v_j - row_j
        team[C_SAMPLE * LANES + lane] = 1.0 if countdown == 1.0 else 0.0
        team[C_ENERGY * LANES + lane] = energy
        team[C_SPEED * LANES + lane] = speed
        team[C_ROTATION * LANES + lane] = rotation

        # the flight's new numbers, for the lane to take
        team[C_FLIGHT * LANES + lane] = 1.0 if flight else 0.0
        team[C_TAKEN * LANES + lane] = 1.0 if taken else 0.0
        team[(T_CAND + S_R) * LANES + lane] = r_e0
        team[(T_CAND + S_R + 1) * LANES + lane] = r_e1
        team[(T_CAND + S_R + 2) * LANES + lane] = r_e2
        team[(T_CAND + S_V) * LANES + lane] = v_e0
        team[(T_CAND + S_V + 1) * LANES + lane] = v_e1
        team[(T_CAND + S_V + 2) * LANES + lane] = v_e2
        team[(T_CAND + S_SLIP) * LANES + lane] = s_e
        team[(T_CAND + S_P) * LANES + lane] = p_e[0]
        team[(T_CAND + S_P + 1) * LANES + lane] = p_e[1]
        team[(T_CAND + S_P + 2) * LANES + lane] = p_e[2]
        team[(T_CAND + S_P + 3) * LANES + lane] = p_e[3]
        team[C_DQ * LANES + lane] = dq[0]
        team[(C_DQ + 1) * LANES + lane] = dq[1]
        team[(C_DQ + 2) * LANES + lane] = dq[2]
        team[(C_DQ + 3) * LANES + lane] = dq[3]
        team[C_TURN_W * LANES + lane] = w_s[0]
        team[(C_TURN_W + 1) * LANES + lane] = w_s[1]
        team[(C_TURN_W + 2) * LANES + lane] = w_s[2]
        team[(T_CAND + S_OMEGA) * LANES + lane] = w_e0
        team[(T_CAND + S_OMEGA + 1) * LANES + lane] = w_e1
        team[(T_CAND + S_OMEGA + 2) * LANES + lane] = w_e2

        # a step taken here: the state, the bounds' increment, run_one's counters and maxima
        # but the jump's (the same max in the same order)
        if taken:
            for c in range(STATE_SIZE):
                team[(T_STATE + c) * LANES + lane] = team[(T_CAND + c) * LANES + lane]
            for c in range(4):
                team[(T_BOUNDS + B_DQ + c) * LANES + lane] = team[(C_DQ + c) * LANES + lane]
            for c in range(3):
                team[(T_BOUNDS + B_TURN_W + c) * LANES + lane] = team[(C_TURN_W + c) * LANES + lane]
            team[T_DONE * LANES + lane] = done + 1.0
            team[T_QUIET * LANES + lane] = 0.0
            team[T_COUNTDOWN * LANES + lane] = countdown - 1.0
            team[T_MAX_ENERGY * LANES + lane] = max(team[T_MAX_ENERGY * LANES + lane], energy)
            team[T_MAX_SPEED * LANES + lane] = max(team[T_MAX_SPEED * LANES + lane], speed)
            team[T_MAX_ROTATION * LANES + lane] = max(team[T_MAX_ROTATION * LANES + lane], rotation)
            if (row >= 0.0) & same_cell:
                team[T_ROW_ENERGY * LANES + lane] = max(team[T_ROW_ENERGY * LANES + lane], energy)
                team[T_ROW_SPEED * LANES + lane] = max(team[T_ROW_SPEED * LANES + lane], speed)
                team[T_ROW_ROTATION * LANES + lane] = max(
                    team[T_ROW_ROTATION * LANES + lane], rotation
                )


@jit
def team_lanes(
    team: np.ndarray,
    params: tuple[float, float, float, tuple[float, float, float, float], int, int, int, int],
    axis: int,
) -> None:
    """One step of the ``LANES`` rocks of ``team`` (``N_TEAM * LANES``, ``T_*`` rows),
    symmetric about ``axis``, where it is a free flight (module docstring): row ``C_FLIGHT``
    1.0 for such a lane, with its new state from ``T_CAND`` and the bounds rows ``C_DQ`` and
    ``C_TURN_W`` that :func:`tumble.rockfall.step.moreau.rock_step` would give it; row
    ``C_TAKEN`` 1.0 where the step was also taken here, state, bounds and carried values (every
    other lane's rows but these are left as they were). ``params`` are ``(dt, gravity, gap_tol,
    grid, nx, ny, n_steps, rest_steps)``: the step's options, the DEM's ``(x0, y0, dx, dy)`` of
    ``nx`` by ``ny`` samples and the stopping rules'. ``axis`` is passed to the loop as a
    constant, so that its indices fold."""
    if axis == 2:
        _team_lanes(team, params, 2, 0, 1)
    elif axis == 0:
        _team_lanes(team, params, 0, 1, 2)
    elif axis == 1:
        _team_lanes(team, params, 1, 2, 0)
    else:
        for lane in range(LANES):
            team[C_FLIGHT * LANES + lane] = 0.0
            team[C_TAKEN * LANES + lane] = 0.0


@jit
def team_jumps(team: np.ndarray, sample_every: int) -> None:
    """The rest of the steps :func:`team_lanes` took, in SIMD lanes: the jump height where it is
    needed (the bilinear height of :func:`tumble.rockfall.step.surface.bilinear_uv` from the
    cell's heights the lane gathered into ``C_HEIGHTS``, NaN for none) and its maxima, and the
    path sample where it is due, with :func:`tumble.rockfall.ensemble.kernels.run_one`'s
    operations in its order."""
    two_pi = 2.0 * math.pi
    for lane in range(LANES):
        taken = team[C_TAKEN * LANES + lane] == 1.0
        need = taken & (team[C_JUMP * LANES + lane] == 1.0)
        h00 = team[C_HEIGHTS * LANES + lane]
        h10 = team[(C_HEIGHTS + 1) * LANES + lane]
        h01 = team[(C_HEIGHTS + 2) * LANES + lane]
        h11 = team[(C_HEIGHTS + 3) * LANES + lane]
        eta = team[C_ETA * LANES + lane]
        xi = team[C_XI * LANES + lane]
        z = (
            h00 * (1.0 - eta) * (1.0 - xi)
            + h10 * eta * (1.0 - xi)
            + h01 * (1.0 - eta) * xi
            + h11 * eta * xi
        )
        inside = (
            (team[C_COLUMN * LANES + lane] >= 0.0)
            & (h00 == h00)
            & (h10 == h10)
            & (h01 == h01)
            & (h11 == h11)
        )
        touched = team[T_TOUCHED * LANES + lane] == 1.0
        height = team[(T_STATE + S_R + 2) * LANES + lane] - z
        jump = height if need & inside & touched else -math.inf
        team[C_JUMP_HEIGHT * LANES + lane] = jump
        if need & inside & ~touched:
            # the fall from the release, before the first contact: the release drop
            team[T_MAX_DROP * LANES + lane] = max(team[T_MAX_DROP * LANES + lane], height)
        if need:
            team[T_MAX_JUMP * LANES + lane] = max(team[T_MAX_JUMP * LANES + lane], jump)
            same_cell = team[C_CELL * LANES + lane] == team[T_CURRENT * LANES + lane]
            if (team[T_ROW * LANES + lane] >= 0.0) & same_cell:
                team[T_ROW_JUMP * LANES + lane] = max(team[T_ROW_JUMP * LANES + lane], jump)
        if taken & (team[C_SAMPLE * LANES + lane] == 1.0):
            team[T_COUNTDOWN * LANES + lane] = sample_every
            _welford_lane(team, lane, Q_ENERGY, team[C_ENERGY * LANES + lane])
            _welford_lane(team, lane, Q_SPEED, math.sqrt(team[C_SPEED * LANES + lane]))
            _welford_lane(
                team, lane, Q_ROTATION, math.sqrt(team[C_ROTATION * LANES + lane]) / two_pi
            )
            if jump > -math.inf:
                _welford_lane(team, lane, Q_JUMP, jump)
