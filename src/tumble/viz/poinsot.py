"""The Poinsot view as a movie: matplotlib 3D frames written with imageio's bundled ffmpeg.

The same picture as the web page, without a browser: on the left the lab frame, with the body
itself (the uniform box of the same principal moments, :func:`equivalent_box`, inscribed in its
inertia ellipsoid), its principal axes and the inertia ellipsoid rolling on the invariable plane,
the herpolhode traced in the plane and the polhode on the ellipsoid, ``L`` fixed and ``omega``
along the rotation axis through the contact point; in the middle the body frame, with the
momentum sphere, the energy ellipsoid, their intersection and the angular momentum moving along
it; on the right one legend naming everything drawn, panel by panel. As on the page, the lab
scene is drawn in a frame whose z axis is the initial ``L``, and the plane drawn is the mirror
image ``r . L = -sqrt(2K)`` (touched at ``-r``), so that the ellipsoid rests on it.

The header of every frame says what is filmed: the exact solution, or a scheme by name with
what it gets wrong against the exact motion (:func:`what_it_gets_wrong`), so that a numerical
artefact is never shown as if it were the body. Text is a fixed share of the frame height
(:func:`text_pixels`): 2.6 % for the legend, about 19 px in the default 1280 x 720 frame.

:func:`plan_frames` chooses which samples become frames (by default enough that the body turns
at most :data:`MAX_TURN_PER_FRAME_DEG` between two); :class:`PoinsotMovie` holds the figure and
draws one sample into it; :func:`animate_poinsot` writes the frames to a file.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tumble.viz.movie_captions import describe, number

#: the movie formats :func:`animate_poinsot` writes, by file suffix
FORMATS = (".mp4", ".gif")
#: frame size in pixels (width, height) and frames per second of a movie unless told otherwise
DEFAULT_SIZE = (1280, 720)
DEFAULT_FPS = 24
#: the smallest and largest side of a frame (pixels), frame rate and number of frames
MIN_SIDE, MAX_SIDE = 160, 3840
MIN_FPS, MAX_FPS = 1, 60
MIN_FRAMES, MAX_FRAMES = 2, 20_000
#: with the number of frames left to :func:`plan_frames`: the largest rotation of the body
#: between two frames (degrees), and the bounds of the number of frames
MAX_TURN_PER_FRAME_DEG = 20.0
AUTO_FRAMES = (120, 1200)
#: a rotation between frames (degrees) beyond which the eye sees the body jump
STROBE_DEG = 45.0
#: text height as a share of the frame (:func:`text_pixels`): legend and header, title line
TEXT_FRACTION = 0.026
TITLE_FRACTION = 0.034
#: resolution of the figure; its size in inches is the frame size over this
DPI = 100

AXIS_COLORS = ("#e5484d", "#30a46c", "#3e63dd")
COLORS = {
    "body": "#8d99ae",
    "body_edges": "#2b2d42",
    "ellipsoid": "#7c8aa5",
    "plane": "0.75",
    "polhode": "#05a2c2",
    "herpolhode": "#f76b15",
    "spin": "#f5a524",
    "omega": "#e93d82",
    "sphere": "#7b9ddb",
    "energy": "#8e4ec6",
    "curves": "#3f4654",
    "exact": "#1a7f37",
    "scheme": "#b42318",
}
#: the 12 edges of a box, as pairs of indices into :func:`box_corners`
BOX_EDGES = tuple((i, j) for i in range(8) for j in range(i + 1, 8) if bin(i ^ j).count("1") == 1)
#: the 6 faces of a box, corners in order around each face
BOX_FACES = (
    (0, 1, 3, 2),
    (4, 5, 7, 6),
    (0, 1, 5, 4),
    (2, 3, 7, 6),
    (0, 2, 6, 4),
    (1, 3, 7, 5),
)

#: what the movie draws, in the order of its legend: key (the ``gid`` of every artist drawn for
#: it), kind, colour, line width or marker size (or edge colour), label; a heading names the
#: panel of the entries below it
LEGEND = (
    ("lab", "heading", None, None, "left, lab frame:"),
    ("body", "patch", COLORS["body"], COLORS["body_edges"], "body (box of equal moments)"),
    ("ellipsoid", "line", COLORS["ellipsoid"], 1.0, "inertia ellipsoid"),
    ("plane", "patch", COLORS["plane"], "0.55", "invariable plane (mirrored)"),
    ("polhode", "line", COLORS["polhode"], 2.0, "polhode (on the ellipsoid)"),
    ("herpolhode", "line", COLORS["herpolhode"], 2.0, "herpolhode (on the plane)"),
    ("contact", "marker", COLORS["herpolhode"], 6, "contact point"),
    ("spin", "line", COLORS["spin"], 2.5, "angular momentum L"),
    ("omega", "line", COLORS["omega"], 2.5, "angular velocity ω"),
    ("frame", "heading", None, None, "middle, body frame:"),
    ("sphere", "line", COLORS["sphere"], 1.0, "momentum sphere |L| = G"),
    ("energy", "line", COLORS["energy"], 1.0, "energy ellipsoid (T fixed)"),
    ("curves", "line", COLORS["curves"], 2.0, "their intersection"),
    ("trail", "line", COLORS["spin"], 2.0, "path of L"),
    ("now", "marker", COLORS["spin"], 7, "L now"),
    ("both", "heading", None, None, "both panels:"),
    ("axis-x", "line", AXIS_COLORS[0], 2.0, "principal axis x"),
    ("axis-y", "line", AXIS_COLORS[1], 2.0, "principal axis y"),
    ("axis-z", "line", AXIS_COLORS[2], 2.0, "principal axis z"),
)
AXIS_KEYS = ("axis-x", "axis-y", "axis-z")


def animation_path(text: str) -> Path:
    """A movie path ending in .mp4 or .gif whose folder exists (argparse type and check)."""
    path = Path(text)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"the animation must end in .mp4 or .gif, got {text!r}")
    if not path.parent.exists():
        raise ValueError(f"the folder of {text!r} does not exist")
    return path


def movie_size(text: str) -> tuple[int, int]:
    """``"WIDTHxHEIGHT"`` in pixels as a validated ``(width, height)``: even numbers (the H.264
    encoder needs them) from :data:`MIN_SIDE` to :data:`MAX_SIDE`."""
    parts = text.lower().replace(" ", "").split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise ValueError(
            f"the movie size is WIDTHxHEIGHT in pixels, e.g. 1280x720, got {text!r}"
        ) from None
    check_size((width, height))
    return width, height


def check_size(size: tuple[int, int]) -> None:
    """ValueError unless ``size`` is two even pixel counts in ``MIN_SIDE..MAX_SIDE``."""
    if len(size) != 2:
        raise ValueError(f"the movie size is (width, height) in pixels, got {size!r}")
    for name, value in zip(("width", "height"), size, strict=True):
        if not (
            isinstance(value, int | np.integer) and MIN_SIDE <= value <= MAX_SIDE and value % 2 == 0
        ):
            raise ValueError(
                f"the movie {name} must be an even number of pixels in {MIN_SIDE}..{MAX_SIDE}, "
                f"got {value!r}"
            )


def check_fps(fps: int) -> None:
    if not (isinstance(fps, int | np.integer) and MIN_FPS <= fps <= MAX_FPS):
        raise ValueError(f"fps must be an integer in {MIN_FPS}..{MAX_FPS}, got {fps!r}")


def text_pixels(size: tuple[int, int], fraction: float = TEXT_FRACTION) -> float:
    """Height in pixels of the movie's text: ``fraction`` of the frame height, or of 9/16 of its
    width when the frame is narrower than 16:9 (so that the legend keeps within its column)."""
    width, height = size
    return fraction * min(float(height), 0.5625 * float(width))


def _rotation_to_z(normal: np.ndarray) -> np.ndarray:
    """Rotation matrix taking the unit vector ``normal`` to e_z (shortest rotation)."""
    n = normal / np.linalg.norm(normal)
    z = np.array([0.0, 0.0, 1.0])
    v = np.cross(n, z)
    c = float(n @ z)
    if c < -1.0 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    vx = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + vx + vx @ vx / (1.0 + c)


def _ellipsoid_mesh(semi_axes, n_u: int = 24, n_v: int = 12):
    u = np.linspace(0.0, 2.0 * np.pi, n_u)
    v = np.linspace(0.0, np.pi, n_v)
    x = semi_axes[0] * np.outer(np.cos(u), np.sin(v))
    y = semi_axes[1] * np.outer(np.sin(u), np.sin(v))
    z = semi_axes[2] * np.outer(np.ones_like(u), np.cos(v))
    return np.stack([x, y, z], axis=-1)


def equivalent_box(inertia) -> np.ndarray:
    """Half-edges (3,) of the uniform box with principal moments proportional to ``inertia``,
    scaled so that its corners lie on the inertia ellipsoid ``sum I_i x_i^2 = 1``.

    A uniform box of mass ``m`` and edges ``a_i`` has ``I_i = m (a_j^2 + a_k^2) / 12``, so
    ``a_i^2 = 6 (I_j + I_k - I_i) / m``; the mass only sets the scale, which is chosen to inscribe
    the box in the ellipsoid (as the web page draws the body inside its ellipsoid). For a cuboid
    body this is the body itself, up to that scale; a lamina (``A + B = C``) is a flat box.
    """
    i = np.asarray(inertia, dtype=np.float64)
    if i.shape != (3,) or not np.all(np.isfinite(i)) or np.any(i <= 0.0):
        raise ValueError(f"inertia must be three positive moments, got {inertia!r}")
    half2 = np.maximum(i.sum() - 2.0 * i, 0.0)  # I_j + I_k - I_i, up to a common factor
    reach = float(half2 @ i)  # sum I_i h_i^2 of a corner
    if reach <= 0.0:
        raise ValueError(f"no box has the principal moments {i.tolist()}")
    return np.sqrt(half2 / reach)


def box_corners(half: np.ndarray) -> np.ndarray:
    """The 8 corners (8, 3) of the box of half-edges ``half``, corner ``i`` at
    ``(+-h_x, +-h_y, +-h_z)`` with the signs of bits 2, 1, 0 of ``i`` (set: +)."""
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))
    return signs * np.asarray(half, dtype=np.float64)


def _proxies(entries) -> list:
    """Legend handles of :data:`LEGEND` entries (kind, colour, width/size/edge, label)."""
    from matplotlib.artist import Artist
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Artist] = []
    for kind, colour, other, label in entries:
        if kind == "line":
            handles.append(Line2D([], [], color=colour, lw=other, label=label))
        elif kind == "marker":
            handles.append(
                Line2D([], [], color=colour, lw=0, marker="o", markersize=other, label=label)
            )
        elif kind == "heading":
            handles.append(Line2D([], [], lw=0, label=label))
        else:
            handles.append(Patch(facecolor=colour, edgecolor=other, alpha=0.6, label=label))
    return handles


@dataclass(frozen=True)
class FramePlan:
    """Which samples become frames: ``indices`` (frames,) into the trajectory; ``max_turn_deg``
    the largest rotation of the body between two frames (the integral of ``|w|``; beyond
    :data:`STROBE_DEG` the eye sees the body jump, as a wheel under a stroboscope); ``repeats``
    whether some sample is shown on more than one frame (more frames than samples)."""

    indices: np.ndarray
    max_turn_deg: float
    repeats: bool

    def __len__(self) -> int:
        return int(self.indices.shape[0])


def plan_frames(trajectory, frames: int | None = None) -> FramePlan:
    """Frames evenly spaced in time; ``frames=None`` chooses their number so that the body
    turns at most :data:`MAX_TURN_PER_FRAME_DEG` between two, within :data:`AUTO_FRAMES`."""
    t = np.asarray(trajectory.t, dtype=np.float64)
    speed = np.linalg.norm(np.asarray(trajectory.omega, dtype=np.float64), axis=-1)
    turned = np.degrees(
        np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]) * np.diff(t))])
    )

    def plan(count: int) -> FramePlan:
        indices = np.linspace(0, t.shape[0] - 1, count).round().astype(np.int64)
        steps = np.diff(turned[indices])
        return FramePlan(
            indices=indices,
            max_turn_deg=float(steps.max()) if steps.size else 0.0,
            repeats=bool(np.any(np.diff(indices) == 0)),
        )

    if frames is not None:
        if not (isinstance(frames, int | np.integer) and MIN_FRAMES <= frames <= MAX_FRAMES):
            raise ValueError(
                f"frames must be an integer in {MIN_FRAMES}..{MAX_FRAMES}, got {frames!r}"
            )
        return plan(int(frames))
    lo, hi = AUTO_FRAMES
    # frames are evenly spaced in time, so the fastest turn sets their number; frames fall on
    # samples, whose spacing can add a sample's turn: add frames until the bound holds
    fastest = math.degrees(float(speed.max())) * float(t[-1] - t[0])
    count = min(max(math.ceil(fastest / MAX_TURN_PER_FRAME_DEG) + 1, lo), hi)
    chosen = plan(count)
    while chosen.max_turn_deg > MAX_TURN_PER_FRAME_DEG and count < min(hi, t.shape[0]):
        count = min(count + max(1, count // 20), hi, t.shape[0])
        chosen = plan(count)
    return chosen


class PoinsotMovie:
    """The figure of the movie: :meth:`draw` puts sample ``k`` of ``trajectory`` into it.

    ``size`` is the frame in pixels (width, height); text is :func:`text_pixels` high. The
    header names what is filmed (:func:`describe`; for a scheme, what it gets wrong), then
    ``title`` and, with ``speed`` (simulated seconds per second of movie), the playback rate.

    Attributes: ``fig``; ``lab`` and ``body`` (the two 3D axes); ``legend`` (the figure's one
    legend, with a bold heading per panel; ``legends`` is ``[legend]``); ``header`` (the three
    text lines on top); ``display`` (3, 3), the rotation from the lab frame to the drawn frame
    (z along the initial ``L``); after :meth:`draw`, ``body_edges`` (the
    :class:`~mpl_toolkits.mplot3d.art3d.Line3D` of the box's 12 edges, NaN-separated, in the
    drawn frame) and ``body_faces`` (its translucent faces); ``corners`` (8, 3), the box corners
    in the body frame (:func:`box_corners`). Every artist drawn in a panel carries as ``gid``
    the key of its legend entry (:data:`LEGEND`).
    """

    def __init__(
        self,
        trajectory,
        title: str = "",
        size: tuple[int, int] = DEFAULT_SIZE,
        speed: float | None = None,
    ) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from tumble.freerot.poinsot import momentum_energy_curves, trajectory_geometry
        from tumble.rotation.quaternion import quat_to_matrix

        check_size(size)
        self.trajectory = trajectory
        self.title = title
        self.speed = speed
        geo = trajectory_geometry(trajectory)
        self.geo = geo
        self.inertia = np.asarray(geo.inertia)
        self.display = _rotation_to_z(geo.plane_normal[0])
        self.rotations = self.display @ quat_to_matrix(trajectory.q)  # body -> display frame
        semi = 1.0 / np.sqrt(self.inertia)
        self.extent = float(semi.max())
        self.herpolhode = -(geo.point_lab @ self.display.T)
        self.spin0 = float(np.linalg.norm(geo.spin[0]))
        self.loops = momentum_energy_curves(self.inertia, float(geo.energy[0]), self.spin0)
        self.ellipsoid = _ellipsoid_mesh(semi)
        self.unit_sphere = _ellipsoid_mesh(np.ones(3))
        reach = float(np.hypot(self.herpolhode[:, 0], self.herpolhode[:, 1]).max())
        self.radius = max(1.3 * reach, self.extent)
        self.corners = box_corners(equivalent_box(self.inertia))
        self.body_edges: Any = None
        self.body_faces: Any = None
        self.name, self.verdict = describe(trajectory)

        width, height = size
        self.fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        self.fontsize = text_pixels(size) * 72.0 / DPI  # points
        title_size = text_pixels(size, TITLE_FRACTION) * 72.0 / DPI
        top = 1.0 - 0.4 * title_size / 72.0 * DPI / height
        line = 1.3 * self.fontsize / 72.0 * DPI / height  # one text line, figure fraction
        first = top - 1.3 * title_size / 72.0 * DPI / height
        colour = COLORS["exact"] if trajectory.scheme == "exact" else COLORS["scheme"]
        self.header = [
            self.fig.text(0.012, top, "", fontsize=title_size, weight="bold", va="top"),
            self.fig.text(0.012, first, "", fontsize=self.fontsize, va="top", color=colour),
            self.fig.text(0.012, first - line, "", fontsize=self.fontsize, va="top", color="0.3"),
        ]
        panels_top = first - 2.3 * line
        self.lab: Any = self.fig.add_axes((0.0, 0.0, 0.37, panels_top), projection="3d")
        self.body: Any = self.fig.add_axes((0.36, 0.0, 0.33, panels_top), projection="3d")
        for x, name in ((0.012, "lab frame"), (0.37, "body frame")):
            self.fig.text(x, panels_top, name, fontsize=self.fontsize, color="0.3", va="top")
        self.legend = self.fig.legend(
            handles=_proxies(entry[1:] for entry in LEGEND),
            loc="upper left",
            bbox_to_anchor=(0.70, panels_top),
            fontsize=self.fontsize,
            frameon=False,
            labelspacing=0.3,
            handlelength=1.5,
            handletextpad=0.5,
            borderaxespad=0.0,
        )
        for text, entry in zip(self.legend.get_texts(), LEGEND, strict=True):
            if entry[1] == "heading":
                text.set_fontweight("bold")
        self.legends = [self.legend]
        self._legend_pixels: tuple[slice, slice, np.ndarray] | None = None

    def header_lines(self, k: int) -> tuple[str, str, str]:
        """The three lines on top of frame ``k``: what is filmed and when, what it is or gets
        wrong, and the title with the playback speed."""
        when = f"t = {self.trajectory.t[k]:.2f} s"
        rate = f"movie at {number(self.speed)}× real time" if self.speed else ""
        info = "   ".join(s for s in (self.title, rate) if s)
        return f"{self.name}   {when}", self.verdict, info

    def draw(self, k: int) -> None:
        """Draw sample ``k`` (an index into the trajectory) into both panels."""
        geo = self.geo
        rotation = self.rotations[k]
        self._draw_lab(k, rotation)
        _draw_plane(
            self.lab, self.display @ geo.plane_normal[k], geo.plane_distance[k], self.radius
        )
        _draw_body(self.body, geo, k, self.inertia, self.spin0, self.loops, self.unit_sphere)
        for text, line in zip(self.header, self.header_lines(k), strict=True):
            text.set_text(line)

    def _draw_lab(self, k: int, rotation: np.ndarray) -> None:
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # type: ignore[import-untyped]

        ax, geo, size = self.lab, self.geo, self.extent
        ax.cla()
        corners = self.corners @ rotation.T
        self.body_faces = Poly3DCollection(
            [corners[list(face)] for face in BOX_FACES],
            facecolor=COLORS["body"],
            edgecolor="none",
            alpha=0.35,
        )
        self.body_faces.set_gid("body")
        ax.add_collection3d(self.body_faces)
        gap = np.full((1, 3), np.nan)
        path = np.vstack([np.vstack([corners[[i, j]], gap]) for i, j in BOX_EDGES])
        (self.body_edges,) = ax.plot(*path.T, color=COLORS["body_edges"], lw=1.0, gid="body")
        mesh = self.ellipsoid @ rotation.T
        wire = ax.plot_wireframe(
            *np.moveaxis(mesh, -1, 0), color=COLORS["ellipsoid"], lw=0.4, alpha=0.6
        )
        wire.set_gid("ellipsoid")
        for i in range(3):
            axis = rotation[:, i] * 1.15 * size
            ax.plot(
                *np.stack([-0.3 * axis, axis]).T, color=AXIS_COLORS[i], lw=1.5, gid=AXIS_KEYS[i]
            )
        polhode = -(geo.point_body[: k + 1] @ rotation.T)
        ax.plot(*polhode.T, color=COLORS["polhode"], lw=1.8, gid="polhode")
        ax.plot(*self.herpolhode[: k + 1].T, color=COLORS["herpolhode"], lw=1.8, gid="herpolhode")
        contact = self.herpolhode[k]
        ax.scatter(*contact, color=COLORS["herpolhode"], s=24).set_gid("contact")
        up = self.display @ geo.plane_normal[k] * 1.6 * size
        ax.quiver(0, 0, 0, *up, color=COLORS["spin"], lw=2.2, arrow_length_ratio=0.12).set_gid(
            "spin"
        )
        reach = -contact * (1.0 + 0.6 * size / max(float(np.linalg.norm(contact)), 1e-12))
        ax.quiver(
            *contact, *(reach - contact), color=COLORS["omega"], lw=2.2, arrow_length_ratio=0.1
        ).set_gid("omega")
        lim = 1.25 * size
        ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
        ax.set_box_aspect((1, 1, 1), zoom=1.45)
        ax.set_axis_off()

    def rgb(self) -> np.ndarray:
        """The figure as drawn now: an (height, width, 3) uint8 image.

        The legend never changes: it is rendered with the first frame, and its pixels are
        pasted into the later ones (its text is a third of the drawing time otherwise).
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = self.fig.canvas
        assert isinstance(canvas, FigureCanvasAgg)  # the Agg backend is selected above
        canvas.draw()
        image = np.asarray(canvas.buffer_rgba())[..., :3].copy()
        if self._legend_pixels is None:
            box = self.legend.get_window_extent()
            height, width = image.shape[:2]
            rows = slice(max(0, int(height - box.y1) - 2), min(height, int(height - box.y0) + 3))
            cols = slice(max(0, int(box.x0) - 2), min(width, int(box.x1) + 3))
            self._legend_pixels = (rows, cols, image[rows, cols].copy())
            self.legend.set_visible(False)
        else:
            rows, cols, pixels = self._legend_pixels
            image[rows, cols] = pixels
        return image

    def close(self) -> None:
        import matplotlib.pyplot as plt

        plt.close(self.fig)


def animate_poinsot(
    trajectory,
    path,
    frames: int | None = None,
    fps: int = DEFAULT_FPS,
    title: str = "",
    size: tuple[int, int] = DEFAULT_SIZE,
    plan: FramePlan | None = None,
) -> Path:
    """Render ``trajectory`` (a :class:`tumble.freerot.Trajectory`) to ``path`` (.mp4 or .gif).

    ``frames`` samples evenly spaced in time (:func:`plan_frames`; None: enough for a smooth
    turn, or the given ``plan``) are drawn at ``fps`` frames per second, ``size`` pixels each
    (:class:`PoinsotMovie`). The file is written under a temporary name and renamed when
    complete.
    """
    import imageio.v2 as imageio

    path = animation_path(os.fspath(path))
    check_fps(fps)
    check_size(size)
    plan = plan if plan is not None else plan_frames(trajectory, frames)
    duration = float(trajectory.t[plan.indices[-1]] - trajectory.t[plan.indices[0]])
    speed = duration / (len(plan) / fps) if duration > 0 else None
    movie = PoinsotMovie(trajectory, title=title, size=size, speed=speed)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    options: dict[str, Any] = {"fps": fps, "macro_block_size": 2}
    if path.suffix.lower() == ".gif":
        options = {"duration": 1000.0 / fps, "loop": 0}
    try:
        # the writer itself, not the value of its __enter__ (typed as the base class by imageio)
        writer = imageio.get_writer(tmp, **options)
        with writer:
            for k in plan.indices:
                movie.draw(int(k))
                writer.append_data(movie.rgb())
        os.replace(tmp, path)
    finally:
        movie.close()
        if tmp.exists():
            tmp.unlink()
    return path


def _draw_plane(ax, normal, distance, radius) -> None:
    """The mirrored invariable plane ``r . n = -d`` as a translucent disc."""
    n = normal / np.linalg.norm(normal)
    e1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    phi = np.linspace(0.0, 2.0 * np.pi, 73)
    centre = -distance * n
    ring = centre + radius * (np.outer(np.cos(phi), e1) + np.outer(np.sin(phi), e2))
    ax.plot(*ring.T, color="0.55", lw=0.8, gid="plane")
    points = np.vstack([ring, centre])
    ax.plot_trisurf(*points.T, color=COLORS["plane"], alpha=0.25, linewidth=0).set_gid("plane")


def _draw_body(ax, geo, k, inertia, spin0, loops, unit_sphere) -> None:
    ax.cla()
    spin_norm = float(np.linalg.norm(geo.spin[k])) / spin0
    sphere = np.moveaxis(spin_norm * unit_sphere, -1, 0)
    ax.plot_wireframe(*sphere, color=COLORS["sphere"], lw=0.35).set_gid("sphere")
    semi = np.sqrt(2.0 * geo.energy[k] * inertia) / spin0
    ax.plot_wireframe(
        *np.moveaxis(semi * unit_sphere, -1, 0), color=COLORS["energy"], lw=0.35
    ).set_gid("energy")
    for loop in loops:
        ax.plot(*(loop / spin0).T, color=COLORS["curves"], lw=1.6, gid="curves")
    trail = geo.spin_body[: k + 1] / spin0
    ax.plot(*trail.T, color=COLORS["spin"], lw=1.8, gid="trail")
    ax.scatter(*trail[-1], color=COLORS["spin"], s=40).set_gid("now")
    for i in range(3):
        end = np.zeros(3)
        end[i] = 1.3
        ax.plot(*np.stack([-end, end]).T, color=AXIS_COLORS[i], lw=1.2, gid=AXIS_KEYS[i])
    lim = 1.2 * max(1.0, float(semi.max()))
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
    ax.set_box_aspect((1, 1, 1), zoom=1.3)
    ax.set_axis_off()
