"""Figures of rockfall runs: hazard maps over a hillshade, one rock's profile, histograms.

* :func:`plot_energy_map`: the maximum kinetic energy of an ensemble over the hillshade of the
  DEM, with the spread envelope (the outline of the cells any rock reached, gaps of a few cells
  between trajectories closed, :func:`envelope_mask`), as Leine et al.
  2021 (seed 000), Fig. 5a/b; an optional second envelope (another run) in red, as in Fig. 5b.
* :func:`plot_profile`: the altitude of the centre of mass and of the terrain below it, and the
  body-frame angular velocity components (x green, y red, z blue, the colours of the paper),
  against the projected distance (arclength of the horizontal projection of the path), as
  Fig. 5c/d; of a trajectory on a terrain, or of one stored rock of a finished run folder
  (``plot_profile(run_dir, rock=k)``, see :func:`read_run_trajectory`).
* :func:`plot_histograms`: run-out and per-rock maximum kinetic energy.
* :func:`plot_envelopes`: the spread envelopes of two runs over the hillshade.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure

from tumble.io import run_folder as layout
from tumble.io.run_folder import RunPaths
from tumble.viz.png import save_figure

OMEGA_COLORS = ("tab:green", "tab:red", "tab:blue")
#: the subplot parameters of the figures (fractions of the figure), fixed for their sizes and
#: labels rather than laid out from the text's extents when saved (``tight_layout``), which
#: measures every label once more
FIXED_MARGINS = {
    "profile": {"left": 0.1, "right": 0.98, "bottom": 0.09, "top": 0.94, "hspace": 0.08},
    "histograms": {"left": 0.07, "right": 0.98, "bottom": 0.13, "top": 0.89, "wspace": 0.2},
}


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
    filled: the region inside the spread envelope.

    The closing is by the disk of cells ``i^2 + j^2 <= r^2``: a dilation then an erosion, each
    read off an exact Euclidean distance transform (a cell is within the dilation when a
    reached cell lies within ``r`` of it, and stays after the erosion when no cell outside the
    dilation does). The distances are square roots of integers, so comparing them with the
    integer ``r`` is exact, and the mask is that of ``scipy.ndimage.binary_closing`` with the
    disk, in a time that does not grow with the disk's area."""
    from scipy import ndimage

    reached = np.nan_to_num(passing) > 0
    if not reached.any():
        return reached
    r = max(3, round(0.03 * max(reached.shape))) if radius_cells is None else int(radius_cells)
    padded = np.pad(reached, r + 1)  # the dilation stays inside, an empty ring around it
    dilated = ndimage.distance_transform_edt(~padded) <= r
    closed = ndimage.distance_transform_edt(dilated) > r
    return ndimage.binary_fill_holes(closed[r + 1 : -r - 1, r + 1 : -r - 1] | reached)


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


def _energy_view(terrain, rasters, margin: float = 10.0):
    """The DEM and the two rasters of :func:`plot_energy_map` over the cells rocks passed plus
    ``margin`` metres, decimated to at most :data:`tumble.viz.grids.MAX_MAP_CELLS` a side
    (block maxima, every step-th height): ``(terrain, energy, passing)``."""
    from tumble.rockfall.terrain import Terrain
    from tumble.viz.grids import block_max, decimation, window_values

    ny, nx = terrain.heights.shape
    window = getattr(rasters, "window", None)
    if window is not None:
        passing = rasters.in_window("passing_count")
        j0, i0 = window.j0, window.i0
    else:
        passing = np.nan_to_num(np.asarray(rasters["passing_count"], dtype=np.float64))
        j0 = i0 = 0
    j, i = np.nonzero(passing > 0)
    if j.size == 0:
        bounds = (0, ny, 0, nx)
    else:
        mj, mi = math.ceil(margin / terrain.dy), math.ceil(margin / terrain.dx)
        bounds = (
            max(0, j0 + int(j.min()) - mj),
            min(ny, j0 + int(j.max()) + mj + 1),
            max(0, i0 + int(i.min()) - mi),
            min(nx, i0 + int(i.max()) + mi + 1),
        )
    a, b, c, d = bounds
    step = decimation(b - a, d - c)
    heights = terrain.heights[a:b:step, c:d:step]
    if min(heights.shape) < 2:
        return terrain, *(window_values(rasters, k, 0, ny, 0, nx) for k in KEYS)
    sub = Terrain.from_array(
        heights,
        x0=terrain.x0 + c * terrain.dx,
        y0=terrain.y0 + a * terrain.dy,
        dx=terrain.dx * step,
        dy=terrain.dy * step,
    )
    shape = heights.shape
    grids = [
        block_max(window_values(rasters, k, a, b, c, d), step)[: shape[0], : shape[1]] for k in KEYS
    ]
    return sub, *grids


#: the rasters of the energy map
KEYS = ("kinetic_energy_max", "passing_count")


#: the energy map's room in inches: the map at most this wide and high (its aspect kept), and
#: the margins around it (tick labels and axis labels left and below, the title above, the
#: colour bar and its label right)
ENERGY_MAP_ROOM = {
    "width": 7.5,
    "height": 5.5,
    "left": 1.05,
    "right": 1.35,
    "bottom": 0.65,
    "top": 0.45,
}


def plot_energy_map(
    terrain,
    rasters,
    path,
    title: str = "",
    other_passing=None,
    other_label: str = "",
) -> None:
    """Maximum kinetic energy (kJ) over the hillshade with the spread envelope (Fig. 5a/b).

    Drawn over the cells rocks passed (plus 10 m), from decimated grids on a large DEM
    (:mod:`tumble.viz.grids`); ``other_passing`` (the passing counts of another run on the same
    DEM) is drawn on the whole DEM as before. The figure takes the shape of the map (at most
    :data:`ENERGY_MAP_ROOM` inches), so the map fills it; the ticks are whole coordinates in
    the DEM's CRS, as many as the map's width has room for."""
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    crs = getattr(terrain, "crs", None)
    fig = Figure()
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    if other_passing is None:
        terrain, energy_grid, passing_grid = _energy_view(terrain, rasters)
    else:
        energy_grid, passing_grid = rasters["kinetic_energy_max"], rasters["passing_count"]
    _hillshade(ax, terrain)
    energy = np.ma.masked_invalid(energy_grid)
    image = ax.imshow(
        energy,
        origin="lower",
        extent=_extent(terrain),
        cmap="inferno_r",
        alpha=0.85,
        interpolation="nearest",
    )
    _envelope(ax, terrain, passing_grid, "black", "spread envelope")
    passing = [passing_grid]
    if other_passing is not None:
        _envelope(ax, terrain, other_passing, "red", other_label or "other run")
        passing.append(other_passing)
    _crop(ax, terrain, passing)
    # the figure in the map's shape: the map fills its room, the margins hold the labels
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    room = ENERGY_MAP_ROOM
    scale = min(room["width"] / (x1 - x0), room["height"] / (y1 - y0))
    map_w, map_h = (x1 - x0) * scale, (y1 - y0) * scale
    fig_w = room["left"] + max(map_w, 3.0) + room["right"]
    fig_h = room["bottom"] + map_h + room["top"]
    fig.set_size_inches(fig_w, fig_h)
    left = room["left"] + 0.5 * (max(map_w, 3.0) - map_w)
    ax.set_position((left / fig_w, room["bottom"] / fig_h, map_w / fig_w, map_h / fig_h))
    bar = fig.add_axes(
        ((left + map_w + 0.15) / fig_w, room["bottom"] / fig_h, 0.15 / fig_w, map_h / fig_h)
    )
    fig.colorbar(image, cax=bar, label="maximum kinetic energy (kJ)")
    # whole coordinates, no offset, about one tick per 1.1 inch of the map
    for axis, inches in ((ax.xaxis, map_w), (ax.yaxis, map_h)):
        axis.set_major_locator(MaxNLocator(nbins=max(2, int(inches / 1.1)), steps=[1, 2, 2.5, 5]))
        formatter = ScalarFormatter(useOffset=False)
        formatter.set_scientific(False)
        axis.set_major_formatter(formatter)
    ax.tick_params(labelsize=8)
    ax.set_xlabel("Easting (m)" if crs is not None else "x (m)")
    ax.set_ylabel("Northing (m)" if crs is not None else "y (m)")
    ax.legend(loc="upper right", fontsize=8)
    if title:
        ax.set_title(title, fontsize=11)
    save_figure(fig, path, 130)


def projected_distance(position: np.ndarray) -> np.ndarray:
    """Arclength of the horizontal projection of a path (n, 3), starting at 0."""
    step = np.hypot(np.diff(position[:, 0]), np.diff(position[:, 1]))
    return np.concatenate([[0.0], np.cumsum(step)])


@dataclass(frozen=True)
class StoredTrajectory:
    """One rock's trajectory read back from a run folder (the columns a profile needs).

    ``rock`` is the rock's index in the run, ``source`` the file it was read from.
    """

    rock: int
    t: np.ndarray
    position: np.ndarray
    omega: np.ndarray
    source: Path


def _run_folder(run_dir: str | os.PathLike[str]) -> Path:
    folder = Path(run_dir)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a rockfall run folder: no such directory")
    dem = RunPaths(folder).dem
    stored = [folder / layout.TRAJECTORY_PARQUET, folder / layout.TRAJECTORIES_PARQUET]
    if not dem.is_file() or not any(p.is_file() for p in stored):
        raise ValueError(
            f"{folder} is not a rockfall run folder (tumble rockfall run --out): it needs "
            "rasters/dem.tif and trajectory.parquet or trajectories.parquet"
        )
    return folder


def read_run_trajectory(run_dir: str | os.PathLike[str], rock: int = 0) -> StoredTrajectory:
    """The trajectory of rock ``rock`` stored in a run folder of ``tumble rockfall run``.

    Rock 0 of a one-rock run comes from ``trajectory.parquet`` (every step); any other rock from
    ``trajectories.parquet``, the sample of ``output.trajectories`` rocks (stratified over release
    areas and rock classes, rock 0 always), every ``output.trajectory_every`` steps. ValueError
    when the folder is not a run or rock ``rock`` was not stored (naming the rocks that were).
    """
    import pyarrow.parquet as pq

    folder = _run_folder(run_dir)
    if isinstance(rock, bool) or not isinstance(rock, int | np.integer) or rock < 0:
        raise ValueError(f"rock must be a non-negative integer, got {rock!r}")
    rock = int(rock)
    names = ["t", "x", "y", "z", "omega_x", "omega_y", "omega_z"]
    single = folder / "trajectory.parquet"
    sample = folder / layout.TRAJECTORIES_PARQUET
    if rock == 0 and single.is_file():
        table = pq.read_table(single, columns=names)
        columns = {name: table.column(name).to_numpy() for name in names}
        source = single
    else:
        if not sample.is_file():  # a one-rock run without the sample: rock 0 only
            raise ValueError(
                f"rock {rock} is not stored in {folder}: trajectory.parquet holds rock 0 only"
            )
        table = pq.read_table(sample, columns=["rock", *names])
        rocks = np.asarray(table.column("rock").to_numpy(), dtype=np.int64)
        stored = [int(r) for r in np.unique(rocks)]
        keep = rocks == rock
        if not keep.any():
            raise ValueError(
                f"rock {rock} is not stored in {folder}: trajectories.parquet holds rock(s) "
                f"{', '.join(map(str, stored)) or 'none'} (raise output.trajectories to keep more)"
            )
        columns = {name: table.column(name).to_numpy()[keep] for name in names}
        source = sample
    data = {name: np.asarray(columns[name], dtype=np.float64) for name in names}
    order = np.argsort(data["t"], kind="stable")
    return StoredTrajectory(
        rock=rock,
        t=data["t"][order],
        position=np.column_stack([data[c][order] for c in ("x", "y", "z")]),
        omega=np.column_stack([data[f"omega_{c}"][order] for c in "xyz"]),
        source=source,
    )


def _run_title(folder: Path, trajectory: StoredTrajectory) -> str:
    """``Rock k, <scheme> scheme (<status> after <t> s)`` from summary.json and deposits.csv."""
    import contextlib
    import csv
    import json

    title = f"Rock {trajectory.rock}"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        title += f", {json.loads((folder / 'summary.json').read_text())['scheme']} scheme"
    try:
        with (folder / layout.DEPOSITS_CSV).open(newline="") as f:
            row = next(r for r in csv.DictReader(f) if r.get("rock") == str(trajectory.rock))
        title += f" ({row['status']} after {float(row['t_s']):.1f} s)"
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        pass
    return title


def plot_profile(
    trajectory,
    terrain=None,
    path: str | os.PathLike[str] | None = None,
    title: str | None = None,
    *,
    rock: int = 0,
) -> Path:
    """Altitude of the centre of mass and of the terrain, and omega components, against the
    projected distance (Fig. 5c/d).

    Two call forms:

    * ``plot_profile(trajectory, terrain, path, title="")``: a trajectory (``position`` (n, 3),
      ``omega`` (n, 3)) on a :class:`tumble.rockfall.Terrain`, written to ``path``;
    * ``plot_profile(run_dir, rock=k, path=None, title=None)``: rock ``k`` of a finished run
      folder of ``tumble rockfall run`` (:func:`read_run_trajectory`) on the run's
      ``rasters/dem.tif``, written by default to ``run_dir/figures/profile_rock<k>.png``.

    Returns the path of the PNG written.
    """
    if isinstance(trajectory, str | os.PathLike):
        from tumble.rockfall import Terrain

        if terrain is not None:
            raise TypeError(
                "plot_profile(run_dir, ...) reads the run's own rasters/dem.tif: pass no terrain"
            )
        folder = _run_folder(trajectory)
        stored = read_run_trajectory(folder, rock)
        terrain = Terrain.from_file(RunPaths(folder).dem)
        if path is None:
            path = folder / layout.FIGURES / f"profile_rock{stored.rock}.png"
            path.parent.mkdir(exist_ok=True)
        if title is None:
            title = _run_title(folder, stored)
        trajectory = stored
    elif terrain is None or path is None:
        raise TypeError(
            "plot_profile(trajectory, terrain, path) needs the terrain and the output path; "
            "or call plot_profile(run_dir, rock=k) on a run folder"
        )
    s = projected_distance(trajectory.position)
    inside = terrain.contains(trajectory.position[:, 0], trajectory.position[:, 1])
    ground = np.full(s.shape, np.nan)
    ground[inside] = terrain.height(trajectory.position[inside, 0], trajectory.position[inside, 1])
    fig = Figure(figsize=(9, 6))
    top, bottom = fig.subplots(2, 1, sharex=True)
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
    fig.subplots_adjust(**FIXED_MARGINS["profile"])
    save_figure(fig, path, 130)
    return Path(path)


def plot_histograms(rocks: dict, path, title: str = "") -> None:
    """Histograms of the run-out (m) and of each rock's maximum kinetic energy (kJ)."""
    fig = Figure(figsize=(10, 4))
    left, right = fig.subplots(1, 2)
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
    fig.subplots_adjust(**FIXED_MARGINS["histograms"])
    save_figure(fig, path, 130)


def plot_envelopes(terrain, passing_a, passing_b, labels, path, title: str = "") -> None:
    """The spread envelopes of two runs over the hillshade (black: the first, red: the second)."""
    fig = Figure(figsize=(10, 5))
    ax = fig.subplots()
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
    save_figure(fig, path, 130)
