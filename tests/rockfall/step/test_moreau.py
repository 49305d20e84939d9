"""The Moreau step of one rock (tumble.rockfall.step.moreau, Leine et al. 2021 section 5 on the
contact model of Leine et al. 2014, L14): one step against its update equations (eq. 79-87), a
rock at rest that stays at rest, the energy of plastic frictional impacts, trajectories with
known answers (free flight, rebound, sliding and sticking, the tipping and wheel examples of L14,
the discrete energy balance of L14 eq. 54, rolling resistance), and the guards and shortcuts of
the step (penetration, the flight shortcut, the carried orientation increment)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.freerot import integrate
from tumble.rockfall import Options, Rock, Soil, Terrain, simulate
from tumble.rockfall.status import OK, PENETRATED, REGULAR, RockStatus
from tumble.rockfall.step.buffers import (
    D_CONTACT_WORK,
    D_CONTACTS,
    D_DRAG,
    D_DRAG_WORK,
    D_LOADED,
    N_BOUNDS,
    N_DIAG,
    reset_bounds,
)
from tumble.rockfall.step.contact import NCOL
from tumble.rockfall.step.model import (
    S_OMEGA,
    S_P,
    S_R,
    S_SLIP,
    S_V,
    hull_radius,
    initial_state,
    pack_model,
)
from tumble.rockfall.step.moreau import rock_step
from tumble.rotation.quaternion import quat_exp, quat_rotate, quat_to_matrix

G = 9.81
SCHEMES = ("explicit", "implicit")
BOX = (1.0, 0.8, 0.6)


def flat_model(dt: float = 0.002):
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(*BOX, density=2500.0)
    return pack_model(terrain, rock, Soil.preset("medium"), Options(dt=dt)), rock


def fresh_bounds(model) -> np.ndarray:
    bounds = np.empty(N_BOUNDS)
    reset_bounds(bounds, model.vertices, model.body)
    return bounds


def buffers(model):
    """The per-rock buffers of :func:`rock_step`: contacts, diagnostics, bounds."""
    return np.zeros((model.vertices.shape[0], NCOL)), np.zeros(N_DIAG), fresh_bounds(model)


def total_energy(model, state) -> float:
    """``m |v|^2 / 2 + omega . Theta omega / 2 + m g z``."""
    mass, inertia = model.body[0], model.body[1:]
    v, w = state[S_V : S_V + 3], state[S_OMEGA : S_OMEGA + 3]
    return 0.5 * mass * (v @ v) + 0.5 * (inertia * w) @ w + mass * G * state[S_R + 2]


def skew(w) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def half_step(p, w, h) -> np.ndarray:
    """``normalise(p + h F(p) w)`` with ``F(p) w = (-e . w, e0 w + e x w) / 2`` (L21 eq. 11-12,
    the midpoint of eq. 79 and the update of eq. 83)."""
    e0, e = p[0], p[1:]
    f = 0.5 * np.concatenate([[-e @ w], e0 * w + np.cross(e, w)])
    q = p + h * f
    return q / np.linalg.norm(q)


def tilted(angle_rad: float) -> tuple[float, float, float, float]:
    """Quaternion of a rotation about y: body z along the normal of a plane descending along +x."""
    return (math.cos(0.5 * angle_rad), 0.0, math.sin(0.5 * angle_rad), 0.0)


def slope_axes(slope_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Downhill unit vector and upward unit normal of :meth:`Terrain.plane`."""
    a = math.radians(slope_deg)
    return np.array([math.cos(a), 0.0, -math.sin(a)]), np.array([math.sin(a), 0.0, math.cos(a)])


def resting_on(terrain, slope_deg: float, x: float, half_height: float) -> np.ndarray:
    """Centre of a block whose bottom face lies on the plane below (x, 0)."""
    _, normal = slope_axes(slope_deg)
    return np.array([x, 0.0, float(terrain.height(x, 0.0))]) + half_height * normal


def tilt_from_normal(traj, normal) -> np.ndarray:
    """Angle (rad) between the body z axis and the slope normal at every sample."""
    body_z = quat_rotate(traj.orientation, np.array([0.0, 0.0, 1.0]))
    return np.arctan2(np.linalg.norm(np.cross(body_z, normal), axis=1), body_z @ normal)


# --- one step against the update equations ---------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_free_step_is_the_ballistic_parabola(scheme):
    """A rock 40 m above flat ground, no drag: the midpoint rule integrates the constant gravity
    exactly, ``r_E = r_B + dt v_B - g dt^2 / 2 e_z``, ``v_E = v_B - g dt e_z`` (eq. 79, 81, 83);
    no contact, no contact or drag work; the slippage decays as ``s_B exp(-beta dt)`` (L14 eq.
    51). To round-off (1e-13 m, m/s)."""
    terrain = Terrain.plane(0.0, size=(100.0, 100.0), spacing=10.0)
    soil = Soil(mu_min=0.2, mu_max=1.3, kappa=0.7, beta=20.0)
    dt = 0.002
    model = pack_model(terrain, Rock.eota221(mass=780.0), soil, Options(scheme=scheme, dt=dt))
    r_b, v_b = np.array([50.0, 40.0, 40.0]), np.array([7.0, -3.0, 12.0])
    state = initial_state(
        model, r_b, quat_exp(np.array([0.3, -0.2, 0.9])), v_b, (1.0, -4.0, 6.0), slippage=0.5
    )
    contacts, diag, bounds = buffers(model)
    assert rock_step(*model, state, contacts, diag, bounds) == OK
    gravity = np.array([0.0, 0.0, -G])
    np.testing.assert_allclose(
        state[S_R : S_R + 3], r_b + dt * v_b + 0.5 * dt * dt * gravity, rtol=0, atol=1e-13
    )
    np.testing.assert_allclose(state[S_V : S_V + 3], v_b + dt * gravity, rtol=0, atol=1e-13)
    assert state[S_SLIP] == pytest.approx(0.5 * math.exp(-20.0 * dt), rel=1e-15)
    assert diag[D_CONTACTS] == 0 and diag[D_CONTACT_WORK] == 0.0
    assert diag[D_DRAG] == 0.0 and diag[D_DRAG_WORK] == 0.0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_free_step_solves_the_rotation_update_of_its_scheme(scheme):
    """The angular velocity and orientation of one free step, against the equations of L21
    solved here with numpy, for an asymmetric box spinning about all three axes:

    * explicit: ``(Theta + h G(w_B)) w_E = (Theta - h G(w_B)) w_B`` with
      ``G(w) = Theta w~ + w~ Theta`` (eq. 80, 82), and ``p_E`` from the two half steps
      ``p_M = normalise(p_B + h F(p_B) w_B)``, ``p_E = normalise(p_M + h F(p_M) w_E)`` (eq. 79,
      83), to 1e-13;
    * implicit: ``Theta (w_E - w_B) + dt w_m x (Theta w_m) = 0``, ``w_m = (w_B + w_E) / 2``
      (eq. 84), residual below 1e-10 of ``|Theta w|``, and the spin (angular momentum in the
      inertial frame) kept by the orientation update of eq. 87, ``A_E Theta w_E = A_B Theta w_B``,
      to 1e-12 relative.

    Both keep the rotational energy exactly (G is skew; the midpoint rule), to 1e-13."""
    terrain = Terrain.plane(0.0, size=(100.0, 100.0), spacing=10.0)
    dt, h = 0.002, 0.001
    model = pack_model(terrain, Rock.box(*BOX), Soil.coulomb(0.5), Options(scheme=scheme, dt=dt))
    theta = np.diag(model.body[1:])
    p_b = np.array(quat_exp(np.array([0.7, 0.1, -0.4])))
    w_b = np.array([3.0, -7.0, 11.0])
    state = initial_state(model, (50.0, 0.0, 30.0), p_b, omega=w_b)
    contacts, diag, bounds = buffers(model)
    assert rock_step(*model, state, contacts, diag, bounds) == OK
    w_e, p_e = state[S_OMEGA : S_OMEGA + 3], state[S_P : S_P + 4]
    energy_b, energy_e = w_b @ theta @ w_b, w_e @ theta @ w_e
    assert energy_e == pytest.approx(energy_b, rel=1e-13)
    if scheme == "explicit":
        g = theta @ skew(w_b) + skew(w_b) @ theta
        expected = np.linalg.solve(theta + h * g, (theta - h * g) @ w_b)
        np.testing.assert_allclose(w_e, expected, rtol=0, atol=1e-13 * np.linalg.norm(w_b))
        p_expected = half_step(half_step(p_b, w_b, h), w_e, h)
        np.testing.assert_allclose(p_e, p_expected, rtol=0, atol=1e-13)
    else:
        w_m = 0.5 * (w_b + w_e)
        residual = theta @ (w_e - w_b) + dt * np.cross(w_m, theta @ w_m)
        assert np.linalg.norm(residual) < 1e-10 * np.linalg.norm(theta @ w_b)
        spin_b = quat_to_matrix(p_b) @ theta @ w_b
        spin_e = quat_to_matrix(p_e) @ theta @ w_e
        np.testing.assert_allclose(spin_e, spin_b, rtol=0, atol=1e-12 * np.linalg.norm(spin_b))
    assert np.linalg.norm(p_e) == pytest.approx(1.0, abs=1e-15)


# --- rest and impacts ------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("slope", "mu"), [(0.0, 0.5), (20.0, 0.7)])
def test_a_rock_resting_on_a_plane_stays_at_rest(scheme, slope, mu):
    """A box lying on a face at rest, on flat ground and on a 20 degree slope with mu = 0.7 >
    tan 20 deg = 0.36 (sticking): over 500 steps (1 s) its four bottom corners stay closed and
    loaded, and position, orientation, velocity and angular velocity stay at their initial
    values to 1e-12 (the percussions of each step cancel gravity to the Gauss-Seidel
    tolerance, 1e-10 relative)."""
    terrain = Terrain.plane(slope, size=(20.0, 10.0), spacing=1.0)
    model = pack_model(
        terrain, Rock.box(*BOX, density=2500.0), Soil.coulomb(mu), Options(scheme=scheme)
    )
    a = math.radians(slope)
    start = resting_on(terrain, slope, 10.0, 0.5 * BOX[2])
    state = initial_state(model, start, tilted(a))
    initial = state.copy()
    contacts, diag, bounds = buffers(model)
    for _ in range(500):
        assert rock_step(*model, state, contacts, diag, bounds) == OK
        assert diag[D_CONTACTS] == 4 and diag[D_LOADED] == 4
    np.testing.assert_allclose(state[:S_SLIP], initial[:S_SLIP], rtol=0, atol=1e-12)
    assert state[S_SLIP] < 1e-12


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_plastic_frictional_impact_never_gains_energy(scheme):
    """Ten boxes dropped with random orientation, velocity and spin on flat ground with eps_N = 0
    and mu = 0.6, 400 steps each (landing, tumbling, sliding). With P the percussions,
    ``gamma_E`` the contact velocities after the step and ``G`` the Delassus matrix, the energy
    change of a step is (L14 eq. 54 with ``u_E = u_free + M^-1 W P``)::

        dE = P . gamma_E - P . G P / 2 + (g dt / 2) J_z + h (W_omega P) . A^-1 (w_B x Theta w_B)

    ``P . gamma_E <= 0`` (plastic impact, Coulomb friction opposing the slip), ``P . G P >= 0``;
    ``J_z = m (v_E,z - v_B,z + g dt)`` is the vertical percussion, whose work over gravity's half
    step is the only energy a contact can add; the last term, with
    ``A = Theta + h G(w_B)`` and ``W_omega P = A (w_E - w_B) + dt w_B x Theta w_B``, is the
    explicit scheme's gyroscopic term (zero for the implicit one, whose contact step starts from
    the free solution). So in every step ``dE <= (g dt / 2) J_z + gyro`` (to 1e-13 of E), and at
    each landing, where the contact closes at metres per second (far above g dt), the impact
    loses energy: ``dE < 0``."""
    rng = np.random.default_rng(1)
    terrain = Terrain.plane(0.0, size=(40.0, 40.0), spacing=2.0)
    options = Options(scheme=scheme, pgs_tol=1e-12, pgs_max_iter=5000)
    model = pack_model(terrain, Rock.box(*BOX, density=2500.0), Soil.coulomb(0.6), options)
    mass, dt, h = model.body[0], options.dt, 0.5 * options.dt
    theta = np.diag(model.body[1:])
    landings = []
    worst = -np.inf
    for _ in range(10):
        state = initial_state(
            model,
            (20.0 + rng.uniform(-3, 3), rng.uniform(-3, 3), 1.0 + rng.uniform(0, 1)),
            quat_exp(rng.normal(size=3)),
            (2.0 * rng.normal(), 2.0 * rng.normal(), -2.0),
            3.0 * rng.normal(size=3),
        )
        contacts, diag, bounds = buffers(model)
        flying = True
        for _ in range(400):
            before = state.copy()
            assert rock_step(*model, state, contacts, diag, bounds) == OK
            change = total_energy(model, state) - total_energy(model, before)
            bound = 0.5 * G * dt * mass * (state[S_V + 2] - before[S_V + 2] + G * dt)
            if scheme == "explicit":
                w_b, w_e = before[S_OMEGA : S_OMEGA + 3], state[S_OMEGA : S_OMEGA + 3]
                a = theta + h * (theta @ skew(w_b) + skew(w_b) @ theta)
                gyro = np.cross(w_b, theta @ w_b)
                bound += h * (a @ (w_e - w_b) + dt * gyro) @ np.linalg.solve(a, gyro)
            worst = max(worst, (change - bound) / total_energy(model, before))
            if flying and diag[D_LOADED] > 0:
                landings.append(change)
            flying = flying and diag[D_LOADED] == 0
    assert worst < 1e-13
    assert len(landings) == 10 and max(landings) < 0.0


# --- trajectories with known answers (through simulate) ---------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
def test_free_flight(scheme):
    """No contact: exact parabola, constant rotational energy (both), constant spin (implicit)."""
    terrain = Terrain.plane(0.0, size=(200.0, 200.0), spacing=10.0)
    rock = Rock.eota221(mass=780.0)
    r0, v0 = np.array([60.0, -20.0, 100.0]), np.array([10.0, 5.0, 20.0])
    traj = simulate(
        terrain,
        rock,
        Soil.coulomb(0.5),
        r0,
        quat_exp(np.array([0.4, -1.0, 0.3])),
        v0,
        omega=(1.0, 2.0, 8.0),
        scheme=scheme,
        dt=0.002,
        t_max=2.0,
    )
    assert traj.status == "timed_out" and not traj.in_contact.any()
    t = traj.t[:, None]
    parabola = r0 + v0 * t + np.array([0.0, 0.0, -0.5 * G]) * t**2
    np.testing.assert_allclose(traj.position, parabola, rtol=0, atol=1e-10)
    rot = traj.rotational_energy()
    assert np.abs(rot / rot[0] - 1.0).max() < 1e-13
    np.testing.assert_allclose(np.linalg.norm(traj.orientation, axis=1), 1.0, atol=1e-15)
    if scheme == "implicit":
        spin = traj.spin()
        assert np.abs(spin - spin[0]).max() < 1e-12 * np.linalg.norm(spin[0])


def test_box_rebound_and_rest():
    """A flat box dropped 2 m on horizontal ground rebounds with eps_N times its impact speed;
    with eps_N = 0 it comes to rest."""
    terrain = Terrain.plane(0.0, size=(20.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 1.0)
    drop = 2.0
    impact_speed = math.sqrt(2.0 * G * drop)
    for scheme in SCHEMES:
        bounce = simulate(
            terrain,
            rock,
            Soil.coulomb(0.5, restitution=0.5),
            (10.0, 0.0, 0.5 + drop),
            scheme=scheme,
            t_max=1.0,
        )
        vz = bounce.velocity[:, 2]
        k = int(np.argmax(vz > 0.0))
        assert k > 0 and bounce.in_contact[k]
        assert abs(-vz[k - 1] / impact_speed - 1.0) < 0.01
        assert abs(vz[k] / -vz[k - 1] - 0.5) < 0.005
        assert np.abs(bounce.omega).max() < 1e-9 and np.abs(bounce.velocity[:, :2]).max() < 1e-9

        rest = simulate(
            terrain,
            rock,
            Soil.coulomb(0.5, restitution=0.0),
            (10.0, 0.0, 0.5 + drop),
            scheme=scheme,
            t_max=10.0,
        )
        assert rest.status == "stopped"
        assert rest.t[-1] < 3.0
        assert np.abs(rest.velocity[-1]).max() < 1e-9
        # resting with at most half a step of penetration of the impact (Moreau, no projection)
        assert 0.5 - 0.5 * 0.002 * impact_speed - 1e-9 < rest.position[-1, 2] <= 0.5 + 1e-9


@pytest.mark.parametrize("scheme", SCHEMES)
def test_box_slides_and_sticks_on_30_degrees(scheme):
    """mu = 0.3: acceleration g (sin a - mu cos a); mu = 0.7: at rest within 1 mm over 2 s."""
    slope = 30.0
    a = math.radians(slope)
    terrain = Terrain.plane(slope, size=(100.0, 20.0), spacing=1.0)
    rock = Rock.box(1.0, 1.0, 1.0)
    downhill, _ = slope_axes(slope)
    start = resting_on(terrain, slope, 10.0, 0.5)

    slide = simulate(terrain, rock, Soil.coulomb(0.3), start, tilted(a), scheme=scheme, t_max=2.0)
    assert slide.in_contact[1:].all() and (slide.n_loaded[1:] == 4).all()
    along = slide.velocity @ downhill
    acceleration = (along[-1] - along[1]) / (slide.t[-1] - slide.t[1])
    expected = G * (math.sin(a) - 0.3 * math.cos(a))
    assert abs(acceleration / expected - 1.0) < 1e-6
    assert np.abs(slide.omega).max() < 1e-9

    stick = simulate(
        terrain,
        rock,
        Soil.coulomb(0.7),
        start,
        tilted(a),
        scheme=scheme,
        t_max=2.0,
        rest_time=5.0,
    )
    assert stick.status == "timed_out" and stick.t[-1] == pytest.approx(2.0)
    assert np.linalg.norm(stick.position - start, axis=1).max() < 1e-3
    assert stick.pgs_cap_hits == 0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_l14_tipping_when_friction_reaches_one(scheme):
    """L14 section 5.1: a 2 x 10 x 2 m block (long side across the slope) slides on its front and
    rear edges down 45 degrees with mu(s) (0.2, 1.3, 0.7 1/m); the rear edge unloads and the
    block tips over once mu(s) = 1, i.e. s = tan(0.8 pi / 2.2) / 0.7 = 3.128 m (the tipping
    condition of a block with its centre of mass as high as half its length: mu = 1)."""
    slope = 45.0
    a = math.radians(slope)
    terrain = Terrain.plane(slope, size=(60.0, 30.0), spacing=1.0)
    rock = Rock.box(2.0, 10.0, 2.0, density=3000.0)
    soil = Soil(mu_min=0.2, mu_max=1.3, kappa=0.7, beta=20.0)
    s_tip = math.tan(0.8 * math.pi / 2.2) / 0.7
    assert float(soil.mu(s_tip)) == pytest.approx(1.0, abs=1e-12)
    start = resting_on(terrain, slope, 5.0, 1.0)
    traj = simulate(terrain, rock, soil, start, tilted(a), scheme=scheme, t_max=3.0)

    _, normal = slope_axes(slope)
    tilt = tilt_from_normal(traj, normal)
    k = int(np.argmax(traj.n_loaded[1:] < 4)) + 1
    assert (traj.n_loaded[1:k] == 4).all()
    assert abs(traj.slippage[k] / s_tip - 1.0) < 0.01
    assert abs(traj.mu[k] - 1.0) < 2e-3
    assert tilt[:k].max() < 1e-9
    assert tilt.max() > math.radians(45.0)


def test_l14_wheel_ends_about_the_major_axis():
    """L14 section 5.2: a 2.5 x 3 x 1 m box (rho 3000) released on an edge, rolling at 28 m/s with
    20.8 rad/s about its minor axis y down 27 degrees (mu = 10, eps = 0). With small random
    perturbations of the spin, the implicit scheme often ends rolling as a wheel about the major
    axis z (stable, extended intermediate axis theorem; 10 of these 24 releases, 50 to 75 % for
    other draws); the explicit scheme rarely does (0 of 24, up to 15 % for other draws): its rocks
    tumble and lie down. Ends as a wheel: still moving at t_max and |N_z| / |N| > 0.9 over the
    last 5 s. The transition is chaotic, hence a count over releases, not one trajectory."""
    slope = 27.0
    a = math.radians(slope)
    terrain = Terrain.plane(slope, size=(2000.0, 1200.0), spacing=20.0)
    rock = Rock.box(2.5, 3.0, 1.0, density=3000.0)
    assert np.argmax(rock.inertia) == 2 and np.argmin(rock.inertia) == 1
    downhill, normal = slope_axes(slope)
    on_edge = a - math.atan(2.5)  # the diagonal of the x-z section along the normal
    radius = math.hypot(1.25, 0.5)
    start = np.array([40.0, 0.0, float(terrain.height(40.0, 0.0))]) + (radius + 1e-3) * normal
    perturbations = np.random.default_rng(2014).normal(0.0, 0.3, size=(24, 2))
    wheels = {}
    for scheme in SCHEMES:
        count = 0
        for wx, wz in perturbations:
            traj = simulate(
                terrain,
                rock,
                Soil.coulomb(10.0),
                start,
                tilted(on_edge),
                28.0 * downhill,
                (wx, 20.8, wz),
                scheme=scheme,
                t_max=40.0,
                save_every=25,
            )
            spin = traj.omega * traj.inertia
            major = np.abs(spin[:, 2]) / np.linalg.norm(spin, axis=1).clip(1e-300)
            last = traj.t > traj.t[-1] - 5.0
            count += traj.status != "stopped" and major[last].mean() > 0.9
        wheels[scheme] = count
    assert wheels["implicit"] >= 8, wheels
    assert wheels["explicit"] <= wheels["implicit"] - 6, wheels


@pytest.mark.parametrize("scheme", SCHEMES)
def test_energy_balance_per_step(scheme):
    """L14 eq. 54 for the discrete scheme: T + V changes by the contact plus drag work of every
    step, to round-off (impacts with restitution, friction growing with slippage, drag layer)."""
    terrain = Terrain.plane(40.0, size=(200.0, 60.0), spacing=2.0)
    rock = Rock.eota221(mass=780.0)
    soil = Soil(
        mu_min=0.55,
        mu_max=2.0,
        kappa=3.0,
        beta=185.0,
        restitution=0.3,
        drag=200.0,
        drag_torque=50.0,
        drag_height=1.0,
    )
    traj = simulate(
        terrain,
        rock,
        soil,
        (20.0, 0.0, float(terrain.height(20.0, 0.0)) + 1.5),
        quat_exp(np.array([0.3, -0.7, 0.4])),
        (5.0, 1.0, 0.0),
        (1.0, -2.0, 3.0),
        scheme=scheme,
        t_max=6.0,
    )
    assert traj.in_contact.sum() > 50 and traj.in_drag.sum() > 50
    assert traj.contact_work.min() < -1e3 and traj.drag_work.min() < -10.0
    energy = traj.kinetic_energy() + traj.potential_energy()
    residual = np.diff(energy) - traj.contact_work[1:] - traj.drag_work[1:]
    assert np.abs(residual).max() < 1e-13 * np.abs(energy).max()


def valley_and_wheel() -> tuple[Terrain, Rock]:
    """A valley along y with 20 degree flanks and a rounded bottom (z = tan 20 deg sqrt((x -
    60)^2 + 100)), and a 48-sided wheel (radius 0.5 m, 0.3 m thick, rho 2700) standing on it:
    with plastic impacts (eps_N = 0) it loses only a little energy per vertex and rolls back and
    forth like a wheel on a hard surface."""
    x = np.arange(0.0, 121.0)
    heights = np.tile(math.tan(math.radians(20.0)) * np.sqrt((x - 60.0) ** 2 + 100.0), (41, 1))
    terrain = Terrain(heights=heights, x0=0.0, y0=0.0, dx=1.0, dy=1.0)
    angle = 2.0 * np.pi * np.arange(48) / 48
    ring = 0.5 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    points = np.concatenate([np.c_[ring, np.full(48, 0.15)], np.c_[ring, np.full(48, -0.15)]])
    return terrain, Rock.from_points(points, density=2700.0)


def roll_in_valley(scheme: str, rolling_resistance: float, **settings):
    terrain, wheel = valley_and_wheel()
    upright = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)  # wheel axis along y
    start = (40.0, 20.0, float(terrain.height(40.0, 20.0)) + 0.7)
    soil = Soil.coulomb(0.8, rolling_resistance=rolling_resistance)
    return simulate(
        terrain,
        wheel,
        soil,
        start,
        upright,
        (3.0, 0.0, -1.0),
        (0.0, 0.0, 6.0),
        scheme=scheme,
        **settings,
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_rolling_resistance_stops_a_wheel_that_rolls_until_t_max(scheme):
    """Without rolling resistance the wheel rolls across the valley bottom until t_max (60 s);
    with it (mu_r = 0.03, a test input, not a soil value) it comes to rest at the bottom. The
    default (0) leaves every step bit-identical to the model without the term."""
    free = roll_in_valley(scheme, 0.0, t_max=60.0, save_every=50)
    assert free.status == "timed_out"
    assert np.ptp(free.position[free.t > 50.0, 0]) > 1.0  # still rolling at the end
    damped = roll_in_valley(scheme, 0.03, t_max=60.0, save_every=50)
    assert damped.status == "stopped" and damped.t[-1] < 45.0
    assert abs(damped.position[-1, 0] - 60.0) < 2.0
    default = roll_in_valley(scheme, 0.0, t_max=5.0)
    terrain, wheel = valley_and_wheel()
    upright = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    start = (40.0, 20.0, float(terrain.height(40.0, 20.0)) + 0.7)
    plain = simulate(
        terrain,
        wheel,
        Soil(mu_min=0.8, mu_max=0.8, kappa=0.0, beta=0.0),
        start,
        upright,
        (3.0, 0.0, -1.0),
        (0.0, 0.0, 6.0),
        scheme=scheme,
        t_max=5.0,
    )
    assert np.array_equal(default.position, plain.position)
    assert np.array_equal(default.omega, plain.omega)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_rolling_resistance_work_closes_the_energy_balance(scheme):
    """L14 eq. 54 with the rolling-resistance impulse H: T + V changes by the contact work plus
    H . omega_m (reported with the drag work, here the only drag term). H opposes the angular
    velocity before the impulse, so H . omega_m is never positive in a step where the spin about
    the wheel axis (body z) keeps its sign; in a step where it reverses, omega_m may point
    along H."""
    traj = roll_in_valley(scheme, 0.03, t_max=10.0)
    energy = traj.kinetic_energy() + traj.potential_energy()
    residual = np.diff(energy) - traj.contact_work[1:] - traj.drag_work[1:]
    assert np.abs(residual).max() < 1e-12 * np.abs(energy).max()
    spin = traj.omega[:, 2]
    keeps_sign = np.sign(spin[1:]) == np.sign(spin[:-1])
    assert keeps_sign.mean() > 0.99
    assert traj.drag_work[1:][keeps_sign].max() <= 0.0 and traj.drag_work.sum() < -100.0


def test_free_flight_orientation_is_the_spin_preserving_update():
    """A free flight of an axisymmetric rock takes each step's orientation increment from the
    step before, turned by the free precession (:func:`free_precession`): over 5000 steps the
    orientation stays within 1e-12 of the update of eq. 66-75 taken afresh at every step (the
    implicit free-rotation scheme), and omega equals that scheme's bit for bit."""
    terrain = Terrain.plane(0.0, size=(4000.0, 4000.0), spacing=100.0)
    rock = Rock.eota221(mass=780.0)
    q0 = quat_exp(np.array([0.4, -1.0, 0.3]))
    omega0 = (4.0, -7.0, 12.0)
    traj = simulate(
        terrain,
        rock,
        Soil.coulomb(0.5),
        (2000.0, 0.0, 2000.0),
        q0,
        (0.0, 0.0, 0.0),
        omega=omega0,
        scheme="implicit",
        dt=0.002,
        t_max=10.0,
    )
    assert traj.status == "timed_out" and not traj.in_contact.any()
    free = integrate("implicit", rock.inertia, omega0, q0, dt=0.002, t_end=10.0)
    assert len(free.t) == len(traj.t) == 5001
    np.testing.assert_array_equal(traj.omega, free.omega)
    sign = np.sign(np.sum(traj.orientation * free.q, axis=1))[:, None]
    assert np.abs(traj.orientation - sign * free.q).max() < 1e-12


# --- the guards and shortcuts of the step ------------------------------------------------------


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
    from tumble.rockfall.step.buffers import B_X
    from tumble.rockfall.step.contact import C_VERTEX, C_W
    from tumble.rockfall.step.detection import find_contacts
    from tumble.rockfall.step.model import O_DT, O_GAP_TOL
    from tumble.rotation.quaternion import q_normalize

    rng = np.random.default_rng(11)
    x = np.arange(80.0)
    heights = -0.7 * x[None, :] + rng.normal(0.0, 0.15, (30, 80))
    terrain = Terrain.from_array(heights, 0.0, -15.0, 1.0)
    rock = Rock.box(*BOX, density=2500.0)
    # without the scar layer: the full vertex search below knows no scar floor
    soil = Soil.preset("medium", scar_strength=0.0, scar_cs=0.0)
    model = pack_model(terrain, rock, soil, Options(dt=0.002))
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
