"""The per-rock loop of one rock: :func:`run_rock` steps it with
:func:`tumble.rockfall.step.moreau.rock_step` until :func:`stopping_rules` end it, saving samples.

The ensemble kernel (:mod:`tumble.rockfall.ensemble.kernels`) ends its rocks by the same
:func:`stopping_rules`, so that rock k of an ensemble is bit-identical to
:func:`tumble.rockfall.simulate` of the same rock.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit, jit_leaf
from tumble.rockfall.status import CAUGHT, OK, RUNNING, STOPPED, TIMED_OUT
from tumble.rockfall.step.buffers import (
    D_CAPPED,
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG_WORK,
    D_HEIGHT,
    D_MU,
    D_SWEEPS,
    D_TOUCHED,
    N_BOUNDS,
    N_DIAG,
    reset_bounds,
)
from tumble.rockfall.step.contact import forget_percussions
from tumble.rockfall.step.friction import friction
from tumble.rockfall.step.model import O_DT, S_OMEGA, S_R, S_SLIP, S_V, STATE_SIZE
from tumble.rockfall.step.moreau import rock_step
from tumble.rockfall.step.nets import cross_barriers, near_point, step_reach
from tumble.rockfall.step.surface import surface
from tumble.rockfall.step.trees import MODE_NONE, P_MODE, start_forest, trees_step
from tumble.rotation.vec3 import Vec3


@jit(inline="always")
def kinetic_energy_of(mass: float, inertia: Vec3, v: Vec3, w: Vec3) -> float:
    """``m |v|^2 / 2 + omega . Theta omega / 2`` of a velocity ``v`` and an angular velocity
    ``w`` (principal frame), in the order of operations every kernel uses."""
    t = mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    t += inertia[0] * w[0] * w[0]
    t += inertia[1] * w[1] * w[1]
    t += inertia[2] * w[2] * w[2]
    return 0.5 * t


@jit_leaf
def kinetic_energy(body: np.ndarray, state: np.ndarray) -> float:
    """:func:`kinetic_energy_of` a state vector of a body ``(mass, A, B, C)``."""
    return kinetic_energy_of(
        body[0],
        (body[1], body[2], body[3]),
        (state[S_V], state[S_V + 1], state[S_V + 2]),
        (state[S_OMEGA], state[S_OMEGA + 1], state[S_OMEGA + 2]),
    )


@jit_leaf
def _height(heights: np.ndarray, grid: np.ndarray, state: np.ndarray) -> float:
    z, _, inside = surface(heights, grid[0], grid[1], grid[2], grid[3], state[S_R], state[S_R + 1])
    if not inside:
        return math.nan
    return state[S_R + 2] - z


@jit_leaf
def stopping_rules(
    code: int,
    energy: float,
    steps: int,
    quiet: int,
    n_steps: int,
    rest_energy: float,
    rest_steps: int,
) -> tuple[int, int, int]:
    """The end of a rock after one call of :func:`rock_step`, for every per-rock loop.

    ``code`` is what :func:`rock_step` returned, ``energy`` the kinetic energy of the state after
    it, ``steps`` the steps done before it, ``quiet`` how many of the last of them ended with the
    kinetic energy at or below ``rest_energy``. Returns ``(status, steps, quiet)``: ``RUNNING``
    while the rock moves on; ``STOPPED`` once ``quiet`` reaches ``rest_steps``; ``TIMED_OUT`` when
    ``steps`` reaches ``n_steps``; else ``code`` (``LEFT_DOMAIN`` or a failure), with ``steps``
    unchanged since the step was not taken. On scalars only: a loop that passed its arrays
    through a helper would pay numba's reference counting of them every step.
    """
    if code != OK:
        return code, steps, quiet
    steps += 1
    if energy <= rest_energy:
        quiet += 1
    else:
        quiet = 0
    if quiet >= rest_steps:
        return STOPPED, steps, quiet
    if steps >= n_steps:
        return TIMED_OUT, steps, quiet
    return RUNNING, steps, quiet


@jit
def run_rock(
    model: tuple[np.ndarray, ...],
    state: np.ndarray,
    contacts: np.ndarray,
    n_steps: int,
    save_every: int,
    rest_energy: float,
    rest_steps: int,
    out_step: np.ndarray,
    out_state: np.ndarray,
    out_diag: np.ndarray,
    nets: tuple[np.ndarray, ...],
    crossings: np.ndarray,
    forest: tuple[np.ndarray, ...],
    trees: tuple[float, np.uint64, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[int, int, int, int]:
    """Step one rock until it stops, leaves the DEM, fails or reaches ``n_steps``.

    The rock is at rest (``STOPPED``) once its kinetic energy has stayed at or below
    ``rest_energy`` for ``rest_steps`` consecutive steps (:func:`stopping_rules`). Row 0 of the
    outputs is the initial state; then every ``save_every``-th step and always the final state are
    saved: the step number in ``out_step``, the state in ``out_state`` and the diagnostics in
    ``out_diag`` (``N_SAVED_DIAG`` columns; work summed, sweeps maximal and PGS cap hits counted
    over the steps since the previous row; ``D_TOUCHED`` 1 from the first step with a closed contact
    on, so that the fall from the release is told from the jumps that follow). Barrier crossings
    (``nets``, the tuple of :mod:`tumble.rockfall.step.nets`) go to ``crossings``; a net may catch
    the rock (``CAUGHT``). Returns ``(status, steps_done, rows, crossings_found)``; ``state`` holds
    the final state. Needs ``n_steps // save_every + 2`` rows. ``forest`` and ``trees``: the
    stems and the rock's ``(diameter, key, fstate, broken, impact_cell)`` of
    :mod:`tumble.rockfall.step.trees`, as in the ensemble kernel.
    """
    heights, grid, soil_values, soil_index, soil_rasters, vertices, body, options = model
    f_params = forest[0]
    key, fstate = trees[1], trees[2]
    has_forest = f_params[P_MODE] != MODE_NONE
    if has_forest:
        start_forest(state, key, fstate)
    diag = np.zeros(N_DIAG)
    forget_percussions(contacts)
    out_step[0] = 0
    out_state[0, :] = state
    out_diag[0, :] = 0.0
    out_diag[0, D_MU] = friction(
        soil_values, soil_index, soil_rasters, grid, state[S_R], state[S_R + 1], state[S_SLIP]
    )
    out_diag[0, D_HEIGHT] = _height(heights, grid, state)
    rows = 1
    bounds = np.empty(N_BOUNDS)
    reset_bounds(bounds, vertices, body)
    contact_sum = 0.0
    drag_sum = 0.0
    sweeps_max = 0.0
    caps = 0.0
    touched = 0.0
    status = RUNNING if n_steps > 0 else TIMED_OUT
    done = 0
    quiet = 0
    last_saved = 0
    # the bounding boxes of the barriers, tested here on scalars: a call that passed the
    # barrier arrays every step would pay numba's reference counting of each of them, so
    # cross_barriers runs only after steps that start near a barrier
    bbox = nets[5]
    n_barriers = bbox.shape[0]
    has_nets = n_barriers > 0
    prev = np.empty(STATE_SIZE)
    reach = step_reach(options[O_DT])
    n_cross = 0
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
        status, steps, quiet = stopping_rules(
            code, kinetic_energy(body, state), done, quiet, n_steps, rest_energy, rest_steps
        )
        if steps > done:
            if armed:
                n_cross, caught = cross_barriers(
                    nets,
                    heights,
                    grid,
                    vertices,
                    body,
                    prev,
                    state,
                    steps,
                    options[O_DT],
                    crossings,
                    n_cross,
                )
                if caught:
                    status = CAUGHT
            done = steps
            contact_sum += diag[D_CONTACT_WORK]
            drag_sum += diag[D_DRAG_WORK]
            sweeps_max = max(sweeps_max, diag[D_SWEEPS])
            caps += diag[D_CAPPED]
            if diag[D_CONTACTS] > 0.0:
                touched = 1.0
        if done != last_saved and (status != RUNNING or done % save_every == 0):
            out_step[rows] = done
            out_state[rows, :] = state
            for k in range(N_DIAG):
                out_diag[rows, k] = diag[k]
            out_diag[rows, D_CONTACT_WORK] = contact_sum
            out_diag[rows, D_DRAG_WORK] = drag_sum
            out_diag[rows, D_SWEEPS] = sweeps_max
            out_diag[rows, D_CAPPED] = caps
            out_diag[rows, D_HEIGHT] = _height(heights, grid, state)
            out_diag[rows, D_TOUCHED] = touched
            rows += 1
            last_saved = done
            contact_sum = 0.0
            drag_sum = 0.0
            sweeps_max = 0.0
            caps = 0.0
    return status, done, rows, n_cross
