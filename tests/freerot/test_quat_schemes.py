"""QUAT.EM and QUAT.VI of Betsch & Siebert 2009: exact invariants, order, heavy top, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tumble.freerot import integrate
from tumble.freerot.heavy_top import HeavyTop
from tumble.freerot.invariants import relative_drift
from tumble.freerot.quat_em import QuatEM
from tumble.freerot.quat_vi import QuatVI
from tumble.rotation.quaternion import quat_conj, quat_mul, quat_rotate, quat_to_matrix
from tumble.status import KernelError, Status

LEINE = (5 / 12, 10 / 12, 13 / 12)
LEINE_OMEGAS = [(1e-3, 1e-3, 10.0), (1.0, 2.0, 3.0)]
EXACT = 1e-12


def _leine(scheme, omega0):
    traj = integrate(scheme, LEINE, omega0, dt=0.01, t_end=20.0)
    assert len(traj) == 2001
    return traj


def _paper_spin(traj):
    """``J = 1/2 E(q) p``, the vector part of ``p (x) conj(q)`` over 2 (eq. 35, 45)."""
    return 0.5 * quat_mul(traj.state[:, 7:11], quat_conj(traj.q))[:, 1:]


@pytest.mark.parametrize("omega0", LEINE_OMEGAS)
def test_quat_em_keeps_energy_spin_and_unit_norm(omega0):
    traj = _leine("quat_em", omega0)
    assert relative_drift(traj.energy()).max() < EXACT
    assert relative_drift(np.linalg.norm(traj.spin(), axis=1)).max() < EXACT
    assert relative_drift(traj.spin()).max() < EXACT
    assert np.abs(traj.quaternion_norm() - 1.0).max() < EXACT
    # hidden constraint q . p = 0 (eq. 40): each step fixes q . p only to the round-off of the
    # quaternion equation amplified by 8 J0 / dt (quat_em docstring), and it random-walks
    p = traj.state[:, 7:11]
    j0 = 0.5 * sum(LEINE)
    floor = 10.0 * np.sqrt(len(traj)) * 8.0 * j0 / 0.01 * np.finfo(float).eps
    assert np.abs(np.sum(traj.q * p, axis=1)).max() < floor
    # the read-out y[4:7] is consistent with (q, p): the spin is the paper's 1/2 E(q) p
    spin0 = np.linalg.norm(traj.spin()[0])
    assert np.abs(_paper_spin(traj) - traj.spin()).max() < 1e-14 * spin0


@pytest.mark.parametrize("omega0", LEINE_OMEGAS)
def test_quat_vi_keeps_momentum_map_and_unit_norm(omega0):
    traj = _leine("quat_vi", omega0)
    momentum = QuatVI().momentum_map(traj)
    assert momentum.shape == (2001, 3)
    assert relative_drift(momentum).max() < EXACT
    assert np.abs(traj.quaternion_norm() - 1.0).max() < EXACT
    # the spin read from y[0:7] is the momentum map (R(q) J Omega = 1/2 E(q) mu), so it is kept
    assert np.abs(traj.spin() - momentum).max() < 1e-14 * np.linalg.norm(momentum[0])
    assert relative_drift(traj.spin()).max() < EXACT
    # free body: |Pi_n|_J^-1 = |Pi_n+1|_J^-1 since (r_v x J r_v) . r_v = 0 (module docstring)
    assert relative_drift(traj.energy()).max() < EXACT
    # at t = 0 the momentum map is the continuous spin J Omega0 (mu_0 = p_0)
    np.testing.assert_allclose(momentum[0], np.multiply(LEINE, omega0), rtol=1e-15)


def test_metadata_matches_what_the_tests_check():
    assert QuatEM.preserves == {"energy", "spin_norm", "spin", "unit_quaternion"}
    assert QuatVI.preserves == {"energy", "momentum_map", "spin_norm", "spin", "unit_quaternion"}
    for cls in (QuatEM, QuatVI):
        assert cls.order == 2 and cls.implicit and cls.supports_potential
        assert cls.state_size == 11


# ----------------------------------------------------------------------------------------------
# convergence order on the Betsch & Siebert free body (section 5.1)

BODY = np.array([6.0, 8.0, 3.0])
OMEGA0 = np.array([10.0, 20.0, 20.0])
DTS = np.array([1 / 100, 1 / 200, 1 / 400, 1 / 800])


@pytest.fixture(scope="module")
def reference_attitude():
    """R(T = 1) from DOP853 at rtol = atol = 1e-13 on Euler's equations and q' = 1/2 q (0, w)."""

    def rhs(_t, y):
        q, w = y[:4], y[4:]
        dq = 0.5 * quat_mul(q, np.array([0.0, *w]))
        dw = -np.cross(w, BODY * w) / BODY
        return np.concatenate([dq, dw])

    y0 = np.array([1.0, 0.0, 0.0, 0.0, *OMEGA0])
    sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-13, atol=1e-13)
    assert sol.success
    q = sol.y[:4, -1]
    return quat_to_matrix(q / np.linalg.norm(q))


@pytest.mark.parametrize("scheme", ["quat_em", "quat_vi"])
def test_second_order_attitude_convergence(scheme, reference_attitude):
    """e = ||R_ref(T) R(T)^T - I||_F at T = 1 (section 5.1.2); log-log slope fitted over dt."""
    errors = []
    for dt in DTS:
        traj = integrate(scheme, BODY, OMEGA0, dt=dt, t_end=1.0)
        assert traj.t[-1] == pytest.approx(1.0, abs=1e-12)
        rot = quat_to_matrix(traj.q[-1])
        errors.append(np.linalg.norm(reference_attitude @ rot.T - np.eye(3)))
    errors = np.array(errors)
    slope = np.polyfit(np.log(DTS), np.log(errors), 1)[0]
    assert abs(slope - 2.0) < 0.3, (errors, slope)
    assert np.all(np.diff(errors) < 0)
    assert errors[-1] < 0.05


# ----------------------------------------------------------------------------------------------
# heavy symmetric top in steady precession (section 5.2, physics/integrators.md)

TOP_MODEL = HeavyTop()
MASS, ARM, G = TOP_MODEL.mass, TOP_MODEL.arm, TOP_MODEL.gravity
THETA0, W_P, W_S = TOP_MODEL.theta0, TOP_MODEL.precession_rate, TOP_MODEL.spin_rate
TOP = tuple(TOP_MODEL.inertia)
TOP_POTENTIAL = tuple(TOP_MODEL.potential)
#: q0 = (cos(theta0/2), sin(theta0/2) e_x), Omega0 = (0, w_p sin theta0, w_p cos theta0 + w_s)
steady_precession_start = TOP_MODEL.initial_state


def centre_of_mass_errors(traj):
    """Deviations from the analytic circle (radius, height) and from ``phi_ref(t)``, over L."""
    phi = quat_rotate(traj.q, np.array([0.0, 0.0, ARM]))
    radius = ARM * np.sin(THETA0)
    ref = TOP_MODEL.centre_of_mass(traj.t)
    off_circle = np.maximum(
        np.abs(np.hypot(phi[:, 0], phi[:, 1]) - radius), np.abs(phi[:, 2] - ARM * np.cos(THETA0))
    )
    return off_circle.max() / ARM, np.linalg.norm(phi - ref, axis=1) / ARM


def test_steady_precession_initial_state_is_exact():
    """The start reproduces the analytic precession: spatial w = w_p e_z + w_s d3, and the gravity
    torque equals w_p e_z x L (so the precession is steady)."""
    q0, omega0 = steady_precession_start()
    w_space = quat_rotate(q0, omega0)
    d3 = quat_rotate(q0, np.array([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(w_space, W_P * np.array([0, 0, 1.0]) + W_S * d3, atol=1e-12)
    spin = quat_rotate(q0, np.asarray(TOP) * omega0)
    torque = np.cross(ARM * d3, np.array([0.0, 0.0, -MASS * G]))
    np.testing.assert_allclose(np.cross([0.0, 0.0, W_P], spin), torque, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("scheme", ["quat_em", "quat_vi"])
def test_heavy_top_steady_precession(scheme):
    """Conservation and the centre of mass on the analytic circle (section 5.2).

    Tolerance: a second-order scheme misses the rotation rate of the fast spin by a relative
    amount of order eps = (w_s dt)^2 (the midpoint rule by eps/12), which shifts the discrete
    gyroscopic balance of the steady precession by the same relative amount. The top therefore
    nutates about a slightly different cone, off the analytic circle by O(eps) L, and precesses at
    a rate off by O(eps) w_p, so that after time T the centre of mass lags phi_ref by about
    eps w_p T L. We allow eps L / 2 off the circle and eps w_p T L / 2 from phi_ref, at
    dt = 1e-3 (eps = 0.018), and require the error at T to fall as dt^2 between dt = 2e-3 and 1e-3.
    """
    q0, omega0 = steady_precession_start()
    finals = []
    for dt in (2e-3, 1e-3):
        traj = integrate(scheme, TOP, omega0, q0, dt=dt, t_end=1.0, potential=TOP_POTENTIAL)
        spin_z = traj.spin()[:, 2]
        if scheme == "quat_em":
            assert relative_drift(traj.energy()).max() < EXACT
            assert relative_drift(spin_z).max() < EXACT
        else:
            momentum_z = QuatVI().momentum_map(traj)[:, 2]
            assert relative_drift(momentum_z).max() < EXACT
            assert np.abs(spin_z - momentum_z).max() < 1e-14 * abs(momentum_z[0])
        off_circle, off_ref = centre_of_mass_errors(traj)
        eps = (W_S * dt) ** 2
        assert off_circle < eps / 2
        assert off_ref.max() < eps * W_P * traj.t[-1] / 2
        finals.append(off_ref[-1])
    order = np.log2(finals[0] / finals[1])
    assert abs(order - 2.0) < 0.3, (finals, order)


@pytest.mark.parametrize("scheme", ["quat_em", "quat_vi"])
def test_tumbling_top_with_offset_centre_of_mass(scheme):
    """A general top (centre of mass off the symmetry axis, fast tumbling start): QUAT.EM keeps
    the total energy and the vertical spin, QUAT.VI the vertical component of its momentum map."""
    potential = (MASS * G, 0.01, -0.02, ARM)
    q0 = np.array([0.9, 0.3, -0.2, 0.1])
    q0 /= np.linalg.norm(q0)
    traj = integrate(scheme, TOP, (3.0, -2.0, 50.0), q0, dt=1e-3, t_end=1.0, potential=potential)
    if scheme == "quat_em":
        assert relative_drift(traj.energy()).max() < EXACT
        assert np.abs(traj.spin()[:, 2] - traj.spin()[0, 2]).max() < EXACT * abs(traj.spin()[0, 2])
    else:
        momentum_z = QuatVI().momentum_map(traj)[:, 2]
        assert relative_drift(momentum_z).max() < EXACT
        # the energy of the variational integrator is bounded but not constant with gravity
        assert 1e-12 < relative_drift(traj.energy()).max() < 1e-3
    # the motion is not trivial: the spatial spin turns (gravity torque)
    horizontal = traj.spin()[:, :2]
    assert np.linalg.norm(horizontal[-1] - horizontal[0]) > 1e-3 * np.linalg.norm(traj.spin()[0])


# ----------------------------------------------------------------------------------------------
# failures and bad input


def test_quat_vi_step_too_large_for_the_heavy_top_fails_cleanly():
    """Betsch & Siebert had to reduce dt to 0.007 for QUAT.VI on this top; at 0.01 the step has no
    solution and the kernel reports it (it never raises)."""
    q0, omega0 = steady_precession_start()
    with pytest.raises(KernelError, match="quat_vi") as info:
        integrate("quat_vi", TOP, omega0, q0, dt=0.01, t_end=0.1, potential=TOP_POTENTIAL)
    assert info.value.status in (Status.NO_SOLUTION, Status.NEWTON_NOT_CONVERGED)
    traj = integrate("quat_vi", TOP, omega0, q0, dt=0.007, t_end=0.1, potential=TOP_POTENTIAL)
    assert np.all(np.isfinite(traj.q))


def test_newton_iteration_limit_is_reported():
    with pytest.raises(KernelError, match="did not converge") as info:
        integrate("quat_em", BODY, OMEGA0, dt=0.01, t_end=0.1, max_iter=1)
    assert info.value.status == Status.NEWTON_NOT_CONVERGED


@pytest.mark.parametrize("scheme", ["quat_em", "quat_vi"])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"potential": (1.0, 0.0, 0.1)}, "potential"),
        ({"potential": (1.0, 0.0, 0.0, np.nan)}, "potential"),
        ({"tol": 1.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"dt": -0.01}, "dt"),
    ],
)
def test_invalid_settings_raise_value_error(scheme, kwargs, message):
    settings = {"dt": 0.01, "t_end": 0.1, **kwargs}
    with pytest.raises(ValueError, match=message):
        integrate(scheme, LEINE, (1.0, 2.0, 3.0), **settings)


def test_momentum_map_needs_a_quat_vi_state():
    traj = integrate("rk4", LEINE, (1.0, 2.0, 3.0), dt=0.01, t_end=0.05)
    with pytest.raises(ValueError, match="momentum_map"):
        QuatVI().momentum_map(traj)
