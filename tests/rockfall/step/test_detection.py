"""Contact detection (tumble.rockfall.step.detection) against hand-computed geometry: the tangent
frame of L14 eq. 8, the closed vertex contacts of boxes on flat and tilted ground, their gaps
(the vertical gap of L14 section 3.3), normals and force directions (eq. 25-27), and the two
searches (:func:`find_contacts`, :func:`find_contacts_below`) agreeing row for row.

Conventions: quaternions are (w, x, y, z), body (K) to inertial (I); ``R_y(theta)`` has the
quaternion ``(cos theta/2, 0, sin theta/2, 0)`` and maps ``(x, 0, z)`` to
``(x cos + z sin, 0, -x sin + z cos)``.
"""

import itertools
import math

import numpy as np
import pytest

from tumble.rockfall.step.contact import C_GAP, C_VERTEX, C_W, NCOL
from tumble.rockfall.step.detection import find_contacts, find_contacts_below, tangent_frame
from tumble.rockfall.step.surface import plane_envelope
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import q_to_matrix, quat_exp, quat_to_matrix

GAP_TOL = 1e-8
IDENTITY = (1.0, 0.0, 0.0, 0.0)


def flat_ground():
    """Heights (zero everywhere) and grid ``(x0, y0, dx, dy)`` of a 10 m x 10 m flat DEM."""
    return np.zeros((11, 11)), (0.0, 0.0, 1.0, 1.0)


def box_vertices(a, b, c):
    """Corners ``(sx a, sy b, sz c)``; vertex ``4 ix + 2 iy + iz`` has sign index (ix, iy, iz),
    index 0 for the sign -1 and 1 for +1."""
    return np.array(
        [(sx * a, sy * b, sz * c) for sx, sy, sz in itertools.product((-1.0, 1.0), repeat=3)]
    )


# --- tangent frame (L14 eq. 8) ------------------------------------------------------------------


NORMALS = [
    (0.0, 0.0, 1.0),
    (0.5, 0.0, math.sqrt(0.75)),
    (0.0, -0.6, 0.8),
    (0.48, 0.6, 0.64),
    (0.9, 0.3, math.sqrt(0.1)),  # |n|^2 = 0.81 + 0.09 + 0.1
]


@pytest.mark.parametrize("normal", NORMALS)
def test_tangent_frame_is_orthonormal_and_right_handed(normal):
    """(n, t1, t2) is an orthonormal right-handed frame: ``|t1| = |t2| = 1``, ``n.t1 = n.t2 =
    t1.t2 = 0`` and ``t1 x t2 = n`` (equivalently ``n x t1 = t2``), to 1e-15."""
    n = np.array(normal) / np.linalg.norm(normal)
    t1, t2 = (np.array(t) for t in tangent_frame(tuple(n)))
    frame = np.array([n, t1, t2])
    np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(np.cross(t1, t2), n, atol=1e-15)
    assert np.linalg.det(frame) == pytest.approx(1.0, abs=1e-15)


def test_tangent_frame_random_normals_are_right_handed():
    """The same invariants for 200 random upward unit normals (any slope)."""
    rng = np.random.default_rng(20140241)
    normals = rng.normal(size=(200, 3))
    normals[:, 2] = np.abs(normals[:, 2])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    for n in normals:
        t1, t2 = (np.array(t) for t in tangent_frame(tuple(n)))
        frame = np.array([n, t1, t2])
        np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-14)
        np.testing.assert_allclose(np.cross(t1, t2), n, atol=1e-14)


@pytest.mark.parametrize(
    ("normal", "t1_expected"),
    [
        # n = e_z: e_x and e_y tie (|e.n| = 0), the first is taken; e_z x e_x = e_y
        ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
        # plane descending along +x at 30 deg, n = (sin 30, 0, cos 30): e = e_y,
        # n x e_y = (-n_z, 0, n_x) = (-cos 30, 0, sin 30), the uphill direction
        ((0.5, 0.0, math.sqrt(0.75)), (-math.sqrt(0.75), 0.0, 0.5)),
        # n = (0, -0.6, 0.8): e = e_x, n x e_x = (0, n_z, -n_y) = (0, 0.8, 0.6)
        ((0.0, -0.6, 0.8), (0.0, 0.8, 0.6)),
    ],
)
def test_tangent_frame_follows_its_documented_convention(normal, t1_expected):
    """The axis e minimising |e . n| (first one on a tie) gives ``t1 = n x e / |n x e|`` and
    ``t2 = n x t1`` (L14 eq. 8 up to the sign of both tangents); hand values to 1e-15."""
    t1, t2 = tangent_frame(normal)
    np.testing.assert_allclose(t1, t1_expected, atol=1e-15)
    np.testing.assert_allclose(t2, np.cross(normal, t1_expected), atol=1e-15)


# --- contact detection (L14 section 3.3) ---------------------------------------------------------


def test_unit_cube_resting_flat_has_its_four_bottom_vertices_in_contact():
    """A unit cube (vertices at +-1/2) with its centre 1/2 above flat ground, unrotated: exactly
    the 4 vertices with z = -1/2 (indices 0, 2, 4, 6) are closed, each with gap 1/2 - 1/2 = 0
    exactly, normal e_z, and the lever-arm part of W_N equal to ``r_SP x e_z = (y, -x, 0)``."""
    heights, grid = flat_ground()
    vertices = box_vertices(0.5, 0.5, 0.5)
    contacts = np.zeros((8, NCOL))
    n, inside = find_contacts(heights, grid, vertices, (4.3, 5.6, 0.5), IDENTITY, GAP_TOL, contacts)
    assert inside
    assert n == 4
    assert sorted(contacts[:n, C_VERTEX].astype(int)) == [0, 2, 4, 6]
    for row in contacts[:n]:
        assert row[C_GAP] == 0.0
        np.testing.assert_array_equal(row[C_W : C_W + 3], [0.0, 0.0, 1.0])
        x, y, _ = vertices[int(row[C_VERTEX])]
        np.testing.assert_allclose(row[C_W + 3 : C_W + 6], [y, -x, 0.0], atol=1e-15)


def test_gap_tolerance_opens_and_closes_the_flat_contacts():
    """The contact is closed for ``g_N <= gap_tol``: the cube lifted by gap_tol / 2 keeps its 4
    contacts (gap gap_tol / 2), lifted by 2 gap_tol it has none."""
    heights, grid = flat_ground()
    vertices = box_vertices(0.5, 0.5, 0.5)
    contacts = np.zeros((8, NCOL))
    n, _ = find_contacts(
        heights, grid, vertices, (5.0, 5.0, 0.5 + 0.5 * GAP_TOL), IDENTITY, GAP_TOL, contacts
    )
    assert n == 4
    np.testing.assert_allclose(contacts[:4, C_GAP], 0.5 * GAP_TOL, rtol=1e-6)
    n, _ = find_contacts(
        heights, grid, vertices, (5.0, 5.0, 0.5 + 2.0 * GAP_TOL), IDENTITY, GAP_TOL, contacts
    )
    assert n == 0


def test_vertex_outside_the_dem_is_reported():
    """A cube whose corners reach x < 0 (centre at x = 0.3, half-width 0.5) is not inside."""
    heights, grid = flat_ground()
    contacts = np.zeros((8, NCOL))
    _, inside = find_contacts(
        heights, grid, box_vertices(0.5, 0.5, 0.5), (0.3, 5.0, 0.5), IDENTITY, GAP_TOL, contacts
    )
    assert not inside


def test_tilted_box_on_30_degree_plane_gap_of_lowest_vertices():
    """Box with half-extents (a, b, c) = (0.5, 0.3, 0.2) on the plane z = (40 - x) tan 30 deg.

    The plane-aligned orientation is R_y(30 deg) (body x downhill, body z along the normal
    n = (sin 30, 0, cos 30)); the box is turned a further psi = 20 deg about y, i.e. p =
    R_y(50 deg). In the slope frame the corner (sx a, sy b, sz c) has the normal coordinate
    ``-sx a sin psi + sz c cos psi``; the lowest are sx = +1, sz = -1 (vertices 4 and 6, both
    signs of y), at ``-(a sin psi + c cos psi) = -0.358949`` below the centre. With the centre at
    h = 0.35 along n above the plane point below it, they are ``d = h - a sin psi - c cos psi``
    = -0.008949 m from the plane along its normal. The gap of the model is the vertical one,
    ``g_N = z_P - z(x_P, y_P)`` (L14 section 3.3), which for a plane is ``d / n_z = d / cos 30``.
    The next vertices (sx = -1, sz = -1) are 0.333 m above the plane: open. Tolerance 1e-12 m.
    """
    slope = math.radians(30.0)
    psi = math.radians(20.0)
    a, b, c, h = 0.5, 0.3, 0.2, 0.35
    terrain = Terrain.plane(30.0, size=(40.0, 20.0), spacing=2.0)
    heights = np.ascontiguousarray(terrain.heights)
    grid = (terrain.x0, terrain.y0, terrain.dx, terrain.dy)
    normal = np.array([math.sin(slope), 0.0, math.cos(slope)])
    foot = np.array([20.0, 1.0, (40.0 - 20.0) * math.tan(slope)])
    centre = foot + h * normal
    angle = slope + psi
    p = (math.cos(0.5 * angle), 0.0, math.sin(0.5 * angle), 0.0)
    contacts = np.zeros((8, NCOL))
    n, inside = find_contacts(
        heights, grid, box_vertices(a, b, c), tuple(centre), p, GAP_TOL, contacts
    )
    d = h - a * math.sin(psi) - c * math.cos(psi)
    assert d == pytest.approx(-0.008949, abs=1e-6)
    assert inside
    assert n == 2
    assert sorted(contacts[:n, C_VERTEX].astype(int)) == [4, 6]
    for row in contacts[:n]:
        assert row[C_GAP] == pytest.approx(d / math.cos(slope), abs=1e-12)
        np.testing.assert_allclose(row[C_W : C_W + 3], normal, atol=1e-15)


# --- tilted planes and rough terrain -------------------------------------------------------------


def plane_grid(slope_x: float, slope_y: float):
    """The plane ``z = 5 + slope_x x + slope_y y`` sampled on a 2 m grid over [0, 40] x [0, 30]
    (the bilinear surface reproduces it), with its upward unit normal
    ``(-slope_x, -slope_y, 1) / sqrt(1 + slope_x^2 + slope_y^2)`` (L14 eq. 7)."""
    x = np.arange(0.0, 41.0, 2.0)
    y = np.arange(0.0, 31.0, 2.0)
    heights = 5.0 + slope_x * x[None, :] + slope_y * y[:, None]
    normal = np.array([-slope_x, -slope_y, 1.0]) / math.sqrt(1.0 + slope_x**2 + slope_y**2)
    return heights, (0.0, 0.0, 2.0, 2.0), normal


def turning(a, b) -> tuple[float, float, float, float]:
    """The quaternion of the shortest rotation that takes the unit vector a to the unit vector b."""
    axis = np.cross(a, b)
    angle = math.atan2(np.linalg.norm(axis), a @ b)
    axis = axis / np.linalg.norm(axis)
    s = math.sin(0.5 * angle)
    return (math.cos(0.5 * angle), s * axis[0], s * axis[1], s * axis[2])


PLANES = [(0.3, 0.0), (0.0, -0.45), (0.4, 0.25), (-0.8, 0.6)]


@pytest.mark.parametrize(("slope_x", "slope_y"), PLANES)
def test_cube_lying_on_a_tilted_plane_touches_with_its_four_bottom_corners(slope_x, slope_y):
    """A unit cube turned so that its body z axis is the plane's normal, its centre 1/2 above
    the plane along the normal: the 4 corners with body z = -1/2 (vertices 0, 2, 4, 6) are
    closed with gaps zero (to 1e-12 m), each with the normal of the plane as its normal
    direction (1e-15); the 4 top corners, 1 m above the plane, are open."""
    heights, grid, normal = plane_grid(slope_x, slope_y)
    foot = np.array([20.0, 15.0, 5.0 + 20.0 * slope_x + 15.0 * slope_y])
    p = turning(np.array([0.0, 0.0, 1.0]), normal)
    contacts = np.zeros((8, NCOL))
    n, inside = find_contacts(
        heights, grid, box_vertices(0.5, 0.5, 0.5), tuple(foot + 0.5 * normal), p, 1e-9, contacts
    )
    assert inside and n == 4
    assert sorted(contacts[:n, C_VERTEX].astype(int)) == [0, 2, 4, 6]
    np.testing.assert_allclose(contacts[:n, C_GAP], 0.0, rtol=0, atol=1e-12)
    for row in contacts[:n]:
        np.testing.assert_allclose(row[C_W : C_W + 3], normal, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("slope_x", "slope_y"), PLANES)
@pytest.mark.parametrize("depth", [0.0, 0.004, 0.3])
def test_the_gap_of_a_vertex_at_a_known_depth_below_a_tilted_plane(slope_x, slope_y, depth):
    """A one-vertex rock (the vertex at ``K_r = (0.2, -0.1, -0.6)``, turned by p) placed so that
    the vertex lies ``depth`` below the plane point Q, once along the plane's normal and once
    vertically. The gap of the model is vertical (L14 section 3.3), ``g_N = z_P - z(x_P, y_P)``:
    along the normal it is ``-depth / cos(angle) = -depth / n_z`` (angle the plane's inclination),
    vertically ``-depth``; to 1e-12 m. The force directions are those of L14 eq. 25-27: the
    normal n and, in the body frame, ``K_r x (A_KI n)``."""
    heights, grid, normal = plane_grid(slope_x, slope_y)
    q = np.array([17.0, 12.0, 5.0 + 17.0 * slope_x + 12.0 * slope_y])
    vertex = np.array([0.2, -0.1, -0.6])
    p = quat_exp(np.array([0.3, -0.5, 0.2]))
    a_ik = quat_to_matrix(p)
    contacts = np.zeros((1, NCOL))
    for point, gap in ((q - depth * normal, -depth / normal[2]), (q - [0, 0, depth], -depth)):
        centre = point - a_ik @ vertex
        n, inside = find_contacts(
            heights, grid, vertex[None, :], tuple(centre), tuple(p), GAP_TOL, contacts
        )
        assert inside and n == 1
        assert contacts[0, C_GAP] == pytest.approx(gap, abs=1e-12)
        np.testing.assert_allclose(contacts[0, C_W : C_W + 3], normal, rtol=0, atol=1e-15)
        lever = np.cross(vertex, a_ik.T @ normal)
        np.testing.assert_allclose(contacts[0, C_W + 3 : C_W + 6], lever, rtol=0, atol=1e-14)
    # the same vertex 1 mm above the plane (along the vertical) is open
    centre = q + [0.0, 0.0, 1e-3] - a_ik @ vertex
    n, _ = find_contacts(heights, grid, vertex[None, :], tuple(centre), tuple(p), GAP_TOL, contacts)
    assert n == 0


def rough_terrain(seed: int = 7) -> Terrain:
    """A 35 degree slope along +x with random bumps (standard deviation 0.2 m) on a 1 m grid."""
    rng = np.random.default_rng(seed)
    x = np.arange(60.0)
    heights = -0.7 * x[None, :] + rng.normal(0.0, 0.2, (30, 60))
    return Terrain.from_array(heights, 0.0, -15.0, 1.0)


def random_poses(terrain, vertices, n, seed):
    """n random orientations and positions whose lowest vertex lies within +-0.3 m of the
    terrain below the centre (so that some vertices are closed and some open)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p = quat_exp(rng.normal(size=3))
        x, y = rng.uniform(10.0, 50.0), rng.uniform(-10.0, 10.0)
        low = (quat_to_matrix(p) @ vertices.T)[2].min()
        z = float(terrain.height(x, y)) - low + rng.uniform(-0.3, 0.3)
        yield np.array([x, y, z]), p


def test_contact_rows_on_rough_terrain_are_the_surface_below_each_vertex():
    """For 200 random poses of a 1 x 0.8 x 0.6 m box over a rough slope, the closed contacts are
    exactly the vertices with ``z_P - z(x_P, y_P) <= gap_tol`` (z of the bilinear surface,
    :meth:`Terrain.height`), in vertex order; each row has that gap (1e-12 m), the surface
    normal :meth:`Terrain.normal` below the vertex as n, an orthonormal right-handed frame
    (n, t1, t2) (1e-14), and the lever arms ``K_r x (A_KI d)`` of eq. 27 (1e-14)."""
    terrain = rough_terrain()
    heights = np.ascontiguousarray(terrain.heights)
    grid = (terrain.x0, terrain.y0, terrain.dx, terrain.dy)
    vertices = box_vertices(0.5, 0.4, 0.3)
    contacts = np.zeros((8, NCOL))
    closed_total = 0
    for r, p in random_poses(terrain, vertices, 200, seed=3):
        a_ik = quat_to_matrix(p)
        world = r + vertices @ a_ik.T
        gaps = world[:, 2] - terrain.height(world[:, 0], world[:, 1])
        n, inside = find_contacts(heights, grid, vertices, tuple(r), tuple(p), GAP_TOL, contacts)
        assert inside
        closed = np.flatnonzero(gaps <= GAP_TOL)
        assert contacts[:n, C_VERTEX].astype(int).tolist() == closed.tolist()
        closed_total += n
        for row, k in zip(contacts[:n], closed, strict=True):
            assert row[C_GAP] == pytest.approx(gaps[k], abs=1e-12)
            frame = np.array([row[C_W + 6 * j : C_W + 6 * j + 3] for j in range(3)])
            np.testing.assert_allclose(frame[0], terrain.normal(*world[k, :2]), atol=1e-14)
            np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-14)
            np.testing.assert_allclose(np.cross(frame[1], frame[2]), frame[0], atol=1e-14)
            for j in range(3):
                lever = np.cross(vertices[k], a_ik.T @ frame[j])
                arm = row[C_W + 6 * j + 3 : C_W + 6 * j + 6]
                np.testing.assert_allclose(arm, lever, rtol=0, atol=1e-14)
    assert 100 < closed_total < 200 * 8


def test_find_contacts_below_gives_the_rows_of_find_contacts():
    """Over a plane above the terrain (:func:`plane_envelope` over the square of half-width radius
    + 1 m around the centre, as :func:`rock_step` takes it), :func:`find_contacts_below` skips
    the vertices above the plane and evaluates the others: for 200 random poses over a rough
    slope it returns the same count and the same rows (vertex, gap, force directions), bit for
    bit, as the search of every vertex."""
    terrain = rough_terrain(seed=11)
    heights = np.ascontiguousarray(terrain.heights)
    x0, y0, dx, dy = terrain.x0, terrain.y0, terrain.dx, terrain.dy
    grid = np.array([x0, y0, dx, dy])
    vertices = box_vertices(0.5, 0.4, 0.3)
    half = float(np.linalg.norm(vertices, axis=1).max()) + 1.0
    everything = np.zeros((8, NCOL))
    below = np.zeros((8, NCOL))
    columns = slice(C_VERTEX, C_W + 18)
    closed_total = 0
    for r, p in random_poses(terrain, vertices, 200, seed=5):
        level, _, g_x, g_y, ok = plane_envelope(heights, x0, y0, dx, dy, r[0], r[1], half)
        assert ok
        a_ik = q_to_matrix(tuple(p))
        m = [a_ik[2][j] - g_x * a_ik[0][j] - g_y * a_ik[1][j] for j in range(3)]
        plane = (m[0], m[1], m[2], r[2] - level)
        n, _ = find_contacts(heights, grid, vertices, tuple(r), tuple(p), GAP_TOL, everything)
        n_below = find_contacts_below(
            heights, grid, vertices, tuple(r), a_ik, plane, GAP_TOL, below
        )
        assert n_below == n
        np.testing.assert_array_equal(below[:n, columns], everything[:n, columns])
        closed_total += n
    assert closed_total > 100
