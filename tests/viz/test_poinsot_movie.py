"""The Poinsot movie (``tumble spin --animate``): a legend entry for everything drawn, text readable
at lecture size, a header naming what is filmed (and what a scheme gets wrong), frames planned
so that the body does not jump, and the body itself (the box of equal principal moments)
turning with the attitude of the trajectory."""

import imageio.v2 as imageio
import numpy as np
import pytest

from tumble.freerot import integrate
from tumble.rotation.quaternion import quat_rotate
from tumble.viz.movie_captions import describe, what_it_gets_wrong
from tumble.viz.poinsot import (
    AXIS_KEYS,
    DPI,
    LEGEND,
    MAX_TURN_PER_FRAME_DEG,
    STROBE_DEG,
    PoinsotMovie,
    animate_poinsot,
    box_corners,
    equivalent_box,
    movie_size,
    plan_frames,
)

#: the cuboid of Leine et al. 2021, 3 x 2 x 1 m, 1 kg
INERTIA = np.array([5.0, 10.0, 13.0]) / 12.0
#: a small frame keeps the tests quick; text scales with it
SIZE = (480, 270)


@pytest.fixture(scope="module")
def trajectory():
    """Near the intermediate axis: the body tumbles within a few seconds."""
    return integrate("implicit", INERTIA, (0.1, 10.0, 0.1), (1.0, 0.0, 0.0, 0.0), 0.01, 2.0)


@pytest.fixture
def movie(trajectory):
    movie = PoinsotMovie(trajectory, title="test", size=SIZE)
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


def drawn_keys(ax) -> set[str]:
    """The legend keys (gids) of everything drawn in a panel; fails on an unnamed artist."""
    keys = set()
    for artist in [*ax.lines, *ax.collections]:
        gid = artist.get_gid()
        assert gid, f"{artist!r} is drawn without a legend key"
        keys.add(gid)
    return keys


def test_every_drawn_item_has_a_legend_entry(movie):
    """Each line, surface and marker of both panels carries the key of a legend entry, and every
    entry but the headings names something drawn; the legend lies beside the panels, inside
    the frame."""
    movie.draw(0)
    movie.rgb()  # draws the figure: the legend is laid out
    entries = {key for key, kind, *_ in LEGEND if kind != "heading"}
    lab, body = drawn_keys(movie.lab), drawn_keys(movie.body)
    assert lab | body == entries
    assert set(AXIS_KEYS) <= lab and set(AXIS_KEYS) <= body
    labels = [text.get_text() for text in movie.legend.get_texts()]
    assert labels == [label for *_, label in LEGEND]
    assert len(set(labels)) == len(labels)
    assert movie.fig.legends == [movie.legend]
    width, height = movie.fig.canvas.get_width_height()
    box = movie.legend.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height
    for ax in (movie.lab, movie.body):
        assert ax.get_position().x1 * width <= box.x0 + 1


def test_legend_colours_tell_the_items_apart():
    """No two legend entries share a colour, but for the marks of one thing: L, its path and its
    tip; the herpolhode and the contact point on it."""
    colours: dict[str, set[str]] = {}
    for key, kind, colour, *_ in LEGEND:
        if kind != "heading":
            colours.setdefault(str(colour), set()).add(key)
    shared = [keys for keys in colours.values() if len(keys) > 1]
    assert sorted(map(sorted, shared)) == [["contact", "herpolhode"], ["now", "spin", "trail"]]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (640, 360)])
def test_text_is_readable_at_lecture_size(trajectory, size):
    """Legend and header text is 2.6 % of the frame height (19 px at 720 p, 28 px at 1080 p):
    the glyphs measured on the drawn frame are at least 2 % of it, and the legend still fits."""
    movie = PoinsotMovie(trajectory, size=size)
    try:
        movie.draw(0)
        image = movie.rgb()
        assert image.shape == (size[1], size[0], 3)
        renderer = movie.fig.canvas.get_renderer()
        for text in [*movie.legend.get_texts(), *movie.header]:
            assert text.get_fontsize() * DPI / 72.0 >= 0.025 * size[1]
        # a label with an ascender and a descender: its ink is about 1.2 font sizes high
        ink = movie.legend.get_texts()[4].get_window_extent(renderer).height
        assert ink >= 0.02 * size[1]
        box = movie.legend.get_window_extent(renderer)
        assert box.x1 <= size[0] and box.y0 >= 0
    finally:
        movie.close()


def test_header_names_the_scheme_and_what_it_gets_wrong():
    """The exact solution is called the motion itself; the explicit scheme near the major axis
    is named, with its order and dt, and its frames say that |L| drifts (Leine et al. 2021,
    section 4.3: it leaves the major axis)."""
    exact = integrate("exact", INERTIA, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    explicit = integrate("explicit", INERTIA, (1e-3, 1e-3, 10.0), dt=0.01, t_end=20.0)
    name, verdict = describe(exact)
    assert name == "exact solution" and "motion itself" in verdict
    name, verdict = describe(explicit)
    assert name.startswith("explicit scheme (order 1, dt = 0.01 s)")
    assert "|L| drifts by 38 %" in verdict  # the spin of the minor axis: sqrt(A/C) = 0.62
    movie = PoinsotMovie(explicit, title="cuboid", size=SIZE, speed=0.5)
    try:
        first, second, third = movie.header_lines(100)
        assert (
            first
            == "explicit scheme (order 1, dt = 0.01 s), a numerical approximation   t = 1.00 s"
        )
        assert second == verdict
        assert third == "cuboid   movie at 0.50× real time"
    finally:
        movie.close()


def test_the_header_counts_the_flips_a_scheme_gets_wrong():
    """Near the intermediate axis (the page's default case, 20 s) the exact motion flips 8 times
    and the explicit scheme twice (tumble.freerot.flips)."""
    omega0 = (0.1, 10.0, 0.1)
    exact = integrate("exact", INERTIA, omega0, dt=0.01, t_end=20.0)
    assert describe(exact)[1].endswith("energy and L are constant; it flips 8 times")
    explicit = integrate("explicit", INERTIA, omega0, dt=0.01, t_end=20.0)
    assert "2 flips where the body makes 8" in describe(explicit)[1]


def test_an_energy_and_momentum_scheme_is_told_by_its_phase():
    """The implicit scheme keeps energy and L: its frames say so, and give how far ω and the
    attitude are from the exact motion."""
    traj = integrate("implicit", INERTIA, (0.1, 10.0, 0.1), dt=0.01, t_end=5.0)
    line = what_it_gets_wrong(traj)
    assert line.startswith("over 5 s it keeps energy and L, but ω is up to")


def test_frames_are_planned_so_that_the_body_does_not_jump(trajectory):
    """By default the body turns at most 20 degrees between frames (10 rad/s over 20 s: 11459
    degrees, about 600 frames), never fewer than 120 frames; a given count is kept."""
    long = integrate("exact", INERTIA, (0.1, 10.0, 0.1), dt=0.01, t_end=20.0)
    plan = plan_frames(long)
    turn = np.degrees(np.linalg.norm(long.omega, axis=1).max()) * 20.0
    assert turn / MAX_TURN_PER_FRAME_DEG < len(plan) < 1.25 * turn / MAX_TURN_PER_FRAME_DEG
    assert plan.max_turn_deg <= MAX_TURN_PER_FRAME_DEG and not plan.repeats
    assert len(plan_frames(trajectory)) == 120  # 2 s: the floor
    few = plan_frames(long, frames=120)
    assert len(few) == 120 and few.max_turn_deg > STROBE_DEG  # 96 degrees: it strobes
    assert plan_frames(trajectory, frames=500).repeats  # 201 samples
    with pytest.raises(ValueError, match="frames must be an integer"):
        plan_frames(trajectory, frames=1)


def test_sizes_are_checked():
    assert movie_size("1280x720") == (1280, 720)
    for bad in ("1280", "1281x720", "100x100", "axb", "8000x720"):
        with pytest.raises(ValueError, match="movie"):
            movie_size(bad)


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
        faces = [
            a for a in movie.lab.collections if a.get_gid() == "body" and a is movie.body_faces
        ]
        assert len(faces) == 1
        drawn[k] = expected
    first, second = drawn.values()
    assert np.abs(second - first).max() > 0.1  # the body moved between the frames


@pytest.mark.parametrize("suffix", [".gif", ".mp4"])
def test_movie_has_the_frames_and_size_asked_for(trajectory, tmp_path, suffix):
    path = animate_poinsot(trajectory, tmp_path / f"poinsot{suffix}", frames=4, fps=5, size=SIZE)
    assert path == tmp_path / f"poinsot{suffix}" and path.stat().st_size > 0
    assert not list(tmp_path.glob(".*partial*"))
    frames = imageio.mimread(path)
    assert len(frames) == 4
    assert frames[0].shape[:2] == (SIZE[1], SIZE[0])
    assert not np.array_equal(frames[0], frames[-1])
    with pytest.raises(ValueError, match="fps"):
        animate_poinsot(trajectory, tmp_path / "x.gif", frames=4, fps=0, size=SIZE)
    assert not (tmp_path / "x.gif").exists()
