"""Figures of rockfall runs: hazard maps over a hillshade, one rock's profile, histograms.

* :func:`plot_energy_map`: the maximum kinetic energy of an ensemble over the hillshade of the
  DEM, with the spread envelope (the outline of the cells any rock reached, gaps of a few cells
  between trajectories closed, :func:`envelope_mask`), as Leine et al.
  2021 (seed 000), Fig. 5a/b; an optional second envelope (another run) in red, as in Fig. 5b.
* :func:`plot_profile`: the altitude of the centre of mass and of the terrain below it, and the
  body-frame angular velocity components (x green, y red, z blue, the colours of the paper),
  against the projected distance (arclength of the horizontal projection of the path), as
  Fig. 5c/d.
* :func:`plot_histograms`: run-out and per-rock maximum kinetic energy.
* :func:`plot_envelopes`: the spread envelopes of two runs over the hillshade.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

OMEGA_COLORS = ("tab:green", "tab:red", "tab:blue")


def _extent(terrain) -> tuple[float, float, float, float]:
    ny, nx = terrain.heights.shape
    return (
        terrain.x0 - 0.5 * terrain.dx,
        terrain.x0 + (nx - 0.5) * terrain.dx,
        terrain.y0 - 0.5 * terrain.dy,
        terrain.y0 + (ny - 0.5) * terrain.dy,
    )


def _hillshade(ax, terrain) -> None:
    ax.imshow(
        terrain.hillshade(),
        origin="lower",
        extent=_extent(terrain),
        cmap="gray",
        vmin=0.0,
        vmax=1.0,
        interpolation="nearest",
    )


def envelope_mask(passing, radius_cells: int | None = None) -> np.ndarray:
    """The area any rock reached, with gaps narrower than about ``2 radius_cells`` cells between
    trajectories closed (default: 3 % of the larger grid dimension, at least 3 cells) and holes
    filled: the region inside the spread envelope."""
    from scipy import ndimage

    reached = np.nan_to_num(passing) > 0
    if not reached.any():
        return reached
    r = max(3, round(0.03 * max(reached.shape))) if radius_cells is None else int(radius_cells)
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    disk = xx**2 + yy**2 <= r * r
    padded = np.pad(reached, r + 1)
    closed = ndimage.binary_closing(padded, structure=disk)[r + 1 : -r - 1, r + 1 : -r - 1]
    return ndimage.binary_fill_holes(closed | reached)


def _envelope(ax, terrain, passing, color: str, label: str) -> None:
    reached = envelope_mask(passing).astype(float)
    if not reached.any():
        return
    ax.contour(
        terrain.grid_x,
        terrain.grid_y,
        reached,
        levels=[0.5],
        colors=[color],
        linewidths=1.2,
    )
    ax.plot([], [], color=color, lw=1.2, label=label)


def _crop(ax, terrain, passing_list, margin: float = 10.0) -> None:
    reached = np.zeros(terrain.heights.shape, dtype=bool)
    for passing in passing_list:
        reached |= np.nan_to_num(passing) > 0
    if not reached.any():
        return
    j, i = np.nonzero(reached)
    x, y = terrain.grid_x[i], terrain.grid_y[j]
    x0, x1, y0, y1 = _extent(terrain)
    ax.set_xlim(max(x0, x.min() - margin), min(x1, x.max() + margin))
    ax.set_ylim(max(y0, y.min() - margin), min(y1, y.max() + margin))


def plot_energy_map(
    terrain,
    rasters: dict,
    path,
    title: str = "",
    other_passing=None,
    other_label: str = "",
) -> None:
    """Maximum kinetic energy (kJ) over the hillshade with the spread envelope (Fig. 5a/b)."""
    fig, ax = plt.subplots(figsize=(10, 5))
    _hillshade(ax, terrain)
    energy = np.ma.masked_invalid(rasters["kinetic_energy_max"])
    image = ax.imshow(
        energy,
        origin="lower",
        extent=_extent(terrain),
        cmap="inferno_r",
        alpha=0.85,
        interpolation="nearest",
    )
    fig.colorbar(image, ax=ax, label="maximum kinetic energy (kJ)", shrink=0.8)
    _envelope(ax, terrain, rasters["passing_count"], "black", "spread envelope")
    passing = [rasters["passing_count"]]
    if other_passing is not None:
        _envelope(ax, terrain, other_passing, "red", other_label or "other run")
        passing.append(other_passing)
    _crop(ax, terrain, passing)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_aspect("equal")
    ax.legend(loc="upper right", fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def projected_distance(position: np.ndarray) -> np.ndarray:
    """Arclength of the horizontal projection of a path (n, 3), starting at 0."""
    step = np.hypot(np.diff(position[:, 0]), np.diff(position[:, 1]))
    return np.concatenate([[0.0], np.cumsum(step)])


def plot_profile(trajectory, terrain, path, title: str = "") -> None:
    """Altitude of the centre of mass and of the terrain, and omega components, against the
    projected distance (Fig. 5c/d)."""
    s = projected_distance(trajectory.position)
    inside = terrain.contains(trajectory.position[:, 0], trajectory.position[:, 1])
    ground = np.full(s.shape, np.nan)
    ground[inside] = terrain.height(trajectory.position[inside, 0], trajectory.position[inside, 1])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    top.plot(s, ground, color="saddlebrown", lw=1.5, label="terrain")
    top.plot(s, trajectory.position[:, 2], color="black", lw=1.0, label="centre of mass")
    top.set_ylabel("altitude (m)")
    top.legend(loc="upper right", fontsize=8)
    top.grid(alpha=0.3)
    for k, axis in enumerate("xyz"):
        bottom.plot(
            s, trajectory.omega[:, k], color=OMEGA_COLORS[k], lw=0.9, label=rf"$\omega_{axis}$"
        )
    bottom.set_ylabel("angular velocity, body frame (rad/s)")
    bottom.set_xlabel("projected distance (m)")
    bottom.legend(loc="upper right", ncol=3, fontsize=8)
    bottom.grid(alpha=0.3)
    if title:
        top.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def plot_histograms(rocks: dict, path, title: str = "") -> None:
    """Histograms of the run-out (m) and of each rock's maximum kinetic energy (kJ)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    runout = np.asarray(rocks["runout_m"], dtype=float)
    energy = np.asarray(rocks["kinetic_energy_max_kJ"], dtype=float)
    for ax, values, label in (
        (left, runout, "run-out (m)"),
        (right, energy, "maximum kinetic energy (kJ)"),
    ):
        values = values[np.isfinite(values)]
        ax.hist(values, bins=max(5, min(50, int(np.sqrt(values.size)) + 1)), color="tab:blue")
        ax.set_xlabel(label)
        ax.set_ylabel("rocks")
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def plot_envelopes(terrain, passing_a, passing_b, labels, path, title: str = "") -> None:
    """The spread envelopes of two runs over the hillshade (black: the first, red: the second)."""
    fig, ax = plt.subplots(figsize=(10, 5))
    _hillshade(ax, terrain)
    _envelope(ax, terrain, passing_a, "black", labels[0])
    _envelope(ax, terrain, passing_b, "red", labels[1])
    _crop(ax, terrain, [passing_a, passing_b])
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_aspect("equal")
    ax.legend(loc="upper right", fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
