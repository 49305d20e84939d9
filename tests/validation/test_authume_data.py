"""Authume field data: mesh files, the rasterised DEM and its zones, blocks, releases, profiles."""

import math
from pathlib import Path

import numpy as np
import pytest
import trimesh

from tumble.bodies.polyhedron import ConvexPolyhedron
from tumble.io import read_mesh, read_points
from tumble.io.mesh import boundary_edges, cap_holes, is_closed, mesh_volume
from tumble.rockfall.terrain import Terrain
from tumble.rotation.quaternion import quat_rotate, quat_to_matrix
from tumble.validation import authume as A

SPACING = 0.5


@pytest.fixture(scope="module")
def raster():
    return A.authume_raster(spacing=SPACING)


@pytest.fixture(scope="module")
def terrain():
    return A.authume_terrain(spacing=SPACING)


@pytest.fixture(scope="module")
def triangles():
    return A.terrain_triangles()


# --- the data directory -----------------------------------------------------------------------


def _data_set(folder):
    """An otherwise empty folder that passes the data-set check."""
    (folder / "Geometries" / "STL").mkdir(parents=True)
    return folder


def test_data_directory_lookup_order(tmp_path, monkeypatch):
    """``data_dir``, else ``$TUMBLE_AUTHUME_DATA`` (the folder or its parent), else the copy in
    the package, which holds the whole data set with its README."""
    monkeypatch.delenv(A.DATA_ENV, raising=False)
    packaged = A.data_directory()
    assert packaged == A.PACKAGE_DATA
    assert packaged.parent == Path(A.__file__).resolve().parent  # inside the package
    for name in ("README.md", "Drop_conditions/orientations.txt", "EXP_endpoints/Endpoints_P2.txt"):
        assert (packaged / name).is_file(), name
    assert len(list((packaged / "Geometries" / "STL").glob("*.stl"))) == 7

    given, from_env = _data_set(tmp_path / "given"), _data_set(tmp_path / "env" / "authume")
    monkeypatch.setenv(A.DATA_ENV, str(from_env))
    assert A.data_directory() == from_env
    assert A.data_directory(given) == given
    monkeypatch.setenv(A.DATA_ENV, str(from_env.parent))  # a folder holding authume/
    assert A.data_directory() == from_env
    monkeypatch.setenv(A.DATA_ENV, str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match=A.DATA_ENV):
        A.data_directory()
    monkeypatch.setenv(A.DATA_ENV, "")  # empty: unset
    assert A.data_directory() == packaged


# --- mesh files -------------------------------------------------------------------------------

TETRA_V = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
TETRA_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])  # outward winding


def ascii_stl(vertices, faces, extra=""):
    lines = ["solid tetra"]
    for f in faces:
        lines += ["facet normal 0 0 0", "outer loop"]
        lines += [f"vertex {v[0]:.17g} {v[1]:.17g} {v[2]:.17g}" for v in vertices[f]]
        lines += ["endloop", "endfacet"]
    return "\n".join([*lines, extra + "endsolid tetra", ""])


@pytest.mark.parametrize("suffix", [".stl", ".ply", ".obj", "-binary.stl"])
def test_read_mesh_formats_give_the_closed_tetrahedron(tmp_path, suffix):
    path = tmp_path / f"tetra{suffix}"
    if suffix == ".stl":
        path.write_text(ascii_stl(TETRA_V, TETRA_F))
    else:
        trimesh.Trimesh(TETRA_V, TETRA_F, process=False).export(path)
    vertices, faces = read_mesh(path)
    assert vertices.shape == (4, 3) and faces.shape == (4, 3)
    assert vertices.dtype == np.float64 and faces.dtype == np.int64
    assert is_closed(faces) and boundary_edges(faces).size == 0
    assert mesh_volume(vertices, faces) == pytest.approx(1.0 / 6.0, rel=1e-12)


def test_read_mesh_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_mesh(tmp_path / "missing.stl")
    (tmp_path / "tetra.step").write_text("x")
    with pytest.raises(ValueError, match="unsupported suffix"):
        read_mesh(tmp_path / "tetra.step")
    (tmp_path / "empty.stl").write_text("solid empty\nendsolid empty\n")
    with pytest.raises(ValueError, match="no triangles"):
        read_mesh(tmp_path / "empty.stl")
    bad = TETRA_V.copy()
    bad[3, 2] = np.nan
    (tmp_path / "nan.stl").write_text(ascii_stl(bad, TETRA_F))
    with pytest.raises(ValueError, match="non-finite"):
        read_mesh(tmp_path / "nan.stl")


def test_read_points(tmp_path):
    path = tmp_path / "cloud.xyz"
    path.write_text("x y z\n1 2 3 # a comment\n\n4,5,6,0.5\n")
    np.testing.assert_array_equal(read_points(path), [[1, 2, 3], [4, 5, 6]])
    path.write_text("1 2 3\n4 5\n")
    with pytest.raises(ValueError, match="line 2"):
        read_points(path)
    path.write_text("1 2 3\n4 five 6\n")
    with pytest.raises(ValueError, match="line 2"):
        read_points(path)
    path.write_text("1 2 nan\n")
    with pytest.raises(ValueError, match="non-finite"):
        read_points(path)
    (tmp_path / "cloud.stl").write_text("1 2 3\n")
    with pytest.raises(ValueError, match="unsupported suffix"):
        read_points(tmp_path / "cloud.stl")


def test_cap_holes_restores_the_volume():
    open_faces = TETRA_F[1:]
    assert not is_closed(open_faces) and len(boundary_edges(open_faces)) == 3
    faces, holes = cap_holes(open_faces)
    assert holes == 1 and is_closed(faces)
    assert mesh_volume(TETRA_V, faces) == pytest.approx(1.0 / 6.0, rel=1e-12)


# --- terrain ----------------------------------------------------------------------------------


def tin_height(tri, p):
    """Heights of the planes of triangles (k, 3, 3) at points (k, 2)."""
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return (
        tri[:, 0, 2]
        - (normal[:, 0] * (p[:, 0] - tri[:, 0, 0]) + normal[:, 1] * (p[:, 1] - tri[:, 0, 1]))
        / normal[:, 2]
    )


def gradient(tri):
    """|grad z| of the planes of triangles (k, 3, 3) (inf for vertical ones)."""
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    with np.errstate(divide="ignore"):
        return np.hypot(normal[:, 0], normal[:, 1]) / np.abs(normal[:, 2])


def test_raster_size_time_and_no_holes(raster, terrain):
    assert raster.seconds < 10.0
    assert terrain.shape == raster.shape
    assert np.isfinite(terrain.heights).all()
    assert set(np.unique(raster.zone)) == {0, 1, 2, 3}
    # filled nodes are exactly the uncovered ones, all outside the survey (no enclosed gaps)
    np.testing.assert_array_equal(raster.filled, raster.coverage == 0)
    assert raster.n_filled_inside == 0
    assert raster.n_filled_outside == int((raster.coverage == 0).sum())
    np.testing.assert_array_equal(raster.zone == A.ZONE_OUTSIDE, raster.filled)
    assert sum(raster.zone_fractions().values()) == pytest.approx(1.0)


def test_dem_reproduces_the_red_and_blue_surfaces(terrain, raster, triangles):
    """Bilinear DEM vs the TIN at the vertices and random points of the Red and Blue triangles.

    The four nodes of the cell around p carry the exact TIN heights and lie within sqrt(2) h of
    p, so |DEM(p) - TIN(p)| <= sqrt(2) h G, G the steepest triangle near p (those whose
    bounding box meets the square of half-side sqrt(2) h around p). Points whose cell has a
    filled node are skipped (no TIN there).
    """
    tri, zone = triangles
    rng = np.random.default_rng(7)
    soft = np.flatnonzero(zone != A.ZONE_IDS["gray"])
    picked = rng.choice(soft, 400, replace=False)
    weights = rng.dirichlet(np.ones(3), size=picked.size)
    points = np.concatenate(
        [
            tri[picked, rng.integers(0, 3, picked.size)],
            np.einsum("kc,kcd->kd", weights, tri[picked]),
        ]
    )
    i = np.floor((points[:, 0] - terrain.x0) / SPACING).astype(int)
    j = np.floor((points[:, 1] - terrain.y0) / SPACING).astype(int)
    ny, nx = terrain.shape
    ok = (i >= 0) & (j >= 0) & (i < nx - 1) & (j < ny - 1)
    i, j, points = i[ok], j[ok], points[ok]
    cell_filled = (
        raster.filled[j, i] | raster.filled[j + 1, i] | raster.filled[j, i + 1]
    ) | raster.filled[j + 1, i + 1]
    points = points[~cell_filled]
    assert len(points) > 600

    reach = math.sqrt(2.0) * SPACING
    lo, hi = tri[:, :, :2].min(axis=1), tri[:, :, :2].max(axis=1)
    near = (lo[None] <= points[:, None, :2] + reach).all(-1) & (
        hi[None] >= points[:, None, :2] - reach
    ).all(-1)
    steepest = np.where(near, gradient(tri)[None], 0.0).max(axis=1)
    error = terrain.height(points[:, 0], points[:, 1]) - points[:, 2]
    tolerance = reach * steepest + 1e-9
    assert (np.abs(error) <= tolerance).all(), np.abs(error / tolerance).max()
    # and the typical error is a small fraction of the bound
    assert np.median(np.abs(error)) < 0.25 * np.median(tolerance)


def test_dem_nodes_are_the_upper_envelope_of_the_mesh(terrain, raster, triangles):
    """Brute force at every node under two or more triangles (walls, folds) and random nodes:
    the DEM node is the highest triangle over it, and its zone is that triangle's zone."""
    tri, zone = triangles
    rng = np.random.default_rng(3)
    multi = np.argwhere(raster.coverage > 1)
    single = np.argwhere(raster.coverage == 1)
    nodes = np.concatenate([multi, single[rng.choice(len(single), 300, replace=False)]])
    assert len(multi) > 50
    px = terrain.x0 + nodes[:, 1] * SPACING
    py = terrain.y0 + nodes[:, 0] * SPACING
    a, b, c = tri[:, 0, :2], tri[:, 1, :2], tri[:, 2, :2]

    def side(u, v, x, y):  # twice the signed area of (u, v, point), per (node, triangle)
        return (v[:, 0] - u[:, 0]) * (y[:, None] - u[:, 1]) - (v[:, 1] - u[:, 1]) * (
            x[:, None] - u[:, 0]
        )

    s1, s2, s3 = side(a, b, px, py), side(b, c, px, py), side(c, a, px, py)
    area = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    tol = 1e-9 * np.abs(area)
    inside = ((s1 >= -tol) & (s2 >= -tol) & (s3 >= -tol)) | (
        (s1 <= tol) & (s2 <= tol) & (s3 <= tol)
    )
    inside &= np.abs(area) > 1e-10 * np.ptp(tri[:, :, :2], axis=1).max(1) ** 2
    heights = np.where(
        inside,
        np.stack(
            [
                tin_height(tri, np.broadcast_to([x, y], (len(tri), 2)))
                for x, y in zip(px, py, strict=True)
            ]
        ),
        -np.inf,
    )
    top = heights.max(axis=1)
    np.testing.assert_allclose(terrain.heights[nodes[:, 0], nodes[:, 1]], top, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(inside.sum(axis=1), raster.coverage[nodes[:, 0], nodes[:, 1]])
    # zone of the winning triangle where it is unique
    unique = (heights >= top[:, None] - 1e-9).sum(axis=1) == 1
    winner = zone[np.argmax(heights, axis=1)]
    np.testing.assert_array_equal(raster.zone[nodes[unique, 0], nodes[unique, 1]], winner[unique])
    # walls became steep ramps: some node pairs rise by more than 5 m over one cell
    assert np.abs(np.diff(terrain.heights, axis=1)).max() > 5.0


@pytest.mark.parametrize("colour", ["blue", "gray", "red"])
def test_zone_ids_inside_each_zone(terrain, raster, triangles, colour):
    """Points well inside a triangle of a zone whose nearest node is in the same triangle and
    under no other triangle have that zone (zone sampling takes the nearest node)."""
    tri, zone = triangles
    rng = np.random.default_rng(11)
    mine = tri[zone == A.ZONE_IDS[colour]]
    weights = 0.2 + 0.4 * rng.dirichlet(np.ones(3), size=(len(mine), 2))
    points = np.einsum("ksc,kcd->ksd", weights, mine).reshape(-1, 3)
    owner = np.repeat(np.arange(len(mine)), 2)
    on_grid = terrain.contains(points[:, 0], points[:, 1])
    points, owner = points[on_grid], owner[on_grid]
    i = np.rint((points[:, 0] - terrain.x0) / SPACING).astype(int)
    j = np.rint((points[:, 1] - terrain.y0) / SPACING).astype(int)
    node = np.stack([terrain.x0 + i * SPACING, terrain.y0 + j * SPACING], axis=1)
    t = mine[owner][:, :, :2]
    d = np.stack([t[:, (k + 1) % 3] - t[:, k] for k in range(3)], axis=1)
    r = node[:, None, :] - t
    cross = d[:, :, 0] * r[:, :, 1] - d[:, :, 1] * r[:, :, 0]
    same_triangle = (cross > 0).all(axis=1) | (cross < 0).all(axis=1)
    keep = same_triangle & (raster.coverage[j, i] == 1)
    assert keep.sum() > 100
    sampled = terrain.sample("zone", points[keep, 0], points[keep, 1])
    np.testing.assert_array_equal(sampled, A.ZONE_IDS[colour])


def test_drop_points_above_and_inside_the_dem(terrain):
    for profile in A.PROFILES:
        drop = A.drop_points(profile)
        assert drop.shape == (4, 3)
        assert terrain.contains(drop[:, 0], drop[:, 1]).all()
        assert (drop[:, 2] - terrain.height(drop[:, 0], drop[:, 1]) > 1.0).all()
        # the four corners of a horizontal square of about 4 m
        assert np.ptp(drop[:, 2]) == 0.0
        assert 3.5 < np.ptp(drop[:, 0]) < 4.5 and 3.5 < np.ptp(drop[:, 1]) < 4.5


def test_measured_endpoints_on_the_dem_with_a_constant_vertical_offset(terrain):
    """The stop points lie inside the DEM; their heights sit 2.5-2.9 m above it with a small
    spread, a vertical offset of the survey (README), so run-outs use x and y only."""
    counts = {"p1": 41, "p2": 48}
    for profile in A.PROFILES:
        measured = A.measured_endpoints(profile)
        x, y, z = measured.position.T
        assert len(x) == counts[profile]
        assert terrain.contains(x, y).all()
        offset = z - terrain.height(x, y)
        assert 2.0 < np.median(offset) < 3.5
        assert np.abs(offset - np.median(offset)).max() < 1.2
        assert offset.std() < 0.5
        assert (np.diff(measured.size, axis=1) <= 0).all() and (measured.mass > 0).all()


def test_orientations_unit_and_mapped_to_tumble_frame():
    data = A.orientations(frame="data")
    tumble = A.orientations()
    assert data.shape == tumble.shape == (64, 4)
    np.testing.assert_allclose(np.linalg.norm(data, axis=1), 1.0, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(tumble, axis=1), 1.0, atol=1e-15)
    np.testing.assert_allclose(
        quat_to_matrix(tumble), A.DATA_TO_TUMBLE @ quat_to_matrix(data), atol=1e-14
    )
    np.testing.assert_allclose(
        quat_to_matrix(A.Q_DATA_TO_TUMBLE[None])[0], A.DATA_TO_TUMBLE, atol=1e-15
    )
    assert np.linalg.det(A.DATA_TO_TUMBLE) == 1.0
    # 60 distinct rotations: orientations 1-4 recur as 64-61
    same = np.abs(data @ data.T) > 1 - 1e-9
    assert len(np.unique(same, axis=0)) == 60


# --- blocks -----------------------------------------------------------------------------------


def test_blocks_hulls_volumes_and_density():
    blocks = A.authume_blocks()
    assert tuple(blocks) == A.BLOCK_NAMES
    for name, block in blocks.items():
        assert block.hull_volume > 0 and block.mesh_volume > 0
        assert block.hull_volume >= block.mesh_volume
        assert 0.0 < block.non_convexity < 0.2
        assert block.hull.density == A.DENSITY
        assert (np.diff(block.size) <= 0).all()
        if block.closed:
            volume = trimesh.Trimesh(block.vertices, block.faces, process=False).volume
            assert block.mesh_volume == pytest.approx(volume, rel=1e-9)
        else:
            assert name == "SP1A" and block.holes_capped == 1
    # SP2A and SP2B: one shape at two volumes
    ratio = blocks["SP2B"].size / blocks["SP2A"].size
    np.testing.assert_allclose(ratio, ratio.mean(), rtol=0.02)
    # the SP3A block (P2, line 37) weighed 513 kg: limestone density from the mesh
    assert A.measured_endpoints("p2").mass[36] == pytest.approx(513.252)
    density = A.measured_endpoints("p2").mass[36] / blocks["SP3A"].mesh_volume
    assert 2500.0 < density < 2750.0


def test_block_rock_scaling_matches_a_direct_hull():
    block = A.authume_blocks()["SP2A"]
    rock = block.rock(700.0)
    scale = float(block.scale_for_mass(700.0))
    assert scale**3 * block.mesh_volume * A.DENSITY == pytest.approx(700.0, rel=1e-12)
    direct = ConvexPolyhedron.from_points(block.vertices * scale, mass=700.0)
    assert rock.mass == 700.0
    np.testing.assert_allclose(rock.inertia, direct.inertia, rtol=1e-9)
    assert rock.volume == pytest.approx(direct.volume, rel=1e-12)
    np.testing.assert_allclose(
        np.sort(np.linalg.norm(rock.vertices, axis=1)),
        np.sort(np.linalg.norm(direct.vertices, axis=1)),
        rtol=1e-9,
    )


# --- releases ---------------------------------------------------------------------------------


def test_releases_deterministic_and_cycling():
    first = A.authume_releases("p1", 300, seed=5)
    again = A.authume_releases("P1", 300, seed=5)
    longer = A.authume_releases("p1", 320, seed=5)
    other = A.authume_releases("p1", 300, seed=6)
    for name in ("position", "quaternion", "mass", "scale", "shape_id", "drop_id"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
        np.testing.assert_array_equal(getattr(first, name), getattr(longer, name)[:300])
    assert not np.array_equal(first.mass, other.mass)
    # the first 256 rocks release every (drop point, orientation) pair exactly once
    pairs = first.drop_id[:256] * 64 + first.orientation_id[:256]
    np.testing.assert_array_equal(np.sort(pairs), np.arange(256))
    assert (first.orientation_id[256:] == -1).all()
    np.testing.assert_allclose(np.linalg.norm(first.quaternion, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        first.mesh_quaternion[:256], A.orientations()[first.orientation_id[:256]], atol=1e-15
    )


def test_releases_place_and_orient_the_hull(terrain):
    releases = A.authume_releases("p2", 256, seed=0)
    drops = A.drop_points("p2")
    for k in (0, 77, 255):
        block = releases.blocks[releases.shape_names[releases.shape_id[k]]]
        rotation = quat_to_matrix(releases.quaternion[k][None])[0]
        expected = quat_to_matrix(releases.mesh_quaternion[k][None])[0] @ block.hull.rotation
        np.testing.assert_allclose(rotation, expected, atol=1e-12)
        centre = drops[releases.drop_id[k]] + quat_rotate(
            releases.mesh_quaternion[k][None], (releases.scale[k] * block.hull.centroid)[None]
        )
        np.testing.assert_allclose(releases.position[k], centre[0], atol=1e-12)
        assert releases.rock(k).mass == releases.mass[k]
    # every hull vertex starts above the ground
    for k in range(0, 256, 5):
        rock = releases.rock(k)
        q = np.broadcast_to(releases.quaternion[k], (rock.n_vertices, 4))
        vertices = releases.position[k] + quat_rotate(q, rock.vertices)
        assert (vertices[:, 2] > terrain.height(vertices[:, 0], vertices[:, 1])).all()


@pytest.mark.parametrize("profile", A.PROFILES)
def test_release_masses_match_the_measured_distribution(profile):
    measured = np.sort(A.measured_endpoints(profile).mass)
    boot = A.authume_releases(profile, 1000, seed=2)
    assert abs(np.median(boot.mass) / np.median(measured) - 1.0) < 0.10
    assert np.isin(boot.mass, measured).all()
    # Kolmogorov distance to the measured distribution; P(D > 0.06) < 2 exp(-2 n 0.06^2) = 0.002
    cdf = np.searchsorted(measured, np.sort(boot.mass), side="right") / measured.size
    assert np.abs(cdf - np.arange(1, 1001) / 1000).max() < 0.06
    # log-normal: sample median near exp(mean log m) within 4 standard errors of a median
    normal = A.authume_releases(profile, 1000, seed=2, mass="lognormal")
    log_m = np.log(measured)
    error = 1.2533 * log_m.std(ddof=1) / math.sqrt(1000)
    assert abs(np.log(np.median(normal.mass)) - log_m.mean()) < 4 * error
    # the hulls carry the drawn masses at the scale of the mesh volume
    volumes = np.array([boot.blocks[boot.shape_names[s]].mesh_volume for s in boot.shape_id])
    np.testing.assert_allclose(volumes * boot.scale**3 * A.DENSITY, boot.mass, rtol=1e-12)


def test_release_arguments_are_checked():
    with pytest.raises(ValueError, match="profile"):
        A.authume_releases("p3", 4)
    with pytest.raises(ValueError, match="positive integer"):
        A.authume_releases("p1", 0)
    with pytest.raises(ValueError, match="mass"):
        A.authume_releases("p1", 4, mass="uniform")
    with pytest.raises(ValueError, match="shape"):
        A.authume_releases("p1", 4, shape="SP9")
    one = A.authume_releases("p1", 8, shape="SP3A")
    assert (np.array(one.shape_names)[one.shape_id] == "SP3A").all()


# --- profiles and scenarios -------------------------------------------------------------------


def test_profile_coordinates():
    for profile in A.PROFILES:
        geometry = A.profile_geometry(profile)
        assert np.linalg.norm(geometry.direction) == pytest.approx(1.0)
        assert geometry.direction @ geometry.lateral == pytest.approx(0.0, abs=1e-15)
        along = A.profile_coordinates(profile, A.drop_points(profile))
        assert abs(along[:, 0].mean()) < 1e-9 and abs(along[:, 1].mean()) < 1e-9
        assert np.abs(along[:, 0]).max() < 3.0  # half the diagonal of the 4 m square
        runout = A.profile_coordinates(profile, A.measured_endpoints(profile).position)
        assert abs(runout[:, 1].mean()) < 1e-9  # the direction aims at the mean stop point
        assert (runout[:, 0] > 0).all()
    with pytest.raises(ValueError, match="shape"):
        A.profile_coordinates("p1", np.zeros(4))


def test_scenarios():
    scenario = A.SCENARIOS["authume-p2"](n=8, seed=1)
    assert isinstance(scenario.terrain, Terrain) and "zone" in scenario.terrain.soil
    assert scenario.profile == "p2" and len(scenario.releases) == 8
    assert len(scenario.endpoints.mass) == 48
    with pytest.raises(ValueError, match="unknown Authume scenario"):
        A.authume_scenario("authume-p3")


def test_default_soil_takes_the_calibrated_rolling_resistance():
    """The default soil's rolling resistance is the Authume calibration's (held out from any
    other site), and the Authume zones start from the published set without it."""
    from tumble.rockfall.soil import PRESETS
    from tumble.validation.authume.soils import BASE_FRICTION, CALIBRATED

    assert PRESETS["medium"]["rolling_resistance"] == CALIBRATED.rolling_resistance
    assert {k: float(v) for k, v in PRESETS["lu2019"].items()} == BASE_FRICTION
    assert "rolling_resistance" not in BASE_FRICTION
