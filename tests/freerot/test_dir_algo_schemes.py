"""DIR.EM (Betsch & Steinmann 2001) and ALGO_C1 (Simo & Wong 1991): their exact invariants, the
defining equations of one step, fitted orders against a tight ODE solution, the major-axis
stability of the Leine cuboid and the heavy top of Betsch & Siebert 2009, section 5.2."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tumble.freerot import exact, integrate, step
from tumble.freerot.algo_c1 import AlgoC1
from tumble.freerot.dir_em import DirEM, director_energy, director_spin, euler_tensor
from tumble.freerot.heavy_top import HeavyTop
from tumble.rotation import quat_conj, quat_exp, quat_log, quat_mul, quat_rotate, quat_to_matrix
from tumble.status import KernelError, Status

CUBOID = (5 / 12, 10 / 12, 13 / 12)  # Leine et al. 2021, section 4.3: 1 kg, 3 x 2 x 1 m
BETSCH = (6.0, 8.0, 3.0)  # Betsch & Siebert 2009, section 5.1
BETSCH_OMEGA0 = (10.0, 20.0, 20.0)
SCHEMES = ("dir_em", "algo_c1")
Q_TILTED = quat_exp(np.array([0.3, -0.7, 1.1]))


def relative_drift(values):
    values = np.asarray(values)
    if values.ndim == 1:
        return np.abs(values / values[0] - 1.0).max()
    return np.linalg.norm(values - values[0], axis=1).max() / np.linalg.norm(values[0])


def directors(traj):
    """Director matrices X with columns d_i, shape (n, 3, 3), from DIR.EM states."""
    return np.swapaxes(traj.state[:, 7:16].reshape(-1, 3, 3), 1, 2)


def velocities(traj):
    return np.swapaxes(traj.state[:, 16:25].reshape(-1, 3, 3), 1, 2)


@pytest.mark.parametrize("omega0", [(1e-3, 1e-3, 10.0), (1.0, 2.0, 3.0)])
@pytest.mark.parametrize("name", SCHEMES)
def test_exact_invariants_over_2000_steps(name, omega0):
    """Energy, spin vector and magnitude, unit quaternion to 1e-12 over 2000 steps of 0.01 s."""
    traj = integrate(name, CUBOID, omega0, Q_TILTED, dt=0.01, t_end=20.0)
    assert len(traj) == 2001
    spin = traj.spin()
    assert relative_drift(spin) < 1e-12
    assert relative_drift(np.linalg.norm(spin, axis=1)) < 1e-12
    assert np.abs(traj.quaternion_norm() - 1.0).max() < 1e-12
    if name == "algo_c1":
        assert relative_drift(traj.energy()) < 1e-12
        return
    # DIR.EM keeps T = 1/2 sum D_i |v_i|^2 and L = sum D_i d_i x v_i of its director velocities
    assert relative_drift(director_energy(traj.state, CUBOID)) < 1e-12
    assert relative_drift(director_spin(traj.state, CUBOID)) < 1e-12
    np.testing.assert_allclose(spin, director_spin(traj.state, CUBOID), rtol=0, atol=1e-12)
    x = directors(traj)
    assert np.abs(np.swapaxes(x, 1, 2) @ x - np.eye(3)).max() < 1e-12
    np.testing.assert_allclose(quat_to_matrix(traj.q), x, rtol=0, atol=1e-12)


def test_dir_em_angular_velocity_energy_falls_short_by_order_four():
    """The energy of W (the projection of the director velocities on the tangent space) is at
    most the director energy; the gap, the kinetic energy of the hidden-constraint violation,
    shrinks like dt^4."""
    gaps = []
    for dt in (0.02, 0.01):
        traj = integrate("dir_em", CUBOID, (1.0, 2.0, 3.0), dt=dt, t_end=2.0)
        exact_energy = director_energy(traj.state, CUBOID)
        assert np.all(traj.energy() <= exact_energy * (1 + 1e-14))
        gaps.append(np.max(1.0 - traj.energy() / exact_energy))
    assert gaps[1] < 1e-8
    assert 12.0 < gaps[0] / gaps[1] < 20.0, gaps


def test_dir_em_velocities_violate_the_hidden_constraints_to_second_order():
    """Only d_i . d_j = delta_ij is imposed; sym(X^T V) is O(dt^2), so W must come from the
    projection, not be read off as the skew part alone (that would drift in spin)."""
    sizes = []
    for dt in (0.02, 0.01):
        traj = integrate("dir_em", CUBOID, (1.0, 2.0, 3.0), dt=dt, t_end=2.0)
        g = np.swapaxes(directors(traj), 1, 2) @ velocities(traj)
        sizes.append(np.abs(g + np.swapaxes(g, 1, 2)).max())
    assert 1e-5 < sizes[1] < 1e-2
    assert 3.5 < sizes[0] / sizes[1] < 4.5


POTENTIAL = (7.0, 0.01, -0.02, 0.05)


@pytest.mark.parametrize("potential", [None, POTENTIAL])
def test_dir_em_step_satisfies_the_director_equations(potential):
    """One step solves d1 - d0 = dt/2 (v0 + v1), D_i (v1 - v0)_i = -dt sum_j Lambda_ij
    (d_j)_mid - dt M g c_i e_z with Lambda symmetric, and d_i . d_j = delta_ij at the new step;
    the second step starts from velocities off the tangent space."""
    dt = 0.05
    omega0 = np.array([1.5, -2.0, 4.0])
    y = DirEM().initial_state(np.array(CUBOID), Q_TILTED, omega0, dt, potential)
    d = np.diag(euler_tensor(CUBOID))
    weight, com = (0.0, np.zeros(3)) if potential is None else (potential[0], potential[1:])
    force = weight * np.outer([0.0, 0.0, 1.0], com)  # columns: M g c_i e_z
    for _ in range(2):
        y1 = step("dir_em", CUBOID, y, dt, potential)
        x0, x1 = (s[7:16].reshape(3, 3).T for s in (y, y1))
        v0, v1 = (s[16:25].reshape(3, 3).T for s in (y, y1))
        np.testing.assert_allclose(x1.T @ x1, np.eye(3), rtol=0, atol=1e-14)
        np.testing.assert_allclose(x1 - x0, 0.5 * dt * (v0 + v1), rtol=0, atol=1e-14)
        lam = -np.linalg.solve(0.5 * (x0 + x1), (v1 - v0) @ d + dt * force) / dt
        assert np.abs(lam).max() > 1.0
        np.testing.assert_allclose(lam, lam.T, rtol=0, atol=1e-11 * np.abs(lam).max())
        y = y1


def test_dir_em_initial_state_is_the_director_frame():
    y = DirEM().initial_state(np.array(CUBOID), Q_TILTED, np.array([1.0, 2.0, 3.0]), 0.01, None)
    r = quat_to_matrix(Q_TILTED)
    x = y[7:16].reshape(3, 3).T
    v = y[16:25].reshape(3, 3).T
    np.testing.assert_allclose(x, r, atol=1e-15)
    omega_space = r @ np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(v, np.cross(omega_space, x.T).T, atol=1e-14)


def test_algo_c1_step_satisfies_its_defining_equations():
    """Theta = dt/2 (W0 + W1), q1 = q0 (x) exp(Theta), Theta W1 = exp(Theta~)^T Theta W0."""
    dt = 0.05
    inertia = np.array(BETSCH)
    y0 = np.concatenate([Q_TILTED, BETSCH_OMEGA0])
    y1 = step("algo_c1", inertia, y0, dt)
    theta = quat_log(quat_mul(quat_conj(y0[:4]), y1[:4]))
    assert np.linalg.norm(theta) > 1.0  # a large step: the equations are far from linear
    np.testing.assert_allclose(theta, 0.5 * dt * (y0[4:] + y1[4:]), rtol=1e-13, atol=0)
    m1 = quat_rotate(quat_exp(theta), inertia * y0[4:], inverse=True)
    np.testing.assert_allclose(inertia * y1[4:], m1, rtol=1e-13, atol=0)


def euler_quaternion_rhs(inertia):
    inertia = np.asarray(inertia)

    def rhs(_t, y):
        q, w = y[:4], y[4:]
        dq = 0.5 * quat_mul(q, np.concatenate([[0.0], w]))
        return np.concatenate([dq, -np.cross(w, inertia * w) / inertia])

    return rhs


def attitude_error(r, r_ref):
    """e = || R_ref R^T - I ||_F (Betsch & Siebert 2009, section 5.1.2)."""
    return np.linalg.norm(r_ref @ r.T - np.eye(3))


@pytest.fixture(scope="module")
def betsch_reference():
    y0 = np.concatenate([[1.0, 0.0, 0.0, 0.0], BETSCH_OMEGA0])
    sol = solve_ivp(
        euler_quaternion_rhs(BETSCH), (0.0, 1.0), y0, method="DOP853", rtol=1e-13, atol=1e-13
    )
    q = sol.y[:4, -1]
    return quat_to_matrix(q / np.linalg.norm(q))


@pytest.mark.parametrize("name", SCHEMES)
def test_fitted_convergence_order(name, betsch_reference):
    """Log-log slope of the attitude error at T = 1 on the Betsch & Siebert free body."""
    steps = np.array([100, 200, 400, 800])
    errors = [
        attitude_error(
            quat_to_matrix(integrate(name, BETSCH, BETSCH_OMEGA0, dt=1.0 / n, save_every=n).q[-1]),
            betsch_reference,
        )
        for n in steps
    ]
    slope = np.polyfit(np.log(1.0 / steps), np.log(errors), 1)[0]
    assert abs(slope - 2.0) < 0.3, f"{name}: fitted order {slope:.2f}, errors {errors}"
    assert errors[-1] < 1e-2


@pytest.mark.parametrize("name", SCHEMES)
def test_major_axis_stays_stable(name):
    """Energy and spin exact: the Leine cuboid keeps spinning about its major axis for 20 s."""
    traj = integrate(name, CUBOID, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    assert np.abs(traj.omega - [0.0, 0.0, 10.0]).max() < 2e-3


def heavy_top():
    """Betsch & Siebert 2009, section 5.2: cone on its tip in steady precession."""
    top = HeavyTop()
    q0, omega0 = top.initial_state()
    return (
        tuple(top.inertia),
        omega0,
        q0,
        tuple(top.potential),
        top.arm,
        top.theta0,
        top.precession_rate,
    )


def test_dir_em_heavy_top_keeps_energy_and_vertical_spin():
    inertia, omega0, q0, potential, *_ = heavy_top()
    traj = integrate("dir_em", inertia, omega0, q0, dt=0.01, t_end=20.0, potential=potential)
    assert relative_drift(director_energy(traj.state, inertia, potential)) < 1e-12
    assert relative_drift(traj.spin()[:, 2]) < 1e-12
    # the horizontal spin is not an invariant: gravity turns it with the precession
    assert relative_drift(traj.spin()) > 0.5


def test_dir_em_heavy_top_converges_to_steady_precession():
    """Relative error of the centre of mass at t = 1 against the analytical circle (section
    5.2.3), fitted order 2."""
    inertia, omega0, q0, potential, arm, theta0, rate = heavy_top()
    t = 1.0
    expected = arm * np.array(
        [np.sin(theta0) * np.sin(rate * t), -np.sin(theta0) * np.cos(rate * t), np.cos(theta0)]
    )
    steps = np.array([100, 200, 400])
    errors = []
    for n in steps:
        traj = integrate(
            "dir_em", inertia, omega0, q0, dt=t / n, t_end=t, save_every=n, potential=potential
        )
        centre = arm * quat_to_matrix(traj.q[-1])[:, 2]
        errors.append(np.linalg.norm(centre - expected) / arm)
    slope = np.polyfit(np.log(1.0 / steps), np.log(errors), 1)[0]
    assert abs(slope - 2.0) < 0.3, errors
    assert errors[-1] < 1e-2


def test_algo_c1_refuses_a_potential():
    with pytest.raises(ValueError, match="does not accept a potential"):
        integrate("algo_c1", CUBOID, (1.0, 2.0, 3.0), potential=(1.0, 0.0, 0.0, 0.1))


def test_algo_c1_reports_an_unconverged_newton_iteration():
    with pytest.raises(KernelError) as info:
        integrate(AlgoC1(max_iter=1), BETSCH, BETSCH_OMEGA0, dt=0.05, t_end=0.1)
    assert info.value.status == Status.NEWTON_NOT_CONVERGED


def test_director_invariants_refuse_other_states():
    with pytest.raises(ValueError, match="25 entries"):
        director_energy(np.zeros((3, 7)), CUBOID)


LAMINA = (1.0, 2.0, 3.0)  # A + B = C: a flat plate, the third Euler-tensor value is zero
LAMINA_OMEGA0 = (0.1, 2.0, 0.1)  # near the intermediate axis: it flips


def rotation_angle(q, q_ref):
    """Angle (rad) of the rotation between two attitudes, per sample."""
    dq = quat_mul(quat_conj(q_ref), q)
    return 2.0 * np.arctan2(np.linalg.norm(dq[:, 1:], axis=1), np.abs(dq[:, 0]))


def test_dir_em_on_a_lamina_converges_to_the_exact_solution():
    """The textbook inertia (1, 2, 3) has D_3 = (A + B - C)/2 = 0. Over 10 s (about three flips)
    the angular velocity and the attitude converge with fitted order 2 to the elliptic-function
    solution; director energy, spin and the constraints hold to round-off."""
    assert euler_tensor(LAMINA)[2] == 0.0
    steps = np.array([500, 1000, 2000])
    w_errors, q_errors = [], []
    for n in steps:
        traj = integrate("dir_em", LAMINA, LAMINA_OMEGA0, Q_TILTED, dt=10.0 / n, t_end=10.0)
        ref = exact(LAMINA, LAMINA_OMEGA0, Q_TILTED, traj.t)
        w_errors.append(np.abs(traj.omega - ref.omega).max())
        q_errors.append(rotation_angle(traj.q, ref.q).max())
        assert relative_drift(director_energy(traj.state, LAMINA)) < 1e-12
        assert relative_drift(director_spin(traj.state, LAMINA)) < 1e-12
        x = directors(traj)
        assert np.abs(np.swapaxes(x, 1, 2) @ x - np.eye(3)).max() < 1e-12
    for errors in (w_errors, q_errors):
        slope = np.polyfit(np.log(10.0 / steps), np.log(errors), 1)[0]
        assert abs(slope - 2.0) < 0.1, errors
    assert w_errors[1] < 1e-3  # rad/s at dt = 0.01 s (measured 6.0e-4, |w| = 2 rad/s)
    assert q_errors[1] < 1e-3  # rad (measured 7.6e-4)


def test_dir_em_lamina_step_satisfies_the_director_equations():
    """On the lamina the massless director's velocity comes from the position update; every
    director still obeys d1 - d0 = dt/2 (v0 + v1), and the third momentum equation reduces to
    0 = sum_j Lambda_3j (d_j)_mid with the same symmetric multipliers."""
    dt = 0.05
    y = DirEM().initial_state(np.array(LAMINA), Q_TILTED, np.array([1.5, -2.0, 4.0]), dt, None)
    d = np.diag(euler_tensor(LAMINA))
    for _ in range(3):
        y1 = step("dir_em", LAMINA, y, dt)
        x0, x1 = (s[7:16].reshape(3, 3).T for s in (y, y1))
        v0, v1 = (s[16:25].reshape(3, 3).T for s in (y, y1))
        assert np.all(np.isfinite(y1))
        np.testing.assert_allclose(x1.T @ x1, np.eye(3), rtol=0, atol=1e-14)
        np.testing.assert_allclose(x1 - x0, 0.5 * dt * (v0 + v1), rtol=0, atol=1e-14)
        lam = -np.linalg.solve(0.5 * (x0 + x1), (v1 - v0) @ d) / dt
        assert np.abs(lam).max() > 1.0
        np.testing.assert_allclose(lam, lam.T, rtol=0, atol=1e-11 * np.abs(lam).max())
        y = y1


@pytest.mark.parametrize(
    "inertia", [(0.1, 0.2, 0.3), (1.0, 2.0, 3.0 - 1e-9), (1.0, 2.0, 3.0 + 1e-9)]
)
def test_dir_em_on_laminae_of_round_off_size(inertia):
    """Moments that are a lamina up to round-off (0.1 + 0.2 - 0.3 = 5.6e-17) or within the
    slack of the input check (D_3 = +-5e-10) run like the exact lamina: the same error against
    the exact solution, director energy kept to round-off and a bounded third director
    velocity."""
    traj = integrate("dir_em", inertia, LAMINA_OMEGA0, dt=0.01, t_end=10.0)
    ref = exact(inertia, LAMINA_OMEGA0, (1.0, 0.0, 0.0, 0.0), traj.t)
    error = np.abs(traj.omega - ref.omega).max()
    lamina = integrate("dir_em", LAMINA, LAMINA_OMEGA0, dt=0.01, t_end=10.0)
    lamina_error = np.abs(lamina.omega - exact(LAMINA, LAMINA_OMEGA0, (1, 0, 0, 0), lamina.t).omega)
    assert error == pytest.approx(lamina_error.max(), rel=1e-6)
    assert relative_drift(director_energy(traj.state, inertia)) < 1e-12
    assert np.abs(traj.state[:, 22:25]).max() < 2.0 * np.linalg.norm(LAMINA_OMEGA0)
