"""The guards of the rockfall step: the bound on dt (:func:`tumble.rockfall.step.model.max_dt`) and
the penetration status of :func:`tumble.rockfall.step.moreau.rock_step`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.rockfall import Options, Rock, Soil, Terrain, simulate
from tumble.rockfall.status import OK, PENETRATED, REGULAR, RockStatus
from tumble.rockfall.step.contact import NCOL
from tumble.rockfall.step.model import (
    GRAVITY,
    S_OMEGA,
    S_P,
    S_R,
    hull_radius,
    initial_state,
    max_dt,
    pack_model,
    speed_bound,
)
from tumble.rockfall.step.moreau import N_BOUNDS, N_DIAG, reset_bounds, rock_step

BOX = (1.0, 0.8, 0.6)


def flat_model(dt: float = 0.002):
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(*BOX, density=2500.0)
    return pack_model(terrain, rock, Soil.preset("medium"), Options(dt=dt)), rock


def test_speed_bound_is_the_energy_bound():
    """V^2 = |v|^2 + omega.Theta omega / m + 2 g drop, against a hand computation."""
    model, _ = flat_model()
    state = initial_state(model, (10.0, 0.0, 5.3), velocity=(3.0, 4.0, 0.0), omega=(0, 0, 2.0))
    body = model.body[None, :]
    expected = math.sqrt(25.0 + model.body[3] * 4.0 / model.body[0] + 2 * GRAVITY * 5.3)
    assert speed_bound(state[None, :], body, 0.0, GRAVITY)[0] == pytest.approx(expected, 1e-14)
    radius = hull_radius(model.vertices)
    assert radius == pytest.approx(0.5 * math.sqrt(sum(a * a for a in BOX)), 1e-12)
    bound = max_dt([radius], 1.0, 1.0, [expected])[0]
    assert bound == pytest.approx(radius / expected, 1e-14)  # R < dx here
    assert max_dt([radius], 0.25, 1.0, [expected])[0] == pytest.approx(0.25 / expected, 1e-14)
    assert max_dt([radius], 1.0, 1.0, [0.0])[0] == math.inf


def test_simulate_refuses_dt_above_the_bound_and_runs_below():
    terrain = Terrain.plane(30.0, size=(60.0, 20.0), spacing=1.0)
    rock = Rock.box(*BOX, density=2500.0)
    z = float(terrain.height(10.0, 0.0)) + 1.0
    state = np.array([0, 0, z, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], dtype=float)
    bodies = np.array([[rock.mass, *rock.inertia]])
    speed = speed_bound(state[None, :], bodies, float(terrain.heights.min()), GRAVITY)[0]
    bound = hull_radius(rock.vertices) / speed
    soil = Soil.preset("medium")
    with pytest.raises(ValueError, match=r"dt = .* too large.*use dt <= "):
        simulate(terrain, rock, soil, (10.0, 0.0, z), dt=1.01 * bound, t_max=1.0)
    traj = simulate(terrain, rock, soil, (10.0, 0.0, z), dt=0.99 * bound, t_max=1.0)
    assert traj.steps > 0


def fresh_bounds(model) -> np.ndarray:
    bounds = np.empty(N_BOUNDS)
    reset_bounds(bounds, model.vertices, model.body)
    return bounds


def test_a_rock_deeper_than_its_radius_fails_as_penetrated():
    """A state below the terrain (as a too large step leaves it) is never resolved as a
    contact: the step returns PENETRATED, a failure, not a regular end."""
    model, _ = flat_model()
    radius = hull_radius(model.vertices)
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    diag = np.zeros(N_DIAG)
    resting = initial_state(model, (10.0, 0.0, 0.3 + 1e-9))
    assert rock_step(*model, resting.copy(), contacts, diag, fresh_bounds(model)) == OK
    deep = resting.copy()
    deep[S_R + 2] = -radius - 0.05  # every vertex well below z = 0, the lowest by > R
    before = deep.copy()
    contacts[:] = 0.0
    assert rock_step(*model, deep, contacts, diag, fresh_bounds(model)) == PENETRATED
    np.testing.assert_array_equal(deep, before)  # the state is left as it was
    assert RockStatus(PENETRATED) not in REGULAR
    # a shallow overlap (a vertex 0.1 R deep) is a contact, not a failure
    shallow = resting.copy()
    shallow[S_R + 2] = 0.3 - 0.1 * radius
    assert shallow[S_P] == 1.0
    contacts[:] = 0.0
    assert rock_step(*model, shallow, contacts, diag, fresh_bounds(model)) == OK


def test_the_flight_shortcut_finds_what_the_vertex_search_finds():
    """A box bouncing down a rough 35 degree slope: after every step the closed contacts that
    rock_step used (its plane and sphere shortcuts, a cached plane, the search of the vertices
    near the plane) are those the full vertex search finds at the same midpoint configuration,
    row for row; both flights and contact steps occur, and the cached plane is reused."""
    from tumble.freerot.explicit import quaternion_half_step
    from tumble.rockfall.step.contact import C_VERTEX, C_W
    from tumble.rockfall.step.detection import find_contacts
    from tumble.rockfall.step.model import O_DT, O_GAP_TOL, S_OMEGA, S_V
    from tumble.rockfall.step.moreau import B_X, D_CONTACTS
    from tumble.rotation.quaternion import q_normalize

    rng = np.random.default_rng(11)
    x = np.arange(80.0)
    heights = -0.7 * x[None, :] + rng.normal(0.0, 0.15, (30, 80))
    terrain = Terrain.from_array(heights, 0.0, -15.0, 1.0)
    rock = Rock.box(*BOX, density=2500.0)
    model = pack_model(terrain, rock, Soil.preset("medium"), Options(dt=0.002))
    orientation = (math.cos(0.4), math.sin(0.4) * 0.6, math.sin(0.4) * 0.8, 0.0)
    start = (5.0, 0.3, float(terrain.height(5.0, 0.3)) + 1.5)
    state = initial_state(model, start, orientation, velocity=(4.0, 0.5, 0.0), omega=(1, 3, 0))
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    probe = np.zeros_like(contacts)
    diag = np.zeros(N_DIAG)
    bounds = fresh_bounds(model)
    h = 0.5 * model.options[O_DT]
    flights = touching = reuses = 0
    centre = None
    for _ in range(3000):
        r_m = tuple(state[S_R : S_R + 3] + h * state[S_V : S_V + 3])
        p = tuple(state[S_P : S_P + 4])
        p_m = q_normalize(quaternion_half_step(p, tuple(state[S_OMEGA : S_OMEGA + 3]), h))
        expected, inside = find_contacts(
            model.heights, model.grid, model.vertices, r_m, p_m, model.options[O_GAP_TOL], probe
        )
        if not inside or rock_step(*model, state, contacts, diag, bounds) != OK:
            break
        assert diag[D_CONTACTS] == expected
        # the same rows: vertex, gap and force directions, bit for bit
        columns = slice(C_VERTEX, C_W + 18)
        np.testing.assert_array_equal(contacts[:expected, columns], probe[:expected, columns])
        flights += expected == 0
        touching += expected > 0
        reuses += centre == bounds[B_X]
        centre = bounds[B_X]
    assert flights > 300 and touching > 100 and reuses > 1000


def test_initial_states_are_initial_state_for_every_rock():
    """The batch set-up of an ensemble gives, bit for bit, the state initial_state gives each
    rock (two shapes, scaled, random orientations, some quaternions slightly off unit norm),
    and names the first rock it refuses with initial_state's reason."""
    from tumble.rockfall.step.model import initial_states

    terrain = Terrain.plane(0.0, size=(40.0, 40.0), spacing=1.0)
    shapes = [Rock.box(*BOX, density=2500.0), Rock.eota221(mass=780.0)]
    model = pack_model(terrain, shapes[0], Soil.preset("medium"), Options())
    rng = np.random.default_rng(5)
    n = 200
    shape_id = rng.integers(0, 2, n)
    scale = rng.uniform(0.5, 1.5, n)
    m = max(s.vertices.shape[0] for s in shapes)
    hulls = np.full((2, m, 3), np.nan)
    for i, s in enumerate(shapes):
        hulls[i, : s.vertices.shape[0]] = s.vertices
    vertices = hulls[shape_id] * scale[:, None, None]
    position = np.column_stack([rng.uniform(10, 30, n), rng.uniform(-10, 10, n), 3.0 + scale])
    orientation = rng.normal(size=(n, 4))
    orientation /= np.linalg.norm(orientation, axis=1)[:, None]
    orientation *= 1.0 + rng.uniform(-1e-4, 1e-4, n)[:, None]
    velocity = rng.normal(size=(n, 3))
    omega = rng.normal(size=(n, 3))
    batch = initial_states(model, vertices, position, orientation, velocity, omega)
    for k in range(n):
        hull = vertices[k][~np.isnan(vertices[k, :, 0])]
        one = initial_state(
            model._replace(vertices=hull), position[k], orientation[k], velocity[k], omega[k]
        )
        np.testing.assert_array_equal(batch[k], one)
    sunk = position.copy()
    sunk[37, 2] = 0.1
    with pytest.raises(ValueError, match=r"rock 37: the rock starts below the terrain"):
        initial_states(model, vertices, sunk, orientation, velocity, omega)
    outside = position.copy()
    outside[12, 0] = 39.9
    with pytest.raises(ValueError, match=r"rock 12: the rock at .* reaches outside the DEM"):
        initial_states(model, vertices, outside, orientation, velocity, omega)


def test_the_turned_increment_serves_only_the_step_where_the_last_free_step_ended():
    """The orientation increment of a free step is carried to the next one only if that step
    starts from the angular velocity the free step ended with: a step from any other omega (a
    contact, a barrier, a new rock in the same buffers) gives bit for bit what it gives with
    fresh bounds, and a step that does start there agrees with the fresh one to 1e-15."""
    terrain = Terrain.plane(0.0, size=(200.0, 200.0), spacing=10.0)
    rock = Rock.eota221(mass=780.0)
    model = pack_model(terrain, rock, Soil.preset("medium"), Options(dt=0.002, scheme="implicit"))
    contacts = np.zeros((model.vertices.shape[0], NCOL))
    diag = np.zeros(N_DIAG)
    first = initial_state(model, (100.0, 0.0, 50.0), omega=(3.0, -2.0, 9.0))
    warm = fresh_bounds(model)
    after = first.copy()
    assert rock_step(*model, after, contacts, diag, warm) == OK
    # a step from where the free step ended: the turned increment, within round-off
    again = after.copy()
    fresh = after.copy()
    assert rock_step(*model, again, contacts, diag, warm.copy()) == OK
    assert rock_step(*model, fresh, contacts, diag, fresh_bounds(model)) == OK
    assert np.abs(again - fresh).max() < 1e-15
    # a step from another omega: the full update, bit for bit
    other = after.copy()
    other[S_OMEGA + 1] += 1e-9
    reference = other.copy()
    assert rock_step(*model, other, contacts, diag, warm.copy()) == OK
    assert rock_step(*model, reference, contacts, diag, fresh_bounds(model)) == OK
    np.testing.assert_array_equal(other, reference)
