"""The rocks of a chunk run in teams: each thread steps ``LANES`` rocks together.

For a run that the SIMD lanes of :mod:`tumble.rockfall.ensemble.lanes` can serve (the implicit
scheme, no barrier, no forest, every rock with two equal principal moments about one axis:
:func:`lane_axis`), :func:`run_team` holds ``LANES`` rocks in one team buffer and takes the next
rock from the chunk's shared counter (:func:`tumble._jit.take`) whenever one ends. At every step
the team's free flights and their bookkeeping are taken in the lanes
(:func:`~tumble.rockfall.ensemble.lanes.team_lanes`,
:func:`~tumble.rockfall.ensemble.lanes.team_jumps`), and every other step lane by lane
(:func:`_lane_step`: :func:`tumble.rockfall.step.moreau.rock_step` and
:func:`tumble.rockfall.ensemble.record.record_step`), so that each rock's numbers are those of
:func:`tumble.rockfall.ensemble.kernels.run_one`, bit for bit, whichever team and thread run it
(``tests/rockfall/ensemble/test_lanes.py``).
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import cycles, jit, jit_leaf, take
from tumble.freerot.implicit_midpoint import symmetry_axes
from tumble.rockfall.ensemble.lanes import (
    C_CELL,
    C_COLUMN,
    C_DQ,
    C_ENERGY,
    C_FLIGHT,
    C_HEIGHTS,
    C_JUMP,
    C_JUMP_HEIGHT,
    C_ROTATION,
    C_ROW,
    C_SPEED,
    C_TAKEN,
    C_TURN_W,
    LANES,
    T_ACTIVE,
    T_BODY,
    T_BOUNDS,
    T_CAND,
    T_CARRIED,
    T_CURRENT,
    T_DONE,
    T_DRAG_HEIGHT,
    T_PATH,
    T_QUIET,
    T_REST,
    T_ROW,
    T_ROW_ENERGY,
    T_ROW_JUMP,
    T_ROW_ROTATION,
    T_ROW_SPEED,
    T_STATE,
    T_VISITS,
    _welford_lane,
    team_jumps,
    team_lanes,
)
from tumble.rockfall.ensemble.record import (
    N_QUANTITIES,
    Q_ENERGY,
    Q_JUMP,
    Q_ROTATION,
    Q_SPEED,
    R_CONTACT_STEPS,
    R_CROSSINGS,
    R_PGS_CAPS,
    R_STATUS,
    R_STEPS,
    R_VISITS,
    _write_row,
    carried_start,
    end_rock,
    record_step,
)
from tumble.rockfall.soil import DRAG_HEIGHT
from tumble.rockfall.status import OK, RUNNING, TIMED_OUT
from tumble.rockfall.step.buffers import (
    B_DQ,
    B_TURN_W,
    D_CAPPED,
    D_CONTACTS,
    N_BOUNDS,
    N_DIAG,
    reset_bounds,
)
from tumble.rockfall.step.contact import NCOL, forget_percussions
from tumble.rockfall.step.model import (
    IMPLICIT,
    O_DT,
    O_GAP_TOL,
    O_GRAVITY,
    O_SCHEME,
    S_R,
    STATE_SIZE,
)
from tumble.rockfall.step.moreau import rock_step
from tumble.rockfall.step.stepping import kinetic_energy, stopping_rules
from tumble.rockfall.step.surface import bilinear_uv
from tumble.rockfall.step.trees import MODE_NONE, P_MODE

#: a lane's integers in :func:`run_team` beside the rows of its team (the rock in the lane, -1
#: none; its contact steps, capped solutions, status, hull vertices and soil row)
I_ROCK, I_CONTACT_STEPS, I_CAPS, I_STATUS, I_VERTICES, I_SOIL = range(6)
N_LANE_INTS = 6

#: what :func:`run_team` adds to its ``probe`` (int64) when it is given one: the cycles
#: (:data:`tumble._jit.cycles`) of the whole team, of the lanes' part of its steps
#: (:func:`~tumble.rockfall.ensemble.lanes.team_lanes`, the heights it needs and
#: :func:`~tumble.rockfall.ensemble.lanes.team_jumps`), of the steps left to :func:`_lane_step`
#: with a closed contact and without one (each with its bookkeeping); the team steps, the lanes
#: that held a moving rock summed over them, and the steps taken in the lanes, with a contact
#: and without one that :func:`_lane_step` took
P_TOTAL, P_LANES, P_CONTACT, P_FLIGHT = range(4)
P_TEAM_STEPS, P_ACTIVE, P_N_TAKEN, P_N_CONTACT, P_N_FLIGHT = range(4, 9)
N_PROBE = 9


@jit(inline="always")
def _lane_state(team: np.ndarray, lane: int) -> np.ndarray:
    """The state rows of a lane of a team (a strided view)."""
    return team[T_STATE * LANES + lane : (T_STATE + STATE_SIZE) * LANES : LANES]


@jit(inline="always")
def _lane_bounds(team: np.ndarray, lane: int) -> np.ndarray:
    """The bounds rows of a lane of a team (a strided view)."""
    return team[T_BOUNDS * LANES + lane : (T_BOUNDS + N_BOUNDS) * LANES : LANES]


@jit(inline="always")
def _lane_carried(team: np.ndarray, lane: int) -> tuple:
    """A lane's values of :func:`record_step`, from its rows (``T_CARRIED`` onwards)."""
    c = T_CARRIED * LANES + lane
    rock = (team[c], team[c + LANES], team[c + 2 * LANES], team[c + 3 * LANES], team[c + 4 * LANES])
    c += 5 * LANES
    row = int(team[c])
    visit = (row, team[c + LANES], team[c + 2 * LANES], team[c + 3 * LANES], team[c + 4 * LANES])
    c += 5 * LANES
    touched = team[c] != 0.0
    place = (touched, int(team[c + LANES]), int(team[c + 2 * LANES]), int(team[c + 3 * LANES]))
    return rock, visit, place


@jit(inline="always")
def _set_lane_carried(team: np.ndarray, lane: int, carried: tuple) -> None:
    """A lane's values of :func:`record_step` into its rows."""
    c = T_CARRIED * LANES + lane
    rock, visit, place = carried
    for i in range(5):
        team[c + i * LANES] = rock[i]
    row, row_energy, row_speed, row_rotation, row_jump = visit
    team[c + 5 * LANES] = row
    team[c + 6 * LANES] = row_energy
    team[c + 7 * LANES] = row_speed
    team[c + 8 * LANES] = row_rotation
    team[c + 9 * LANES] = row_jump
    touched, visits, countdown, current = place
    team[c + 10 * LANES] = 1.0 if touched else 0.0
    team[c + 11 * LANES] = visits
    team[c + 12 * LANES] = countdown
    team[c + 13 * LANES] = current


@jit_leaf
def _start_lane(
    lane: int, k: int, buffers: tuple, chunk: tuple, rules: tuple, states: np.ndarray
) -> None:
    """Rock ``k`` into ``lane`` of a team: what :func:`run_rocks` and the start of
    :func:`run_one` do for a rock, into the lane's rows (the arguments of :func:`run_team`)."""
    team, li, vertices, contacts, diag = buffers
    heights, grid, soil_values, soil_index, _, soil_row = chunk[:6]
    shape_vertices, shape_counts, _, shape_id, scale, bodies = chunk[6:]
    n_steps, rest_speed, _, sample_every = rules
    s = shape_id[k]
    m = shape_counts[s]
    for a in range(m):
        for b in range(3):
            vertices[lane, a, b] = shape_vertices[s, a, b] * scale[k]
        for c in range(NCOL):
            contacts[lane, a, c] = 0.0
    for c in range(N_DIAG):
        diag[lane, c] = 0.0
    state = _lane_state(team, lane)
    for c in range(STATE_SIZE):
        state[c] = states[k, c]
    for c in range(4):
        team[(T_BODY + c) * LANES + lane] = bodies[k, c]
    row = soil_row[k]
    # the drag layer's height where it is one number (a raster's: no flight in the lanes)
    if soil_index[row, DRAG_HEIGHT] < 0:
        team[T_DRAG_HEIGHT * LANES + lane] = soil_values[row, DRAG_HEIGHT]
    else:
        team[T_DRAG_HEIGHT * LANES + lane] = math.inf
    forget_percussions(contacts[lane, :m])
    for c in range(3 * N_QUANTITIES):
        team[(T_PATH + c) * LANES + lane] = 0.0
    z, inside = bilinear_uv(
        heights, (state[S_R] - grid[0]) / grid[2], (state[S_R + 1] - grid[1]) / grid[3]
    )
    drop = state[S_R + 2] - z if inside else -math.inf
    _set_lane_carried(team, lane, carried_start(drop, sample_every))
    team[T_REST * LANES + lane] = 0.5 * bodies[k, 0] * rest_speed * rest_speed
    team[T_DONE * LANES + lane] = 0.0
    team[T_QUIET * LANES + lane] = 0.0
    status = RUNNING if n_steps > 0 else TIMED_OUT
    team[T_ACTIVE * LANES + lane] = 1.0 if status == RUNNING else 0.0
    li[lane, I_ROCK] = k
    li[lane, I_CONTACT_STEPS] = 0
    li[lane, I_CAPS] = 0
    li[lane, I_STATUS] = status
    li[lane, I_VERTICES] = m
    li[lane, I_SOIL] = row
    reset_bounds(_lane_bounds(team, lane), vertices[lane, :m], bodies[k])


@jit_leaf
def _finish_lane(lane: int, team: np.ndarray, li: np.ndarray, outputs: tuple) -> None:
    """The end of the rock in ``lane``: the end of :func:`run_one` and the copies of
    :func:`run_rocks`; the lane is then empty."""
    states, maxima, path, _, visit_value, counts = outputs
    k = li[lane, I_ROCK]
    visits = end_rock(maxima[k], visit_value[k], _lane_carried(team, lane))
    counts[k, R_STATUS] = li[lane, I_STATUS]
    counts[k, R_STEPS] = int(team[T_DONE * LANES + lane])
    counts[k, R_CONTACT_STEPS] = li[lane, I_CONTACT_STEPS]
    counts[k, R_PGS_CAPS] = li[lane, I_CAPS]
    counts[k, R_VISITS] = visits
    counts[k, R_CROSSINGS] = 0
    for q in range(N_QUANTITIES):
        for c in range(3):
            path[k, q, c] = team[(T_PATH + 3 * q + c) * LANES + lane]
    state = _lane_state(team, lane)
    for c in range(STATE_SIZE):
        states[k, c] = state[c]
    li[lane, I_ROCK] = -1
    team[T_ACTIVE * LANES + lane] = 0.0


@jit(inline="always")
def _lane_step(
    lane: int,
    buffers: tuple,
    chunk: tuple,
    rules: tuple,
    visit_cell: np.ndarray,
    visit_value: np.ndarray,
) -> None:
    """A step of the rock in ``lane`` that :func:`tumble.rockfall.ensemble.lanes.team_lanes` did
    not take: its flight from the team's candidate rows, any other step by
    :func:`tumble.rockfall.step.moreau.rock_step`, then :func:`run_one`'s bookkeeping on the
    lane's rows (the same operations in the same order)."""
    team, li, vertices, contacts, diag = buffers
    heights, grid, soil_values, soil_index, soil_rasters = chunk[:5]
    options, bodies = chunk[8], chunk[11]
    n_steps, _, rest_steps, sample_every = rules
    k = li[lane, I_ROCK]
    state = _lane_state(team, lane)
    bounds = _lane_bounds(team, lane)
    if team[C_FLIGHT * LANES + lane] == 1.0:
        for c in range(STATE_SIZE):
            state[c] = team[(T_CAND + c) * LANES + lane]
        for c in range(4):
            bounds[B_DQ + c] = team[(C_DQ + c) * LANES + lane]
        for c in range(3):
            bounds[B_TURN_W + c] = team[(C_TURN_W + c) * LANES + lane]
        diag[lane, D_CONTACTS] = 0.0
        diag[lane, D_CAPPED] = 0.0
        code = OK
    else:
        m = li[lane, I_VERTICES]
        row = li[lane, I_SOIL]
        code = rock_step(
            heights,
            grid,
            soil_values[row],
            soil_index[row],
            soil_rasters,
            vertices[lane, :m],
            bodies[k],
            options,
            state,
            contacts[lane, :m],
            diag[lane],
            bounds,
        )
    energy = kinetic_energy(bodies[k], state)
    done = int(team[T_DONE * LANES + lane])
    quiet = int(team[T_QUIET * LANES + lane])
    rest_energy = team[T_REST * LANES + lane]
    status, step, quiet = stopping_rules(
        code, energy, done, quiet, n_steps, rest_energy, rest_steps
    )
    li[lane, I_STATUS] = status
    if status != RUNNING:
        team[T_ACTIVE * LANES + lane] = 0.0
    if step == done:
        return
    team[T_QUIET * LANES + lane] = quiet
    team[T_DONE * LANES + lane] = step
    flying = diag[lane, D_CONTACTS] == 0.0
    if not flying:
        li[lane, I_CONTACT_STEPS] += 1
    li[lane, I_CAPS] += int(diag[lane, D_CAPPED])
    carried = _lane_carried(team, lane)
    visits_out = (visit_cell[k], visit_value[k])
    carried, sample, speed, rotation, jump = record_step(
        (heights, grid), state, bounds, flying, energy, carried, visits_out, sample_every
    )
    _set_lane_carried(team, lane, carried)
    if sample and energy > rest_energy:
        _welford_lane(team, lane, Q_ENERGY, energy)
        _welford_lane(team, lane, Q_SPEED, math.sqrt(speed))
        _welford_lane(team, lane, Q_ROTATION, math.sqrt(rotation) / (2.0 * math.pi))
        if jump > -math.inf:
            _welford_lane(team, lane, Q_JUMP, jump)


@jit(inline="always")
def _new_visit(
    lane: int,
    k: int,
    cell: int,
    team: np.ndarray,
    li: np.ndarray,
    visit_cell: np.ndarray,
    visit_value: np.ndarray,
) -> None:
    """A step taken in the lanes that entered another cell: :func:`run_one`'s end of the
    current visit and start of the next one (its first values those of the step)."""
    team[T_CURRENT * LANES + lane] = cell
    row = int(team[T_ROW * LANES + lane])
    if row >= 0:
        _write_row(
            visit_value[k],
            row,
            team[T_ROW_ENERGY * LANES + lane],
            team[T_ROW_SPEED * LANES + lane],
            team[T_ROW_ROTATION * LANES + lane],
            team[T_ROW_JUMP * LANES + lane],
        )
        team[T_ROW * LANES + lane] = -1.0
    if cell >= 0:
        visits = int(team[T_VISITS * LANES + lane])
        if visits < visit_cell.shape[1]:
            visit_cell[k, visits] = cell
            team[T_ROW * LANES + lane] = visits
            team[T_ROW_ENERGY * LANES + lane] = team[C_ENERGY * LANES + lane]
            team[T_ROW_SPEED * LANES + lane] = team[C_SPEED * LANES + lane]
            team[T_ROW_ROTATION * LANES + lane] = team[C_ROTATION * LANES + lane]
            team[T_ROW_JUMP * LANES + lane] = team[C_JUMP_HEIGHT * LANES + lane]
        team[T_VISITS * LANES + lane] = visits + 1


@jit_leaf
def run_team(
    chunk: tuple,
    rules: tuple[int, float, int, int],
    outputs: tuple,
    counter: np.ndarray,
    axis: int,
    buffers: tuple,
    probe: np.ndarray | None = None,
) -> None:
    """The rocks of a chunk, taken from ``counter``, run in a team of ``LANES`` at once: at every
    step the team's free flights are taken in SIMD lanes
    (:func:`tumble.rockfall.ensemble.lanes.team_lanes`, :func:`~.lanes.team_jumps`), every other
    step lane by lane (:func:`_lane_step`), so that each rock's numbers are those of
    :func:`run_one`. For a run without barriers or forest, with the implicit scheme, of rocks
    symmetric about ``axis``. The arguments of :func:`run_rocks` come as ``chunk = (heights,
    grid, soil_values, soil_index, soil_rasters, soil_row, shape_vertices, shape_counts,
    options, shape_id, scale, bodies)``, ``rules = (n_steps, rest_speed, rest_steps,
    sample_every)`` and ``outputs = (states, maxima, path, visit_cell, visit_value, counts)``;
    ``buffers`` are the team's (``team, li, vertices, contacts, diag``). ``probe``: an int64
    array of ``N_PROBE`` to which the team adds its cycles and steps by kind (``P_*``), or None
    (the kernel as runs take it: the probe's code is compiled out, the numbers are the same
    either way)."""
    team, li = buffers[0], buffers[1]
    if probe is not None:
        start = cycles()
    heights, grid, options = chunk[0], chunk[1], chunk[8]
    n_steps, _, rest_steps, sample_every = rules
    visit_cell, visit_value = outputs[3], outputs[4]
    n = outputs[0].shape[0]
    dt = options[O_DT]
    gravity = options[O_GRAVITY]
    gap_tol = options[O_GAP_TOL]
    box = (grid[0], grid[1], grid[2], grid[3])
    params = (dt, gravity, gap_tol, box, heights.shape[1], heights.shape[0], n_steps, rest_steps)
    active = 0
    for lane in range(LANES):
        li[lane, I_ROCK] = -1
        team[T_ACTIVE * LANES + lane] = 0.0
    while True:
        # empty lanes take the next rocks (a rock that cannot start ends at once)
        for lane in range(LANES):
            while li[lane, I_ROCK] < 0:
                k = take(counter)
                if k >= n:
                    break
                _start_lane(lane, k, buffers, chunk, rules, outputs[0])
                if li[lane, I_STATUS] == RUNNING:
                    active += 1
                else:
                    _finish_lane(lane, team, li, outputs)
        if active == 0:
            break
        if probe is not None:
            probe[P_TEAM_STEPS] += 1
            probe[P_ACTIVE] += active
            t0 = cycles()
        team_lanes(team, params, axis)
        # the four heights of the cell under each taken step that needs its jump height
        for lane in range(LANES):
            column = int(team[C_COLUMN * LANES + lane])
            if (
                team[C_TAKEN * LANES + lane] == 1.0
                and team[C_JUMP * LANES + lane] == 1.0
                and column >= 0
            ):
                row = int(team[C_ROW * LANES + lane])
                team[C_HEIGHTS * LANES + lane] = heights[row, column]
                team[(C_HEIGHTS + 1) * LANES + lane] = heights[row, column + 1]
                team[(C_HEIGHTS + 2) * LANES + lane] = heights[row + 1, column]
                team[(C_HEIGHTS + 3) * LANES + lane] = heights[row + 1, column + 1]
        team_jumps(team, sample_every)
        if probe is not None:
            probe[P_LANES] += cycles() - t0
        for lane in range(LANES):
            k = li[lane, I_ROCK]
            if k < 0:
                continue
            if team[C_TAKEN * LANES + lane] == 1.0:
                if probe is not None:
                    probe[P_N_TAKEN] += 1
                cell = int(team[C_CELL * LANES + lane])
                if cell != int(team[T_CURRENT * LANES + lane]):
                    _new_visit(lane, k, cell, team, li, visit_cell, visit_value)
                continue
            if probe is not None:
                done = team[T_DONE * LANES + lane]
                t0 = cycles()
            _lane_step(lane, buffers, chunk, rules, visit_cell, visit_value)
            if probe is not None:
                spent = cycles() - t0
                stepped = team[T_DONE * LANES + lane] != done
                if buffers[4][lane, D_CONTACTS] == 0.0:
                    probe[P_FLIGHT] += spent
                    probe[P_N_FLIGHT] += stepped
                else:
                    probe[P_CONTACT] += spent
                    probe[P_N_CONTACT] += stepped
            if li[lane, I_STATUS] != RUNNING:
                _finish_lane(lane, team, li, outputs)
                active -= 1
    if probe is not None:
        probe[P_TOTAL] += cycles() - start


@jit_leaf
def lane_axis(
    bodies: np.ndarray, options: np.ndarray, nets: tuple[np.ndarray, ...], forest: tuple
) -> int:
    """The axis about which every rock of a chunk (``bodies`` (n, 4)) is symmetric when the
    chunk can run in teams (:func:`run_team`: the implicit scheme, no barrier, no forest), else
    -1."""
    n = bodies.shape[0]
    if (
        n == 0
        or int(options[O_SCHEME]) != IMPLICIT
        or nets[5].shape[0] > 0
        or forest[0][P_MODE] != MODE_NONE
    ):
        return -1
    axis = symmetry_axes((bodies[0, 1], bodies[0, 2], bodies[0, 3]))[0]
    for k in range(n):
        if symmetry_axes((bodies[k, 1], bodies[k, 2], bodies[k, 3]))[0] != axis:
            return -1
    return axis
