"""The heavy symmetric top of Betsch & Siebert 2009, section 5.2: data, the analytic steady
precession against an independent ODE solution, exact invariants of QUAT.EM at the paper's step
and second-order convergence of the centre of mass."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tumble.freerot.heavy_top import BETSCH_SIEBERT_TOP, HeavyTop
from tumble.freerot.invariants import relative_drift
from tumble.rotation import quat_rotate

TOP = BETSCH_SIEBERT_TOP
E3 = np.array([0.0, 0.0, 1.0])


def test_data_of_section_5_2():
    """M = rho pi R^2 H / 3, L = 3H/4, J1 = 3M/80 (4R^2 + H^2) + M L^2, J3 = 3M R^2/10; the spin
    rate by hand: M g L / (J3 w_p) = 10 g L / (3 R^2 w_p) = 98.1 and (J1 - J3) / J3 = 7.5, so
    w_s = 98.1 + 7.5 * 10 * cos(pi/3) = 135.6 rad/s."""
    mass = 2700.0 * math.pi * 0.05**2 * 0.1 / 3.0
    assert TOP.mass == pytest.approx(mass, rel=1e-15)
    assert TOP.arm == pytest.approx(0.075, rel=1e-15)
    j1 = 3.0 * mass / 80.0 * (4 * 0.05**2 + 0.1**2) + mass * 0.075**2
    np.testing.assert_allclose(TOP.inertia, [j1, j1, 0.3 * mass * 0.05**2], rtol=1e-14)
    np.testing.assert_allclose(TOP.potential, [mass * 9.81, 0.0, 0.0, 0.075], rtol=1e-15)
    assert TOP.spin_rate == pytest.approx(135.6, rel=1e-13)


def test_steady_precession_satisfies_the_torque_balance():
    """w_p e_z x L_s = L d3 x (-M g e_z) at t = 0, with the spin L_s = R J Omega0 about the tip;
    the spatial angular velocity is w_p e_z + w_s d3 and the start lies on phi_ref(0)."""
    q0, omega0 = TOP.initial_state()
    d3 = quat_rotate(q0, E3)
    spin = quat_rotate(q0, TOP.inertia * omega0)
    torque = np.cross(TOP.arm * d3, [0.0, 0.0, -TOP.mass * TOP.gravity])
    balance = np.cross([0.0, 0.0, TOP.precession_rate], spin)
    assert np.linalg.norm(balance - torque) <= 1e-12 * np.linalg.norm(torque)
    assert np.linalg.norm(torque) > 0.4  # M g L sin(theta0) = 0.45 N m: not a trivial balance
    w_space = quat_rotate(q0, omega0)
    np.testing.assert_allclose(w_space, TOP.precession_rate * E3 + TOP.spin_rate * d3, atol=1e-12)
    np.testing.assert_allclose(TOP.centre_of_mass(0.0)[0], TOP.arm * d3, rtol=0, atol=1e-17)


@pytest.mark.parametrize("top", [TOP, HeavyTop(theta0=2.0, precession_rate=-4.0)])
def test_analytic_precession_solves_the_equations_of_motion(top):
    """Euler's equations with the gravity torque, J Omega' = -Omega x J Omega + c x R^T (-M g
    e_z), and q' = 1/2 q (0, Omega), by DOP853 at rtol 1e-12: the attitude follows
    exp(w_p t e_z / 2) q0 exp(w_s t e3 / 2) and the centre of mass phi_ref(t)."""
    inertia = top.inertia
    weight, com = top.potential[0], top.potential[1:]
    q0, omega0 = top.initial_state()

    def rhs(_t, y):
        (a, b, c, d), (p, r, s) = y[:4] / np.linalg.norm(y[:4]), y[4:]
        # R(q)^T e_z, the third row of the rotation matrix, and q (x) (0, w), written out
        up = np.array([2 * (b * d - a * c), 2 * (c * d + a * b), 1 - 2 * (b * b + c * c)])
        dq = 0.5 * np.array(
            [
                -b * p - c * r - d * s,
                a * p + c * s - d * r,
                a * r + d * p - b * s,
                a * s + b * r - c * p,
            ]
        )
        dw = (-np.cross(y[4:], inertia * y[4:]) - weight * np.cross(com, up)) / inertia
        return np.concatenate([dq, dw])

    t = np.linspace(0.0, 1.0, 11)
    sol = solve_ivp(
        rhs, (0.0, 1.0), np.concatenate([q0, omega0]), "DOP853", t, rtol=1e-12, atol=1e-12
    )
    assert sol.success
    q = sol.y[:4].T
    phi = top.centre_of_mass_of(q / np.linalg.norm(q, axis=1, keepdims=True))
    np.testing.assert_allclose(phi, top.centre_of_mass(t), rtol=0, atol=1e-8 * top.arm)
    q_exact = top.attitude(t)
    sign = np.sign(np.sum(q * q_exact, axis=1, keepdims=True))
    np.testing.assert_allclose(q, sign * q_exact, rtol=0, atol=1e-8)
    # the centre of mass moves: a wrong precession rate or sign would fail
    assert np.ptp(phi[:, 0]) > top.arm * math.sin(top.theta0)


def test_quat_em_conserves_energy_and_vertical_spin_at_the_papers_step():
    """Section 5.2.2, Fig. 3: QUAT.EM at dt = 0.01 over 10 s (1000 steps, 1.36 rad of spin per
    step) keeps the total energy and the vertical spin to 1e-10 relative (round-off reaches
    about 1e-14)."""
    traj = TOP.integrate("quat_em", dt=0.01, t_end=10.0)
    assert len(traj) == 1001
    assert relative_drift(traj.energy()).max() < 1e-10
    assert relative_drift(traj.spin()[:, 2]).max() < 1e-10
    assert np.abs(traj.quaternion_norm() - 1.0).max() < 1e-12
    # the potential takes part: kinetic energy alone changes as the top nutates
    kinetic = traj.energy() - traj.potential[0] * TOP.centre_of_mass_of(traj.q)[:, 2] / TOP.arm
    assert relative_drift(kinetic).max() > 1e-3


@pytest.mark.parametrize("scheme", ["quat_em", "quat_vi", "dir_em"])
def test_centre_of_mass_error_is_second_order(scheme):
    """e = |phi_ref - phi| / |phi_ref| at t = 1 (section 5.2.3) for dt = 1/400, 1/800, 1/1600
    (at most 0.35 rad of spin per step): fitted log-log slope within 0.3 of 2."""
    steps = np.array([400, 800, 1600])
    errors = np.array(
        [
            TOP.centre_of_mass_error(TOP.integrate(scheme, 1.0 / n, 1.0, save_every=n))[-1]
            for n in steps
        ]
    )
    slope = np.polyfit(np.log(1.0 / steps), np.log(errors), 1)[0]
    assert abs(slope - 2.0) < 0.3, (errors, slope)
    assert errors[-1] < 1e-2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"height": 0.0}, "height"),
        ({"radius": -0.05}, "radius"),
        ({"density": math.nan}, "density"),
        ({"gravity": -9.81}, "gravity"),
        ({"theta0": 0.0}, "theta0"),
        ({"theta0": math.pi}, "theta0"),
        ({"precession_rate": 0.0}, "precession_rate"),
    ],
)
def test_bad_data_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        HeavyTop(**kwargs)


def test_bad_times_raise_value_error():
    with pytest.raises(ValueError, match="t must"):
        TOP.centre_of_mass([[0.0, 1.0]])
    with pytest.raises(ValueError, match="t must"):
        TOP.attitude([0.0, math.inf])
