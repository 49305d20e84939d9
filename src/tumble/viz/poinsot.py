"""The Poinsot view as a movie: matplotlib 3D frames written with imageio's bundled ffmpeg.

The same picture as the web page, without a browser: on the left the lab frame, with the body's
principal axes and inertia ellipsoid rolling on the invariable plane, the herpolhode traced in
the plane and the polhode on the ellipsoid, ``L`` fixed and ``omega`` along the rotation axis
through the contact point; on the right the body frame, with the momentum sphere, the energy
ellipsoid, their intersection and the angular momentum moving along it. As on the page, the lab
scene is drawn in a frame whose z axis is the initial ``L``, and the plane drawn is the mirror
image ``r . L = -sqrt(2K)`` (touched at ``-r``), so that the ellipsoid rests on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

#: the movie formats :func:`animate_poinsot` writes, by file suffix
FORMATS = (".mp4", ".gif")
AXIS_COLORS = ("#e5484d", "#30a46c", "#3e63dd")


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


def animate_poinsot(
    trajectory, path, frames: int = 120, fps: int = 24, title: str = "", dpi: int = 80
) -> Path:
    """Render ``trajectory`` (a :class:`tumble.freerot.Trajectory`) to ``path`` (.mp4 or .gif).

    ``frames`` samples, evenly spaced in time, are drawn at ``fps`` frames per second. The file
    is written under a temporary name and renamed when complete.
    """
    import imageio.v2 as imageio
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from tumble.freerot.poinsot import momentum_energy_curves, trajectory_geometry
    from tumble.rotation.quaternion import quat_to_matrix

    path = animation_path(os.fspath(path))
    if not (isinstance(frames, int) and frames >= 2):
        raise ValueError(f"frames must be an integer of at least 2, got {frames!r}")
    if not (isinstance(fps, int) and 1 <= fps <= 60):
        raise ValueError(f"fps must be an integer in 1..60, got {fps!r}")
    geo = trajectory_geometry(trajectory)
    inertia = np.asarray(geo.inertia)
    display = _rotation_to_z(geo.plane_normal[0])
    rotations = display @ quat_to_matrix(trajectory.q)  # body -> display frame
    semi = 1.0 / np.sqrt(inertia)
    size = float(semi.max())
    herpolhode = -(geo.point_lab @ display.T)
    spin0 = float(np.linalg.norm(geo.spin[0]))
    loops = momentum_energy_curves(inertia, float(geo.energy[0]), spin0)
    ellipsoid = _ellipsoid_mesh(semi)
    unit_sphere = _ellipsoid_mesh(np.ones(3))
    radius = max(1.3 * float(np.hypot(herpolhode[:, 0], herpolhode[:, 1]).max()), size)

    fig = plt.figure(figsize=(12, 6), dpi=dpi)
    lab = fig.add_subplot(1, 2, 1, projection="3d")
    body = fig.add_subplot(1, 2, 2, projection="3d")
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=0.92, wspace=0.0)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")
    options: dict[str, Any] = (
        {"fps": fps, "macro_block_size": 16} if path.suffix.lower() == ".mp4" else {}
    )
    if path.suffix.lower() == ".gif":
        options = {"duration": 1000.0 / fps, "loop": 0}
    try:
        # the writer itself, not the value of its __enter__ (typed as the base class by imageio)
        writer = imageio.get_writer(tmp, **options)
        canvas = fig.canvas
        assert isinstance(canvas, FigureCanvasAgg)  # the Agg backend is selected above
        with writer:
            for k in _frame_indices(len(geo), frames):
                _draw_lab(lab, geo, k, rotations[k], display, ellipsoid, herpolhode, size)
                _draw_plane(lab, display @ geo.plane_normal[k], geo.plane_distance[k], radius)
                _draw_body(body, geo, k, inertia, spin0, loops, unit_sphere)
                fig.suptitle(
                    f"{title}  {trajectory.scheme}   t = {trajectory.t[k]:.2f} s".strip(),
                    fontsize=11,
                )
                canvas.draw()
                writer.append_data(np.asarray(canvas.buffer_rgba())[..., :3].copy())
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if tmp.exists():
            tmp.unlink()
    return path


def _draw_lab(ax, geo, k, rotation, display, ellipsoid, herpolhode, size) -> None:
    ax.cla()
    mesh = ellipsoid @ rotation.T
    ax.plot_wireframe(*np.moveaxis(mesh, -1, 0), color="#05a2c2", lw=0.4, alpha=0.6)
    for i in range(3):
        axis = rotation[:, i] * 1.15 * size
        ax.plot(*np.stack([-0.3 * axis, axis]).T, color=AXIS_COLORS[i], lw=1.5)
    polhode = -(geo.point_body[: k + 1] @ rotation.T)
    ax.plot(*polhode.T, color="#05a2c2", lw=1.5)
    ax.plot(*herpolhode[: k + 1].T, color="#f76b15", lw=1.5)
    contact = herpolhode[k]
    ax.scatter(*contact, color="#f76b15", s=18)
    up = display @ geo.plane_normal[k] * 1.6 * size
    ax.quiver(0, 0, 0, *up, color="#f5a524", lw=2, arrow_length_ratio=0.12)
    reach = -contact * (1.0 + 0.6 * size / max(np.linalg.norm(contact), 1e-12))
    ax.quiver(*contact, *(reach - contact), color="#e93d82", lw=2, arrow_length_ratio=0.1)
    lim = 1.25 * size
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
    ax.set_box_aspect((1, 1, 1), zoom=1.35)
    ax.set_axis_off()
    ax.set_title("lab frame: inertia ellipsoid on the invariable plane", fontsize=10)


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
    ax.plot_trisurf(*points.T, color="0.75", alpha=0.25, linewidth=0)


def _draw_body(ax, geo, k, inertia, spin0, loops, unit_sphere) -> None:
    ax.cla()
    spin_norm = float(np.linalg.norm(geo.spin[k])) / spin0
    ax.plot_wireframe(*np.moveaxis(spin_norm * unit_sphere, -1, 0), color="#3e63dd", lw=0.3)
    semi = np.sqrt(2.0 * geo.energy[k] * inertia) / spin0
    ax.plot_wireframe(*np.moveaxis(semi * unit_sphere, -1, 0), color="#f76b15", lw=0.3)
    for loop in loops:
        ax.plot(*(loop / spin0).T, color="#c9a800", lw=1.2)
    trail = geo.spin_body[: k + 1] / spin0
    ax.plot(*trail.T, color="#f5a524", lw=1.5)
    ax.scatter(*trail[-1], color="#f5a524", s=25)
    for i in range(3):
        end = np.zeros(3)
        end[i] = 1.3
        ax.plot(*np.stack([-end, end]).T, color=AXIS_COLORS[i], lw=1)
    lim = 1.2 * max(1.0, float(semi.max()))
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=(-lim, lim))
    ax.set_box_aspect((1, 1, 1), zoom=1.35)
    ax.set_axis_off()
    ax.set_title("body frame: momentum sphere and energy ellipsoid", fontsize=10)
