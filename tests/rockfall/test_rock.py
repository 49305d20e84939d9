"""Rocks (tumble.rockfall.rock): a box's corners and radius by hand, rocks from point files and
meshes with the mass properties of the same hull, and the refusals of rocks without a hull or in
an unknown file format. The shapes' mass properties are tested in ``tests/bodies``."""

import math

import numpy as np
import pytest

from tumble.bodies import catalogue
from tumble.rockfall import Rock


def test_box_corners_and_radius():
    """Rock.box(a, b, c): the 8 corners (+-a/2, +-b/2, +-c/2) with edges along x, y, z, mass
    rho a b c, and the radius half the diagonal, sqrt(a^2 + b^2 + c^2) / 2; to 1e-15."""
    a, b, c = 2.0, 1.0, 0.5
    rock = Rock.box(a, b, c, density=2500.0)
    corners = {tuple(v) for v in np.round(np.abs(rock.vertices), 15)}
    assert corners == {(a / 2, b / 2, c / 2)} and rock.n_vertices == 8
    assert rock.mass == pytest.approx(2500.0 * a * b * c, rel=1e-15)
    assert rock.radius == pytest.approx(0.5 * math.sqrt(a * a + b * b + c * c), rel=1e-15)


def test_rock_files_have_the_mass_properties_of_their_hull(tmp_path):
    """A point list with an interior point and an STL mesh of the corners of a 2 x 1 x 0.5 m
    box, shifted away from the origin, give the box's mass and principal moments (1e-12, 1e-10) and
    its 8 hull vertices; an unknown suffix is refused naming the format."""
    trimesh = pytest.importorskip("trimesh")
    box = Rock.box(2.0, 1.0, 0.5, density=2500.0)
    corners = box.vertices + np.array([5.0, -3.0, 2.0])
    xyz = tmp_path / "block.xyz"
    np.savetxt(xyz, np.vstack([corners, corners.mean(axis=0)]))
    stl = tmp_path / "block.stl"
    trimesh.Trimesh(vertices=corners, faces=trimesh.convex.convex_hull(corners).faces).export(stl)
    for path in (xyz, stl):
        rock = Rock.from_file(path, density=2500.0)
        assert rock.mass == pytest.approx(box.mass, rel=1e-12)
        np.testing.assert_allclose(np.sort(rock.inertia), np.sort(box.inertia), rtol=1e-10)
        assert rock.n_vertices == 8
    with pytest.raises(ValueError, match="unknown format"):
        Rock.from_file(xyz.rename(tmp_path / "block.dat"))


def test_a_body_without_vertices_is_not_a_rock():
    with pytest.raises(ValueError, match="has no vertices: a rock must be a polyhedron"):
        Rock.from_body(catalogue.ellipsoid(1.0, 0.8, 0.5, mass=100.0))
