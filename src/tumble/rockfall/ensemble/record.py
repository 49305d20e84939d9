"""What the ensemble kernel records of each rock, and the bookkeeping of one step that records it.

Every rock writes only its own outputs (:mod:`tumble.rockfall.ensemble.kernels`):

* status, steps, the final state, the number of steps with a closed contact and of Gauss-Seidel
  iterations that hit their cap (``R_*`` columns of the per-rock integers);
* per-rock maxima over all steps of the kinetic energy (translation plus rotation, J), the speed
  (m/s), the rotational velocity (``|omega| / 2 pi``, rot/s) and the jump height (the centre of
  mass above the terrain below it, after steps without a closed contact that follow the rock's
  first contact with the terrain, m), and the release drop (``M_DROP``: the largest height of
  the centre of mass above the terrain from the release, its own state included, to the first
  step with a closed contact, m). The fall from the release point is not a jump: a rock
  released 10 m above a slope whose bounces reach 2 m has a jump height of 2 m and a release
  drop of 10 m;
* path statistics: count, mean and sum of squared deviations (Welford, ``W_*``) of the same four
  quantities over the samples every ``sample_every`` steps while the rock moves (kinetic energy
  above the rest threshold), the jump height over the samples in flight after the first
  contact only;
* its cell visits: the DEM cell (nearest sample, i.e. the GeoTIFF pixel) of the centre of mass
  after every step, with the four maxima while it stays there (the jump height, as above, only
  after the first contact); a new visit starts when it moves to another cell. Visits beyond the
  buffer are counted, not stored (the driver runs such a rock again with a buffer of the right
  size).

:func:`record_step` does this after each step on the values a rock carries from step to step
(:func:`carried_start`) and :func:`end_rock` writes them at its end: one code for the rock at a
time of :func:`tumble.rockfall.ensemble.kernels.run_one` and the teams of
:mod:`tumble.rockfall.ensemble.teams`.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit, jit_leaf
from tumble.rockfall.step.buffers import B_GX, B_GY, B_HALF, B_LOW, B_X, B_Y
from tumble.rockfall.step.model import S_OMEGA, S_R, S_V
from tumble.rockfall.step.surface import bilinear_uv, sample_cell

#: columns of the per-rock maxima, the path statistics and the cell visits
Q_ENERGY, Q_SPEED, Q_ROTATION, Q_JUMP = range(4)
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
