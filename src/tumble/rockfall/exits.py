"""Where rocks leave the DEM, and through what: its downslope edge, a side edge, or a nodata hole.

A rock leaves the DEM (status ``left_domain``) in the step whose midpoint puts its centre of mass
or one of its hull vertices off the terrain (:func:`tumble.rockfall.step.moreau.rock_step`):
beyond the grid's outer samples, or in a cell with a nodata corner. Its final state is the last
one on the terrain, and :func:`exit_points` recomputes from it the point that left: the centre
of mass at the midpoint of that step if it was off the terrain, else the first hull vertex off
it, in the kernel's order. That point lies beyond the edge of the valid area by no more than the
travel of one step.

The outside of the DEM (:class:`Outside`): the nodata samples and a ring of samples around the
grid, joined where they touch (8-neighbours, so that the cells a sample takes out of the
surface, the four around it, join those of its neighbours). The part holding the ring is the
outside of the DEM's footprint: the area beyond the grid and the nodata margin of an irregular
footprint that reaches the grid's border. Every other part is a **nodata hole**: nodata inside
the footprint, not connected to the grid's border.

The kind of an exit (:func:`classify_exits`):

* ``nodata_hole``: the point that left lies in a hole;
* ``downslope_edge``: it lies outside the footprint and the rock's horizontal direction of motion
  (its velocity in the last step; the direction from its release point to the exit point if it
  had none) lies within :data:`DOWNSLOPE_ANGLE_DEG` (45 degrees) of the terrain's general fall
  line there: the direction of steepest descent of the least-squares plane through the DEM's
  samples within :data:`FALL_LINE_RADIUS` (25 m, at least 2 cells) of the rock's last centre of
  mass. Where that plane is flatter than :data:`FLAT_GRADIENT` (a 2 % gradient, about 1.1 degrees),
  the rock's general direction of travel, from its release point to the exit point, stands for
  the fall line (a rock rolling off the far edge of a flat run-out zone left it downslope);
* ``side_edge``: outside the footprint, moving more than 45 degrees off that direction: across
  the slope, or up it.

What each means for the results, and what to do, is in
:func:`tumble.rockfall.ensemble.censoring.exit_warnings`: a downslope exit
truncates the run-out (extend the DEM downslope), a side exit the lateral spread (extend it
beyond the sides), and a hole in the run-out path loses the rocks that reach it (fill the hole,
or accept that rocks are lost there).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble.rockfall.step.model import S_OMEGA, S_P, S_R, S_V
from tumble.rockfall.step.surface import bilinear_batch
from tumble.rotation.quaternion import quat_mul, quat_normalize, quat_rotate

#: the kinds of exit, in the order of every table
EXIT_KINDS = ("downslope_edge", "side_edge", "nodata_hole")
#: largest angle between the direction of motion and the fall line of a downslope exit, degrees
DOWNSLOPE_ANGLE_DEG = 45.0
#: radius of the terrain around an exit whose plane gives the general fall line, m
FALL_LINE_RADIUS = 25.0
#: gradient below which the terrain around an exit counts as flat (no fall line)
FLAT_GRADIENT = 0.02


@dataclass(frozen=True, eq=False)
class Outside:
    """The outside of a DEM (module docstring): ``labels`` (ny + 2, nx + 2) the part of each
    sample of the grid padded by a ring of outside samples (0: a sample with a height, else the
    label of its part), ``margin`` the label of the part outside the footprint, ``holes`` the
    labels of the nodata holes, in order."""

    labels: np.ndarray
    margin: int
    holes: tuple[int, ...]

    @classmethod
    def of(cls, heights: np.ndarray) -> Outside:
        """The outside of a DEM with these heights (NaN: nodata)."""
        from scipy import ndimage

        ny, nx = heights.shape
        nodata = np.ones((ny + 2, nx + 2), dtype=bool)
        nodata[1:-1, 1:-1] = np.isnan(heights)
        labels, count = ndimage.label(nodata, structure=np.ones((3, 3), dtype=bool))
        margin = int(labels[0, 0])
        holes = tuple(k for k in range(1, count + 1) if k != margin)
        return cls(labels, margin, holes)

    def part_at(self, terrain: Any, x: float, y: float) -> int:
        """The label of the part of the outside that the point (x, y) lies in: the margin beyond
        the grid, else that of a nodata corner of its cell (the cell of
        :mod:`tumble.rockfall.step.surface`); 0 for a point on the terrain."""
        ny, nx = terrain.heights.shape
        u = (x - terrain.x0) / terrain.dx
        v = (y - terrain.y0) / terrain.dy
        if not (0.0 <= u <= nx - 1 and 0.0 <= v <= ny - 1):
            return self.margin
        k, j = min(int(u), nx - 2), min(int(v), ny - 2)
        corners = self.labels[j + 1 : j + 3, k + 1 : k + 3]
        found = corners[corners > 0]
        return int(found[0]) if found.size else 0

    def hole_record(self, terrain: Any, label: int) -> dict[str, Any]:
        """Where a hole is: the centroid ``x``, ``y`` of its nodata samples, their number
        (``cells``) and area (``area_m2``, samples times the cell area), and its extent
        ``x_min .. y_max`` (sample centres)."""
        j, i = np.nonzero(self.labels == label)
        x = terrain.x0 + (i - 1) * terrain.dx
        y = terrain.y0 + (j - 1) * terrain.dy
        return {
            "x": float(x.mean()),
            "y": float(y.mean()),
            "cells": int(i.size),
            "area_m2": float(i.size * terrain.dx * terrain.dy),
            "x_min": float(x.min()),
            "x_max": float(x.max()),
            "y_min": float(y.min()),
            "y_max": float(y.max()),
        }


def on_terrain(terrain: Any, x: Any, y: Any) -> np.ndarray:
    """Whether each point (x, y) lies on the terrain's surface (the test of the step kernel),
    for any terrain with ``heights``, ``x0``, ``y0``, ``dx``, ``dy``."""
    xs = np.ascontiguousarray(np.atleast_1d(x), dtype=np.float64)
    ys = np.ascontiguousarray(np.atleast_1d(y), dtype=np.float64)
    out = np.empty(xs.size)
    inside = np.empty(xs.size, dtype=np.bool_)
    heights = np.ascontiguousarray(terrain.heights, dtype=np.float64)
    g = (float(terrain.x0), float(terrain.y0), float(terrain.dx), float(terrain.dy))
    bilinear_batch(heights, *g, xs, ys, out, inside)
    return inside


def exit_points(
    terrain: Any, states: np.ndarray, vertices: Sequence[np.ndarray], dt: float
) -> np.ndarray:
    """The point of each rock that left the terrain (module docstring), (m, 3): ``states`` (m,
    STATE_SIZE) the rocks' final states, ``vertices[i]`` the hull of rock i in its principal
    frame (scaled), ``dt`` the step. The midpoint configuration is that of :func:`rock_step`:
    ``r_M = r + dt v / 2``, ``p_M = normalise(p + dt/2 F(p) omega)``."""
    states = np.asarray(states, dtype=np.float64)
    h = 0.5 * dt
    points = np.empty((states.shape[0], 3))
    for i, state in enumerate(states):
        centre = state[S_R : S_R + 3] + h * state[S_V : S_V + 3]
        points[i] = centre
        if not on_terrain(terrain, centre[0], centre[1])[0]:
            continue
        p = state[S_P : S_P + 4]
        spin = quat_mul(p, np.concatenate(([0.0], state[S_OMEGA : S_OMEGA + 3])))
        p_m = quat_normalize(p + (0.5 * h / np.linalg.norm(p)) * spin)
        hull = centre + quat_rotate(p_m, np.asarray(vertices[i], dtype=np.float64))
        off = ~on_terrain(terrain, hull[:, 0], hull[:, 1])
        if off.any():
            points[i] = hull[int(np.argmax(off))]
    return points


def fall_line(terrain: Any, x: float, y: float, radius: float = FALL_LINE_RADIUS) -> np.ndarray:
    """The terrain's general fall line at (x, y): the unit horizontal direction of steepest
    descent of the least-squares plane through the samples with a height within ``radius`` (at
    least two cells) of it; zeros where that plane is flatter than :data:`FLAT_GRADIENT` or
    fewer than three samples are near."""
    ny, nx = terrain.heights.shape
    reach = max(radius, 2.0 * max(terrain.dx, terrain.dy))
    i0 = max(0, math.floor((x - reach - terrain.x0) / terrain.dx))
    i1 = min(nx, math.ceil((x + reach - terrain.x0) / terrain.dx) + 1)
    j0 = max(0, math.floor((y - reach - terrain.y0) / terrain.dy))
    j1 = min(ny, math.ceil((y + reach - terrain.y0) / terrain.dy) + 1)
    if i0 >= i1 or j0 >= j1:
        return np.zeros(2)
    z = terrain.heights[j0:j1, i0:i1]
    gx = terrain.x0 + np.arange(i0, i1) * terrain.dx - x
    gy = terrain.y0 + np.arange(j0, j1) * terrain.dy - y
    px, py = np.meshgrid(gx, gy)
    near = np.isfinite(z) & (px * px + py * py <= reach * reach)
    if near.sum() < 3:
        return np.zeros(2)
    design = np.column_stack([np.ones(int(near.sum())), px[near], py[near]])
    coef, *_ = np.linalg.lstsq(design, z[near], rcond=None)
    gradient = coef[1:]
    size = float(np.hypot(*gradient))
    if not size > FLAT_GRADIENT:
        return np.zeros(2)
    return -gradient / size


def _unit(v: np.ndarray) -> np.ndarray:
    size = float(np.hypot(v[0], v[1]))
    return v[:2] / size if size > 0.0 else np.zeros(2)


def classify_exits(
    terrain: Any,
    points: np.ndarray,
    velocity: np.ndarray,
    centre: np.ndarray,
    release: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, Outside | None]:
    """The kind of each exit (module docstring) and the hole it went into: ``points`` (m, 2+)
    the points that left (:func:`exit_points`), ``velocity`` (m, 2+) the rocks' velocities in
    their last step, ``centre`` (m, 2+) their last centres of mass, ``release`` (m, 2+) their
    release points. Returns ``(kinds (m,) of EXIT_KINDS, hole (m,) 1-based index into
    outside.holes or 0 for an edge, outside)``; ``outside`` is None for a DEM without nodata
    (every exit is then an edge)."""
    m = points.shape[0]
    kinds = np.empty(m, dtype=object)
    hole = np.zeros(m, dtype=np.int64)
    outside = Outside.of(terrain.heights) if m and np.isnan(terrain.heights).any() else None
    number = {label: k + 1 for k, label in enumerate(outside.holes)} if outside else {}
    cos_limit = math.cos(math.radians(DOWNSLOPE_ANGLE_DEG))
    for i in range(m):
        x, y = float(points[i, 0]), float(points[i, 1])
        part = outside.part_at(terrain, x, y) if outside is not None else 0
        if part in number:
            kinds[i] = "nodata_hole"
            hole[i] = number[part]
            continue
        travel = _unit(points[i, :2] - release[i, :2])
        motion = _unit(velocity[i, :2])
        if not motion.any():
            motion = travel
        reference = fall_line(terrain, float(centre[i, 0]), float(centre[i, 1]))
        if not reference.any():
            reference = travel
        downslope = not (motion.any() and reference.any()) or motion @ reference >= cos_limit
        kinds[i] = "downslope_edge" if downslope else "side_edge"
    return kinds, hole, outside


def exit_table(
    terrain: Any,
    rock: np.ndarray,
    states: np.ndarray,
    vertices: Sequence[np.ndarray],
    bodies: np.ndarray,
    release: np.ndarray,
    dt: float,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The exits of the rocks ``rock`` (m,) that left the DEM, from their final ``states`` (m,
    STATE_SIZE), hulls, ``bodies`` (m, 4: mass and principal moments) and release points (m, 2+):
    the table ``rock``, ``x``, ``y``, ``z`` (the point that left), ``kind``, ``hole`` (1-based,
    0 for an edge), ``kinetic_energy_kJ`` and ``velocity_ms`` in the rock's last step; and one
    record per hole rocks went into, with its number (``hole``), location
    (:meth:`Outside.hole_record`) and ``rocks``."""
    states = np.asarray(states, dtype=np.float64)
    points = exit_points(terrain, states, vertices, dt)
    velocity = states[:, S_V : S_V + 3]
    kinds, hole, outside = classify_exits(
        terrain, points, velocity, states[:, S_R : S_R + 3], np.asarray(release)
    )
    omega = states[:, S_OMEGA : S_OMEGA + 3]
    energy = 0.5 * (
        bodies[:, 0] * np.sum(velocity**2, axis=1) + np.sum(bodies[:, 1:] * omega**2, 1)
    )
    table = {
        "rock": np.asarray(rock, dtype=np.int64),
        "x": points[:, 0],
        "y": points[:, 1],
        "z": points[:, 2],
        "kind": kinds.astype(str) if kinds.size else np.zeros(0, dtype="<U14"),
        "hole": hole,
        "kinetic_energy_kJ": energy * 1e-3,
        "velocity_ms": np.linalg.norm(velocity, axis=1),
    }
    holes = []
    if outside is not None:
        for k in np.unique(hole[hole > 0]):
            record = outside.hole_record(terrain, outside.holes[int(k) - 1])
            holes.append({"hole": int(k), **record, "rocks": int(np.sum(hole == k))})
    return table, holes


def kind_counts(kinds: np.ndarray, n_rocks: int) -> dict[str, Any]:
    """``{"counts": kind -> rocks, "fractions": kind -> rocks / n_rocks}`` (None for no rocks)."""
    kinds = np.asarray(kinds)
    counts = {kind: int(np.sum(kinds == kind)) for kind in EXIT_KINDS}
    fractions = {kind: (c / n_rocks if n_rocks else None) for kind, c in counts.items()}
    return {"counts": counts, "fractions": fractions}


def exit_summary(
    table: Mapping[str, np.ndarray], holes: list[dict[str, Any]], n_rocks: int
) -> dict[str, Any]:
    """``summary.json["exits"]``: the rocks that left, their ``counts`` and ``fractions`` (of
    all ``n_rocks``) per kind, the holes they went into, and the rule of the kinds."""
    return {
        "rocks": int(np.asarray(table["rock"]).size),
        **kind_counts(table["kind"], n_rocks),
        "holes": holes,
        "rule": (
            f"nodata_hole: nodata inside the DEM's footprint, not connected to the grid's border; "
            f"otherwise downslope_edge when the rock moved within {DOWNSLOPE_ANGLE_DEG:g} degrees "
            f"of the terrain's fall line (least-squares plane within {FALL_LINE_RADIUS:g} m; on "
            f"terrain flatter than {100 * FLAT_GRADIENT:g} %, the direction from its release "
            "point), else side_edge"
        ),
    }
