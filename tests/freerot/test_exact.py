"""The elliptic-function solution against tight integrations of Euler's equations with the
quaternion kinematics, in every regime, plus its invariants, special cases and input checks.

Reference: ``solve_ivp(method="DOP853", rtol=1e-13, atol=1e-15)`` on ``Theta w' = -w x Theta w``
and ``q' = 1/2 q (x) (0, w)`` (Nakanishi 2024, eq. 1 and Eq. B). The ODE's own global error is
~1e-13 on a well-conditioned case but grows near the separatrix, where every pass by the unstable
axis amplifies it; there the exact solution is compared globally up to the first flip and, over
the whole run, against ODE segments restarted from the exact state every ``h`` seconds.
"""

import time

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipj, ellipkm1

from tumble.freerot import exact, integrate
from tumble.freerot.exact import (
    elliptic_parameters,
    jacobi_sn_cn_dn,
    quarter_period,
)
from tumble.freerot.flips import flip_period

CUBOID = (5 / 12, 10 / 12, 13 / 12)  # Leine et al. 2021, section 4.3
BETSCH = (6.0, 8.0, 3.0)  # Betsch & Siebert 2009, section 5.1
BETSCH_OMEGA0 = (10.0, 20.0, 20.0)
IDENTITY = (1.0, 0.0, 0.0, 0.0)
_Q = np.random.default_rng(7).normal(size=4)
Q_RANDOM = tuple(_Q / np.linalg.norm(_Q))
# G^2 - 2T I2 = 0 exactly in floating point: I = (2, 4, 4.5) sorted, 2 (-2) 3^2 + 4.5 (0.5) 4^2 = 0
SEPARATRIX = ((4.5, 2.0, 4.0), (-4.0, 3.0, 1.5))


def near_separatrix(distance: float, side: float):
    """``omega0`` for I = (1, 2, 3) with ``(G^2 - 2T I2) / (2T I2) ~ 0.4 side distance``."""
    w3 = np.sqrt(1.0 / 3.0) * (1.0 + side * distance)
    return (1.0, 2.0, 3.0), (-1.0, 0.5, w3)


def _rhs(t, y, inertia):
    q0, q1, q2, q3, w1, w2, w3 = y
    i1, i2, i3 = inertia
    return [
        0.5 * (-q1 * w1 - q2 * w2 - q3 * w3),
        0.5 * (q0 * w1 + q2 * w3 - q3 * w2),
        0.5 * (q0 * w2 - q1 * w3 + q3 * w1),
        0.5 * (q0 * w3 + q1 * w2 - q2 * w1),
        (i2 - i3) / i1 * w2 * w3,
        (i3 - i1) / i2 * w3 * w1,
        (i1 - i2) / i3 * w1 * w2,
    ]


def ode(inertia, omega0, q0, t, **kw):
    """DOP853 reference at the times ``t`` (all of one sign), starting at t = 0."""
    inertia = tuple(float(x) for x in inertia)
    y0 = np.concatenate([q0, omega0]).astype(float)
    t = np.asarray(t, dtype=float)
    end = t[np.argmax(np.abs(t))]
    sol = solve_ivp(
        _rhs,
        (0.0, end),
        y0,
        method="DOP853",
        t_eval=t,
        rtol=1e-13,
        atol=1e-15,
        args=(inertia,),
        **kw,
    )
    assert sol.success
    return sol


def errors(traj, q_ref, omega_ref):
    """Largest attitude error |q - q_ref| and relative angular-velocity error."""
    scale = max(np.max(np.linalg.norm(omega_ref, axis=1)), np.finfo(float).tiny)
    e_q = np.max(np.linalg.norm(traj.q - q_ref, axis=1))
    e_w = np.max(np.linalg.norm(traj.omega - omega_ref, axis=1)) / scale
    return e_q, e_w


GLOBAL_CASES = {
    # name: (inertia, omega0, q0, t_end, tolerance on |q - q_ode| and |w - w_ode| / |w|)
    "betsch_major": (BETSCH, BETSCH_OMEGA0, IDENTITY, 1.0, 2e-12),
    "betsch_random_q0": (BETSCH, BETSCH_OMEGA0, Q_RANDOM, 3.0, 3e-12),
    "cuboid_major_axis": (CUBOID, (1e-3, 1e-3, 10.0), IDENTITY, 20.0, 5e-12),
    "cuboid_minor_axis": ((13 / 12, 5 / 12, 10 / 12), (1e-3, 10.0, 1e-3), Q_RANDOM, 20.0, 5e-12),
    "minor_generic": ((3.0, 1.0, 2.0), (0.2, 1.0, 0.3), Q_RANDOM, 20.0, 2e-12),
    "major_generic": ((2.0, 3.0, 1.0), (-0.3, 1.0, -0.2), Q_RANDOM, 20.0, 2e-12),
    "near_separatrix_above": (*near_separatrix(1e-6, 1.0), Q_RANDOM, 10.0, 2e-12),
    "near_separatrix_below": (*near_separatrix(1e-6, -1.0), Q_RANDOM, 10.0, 2e-12),
    "cuboid_intermediate_first_flip": (CUBOID, (1e-3, 10.0, 1e-3), IDENTITY, 2.0, 2e-12),
    "separatrix_exact": (*SEPARATRIX, Q_RANDOM, 5.0, 2e-12),
}


@pytest.mark.parametrize("name", list(GLOBAL_CASES))
def test_matches_ode(name):
    inertia, omega0, q0, t_end, tol = GLOBAL_CASES[name]
    t = np.linspace(0.0, t_end, 401)
    traj = exact(inertia, omega0, q0, t)
    ref = ode(inertia, omega0, q0, t)
    e_q, e_w = errors(traj, ref.y[:4].T, ref.y[4:].T)
    assert e_q < tol and e_w < tol, (e_q, e_w)
    assert traj.q[0].tolist() == pytest.approx(list(q0), abs=1e-15)


SEGMENT_CASES = {
    "cuboid_intermediate": (CUBOID, (1e-3, 10.0, 1e-3), 20.0),
    "near_separatrix_1e-9": (*near_separatrix(1e-9, 1.0), 20.0),
    "near_separatrix_1e-14": (*near_separatrix(1e-14, -1.0), 20.0),
    "separatrix_exact": (*SEPARATRIX, 20.0),
}


@pytest.mark.parametrize("name", list(SEGMENT_CASES))
def test_matches_restarted_ode_near_separatrix(name):
    """Exact state at t_k, integrated by DOP853 to t_k + h, equals the exact state there."""
    inertia, omega0, t_end = SEGMENT_CASES[name]
    h = 0.5
    t = np.arange(0.0, t_end + h / 2, h)
    traj = exact(inertia, omega0, Q_RANDOM, t)
    worst_q = worst_w = 0.0
    for k in range(len(t) - 1):
        ref = ode(inertia, traj.omega[k], traj.q[k], [h])
        worst_q = max(worst_q, np.linalg.norm(ref.y[:4, -1] - traj.q[k + 1]))
        worst_w = max(
            worst_w, np.linalg.norm(ref.y[4:, -1] - traj.omega[k + 1]) / np.linalg.norm(omega0)
        )
    assert worst_q < 3e-13 and worst_w < 3e-13, (worst_q, worst_w)


@pytest.mark.parametrize(
    "inertia, omega0",
    [
        (BETSCH, BETSCH_OMEGA0),
        (CUBOID, (1e-3, 10.0, 1e-3)),
        (CUBOID, (1e-3, 1e-3, 10.0)),
        (CUBOID, (10.0, 1e-3, 1e-3)),
        SEPARATRIX,
        near_separatrix(1e-12, 1.0),
        ((2.0, 2.0, 3.0), (1.0, 0.5, 0.7)),
    ],
)
def test_invariants(inertia, omega0):
    """Energy and spatial angular momentum to 1e-13 relative over 10^4 samples, t in [-50, 50]."""
    t = np.linspace(-50.0, 50.0, 10_001)
    traj = exact(inertia, omega0, Q_RANDOM, t)
    energy = traj.energy()
    spin = traj.spin()
    assert np.max(np.abs(energy / energy[0] - 1.0)) < 1e-13
    spin0 = np.linalg.norm(spin[0])
    assert np.max(np.linalg.norm(spin - spin[0], axis=1)) / spin0 < 1e-13
    assert np.max(np.abs(np.linalg.norm(traj.q, axis=1) - 1.0)) < 1e-14


def test_separatrix():
    """G^2 = 2T I2 exactly: regime, no flips, the asymptotic approach to the intermediate axis."""
    inertia, omega0 = SEPARATRIX
    params = elliptic_parameters(inertia, omega0)
    assert params.regime == "separatrix"
    assert params.m == 1.0 and params.m1 == 0.0
    assert params.half_period == np.inf and params.period == np.inf
    assert params.axis == 0  # the major axis (4.5) among the caller's axes
    # w_minor(t) / w_minor(0) = sech(lam t + tau0) / sech(tau0) and w_mid -> +-sqrt(2T/I2)
    t = np.array([0.0, 1.0, 5.0, 30.0])
    traj = exact(inertia, omega0, IDENTITY, t)
    tau = params.lam * t + params.tau0
    np.testing.assert_allclose(
        traj.omega[:, 1] / omega0[1], np.cosh(params.tau0) / np.cosh(tau), rtol=1e-13
    )
    np.testing.assert_allclose(
        np.abs(traj.omega[-1, 2]), np.sqrt(2.0 * params.energy / 4.0), rtol=1e-13
    )


def _sign_change_times(inertia, omega0, t_end):
    middle = int(np.argsort(inertia)[1])
    event = lambda t, y, inertia: y[4 + middle]  # noqa: E731
    sol = ode(inertia, omega0, IDENTITY, [t_end], events=event)
    return sol.t_events[0]


@pytest.mark.parametrize(
    "inertia, omega0, t_end, rtol",
    [
        (BETSCH, BETSCH_OMEGA0, 3.0, 1e-12),
        ((1.0, 2.0, 3.0), (1.0, 0.3, 0.2), 60.0, 1e-12),
        # near the separatrix the ODE crossing times carry its amplified error (4e-9 to 1.2e-8
        # here, depending on round-off in the right-hand side)
        (CUBOID, (1e-3, 10.0, 1e-3), 20.0, 1e-7),
        (*near_separatrix(1e-6, 1.0), 60.0, 1e-9),
    ],
)
def test_half_period_matches_ode(inertia, omega0, t_end, rtol):
    """The intermediate component changes sign every 2 K(k) / lam, a flip or not."""
    crossings = _sign_change_times(inertia, omega0, t_end)
    assert len(crossings) >= 3
    half = elliptic_parameters(inertia, omega0).half_period
    np.testing.assert_allclose(np.diff(crossings), half, rtol=rtol)
    # and the exact solution flips at the same instants
    mid = int(np.argsort(inertia)[1])
    before = exact(inertia, omega0, IDENTITY, crossings - 1e-6).omega[:, mid]
    after = exact(inertia, omega0, IDENTITY, crossings + 1e-6).omega[:, mid]
    assert np.all(before * after < 0.0)


def test_elliptic_parameters_regimes():
    assert elliptic_parameters(BETSCH, BETSCH_OMEGA0).regime == "major"
    assert elliptic_parameters(CUBOID, (1e-3, 1e-3, 10.0)).regime == "major"
    assert elliptic_parameters(CUBOID, (10.0, 1e-3, 1e-3)).regime == "minor"
    assert elliptic_parameters(CUBOID, (1e-3, 10.0, 1e-3)).regime == "major"
    assert elliptic_parameters(CUBOID, (0.0, 0.0, 0.0)).regime == "rest"
    assert elliptic_parameters(CUBOID, (0.0, 2.0, 0.0)).regime == "steady"
    assert elliptic_parameters((1.0, 1.0, 1.0), (1.0, 2.0, 3.0)).regime == "spherical"
    assert elliptic_parameters((2.0, 3.0, 2.0), (1.0, 2.0, 3.0)).regime == "symmetric"
    assert elliptic_parameters((2.0, 3.0, 2.0), (1.0, 0.0, 3.0)).regime == "steady"
    for inertia, omega0 in [(BETSCH, BETSCH_OMEGA0), (CUBOID, (10.0, 1e-3, 1e-3))]:
        p = elliptic_parameters(inertia, omega0)
        assert p.m + p.m1 == pytest.approx(1.0, abs=1e-15)
        assert p.period == pytest.approx(2.0 * p.half_period, rel=1e-15)
        # w(t + period) = w(t); the intermediate component reverses after a flip period
        t = np.linspace(0.0, 2.0, 7)
        w = exact(inertia, omega0, IDENTITY, t).omega
        w_period = exact(inertia, omega0, IDENTITY, t + p.period).omega
        w_flip = exact(inertia, omega0, IDENTITY, t + p.half_period).omega
        mid = int(np.argsort(inertia)[1])
        np.testing.assert_allclose(w_period, w, atol=1e-12 * np.abs(w).max())
        np.testing.assert_allclose(w_flip[:, mid], -w[:, mid], atol=1e-12 * np.abs(w).max())
    # the major axis of the cuboid is its third axis; Betsch's body (6, 8, 3) has it second
    assert elliptic_parameters(CUBOID, (1e-3, 1e-3, 10.0)).axis == 2
    assert elliptic_parameters(BETSCH, BETSCH_OMEGA0).axis == 1
    assert elliptic_parameters(CUBOID, (10.0, 1e-3, 1e-3)).axis == 0
    assert flip_period(CUBOID, (0.0, 2.0, 0.0)) == np.inf


@pytest.mark.parametrize(
    "inertia, omega0",
    [
        (CUBOID, (0.0, 0.0, 0.0)),
        (CUBOID, (3.0, 0.0, 0.0)),
        (CUBOID, (0.0, -3.0, 0.0)),  # steady about the unstable axis stays steady
        (CUBOID, (0.0, 0.0, 3.0)),
        ((1.0, 1.0, 1.0), (1.0, -2.0, 3.0)),
        ((2.0, 2.0, 3.0), (0.4, -0.3, 0.0)),  # any axis of the equal pair is principal
    ],
)
def test_rest_steady_spherical(inertia, omega0):
    t = np.linspace(0.0, 10.0, 101)
    traj = exact(inertia, omega0, Q_RANDOM, t)
    ref = ode(inertia, omega0, Q_RANDOM, t)
    assert np.all(traj.omega == np.asarray(omega0))
    e_q, _ = errors(traj, ref.y[:4].T, ref.y[4:].T)
    assert e_q < 1e-12


@pytest.mark.parametrize(
    "inertia, omega0",
    [
        ((2.0, 2.0, 3.0), (1.0, 0.5, 0.7)),  # oblate
        ((3.0, 2.0, 3.0), (1.0, 0.5, -0.7)),  # prolate, unsorted
        ((2.0, 3.0, 2.0), (-0.2, 1.5, 0.6)),  # oblate, unsorted
    ],
)
def test_symmetric_body(inertia, omega0):
    """k = 0: the symmetry-axis component is constant and the rest turns at (C - A)/A w_axis."""
    params = elliptic_parameters(inertia, omega0)
    assert params.regime == "symmetric" and params.m == 0.0
    inertia_arr = np.asarray(inertia)
    values, counts = np.unique(inertia_arr, return_counts=True)
    axis_value = values[counts == 1][0]
    equal_value = values[counts == 2][0]
    axis = int(np.flatnonzero(inertia_arr == axis_value)[0])
    i, j = (k for k in range(3) if k != axis)
    t = np.linspace(0.0, 10.0, 201)
    traj = exact(inertia, omega0, Q_RANDOM, t)
    # Euler's equations: d/dt (w_i + i w_j) = i s Omega (w_i + i w_j) with s the cyclic sign
    rate = (axis_value - equal_value) / equal_value * omega0[axis]
    sign = 1.0 if (i, j, axis) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    z = (omega0[i] + 1j * omega0[j]) * np.exp(1j * sign * rate * t)
    np.testing.assert_allclose(traj.omega[:, axis], omega0[axis], rtol=1e-15)
    np.testing.assert_allclose(traj.omega[:, i] + 1j * traj.omega[:, j], z, atol=1e-13)
    ref = ode(inertia, omega0, Q_RANDOM, t)
    e_q, e_w = errors(traj, ref.y[:4].T, ref.y[4:].T)
    assert e_q < 1e-12 and e_w < 1e-12


@pytest.mark.parametrize(
    "order", [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
)
def test_any_axis_order(order):
    """Every labelling of the axes (even or odd permutation) of one body agrees with the ODE."""
    inertia = np.array([1.0, 2.0, 2.5])[list(order)]
    for omega0 in [(0.3, -1.0, 0.5), (-1.0, 0.2, 0.4)]:
        t = np.linspace(0.0, 15.0, 151)
        traj = exact(inertia, omega0, Q_RANDOM, t)
        ref = ode(inertia, omega0, Q_RANDOM, t)
        e_q, e_w = errors(traj, ref.y[:4].T, ref.y[4:].T)
        assert e_q < 2e-12 and e_w < 2e-12


def test_negative_and_unordered_times():
    inertia, omega0 = CUBOID, (0.3, 2.0, -0.5)
    t = np.linspace(0.0, -8.0, 81)
    traj = exact(inertia, omega0, Q_RANDOM, t)
    ref = ode(inertia, omega0, Q_RANDOM, t)
    e_q, e_w = errors(traj, ref.y[:4].T, ref.y[4:].T)
    assert e_q < 2e-12 and e_w < 2e-12
    shuffled = np.random.default_rng(3).permutation(t)
    again = exact(inertia, omega0, Q_RANDOM, shuffled)
    order = np.argsort(-shuffled)
    np.testing.assert_array_equal(again.q[order], traj.q)
    np.testing.assert_array_equal(again.omega[order], traj.omega)


def test_integrate_exact_uses_the_solution():
    traj = integrate("exact", CUBOID, (1e-3, 10.0, 1e-3), Q_RANDOM, dt=0.01, t_end=2.0)
    assert len(traj) == 201 and traj.scheme == "exact"
    direct = exact(CUBOID, (1e-3, 10.0, 1e-3), Q_RANDOM, np.arange(201) * 0.01)
    np.testing.assert_array_equal(traj.q, direct.q)
    np.testing.assert_array_equal(traj.omega, direct.omega)


@pytest.mark.parametrize("m", [0.0, 0.3, 0.5, 0.7, 0.99])
def test_jacobi_functions_against_scipy(m):
    u = np.linspace(-20.0, 20.0, 401)
    for mine, theirs in zip(jacobi_sn_cn_dn(u, m), ellipj(u, m)[:3], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=2e-14)
    assert quarter_period(m) == pytest.approx(ellipkm1(1.0 - m), rel=1e-15)


@pytest.mark.parametrize("m1", [0.5, 1e-6, 1e-12, 1e-30, 1e-200])
def test_jacobi_functions_near_one(m1):
    """Closed forms at K/2 and K (A&S 16.5) to full relative precision as k -> 1.

    dn and cn fall like exp(-u) there, so the rounding of the argument K/2 alone costs a relative
    eps K/2: that is the tolerance.
    """
    m = 1.0 - m1 if m1 > 1e-16 else 1.0
    k = quarter_period(m, m1)
    assert k == pytest.approx(float(ellipkm1(m1)), rel=2e-15)
    kp = np.sqrt(m1)
    sn, cn, dn = jacobi_sn_cn_dn(np.array([k / 2, k, -k / 2, 3 * k]), m, m1)
    np.testing.assert_allclose(
        sn, [1 / np.sqrt(1 + kp), 1.0, -1 / np.sqrt(1 + kp), -1.0], rtol=1e-15
    )
    rtol = 4e-16 * max(10.0, k)
    np.testing.assert_allclose(dn, [np.sqrt(kp), kp, np.sqrt(kp), kp], rtol=rtol)
    np.testing.assert_allclose(cn[[0, 2]], np.sqrt(kp / (1 + kp)), rtol=rtol)
    # cn has slope k' at K: the rounding of 3K - 4K leaves |cn(3K)| ~ eps 3K k'
    assert np.all(np.abs(cn[[1, 3]]) < 1e-15 * 3 * k * kp)


def test_vectorised_and_fast():
    t = np.linspace(0.0, 100.0, 10_000)
    exact(BETSCH, BETSCH_OMEGA0, Q_RANDOM, t[:10])  # compile the quaternion kernels
    start = time.perf_counter()
    traj = exact(CUBOID, (1e-3, 10.0, 1e-3), Q_RANDOM, t)
    elapsed = time.perf_counter() - start
    assert traj.q.shape == (10_000, 4) and traj.omega.shape == (10_000, 3)
    assert elapsed < 0.5, elapsed


@pytest.mark.parametrize(
    "inertia, omega0, q0, t, match",
    [
        ((0.0, 1.0, 1.0), (1.0, 0.0, 0.0), IDENTITY, [0.0, 1.0], "positive"),
        ((-1.0, 2.0, 2.0), (1.0, 0.0, 0.0), IDENTITY, [0.0, 1.0], "positive"),
        ((1.0, 1.0, 3.0), (1.0, 0.0, 0.0), IDENTITY, [0.0, 1.0], "triangle"),
        ((1.0, np.nan, 1.0), (1.0, 0.0, 0.0), IDENTITY, [0.0, 1.0], "NaN"),
        (CUBOID, (1.0, np.nan, 0.0), IDENTITY, [0.0, 1.0], "NaN"),
        (CUBOID, (1.0, 0.0), IDENTITY, [0.0, 1.0], "omega0"),
        (CUBOID, (1.0, 0.0, 0.0), (2.0, 0.0, 0.0, 0.0), [0.0, 1.0], "unit"),
        (CUBOID, (1.0, 0.0, 0.0), IDENTITY, [0.0, np.nan], "NaN"),
        (CUBOID, (1.0, 0.0, 0.0), IDENTITY, [[0.0, 1.0]], "1-D"),
    ],
)
def test_bad_input(inertia, omega0, q0, t, match):
    with pytest.raises(ValueError, match=match):
        exact(inertia, omega0, q0, t)
    if np.asarray(t).ndim == 1 and np.all(np.isfinite(t)) and np.asarray(q0)[0] == 1.0:
        with pytest.raises(ValueError, match=match):
            elliptic_parameters(inertia, omega0)
