"""The closed-form implicit midpoint step of an axisymmetric body against Newton's method and
against the residual of Leine et al. 2021, eq. 61, and the free rotation it drives."""

import numpy as np
import pytest

from tumble._jit import jit
from tumble.freerot import exact, integrate
from tumble.freerot.implicit_midpoint import (
    free_midpoint_omega,
    free_precession,
    midpoint_omega,
    newton_midpoint,
    spin_preserving_increment,
    turn_increment,
)
from tumble.rockfall import Rock


@jit
def _both(inertia, w0, dt, torque):
    closed, status = midpoint_omega(inertia, w0, dt, torque, 1e-15, 50)
    newton, newton_status = newton_midpoint(inertia, w0, dt, torque, 1e-15, 50)
    return closed, status, newton, newton_status


def _residual(inertia, w0, w1, dt, torque):
    inertia, w0, w1, torque = (np.asarray(a, dtype=float) for a in (inertia, w0, w1, torque))
    wm = 0.5 * (w0 + w1)
    return inertia * (w1 - w0) + dt * np.cross(wm, inertia * wm) - torque


# each pair of equal moments: the symmetry axis is z, x or y
@pytest.mark.parametrize(
    "inertia", [(52.06, 52.06, 83.3), (83.3, 52.06, 52.06), (52.06, 83.3, 52.06), (3.0, 3.0, 1.0)]
)
@pytest.mark.parametrize("torque", [(0.0, 0.0, 0.0), (0.4, -1.2, 0.7)])
def test_closed_form_solves_eq_61_as_newton_does(inertia, torque):
    """The closed form leaves a residual of round-off (1e-13 of |Theta w|) and agrees with
    Newton's solution of the same equation to 1e-13 relative, over spins up to 60 rad/s."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        w0 = tuple(rng.uniform(-60.0, 60.0, 3))
        dt = float(rng.choice([0.002, 0.01, 0.05]))
        closed, status, newton, newton_status = _both(inertia, w0, dt, torque)
        assert status == 0 and newton_status == 0
        scale = np.linalg.norm(np.asarray(inertia) * np.asarray(w0))
        assert np.linalg.norm(_residual(inertia, w0, closed, dt, torque)) <= 1e-13 * scale
        assert np.allclose(closed, newton, rtol=0.0, atol=1e-13 * np.linalg.norm(w0))


def test_symmetric_moment_is_conserved_exactly():
    """Without torque the spin about the symmetry axis is carried over bit for bit, and the
    energy and |Theta w| are kept to round-off, over 20000 steps of the EOTA221 rock."""
    inertia = tuple(float(v) for v in Rock.eota221(mass=780.0).inertia)
    assert inertia[0] == inertia[1]
    traj = integrate("implicit", inertia, (20.0, 15.0, 10.0), dt=0.002, t_end=40.0)
    omega = np.asarray(traj.omega)
    assert np.all(omega[:, 2] == 10.0)
    energy = 0.5 * np.sum(np.asarray(inertia) * omega**2, axis=1)
    spin = np.linalg.norm(np.asarray(inertia) * omega, axis=1)
    assert np.max(np.abs(energy / energy[0] - 1.0)) < 1e-13
    assert np.max(np.abs(spin / spin[0] - 1.0)) < 1e-13


def test_closed_form_follows_the_exact_precession():
    """A symmetric top precesses at ``(C - A) w_z / A`` (exact solution): the implicit scheme,
    of order 2, stays within 2e-5 rad/s of it over 10 s at dt = 0.001 s."""
    inertia = (2.0, 2.0, 3.0)
    w0 = (1.0, 0.5, 4.0)
    traj = integrate("implicit", inertia, w0, dt=0.001, t_end=10.0)
    ref = exact(inertia, w0, (1.0, 0.0, 0.0, 0.0), traj.t)
    assert np.max(np.abs(np.asarray(traj.omega) - np.asarray(ref.omega))) < 2e-5


@jit
def _turned_and_next(inertia, w0, dt):
    w1, _ = midpoint_omega(inertia, w0, dt, (0.0, 0.0, 0.0), 1e-15, 50)
    w2, _ = midpoint_omega(inertia, w1, dt, (0.0, 0.0, 0.0), 1e-15, 50)
    axis, cos, sin = free_precession(inertia, w1, dt)
    turned = turn_increment(spin_preserving_increment(w0, w1, inertia, dt), axis, cos, sin)
    return w1, w2, axis, cos, sin, turned, spin_preserving_increment(w1, w2, inertia, dt)


@pytest.mark.parametrize(
    "inertia", [(52.06, 52.06, 83.3), (83.3, 52.06, 52.06), (52.06, 83.3, 52.06), (3.0, 3.0, 1.0)]
)
def test_free_increment_turns_with_the_precession(inertia):
    """Without torque the midpoint rule turns w about the symmetry axis by the angle of
    ``free_precession`` (w2 = R w1 to 1e-15 relative), and the next step's spin-preserving
    increment is this step's increment conjugated by R (to 1e-15): the identity the rockfall
    step uses for its free flights."""
    rng = np.random.default_rng(11)
    symmetry = next(k for k in range(3) if inertia[k] not in np.delete(inertia, k))
    for _ in range(50):
        w0 = tuple(rng.uniform(-60.0, 60.0, 3))
        dt = float(rng.choice([0.002, 0.01, 0.05]))
        w1, w2, axis, cos, sin, turned, direct = _turned_and_next(inertia, w0, dt)
        assert axis == symmetry
        assert abs(cos * cos + sin * sin - 1.0) < 1e-15
        i, j = (axis + 1) % 3, (axis + 2) % 3
        rotated = np.array(w1)
        rotated[i] = cos * w1[i] - sin * w1[j]
        rotated[j] = sin * w1[i] + cos * w1[j]
        assert np.allclose(rotated, w2, rtol=0.0, atol=1e-15 * np.linalg.norm(w0))
        assert abs(np.linalg.norm(direct) - 1.0) < 1e-15
        assert np.allclose(turned, direct, rtol=0.0, atol=1e-15)


def test_three_distinct_moments_have_no_free_precession():
    axis, cos, sin = _turned_and_next((1.0, 2.0, 3.0), (0.3, 0.2, 0.1), 0.01)[2:5]
    assert (axis, cos, sin) == (-1, 1.0, 0.0)


@jit
def _free_and_zero_torque(inertia, w0, dt):
    free, free_status = free_midpoint_omega(inertia, w0, dt, 1e-15, 50)
    zero, zero_status = midpoint_omega(inertia, w0, dt, (0.0, 0.0, 0.0), 1e-15, 50)
    return free, free_status, zero, zero_status


@pytest.mark.parametrize(
    "inertia", [(52.06, 52.06, 83.3), (83.3, 52.06, 52.06), (52.06, 83.3, 52.06), (3.0, 2.0, 1.0)]
)
def test_free_solve_is_the_zero_torque_solve_bit_for_bit(inertia):
    """The torque-free solve of the rockfall step skips the divisions of a zero torque impulse
    by the moments (0 / A is +0 for a positive moment): every component is the one the solve
    with a zero torque impulse gives, to the bit, including signed zeros in w0, for symmetry
    axes z, x, y and for three distinct moments (Newton's method)."""
    rng = np.random.default_rng(11)
    samples = [tuple(rng.uniform(-60.0, 60.0, 3)) for _ in range(300)]
    samples += [(-0.0, 0.0, -0.0), (0.0, -0.0, 5.0), (-0.0, 3.0, -0.0), (1e-300, -1e-300, 0.0)]
    for w0 in samples:
        for dt in (0.002, 0.01):
            free, free_status, zero, zero_status = _free_and_zero_torque(inertia, w0, dt)
            assert free_status == zero_status
            assert np.array_equal(np.array(free).view(np.uint64), np.array(zero).view(np.uint64)), (
                w0,
                dt,
            )
