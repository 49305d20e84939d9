"""The Poinsot movie (``tumble spin --animate``): a legend naming what is drawn, and the body itself
(the box of equal principal moments) turning with the attitude of the trajectory."""

import imageio.v2 as imageio
import numpy as np
import pytest

from tumble.freerot import integrate
from tumble.rotation.quaternion import quat_rotate
from tumble.viz.poinsot import (
    PoinsotMovie,
    animate_poinsot,
    box_corners,
    equivalent_box,
)

#: the cuboid of Leine et al. 2021, 3 x 2 x 1 m, 1 kg
INERTIA = np.array([5.0, 10.0, 13.0]) / 12.0
LAB_LABELS = {
    "body (box of equal moments)",
    "inertia ellipsoid",
    "invariable plane (mirrored)",
    "polhode",
    "herpolhode",
    "contact point",
    "angular momentum L",
    "angular velocity ω",
    "principal axis x",
    "principal axis y",
    "principal axis z",
}
BODY_LABELS = {
    "momentum sphere |L| = G",
    "energy ellipsoid",
    "their intersection",
    "path of L (body frame)",
    "L now",
}


@pytest.fixture(scope="module")
def trajectory():
    """Near the intermediate axis: the body tumbles within a few seconds."""
    return integrate("implicit", INERTIA, (0.1, 10.0, 0.1), (1.0, 0.0, 0.0, 0.0), 0.01, 2.0)


@pytest.fixture
def movie(trajectory):
    movie = PoinsotMovie(trajectory, title="test", dpi=30)
    yield movie
    movie.close()


def body_points(movie) -> np.ndarray:
    """The 3D points of the drawn body's edges (NaN separators dropped)."""
    edges = [a for a in movie.lab.get_lines() if a.get_gid() == "body"]
    assert len(edges) == 1
    points = np.column_stack(edges[0].get_data_3d())
    return points[np.isfinite(points).all(axis=1)]


def test_equivalent_box_is_the_cuboid_inscribed_in_its_ellipsoid():
    half = equivalent_box(INERTIA)
    np.testing.assert_allclose(half / half[2], [3.0, 2.0, 1.0], rtol=1e-12)
    corners = box_corners(half)
    assert corners.shape == (8, 3) and len({tuple(c) for c in corners}) == 8
    np.testing.assert_allclose(corners**2 @ INERTIA, 1.0, rtol=1e-12)  # on the ellipsoid
    with pytest.raises(ValueError, match="positive"):
        equivalent_box([1.0, -1.0, 1.0])


def test_frame_has_a_legend_naming_what_is_drawn(movie):
    movie.draw(0)
    movie.rgb()  # draws the figure: the legends are laid out
    lab, body = ({text.get_text() for text in legend.get_texts()} for legend in movie.legends)
    assert lab == LAB_LABELS
    assert body == BODY_LABELS
    assert movie.fig.legends == movie.legends
    # both legends lie inside the figure, below the panels, and do not overlap
    width, height = movie.fig.canvas.get_width_height()
    boxes = [legend.get_window_extent() for legend in movie.legends]
    for box in boxes:
        assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height
    assert boxes[0].x1 < boxes[1].x0


def test_body_turns_with_the_attitude(movie, trajectory):
    corners = box_corners(equivalent_box(INERTIA))
    drawn = {}
    for k in (0, len(trajectory) // 2):
        movie.draw(k)
        points = body_points(movie)
        assert points.shape == (24, 3)  # 12 edges, 2 ends each
        # the corners turned by the attitude q(t_k), in the drawn frame (z along L(0))
        expected = quat_rotate(trajectory.q[k], corners) @ movie.display.T
        distance = np.linalg.norm(points[:, None, :] - expected[None, :, :], axis=-1)
        assert distance.min(axis=1).max() < 1e-9  # every drawn vertex is a turned corner
        assert set(distance.argmin(axis=1)) == set(range(8))  # and every corner is drawn
        faces = [a for a in movie.lab.collections if a.get_gid() == "body-faces"]
        assert len(faces) == 1
        drawn[k] = expected
    first, second = drawn.values()
    assert np.abs(second - first).max() > 0.1  # the body moved between the frames


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_movie_is_written(trajectory, tmp_path, suffix):
    path = animate_poinsot(trajectory, tmp_path / f"poinsot{suffix}", frames=3, fps=5, dpi=32)
    assert path == tmp_path / f"poinsot{suffix}" and path.stat().st_size > 0
    assert not list(tmp_path.glob(".*partial*"))
    frames = imageio.mimread(path)
    assert len(frames) == 3
    assert frames[0].shape[:2] == (224, 384)  # 12 x 7 inches at 32 dpi
    assert not np.array_equal(frames[0], frames[-1])
