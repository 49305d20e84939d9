"""Figures of a soil calibration (``tumble rockfall calibrate``, its ``report.html``), drawn from
plain arrays:

* :func:`plot_runout_cdfs`: the observed and the simulated run-out CDFs;
* :func:`plot_stops_map`: the observed and the simulated stops (and the releases) over the
  hillshade of the DEM, cropped to them;
* :func:`plot_parameter_pairs`: every pair of free fields, each evaluated set a point, the
  equivalent sets (the data cannot reject them) coloured by their KS p-value, the best marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure

#: margin (m) around the points of the stops map, at least
MAP_MARGIN = 10.0


def plot_runout_cdfs(observed: np.ndarray, simulated: np.ndarray, label: str) -> Figure:
    """Empirical CDFs of the observed and the simulated (``label``) run-outs (m)."""
    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    for data, name in ((observed, "observed"), (simulated, label)):
        x = np.sort(np.asarray(data, dtype=np.float64))
        if x.size:
            ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", label=name)
    ax.set_xlabel("horizontal run-out (m)")
    ax.set_ylabel("share of blocks")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_stops_map(
    terrain: Any,
    release: np.ndarray,
    observed: np.ndarray,
    simulated: np.ndarray,
    label: str,
) -> Figure:
    """The releases (n, 2), observed stops (n, 2) and simulated stops (m, 2) over the DEM's
    hillshade, on the window of the DEM holding them with :data:`MAP_MARGIN` around."""
    points = np.vstack([release, observed, simulated])
    low = points.min(axis=0) - MAP_MARGIN
    high = points.max(axis=0) + MAP_MARGIN
    ny, nx = terrain.heights.shape
    i = np.clip(np.round((np.array([low[0], high[0]]) - terrain.x0) / terrain.dx), 0, nx - 1)
    j = np.clip(np.round((np.array([low[1], high[1]]) - terrain.y0) / terrain.dy), 0, ny - 1)
    i0, i1, j0, j1 = int(i[0]), int(i[1]) + 1, int(j[0]), int(j[1]) + 1
    shade = terrain.hillshade()[j0:j1, i0:i1]
    extent = (
        terrain.x0 + (i0 - 0.5) * terrain.dx,
        terrain.x0 + (i1 - 0.5) * terrain.dx,
        terrain.y0 + (j0 - 0.5) * terrain.dy,
        terrain.y0 + (j1 - 0.5) * terrain.dy,
    )
    fig = Figure(figsize=(7, 6))
    ax = fig.add_subplot()
    ax.imshow(shade, origin="lower", extent=extent, cmap="gray", vmin=0.0, vmax=1.0)
    style: dict[str, dict[str, Any]] = {
        label: {"s": 6, "c": "tab:orange", "alpha": 0.5, "linewidths": 0},
        "observed stops": {"s": 18, "c": "tab:blue", "edgecolors": "white", "linewidths": 0.5},
        "releases": {"s": 40, "marker": "^", "c": "black"},
    }
    for points_of, (name, kwargs) in zip(
        (simulated, observed, release), style.items(), strict=True
    ):
        ax.scatter(points_of[:, 0], points_of[:, 1], label=name, **kwargs)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def plot_parameter_pairs(
    names: Sequence[str],
    values: np.ndarray,
    pvalue: np.ndarray,
    equivalent: np.ndarray,
    best: int,
    ks_level: float,
) -> Figure:
    """Every pair of free fields ``names``: ``values`` (sets, fields), the evaluated sets grey,
    the equivalent ones (``equivalent`` (sets,) bool) coloured by ``pvalue``, set ``best`` a
    star. One field: its value against the KS p-value, with the level ``ks_level``."""
    d = len(names)
    if d == 1:
        fig = Figure(figsize=(6, 4))
        ax = fig.add_subplot()
        ax.scatter(values[:, 0], pvalue, c=np.where(equivalent, "tab:blue", "lightgrey"), s=18)
        ax.scatter(values[best, 0], pvalue[best], marker="*", s=200, c="tab:red", label="best")
        ax.axhline(ks_level, color="grey", linestyle="--", linewidth=1, label="KS level")
        ax.set_xlabel(names[0])
        ax.set_ylabel("KS p-value of the run-out")
        ax.legend(fontsize=8)
        fig.tight_layout()
        return fig
    fig = Figure(figsize=(2.6 * (d - 1) + 1.0, 2.6 * (d - 1)))
    grid = fig.add_gridspec(d - 1, d - 1)
    shown = None
    for row in range(1, d):
        for col in range(row):
            ax = fig.add_subplot(grid[row - 1, col])
            ax.scatter(values[~equivalent, col], values[~equivalent, row], s=10, c="lightgrey")
            shown = ax.scatter(
                values[equivalent, col],
                values[equivalent, row],
                s=16,
                c=pvalue[equivalent],
                cmap="viridis",
                vmin=ks_level,
                vmax=1.0,
            )
            ax.scatter(values[best, col], values[best, row], marker="*", s=160, c="tab:red")
            if row == d - 1:
                ax.set_xlabel(names[col], fontsize=8)
            if col == 0:
                ax.set_ylabel(names[row], fontsize=8)
            ax.tick_params(labelsize=7)
    if shown is not None and equivalent.any():
        fig.colorbar(shown, ax=fig.axes, label="KS p of the equivalent sets", shrink=0.8)
    return fig
