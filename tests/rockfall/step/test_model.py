"""The model of a run (tumble.rockfall.step.model): the solver :class:`Options` (validation naming
the bad setting, the packed ``O_*`` vector equal to the fields, the step counts as ceilings), the
model arrays of :func:`pack_model` (shapes, dtypes, values), the ``S_*`` layout of
:func:`initial_state` and its batch form, and the bound on dt (:func:`max_dt`, :func:`check_dt`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.freerot.base import SchemeId
from tumble.rockfall import Options, Rock, Soil, Terrain, simulate
from tumble.rockfall.soil import FIELDS, MU_MIN, RESTITUTION
from tumble.rockfall.step.model import (
    GRAVITY,
    N_OPTIONS,
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
    RockModel,
    hull_radius,
    initial_state,
    initial_states,
    max_dt,
    pack_model,
    speed_bound,
    terrain_arrays,
)

BOX = (1.0, 0.8, 0.6)


def flat_model(dt: float = 0.002):
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(*BOX, density=2500.0)
    return pack_model(terrain, rock, Soil.preset("medium"), Options(dt=dt)), rock


# --- Options ----------------------------------------------------------------------------------

BAD_SETTINGS = [
    ("dt", 0.0, "dt must be positive"),
    ("dt", -0.002, "dt must be positive"),
    ("dt", math.nan, "dt must be finite"),
    ("gravity", 0.0, "gravity must be positive"),
    ("pgs_tol", 0.0, "pgs_tol must be positive"),
    ("newton_tol", -1e-14, "newton_tol must be positive"),
    ("pgs_max_iter", 0, "pgs_max_iter must be a positive integer"),
    ("pgs_max_iter", 2.5, "pgs_max_iter must be a positive integer"),
    ("pgs_max_iter", True, "pgs_max_iter must be a positive integer"),
    ("newton_max_iter", 0, "newton_max_iter must be a positive integer"),
    ("t_max", -1.0, "t_max must not be negative"),
    ("t_max", math.inf, "t_max must be finite"),
    ("rest_speed", math.inf, "rest_speed must be finite"),
    ("rest_speed", "fast", "rest_speed must be a number"),
    ("rest_time", 0.0, "rest_time must be positive"),
    ("gap_tol", -1e-9, "gap_tol must not be negative"),
    ("scheme", "rk4", "unknown scheme 'rk4'"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD_SETTINGS)
def test_options_refuse_each_bad_setting_naming_it(name, value, message):
    """Every setting is checked on construction, and the message starts with its name (or, for
    the scheme, names the scheme); the same through :meth:`Options.replace`."""
    with pytest.raises(ValueError, match=f"^{message}"):
        Options(**{name: value})
    with pytest.raises(ValueError, match=f"^{message}"):
        Options().replace(**{name: value})


def test_every_setting_is_checked():
    """The table of bad settings above names every field of Options, so a setting added later
    without a check (or without a row here) fails this test."""
    assert {name for name, _, _ in BAD_SETTINGS} == set(Options.names())


def test_options_replace_refuses_an_unknown_name_and_keeps_the_rest():
    with pytest.raises(ValueError, match=r"unknown solver setting 'time_step'; the settings are"):
        Options().replace(time_step=0.001)
    base = Options(scheme="explicit", dt=0.001)
    changed = base.replace(t_max=3.0)
    assert (changed.scheme, changed.dt, changed.t_max) == ("explicit", 0.001, 3.0)
    assert base.replace() is base
    # the limits are allowed: a run of no steps, contacts closed only at gap <= 0
    assert Options(t_max=0.0).n_steps == 0
    assert Options(gap_tol=0.0).gap_tol == 0.0


@pytest.mark.parametrize("scheme", ["explicit", "implicit"])
def test_options_pack_holds_the_fields(scheme):
    """The packed vector (``O_*`` layout) holds each setting the kernels read, bit for bit, at its
    own index; the indices are distinct and fill the vector; the scheme is its SchemeId."""
    options = Options(
        scheme=scheme,
        dt=0.0017,
        gravity=9.80665,
        newton_tol=3e-13,
        newton_max_iter=17,
        pgs_tol=2e-9,
        pgs_max_iter=123,
        gap_tol=4e-9,
    )
    packed = options.pack()
    assert packed.shape == (N_OPTIONS,) and packed.dtype == np.float64
    expected = {
        O_DT: 0.0017,
        O_GRAVITY: 9.80665,
        O_NEWTON_TOL: 3e-13,
        O_NEWTON_MAX_ITER: 17,
        O_PGS_TOL: 2e-9,
        O_PGS_MAX_ITER: 123,
        O_SCHEME: int(SchemeId.from_label(scheme)),
        O_GAP_TOL: 4e-9,
    }
    assert sorted(expected) == list(range(N_OPTIONS))
    for index, value in expected.items():
        assert packed[index] == value, index
    assert options.scheme_id == SchemeId.from_label(scheme)


@pytest.mark.parametrize(
    ("t_max", "dt", "steps"),
    [
        (1.0, 0.002, 500),
        (0.0123, 0.002, 7),  # 6.15 steps: the last step ends after t_max
        (1.1, 0.1, 11),  # 1.1 / 0.1 = 11.000000000000002 in floating point
        (0.7, 0.1, 7),  # 0.7 / 0.1 = 6.999999999999999
    ],
)
def test_step_counts_are_ceilings_robust_to_round_off(t_max, dt, steps):
    """``n_steps = ceil(t_max / dt)`` and ``rest_steps = ceil(rest_time / dt)``, a quotient that
    is whole up to round-off counting as whole; a rest time shorter than a step is one step;
    the rest energy is ``m rest_speed^2 / 2``."""
    assert Options(t_max=t_max, dt=dt).n_steps == steps
    assert Options(rest_time=t_max, dt=dt).rest_steps == steps
    assert Options(rest_time=1e-5, dt=0.002).rest_steps == 1
    assert Options(rest_speed=0.02).rest_energy(780.0) == pytest.approx(0.5 * 780.0 * 4e-4, 1e-15)


# --- RockModel -------------------------------------------------------------------------------


def test_pack_model_arrays_have_their_shapes_and_values():
    """heights (ny, nx) and grid (x0, y0, dx, dy) of the terrain; the hull (m, 3) of the rock in
    its principal frame; body = (m, A, B, C); the soil packed for the grid; the options vector.
    Every array float64 (the soil index int64) and C-contiguous; the fields in RockModel order."""
    heights = np.add.outer(np.linspace(0.0, 3.0, 7), np.linspace(10.0, 0.0, 11))
    terrain = Terrain.from_array(heights, x0=100.0, y0=-20.0, dx=2.0, dy=3.0)
    rock = Rock.box(*BOX, density=2500.0)
    options = Options(scheme="explicit", dt=0.001)
    model = pack_model(terrain, rock, Soil.coulomb(0.4, restitution=0.2), options)
    assert RockModel._fields == (
        "heights",
        "grid",
        "soil_values",
        "soil_index",
        "soil_rasters",
        "vertices",
        "body",
        "options",
    )
    np.testing.assert_array_equal(model.heights, heights)
    np.testing.assert_array_equal(model.grid, [100.0, -20.0, 2.0, 3.0])
    np.testing.assert_array_equal(model.vertices, rock.vertices)
    assert model.vertices.shape == (8, 3)
    # a box of density 2500: m = 2500 abc, A = m (b^2 + c^2) / 12, ...
    mass = 2500.0 * BOX[0] * BOX[1] * BOX[2]
    a, b, c = BOX
    expected_body = [mass, mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12]
    np.testing.assert_allclose(model.body[:3], expected_body, rtol=1e-12)
    assert model.body[3] == pytest.approx(mass * (a * a + b * b) / 12, rel=1e-12)
    assert model.soil_values.shape == model.soil_index.shape == (len(FIELDS),)
    assert (model.soil_index == -1).all()
    assert model.soil_values[MU_MIN] == 0.4 and model.soil_values[RESTITUTION] == 0.2
    np.testing.assert_array_equal(model.options, options.pack())
    for name, array in model._asdict().items():
        assert array.flags.c_contiguous, name
        assert array.dtype == (np.int64 if name == "soil_index" else np.float64), name


def test_terrain_soil_rasters_replace_the_soil_fields():
    """A ``mu_min`` raster carried by the terrain replaces the Soil's constant (index >= 0, the
    raster stored as given); a ``zone`` raster is not a soil field and is left out."""
    base = Terrain.plane(10.0, size=(8.0, 6.0), spacing=2.0)
    mu = np.full(base.shape, 0.3)
    mu[0, 0] = 0.5
    terrain = Terrain.from_array(
        base.heights, base.x0, base.y0, base.dx, soil={"mu_min": mu, "zone": np.zeros(base.shape)}
    )
    model = pack_model(terrain, Rock.box(*BOX), Soil.coulomb(0.6, restitution=0.0), Options())
    k = model.soil_index[MU_MIN]
    assert k >= 0 and (np.delete(model.soil_index, MU_MIN) == -1).all()
    np.testing.assert_array_equal(model.soil_rasters[k], mu)
    assert model.soil_rasters.shape == (1, *base.shape)


@pytest.mark.parametrize(
    ("heights", "message"),
    [
        (np.zeros((1, 5)), r"at least 2 x 2"),
        (np.full((3, 3), np.nan), r"all NaN"),
        (np.array([[0.0, np.inf], [0.0, 0.0]]), r"infinite"),
    ],
)
def test_terrain_arrays_refuse_bad_grids(heights, message):
    class Grid:
        x0, y0, dx, dy = 0.0, 0.0, 1.0, 1.0

    grid = Grid()
    grid.heights = heights
    with pytest.raises(ValueError, match=message):
        terrain_arrays(grid)


def test_pack_model_refuses_inputs_of_the_wrong_kind():
    terrain = Terrain.plane(0.0, size=(4.0, 4.0))
    rock, soil = Rock.box(*BOX), Soil.coulomb(0.5)
    with pytest.raises(ValueError, match="options must be Options, got dict"):
        pack_model(terrain, rock, soil, {"dt": 0.002})
    with pytest.raises(ValueError, match="soil must be a Soil, got float"):
        pack_model(terrain, rock, 0.5, Options())
    with pytest.raises(ValueError, match="rock must be a Rock, got str"):
        pack_model(terrain, "box", soil, Options())
    with pytest.raises(ValueError, match="terrain must have the attributes heights"):
        pack_model(np.zeros((4, 4)), rock, soil, Options())


# --- the state of one rock -------------------------------------------------------------------


def test_the_state_slices_partition_the_state_vector():
    """r (3), p (4), v (3), omega (3), slippage (1): disjoint, in this order, filling
    STATE_SIZE."""
    slices = [range(S_R, S_R + 3), range(S_P, S_P + 4), range(S_V, S_V + 3)]
    slices += [range(S_OMEGA, S_OMEGA + 3), range(S_SLIP, S_SLIP + 1)]
    assert [i for s in slices for i in s] == list(range(STATE_SIZE))


def test_initial_state_holds_what_its_slices_claim():
    """Each slice holds its argument; the quaternion is normalised (a norm of 1.0005 is within
    the tolerance of 1e-3 and divided out, to 1e-15)."""
    model, _ = flat_model()
    q = np.array([1.0, 0.2, -0.3, 0.4])
    q *= 1.0005 / np.linalg.norm(q)
    state = initial_state(
        model, (3.0, -2.0, 4.0), q, velocity=(1.5, -0.5, 2.5), omega=(0.1, 0.2, 0.3), slippage=0.7
    )
    assert state.shape == (STATE_SIZE,) and state.dtype == np.float64
    np.testing.assert_array_equal(state[S_R : S_R + 3], [3.0, -2.0, 4.0])
    np.testing.assert_allclose(state[S_P : S_P + 4], q / 1.0005, rtol=0, atol=1e-15)
    assert np.linalg.norm(state[S_P : S_P + 4]) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_array_equal(state[S_V : S_V + 3], [1.5, -0.5, 2.5])
    np.testing.assert_array_equal(state[S_OMEGA : S_OMEGA + 3], [0.1, 0.2, 0.3])
    assert state[S_SLIP] == 0.7


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"position": (3.0, 0.0)}, r"position must have shape \(3,\)"),
        ({"orientation": (1.002, 0.0, 0.0, 0.0)}, r"unit quaternion .* norm is 1.002"),
        ({"velocity": (0.0, math.nan, 0.0)}, r"velocity contains NaN"),
        ({"omega": (0.0, 0.0, 0.0, 1.0)}, r"omega must have shape \(3,\)"),
        ({"slippage": -0.1}, r"slippage must not be negative"),
        ({"position": (3.0, 0.0, 0.29)}, r"starts below the terrain: .* 0.01 m under"),
        ({"position": (19.7, 0.0, 2.0)}, r"outside the DEM, which covers x in \[0, 20\]"),
    ],
)
def test_initial_state_refuses_bad_states_naming_them(settings, message):
    """The box (half-height 0.3 m) on flat ground z = 0 over x in [0, 20]: 1 cm too low is below
    the terrain; its corners at x = 19.7 + 0.5 leave the grid."""
    model, _ = flat_model()
    arguments = {"position": (3.0, 0.0, 2.0), **settings}
    with pytest.raises(ValueError, match=message):
        initial_state(model, **arguments)


# --- the bound on dt -------------------------------------------------------------------------


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


# --- the states of many rocks ---------------------------------------------------------------


def test_initial_states_are_initial_state_for_every_rock():
    """The batch set-up of an ensemble gives, bit for bit, the state initial_state gives each
    rock (two shapes, scaled, random orientations, some quaternions slightly off unit norm),
    and names the first rock it refuses with initial_state's reason."""
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
