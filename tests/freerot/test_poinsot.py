"""The Poinsot construction: inertia ellipsoid, invariable plane, polhode, herpolhode.

Every scheme that conserves energy and the spin vector must keep ``omega / sqrt(2 K0)`` on the
inertia ellipsoid of the initial energy and on the invariable plane of the initial angular
momentum, to 1e-10; the rolling is checked against the exact solution by finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tumble.freerot import STEPPERS, get_scheme, integrate
from tumble.freerot.poinsot import (
    curve_family,
    euler_rhs,
    herpolhode_coordinates,
    inertia_ellipsoid_point,
    momentum_energy_curves,
    near_axis_omega,
    plane_basis,
    poinsot_geometry,
    polhode_loops,
    trajectory_geometry,
)
from tumble.rotation.quaternion import quat_rotate
from tumble.status import KernelError, Status

#: the cuboid of Leine et al. 2021 (3 x 2 x 1 m, 1 kg), principal moments in kg m^2
CUBOID = np.array([5.0, 10.0, 13.0]) / 12.0
#: a tilted initial attitude, so that L is not along a lab axis
Q0 = np.array([math.cos(0.4), 0.3 * math.sin(0.4), -0.5, 0.2])
Q0 = Q0 / np.linalg.norm(Q0)
TOL = 1e-10

CONSERVING = [
    name for name, cls in STEPPERS.items() if {"energy", "spin"} <= set(cls.preserves)
] + ["exact"]


def run(scheme, inertia=CUBOID, omega0=(0.1, 10.0, 0.1), dt=0.01, t_end=5.0, save_every=1):
    """Integrate, skipping schemes whose implementation is not there yet."""
    try:
        return integrate(scheme, inertia, omega0, Q0, dt=dt, t_end=t_end, save_every=save_every)
    except NotImplementedError as exc:
        pytest.skip(f"{scheme} is not implemented yet: {exc}")
    except KernelError as exc:
        if exc.status == Status.NO_SOLUTION and "at step 0 " in str(exc):
            pytest.skip(f"{scheme} has no working step yet: {exc}")
        raise


def test_the_conserving_list_holds_the_implicit_midpoint():
    assert "implicit" in CONSERVING
    assert {"energy", "spin"} <= get_scheme("implicit").preserves


@pytest.mark.parametrize("scheme", CONSERVING)
@pytest.mark.parametrize(
    "omega0", [(0.1, 10.0, 0.1), (0.3, 0.2, 6.0), (5.0, 0.4, 0.3)], ids=["mid", "major", "minor"]
)
def test_construction_holds_for_conserving_schemes(scheme, omega0):
    traj = run(scheme, omega0=omega0)
    geo = trajectory_geometry(traj)
    k0 = float(geo.energy[0])
    spin0 = geo.spin[0]
    g0 = float(np.linalg.norm(spin0))
    root = math.sqrt(2.0 * k0)

    # omega / sqrt(2 K0) on the inertia ellipsoid I_X X^2 + I_Y Y^2 + I_Z Z^2 = 1
    r_body = traj.omega / root
    assert np.abs(np.sum(CUBOID * r_body**2, axis=1) - 1.0).max() <= TOL
    # its lab image on the invariable plane r . L0 = sqrt(2 K0)
    r_lab = quat_rotate(traj.q, r_body)
    assert np.abs(r_lab @ spin0 / root - 1.0).max() <= TOL
    # the plane touches the ellipsoid there: the lab normal R (I r) is parallel to L0
    normal_lab = quat_rotate(traj.q, CUBOID * r_body)
    assert np.linalg.norm(np.cross(normal_lab, spin0), axis=1).max() <= TOL * g0 / root
    # herpolhode in the plane of the first sample, polhode on the ellipsoid
    height = herpolhode_coordinates(geo)[:, 2]
    assert np.abs(height).max() <= TOL * geo.plane_distance[0]
    assert np.abs(np.sum(CUBOID * geo.point_body**2, axis=1) - 1.0).max() <= TOL
    # the plane itself stays put: normal L/|L| and distance sqrt(2K)/|L|
    assert np.abs(geo.plane_normal - geo.plane_normal[0]).max() <= TOL
    assert np.abs(geo.plane_distance / (root / g0) - 1.0).max() <= TOL
    # rolling without slipping: the material point at the contact has zero lab velocity
    scale = np.linalg.norm(geo.omega_lab, axis=1) * np.linalg.norm(geo.point_lab, axis=1)
    assert (np.linalg.norm(geo.slip_velocity, axis=1) / scale).max() <= TOL


def test_the_explicit_scheme_leaves_the_plane():
    """Seed 000: the explicit scheme near the major axis loses the spin vector (control)."""
    traj = run("explicit", omega0=(1e-3, 1e-3, 10.0), t_end=15.0)
    geo = trajectory_geometry(traj)
    height = herpolhode_coordinates(geo)[:, 2]
    assert np.abs(height).max() > 1e-2 * geo.plane_distance[0]
    # the energy is kept exactly, so the point stays on the ellipsoid all the same
    root = math.sqrt(2.0 * geo.energy[0])
    assert np.abs(np.sum(CUBOID * (traj.omega / root) ** 2, axis=1) - 1.0).max() <= 1e-12


@pytest.mark.parametrize("omega0", [(0.1, 10.0, 0.1), (0.3, 0.2, 6.0)], ids=["mid", "major"])
def test_contact_point_rolls_along_the_herpolhode(omega0):
    """Finite differences of the exact motion: d r_S/dt = R dr_B/dt, in the plane, same speed."""
    h = 1e-4
    t = np.array([0.7, 2.3, 4.1])
    times = np.concatenate([t - h, t, t + h])
    try:
        from tumble.freerot import exact

        traj = exact(CUBOID, omega0, Q0, times)
    except NotImplementedError as exc:
        pytest.skip(f"the exact solution is not implemented yet: {exc}")
    geo = trajectory_geometry(traj)
    n = t.size
    before, now, after = (slice(0, n), slice(n, 2 * n), slice(2 * n, 3 * n))
    lab_fd = (geo.point_lab[after] - geo.point_lab[before]) / (2.0 * h)
    body_fd = (geo.point_body[after] - geo.point_body[before]) / (2.0 * h)
    velocity = geo.contact_velocity[now]
    speed = np.linalg.norm(velocity, axis=1)
    assert np.linalg.norm(lab_fd - velocity, axis=1).max() <= 1e-6 * speed.max()
    # polhode and herpolhode are traced at the same speed (no slipping)
    assert np.abs(np.linalg.norm(body_fd, axis=1) / speed - 1.0).max() <= 1e-6
    # the contact point moves within the plane
    assert np.abs(np.sum(velocity * geo.plane_normal[now], axis=1)).max() <= 1e-12 * speed.max()
    # and its body-frame velocity follows Euler's equations
    expected = euler_rhs(CUBOID, traj.omega[now]) / math.sqrt(2.0 * geo.energy[0])
    assert np.linalg.norm(body_fd - expected, axis=1).max() <= 1e-6 * speed.max()


@pytest.mark.parametrize(
    "omega0, n_loops",
    [((0.1, 3.0, 2.0), 2), ((2.0, 3.0, 0.1), 2), ((1.0, 0.0, 0.0), 2)],
    ids=["major", "minor", "steady-minor"],
)
def test_momentum_sphere_meets_the_energy_ellipsoid(omega0, n_loops):
    omega0 = np.asarray(omega0)
    spin_body = CUBOID * omega0
    g = float(np.linalg.norm(spin_body))
    k = 0.5 * float(omega0 @ spin_body)
    loops = momentum_energy_curves(CUBOID, k, g, n_points=361)
    assert len(loops) == n_loops
    for loop in loops:
        assert np.abs(np.linalg.norm(loop, axis=1) / g - 1.0).max() <= 1e-12
        assert np.abs(0.5 * np.sum(loop**2 / CUBOID, axis=1) / k - 1.0).max() <= 1e-12
    # the state itself lies on one loop, within the sampling of the curve
    nearest = min(np.linalg.norm(loop - spin_body, axis=1).min() for loop in loops)
    assert nearest <= 2.0 * np.pi / 360 * g


def test_separatrix_gives_the_two_great_circles_and_axis_order_is_kept():
    g = 2.0
    k = 0.5 * g * g / CUBOID[1]
    loops = momentum_energy_curves(CUBOID, k, g)
    assert len(loops) == 4  # both families meet the separatrix
    for loop in loops:
        # great circles through the intermediate axis: planes L_X / L_Z = const
        assert np.abs(np.linalg.norm(loop, axis=1) - g).max() <= 1e-12
        assert np.abs(0.5 * np.sum(loop**2 / CUBOID, axis=1) - k).max() <= 1e-12
    # unsorted moments: the same curves with the coordinates permuted
    perm = [2, 0, 1]
    permuted = momentum_energy_curves(CUBOID[perm], 0.7 * k + 0.3 * g * g / (2 * CUBOID[2]), g)
    direct = momentum_energy_curves(CUBOID, 0.7 * k + 0.3 * g * g / (2 * CUBOID[2]), g)
    assert len(permuted) == len(direct) == 2
    for a, b in zip(permuted, direct, strict=True):
        assert np.abs(a - b[:, perm]).max() <= 1e-12


def test_curve_family_and_polhode_loops():
    g = 3.0
    family = curve_family(CUBOID, g, levels=7)
    energies = [e for e, _ in family]
    assert len(family) == 7
    assert min(energies) > g * g / (2 * CUBOID[2]) and max(energies) < g * g / (2 * CUBOID[0])
    assert any(abs(e - g * g / (2 * CUBOID[1])) <= 1e-12 * e for e in energies)
    k = energies[1]
    for loop in polhode_loops(CUBOID, k, g):
        assert np.abs(np.sum(CUBOID * loop**2, axis=1) - 1.0).max() <= 1e-12
        # the plane distance sqrt(2K)/|L| is the same all along: |I r| = G / sqrt(2K)
        assert np.abs(np.linalg.norm(CUBOID * loop, axis=1) - g / math.sqrt(2 * k)).max() <= 1e-12


def test_bad_states_are_refused():
    with pytest.raises(ValueError, match="rest"):
        inertia_ellipsoid_point(CUBOID, (0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="rest"):
        poinsot_geometry(CUBOID, [Q0], [(0.0, 0.0, 0.0)])
    with pytest.raises(ValueError, match="same number"):
        poinsot_geometry(CUBOID, [Q0, Q0], [(1.0, 0.0, 0.0)])
    with pytest.raises(ValueError, match="outside"):
        momentum_energy_curves(CUBOID, 100.0, 1.0)
    with pytest.raises(ValueError, match="axis must be one of"):
        near_axis_omega(CUBOID, "diagonal", 1.0)
    with pytest.raises(ValueError, match="spin rate"):
        near_axis_omega(CUBOID, "major", -1.0)
    with pytest.raises(ValueError, match="non-zero"):
        plane_basis((0.0, 0.0, 0.0))


def test_near_axis_omega_follows_the_moments_not_the_index():
    inertia = CUBOID[[2, 1, 0]]  # a 1 x 2 x 3 box: x is now the major axis
    assert near_axis_omega(inertia, "major", 10.0, 0.01).tolist() == [10.0, 0.1, 0.1]
    assert near_axis_omega(inertia, "minor", 10.0, 0.0).tolist() == [0.0, 0.0, 10.0]
    e1, e2 = plane_basis((1.0, 2.0, 2.0))
    assert abs(e1 @ e2) < 1e-15 and np.allclose(np.cross(e1, e2), np.array([1, 2, 2]) / 3)
