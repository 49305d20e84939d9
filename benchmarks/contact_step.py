"""Where a rock-step's time goes on ``slope40``: flights and contact steps, their parts, and the
bookkeeping of the ensemble kernel.

The states are those of real trajectories: ``--rocks`` EOTA221 rocks of 780 kg released on
``slope40`` (implicit scheme unless ``--scheme explicit``, slope40's soil ``lu2019``,
dt = 0.002 s) are run once, every step is saved, and
:func:`tumble.rockfall.step.moreau.rock_step` is then timed from each
saved state, one core, split by whether the step had a closed contact. Consecutive contact steps
of a rock are timed in their order, so that the Gauss-Seidel solver starts from the percussions
of the step before, as in a run (the warm start is cleared after a flight step and between rocks).

The contact steps are then split into their stages by timing, on the same states, the detection
alone (:func:`find_contacts` at the midpoint configuration), detection and preparation
(:func:`prepare_contacts`), and detection, preparation and solution (:func:`solve_pgs` and
:func:`contact_work`); the differences are the cost of each stage. The inputs of those stages
(midpoint, friction, free velocity) are computed once beforehand as :func:`rock_step` computes
them. A flight is split into the free rotation of the implicit scheme (:func:`midpoint_omega`
and the orientation update timed alone on the flight states, the increment carried from one
free step to the next as :func:`rock_step` does) and the rest (the terrain bound and the
translation). Finally the ensemble kernel is timed on the same rocks, one
thread, one rock at a time, beside a bare loop that takes the same steps (the step and the
stopping rules, nothing recorded): the difference is the kernel's bookkeeping (maxima, cell
visits, path samples); the kernel as runs take it (teams of rocks, their flights in SIMD lanes)
is printed beside it. A
replay of saved states costs more per step than a run (each state is read from memory, and the
plane above the terrain is taken again after every gap in the replayed sequence), so the two
loops give the true means. Timings are the best of ``--repeat`` passes.
``benchmarks/rockfall_ensemble.py`` prints this table after its own.

A change of the kernels changes the trajectories (they are chaotic), so two versions of the code
are compared on the same states: ``--states FILE`` saves them to FILE (``.npz``) on the first
run and reads them from there afterwards.

    python benchmarks/contact_step.py [--rocks 10] [--repeat 5] [--scheme implicit] [--states FILE]
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

from tumble._jit import jit, jit_leaf, set_threads
from tumble.freerot.explicit import quaternion_half_step
from tumble.freerot.implicit_midpoint import midpoint_omega
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.release import Release
from tumble.rockfall.soil import SCENARIO_SOILS
from tumble.rockfall.status import RUNNING
from tumble.rockfall.step.buffers import (
    D_CONTACTS,
    D_SWEEPS,
    FLIGHT_MARGIN,
    N_BOUNDS,
    N_DIAG,
    reset_bounds,
)
from tumble.rockfall.step.contact import (
    NCOL,
    contact_work,
    forget_percussions,
    prepare_contacts,
    solve_pgs,
)
from tumble.rockfall.step.detection import find_contacts, find_contacts_below
from tumble.rockfall.step.friction import friction, soil_param
from tumble.rockfall.step.model import (
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
    STATE_SIZE,
)
from tumble.rockfall.step.moreau import implicit_orientation, rock_step
from tumble.rockfall.step.stepping import kinetic_energy, stopping_rules
from tumble.rockfall.step.surface import plane_envelope, surface
from tumble.rotation.quaternion import q_normalize, q_to_matrix

#: soil fields read here (layout of :mod:`tumble.rockfall.step.moreau`)
_RESTITUTION, _DRAG, _DRAG_TORQUE, _DRAG_HEIGHT = 4, 5, 6, 7
#: columns of the stage inputs: r_m, p_m, m_inv, rot_inv diagonal, u_pre, u_free, mu, eps_n
I_R, I_P, I_MINV, I_ROT, I_UPRE, I_UFREE, I_MU, I_EPS = 0, 3, 7, 8, 11, 17, 23, 24
#: the plane above the terrain (m_0, m_1, m_2, height of r_m above it; I_BELOW 1 if there is one)
I_PLANE, I_BELOW = 25, 29
N_INPUT = 30


#: the soil of the workload: slope40's own (Lu et al. 2019's friction, no rolling resistance and
#: no scar layer), which is also what MuJoCo's Coulomb contact can be compared with
SOIL = SCENARIO_SOILS["slope40"]


def time_steps(model, states, follows, reps):
    """``rock_step`` from every state, ``reps`` times; returns (closed contacts, sweeps) per
    state. ``follows[i]`` is True when state i is the successor of state i - 1 in a run."""
    vertices = model[5]
    closed = np.zeros(states.shape[0])
    sweeps = np.zeros(states.shape[0])
    buffers = (
        np.zeros((vertices.shape[0], NCOL)),
        np.zeros(N_DIAG),
        np.empty(N_BOUNDS),
        np.empty(STATE_SIZE),
    )
    _time_steps(model, states, follows, reps, buffers, closed, sweeps)
    return closed, sweeps


# the timed loops are compiled without reference counting, as the ensemble's loop is: a loop that
# inlines rock_step and counted references would pay for each of its arrays at every step
@jit_leaf
def _time_steps(model, states, follows, reps, buffers, closed, sweeps):
    heights, grid, sv, si, sr, vertices, body, options = model
    contacts, diag, bounds, state = buffers
    for _ in range(reps):
        forget_percussions(contacts)
        reset_bounds(bounds, vertices, body)
        for i in range(states.shape[0]):
            if not follows[i]:
                forget_percussions(contacts)
                reset_bounds(bounds, vertices, body)
            for j in range(STATE_SIZE):
                state[j] = states[i, j]
            rock_step(
                heights, grid, sv, si, sr, vertices, body, options, state, contacts, diag, bounds
            )
            closed[i] = diag[D_CONTACTS]
            sweeps[i] = diag[D_SWEEPS]


@jit
def stage_inputs(model, states):
    """The inputs of the contact stages of :func:`rock_step` (implicit or explicit free
    rotation without rolling resistance), one row per state (``I_*`` layout)."""
    heights, grid, sv, si, sr, vertices, body, options = model
    out = np.zeros((states.shape[0], N_INPUT))
    radius = 0.0
    for k in range(vertices.shape[0]):
        radius = max(
            radius, math.sqrt(vertices[k, 0] ** 2 + vertices[k, 1] ** 2 + vertices[k, 2] ** 2)
        )
    dt = options[O_DT]
    h = 0.5 * dt
    mass = body[0]
    inertia = (body[1], body[2], body[3])
    for i in range(states.shape[0]):
        s = states[i]
        r_b = (s[S_R], s[S_R + 1], s[S_R + 2])
        p_b = (s[S_P], s[S_P + 1], s[S_P + 2], s[S_P + 3])
        v_b = (s[S_V], s[S_V + 1], s[S_V + 2])
        w_b = (s[S_OMEGA], s[S_OMEGA + 1], s[S_OMEGA + 2])
        r_m = (r_b[0] + h * v_b[0], r_b[1] + h * v_b[1], r_b[2] + h * v_b[2])
        p_m = q_normalize(quaternion_half_step(p_b, w_b, h))
        x, y = r_m[0], r_m[1]
        z_m, _, _ = surface(heights, grid[0], grid[1], grid[2], grid[3], x, y)
        c_v = 0.0
        c_r = 0.0
        if r_m[2] - z_m < soil_param(_DRAG_HEIGHT, sv, si, sr, grid, x, y):
            c_v = soil_param(_DRAG, sv, si, sr, grid, x, y)
            c_r = soil_param(_DRAG_TORQUE, sv, si, sr, grid, x, y)
        m_inv = 1.0 / (mass + h * c_v)
        w_s = w_b
        if int(options[O_SCHEME]) == IMPLICIT:
            w_s, _ = midpoint_omega(
                inertia,
                w_b,
                dt,
                (0.0, 0.0, 0.0),
                options[O_NEWTON_TOL],
                int(options[O_NEWTON_MAX_ITER]),
            )
        row = out[i]
        for k in range(3):
            row[I_R + k] = r_m[k]
            d = 1.0 / (inertia[k] + h * c_r)
            row[I_ROT + k] = d
            row[I_UPRE + k] = v_b[k]
            row[I_UPRE + 3 + k] = w_b[k]
            row[I_UFREE + k] = v_b[k] - dt * c_v * v_b[k] * m_inv
            row[I_UFREE + 3 + k] = w_s[k] - dt * c_r * w_s[k] * d
        row[I_UFREE + 2] -= options[O_GRAVITY] * dt * (mass * m_inv)
        for k in range(4):
            row[I_P + k] = p_m[k]
        row[I_MINV] = m_inv
        row[I_MU] = friction(sv, si, sr, grid, x, y, s[S_SLIP])
        row[I_EPS] = soil_param(_RESTITUTION, sv, si, sr, grid, x, y)
        # the plane of rock_step's flights, here taken around r_m itself
        a, _, g_x, g_y, ok = plane_envelope(
            heights, grid[0], grid[1], grid[2], grid[3], x, y, radius + FLIGHT_MARGIN
        )
        if ok:
            a_ik = q_to_matrix(p_m)
            row[I_PLANE] = a_ik[2][0] - g_x * a_ik[0][0] - g_y * a_ik[1][0]
            row[I_PLANE + 1] = a_ik[2][1] - g_x * a_ik[0][1] - g_y * a_ik[1][1]
            row[I_PLANE + 2] = a_ik[2][2] - g_x * a_ik[0][2] - g_y * a_ik[1][2]
            row[I_PLANE + 3] = r_m[2] - a
            row[I_BELOW] = 1.0
    return out


def time_stages(model, inputs, follows, stage, reps):
    """Stages 1 .. ``stage`` of the contact problem from every row of ``inputs``: 1 detection,
    2 preparation, 3 solution and contact work. Returns a checksum."""
    contacts = np.zeros((model[5].shape[0], NCOL))
    return _time_stages(model, inputs, follows, stage, reps, contacts)


@jit_leaf
def _time_stages(model, inputs, follows, stage, reps, contacts):
    heights, grid, _, _, _, vertices, _, options = model
    total = 0.0
    for _ in range(reps):
        forget_percussions(contacts)
        for i in range(inputs.shape[0]):
            if not follows[i]:
                forget_percussions(contacts)
            row = inputs[i]
            r_m = (row[I_R], row[I_R + 1], row[I_R + 2])
            p_m = (row[I_P], row[I_P + 1], row[I_P + 2], row[I_P + 3])
            if row[I_BELOW] != 0.0:
                # as rock_step does: the vertices near the plane only
                plane = (row[I_PLANE], row[I_PLANE + 1], row[I_PLANE + 2], row[I_PLANE + 3])
                a_ik = q_to_matrix(p_m)
                n = find_contacts_below(
                    heights, grid, vertices, r_m, a_ik, plane, options[O_GAP_TOL], contacts
                )
            else:
                n, _ = find_contacts(
                    heights, grid, vertices, r_m, p_m, options[O_GAP_TOL], contacts
                )
            total += n
            if stage < 2 or n == 0:
                continue
            rot_inv = (
                (row[I_ROT], 0.0, 0.0),
                (0.0, row[I_ROT + 1], 0.0),
                (0.0, 0.0, row[I_ROT + 2]),
            )
            u_pre = (
                row[I_UPRE],
                row[I_UPRE + 1],
                row[I_UPRE + 2],
                row[I_UPRE + 3],
                row[I_UPRE + 4],
                row[I_UPRE + 5],
            )
            prepare_contacts(contacts, n, row[I_MINV], rot_inv, u_pre)
            if stage < 3:
                continue
            u_free = (
                row[I_UFREE],
                row[I_UFREE + 1],
                row[I_UFREE + 2],
                row[I_UFREE + 3],
                row[I_UFREE + 4],
                row[I_UFREE + 5],
            )
            u_e, sweeps, _ = solve_pgs(
                contacts,
                n,
                u_free,
                row[I_MU],
                row[I_EPS],
                options[O_PGS_TOL],
                int(options[O_PGS_MAX_ITER]),
            )
            work, _ = contact_work(contacts, n, u_pre, u_e)
            total += sweeps + work
    return total


def best_of(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def trajectory_states(rocks, scheme, seed):
    """All states of ``rocks`` slope40 runs, the model of the first rock, per state whether it
    follows the state before in the same run, the ensemble of those rocks, and per state
    whether it starts a step of the rest phase: the last ``rest_steps`` steps of a rock that
    stops, which the stopping rule needs to find it at rest (``rest_time`` s)."""
    terrain = Terrain.scenario("slope40")
    release = Release.for_scenario("slope40").draw(terrain, rocks, seed)
    ensemble = Ensemble(
        terrain, Rock.eota221(mass=780.0), Soil.preset(SOIL), release, scheme=scheme, seed=seed
    )
    model = ensemble._packed["model"]
    vertices = ensemble._vertices(0)
    for k in range(1, rocks):
        if not np.array_equal(ensemble._vertices(k), vertices):
            raise ValueError("the rocks differ in shape; the benchmark needs one shape")
    rock_model = tuple(model._replace(vertices=vertices, body=ensemble._packed["bodies"][0]))
    blocks = []
    follows = []
    resting = []
    for k in range(rocks):
        tr = ensemble.trajectory(k)
        n = len(tr.t) - 1
        rest = np.zeros(n, dtype=np.bool_)
        if tr.status == "stopped":
            rest[max(0, n - ensemble.options.rest_steps) :] = True
        resting.append(rest)
        s = np.zeros((n, STATE_SIZE))
        s[:, S_R : S_R + 3] = tr.position[:n]
        s[:, S_P : S_P + 4] = tr.orientation[:n]
        s[:, S_V : S_V + 3] = tr.velocity[:n]
        s[:, S_OMEGA : S_OMEGA + 3] = tr.omega[:n]
        s[:, S_SLIP] = tr.slippage[:n]
        blocks.append(s)
        f = np.ones(n, dtype=np.bool_)
        f[0] = False
        follows.append(f)
    return (
        rock_model,
        np.concatenate(blocks),
        np.concatenate(follows),
        ensemble,
        np.concatenate(resting),
    )


@jit_leaf
def time_rotation(model, states, follows, reps, bounds):
    """The implicit free rotation of the step alone from every state, as :func:`rock_step`
    takes it: :func:`midpoint_omega` and :func:`implicit_orientation`, which carries the
    increment of a free step to the state that follows it (``bounds`` reset for any other)."""
    vertices, body, options = model[5], model[6], model[7]
    inertia = (body[1], body[2], body[3])
    dt = options[O_DT]
    acc = 0.0
    for _ in range(reps):
        for i in range(states.shape[0]):
            if not follows[i]:
                reset_bounds(bounds, vertices, body)
            w0 = (states[i, S_OMEGA], states[i, S_OMEGA + 1], states[i, S_OMEGA + 2])
            p0 = (states[i, S_P], states[i, S_P + 1], states[i, S_P + 2], states[i, S_P + 3])
            w1, _ = midpoint_omega(
                inertia,
                w0,
                dt,
                (0.0, 0.0, 0.0),
                options[O_NEWTON_TOL],
                int(options[O_NEWTON_MAX_ITER]),
            )
            acc += implicit_orientation(bounds, p0, w0, w1, inertia, dt)[0]
    return acc


def bare_loop(model, start, n_steps, rest_energy, rest_steps):
    """Every rock from its initial state (rows of ``start``) stepped by :func:`rock_step` under
    the ensemble's stopping rules, nothing recorded; returns the steps taken."""
    vertices = model[5]
    buffers = (
        np.zeros((vertices.shape[0], NCOL)),
        np.zeros(N_DIAG),
        np.empty(N_BOUNDS),
        np.empty(STATE_SIZE),
    )
    return _bare_loop(model, start, n_steps, rest_energy, rest_steps, buffers)


@jit_leaf
def _bare_loop(model, start, n_steps, rest_energy, rest_steps, buffers):
    heights, grid, sv, si, sr, vertices, body, options = model
    contacts, diag, bounds, state = buffers
    total = 0
    for k in range(start.shape[0]):
        for j in range(STATE_SIZE):
            state[j] = start[k, j]
        forget_percussions(contacts)
        reset_bounds(bounds, vertices, body)
        status = RUNNING
        done = 0
        quiet = 0
        while status == RUNNING:
            code = rock_step(
                heights, grid, sv, si, sr, vertices, body, options, state, contacts, diag, bounds
            )
            status, step, quiet = stopping_rules(
                code, kinetic_energy(body, state), done, quiet, n_steps, rest_energy, rest_steps
            )
            if step == done:
                break
            done = step
        total += done
    return total


def saved_states(rocks, scheme, seed, states_file=None):
    """:func:`trajectory_states`, with the states, ``follows`` and ``resting`` read from
    ``states_file`` (``.npz``) when it exists and saved there when it does not, so that two
    versions of the code are compared on the same states (module docstring)."""
    model, states, follows, ensemble, resting = trajectory_states(rocks, scheme, seed)
    if states_file and os.path.exists(states_file):
        with np.load(states_file) as saved:
            states, follows, resting = saved["states"], saved["follows"], saved["resting"]
        print(f"states read from {states_file}")
    elif states_file:
        np.savez(states_file, states=states, follows=follows, resting=resting)
    return model, states, follows, ensemble, resting


def profile(rocks=10, scheme="implicit", seed=1, repeat=5, states_file=None):
    """Where a rock-step's time goes on slope40 (module docstring); prints the table and returns
    the figures in ns."""
    model, states, follows, ensemble, resting = saved_states(rocks, scheme, seed, states_file)
    closed, sweeps = time_steps(model, states, follows, 1)
    in_contact = closed > 0
    # a state in a subset follows the one before only if both are consecutive in the run
    index = np.arange(len(states))
    subsets = {}
    kinds = (
        ("flight", ~in_contact),
        ("contact", in_contact),
        ("moving", in_contact & ~resting),
        ("rest", resting),
    )
    for name, mask in kinds:
        idx = index[mask]
        chain = follows[idx] & np.r_[False, np.diff(idx) == 1]
        subsets[name] = (states[idx], chain)
    share = float(in_contact.mean())
    print(
        f"slope40, {scheme} scheme, {rocks} rocks: {len(states)} steps, "
        f"{share:.1%} with contact; per contact step "
        f"{closed[in_contact].mean():.2f} closed contacts, {sweeps[in_contact].mean():.2f} "
        f"Gauss-Seidel sweeps (max {sweeps.max():.0f}); one core, best of {repeat}"
    )
    ns = {}
    for name, (s, chain) in subsets.items():
        if len(s) == 0:
            ns[name] = 0.0
            continue
        time_steps(model, s[:5], chain[:5], 1)
        seconds = best_of(lambda s=s, chain=chain: time_steps(model, s, chain, 1), repeat)
        ns[name] = 1e9 * seconds / len(s)
    flights = subsets["flight"][0]
    if scheme == "implicit":
        chain = subsets["flight"][1]
        bounds = np.empty(N_BOUNDS)
        time_rotation(model, flights[:5], chain[:5], 1, bounds)
        ns["rotation"] = (
            1e9
            * best_of(lambda: time_rotation(model, flights, chain, 1, bounds), repeat)
            / len(flights)
        )

    def stages(name):
        """Detection, preparation and solution of the steps of subset ``name`` (ns a step)."""
        s, chain = subsets[name]
        if len(s) == 0:
            return [0.0, 0.0, 0.0]
        inputs = stage_inputs(model, s)
        cost = []
        for stage in (1, 2, 3):
            time_stages(model, inputs[:5], chain[:5], stage, 1)
            seconds = best_of(
                lambda stage=stage: time_stages(model, inputs, chain, stage, 1), repeat
            )
            cost.append(1e9 * seconds / len(s))
        return cost

    cost = stages("contact")
    ns["detection"], ns["preparation"], ns["solution"] = (
        cost[0],
        cost[1] - cost[0],
        cost[2] - cost[1],
    )
    kind_stages = {name: stages(name) for name in ("moving", "rest")}
    masks = dict(kinds)
    closed_of = {
        name: float(closed[masks[name]].mean()) if masks[name].any() else 0.0
        for name in ("moving", "rest")
    }

    # the whole ensemble kernel on the same rocks, one thread, one rock at a time (run_one:
    # the step of the bare loop below), against the same rocks stepped by a bare loop (the step
    # and the stopping rules only): the difference is the bookkeeping. The kernel as runs use
    # it (teams of rocks, their flights in SIMD lanes) is timed beside it.
    previous = set_threads(1)
    try:
        everyone = np.arange(rocks, dtype=np.int64)
        ensemble.warm_up()
        steps = int(ensemble._kernel(everyone, 256, lanes=False)[5][:, 1].sum())
        seconds = best_of(lambda: ensemble._kernel(everyone, 256, lanes=False), repeat)
        ensemble._kernel(everyone, 256)
        in_lanes = best_of(lambda: ensemble._kernel(everyone, 256), repeat)
    finally:
        set_threads(previous)
    p = ensemble._packed
    start = np.ascontiguousarray(p["states"][:rocks])
    rest_energy = 0.5 * model[6][0] * ensemble.options.rest_speed**2
    bare = (model, start, p["n_steps"], rest_energy, p["rest_steps"])
    if bare_loop(*bare) != steps:
        raise RuntimeError("the bare loop did not take the kernel's steps")
    ns["kernel"] = 1e9 * seconds / steps
    ns["loop"] = 1e9 * best_of(lambda: bare_loop(*bare), repeat) / steps
    ns["bookkeeping"] = ns["kernel"] - ns["loop"]
    ns["lanes"] = 1e9 * in_lanes / steps
    ns["contact_share"] = share
    ns["rest_share"] = float(masks["rest"].mean())
    ns["moving_share"] = float(masks["moving"].mean())

    print(f"{'':<42}{'ns':>8}{'share':>8}")
    rows = [("flight step", ns["flight"], 1.0 - share)]
    if "rotation" in ns:
        rows += [
            ("  free rotation (midpoint rule, update)", ns["rotation"], None),
            ("  terrain bound, translation", ns["flight"] - ns["rotation"], None),
        ]
    rows += [
        ("contact step", ns["contact"], share),
        ("  while moving", ns["moving"], ns["moving_share"]),
        ("  at rest (the last rest_time of a rock)", ns["rest"], ns["rest_share"]),
        ("  detection", ns["detection"], None),
        ("  preparation", ns["preparation"], None),
        ("  solution", ns["solution"], None),
        ("  free motion and update", ns["contact"] - cost[2], None),
        ("bare loop per rock-step", ns["loop"], None),
        ("  + bookkeeping (maxima, cells, samples)", ns["bookkeeping"], None),
        ("= ensemble kernel per rock-step, one rock", ns["kernel"], None),
        ("  in teams, flights in SIMD lanes (runs)", ns["lanes"], None),
    ]
    for label, value, weight in rows:
        tail = f"{weight:8.1%}" if weight is not None else ""
        print(f"{label:<42}{value:8.1f}{tail}")
    if ns["bookkeeping"] < 0.0:
        print(
            "  (not measured: the bookkeeping came out negative, the two loops' passes varied by "
            "more than it; a quieter machine or more --repeat)"
        )
    print("contact steps by phase, ns a step: detection, preparation, solution, the rest")
    for name, label in (("moving", "while moving"), ("rest", "at rest")):
        c = kind_stages[name]
        print(
            f"  {label:<14}{c[0]:7.1f}{c[1] - c[0]:7.1f}{c[2] - c[1]:7.1f}"
            f"{ns[name] - c[2]:7.1f}  ({closed_of[name]:.2f} closed contacts a step)"
        )
    return ns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocks", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scheme", choices=("implicit", "explicit"), default="implicit")
    parser.add_argument("--states", metavar="FILE", help="save the states to / read them from FILE")
    args = parser.parse_args()
    profile(args.rocks, args.scheme, args.seed, args.repeat, args.states)


if __name__ == "__main__":
    main()
