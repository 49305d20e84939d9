"""What a report's maps draw over the rasters from the run's ``geometry.json``
(:mod:`tumble.pipeline.geometry`): barrier lines with their names, release areas as outlines
with their names, and the frame of a zoomed map on the overview."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.patheffects import withStroke

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from tumble.rockfall.terrain import Terrain
    from tumble.viz.grids import Window

HALO = [withStroke(linewidth=3.5, foreground="white")]
#: how barrier lines are drawn: a net solid, an observation line dashed, both black on a white
#: halo (no colour of the maps' colour scales)
BARRIER_STYLES = {"net": ("-", 2.6), "line": ((0, (4, 2)), 1.8)}


def _label_side(
    point: np.ndarray, extent: tuple[float, float, float, float] | None
) -> tuple[tuple[float, float], str, str]:
    """Offset (points) and alignment of a name beside ``point`` that keep it inside the map
    ``extent``: to the left of a point in the map's right third, below one in its top tenth."""
    if extent is None:
        return (4.0, 4.0), "left", "bottom"
    left, right, bottom, top = extent
    east = point[0] > left + 2.0 / 3.0 * (right - left)
    north = point[1] > top - 0.1 * (top - bottom)
    return (
        (-4.0 if east else 4.0, -4.0 if north else 4.0),
        "right" if east else "left",
        "top" if north else "bottom",
    )


def draw_barriers(
    ax: Axes,
    geometry: Mapping[str, Any] | None,
    extent: tuple[float, float, float, float] | None = None,
) -> int:
    """Each barrier line of ``geometry`` (nets solid, observation lines dashed, black)
    with its name beside its northernmost point on the map ``extent`` (left, right, bottom,
    top), on the side that keeps the name inside the map; returns how many were drawn."""
    barriers = (geometry or {}).get("barriers") or []
    drawn = {}
    for barrier in barriers:
        line = np.asarray(barrier.get("line") or [], dtype=np.float64).reshape(-1, 2)
        if line.shape[0] < 2:
            continue
        kind = "net" if barrier.get("kind") == "net" else "line"
        label = "barrier (net)" if kind == "net" else "observation line"
        ax.plot(
            line[:, 0],
            line[:, 1],
            color="black",
            lw=BARRIER_STYLES[kind][1],
            linestyle=BARRIER_STYLES[kind][0],
            path_effects=HALO,
            label=None if kind in drawn else label,
            zorder=5,
        )
        drawn[kind] = True
        shown = line
        if extent is not None:
            inside = (
                (line[:, 0] >= extent[0])
                & (line[:, 0] <= extent[1])
                & (line[:, 1] >= extent[2])
                & (line[:, 1] <= extent[3])
            )
            shown = line[inside]
        if shown.shape[0] == 0:
            continue  # no point of the line on the map: no name
        end = shown[np.argmax(shown[:, 1])]  # the name at the northern end: clear of the legend
        offset, ha, va = _label_side(end, extent)
        ax.annotate(
            str(barrier.get("name", "")),
            xy=(end[0], end[1]),
            xytext=offset,
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=8,
            fontweight="bold",
            color="black",
            path_effects=HALO,
            annotation_clip=True,
            zorder=6,
        )
    return sum(1 for b in barriers if len(b.get("line") or []) >= 2)


def release_outlines(geometry: Mapping[str, Any] | None) -> list[tuple[str, np.ndarray]]:
    """The release outlines of ``geometry``: (name, ring (k, 2)) for every ring of every release
    area, or the polygon of a polygon release; empty for points, lines and raster releases."""
    release = (geometry or {}).get("release") or {}
    outlines = []
    if release.get("kind") == "areas":
        for area in release.get("areas") or []:
            for ring in area.get("rings") or []:
                outlines.append((str(area.get("name", "")), np.asarray(ring, dtype=np.float64)))
    elif release.get("kind") == "polygon":
        ring = np.asarray(release.get("coordinates") or [], dtype=np.float64).reshape(-1, 2)
        if ring.shape[0] >= 3:
            outlines.append(("", ring))
    return outlines


def draw_release_areas(ax: Axes, geometry: Mapping[str, Any] | None) -> bool:
    """The outlines of the release areas of ``geometry`` with their names (once per area);
    False if the geometry holds none (the caller then marks the release points)."""
    outlines = release_outlines(geometry)
    named = set()
    for index, (name, ring) in enumerate(outlines):
        closed = np.vstack([ring, ring[:1]])
        ax.plot(
            closed[:, 0],
            closed[:, 1],
            color="black",
            lw=1.3,
            path_effects=HALO,
            label="release area" if index == 0 else None,
            zorder=5,
        )
        if name and name not in named:  # inside the outline: never beside the axes
            named.add(name)
            ax.annotate(
                name,
                xy=(float(ring[:, 0].mean()), float(ring[:, 1].mean())),
                ha="center",
                va="center",
                fontsize=8,
                path_effects=HALO,
                annotation_clip=True,
                zorder=6,
            )
    return bool(outlines)


def draw_frame(ax: Axes, extent: tuple[float, float, float, float]) -> None:
    """The frame ``(left, right, bottom, top)`` of a zoomed map, dashed, on an overview."""
    left, right, bottom, top = extent
    ax.add_patch(
        Rectangle(
            (left, bottom),
            right - left,
            top - bottom,
            fill=False,
            edgecolor="black",
            lw=1.2,
            linestyle=(0, (5, 3)),
            path_effects=HALO,
            label="extent of the detailed maps",
            zorder=6,
        )
    )


#: release cells up to which each is marked; above, the outline of the release area is drawn
MAX_RELEASE_MARKERS = 30


def draw_release_points(
    ax: Axes, terrain: Terrain, window: Window, rocks: Mapping[str, np.ndarray]
) -> None:
    """Release points as triangles at the centres of their cells, or, for more than
    :data:`MAX_RELEASE_MARKERS` cells, the outline of the cells with the gaps between them
    (up to their mean spacing) closed by :func:`tumble.viz.rockfall.envelope_mask`."""
    if "release_x" not in rocks or "release_y" not in rocks:
        return
    x = np.asarray(rocks["release_x"], dtype=np.float64)
    y = np.asarray(rocks["release_y"], dtype=np.float64)
    i = np.floor((x - terrain.x0) / terrain.dx + 0.5) - window.i0
    j = np.floor((y - terrain.y0) / terrain.dy + 0.5) - window.j0
    ny, nx = window.j1 - window.j0, window.i1 - window.i0
    ok = np.isfinite(i) & np.isfinite(j) & (i >= 0) & (j >= 0) & (i < nx) & (j < ny)
    # the cells in row order, as np.unique of the (j, i) rows gives them, from the flat index:
    # marked on the window when it is not much larger than the list, else sorted
    flat = j[ok].astype(np.int64) * nx + i[ok].astype(np.int64)
    if ny * nx <= 8 * flat.size + 1_000_000:
        marked = np.zeros(ny * nx, dtype=bool)
        marked[flat] = True
        flat = np.flatnonzero(marked)
    else:
        flat = np.unique(flat)
    cells = np.column_stack([flat // nx, flat % nx])
    if cells.size == 0:
        return
    cx = terrain.x0 + (cells[:, 1] + window.i0) * terrain.dx
    cy = terrain.y0 + (cells[:, 0] + window.j0) * terrain.dy
    if len(cells) <= MAX_RELEASE_MARKERS:
        ax.plot(
            cx,
            cy,
            linestyle="none",
            marker="^",
            markersize=5,
            markerfacecolor="white",
            markeredgecolor="black",
            markeredgewidth=0.6,
            label="release points",
        )
    else:
        from tumble.viz.rockfall import envelope_mask

        (j0, i0), (j1, i1) = cells.min(axis=0), cells.max(axis=0)
        spacing = math.sqrt((j1 - j0 + 1) * (i1 - i0 + 1) / len(cells))
        radius = max(2, math.ceil(spacing))  # the mean distance between release cells
        pad = radius + 2
        cell_area = np.zeros((j1 - j0 + 1 + 2 * pad, i1 - i0 + 1 + 2 * pad))
        cell_area[cells[:, 0] - j0 + pad, cells[:, 1] - i0 + pad] = 1.0
        area = envelope_mask(cell_area, radius).astype(np.float64)
        gx = terrain.x0 + (np.arange(cell_area.shape[1]) + i0 - pad + window.i0) * terrain.dx
        gy = terrain.y0 + (np.arange(cell_area.shape[0]) + j0 - pad + window.j0) * terrain.dy
        halo = [withStroke(linewidth=3, foreground="white")]
        contour = ax.contour(gx, gy, area, levels=[0.5], colors="black", linewidths=1.2)
        contour.set(path_effects=halo)
        ax.plot([], [], color="black", lw=1.2, path_effects=halo, label="release area")


#: the maps that show where rocks left the DEM
EXIT_MAPS = frozenset({"reach_probability", "deposit_count"})
#: how each kind of exit is drawn: label, marker, face colour
EXIT_MARKERS = {
    "downslope_edge": ("left across the downslope edge", "X", "#111111"),
    "side_edge": ("left across a side edge", "X", "#ff7f00"),
    "nodata_hole": ("fell into a nodata hole", "o", "#00c0e0"),
}


def draw_exits(ax: Axes, exits: Mapping[str, np.ndarray]) -> None:
    """The points where rocks left the DEM, one marker per kind of exit
    (:mod:`tumble.rockfall.exits`)."""
    kind = np.asarray(exits.get("kind", []))
    x = np.asarray(exits.get("x", []), dtype=np.float64)
    y = np.asarray(exits.get("y", []), dtype=np.float64)
    for name, (label, marker, colour) in EXIT_MARKERS.items():
        here = (kind == name) & np.isfinite(x) & np.isfinite(y)
        if here.any():
            ax.plot(
                x[here],
                y[here],
                linestyle="none",
                marker=marker,
                markersize=6,
                markerfacecolor=colour,
                markeredgecolor="white",
                markeredgewidth=0.7,
                label=f"{label} ({int(here.sum())})",
            )
