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
from tumble.rockfall.step.detection import find_contacts, tangent_frame
from tumble.rockfall.terrain import Terrain

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
