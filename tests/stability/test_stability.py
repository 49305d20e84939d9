"""Stability of steady rotation: manifold coordinates, Lyapunov function, spectra, flips, CLI.

Reference body: the cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg), I = (5/12, 10/12, 13/12).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from tumble.cli.main import main
from tumble.freerot import STEPPERS, get_scheme, integrate, step
from tumble.freerot.invariants import kinetic_energy, spin, spin_body
from tumble.rotation.quaternion import quat_exp
from tumble.stability import (
    axis_deviation,
    continuous_eigenvalues,
    count_flips,
    euler_jacobian,
    explicit_linear_map,
    explicit_spectrum_closed_form,
    flip_intervals,
    flip_period,
    lyapunov,
    lyapunov_along,
    lyapunov_form,
    lyapunov_parts,
    one_step_jacobian,
    one_step_spectrum,
    rate_deviation,
    spectral_radius,
    stability_map,
    transverse_spectrum,
    verdict,
)
from tumble.status import KernelError, Status

CUBOID = np.array([5 / 12, 10 / 12, 13 / 12])
RATE = 10.0
AXES = {"minor": 0, "intermediate": 1, "major": 2}


def require(scheme: str) -> None:
    """Skip while ``scheme`` is still a placeholder (its step always reports NO_SOLUTION)."""
    stepper = get_scheme(scheme)
    y = stepper.initial_state(
        CUBOID, np.array([1.0, 0, 0, 0]), np.array([0.1, 0.2, 1.0]), 1e-3, np.zeros(4)
    )
    try:
        step(stepper, CUBOID, y, 1e-3)
    except KernelError as err:
        if err.status == Status.NO_SOLUTION:
            pytest.skip(f"{scheme} is not implemented yet (its step is a placeholder)")
        raise


def match(a, b) -> float:
    """Largest distance from an element of ``a`` to its nearest element of ``b`` and back."""
    a, b = np.asarray(a), np.asarray(b)
    gaps = np.abs(a[:, None] - b[None, :])
    return max(gaps.min(axis=1).max(), gaps.min(axis=0).max())


# ----------------------------------------------------------------------------------------------
# spectra


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("dt", [1e-4, 1e-3, 1e-2, 0.1, 0.5])
def test_explicit_closed_form_matches_numerical_spectrum(axis, dt):
    numerical = one_step_spectrum("explicit", CUBOID, axis, RATE, dt)
    closed = explicit_spectrum_closed_form(CUBOID, axis, RATE, dt)
    assert match(numerical, closed) < 1e-8
    # the corrected entries of D (eq. 56), not only its eigenvalues
    jac = one_step_jacobian("explicit", CUBOID, axis, RATE, dt)
    assert np.abs(jac - explicit_linear_map(CUBOID, axis, RATE, dt)).max() < 1e-8


def test_explicit_unstable_about_major_axis_for_every_dt_and_second_order_in_dt():
    dts = np.geomspace(1e-4, 0.5, 12)
    excess = np.array(
        [
            spectral_radius(one_step_spectrum("explicit", CUBOID, "major", RATE, dt)) - 1
            for dt in dts
        ]
    )
    assert np.all(excess > 1e-7)
    assert all(
        verdict(one_step_spectrum("explicit", CUBOID, "major", RATE, dt)) == "unstable"
        for dt in dts[::4]
    )
    slope = np.polyfit(np.log(dts[:5]), np.log(excess[:5]), 1)[0]
    assert abs(slope - 2.0) < 0.02


@pytest.mark.parametrize("scheme", ["implicit", "quat_em", "quat_vi", "algo_c1"])
@pytest.mark.parametrize("axis", ["major", "minor"])
def test_conservative_schemes_stay_on_the_unit_circle(scheme, axis):
    require(scheme)
    for dt in (1e-3, 1e-2, 5e-2):
        lam = one_step_spectrum(scheme, CUBOID, axis, RATE, dt)
        assert np.abs(lam).max() <= 1 + 1e-9
        assert np.abs(lam).min() >= 1 - 1e-9
        assert verdict(lam) == "stable"


def test_dir_em_restarted_map_is_conservative_to_fourth_order():
    """y[4:7] of DIR.EM is a projection of its director velocities; restarting from a consistent
    state each step makes the map conservative only up to O(dt^4) (stable about the major axis,
    an excess of order (dt Omega)^4 about the minor axis)."""
    require("dir_em")
    for dt in (2.5e-3, 1e-2):
        major = one_step_spectrum("dir_em", CUBOID, "major", RATE, dt)
        minor = one_step_spectrum("dir_em", CUBOID, "minor", RATE, dt)
        assert np.abs(major).max() <= 1 + 1e-9
        assert np.abs(minor).max() - 1 <= 0.05 * (dt * RATE) ** 4


@pytest.mark.parametrize("scheme", list(STEPPERS))
def test_every_scheme_unstable_about_intermediate_axis(scheme):
    require(scheme)
    dt = 0.01
    lam = one_step_spectrum(scheme, CUBOID, "intermediate", RATE, dt)
    assert verdict(lam) == "unstable"
    # the growth per step follows the continuous saddle eigenvalue, exp(dt lambda_2)
    growth = np.exp(dt * continuous_eigenvalues(CUBOID, 1, RATE).real.max())
    assert abs(spectral_radius(lam) / growth - 1) < 5e-4


def test_rk4_and_explicit_about_minor_axis_damp():
    lam = transverse_spectrum("explicit", CUBOID, "minor", RATE, 0.01)
    closed = explicit_spectrum_closed_form(CUBOID, 0, RATE, 0.01)[:2]
    assert match(lam, closed) < 1e-8 and np.abs(lam).max() < 1 - 1e-3
    assert verdict(one_step_spectrum("rk4", CUBOID, "minor", RATE, 0.01)) == "stable"


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_continuous_eigenvalues_match_linearised_euler_equations(axis):
    def euler(w):
        return -np.cross(w, CUBOID * w) / CUBOID

    w_star = np.zeros(3)
    w_star[axis] = RATE
    h = 1e-4
    jac = np.column_stack(
        [(euler(w_star + h * e) - euler(w_star - h * e)) / (2 * h) for e in np.eye(3)]
    )
    assert np.abs(jac - euler_jacobian(CUBOID, axis, RATE)).max() < 1e-9
    assert match(np.linalg.eigvals(jac), continuous_eigenvalues(CUBOID, axis, RATE)) < 1e-8
    # eq. 44: imaginary about the major and minor axes, a real saddle about the intermediate
    lam = continuous_eigenvalues(CUBOID, axis, RATE)
    assert (np.abs(lam.real).max() > 1) == (axis == 1)


def test_verdicts():
    pair = np.exp(0.1j * np.array([1, -1]))
    assert verdict([1.0, *pair]) == "stable"
    assert verdict([1.0, 0.9 * pair[0], 0.9 * pair[1]]) == "stable"
    assert verdict([1.0, 1.0 + 1e-8, 0.5]) == "unstable"
    assert verdict([1.0, 1.0, 1.0]) == "neutral"
    with pytest.raises(ValueError, match="finite"):
        verdict([np.nan])


# ----------------------------------------------------------------------------------------------
# manifold and Lyapunov function


def test_error_coordinates_of_a_known_rotation():
    phi = 0.3
    q = quat_exp(np.array([[0.0, 0.0, 0.0], [phi, 0.0, 0.0]]))
    d = axis_deviation(q, 2)
    assert np.allclose(d[0], 0.0, atol=1e-15)
    # A_KI e3 for a rotation by phi about x: (0, sin phi, cos phi)
    assert np.allclose(d[1], [0.0, np.sin(phi), np.cos(phi) - 1.0], atol=1e-15)
    assert np.allclose(rate_deviation([[0.1, 0.2, 10.5]], 2, 10.0), [[0.1, 0.2, 0.5]])


@pytest.mark.parametrize("axis, form", [(2, "major"), (0, "minor")])
def test_lyapunov_function_is_built_from_the_invariants(axis, form):
    rng = np.random.default_rng(7)
    w_star = np.zeros(3)
    w_star[axis] = RATE
    q_ref = quat_exp(rng.normal(size=3))
    q = quat_exp(0.1 * rng.normal(size=(20, 3)))
    omega = w_star + 0.5 * rng.normal(size=(20, 3))
    d = axis_deviation(q, axis, q_ref)
    alpha = rate_deviation(omega, axis, RATE)
    v_bar, v_hat = lyapunov_parts(CUBOID, axis, RATE, d, alpha)
    # eq. 30: distance of the spin from that of the steady rotation, in the inertial frame
    spin_star = spin(CUBOID, q_ref, w_star)
    assert np.allclose(v_bar, np.sum((spin(CUBOID, q, omega) - spin_star) ** 2, axis=1), rtol=1e-12)
    # eq. 33 (major) and its sign-flipped first term (eq. 38, minor)
    c, t, t_star = CUBOID[axis], kinetic_energy(CUBOID, omega), kinetic_energy(CUBOID, w_star)
    first = 2 * c * t - np.sum(spin_body(CUBOID, omega) ** 2, axis=1)
    sign = 1.0 if form == "major" else -1.0
    assert np.allclose(v_hat, sign * first + (2 * t - 2 * t_star) ** 2 / RATE**2, rtol=1e-9)
    assert lyapunov_form(CUBOID, axis) == form
    assert np.all(lyapunov(CUBOID, axis, RATE, d, alpha) > 0)
    with pytest.raises(ValueError, match="intermediate"):
        lyapunov_form(CUBOID, 1)


def test_lyapunov_constant_for_implicit_and_growing_for_explicit_near_major_axis():
    omega0 = (1e-3, 1e-3, 10.0)
    implicit = lyapunov_along(integrate("implicit", CUBOID, omega0, dt=0.01, t_end=20.0), 2, RATE)
    explicit = lyapunov_along(integrate("explicit", CUBOID, omega0, dt=0.01, t_end=20.0), 2, RATE)
    assert implicit.shape == (2001,)
    assert np.abs(implicit / implicit[0] - 1).max() < 1e-10
    assert explicit.max() / explicit[0] > 1e6


def test_lyapunov_constant_for_implicit_and_decaying_for_explicit_near_minor_axis():
    """About the minor axis the explicit scheme damps the rate error (|lambda| < 1), at the rate
    of its closed-form eigenvalues; V is not kept."""
    omega0 = (10.0, 1e-4, 1e-4)
    implicit = lyapunov_along(integrate("implicit", CUBOID, omega0, dt=0.01, t_end=20.0), 0, RATE)
    traj = integrate("explicit", CUBOID, omega0, dt=0.01, t_end=20.0)
    explicit = lyapunov_along(traj, 0, RATE)
    assert np.abs(implicit / implicit[0] - 1).max() < 1e-10
    assert explicit[-1] / explicit[0] < 0.8
    # transverse amplitude in the metric of the linearised V_hat
    amplitude = np.sqrt(np.sum(CUBOID[1:] * (CUBOID[1:] - CUBOID[0]) * traj.omega[:, 1:] ** 2, 1))
    rate = np.polyfit(np.arange(1500), np.log(amplitude[:1500]), 1)[0]
    lam = np.abs(explicit_spectrum_closed_form(CUBOID, 0, RATE, 0.01)[0])
    assert abs(rate / np.log(lam) - 1) < 1e-3


# ----------------------------------------------------------------------------------------------
# flips


@pytest.mark.parametrize("omega0", [(1e-3, 10.0, 1e-3), (0.5, 10.0, 0.3), (1.0, 3.0, 2.0)])
def test_flip_period_matches_reference_integration(omega0):
    period = flip_period(CUBOID, omega0)
    sol = solve_ivp(
        lambda t, w: -np.cross(w, CUBOID * w) / CUBOID,
        (0.0, 3.2 * period),
        np.asarray(omega0, dtype=float),
        method="DOP853",
        rtol=1e-12,
        atol=1e-14,
        events=lambda t, w: w[1],
        dense_output=True,
    )
    intervals = np.diff(sol.t_events[0])
    assert intervals.shape == (2,)
    assert np.abs(intervals / period - 1).max() < 1e-6


def test_simulated_flips_converge_to_the_flip_period_at_second_order():
    omega0 = (0.5, 10.0, 0.3)
    period = flip_period(CUBOID, omega0)
    errors = []
    for dt in (0.01, 0.005):
        traj = integrate("implicit", CUBOID, omega0, dt=dt, t_end=10.0)
        assert count_flips(traj) == 5
        errors.append(np.abs(flip_intervals(traj) / period - 1).max())
    assert errors[0] < 1e-3
    assert abs(np.log2(errors[0] / errors[1]) - 2) < 0.1


# ----------------------------------------------------------------------------------------------
# maps and command line


def test_stability_map_marks_explicit_major_axis_unstable():
    m = stability_map("explicit", "major", [1e-3, 1e-1], [1.5, 2.5], rate=RATE)
    assert m.radius.shape == (2, 2)
    assert np.all(m.radius > 1)
    m = stability_map("implicit", "minor", [1e-3, 1e-1], [1.5, 2.5], rate=RATE)
    assert np.abs(m.transverse - 1).max() < 1e-9


def test_cli_prints_a_table(tmp_path, capsys):
    out = tmp_path / "stab"
    code = main(
        [
            "stability",
            "--schemes",
            "explicit,implicit",
            "--dt",
            "0.01",
            "--map",
            "--map-points",
            "2",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    lines = {line.split()[0]: line for line in text.splitlines() if line.strip()}
    assert lines["explicit"].endswith("unstable")
    assert lines["implicit"].endswith("stable") and "unstable" not in lines["implicit"]
    for name in ("spectra.csv", "stability_map.csv", "stability_map.png", "provenance.json"):
        assert (out / name).is_file()
    assert main(["stability", "--schemes", "exact"]) == 2


def test_bad_input_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="dt"):
        one_step_spectrum("explicit", CUBOID, "major", RATE, -0.01)
    with pytest.raises(ValueError, match="axis"):
        one_step_spectrum("explicit", CUBOID, "diagonal", RATE, 0.01)
    with pytest.raises(ValueError, match="unknown scheme"):
        one_step_spectrum("euler", CUBOID, 2, RATE, 0.01)
    with pytest.raises(ValueError, match="triangle"):
        continuous_eigenvalues((1.0, 1.0, 3.0), 2, RATE)
    with pytest.raises(ValueError, match="rate"):
        rate_deviation([0.0, 0.0, 1.0], 2, 0.0)
