"""What a report's maps draw over the rasters from the run's ``geometry.json``
(:mod:`tumble.pipeline.geometry`): barrier lines with their names, release areas as outlines
with their names, and the frame of a zoomed map on the overview."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.patheffects import withStroke

if TYPE_CHECKING:
    from matplotlib.axes import Axes

HALO = [withStroke(linewidth=3.5, foreground="white")]
#: how barrier lines are drawn: a net solid, an observation line dashed, both black on a white
#: halo (no colour of the maps' colour scales)
BARRIER_STYLES = {"net": ("-", 2.6), "line": ((0, (4, 2)), 1.8)}


def draw_barriers(ax: Axes, geometry: Mapping[str, Any] | None) -> int:
    """Each barrier line of ``geometry`` (nets solid, observation lines dashed, black)
    with its name beside its last point; returns how many were drawn."""
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
        end = line[np.argmax(line[:, 1])]  # the name at the northern end: clear of the legend
        ax.annotate(
            str(barrier.get("name", "")),
            xy=(end[0], end[1]),
            xytext=(4, 4),
            textcoords="offset points",
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
