"""Mass properties of convex polyhedra and the shape catalogue against closed forms."""

import itertools

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from tumble.bodies import (
    ConvexPolyhedron,
    crossed_rods,
    cuboid,
    cylinder,
    ellipsoid,
    eota111,
    eota221,
    polyhedron,
)
from tumble.rotation import quat_exp, quat_to_matrix


def box_points(a, b, c):
    return np.array(list(itertools.product((-0.5, 0.5), repeat=3))) * [a, b, c]


def sphere_mesh(n):
    """Unit-sphere points of an n-times subdivided octahedron (4 n^2 + 2 points).

    The set is symmetric under each reflection x -> -x, y -> -y, z -> -z, so its hull has its
    centroid at the origin and the coordinate axes as principal axes.
    """
    points = []
    for signs in itertools.product((1.0, -1.0), repeat=3):
        for i in range(n + 1):
            for j in range(n + 1 - i):
                points.append(np.multiply(signs, (i, j, n - i - j)))
    points = np.unique(np.array(points) / n, axis=0)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def inscribed_radius(points):
    """Distance from the origin to the nearest hull facet of points on the unit sphere."""
    return float(-ConvexHull(points).equations[:, 3].max())


def random_rotation(rng):
    return quat_to_matrix(quat_exp(rng.normal(size=3)))


# --- polyhedron against closed forms -------------------------------------------------------


def test_box_matches_closed_form_cuboid():
    a, b, c, density = 1.3, 0.7, 2.1, 2500.0
    shift = np.array([3.0, -1.0, 2.0])
    corners = box_points(a, b, c) + shift
    # points inside the box and on its faces are not hull vertices and change nothing
    extra = shift + np.array([[0.1, 0.0, 0.2], [0.5 * a, 0.0, 0.0], [0.0, 0.1, -0.5 * c]])
    hull = ConvexPolyhedron.from_points(np.vstack([corners, extra]), density=density)
    exact = cuboid(a, b, c, density=density)

    assert hull.n_vertices == 8
    assert hull.faces.shape == (12, 3)
    np.testing.assert_allclose(hull.volume, a * b * c, rtol=1e-14)
    np.testing.assert_allclose(hull.mass, density * a * b * c, rtol=1e-14)
    np.testing.assert_allclose(hull.centroid, shift, rtol=0, atol=1e-14)
    np.testing.assert_allclose(hull.inertia, np.sort(exact.inertia), rtol=1e-12)
    np.testing.assert_allclose(np.sort(np.abs(hull.vertices), axis=0)[-1], [c / 2, a / 2, b / 2])


def test_tetrahedron_matches_canonical_second_moment():
    # (0, e1, e2, e3): int x x^T dV = (1 + 1 1^T) / 120, volume 1/6, centroid (1/4, 1/4, 1/4)
    points = np.vstack([np.zeros(3), np.eye(3)])
    hull = ConvexPolyhedron.from_points(points)
    c = np.full(3, 0.25)
    second = (np.eye(3) + np.ones((3, 3))) / 120.0 - np.outer(c, c) / 6.0
    tensor = np.trace(second) * np.eye(3) - second
    np.testing.assert_allclose(hull.volume, 1.0 / 6.0, rtol=1e-15)
    np.testing.assert_allclose(hull.centroid, c, rtol=1e-15)
    np.testing.assert_allclose(hull.inertia_tensor, tensor, rtol=0, atol=1e-16)


def test_ellipsoid_mesh_within_derived_bounds_and_converges():
    # A polytope inscribed in the unit sphere contains the ball of radius r (its nearest facet),
    # so after scaling by (a, b, c): r E in P in E, hence r^3 <= V_P / V <= 1 and, for the
    # symmetric meshes used here (principal axes along x, y, z), r^5 <= I_P / I <= 1.
    a, b, c = 1.5, 1.0, 0.6
    exact = ellipsoid(a, b, c, density=1.0)
    errors = []
    sizes = (8, 16, 32)
    for n in sizes:
        unit = sphere_mesh(n)
        r = inscribed_radius(unit)
        hull = ConvexPolyhedron.from_points(unit * [a, b, c])
        volume_ratio = hull.volume / exact.volume
        moment_ratio = hull.inertia / np.sort(exact.inertia)
        assert r**3 <= volume_ratio <= 1.0
        assert np.all(r**5 <= moment_ratio) and np.all(moment_ratio <= 1.0)
        np.testing.assert_allclose(hull.centroid, 0.0, atol=1e-15)
        np.testing.assert_allclose(np.abs(hull.rotation), np.eye(3), atol=1e-12)
        errors.append(max(1.0 - volume_ratio, np.max(1.0 - moment_ratio)))
    assert len(unit) == 4 * 32**2 + 2  # 4098 points: errors 1.5e-3 (volume), 2.5e-3 (moments)
    slope = np.polyfit(np.log(sizes), np.log(errors), 1)[0]
    assert -2.2 < slope < -1.8  # second order in the mesh spacing 1/n


def test_prism_converges_to_cylinder():
    # the N-gon prism contains the cylinder of radius r cos(pi/N): r_i^2 and r_i^4 bounds
    radius, length = 0.4, 1.7
    exact = cylinder(radius, length, density=1.0)
    for sides in (64, 256):
        phi = 2 * np.pi * np.arange(sides) / sides
        ring = np.column_stack([radius * np.cos(phi), radius * np.sin(phi), np.zeros(sides)])
        points = np.vstack([ring + [0, 0, -length / 2], ring + [0, 0, length / 2]])
        hull = ConvexPolyhedron.from_points(points)
        k = np.cos(np.pi / sides) ** 2
        assert k <= hull.volume / exact.volume <= 1.0
        moment_ratio = hull.inertia / np.sort(exact.inertia)
        assert np.all(k * k <= moment_ratio) and np.all(moment_ratio <= 1.0)


# --- frame and invariance ----------------------------------------------------------------


@pytest.fixture
def cloud():
    rng = np.random.default_rng(20240611)
    return rng.normal(size=(60, 3)) * [0.5, 1.0, 2.0]


def test_moments_invariant_under_rotation_and_translation(cloud):
    rng = np.random.default_rng(7)
    base = ConvexPolyhedron.from_points(cloud, density=2700.0)
    for _ in range(5):
        q = random_rotation(rng)
        t = rng.uniform(-100.0, 100.0, size=3)
        moved = ConvexPolyhedron.from_points(cloud @ q.T + t, density=2700.0)
        np.testing.assert_allclose(moved.inertia, base.inertia, rtol=1e-10)
        np.testing.assert_allclose(moved.volume, base.volume, rtol=1e-10)
        np.testing.assert_allclose(moved.centroid, q @ base.centroid + t, rtol=0, atol=1e-10)
        scale = np.abs(base.inertia).max()
        np.testing.assert_allclose(
            moved.inertia_tensor, q @ base.inertia_tensor @ q.T, rtol=0, atol=1e-10 * scale
        )


def test_frame_reproduces_inertia_tensor(cloud):
    hull = ConvexPolyhedron.from_points(cloud, mass=5.0)
    R = hull.rotation
    scale = hull.inertia.max()
    assert np.all(np.diff(hull.inertia) > 0)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, rtol=1e-14)
    np.testing.assert_allclose(
        R @ np.diag(hull.inertia) @ R.T, hull.inertia_tensor, atol=1e-13 * scale
    )
    np.testing.assert_allclose(quat_to_matrix(hull.quaternion), R, atol=1e-14)
    np.testing.assert_allclose(hull.mass, 5.0, rtol=1e-15)

    # vertices in K map back onto cloud points, and K is principal at the centre of mass
    back = hull.to_input_frame(hull.vertices)
    nearest = np.min(np.linalg.norm(back[:, None, :] - cloud[None, :, :], axis=2), axis=1)
    assert nearest.max() < 1e-12
    again = ConvexPolyhedron.from_points(hull.vertices, mass=5.0)
    np.testing.assert_allclose(again.centroid, 0.0, atol=1e-13)
    np.testing.assert_allclose(again.inertia_tensor, np.diag(hull.inertia), atol=1e-12 * scale)

    # faces are counter-clockwise from outside and normals point away from the centre of mass
    a, b, c = (hull.vertices[hull.faces[:, k]] for k in range(3))
    area_normal = np.cross(b - a, c - a)
    np.testing.assert_allclose(np.linalg.norm(hull.normals, axis=1), 1.0, rtol=1e-14)
    assert np.all(np.einsum("ij,ij->i", area_normal, hull.normals) > 0.0)
    assert np.all(np.einsum("ij,ij->i", a, hull.normals) > 0.0)


# --- EOTA shapes ---------------------------------------------------------------------------


def test_eota111_volume_and_inertia_from_its_hull():
    L = 0.8
    body = eota111(size=L)
    assert body.vertices.shape == (24, 3)
    hull = ConvexPolyhedron.from_points(body.vertices, density=2740.0)
    np.testing.assert_allclose(hull.volume, 17.0 / 24.0 * L**3, rtol=1e-14)
    np.testing.assert_allclose(body.volume, 17.0 / 24.0 * L**3, rtol=1e-15)
    np.testing.assert_allclose(body.mass, 2740.0 * body.volume, rtol=1e-15)
    np.testing.assert_allclose(hull.inertia, body.inertia, rtol=1e-12)
    np.testing.assert_allclose(body.inertia, 21.0 / 170.0 * body.mass * L**2, rtol=1e-15)


def test_eota221_is_half_of_eota111_and_matches_its_hull():
    L = 1.2
    full, half = eota111(size=L), eota221(size=L)
    np.testing.assert_allclose(half.volume, 0.5 * full.volume, rtol=1e-15)
    hull = ConvexPolyhedron.from_points(half.vertices, mass=half.mass)
    np.testing.assert_allclose(hull.volume, 0.5 * full.volume, rtol=1e-14)
    np.testing.assert_allclose(hull.inertia, half.inertia, rtol=1e-12)
    np.testing.assert_allclose(np.ptp(half.vertices, axis=0), [L, L, L / 2], rtol=1e-15)


@pytest.mark.parametrize("make", [eota111, eota221])
def test_eota_mass_inversion_round_trips(make):
    for mass in (1.0, 780.0, 2.5e4):
        body = make(mass=mass, density=2650.0)
        np.testing.assert_allclose(body.mass, mass, rtol=1e-15)
        again = make(size=body.size[0], density=2650.0)
        np.testing.assert_allclose(again.mass, mass, rtol=1e-14)
        np.testing.assert_allclose(again.inertia, body.inertia, rtol=1e-14)


def test_chant_sura_eota221_780kg():
    # stated (derived, not measured): L = 0.93 m, principal inertia about 52.1, 52.1, 83.3 kg m^2
    body = eota221(mass=780.0)
    np.testing.assert_allclose(body.size, [0.93, 0.93, 0.465], rtol=2e-3)
    np.testing.assert_allclose(body.inertia, [52.1, 52.1, 83.3], rtol=2e-3)
    np.testing.assert_allclose(body.density, 2740.0, rtol=1e-14)


# --- crossed rods --------------------------------------------------------------------------


def test_perpendicular_rods_crossing_at_centres():
    l1, m1, l2, m2 = 1.2, 3.0, 0.8, 2.0
    body = crossed_rods(l1, m1, l2, m2)
    # rod 1 along x, rod 2 along y: I_x = m2 l2^2/12, I_y = m1 l1^2/12, I_z = their sum
    i_x, i_y = m2 * l2**2 / 12.0, m1 * l1**2 / 12.0
    np.testing.assert_allclose(body.inertia, np.sort([i_x, i_y, i_x + i_y]), rtol=1e-14)
    np.testing.assert_allclose(body.mass, m1 + m2, rtol=1e-15)
    np.testing.assert_allclose(body.vertices.mean(axis=0), 0.0, atol=1e-15)


def test_oblique_off_centre_rods_match_point_masses():
    l1, m1, l2, m2, angle, f1, f2 = 1.5, 4.0, 0.9, 1.0, 1.1, 0.3, 0.8
    body = crossed_rods(l1, m1, l2, m2, angle=angle, crossing1=f1, crossing2=f2)
    # N point masses at the cell midpoints of each rod: relative moment error at most 1/N^2
    n = 2000
    t = (np.arange(n) + 0.5) / n
    rods = []
    for l, u, f in ((l1, [1, 0, 0], f1), (l2, [np.cos(angle), np.sin(angle), 0], f2)):
        rods.append(np.outer((t - f) * l, u))
    points = np.vstack(rods)
    weights = np.concatenate([np.full(n, m1 / n), np.full(n, m2 / n)])
    d = points - weights @ points / weights.sum()
    second = (weights[:, None] * d).T @ d
    tensor = np.trace(second) * np.eye(3) - second
    np.testing.assert_allclose(body.inertia, np.linalg.eigvalsh(tensor), rtol=1e-6)
    np.testing.assert_allclose(body.inertia[2], body.inertia[0] + body.inertia[1], rtol=1e-14)
    assert not np.allclose(body.inertia[:2], [m2 * l2**2 / 12, m1 * l1**2 / 12], rtol=1e-2)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("points", "kwargs", "message"),
    [
        (np.zeros((5, 2)), {}, "shape \\(n, 3\\)"),
        (np.ones(12), {}, "shape \\(n, 3\\)"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, np.nan]], {}, "NaN"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], {}, "at least 4 points"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]], {}, "coplanar"),
        ([[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3]], {}, "coplanar"),
        (box_points(1, 1, 1), {"density": -1.0}, "density"),
        (box_points(1, 1, 1), {"density": 0.0}, "density"),
        (box_points(1, 1, 1), {"mass": np.nan}, "mass"),
        (box_points(1, 1, 1), {"density": 1.0, "mass": 1.0}, "either density or mass"),
    ],
)
def test_bad_point_clouds_are_refused(points, kwargs, message):
    with pytest.raises(ValueError, match=message):
        ConvexPolyhedron.from_points(points, **kwargs)


def test_bad_catalogue_input_is_refused():
    with pytest.raises(ValueError, match="b must be a positive"):
        cuboid(1.0, -2.0, 1.0)
    with pytest.raises(ValueError, match="either density or mass"):
        ellipsoid(1.0, 1.0, 1.0, mass=1.0, density=1.0)
    with pytest.raises(ValueError, match="angle"):
        crossed_rods(1.0, 1.0, 1.0, 1.0, angle=0.0)
    with pytest.raises(ValueError, match="crossing2"):
        crossed_rods(1.0, 1.0, 1.0, 1.0, crossing2=1.5)
    with pytest.raises(ValueError, match="not both"):
        eota221(size=1.0, mass=780.0)
    with pytest.raises(ValueError, match="size L"):
        eota111()
    with pytest.raises(ValueError, match="coplanar"):
        polyhedron([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
