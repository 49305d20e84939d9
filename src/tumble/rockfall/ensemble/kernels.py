"""The compiled per-rock loop of an ensemble: one kernel over the rocks of a chunk.

:func:`run_rocks` is one compiled kernel whose threads take the rocks of a chunk one at a time
from a shared counter; each rock allocates its buffers once (vertices, contacts, diagnostics,
the state before a step near a barrier, the terrain bounds of its flights, the rows it writes at
every step) and hands them to :func:`run_one`, which is compiled without numba's reference
counting (it allocates nothing): the step inlined into its loop would otherwise take and
release a reference to each of its dozen arrays at every step, atomic operations that took 14
of the 94 ns of a flight on ``slope40``. It calls
:func:`tumble.rockfall.step.moreau.rock_step` until the rock stops, leaves the DEM, fails or reaches
``t_max``, with the stopping rules of :func:`tumble.rockfall.simulate`
(:func:`tumble.rockfall.step.stepping.stopping_rules`; so rock k of an ensemble is bit-identical to
``simulate`` of the same rock). Every rock writes only its own outputs (:func:`run_one`):

* status, steps, the final state, the number of steps with a closed contact and of Gauss-Seidel
  iterations that hit their cap;
* per-rock maxima over all steps of the kinetic energy (translation plus rotation, J), the speed
  (m/s), the rotational velocity (``|omega| / 2 pi``, rot/s) and the jump height (the centre of
  mass above the terrain below it, after steps without a closed contact that follow the rock's
  first contact with the terrain, m), and the release drop (``M_DROP``: the largest height of
  the centre of mass above the terrain from the release, its own state included, to the first
  step with a closed contact, m). The fall from the release point is not a jump: a rock
  released 10 m above a slope whose bounces reach 2 m has a jump height of 2 m and a release
  drop of 10 m;
* path statistics: count, mean and sum of squared deviations (Welford) of the same four
  quantities over the samples every ``sample_every`` steps while the rock moves (kinetic energy
  above the rest threshold), the jump height over the samples in flight after the first
  contact only;
* its cell visits: the DEM cell (nearest sample, i.e. the GeoTIFF pixel) of the centre of mass after
  every step, with the four maxima while it stays there (the jump height, as above, only after the
  first contact); a new visit starts when it moves to another cell. Visits beyond the buffer are
  counted, not stored (the driver runs such a rock again with a buffer of the right size).

Nothing is accumulated across rocks inside the parallel loop, so the results do not depend on
the number of threads.

A run with the implicit scheme, without barriers or forest, of rocks symmetric about one axis
runs in teams instead (:func:`run_team`): each thread steps
:data:`tumble.rockfall.ensemble.lanes.LANES` rocks together, takes their free flights and the
bookkeeping of those in SIMD lanes (:mod:`tumble.rockfall.ensemble.lanes`) and every other step
lane by lane as :func:`run_one` would, so that each rock's numbers are :func:`run_one`'s bit
for bit.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit, jit_leaf, jit_parallel, prange, take
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
    N_TEAM,
    Q_ENERGY,
    Q_JUMP,
    Q_ROTATION,
    Q_SPEED,
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
from tumble.rockfall.soil import DRAG_HEIGHT
from tumble.rockfall.status import CAUGHT, OK, RUNNING, TIMED_OUT
from tumble.rockfall.step.contact import NCOL, forget_percussions
from tumble.rockfall.step.model import (
    IMPLICIT,
    O_DT,
    O_GAP_TOL,
    O_GRAVITY,
    O_SCHEME,
    S_OMEGA,
    S_R,
    S_V,
    STATE_SIZE,
)
from tumble.rockfall.step.moreau import (
    B_DQ,
    B_GX,
    B_GY,
    B_HALF,
    B_LOW,
    B_TURN_W,
    B_X,
    B_Y,
    D_CAPPED,
    D_CONTACTS,
    N_BOUNDS,
    N_DIAG,
    reset_bounds,
    rock_step,
)
from tumble.rockfall.step.nets import cross_barriers, near_point, step_reach
from tumble.rockfall.step.stepping import kinetic_energy, stopping_rules
from tumble.rockfall.step.surface import bilinear_uv, sample_cell
from tumble.rockfall.step.trees import MODE_NONE, P_MODE, start_forest, trees_step

#: columns of the per-rock maxima, the path statistics and the cell visits (Q_ENERGY, Q_SPEED,
#: Q_ROTATION, Q_JUMP, from lanes)
N_QUANTITIES = 4
QUANTITIES = ("kinetic_energy", "velocity", "rotational_velocity", "jump_height")
#: and a last column of the per-rock maxima only: the release drop (module docstring)
M_DROP = 4
N_MAXIMA = 5
#: Welford accumulators of the path statistics: count, mean, sum of squared deviations
W_COUNT, W_MEAN, W_M2 = range(3)

#: per-rock integer outputs of the kernel
R_STATUS, R_STEPS, R_CONTACT_STEPS, R_PGS_CAPS, R_VISITS, R_CROSSINGS = range(6)
N_ROCK_INTS = 6


@jit_leaf
def _welford(acc: np.ndarray, q: int, x: float) -> None:
    n = acc[q, W_COUNT] + 1.0
    delta = x - acc[q, W_MEAN]
    acc[q, W_COUNT] = n
    acc[q, W_MEAN] += delta / n
    acc[q, W_M2] += delta * (x - acc[q, W_MEAN])


@jit_leaf
def _root(square: float, scale: float) -> float:
    """``sqrt(square) / scale``; -inf (no value) stays -inf."""
    if square == -math.inf:
        return square
    return math.sqrt(square) / scale


@jit(inline="always")
def _write_row(
    visit_value: np.ndarray, row: int, energy: float, speed: float, rotation: float, jump: float
) -> None:
    """The maxima of a finished cell visit into its row."""
    visit_value[row, Q_ENERGY] = energy
    visit_value[row, Q_SPEED] = speed
    visit_value[row, Q_ROTATION] = rotation
    visit_value[row, Q_JUMP] = jump


@jit(inline="always")
def record_step(
    terrain: tuple[np.ndarray, np.ndarray],
    state: np.ndarray,
    bounds: np.ndarray,
    flying: bool,
    energy: float,
    carried: tuple,
    visits_out: tuple[np.ndarray, np.ndarray],
    sample_every: int,
) -> tuple:
    """The bookkeeping of one step taken (the state after it, ``flying`` without a closed
    contact, its kinetic energy ``energy``; ``terrain`` the DEM's ``(heights, grid)``, the
    visits written to ``visits_out = (visit_cell, visit_value)``): the maxima of the rock and
    of its current cell visit, the jump height, the release drop and the visits (module
    docstring), on the values the rock carries from step to step (:func:`carried_start`):

    * ``(max_energy, max_speed, max_rotation, max_jump, max_drop)``, the speed and rotation
      rate squared (their maxima are taken on the squares and the roots drawn once at the end:
      the same numbers, sqrt being monotonic and exact);
    * ``(row, row_energy, row_speed, row_rotation, row_jump)``, the row of the current visit
      (-1 none) and its maxima;
    * ``(touched, visits, countdown, current)``: the rock has touched the terrain, its visits,
      the steps to its next path sample, its current cell.

    Returns ``(carried, sample, speed, rotation, jump)``; ``sample`` True when a path sample is
    due (every ``sample_every`` steps; the caller takes it when the rock moves)."""
    (max_energy, max_speed, max_rotation, max_jump, max_drop), visit, place = carried
    row, row_energy, row_speed, row_rotation, row_jump = visit
    touched, visits, countdown, current = place
    heights, grid = terrain
    visit_cell, visit_value = visits_out
    ny = heights.shape[0]
    nx = heights.shape[1]
    capacity = visit_cell.shape[0]
    speed = (
        state[S_V] * state[S_V] + state[S_V + 1] * state[S_V + 1] + state[S_V + 2] * state[S_V + 2]
    )
    rotation = (
        state[S_OMEGA] * state[S_OMEGA]
        + state[S_OMEGA + 1] * state[S_OMEGA + 1]
        + state[S_OMEGA + 2] * state[S_OMEGA + 2]
    )
    # the grid coordinates of the centre of mass, for its height and its pixel
    u = (state[S_R] - grid[0]) / grid[2]
    v = (state[S_R + 1] - grid[1]) / grid[3]
    cell = sample_cell(nx, ny, u, v)
    jump = -math.inf
    if not flying:
        touched = True
    elif touched:
        # the height of _height (simulate's), without the normal; taken unless the plane
        # below the terrain of the step's cached bound (B_LOW) shows that it can change
        # neither the maxima it would update nor anything else: in the same visit, not
        # before a path sample, and no higher than the visit's (or the rock's) largest
        off_x = state[S_R] - bounds[B_X]
        off_y = state[S_R + 1] - bounds[B_Y]
        need = True
        if (
            cell == current
            and countdown != 1
            and abs(off_x) <= bounds[B_HALF]
            and abs(off_y) <= bounds[B_HALF]
        ):
            cap = state[S_R + 2] - (bounds[B_LOW] + bounds[B_GX] * off_x + bounds[B_GY] * off_y)
            need = cap > (row_jump if row >= 0 else max_jump)
        if need:
            z, inside = bilinear_uv(heights, u, v)
            if inside:
                jump = state[S_R + 2] - z
    else:
        # the fall from the release, before the first contact: the release drop
        z, inside = bilinear_uv(heights, u, v)
        if inside:
            max_drop = max(max_drop, state[S_R + 2] - z)
    max_energy = max(max_energy, energy)
    max_speed = max(max_speed, speed)
    max_rotation = max(max_rotation, rotation)
    max_jump = max(max_jump, jump)
    # cell visits
    if cell != current:
        current = cell
        if row >= 0:
            _write_row(visit_value, row, row_energy, row_speed, row_rotation, row_jump)
            row = -1
        if cell >= 0:
            if visits < capacity:
                visit_cell[visits] = cell
                row = visits
                row_energy = energy
                row_speed = speed
                row_rotation = rotation
                row_jump = jump
            visits += 1
    elif row >= 0:
        row_energy = max(row_energy, energy)
        row_speed = max(row_speed, speed)
        row_rotation = max(row_rotation, rotation)
        row_jump = max(row_jump, jump)
    countdown -= 1
    sample = countdown == 0
    if sample:
        countdown = sample_every
    rock = (max_energy, max_speed, max_rotation, max_jump, max_drop)
    visit = (row, row_energy, row_speed, row_rotation, row_jump)
    return (rock, visit, (touched, visits, countdown, current)), sample, speed, rotation, jump


@jit(inline="always")
def carried_start(drop: float, sample_every: int) -> tuple:
    """The values of :func:`record_step` before a rock's first step: no maxima yet, the release
    drop ``drop`` (the height at the release, -inf off the DEM), no visit, not touched, the
    first path sample ``sample_every`` steps away."""
    inf = math.inf
    return (
        (-inf, -inf, -inf, -inf, drop),
        (-1, -inf, -inf, -inf, -inf),
        (False, 0, sample_every, -2),
    )


@jit(inline="always")
def end_rock(maxima: np.ndarray, visit_value: np.ndarray, carried: tuple) -> int:
    """The end of a rock from its values of :func:`record_step`: the open visit's row, the
    rock's maxima (energy, speed, rotation rate, jump, release drop; ``N_MAXIMA``) and the roots
    of the squared maxima of the rock and of every stored visit (rotation rate in rot/s).
    Returns the number of the rock's visits."""
    two_pi = 2.0 * math.pi
    rock, visit, place = carried
    if visit[0] >= 0:
        _write_row(visit_value, visit[0], visit[1], visit[2], visit[3], visit[4])
    maxima[Q_ENERGY] = rock[0]
    maxima[Q_JUMP] = rock[3]
    maxima[M_DROP] = rock[4]
    maxima[Q_SPEED] = _root(rock[1], 1.0)
    maxima[Q_ROTATION] = _root(rock[2], two_pi)
    visits = place[1]
    for v in range(min(visits, visit_value.shape[0])):
        visit_value[v, Q_SPEED] = _root(visit_value[v, Q_SPEED], 1.0)
        visit_value[v, Q_ROTATION] = _root(visit_value[v, Q_ROTATION], two_pi)
    return visits


@jit_leaf
def run_one(
    model: tuple[np.ndarray, ...],
    state: np.ndarray,
    contacts: np.ndarray,
    diag: np.ndarray,
    prev: np.ndarray,
    bounds: np.ndarray,
    n_steps: int,
    rest_energy: float,
    rest_steps: int,
    sample_every: int,
    out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    nets: tuple[np.ndarray, ...],
    crossings: np.ndarray,
    forest: tuple[np.ndarray, ...],
    trees: tuple[float, np.uint64, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Run one rock to its end, writing its maxima, path statistics and cell visits.

    ``model`` is the kernel tuple of :mod:`tumble.rockfall.step.moreau`; the stepping and the
    stopping rules are those of :func:`tumble.rockfall.step.stepping.run_rock` (both end with
    :func:`tumble.rockfall.step.stepping.stopping_rules`). ``out`` holds the rock's own outputs
    ``(maxima (N_MAXIMA,), path (4, 3), visit_cell (cap,), visit_value (cap, 4), counts
    (N_ROCK_INTS,))``; visits beyond the capacity are counted but not stored. ``nets``: the
    barrier tuple of :mod:`tumble.rockfall.step.nets`; the rock's crossings go to ``crossings``
    (cap, N_XCOLS), those beyond its capacity counted but not stored; a net may catch the rock
    (status ``CAUGHT``). ``forest``: the stems of :mod:`tumble.rockfall.step.trees`; ``trees``
    the rock's ``(diameter, key, fstate, broken, impact_cell)`` there (its impacts go to
    ``fstate`` and ``impact_cell``).
    """
    heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options = model
    maxima, path, visit_cell, visit_value, counts = out
    f_params = forest[0]
    key, fstate = trees[1], trees[2]
    has_forest = f_params[P_MODE] != MODE_NONE
    if has_forest:
        start_forest(state, key, fstate)
    two_pi = 2.0 * math.pi
    forget_percussions(contacts)
    for q in range(N_QUANTITIES):
        maxima[q] = -math.inf
        for c in range(3):
            path[q, c] = 0.0
    # the release drop starts with the height at the release; jumps count once the rock has
    # touched the terrain (touched)
    z, inside = bilinear_uv(
        heights, (state[S_R] - grid[0]) / grid[2], (state[S_R + 1] - grid[1]) / grid[3]
    )
    # the maxima of the rock and of its current visit, its visits and samples are carried from
    # step to step (record_step) and written once at the end
    carried = carried_start(state[S_R + 2] - z if inside else -math.inf, sample_every)
    contact_steps = 0
    caps = 0
    status = RUNNING if n_steps > 0 else TIMED_OUT
    done = 0
    quiet = 0
    # the bounding boxes of the barriers, tested here on scalars: a call that passed the
    # barrier arrays every step would pay numba's reference counting of each of them, so
    # cross_barriers runs only after steps that start near a barrier
    bbox = nets[5]
    n_barriers = bbox.shape[0]
    has_nets = n_barriers > 0
    reach = step_reach(options[O_DT])
    n_cross = 0
    dt = options[O_DT]
    reset_bounds(bounds, vertices, body)
    while status == RUNNING:
        armed = has_nets and near_point(bbox, n_barriers, state[S_R], state[S_R + 1], reach)
        if armed:
            for i in range(STATE_SIZE):
                prev[i] = state[i]
        code = rock_step(
            heights,
            grid,
            soil_values,
            soil_index,
            soil_rasters,
            vertices,
            body,
            options,
            state,
            contacts,
            diag,
            bounds,
        )
        if has_forest and code == OK:
            trees_step(forest, trees, heights, grid, state, body[0])
        energy = kinetic_energy(body, state)
        status, step, quiet = stopping_rules(
            code, energy, done, quiet, n_steps, rest_energy, rest_steps
        )
        if step == done:
            break
        if armed:
            n_cross, caught = cross_barriers(
                nets, heights, grid, vertices, body, prev, state, step, dt, crossings, n_cross
            )
            if caught:
                status = CAUGHT
        done = step
        flying = diag[D_CONTACTS] == 0.0
        if not flying:
            contact_steps += 1
        caps += int(diag[D_CAPPED])
        carried, sample, speed, rotation, jump = record_step(
            (heights, grid),
            state,
            bounds,
            flying,
            energy,
            carried,
            (visit_cell, visit_value),
            sample_every,
        )
        # path samples of the moving rock, every sample_every-th step
        if sample and energy > rest_energy:
            _welford(path, Q_ENERGY, energy)
            _welford(path, Q_SPEED, math.sqrt(speed))
            _welford(path, Q_ROTATION, math.sqrt(rotation) / two_pi)
            if jump > -math.inf:
                _welford(path, Q_JUMP, jump)
    visits = end_rock(maxima, visit_value, carried)
    counts[R_STATUS] = status
    counts[R_STEPS] = done
    counts[R_CONTACT_STEPS] = contact_steps
    counts[R_PGS_CAPS] = caps
    counts[R_VISITS] = visits
    counts[R_CROSSINGS] = n_cross


#: a lane's integers in :func:`run_team` beside the rows of its team (the rock in the lane, -1
#: none; its contact steps, capped solutions, status, hull vertices and soil row)
I_ROCK, I_CONTACT_STEPS, I_CAPS, I_STATUS, I_VERTICES, I_SOIL = range(6)
N_LANE_INTS = 6


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
    ``buffers`` are the team's (``team, li, vertices, contacts, diag``)."""
    team, li = buffers[0], buffers[1]
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
        for lane in range(LANES):
            k = li[lane, I_ROCK]
            if k < 0:
                continue
            if team[C_TAKEN * LANES + lane] == 1.0:
                cell = int(team[C_CELL * LANES + lane])
                if cell != int(team[T_CURRENT * LANES + lane]):
                    _new_visit(lane, k, cell, team, li, visit_cell, visit_value)
                continue
            _lane_step(lane, buffers, chunk, rules, visit_cell, visit_value)
            if li[lane, I_STATUS] != RUNNING:
                _finish_lane(lane, team, li, outputs)
                active -= 1


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


@jit_parallel
def run_rocks(
    heights: np.ndarray,
    grid: np.ndarray,
    soil_values: np.ndarray,
    soil_index: np.ndarray,
    soil_rasters: np.ndarray,
    soil_row: np.ndarray,
    shape_vertices: np.ndarray,
    shape_counts: np.ndarray,
    options: np.ndarray,
    shape_id: np.ndarray,
    scale: np.ndarray,
    bodies: np.ndarray,
    states: np.ndarray,
    n_steps: int,
    rest_speed: float,
    rest_steps: int,
    sample_every: int,
    maxima: np.ndarray,
    path: np.ndarray,
    visit_cell: np.ndarray,
    visit_value: np.ndarray,
    counts: np.ndarray,
    nets: tuple[np.ndarray, ...],
    crossings: np.ndarray,
    forest: tuple[np.ndarray, ...],
    diameter: np.ndarray,
    keys: np.ndarray,
    fstate: np.ndarray,
    impact_cell: np.ndarray,
    workers: int,
    lanes: bool = True,
) -> None:
    """Run rocks ``0 .. n-1`` of a chunk in parallel (module docstring); ``states`` (n,
    STATE_SIZE) holds the initial states and receives the final ones; ``crossings`` (n, cap,
    N_XCOLS) the barrier crossings of each rock; ``forest`` the stems, ``diameter`` and
    ``keys`` (n,) each rock's size against them and random stream, ``fstate`` (n, N_FOREST)
    and ``impact_cell`` (n, cap) its forest results (:mod:`tumble.rockfall.step.trees`). The
    soil is a table of packed soils (:func:`tumble.rockfall.soil.pack_table`: ``soil_values``,
    ``soil_index`` (r, n_fields), ``soil_rasters`` shared); rock k runs with row
    ``soil_row[k]`` (its drawn parameters, :mod:`tumble.rockfall.site.soil_uncertainty`; one row
    for all rocks without uncertainty).

    ``workers`` threads (at most the threads of the loop, :func:`tumble._jit.get_threads`) take
    the rocks from one shared counter (:func:`tumble._jit.take`), each the next rock as soon as
    it has finished one: rocks differ in cost by orders of magnitude, and a fixed share for
    each thread (numba's static split of a ``prange``) left one idle while the other finished
    its half, 8.6 % of the wall time of two threads on ``slope40``. Which thread runs a rock
    does not change its numbers.

    With ``lanes`` (the default), a run that the SIMD lanes can serve (the implicit scheme, no
    barrier, no forest, every rock with two equal moments about one axis) runs its rocks in
    teams (:func:`run_team`): each thread steps ``LANES`` rocks together, the free flights of
    all of them at once, with the same numbers as :func:`run_one` (which ``lanes=False``
    uses, and every other run)."""
    n_trees = forest[5].shape[0]
    n = states.shape[0]
    counter = np.zeros(1, dtype=np.int64)
    axis = lane_axis(bodies, options, nets, forest)
    teams = lanes and axis >= 0
    for _ in prange(min(workers, n)):
        if teams:
            m_max = shape_vertices.shape[1]
            buffers = (
                np.zeros(N_TEAM * LANES),
                np.zeros((LANES, N_LANE_INTS), dtype=np.int64),
                np.zeros((LANES, m_max, 3)),
                np.zeros((LANES, m_max, NCOL)),
                np.zeros((LANES, N_DIAG)),
            )
            run_team(
                (
                    heights,
                    grid,
                    soil_values,
                    soil_index,
                    soil_rasters,
                    soil_row,
                    shape_vertices,
                    shape_counts,
                    options,
                    shape_id,
                    scale,
                    bodies,
                ),
                (n_steps, rest_speed, rest_steps, sample_every),
                (states, maxima, path, visit_cell, visit_value, counts),
                counter,
                axis,
                buffers,
            )
            continue
        while True:
            k = take(counter)
            if k >= n:
                break
            s = shape_id[k]
            m = shape_counts[s]
            vertices = np.empty((m, 3))
            for a in range(m):
                for b in range(3):
                    vertices[a, b] = shape_vertices[s, a, b] * scale[k]
            contacts = np.zeros((m, NCOL))
            diag = np.zeros(N_DIAG)
            prev = np.empty(STATE_SIZE)
            bounds = np.empty(N_BOUNDS)
            broken = np.zeros(n_trees, dtype=np.bool_)
            # the rows written at every step, in buffers of the rock's own: rocks k and k + 1
            # share cache lines in the output arrays and run on different threads at once
            state = states[k].copy()
            own_maxima = maxima[k].copy()
            own_path = path[k].copy()
            own_counts = counts[k].copy()
            own_fstate = fstate[k].copy()
            rest_energy = 0.5 * bodies[k, 0] * rest_speed * rest_speed
            row = soil_row[k]
            model = (
                heights,
                grid,
                soil_values[row],
                soil_index[row],
                soil_rasters,
                vertices,
                bodies[k],
                options,
            )
            run_one(
                model,
                state,
                contacts,
                diag,
                prev,
                bounds,
                n_steps,
                rest_energy,
                rest_steps,
                sample_every,
                (own_maxima, own_path, visit_cell[k], visit_value[k], own_counts),
                nets,
                crossings[k],
                forest,
                (diameter[k], keys[k], own_fstate, broken, impact_cell[k]),
            )
            states[k] = state
            maxima[k] = own_maxima
            path[k] = own_path
            counts[k] = own_counts
            fstate[k] = own_fstate
