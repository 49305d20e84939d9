""":mod:`tumble.rockfall.release` against hand values: uniform rotations (moments of the Haar
measure), release places and heights, per-rock random streams and the direction of steepest
descent."""

import math

import numpy as np
import pytest

from tumble.rockfall.release import Release, downslope, rock_rng, uniform_quaternion
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import quat_to_matrix

N_DRAWS = 20_000
SLOPE = math.radians(30.0)


@pytest.fixture(scope="module")
def plane30():
    """z = (40 - x) tan 30 deg on x in [0, 40], y in [-10, 10]."""
    return Terrain.plane(30.0, size=(40.0, 20.0), spacing=2.0)


@pytest.fixture(scope="module")
def quaternions():
    rng = np.random.default_rng(19920124)
    return np.array([uniform_quaternion(rng) for _ in range(N_DRAWS)])


# --- uniform rotations -----------------------------------------------------------------------


def test_uniform_quaternions_are_unit_with_nonnegative_w(quaternions):
    np.testing.assert_allclose(np.linalg.norm(quaternions, axis=1), 1.0, atol=1e-15)
    assert np.all(quaternions[:, 0] >= 0.0)


def test_uniform_quaternion_second_moments(quaternions):
    """A uniform rotation is a unit quaternion uniform on S^3 (up to sign). By symmetry each
    component squared has mean 1/4 (the four sum to 1); q_i^2 ~ Beta(1/2, 3/2) with variance
    (1/2 * 3/2) / (2^2 * 3) = 1/16, so the mean of 20 000 draws has standard error
    0.25 / sqrt(20000) = 0.0018; tolerance 0.01 (5.6 sigma). Products q_i q_j (i != j) have
    mean 0 and standard deviation sqrt(E q_i^2 q_j^2) = sqrt(1/24) (E q_i^2 q_j^2 =
    (1 - 4 E q_i^4)/12 = (1 - 4/8)/12 with E q_i^4 = 1/8), standard error 0.0014; tol. 0.01."""
    np.testing.assert_allclose(np.mean(quaternions**2, axis=0), 0.25, atol=0.01)
    products = quaternions.T @ quaternions / N_DRAWS
    off_diagonal = products[~np.eye(4, dtype=bool)]
    np.testing.assert_allclose(off_diagonal, 0.0, atol=0.01)


def test_uniform_quaternion_mean_abs_w(quaternions):
    """On S^3 one component has the density (2/pi) sqrt(1 - x^2) on [-1, 1], so
    E|w| = (4/pi) int_0^1 x sqrt(1 - x^2) dx = (4/pi)(1/3) = 4/(3 pi) = 0.42441 (w >= 0 here,
    so |w| = w). Var|w| = 1/4 - (4/(3 pi))^2 = 0.0699, standard error 0.0019; tolerance 0.01."""
    assert np.mean(quaternions[:, 0]) == pytest.approx(4.0 / (3.0 * math.pi), abs=0.01)


def test_uniform_rotation_matrices_have_haar_moments(quaternions):
    """For the Haar measure E[R] = 0 (invariance: E[R] = Q E[R] for every rotation Q), and each
    column of R is uniform on S^2, so each entry is uniform on [-1, 1] (Archimedes): mean 0,
    E R_ij^2 = 1/3. Standard errors: sqrt(1/3 / 20000) = 0.0041 and sqrt(4/45 / 20000) = 0.0021;
    tolerances 0.02 and 0.011 (about 5 sigma). The angle theta of R has E cos theta =
    (E trace R - 1) / 2 = -1/2, equivalently E[2 w^2 - 1] = -1/2 (tolerance 0.02)."""
    matrices = quat_to_matrix(quaternions)
    np.testing.assert_allclose(matrices.mean(axis=0), 0.0, atol=0.02)
    np.testing.assert_allclose((matrices**2).mean(axis=0), 1.0 / 3.0, atol=0.011)
    trace = np.trace(matrices, axis1=1, axis2=2)
    assert np.mean((trace - 1.0) / 2.0) == pytest.approx(-0.5, abs=0.02)
    np.testing.assert_allclose(2.0 * quaternions[:, 0] ** 2 - 1.0, (trace - 1.0) / 2.0, atol=1e-12)


def test_uniform_rotation_angle_distribution(quaternions):
    """The angle theta in [0, pi] of a Haar rotation has the density (1 - cos theta)/pi, so
    P(theta <= pi/2) = (pi/2 - 1)/pi = 0.18169. With w = cos(theta/2) that is w >= cos(pi/4);
    binomial standard error sqrt(0.18169 * 0.81831 / 20000) = 0.0027; tolerance 0.014."""
    fraction = np.mean(quaternions[:, 0] >= math.cos(math.pi / 4.0))
    assert fraction == pytest.approx((math.pi / 2.0 - 1.0) / math.pi, abs=0.014)


# --- release places and heights --------------------------------------------------------------


def test_point_release_puts_the_centre_of_mass_height_above_the_terrain(plane30):
    """The rule of Release.draw: the centre of mass is ``height`` above the terrain at the
    release point (vertically, at the point itself). At (10, 2): z = (40 - 10) tan 30 =
    17.3205..., so the centre is at (10, 2, 17.3205 + 1.5) for every rock (1e-12). No speed:
    at rest; omega as given; random orientations differ between rocks."""
    release = Release(point=(10.0, 2.0), height=1.5, omega=(0.0, 1.0, 2.0))
    states = release.draw(plane30, n=5, seed=11)
    expected = [10.0, 2.0, 30.0 * math.tan(SLOPE) + 1.5]
    np.testing.assert_allclose(states.position, np.tile(expected, (5, 1)), atol=1e-12)
    np.testing.assert_array_equal(states.velocity, np.zeros((5, 3)))
    np.testing.assert_array_equal(states.omega, np.tile([0.0, 1.0, 2.0], (5, 1)))
    assert len({tuple(q) for q in states.orientation}) == 5


def test_point_release_with_speed_downslope(plane30):
    """speed_downslope = 2 m/s on the 30 deg plane descending along +x: v = 2 (cos 30, 0,
    -sin 30) = (1.7321, 0, -1); tolerance 1e-12."""
    states = Release(point=(10.0, 0.0), speed_downslope=2.0).draw(plane30, n=2, seed=1)
    expected = 2.0 * np.array([math.cos(SLOPE), 0.0, -math.sin(SLOPE)])
    np.testing.assert_allclose(states.velocity, np.tile(expected, (2, 1)), atol=1e-12)


def test_given_orientation_is_normalised_and_used_for_every_rock(plane30):
    """An orientation within 1e-3 of unit length is normalised: (2, 0, 0, 0.002)/|.|."""
    q = (1.0, 0.0, 0.0, 0.001)
    states = Release(point=(10.0, 0.0), orientation=q).draw(plane30, n=3, seed=1)
    expected = np.array(q) / math.hypot(1.0, 0.001)
    np.testing.assert_allclose(states.orientation, np.tile(expected, (3, 1)), atol=1e-15)


L_SHAPE = ((5.0, -3.0), (9.0, -3.0), (9.0, -1.0), (7.0, -1.0), (7.0, 3.0), (5.0, 3.0))


def in_l_shape(x, y):
    """The L of L_SHAPE is the union of [5, 9] x [-3, -1] (area 8) and [5, 7] x [-1, 3]
    (area 8)."""
    foot = (x >= 5.0) & (x <= 9.0) & (y >= -3.0) & (y <= -1.0)
    leg = (x >= 5.0) & (x <= 7.0) & (y >= -1.0) & (y <= 3.0)
    return foot | leg


def test_polygon_release_stays_inside_and_fills_a_non_convex_polygon(plane30):
    """400 rocks released over an L-shaped polygon (two rectangles of area 8 each): every
    place lies in the L (checked by the rectangles, not by the code's even-odd rule), the
    centre of mass is 1.5 m above z(x) = (40 - x) tan 30 (1e-12), and uniformity puts half of
    the rocks in each rectangle: fraction of the foot y < -1 is 0.5 +- 0.025 (binomial standard
    error), tolerance 0.1."""
    states = Release(polygon=L_SHAPE, height=1.5).draw(plane30, n=400, seed=5)
    x, y, z = states.position.T
    assert np.all(in_l_shape(x, y))
    np.testing.assert_allclose(z, (40.0 - x) * math.tan(SLOPE) + 1.5, atol=1e-12)
    assert np.mean(y < -1.0) == pytest.approx(0.5, abs=0.1)
    # the places are spread, not all at one point: both ends of the L are reached
    assert x.max() > 8.0 and y.max() > 2.0


def test_line_release_lies_on_the_segment(plane30):
    """A line release from (5, -4) to (15, 6): every place is (5, -4) + s (10, 10), s in [0, 1],
    i.e. y - x = -9 (1e-12)."""
    states = Release(line=((5.0, -4.0), (15.0, 6.0))).draw(plane30, n=50, seed=2)
    x, y, _ = states.position.T
    np.testing.assert_allclose(y - x, -9.0, atol=1e-12)
    assert np.all((x >= 5.0) & (x <= 15.0))


# --- per-rock random streams ------------------------------------------------------------------


@pytest.mark.parametrize(
    "place",
    [
        {"point": (10.0, 0.0)},
        {"line": ((5.0, -4.0), (15.0, 6.0))},
        {"polygon": L_SHAPE},
    ],
)
def test_rock_streams_do_not_depend_on_the_batch(plane30, place):
    """Rocks 0..9 drawn at once equal rocks 0..4 and 5..9 drawn separately (``first=5``) and
    rock 7 drawn alone, bit for bit."""
    release = Release(**place)
    whole = release.draw(plane30, n=10, seed=42)
    halves = [release.draw(plane30, n=5, seed=42, first=f) for f in (0, 5)]
    alone = release.draw(plane30, n=1, seed=42, first=7)
    for name in ("position", "orientation", "velocity", "omega"):
        joined = np.concatenate([getattr(h, name) for h in halves])
        np.testing.assert_array_equal(joined, getattr(whole, name))
        np.testing.assert_array_equal(getattr(alone, name)[0], getattr(whole, name)[7])


def test_rock_stream_is_the_spawned_child(plane30):
    """The documented stream of rock k is the k-th child of SeedSequence(seed).spawn(n): for a
    point release the orientation of rock k is the first uniform_quaternion of that child."""
    seed = 2024
    states = Release(point=(10.0, 0.0)).draw(plane30, n=6, seed=seed)
    children = np.random.SeedSequence(seed).spawn(6)
    for k, child in enumerate(children):
        q = uniform_quaternion(np.random.default_rng(child))
        np.testing.assert_array_equal(states.orientation[k], q)
        np.testing.assert_array_equal(
            uniform_quaternion(rock_rng(seed, k)), uniform_quaternion(np.random.default_rng(child))
        )


def test_different_seeds_give_different_rocks(plane30):
    release = Release(point=(10.0, 0.0))
    a = release.draw(plane30, n=3, seed=1).orientation
    b = release.draw(plane30, n=3, seed=2).orientation
    assert not np.any(np.all(a == b, axis=1))


# --- steepest descent -------------------------------------------------------------------------


def test_downslope_on_the_30_degree_plane(plane30):
    """z = (40 - x) tan 30: the steepest descent tangent to the plane is (cos 30, 0, -sin 30),
    everywhere (1e-15)."""
    d = downslope(plane30, np.array([3.0, 20.0, 37.0]), np.array([-5.0, 0.0, 9.0]))
    expected = np.array([math.cos(SLOPE), 0.0, -math.sin(SLOPE)])
    np.testing.assert_allclose(d, np.tile(expected, (3, 1)), atol=1e-15)


def test_downslope_on_an_oblique_plane():
    """z = a x + b y with a = 0.3, b = -0.4 (gradient g = (a, b), |g| = 0.5). The steepest
    descent in the tangent plane is -(g, |g|^2) normalised: (-0.3, 0.4, -0.25) / sqrt(0.3125)
    = (-0.53666, 0.71554, -0.44721); tolerance 1e-14. Its horizontal part is along -g and
    its slope is atan |g|: d_z = -sin(atan 0.5) = -0.44721."""
    x = np.arange(6.0)
    y = np.arange(5.0)
    heights = 0.3 * x[None, :] - 0.4 * y[:, None]
    terrain = Terrain.from_array(heights, dx=1.0)
    d = downslope(terrain, 2.5, 1.7)
    expected = np.array([-0.3, 0.4, -0.25]) / math.sqrt(0.3125)
    np.testing.assert_allclose(d, expected, atol=1e-14)
    assert d[2] == pytest.approx(-math.sin(math.atan(0.5)), abs=1e-14)


def test_downslope_on_flat_ground_is_zero():
    terrain = Terrain.from_array(np.full((3, 3), 5.0))
    np.testing.assert_array_equal(downslope(terrain, 1.0, 1.0), [0.0, 0.0, 0.0])


def test_footprint_of_a_point_a_line_and_a_polygon():
    """The point itself; points evenly along a line (their mean is its midpoint); a lattice
    inside a polygon (an L-shape of 300 m^2: the share of its 100 m^2 arm is 1/3 to within one
    lattice column, sqrt(300 / 1024) / 10 of it)."""
    points, weights = Release(point=(3.0, 4.0)).footprint()
    np.testing.assert_array_equal(points, [[3.0, 4.0]])
    np.testing.assert_array_equal(weights, [1.0])
    points, weights = Release(line=((0.0, 0.0), (10.0, 20.0))).footprint()
    np.testing.assert_allclose(points.mean(axis=0), [5.0, 10.0], rtol=0, atol=1e-12)
    assert weights.sum() == pytest.approx(1.0, abs=1e-12) and np.ptp(weights) == 0.0
    assert points[:, 0].min() > 0.0 and points[:, 0].max() < 10.0
    ell = ((0.0, 0.0), (20.0, 0.0), (20.0, 10.0), (10.0, 10.0), (10.0, 20.0), (0.0, 20.0))
    points, weights = Release(polygon=ell).footprint()
    arm = points[:, 1] > 10.0
    assert np.all(points[arm, 0] < 10.0)
    side = np.sqrt(300.0 / 1024)
    assert weights[arm].sum() == pytest.approx(1.0 / 3.0, abs=side / 10.0)


# --- clearance: releases on cliffs and steps ------------------------------------------------

FACE = math.radians(80.0)


def cliff(kind: str) -> Terrain:
    """An 80 degree face (``"face"``: z = (20 - x) tan 80 deg between x = 10 and 20, a plateau
    56.7 m up behind it, flat ground in front) or a 10 m vertical step one 0.5 m cell wide
    (``"step"``: 10 m for x <= 15, 0 from x = 15.5 on), 0.5 m cells."""
    x = np.arange(0.0, 40.5, 0.5)
    if kind == "face":
        z = np.clip((20.0 - x) * math.tan(FACE), 0.0, 10.0 * math.tan(FACE))
    else:
        z = np.where(x <= 15.0, 10.0, 0.0)
    return Terrain.from_array(np.broadcast_to(z, (41, x.size)), x0=0.0, y0=-10.0, dx=0.5)


def vertex_gaps(terrain, rock, states):
    """Gap of every hull vertex above the terrain below it, (n, m), computed independently of
    tumble.rockfall.clearance."""
    corners = states.position[:, None, :] + np.einsum(
        "nij,mj->nmi", quat_to_matrix(states.orientation), rock.vertices
    )
    return corners[..., 2] - terrain.height(corners[..., 0], corners[..., 1])


@pytest.mark.parametrize(("kind", "x"), [("face", 15.3), ("step", 15.2), ("step", 15.8)])
def test_cliff_releases_start_clear_of_the_rock_face(kind, x):
    """500 random orientations of a 2 t EOTA221 block released 1.5 m above a point of the face
    or next to the step: every rock starts with every hull vertex above the terrain; a lifted
    rock's hull clears it by exactly 1.5 m (its clearance is release.height: every vertex at
    least 1.5 m above, the lowest point of the hull, a vertex or a point of an edge over the
    step's edge, exactly), a rock not lifted has its centre 1.5 m above the terrain below it and
    its hull clear."""
    from tumble.rockfall import Rock
    from tumble.rockfall.clearance import Hulls, clearance

    terrain = cliff(kind)
    rock = Rock.eota221(mass=2000.0)
    release = Release(point=(x, 0.0), height=1.5)
    hulls = Hulls.of(rock)
    states = release.draw(terrain, 500, seed=11, hulls=hulls)
    gaps = vertex_gaps(terrain, rock, states)
    assert gaps.min() >= -1e-6
    lifted = states.lift > 0.0
    assert lifted.any()
    assert gaps[lifted].min() >= 1.5 - 1e-9
    ground = terrain.height(x, 0.0)
    np.testing.assert_allclose(states.position[~lifted, 2], ground + 1.5, rtol=0, atol=0)
    np.testing.assert_allclose(states.position[lifted, 2], ground + 1.5 + states.lift[lifted])
    rotation = quat_to_matrix(states.orientation)
    for k in np.flatnonzero(lifted)[:50]:
        gap, on = clearance(terrain, hulls, int(k), states.position[k], rotation[k])
        assert on and gap == pytest.approx(1.5, abs=1e-9)
    report = states.report()
    assert report["adjusted"] == int(lifted.sum()) and report["moved"] == 0
    assert report["lift_max_m"] == states.lift.max()
    assert report["lift_median_m"] == np.median(states.lift[lifted])


def test_plain_slope_releases_do_not_move(plane30):
    """On a 30 degree plane a rock 1.5 m up fits in every orientation: drawn with its hull it
    starts exactly where it starts without (same numbers to the last bit)."""
    from tumble.rockfall import Rock
    from tumble.rockfall.clearance import Hulls

    release = Release(polygon=((5.0, -5.0), (30.0, -5.0), (30.0, 5.0), (5.0, 5.0)))
    plain = release.draw(plane30, 300, seed=2)
    fitted = release.draw(plane30, 300, seed=2, hulls=Hulls.of(Rock.eota221(mass=780.0)))
    for name in ("position", "orientation", "velocity", "omega"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(plain, name))
    assert fitted.report() == {"adjusted": 0, "lift_max_m": 0.0, "lift_median_m": 0.0, "moved": 0}


def test_the_fit_of_a_rock_does_not_depend_on_the_batch():
    from tumble.rockfall import Rock
    from tumble.rockfall.clearance import Hulls

    terrain = cliff("face")
    rocks = [Rock.eota221(mass=2000.0), Rock.box(2.0, 1.0, 0.5)]
    hulls = Hulls.of(rocks, np.arange(60) % 2, 1.0 + 0.01 * np.arange(60))
    release = Release(line=((15.0, -5.0), (15.6, 5.0)), height=1.0)
    whole = release.draw(terrain, 60, seed=5, hulls=hulls)
    for k in (0, 17, 59):
        one = release.draw(terrain, 1, seed=5, first=k, hulls=hulls)
        np.testing.assert_array_equal(one.position[0], whole.position[k])
        assert one.lift[0] == whole.lift[k]
