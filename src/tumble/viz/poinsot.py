"""The Poinsot view as a movie: matplotlib 3D frames written with imageio's bundled ffmpeg.

The same picture as the web page, without a browser: on the left the lab frame, with the body
itself (the uniform box of the same principal moments, :func:`equivalent_box`, inscribed in its
inertia ellipsoid), its principal axes and the inertia ellipsoid rolling on the invariable plane,
the herpolhode traced in the plane and the polhode on the ellipsoid, ``L`` fixed and ``omega``
along the rotation axis through the contact point; on the right the body frame, with the
momentum sphere, the energy ellipsoid, their intersection and the angular momentum moving along
it. A legend under each panel names what is drawn. As on the page, the lab scene is drawn in a
frame whose z axis is the initial ``L``, and the plane drawn is the mirror image
``r . L = -sqrt(2K)`` (touched at ``-r``), so that the ellipsoid rests on it.

:class:`PoinsotMovie` holds the figure and draws one sample into it; :func:`animate_poinsot`
writes the frames to a file.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import numpy as np

#: the movie formats :func:`animate_poinsot` writes, by file suffix
FORMATS = (".mp4", ".gif")
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
    "sphere": "#3e63dd",
    "energy": "#f76b15",
    "curves": "#c9a800",
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


def animation_path(text: str) -> Path:
    """A movie path ending in .mp4 or .gif whose folder exists (argparse type and check)."""
    path = Path(text)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"the animation must end in .mp4 or .gif, got {text!r}")
    if not path.parent.exists():
        raise ValueError(f"the folder of {text!r} does not exist")
    return path


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


def _frame_indices(n_samples: int, frames: int) -> np.ndarray:
    return np.unique(np.linspace(0, n_samples - 1, min(frames, n_samples)).round().astype(int))


def equivalent_box(inertia) -> np.ndarray:
    """Half-edges (3,) of the uniform box with principal moments proportional to ``inertia``,
    scaled so that its corners lie on the inertia ellipsoid ``sum I_i x_i^2 = 1``.

    A uniform box of mass ``m`` and edges ``a_i`` has ``I_i = m (a_j^2 + a_k^2) / 12``, so
    ``a_i^2 = 6 (I_j + I_k - I_i) / m``; the mass only sets the scale, which is chosen to inscribe
    the box in the ellipsoid (as the web page draws the body inside its ellipsoid). For a cuboid
    body this is the body itself, up to that scale.
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
    """Legend handles: ("line", colour, width, label) or ("patch", face, edge, label)."""
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
        else:
            handles.append(Patch(facecolor=colour, edgecolor=other, alpha=0.6, label=label))
    return handles


#: what the lab panel shows, in the order of its legend
LAB_LEGEND = (
    ("patch", COLORS["body"], COLORS["body_edges"], "body (box of equal moments)"),
    ("line", COLORS["ellipsoid"], 0.8, "inertia ellipsoid"),
    ("patch", COLORS["plane"], "0.55", "invariable plane (mirrored)"),
    ("line", COLORS["polhode"], 1.5, "polhode"),
    ("line", COLORS["herpolhode"], 1.5, "herpolhode"),
    ("marker", COLORS["herpolhode"], 5, "contact point"),
    ("line", COLORS["spin"], 2.0, "angular momentum L"),
    ("line", COLORS["omega"], 2.0, "angular velocity ω"),
    ("line", AXIS_COLORS[0], 1.5, "principal axis x"),
    ("line", AXIS_COLORS[1], 1.5, "principal axis y"),
    ("line", AXIS_COLORS[2], 1.5, "principal axis z"),
)
#: what the body panel shows, in the order of its legend
BODY_LEGEND = (
    ("line", COLORS["sphere"], 0.8, "momentum sphere |L| = G"),
    ("line", COLORS["energy"], 0.8, "energy ellipsoid"),
    ("line", COLORS["curves"], 1.2, "their intersection"),
    ("line", COLORS["spin"], 1.5, "path of L (body frame)"),
    ("marker", COLORS["spin"], 5, "L now"),
)


class PoinsotMovie:
    """The figure of the movie: :meth:`draw` puts sample ``k`` of ``trajectory`` into it.

    Attributes after :meth:`draw`: ``fig``; ``lab`` and ``body`` (the two 3D axes);
    ``legends`` (the figure legends under the lab and body panels); ``display`` (3, 3), the
    rotation from the lab frame to the drawn frame (z along the initial ``L``);
    ``body_edges`` (the :class:`~mpl_toolkits.mplot3d.art3d.Line3D` of the box's 12 edges,
    NaN-separated, in the drawn frame) and ``body_faces`` (its translucent faces);
    ``corners`` (8, 3), the box corners in the body frame (:func:`box_corners`).
    """

    def __init__(self, trajectory, title: str = "", dpi: int = 80) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from tumble.freerot.poinsot import momentum_energy_curves, trajectory_geometry
        from tumble.rotation.quaternion import quat_to_matrix

        self.trajectory = trajectory
        self.title = title
        geo = trajectory_geometry(trajectory)
        self.geo = geo
        self.inertia = np.asarray(geo.inertia)
        self.display = _rotation_to_z(geo.plane_normal[0])
        self.rotations = self.display @ quat_to_matrix(trajectory.q)  # body -> display frame
        semi = 1.0 / np.sqrt(self.inertia)
        self.size = float(semi.max())
        self.herpolhode = -(geo.point_lab @ self.display.T)
        self.spin0 = float(np.linalg.norm(geo.spin[0]))
        self.loops = momentum_energy_curves(self.inertia, float(geo.energy[0]), self.spin0)
        self.ellipsoid = _ellipsoid_mesh(semi)
        self.unit_sphere = _ellipsoid_mesh(np.ones(3))
        reach = float(np.hypot(self.herpolhode[:, 0], self.herpolhode[:, 1]).max())
        self.radius = max(1.3 * reach, self.size)
        self.corners = box_corners(equivalent_box(self.inertia))
        self.body_edges: Any = None
        self.body_faces: Any = None

        self.fig = plt.figure(figsize=(12, 7), dpi=dpi)
        self.lab = self.fig.add_subplot(1, 2, 1, projection="3d")
        self.body = self.fig.add_subplot(1, 2, 2, projection="3d")
        self.fig.subplots_adjust(left=0.0, right=1.0, bottom=0.14, top=0.92, wspace=0.0)
        self.legends = [
            self.fig.legend(
                handles=_proxies(entries),
                loc="lower center",
                bbox_to_anchor=(centre, 0.005),
                ncol=ncol,
                fontsize=8,
                frameon=False,
                columnspacing=1.2,
                handlelength=1.6,
            )
            for entries, centre, ncol in ((LAB_LEGEND, 0.25, 3), (BODY_LEGEND, 0.75, 2))
        ]

    def draw(self, k: int) -> None:
        """Draw sample ``k`` (an index into the trajectory) into both panels."""
        geo = self.geo
        rotation = self.rotations[k]
        self._draw_lab(k, rotation)
        _draw_plane(
            self.lab, self.display @ geo.plane_normal[k], geo.plane_distance[k], self.radius
        )
        _draw_body(self.body, geo, k, self.inertia, self.spin0, self.loops, self.unit_sphere)
        self.fig.suptitle(
            f"{self.title}  {self.trajectory.scheme}   t = {self.trajectory.t[k]:.2f} s".strip(),
            fontsize=11,
        )

    def _draw_lab(self, k: int, rotation: np.ndarray) -> None:
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # type: ignore[import-untyped]

        ax, geo, size = self.lab, self.geo, self.size
        ax.cla()
        corners = self.corners @ rotation.T
        self.body_faces = Poly3DCollection(
            [corners[list(face)] for face in BOX_FACES],
            facecolor=COLORS["body"],
            edgecolor="none",
            alpha=0.35,
        )
        self.body_faces.set_gid("body-faces")
        ax.add_collection3d(self.body_faces)
        gap = np.full((1, 3), np.nan)
        path = np.vstack([np.vstack([corners[[i, j]], gap]) for i, j in BOX_EDGES])
        (self.body_edges,) = ax.plot(*path.T, color=COLORS["body_edges"], lw=1.0)
        self.body_edges.set_gid("body")
        mesh = self.ellipsoid @ rotation.T
        ax.plot_wireframe(*np.moveaxis(mesh, -1, 0), color=COLORS["ellipsoid"], lw=0.4, alpha=0.6)
        for i in range(3):
            axis = rotation[:, i] * 1.15 * size
            ax.plot(*np.stack([-0.3 * axis, axis]).T, color=AXIS_COLORS[i], lw=1.5)
        polhode = -(geo.point_body[: k + 1] @ rotation.T)
        ax.plot(*polhode.T, color=COLORS["polhode"], lw=1.5)
        ax.plot(*self.herpolhode[: k + 1].T, color=COLORS["herpolhode"], lw=1.5)
        contact = self.herpolhode[k]
        ax.scatter(*contact, color=COLORS["herpolhode"], s=18)
        up = self.display @ geo.plane_normal[k] * 1.6 * size
        ax.quiver(0, 0, 0, *up, color=COLORS["spin"], lw=2, arrow_length_ratio=0.12)
        reach = -contact * (1.0 + 0.6 * size / max(float(np.linalg.norm(contact)), 1e-12))
        ax.quiver(*contact, *(reach - contact), color=COLORS["omega"], lw=2, arrow_length_ratio=0.1)
        lim = 1.25 * size
        ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
        ax.set_box_aspect((1, 1, 1), zoom=1.35)
        ax.set_axis_off()
        ax.set_title(
            "lab frame: the body and its inertia ellipsoid on the invariable plane", fontsize=10
        )

    def rgb(self) -> np.ndarray:
        """The figure as drawn now: an (height, width, 3) uint8 image."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        canvas = self.fig.canvas
        assert isinstance(canvas, FigureCanvasAgg)  # the Agg backend is selected above
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].copy()

    def close(self) -> None:
        import matplotlib.pyplot as plt

        plt.close(self.fig)


def animate_poinsot(
    trajectory, path, frames: int = 120, fps: int = 24, title: str = "", dpi: int = 80
) -> Path:
    """Render ``trajectory`` (a :class:`tumble.freerot.Trajectory`) to ``path`` (.mp4 or .gif).

    ``frames`` samples, evenly spaced in time, are drawn at ``fps`` frames per second
    (:class:`PoinsotMovie`). The file is written under a temporary name and renamed when
    complete.
    """
    import imageio.v2 as imageio

    path = animation_path(os.fspath(path))
    if not (isinstance(frames, int) and frames >= 2):
        raise ValueError(f"frames must be an integer of at least 2, got {frames!r}")
    if not (isinstance(fps, int) and 1 <= fps <= 60):
        raise ValueError(f"fps must be an integer in 1..60, got {fps!r}")
    movie = PoinsotMovie(trajectory, title=title, dpi=dpi)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    options: dict[str, Any] = (
        {"fps": fps, "macro_block_size": 16} if path.suffix.lower() == ".mp4" else {}
    )
    if path.suffix.lower() == ".gif":
        options = {"duration": 1000.0 / fps, "loop": 0}
    try:
        # the writer itself, not the value of its __enter__ (typed as the base class by imageio)
        writer = imageio.get_writer(tmp, **options)
        with writer:
            for k in _frame_indices(len(movie.geo), frames):
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
    ax.plot(*ring.T, color="0.55", lw=0.8)
    points = np.vstack([ring, centre])
    ax.plot_trisurf(*points.T, color=COLORS["plane"], alpha=0.25, linewidth=0)


def _draw_body(ax, geo, k, inertia, spin0, loops, unit_sphere) -> None:
    ax.cla()
    spin_norm = float(np.linalg.norm(geo.spin[k])) / spin0
    sphere = np.moveaxis(spin_norm * unit_sphere, -1, 0)
    ax.plot_wireframe(*sphere, color=COLORS["sphere"], lw=0.3)
    semi = np.sqrt(2.0 * geo.energy[k] * inertia) / spin0
    ax.plot_wireframe(*np.moveaxis(semi * unit_sphere, -1, 0), color=COLORS["energy"], lw=0.3)
    for loop in loops:
        ax.plot(*(loop / spin0).T, color=COLORS["curves"], lw=1.2)
    trail = geo.spin_body[: k + 1] / spin0
    ax.plot(*trail.T, color=COLORS["spin"], lw=1.5)
    ax.scatter(*trail[-1], color=COLORS["spin"], s=25)
    for i in range(3):
        end = np.zeros(3)
        end[i] = 1.3
        ax.plot(*np.stack([-end, end]).T, color=AXIS_COLORS[i], lw=1)
    lim = 1.2 * max(1.0, float(semi.max()))
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
    ax.set_box_aspect((1, 1, 1), zoom=1.35)
    ax.set_axis_off()
    ax.set_title("body frame: momentum sphere and energy ellipsoid", fontsize=10)
