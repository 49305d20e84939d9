"""The compiled per-rock loop of an ensemble: one kernel over the rocks of a chunk.

:func:`run_rocks` is one compiled kernel whose threads take the rocks of a chunk one at a time
from a shared counter; each rock allocates its buffers once (vertices, contacts, diagnostics,
the state before a step near a barrier, the terrain bounds of its flights, the rows it writes at
every step) and hands them to :func:`run_one`, which is compiled without numba's reference
counting (it allocates nothing): the step inlined into its loop would otherwise take and
release a reference to each of its dozen arrays at every step, atomic operations that took 14
of the 94 ns of a flight on ``slope40``. It calls
:func:`tumble.rockfall.step.moreau.rock_step` until the rock stops, leaves the DEM, fails or
reaches ``t_max``, with the stopping rules of :func:`tumble.rockfall.simulate`
(:func:`tumble.rockfall.step.stepping.stopping_rules`; so rock k of an ensemble is bit-identical
to ``simulate`` of the same rock). Every rock writes only its own outputs, what
:mod:`tumble.rockfall.ensemble.record` lists: status and counts, the final state, maxima, path
statistics and cell visits.

Nothing is accumulated across rocks inside the parallel loop, so the results do not depend on
the number of threads.

A run with the implicit scheme, without barriers or forest, of rocks symmetric about one axis
runs in teams instead (:mod:`tumble.rockfall.ensemble.teams`): each thread steps
:data:`tumble.rockfall.ensemble.lanes.LANES` rocks together, takes their free flights and the
bookkeeping of those in SIMD lanes (:mod:`tumble.rockfall.ensemble.lanes`) and every other step
lane by lane as :func:`run_one` would, so that each rock's numbers are :func:`run_one`'s bit
for bit.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit_leaf, jit_parallel, prange, take
from tumble.rockfall.ensemble.lanes import LANES, N_TEAM
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
    _welford,
    carried_start,
    end_rock,
    record_step,
)
from tumble.rockfall.ensemble.teams import N_LANE_INTS, N_PROBE, lane_axis, run_team
from tumble.rockfall.status import CAUGHT, OK, RUNNING, TIMED_OUT
from tumble.rockfall.step.buffers import D_CAPPED, D_CONTACTS, N_BOUNDS, N_DIAG, reset_bounds
from tumble.rockfall.step.contact import NCOL, forget_percussions
from tumble.rockfall.step.model import (
    O_DT,
    S_R,
    STATE_SIZE,
)
from tumble.rockfall.step.moreau import rock_step
from tumble.rockfall.step.nets import cross_barriers, near_point, step_reach
from tumble.rockfall.step.stepping import kinetic_energy, stopping_rules
from tumble.rockfall.step.surface import bilinear_uv
from tumble.rockfall.step.trees import MODE_NONE, P_MODE, start_forest, trees_step


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


def check_probe(probe: np.ndarray | None, workers: int) -> None:
    """Refuse a ``probe`` for :func:`run_rocks` that is not None or a writable C-contiguous
    int64 array of ``(workers, N_PROBE)``: the kernel writes row ``worker`` without bounds
    checks."""
    if probe is None:
        return
    if not (
        isinstance(probe, np.ndarray)
        and probe.dtype == np.int64
        and probe.shape == (workers, N_PROBE)
        and probe.flags.c_contiguous
        and probe.flags.writeable
    ):
        shape = getattr(probe, "shape", None)
        dtype = getattr(probe, "dtype", type(probe).__name__)
        raise ValueError(
            f"probe must be a writable int64 array of shape ({workers}, {N_PROBE}) (one row a "
            f"thread), got {dtype} of shape {shape}"
        )


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
    probe: np.ndarray | None = None,
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
    uses, and every other run). ``probe`` (workers, ``N_PROBE``) int64, for a run in teams:
    each worker's team adds its cycles and steps by kind to its row
    (:func:`tumble.rockfall.ensemble.teams.run_team`); None (the default) compiles it out."""
    n_trees = forest[5].shape[0]
    n = states.shape[0]
    counter = np.zeros(1, dtype=np.int64)
    axis = lane_axis(bodies, options, nets, forest)
    teams = lanes and axis >= 0
    for worker in prange(min(workers, n)):
        if teams:
            m_max = shape_vertices.shape[1]
            buffers = (
                np.zeros(N_TEAM * LANES),
                np.zeros((LANES, N_LANE_INTS), dtype=np.int64),
                np.zeros((LANES, m_max, 3)),
                np.zeros((LANES, m_max, NCOL)),
                np.zeros((LANES, N_DIAG)),
            )
            chunk = (
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
            )
            rules = (n_steps, rest_speed, rest_steps, sample_every)
            outputs = (states, maxima, path, visit_cell, visit_value, counts)
            if probe is not None:
                run_team(chunk, rules, outputs, counter, axis, buffers, probe[worker])
            else:
                run_team(chunk, rules, outputs, counter, axis, buffers)
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
