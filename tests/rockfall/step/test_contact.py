"""Kernels of the step's contact module (the contact buffer, Delassus blocks, Newton impacts,
Coulomb friction, projected Gauss-Seidel, warm start) against hand-computed impacts; the
contacts are found by :func:`find_contacts` (tested in ``test_detection.py``).

Conventions used in the hand computations: quaternions are (w, x, y, z), body (K) to inertial
(I); a body with the isotropic inertia Theta has ``rot_inv = 1/Theta * 1``. Percussions are
compared in the inertial frame, ``J = sum_j P_j d_j`` with the directions ``d_j`` read from the
W columns, so that the tests of the impact laws do not depend on the sign convention of the
tangents (``test_detection.py``).
"""

import itertools
import math

import numpy as np
import pytest

from tumble.rockfall.step.contact import (
    C_G,
    C_GAMMA_B,
    C_GINV,
    C_P,
    C_VERTEX,
    C_W,
    C_WARM,
    NCOL,
    contact_work,
    forget_percussions,
    inverse3,
    prepare_contacts,
    solve_pgs,
)
from tumble.rockfall.step.detection import find_contacts

GAP_TOL = 1e-8
IDENTITY = (1.0, 0.0, 0.0, 0.0)
PGS_TOL = 1e-13
PGS_MAX_ITER = 500


def flat_ground():
    """Heights (zero everywhere) and grid ``(x0, y0, dx, dy)`` of a 10 m x 10 m flat DEM."""
    return np.zeros((11, 11)), (0.0, 0.0, 1.0, 1.0)


def box_vertices(a, b, c):
    """Corners ``(sx a, sy b, sz c)``; vertex ``4 ix + 2 iy + iz`` has sign index (ix, iy, iz),
    index 0 for the sign -1 and 1 for +1."""
    return np.array(
        [(sx * a, sy * b, sz * c) for sx, sy, sz in itertools.product((-1.0, 1.0), repeat=3)]
    )


def directions(row):
    """The inertial force directions (n, t1, t2) of a contact row, from its W columns."""
    return np.array([row[C_W + 6 * j : C_W + 6 * j + 3] for j in range(3)])


def impulse(row):
    """The percussion of a contact row in the inertial frame, ``sum_j P_j d_j``."""
    return row[C_P : C_P + 3] @ directions(row)


def isotropic(theta):
    d = 1.0 / theta
    return ((d, 0.0, 0.0), (0.0, d, 0.0), (0.0, 0.0, d))


# --- inverse3 ----------------------------------------------------------------------------------


def test_inverse3_of_a_known_matrix():
    """M = [[4, 7, 2], [3, 6, 1], [2, 5, 3]]: det = 4 (18 - 5) - 7 (9 - 2) + 2 (15 - 12) = 9 and
    the adjugate (transposed cofactors) is [[13, -11, -5], [-7, 8, 2], [3, -6, 3]], so
    M^-1 = adj / 9; to 1e-15."""
    m = ((4.0, 7.0, 2.0), (3.0, 6.0, 1.0), (2.0, 5.0, 3.0))
    inv, ok = inverse3(m)
    assert ok
    expected = np.array([[13.0, -11.0, -5.0], [-7.0, 8.0, 2.0], [3.0, -6.0, 3.0]]) / 9.0
    np.testing.assert_allclose(np.array(inv), expected, atol=1e-15)
    np.testing.assert_allclose(np.array(m) @ np.array(inv), np.eye(3), atol=1e-14)


def test_inverse3_refuses_a_singular_matrix():
    """Row 3 = row 1 + row 2: det = 0 exactly; ok is False and the result is zero."""
    inv, ok = inverse3(((1.0, 2.0, 3.0), (4.0, 5.0, 6.0), (5.0, 7.0, 9.0)))
    assert not ok
    assert np.array(inv).tolist() == [[0.0] * 3] * 3


# --- one vertex below the centre of mass: Newton's impact law and Coulomb friction --------------

MASS = 2.0
THETA = 0.5  # isotropic principal moment, kg m^2
ARM = 0.5  # the vertex is ARM below the centre of mass
V_DOWN = 3.0  # falling speed before the impact, m/s


def single_vertex(vertex, u_before, *, mu, eps_n):
    """Closed contact of one vertex (body frame) touching flat ground, prepared and solved with
    u_free = u_before (no gravity during the impact); returns (contacts, u_after)."""
    heights, grid = flat_ground()
    vertices = np.array([vertex])
    contacts = np.zeros((1, NCOL))
    n, inside = find_contacts(
        heights, grid, vertices, (5.0, 5.0, -vertex[2]), IDENTITY, GAP_TOL, contacts
    )
    assert inside
    assert n == 1
    forget_percussions(contacts)
    assert prepare_contacts(contacts, n, 1.0 / MASS, isotropic(THETA), u_before)
    u_after, _, ok = solve_pgs(contacts, n, u_before, mu, eps_n, PGS_TOL, PGS_MAX_ITER)
    assert ok
    return contacts, np.array(u_after)


def test_prepare_contacts_delassus_block_of_a_vertex_below_the_centre():
    """Vertex r = (0, 0, -a) on flat ground, mass m, isotropic Theta: W_N = (e_z, r x e_z = 0),
    W_T = (t, r x t) with |r x t| = a, so G = diag(1/m, 1/m + a^2/Theta, 1/m + a^2/Theta)
    = diag(0.5, 1, 1); r_N = 1 / G_NN = m = 2, r_T = 1 / G_TT = 1; gamma_N,B = -3 m/s (the
    falling speed). To 1e-15."""
    heights, grid = flat_ground()
    contacts = np.zeros((1, NCOL))
    n, _ = find_contacts(
        heights, grid, np.array([[0.0, 0.0, -ARM]]), (5.0, 5.0, ARM), IDENTITY, GAP_TOL, contacts
    )
    u = (0.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0)
    assert prepare_contacts(contacts, n, 1.0 / MASS, isotropic(THETA), u)
    g_tt = 1.0 / MASS + ARM**2 / THETA
    row = contacts[0]
    g_inv = row[C_GINV : C_GINV + 9].reshape(3, 3)
    np.testing.assert_allclose(g_inv, np.diag([MASS, 1.0 / g_tt, 1.0 / g_tt]), atol=1e-15)
    assert 1.0 / row[C_G] == pytest.approx(MASS, abs=1e-15)  # r_N
    assert 1.0 / max(row[C_G + 4], row[C_G + 8]) == pytest.approx(1.0 / g_tt, abs=1e-15)  # r_T
    assert row[C_GAMMA_B] == pytest.approx(-V_DOWN, abs=1e-15)


@pytest.mark.parametrize("eps_n", [0.0, 0.3, 0.5, 1.0])
def test_newton_impact_of_a_vertex_below_the_centre(eps_n):
    """Falling at v = 3 m/s on a vertex right below the centre of mass (no lever arm, so the
    normal is decoupled from rotation and friction): Newton's law gamma_N,E = -eps_N gamma_N,B
    gives P_N = m (1 + eps_N) v, the velocity after is +eps_N v upwards, no spin. m = 2 kg;
    tolerance 1e-12 (relative, PGS tolerance 1e-13)."""
    contacts, u_after = single_vertex(
        (0.0, 0.0, -ARM), (0.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0), mu=0.7, eps_n=eps_n
    )
    p_n = MASS * (1.0 + eps_n) * V_DOWN
    np.testing.assert_allclose(impulse(contacts[0]), [0.0, 0.0, p_n], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(u_after, [0.0, 0.0, eps_n * V_DOWN, 0.0, 0.0, 0.0], atol=1e-12)


def test_newton_impact_with_lever_arm_frictionless():
    """Vertex r = (b, 0, -a), b = 0.4, a = 0.5, mu = 0: r x e_z = (0, -b, 0), so the effective
    inverse mass is G_NN = 1/m + b^2/Theta = 0.5 + 0.16 / 0.5 = 0.82 and
    P_N = (1 + eps_N) v / G_NN = 1.5 * 3 / 0.82 = 5.48780... (eps_N = 0.5). After the impact the
    contact point moves up at eps_N v = 1.5 m/s, the centre at -3 + P_N / m, and
    omega_y = -b P_N / Theta. Tolerance 1e-12."""
    b, eps_n = 0.4, 0.5
    contacts, u_after = single_vertex(
        (b, 0.0, -ARM), (0.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0), mu=0.0, eps_n=eps_n
    )
    p_n = (1.0 + eps_n) * V_DOWN / (1.0 / MASS + b * b / THETA)
    assert p_n == pytest.approx(5.487804878, abs=1e-9)
    np.testing.assert_allclose(impulse(contacts[0]), [0.0, 0.0, p_n], atol=1e-12)
    expected = [0.0, 0.0, -V_DOWN + p_n / MASS, 0.0, -b * p_n / THETA, 0.0]
    np.testing.assert_allclose(u_after, expected, atol=1e-12)
    omega = u_after[3:]
    point_velocity = u_after[:3] + np.cross(omega, [b, 0.0, -ARM])
    assert point_velocity[2] == pytest.approx(eps_n * V_DOWN, abs=1e-12)


def test_sliding_impact_caps_the_tangential_percussion_at_mu_p_n():
    """Vertex below the centre, falling at 3 m/s while moving at 4 m/s along +x, eps_N = 0.5,
    mu = 0.2. Normal: P_N = m (1 + eps_N) v = 9 (decoupled, as above). Sticking would need
    |P_T| = 4 / G_TT = 4 > mu P_N = 1.8, so the contact slides: P_T = 1.8 against the motion,
    J = (-1.8, 0, 9). After: v = (4 - 1.8/2, 0, -3 + 9/2) = (3.1, 0, 1.5),
    omega = r x J / Theta = (0, 0.5 * 1.8, 0) / 0.5 = (0, 1.8, 0), and the contact point still
    slides forward at 3.1 - 1.8 * 0.5 = 2.2 m/s. Tolerance 1e-12."""
    contacts, u_after = single_vertex(
        (0.0, 0.0, -ARM), (4.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0), mu=0.2, eps_n=0.5
    )
    np.testing.assert_allclose(impulse(contacts[0]), [-1.8, 0.0, 9.0], atol=1e-12)
    np.testing.assert_allclose(u_after, [3.1, 0.0, 1.5, 0.0, 1.8, 0.0], atol=1e-12)
    p = contacts[0, C_P : C_P + 3]
    assert math.hypot(p[1], p[2]) == pytest.approx(0.2 * p[0], rel=1e-12)
    slip = u_after[:3] + np.cross(u_after[3:], [0.0, 0.0, -ARM])
    np.testing.assert_allclose(slip, [2.2, 0.0, 1.5], atol=1e-12)


def test_sticking_impact_stops_the_contact_point_tangentially():
    """As above with mu = 10: |P_T| = 4 / G_TT = 4 <= mu P_N = 90, the contact sticks:
    J = (-4, 0, 9), v = (4 - 4/2, 0, 1.5) = (2, 0, 1.5), omega = (0, 0.5 * 4 / 0.5, 0) =
    (0, 4, 0); the contact point moves at 2 + 4 (-0.5) = 0 along x. Tolerance 1e-12."""
    contacts, u_after = single_vertex(
        (0.0, 0.0, -ARM), (4.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0), mu=10.0, eps_n=0.5
    )
    np.testing.assert_allclose(impulse(contacts[0]), [-4.0, 0.0, 9.0], atol=1e-12)
    np.testing.assert_allclose(u_after, [2.0, 0.0, 1.5, 0.0, 4.0, 0.0], atol=1e-12)
    slip = u_after[:3] + np.cross(u_after[3:], [0.0, 0.0, -ARM])
    np.testing.assert_allclose(slip, [0.0, 0.0, 1.5], atol=1e-12)


def test_contact_work_of_a_plastic_impact_is_minus_the_normal_kinetic_energy():
    """Perfectly plastic (eps_N = 0), frictionless (mu = 0) impact of the vertex below the
    centre with v = (4, 0, -3): P_N = m v_n = 6 and the normal velocity after is 0, so the work
    ``sum P . W^T (u_B + u_E) / 2`` (L14 eq. 54) is ``6 (-3 + 0) / 2 = -m v_n^2 / 2 = -9`` J,
    minus the kinetic energy of the normal velocity component; the tangential 4 m/s is kept,
    so the kinetic energy drops by exactly the work. One loaded contact; tolerance 1e-12."""
    u_before = (4.0, 0.0, -V_DOWN, 0.0, 0.0, 0.0)
    contacts, u_after = single_vertex((0.0, 0.0, -ARM), u_before, mu=0.0, eps_n=0.0)
    work, loaded = contact_work(contacts, 1, u_before, tuple(u_after))
    assert loaded == 1
    assert work == pytest.approx(-0.5 * MASS * V_DOWN**2, abs=1e-12)
    # the tangential velocity is untouched, so the whole loss is the normal kinetic energy
    kinetic = 0.5 * MASS * np.sum(np.square(u_before[:3]))
    kinetic_after = 0.5 * MASS * np.sum(np.square(u_after[:3])) + 0.5 * THETA * np.sum(
        np.square(u_after[3:])
    )
    assert kinetic_after - kinetic == pytest.approx(work, abs=1e-12)


# --- a cube landing flat: four contacts, statically indeterminate, an invariant outcome ---------


@pytest.mark.parametrize("eps_n", [0.0, 0.5])
def test_flat_cube_landing_stops_or_bounces_without_spin(eps_n):
    """Unit cube (m = 1, Theta = m (1 + 1) / 12 = 1/6) landing flat at 2 m/s with mu = 0.8.
    How the 4 corners share the percussion is not determined, but the outcome is: all four
    corners end with the normal velocity eps_N 2 and no slip, which for a rigid body means
    v = (0, 0, 2 eps_N), omega = 0; so sum P_N = m (1 + eps_N) 2 and the tangential percussions
    cancel. For eps_N = 0 the contact work is -m v^2 / 2 = -2 J (the whole kinetic energy).
    Tolerance 1e-9 (PGS tolerance 1e-13)."""
    heights, grid = flat_ground()
    vertices = box_vertices(0.5, 0.5, 0.5)
    contacts = np.zeros((8, NCOL))
    n, _ = find_contacts(heights, grid, vertices, (5.0, 5.0, 0.5), IDENTITY, GAP_TOL, contacts)
    assert n == 4
    forget_percussions(contacts)
    u_before = (0.0, 0.0, -2.0, 0.0, 0.0, 0.0)
    assert prepare_contacts(contacts, n, 1.0, isotropic(1.0 / 6.0), u_before)
    u_after, _, ok = solve_pgs(contacts, n, u_before, 0.8, eps_n, PGS_TOL, 1000)
    assert ok
    np.testing.assert_allclose(u_after, [0.0, 0.0, 2.0 * eps_n, 0.0, 0.0, 0.0], atol=1e-9)
    total = sum(impulse(row) for row in contacts[:n])
    np.testing.assert_allclose(total, [0.0, 0.0, 2.0 * (1.0 + eps_n)], atol=1e-9)
    if eps_n == 0.0:
        work, _ = contact_work(contacts, n, u_before, u_after)
        assert work == pytest.approx(-2.0, abs=1e-9)


def test_two_contacts_of_a_short_edge_stick_in_two_sweeps():
    """A box of 0.1 m x 1 m x 1 m turned by 45 degrees about x lands on its short bottom edge
    (vertices 0 and 4) with mu = 2: both contacts stick, so after the impact both contact points
    are at rest (1e-12 m/s; the box turns about the edge) with positive normal percussions. The
    joint solution of the pair (module docstring) finds it in two sweeps (the regularisation
    leaves a relative error of about 2e-7 after the first); the single-contact updates alone
    stop at the cap of 500 sweeps short of the tolerance of 1e-13."""
    heights, grid = flat_ground()
    a, b, c = 0.05, 0.5, 0.5
    vertices = box_vertices(a, b, c)
    turn = (math.cos(math.pi / 8), math.sin(math.pi / 8), 0.0, 0.0)
    contacts = np.zeros((8, NCOL))
    n, _ = find_contacts(
        heights, grid, vertices, (5.0, 5.0, (b + c) / math.sqrt(2.0)), turn, GAP_TOL, contacts
    )
    assert n == 2
    assert sorted(contacts[:n, C_VERTEX]) == [0.0, 4.0]
    forget_percussions(contacts)
    mass = 1.0
    theta = (
        mass * (b * b + c * c) / 3.0,
        mass * (a * a + c * c) / 3.0,
        mass * (a * a + b * b) / 3.0,
    )
    rot_inv = ((1.0 / theta[0], 0.0, 0.0), (0.0, 1.0 / theta[1], 0.0), (0.0, 0.0, 1.0 / theta[2]))
    u_before = (0.0, 0.2, -1.0, 0.5, 0.0, 0.0)
    assert prepare_contacts(contacts, n, 1.0 / mass, rot_inv, u_before)
    u_after, sweeps, ok = solve_pgs(contacts, n, u_before, 2.0, 0.0, PGS_TOL, PGS_MAX_ITER)
    assert ok
    assert sweeps <= 2
    for row in contacts[:n]:
        assert row[C_P] > 0.0
        for j in range(3):
            gamma = row[C_W + 6 * j : C_W + 6 * j + 6] @ np.array(u_after)
            assert abs(gamma) < 1e-12


# --- warm start and forget_percussions ----------------------------------------------------------


def test_warm_start_is_stored_per_vertex_and_forgotten():
    """After a solve, row k's C_WARM columns hold the percussion of vertex k (rows of open
    vertices hold zero), a second solve of the same problem starts from the solution and stops
    after one sweep with the same velocities (1e-13), and forget_percussions zeroes exactly the
    C_WARM columns of every row and nothing else."""
    heights, grid = flat_ground()
    vertices = box_vertices(0.5, 0.5, 0.5)
    contacts = np.zeros((8, NCOL))
    n, _ = find_contacts(heights, grid, vertices, (5.0, 5.0, 0.5), IDENTITY, GAP_TOL, contacts)
    forget_percussions(contacts)
    u_before = (1.0, 0.5, -2.0, 0.3, -0.2, 0.1)
    assert prepare_contacts(contacts, n, 1.0, isotropic(1.0 / 6.0), u_before)
    u_first, _, ok = solve_pgs(contacts, n, u_before, 0.4, 0.2, PGS_TOL, 1000)
    assert ok
    warm = np.zeros((8, 3))
    for row in contacts[:n]:
        warm[int(row[C_VERTEX])] = row[C_P : C_P + 3]
    np.testing.assert_array_equal(contacts[:, C_WARM : C_WARM + 3], warm)
    assert np.abs(warm).sum() > 0.0
    u_second, sweeps, ok = solve_pgs(contacts, n, u_before, 0.4, 0.2, PGS_TOL, 1000)
    assert ok
    assert sweeps <= 2
    np.testing.assert_allclose(u_second, u_first, atol=1e-13)
    before = contacts.copy()
    forget_percussions(contacts)
    assert not contacts[:, C_WARM : C_WARM + 3].any()
    np.testing.assert_array_equal(contacts[:, :C_WARM], before[:, :C_WARM])


def test_warm_start_of_a_new_contact_set_holds_only_its_vertices():
    """A box resting on its face (four closed vertices) and then on one edge (two of them, the
    box tilted by 0.3 rad about x): after the second solve the C_WARM columns are exactly those
    of a buffer cleared in full before it (the edge's two percussions, zero for every other
    vertex, the other two face vertices included), and forget_percussions leaves the next solve
    nothing to clear."""
    heights, grid = flat_ground()
    vertices = box_vertices(0.5, 0.5, 0.5)
    contacts = np.zeros((8, NCOL))
    forget_percussions(contacts)
    u_before = (1.0, 0.5, -2.0, 0.3, -0.2, 0.1)
    n, _ = find_contacts(heights, grid, vertices, (5.0, 5.0, 0.5), IDENTITY, GAP_TOL, contacts)
    assert n == 4
    assert prepare_contacts(contacts, n, 1.0, isotropic(1.0 / 6.0), u_before)
    solve_pgs(contacts, n, u_before, 0.4, 0.2, PGS_TOL, 1000)
    face = {int(k) for k in contacts[:n, C_VERTEX]}
    assert np.abs(contacts[list(face), C_WARM]).sum() > 0.0

    angle = 0.3
    p = (math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0)
    c, s = math.cos(angle), math.sin(angle)
    z = -min(s * v[1] + c * v[2] for v in vertices)  # the lowest edge on the ground
    n, _ = find_contacts(heights, grid, vertices, (5.0, 5.0, z), p, GAP_TOL, contacts)
    assert n == 2
    edge = {int(k) for k in contacts[:n, C_VERTEX]}
    assert edge < face
    fresh = contacts.copy()
    forget_percussions(fresh)
    for buffer in (contacts, fresh):
        assert prepare_contacts(buffer, n, 1.0, isotropic(1.0 / 6.0), u_before)
        solve_pgs(buffer, n, u_before, 0.4, 0.2, PGS_TOL, 1000)
    # the second solve started from the face's percussions in one buffer and from none in the
    # other, so its own percussions differ in the last bits; which columns hold one does not
    expected = np.zeros((8, 3))
    for row in contacts[:n]:
        expected[int(row[C_VERTEX])] = row[C_P : C_P + 3]
    np.testing.assert_array_equal(contacts[:, C_WARM : C_WARM + 3], expected)
    assert not fresh[sorted(set(range(8)) - edge), C_WARM : C_WARM + 3].any()
    assert np.abs(expected[sorted(edge)]).sum() > 0.0
