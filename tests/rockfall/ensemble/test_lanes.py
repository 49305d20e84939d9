"""The free flights of a team of rocks in SIMD lanes give the numbers of one rock at a time.

:func:`tumble.rockfall.ensemble.teams.run_team` steps ``LANES`` rocks together and takes their
free flights in vector instructions (:func:`tumble.rockfall.ensemble.lanes.team_lanes`); every
array the kernel returns must be bit for bit what :func:`run_one` (one rock at a time, the
scalar step) gives, whatever the terrain, soil, rock sizes, stopping rules or threads.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble._jit import get_threads, set_threads
from tumble.rockfall import Rock, Soil, Terrain
from tumble.rockfall.ensemble import Ensemble
from tumble.rockfall.ensemble.lanes import (
    C_DQ,
    C_FLIGHT,
    C_TURN_W,
    LANES,
    N_TEAM,
    T_BODY,
    T_BOUNDS,
    T_CAND,
    T_DRAG_HEIGHT,
    T_STATE,
    team_lanes,
)
from tumble.rockfall.ensemble.record import R_CONTACT_STEPS, R_STEPS
from tumble.rockfall.ensemble.sizes import VISIT_CAPACITY
from tumble.rockfall.ensemble.teams import (
    N_PROBE,
    P_ACTIVE,
    P_CONTACT,
    P_FLIGHT,
    P_LANES,
    P_N_CONTACT,
    P_N_FLIGHT,
    P_N_TAKEN,
    P_TEAM_STEPS,
    P_TOTAL,
    lane_axis,
)
from tumble.rockfall.release import Release
from tumble.rockfall.soil import DRAG_HEIGHT
from tumble.rockfall.status import OK
from tumble.rockfall.step.buffers import B_DQ, B_TURN_W, N_BOUNDS, N_DIAG, reset_bounds
from tumble.rockfall.step.contact import NCOL, forget_percussions
from tumble.rockfall.step.model import O_DT, O_GAP_TOL, O_GRAVITY, STATE_SIZE
from tumble.rockfall.step.moreau import rock_step


def rough_slope(seed: int = 2, holes: bool = False) -> Terrain:
    """A 40 degree slope over 20 m and a flat run-out of 40 m, 30 m wide, roughened by 0.3 m of
    noise; with ``holes``, a nodata strip across the run-out that rocks fall into."""
    rng = np.random.default_rng(seed)
    x = np.arange(61.0)
    base = np.maximum(20.0 - x, 0.0) * math.tan(math.radians(40.0))
    heights = base[None, :] + rng.normal(0.0, 0.3, (31, 61))
    if holes:
        heights[:, 40:43] = np.nan
    return Terrain.from_array(np.ascontiguousarray(heights), x0=0.0, y0=-15.0, dx=1.0)


def kernel_arrays(ens: Ensemble, lanes: bool, threads: int) -> list[np.ndarray]:
    previous = get_threads()
    set_threads(threads)
    try:
        out = ens._kernel(np.arange(ens.n_rocks), VISIT_CAPACITY, lanes=lanes)
    finally:
        set_threads(previous)
    return [np.array(a, copy=True) for a in out]


def assert_same_arrays(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x.shape == y.shape, i
        assert x.tobytes() == y.tobytes(), f"kernel output {i} differs"


SLOPE40 = Terrain.scenario("slope40")


def case(name: str) -> Ensemble:
    rock = Rock.eota221(mass=780.0)
    if name == "slope40":
        return Ensemble(
            SLOPE40,
            rock,
            Soil.preset("lu2019"),
            Release.for_scenario("slope40").draw(SLOPE40, 40, 3),
            t_max=10.0,
            seed=3,
        )
    terrain = rough_slope(holes=name == "holes")
    release = Release(point=(3.0, 0.0), height=1.2, speed_downslope=1.0)
    if name == "holes":
        return Ensemble(
            terrain, rock, Soil.preset("lu2019"), release.draw(terrain, 24, 5), t_max=12.0
        )
    if name == "scar":
        # the default soil: a scar layer (no flight in lanes while the rock is in it) and rolling
        # resistance
        return Ensemble(
            terrain, rock, Soil.preset("medium"), release.draw(terrain, 20, 6), t_max=8.0
        )
    if name == "timeout":
        # rocks stopped by t_max in flight
        return Ensemble(
            terrain, rock, Soil.preset("lu2019"), release.draw(terrain, 12, 7), t_max=0.3
        )
    if name == "drop":
        # released 8 m above the slope: the release drop before the first contact
        high = Release(point=(3.0, 0.0), height=8.0)
        return Ensemble(terrain, rock, Soil.preset("lu2019"), high.draw(terrain, 12, 8), t_max=6.0)
    if name == "sizes":
        # rocks of several sizes (the same axis of symmetry), fewer than a team
        n = 5
        return Ensemble(
            terrain,
            rock,
            Soil.preset("lu2019"),
            release.draw(terrain, n, 9),
            scale=np.array([1.0, 0.6, 1.3, 0.8, 1.1]),
            t_max=8.0,
        )
    if name == "drag":
        # a soil with a drag layer 0.5 m high: its steps are not flights in lanes
        soil = Soil.preset("lu2019", drag=400.0, drag_torque=50.0, drag_height=0.5)
        return Ensemble(terrain, rock, soil, release.draw(terrain, 16, 10), t_max=8.0)
    if name == "soils":
        # two soils, rock by rock (the rows of a soil drawn per rock): their drag layers differ
        soils = [Soil.preset("lu2019"), Soil.preset("lu2019", drag=200.0, drag_height=0.3)]
        n = 14
        return Ensemble(
            terrain,
            rock,
            soils[0],
            release.draw(terrain, n, 11),
            soils=soils,
            soil_row=np.arange(n) % 2,
            t_max=8.0,
        )
    raise ValueError(name)


CASES = ("slope40", "holes", "scar", "timeout", "drop", "sizes", "drag", "soils")


@pytest.mark.parametrize("name", CASES)
def test_teams_give_the_numbers_of_one_rock_at_a_time(name):
    """Every array of the kernel (final states, maxima, path statistics, cell visits, counts) of
    the rocks run in teams equals, bit for bit, that of the rocks run one at a time, on one and
    on two threads."""
    ens = case(name)
    p = ens._packed
    assert lane_axis(p["bodies"], p["model"].options, p["nets"], p["forest"]) >= 0
    single = kernel_arrays(ens, lanes=False, threads=1)
    assert_same_arrays(kernel_arrays(ens, lanes=True, threads=1), single)
    assert_same_arrays(kernel_arrays(ens, lanes=True, threads=2), single)


def test_teams_serve_only_the_implicit_scheme_of_symmetric_rocks_without_barriers_or_forest():
    ens = case("slope40")
    p = ens._packed
    options = p["model"].options
    assert lane_axis(p["bodies"], options, p["nets"], p["forest"]) == 2  # EOTA221 about z
    explicit = Ensemble(
        SLOPE40,
        Rock.eota221(mass=780.0),
        Soil.preset("lu2019"),
        Release.for_scenario("slope40").draw(SLOPE40, 4, 3),
        scheme="explicit",
    )
    q = explicit._packed
    assert lane_axis(q["bodies"], q["model"].options, q["nets"], q["forest"]) == -1
    box = Ensemble(
        SLOPE40,
        Rock.box(0.8, 0.6, 0.4, density=2740.0),
        Soil.preset("lu2019"),
        Release.for_scenario("slope40").draw(SLOPE40, 4, 3),
    )
    q = box._packed
    assert lane_axis(q["bodies"], q["model"].options, q["nets"], q["forest"]) == -1


def test_a_lane_s_flight_is_rock_step_s_bit_for_bit():
    """States of eight rocks taken along their paths on a rough slope (flights, contacts, the
    release fall) are put in the lanes of a team: wherever ``team_lanes`` says a lane's step is
    a free flight, its new state, orientation increment and free angular velocity equal those of
    ``rock_step`` from the same state, bit for bit; and ``rock_step`` takes such a step without
    a contact."""
    ens = case("drop")
    p = ens._packed
    model = p["model"]
    heights, grid, options = model.heights, model.grid, model.options
    soil_values, soil_index, soil_rasters = p["soil_table"]
    row = int(ens.soil_row[0])
    # snapshots of each lane's rock before steps spread over its path
    rng = np.random.default_rng(1)
    n_teams = 120
    taken_at = [np.sort(rng.choice(2400, n_teams, replace=False)) for _ in range(LANES)]
    snapshots: list[list[tuple]] = [[] for _ in range(LANES)]
    for lane in range(LANES):
        k = lane % ens.n_rocks
        m = int(p["shape_counts"][ens.shape_id[k]])
        vertices = p["shape_vertices"][ens.shape_id[k], :m] * ens.scale[k]
        body = p["bodies"][k]
        state = p["states"][k].copy()
        contacts = np.zeros((m, NCOL))
        diag = np.zeros(N_DIAG)
        bounds = np.empty(N_BOUNDS)
        reset_bounds(bounds, vertices, body)
        forget_percussions(contacts)
        args = (heights, grid, soil_values[row], soil_index[row], soil_rasters, vertices, body)
        for step in range(int(taken_at[lane][-1]) + 1):
            if step in taken_at[lane]:
                snapshots[lane].append(
                    (args, state.copy(), contacts.copy(), diag.copy(), bounds.copy())
                )
            if rock_step(*args, options, state, contacts, diag, bounds) != OK:
                break
    flights = others = 0
    for t in range(min(len(shots) for shots in snapshots)):
        team = np.zeros(N_TEAM * LANES)
        before = []
        for lane in range(LANES):
            args, state, contacts, diag, bounds = snapshots[lane][t]
            team[(T_STATE + np.arange(STATE_SIZE)) * LANES + lane] = state
            team[(T_BOUNDS + np.arange(N_BOUNDS)) * LANES + lane] = bounds
            team[(T_BODY + np.arange(4)) * LANES + lane] = args[-1]
            team[T_DRAG_HEIGHT * LANES + lane] = soil_values[row, DRAG_HEIGHT]
            before.append((args, state, contacts, diag, bounds))
        box = (grid[0], grid[1], grid[2], grid[3])
        step = (options[O_DT], options[O_GRAVITY], options[O_GAP_TOL])
        team_lanes(team, (*step, box, heights.shape[1], heights.shape[0], 10**9, 10), 2)
        for lane, (args, state, contacts, diag, bounds) in enumerate(before):
            code = rock_step(*args, options, state, contacts, diag, bounds)
            if team[C_FLIGHT * LANES + lane] != 1.0:
                others += 1
                continue
            flights += 1
            assert code == OK and diag[0] == 0.0
            cand = team[(T_CAND + np.arange(STATE_SIZE)) * LANES + lane]
            assert cand.tobytes() == state.tobytes()
            dq = team[(C_DQ + np.arange(4)) * LANES + lane]
            assert dq.tobytes() == bounds[B_DQ : B_DQ + 4].tobytes()
            turn = team[(C_TURN_W + np.arange(3)) * LANES + lane]
            assert turn.tobytes() == bounds[B_TURN_W : B_TURN_W + 3].tobytes()
    assert flights > 200 and others > 10


def test_the_team_probe_counts_every_step_and_changes_no_number():
    """With a probe (``run_team``'s cycle and step counts, on two threads), every array of the
    kernel is the same bit for bit, the steps it counts by kind add up to the kernel's steps and
    its contact steps are the kernel's, and the parts' cycles fit in the whole's."""
    ens = case("slope40")
    single = kernel_arrays(ens, lanes=False, threads=1)
    probe = np.zeros((2, N_PROBE), dtype=np.int64)
    previous = get_threads()
    set_threads(2)
    try:
        out = ens._kernel(np.arange(ens.n_rocks), VISIT_CAPACITY, probe=probe)
    finally:
        set_threads(previous)
    assert_same_arrays([np.array(a, copy=True) for a in out], single)
    p = probe.sum(axis=0)
    counts = out[5]
    assert p[P_N_TAKEN] + p[P_N_FLIGHT] + p[P_N_CONTACT] == counts[:, R_STEPS].sum()
    assert p[P_N_CONTACT] == counts[:, R_CONTACT_STEPS].sum()
    assert p[P_N_TAKEN] > 0 and p[P_N_CONTACT] > 0
    assert p[P_LANES] + p[P_FLIGHT] + p[P_CONTACT] <= p[P_TOTAL]
    assert 0 < p[P_ACTIVE] <= LANES * p[P_TEAM_STEPS]


@pytest.mark.parametrize(
    "probe",
    [
        np.zeros((1, N_PROBE + 1), dtype=np.int64),
        np.zeros((2, N_PROBE)),
        np.zeros(N_PROBE, dtype=np.int64),
        [[0] * N_PROBE] * 2,
    ],
)
def test_a_probe_of_the_wrong_shape_or_type_is_refused(probe):
    """The kernel writes a thread's row without bounds checks: any other probe than an int64
    array of one row a thread is refused before it runs, with what was expected."""
    ens = case("sizes")
    previous = get_threads()
    set_threads(2)
    try:
        with pytest.raises(ValueError, match=rf"int64 array of shape \(2, {N_PROBE}\)"):
            ens._kernel(np.arange(ens.n_rocks), VISIT_CAPACITY, probe=probe)
    finally:
        set_threads(previous)
