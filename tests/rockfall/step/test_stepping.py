"""The per-rock loop (tumble.rockfall.step.stepping): the stopping rules by hand, a moving rock
timed out after ``ceil(t_max / dt)`` steps, a rock at rest stopped after the rest criterion's
steps (at once, and after sliding to a halt under Coulomb friction), the samples of
:func:`run_rock` every ``save_every`` steps (a free flight against the parabola), the work and
sweeps gathered between samples, and the kinetic energy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Options, Rock, Soil, Terrain
from tumble.rockfall.forest import no_forest
from tumble.rockfall.status import (
    LEFT_DOMAIN,
    OK,
    PENETRATED,
    RUNNING,
    STOPPED,
    TIMED_OUT,
)
from tumble.rockfall.step.buffers import (
    D_CAPPED,
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG_WORK,
    D_HEIGHT,
    D_SWEEPS,
    N_SAVED_DIAG,
)
from tumble.rockfall.step.contact import NCOL
from tumble.rockfall.step.model import S_OMEGA, S_R, S_V, STATE_SIZE, initial_state, pack_model
from tumble.rockfall.step.nets import N_XCOLS, no_nets
from tumble.rockfall.step.stepping import kinetic_energy, run_rock, stopping_rules
from tumble.rockfall.step.trees import N_FOREST

G = 9.81
BOX = (1.0, 0.8, 0.6)


def run(model, state, options: Options, save_every: int = 1):
    """:func:`run_rock` with buffers sized as :func:`tumble.rockfall.simulate` sizes them
    (``n_steps // save_every + 2`` rows); returns ``(status, steps, step, states, diag)`` with
    the saved rows only; ``state`` holds the final state."""
    n_steps = options.n_steps
    rows = n_steps // save_every + 2
    out_step = np.zeros(rows, dtype=np.int64)
    out_state = np.zeros((rows, STATE_SIZE))
    out_diag = np.zeros((rows, N_SAVED_DIAG))
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    status, steps, saved, crossings = run_rock(
        tuple(model),
        state,
        contacts,
        n_steps,
        save_every,
        options.rest_energy(float(model.body[0])),
        options.rest_steps,
        out_step,
        out_state,
        out_diag,
        no_nets(),
        np.zeros((0, N_XCOLS)),
        no_forest(),
        (1.0, np.uint64(0), np.zeros(N_FOREST), np.zeros(0, np.bool_), np.zeros(0, np.int64)),
    )
    assert crossings == 0
    return status, steps, out_step[:saved], out_state[:saved], out_diag[:saved]


def flight(options: Options):
    """A box thrown from 40 m above flat ground (no contact within a second)."""
    terrain = Terrain.plane(0.0, size=(100.0, 100.0), spacing=10.0)
    model = pack_model(terrain, Rock.box(*BOX, density=2500.0), Soil.coulomb(0.5), options)
    r0, v0 = np.array([50.0, 0.0, 40.0]), np.array([3.0, -1.0, 5.0])
    return model, initial_state(model, r0, velocity=v0, omega=(0.5, -1.0, 2.0)), r0, v0


def lying_box(options: Options, velocity=(0.0, 0.0, 0.0)):
    """The box lying on a face on flat ground, mu = 0.5, plastic impacts."""
    terrain = Terrain.plane(0.0, size=(40.0, 20.0), spacing=1.0)
    model = pack_model(terrain, Rock.box(*BOX, density=2500.0), Soil.coulomb(0.5), options)
    return model, initial_state(model, (10.0, 0.0, 0.5 * BOX[2]), velocity=velocity)


# --- stopping_rules --------------------------------------------------------------------------


def test_stopping_rules_by_hand():
    """``(code, energy, steps, quiet, n_steps, rest_energy, rest_steps) -> (status, steps,
    quiet)``: a failed step (LEFT_DOMAIN, PENETRATED) ends the rock with its code and is not
    counted; a step above the rest energy counts and resets the quiet steps; at the rest energy
    (at or below) it counts as quiet; STOPPED once the quiet steps reach rest_steps, TIMED_OUT
    once the steps reach n_steps, STOPPED first when both happen at the same step."""
    n_steps, rest, rest_steps = 100, 2.0, 5
    assert stopping_rules(LEFT_DOMAIN, 9.0, 40, 3, n_steps, rest, rest_steps) == (
        LEFT_DOMAIN,
        40,
        3,
    )
    assert stopping_rules(PENETRATED, 0.0, 40, 3, n_steps, rest, rest_steps) == (PENETRATED, 40, 3)
    assert stopping_rules(OK, 9.0, 40, 3, n_steps, rest, rest_steps) == (RUNNING, 41, 0)
    assert stopping_rules(OK, 2.0, 40, 3, n_steps, rest, rest_steps) == (RUNNING, 41, 4)
    assert stopping_rules(OK, 1.0, 40, 4, n_steps, rest, rest_steps) == (STOPPED, 41, 5)
    assert stopping_rules(OK, 9.0, 99, 0, n_steps, rest, rest_steps) == (TIMED_OUT, 100, 0)
    assert stopping_rules(OK, 0.0, 99, 4, n_steps, rest, rest_steps) == (STOPPED, 100, 5)


def test_kinetic_energy_includes_the_rotation():
    """``m |v|^2 / 2 + (A w_1^2 + B w_2^2 + C w_3^2) / 2``, by hand: m = 2, v = (1, 2, 2) gives 9;
    (A, B, C) = (1, 2, 3), w = (1, 1, 2) gives (1 + 2 + 12) / 2 = 7.5."""
    state = np.zeros(STATE_SIZE)
    state[S_V : S_V + 3] = (1.0, 2.0, 2.0)
    state[S_OMEGA : S_OMEGA + 3] = (1.0, 1.0, 2.0)
    assert kinetic_energy(np.array([2.0, 1.0, 2.0, 3.0]), state) == 16.5


# --- how a rock ends -------------------------------------------------------------------------


@pytest.mark.parametrize(("t_max", "dt", "steps"), [(0.25, 0.002, 125), (0.0123, 0.002, 7)])
def test_a_moving_rock_times_out_after_ceil_t_max_over_dt_steps(t_max, dt, steps):
    """A rock in flight for t_max: TIMED_OUT after ``ceil(t_max / dt)`` steps, the first step
    count whose time reaches t_max; the last row is that step."""
    options = Options(dt=dt, t_max=t_max)
    model, state, _, _ = flight(options)
    status, done, step, _, _ = run(model, state, options)
    assert (status, done) == (TIMED_OUT, steps)
    assert step[-1] == steps and (steps - 1) * dt < t_max <= steps * dt


@pytest.mark.parametrize(("rest_time", "rest_steps"), [(0.1, 50), (0.1001, 51), (0.001, 1)])
def test_a_rock_at_rest_stops_after_the_rest_steps(rest_time, rest_steps):
    """The box lying at rest: every step is quiet (kinetic energy zero to round-off, far below
    ``m rest_speed^2 / 2`` = 0.06 J), so the rock stops after exactly
    ``ceil(rest_time / dt)`` steps; with a t_max shorter than that it times out instead."""
    options = Options(rest_time=rest_time, t_max=10.0)
    model, state = lying_box(options)
    status, done, _, _, _ = run(model, state, options)
    assert (status, done) == (STOPPED, rest_steps)
    short = options.replace(t_max=(rest_steps - 1) * options.dt)
    if short.n_steps > 0:
        model, state = lying_box(short)
        assert run(model, state, short)[:2] == (TIMED_OUT, rest_steps - 1)


def test_a_sliding_rock_stops_rest_steps_after_its_speed_falls_below_the_rest_speed():
    """The box sliding at 1 m/s on flat ground, mu = 0.5: Coulomb friction takes
    ``mu g dt`` = 9.81 mm/s a step (the speed after k steps is ``1 - k mu g dt``, to 1e-9), so
    the kinetic energy first falls below the rest energy (speed 0.01 m/s) after
    ``k = ceil(0.99 / (mu g dt)) = 101`` steps, and the rock stops with the rest criterion's
    ``R = 50`` quiet steps at step ``k + R - 1 = 150``."""
    options = Options(rest_time=0.1)
    model, state = lying_box(options, velocity=(1.0, 0.0, 0.0))
    status, done, step, states, _ = run(model, state, options)
    first_quiet = math.ceil(0.99 / (0.5 * G * options.dt))
    assert first_quiet == 101
    assert (status, done) == (STOPPED, first_quiet + options.rest_steps - 1)
    sliding = step <= 100
    expected = 1.0 - step[sliding] * 0.5 * G * options.dt
    np.testing.assert_allclose(states[sliding, S_V], expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(states[-1, S_V : S_V + 3], 0.0, atol=1e-12)


# --- samples ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("t_max", "save_every", "saved"),
    [
        (0.206, 10, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 103]),
        (0.2, 10, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]),
        (0.01, 1, [0, 1, 2, 3, 4, 5]),
        (0.01, 7, [0, 5]),
    ],
)
def test_run_rock_samples_every_save_every_steps(t_max, save_every, saved):
    """Row 0 is the release, then every ``save_every``-th step, then the final step (once, also
    when it falls on a multiple): the step numbers by hand. The saved states of a free flight
    are the parabola at ``t = step dt`` (1e-12 m), and the height column is the height above
    the flat ground z = 0."""
    options = Options(t_max=t_max)
    model, state, r0, v0 = flight(options)
    status, done, step, states, diag = run(model, state, options, save_every)
    assert status == TIMED_OUT and done == saved[-1]
    assert step.tolist() == saved
    t = step[:, None] * options.dt
    parabola = r0 + v0 * t + 0.5 * np.array([0.0, 0.0, -G]) * t**2
    np.testing.assert_allclose(states[:, S_R : S_R + 3], parabola, rtol=0, atol=1e-12)
    np.testing.assert_allclose(diag[:, D_HEIGHT], states[:, S_R + 2], rtol=0, atol=1e-12)
    assert not diag[:, D_CONTACTS].any()
    np.testing.assert_array_equal(states[-1], state)


def test_sparse_samples_gather_the_steps_between_them():
    """A box bouncing and sliding down a 30 degree slope for 3 s, saved every step and every
    7th step: the sparse rows are the same states bit for bit; each sparse row's contact and drag
    work is the sum over the steps since the previous row (1e-9 relative: the order of the sums
    differs), its sweeps the largest, its PGS cap hits the count."""
    terrain = Terrain.plane(30.0, size=(80.0, 20.0), spacing=1.0)
    soil = Soil.coulomb(0.6, restitution=0.1, drag=300.0, drag_torque=50.0, drag_height=0.7)
    options = Options(t_max=3.0)
    model = pack_model(terrain, Rock.box(*BOX, density=2500.0), soil, options)
    start = (10.0, 0.0, float(terrain.height(10.0, 0.0)) + 1.0)
    p = (math.cos(0.3), math.sin(0.3) * 0.6, math.sin(0.3) * 0.8, 0.0)
    dense = run(model, initial_state(model, start, p, (3.0, 0.5, 0.0), (1.0, 2.0, 0.0)), options)
    sparse = run(
        model, initial_state(model, start, p, (3.0, 0.5, 0.0), (1.0, 2.0, 0.0)), options, 7
    )
    assert dense[:2] == sparse[:2]
    _, _, step, states, diag = dense
    _, _, sparse_step, sparse_states, sparse_diag = sparse
    assert step.tolist() == list(range(len(step)))
    np.testing.assert_array_equal(states[sparse_step], sparse_states)
    assert diag[:, D_CONTACT_WORK].min() < -100.0 and diag[:, D_DRAG_WORK].min() < 0.0
    assert diag[:, D_SWEEPS].max() > 5.0
    for i in range(1, len(sparse_step)):
        steps = slice(sparse_step[i - 1] + 1, sparse_step[i] + 1)
        for column in (D_CONTACT_WORK, D_DRAG_WORK, D_CAPPED):
            total = diag[steps, column].sum()
            assert sparse_diag[i, column] == pytest.approx(total, rel=1e-9, abs=1e-9)
        assert sparse_diag[i, D_SWEEPS] == diag[steps, D_SWEEPS].max()
