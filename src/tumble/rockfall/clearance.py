"""How far a rock's hull lies above the terrain: the clearance of a release.

The clearance of a convex rock at a position and orientation is the smallest vertical gap
``z_P - z(x_P, y_P)`` over every point P of its hull, ``z`` the bilinear surface of the DEM
(:mod:`tumble.rockfall.step.surface`). It is measured vertically because that is the gap of the
contact model (Leine et al. 2014, section 3.3: a vertex touches when its vertical gap closes), so
a rock released with clearance ``c`` and no velocity falls exactly ``c`` before its first contact,
on a plain slope as beside an 80 degree face; a gap measured along the normal would put the same
rock 1/cos(80 deg) = 5.8 times higher above a face.

It is exact, not sampled. Over a region where the hull's lower surface is one face (a plane) and
the terrain one bilinear cell, the gap is a bilinear function of (x, y), which has no interior
minimum: the smallest gap lies on the projection of a hull edge or on a grid line. Along a hull
edge, the gap is quadratic in each cell the edge crosses (the cells are walked in order), so its
minimum there is a piece's end or the parabola's vertex; along a grid line under a face it is
linear, so its minimum is at a hull edge or at a grid node. The clearance is therefore the
smallest of (1) the vertices' gaps, (2) each edge's minimum over its cells, (3) the gap between
the hull's lower surface and every grid node under it (a ridge or a cliff edge poking between
the vertices). A hull reaching over a cell with a nodata corner, or beyond the DEM, has no
clearance: :func:`hull_clearance` then says it is not on the terrain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tumble._jit import get_threads, jit, jit_parallel, prange
from tumble.rockfall.step.surface import bilinear

#: a plane of the hull counts as vertical (no part of the lower or upper surface) below this
#: |n_z| of its unit normal
VERTICAL = 1e-12


@jit
def _edge_gap(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    ax: float,
    ay: float,
    az: float,
    bx: float,
    by: float,
    bz: float,
) -> tuple[float, bool]:
    """The smallest vertical gap of the segment A-B above the bilinear surface, exact: the cells
    it crosses walked in order, the gap quadratic along each piece (module docstring)."""
    ex, ey, ez = bx - ax, by - ay, bz - az
    nx = heights.shape[1]
    ny = heights.shape[0]
    steps = int(abs(ex) / dx + abs(ey) / dy) + 4
    best = math.inf
    t = 0.0
    z, inside = bilinear(heights, x0, y0, dx, dy, ax, ay)
    if not inside:
        return math.inf, False
    f0 = az - z
    for _ in range(steps + nx + ny):
        if t >= 1.0:
            break
        x = ax + t * ex
        y = ay + t * ey
        t_next = 1.0
        if ex > 0.0:
            line = x0 + (math.floor((x - x0) / dx) + 1.0) * dx
            t_next = min(t_next, (line - ax) / ex)
        elif ex < 0.0:
            line = x0 + (math.ceil((x - x0) / dx) - 1.0) * dx
            t_next = min(t_next, (line - ax) / ex)
        if ey > 0.0:
            line = y0 + (math.floor((y - y0) / dy) + 1.0) * dy
            t_next = min(t_next, (line - ay) / ey)
        elif ey < 0.0:
            line = y0 + (math.ceil((y - y0) / dy) - 1.0) * dy
            t_next = min(t_next, (line - ay) / ey)
        if not t_next > t:  # round-off on a grid line: step past it
            t_next = min(1.0, t + 1e-12)
        tm = 0.5 * (t + t_next)
        zm, in_m = bilinear(heights, x0, y0, dx, dy, ax + tm * ex, ay + tm * ey)
        z1, in_1 = bilinear(heights, x0, y0, dx, dy, ax + t_next * ex, ay + t_next * ey)
        if not (in_m and in_1):
            return math.inf, False
        fm = az + tm * ez - zm
        f1 = az + t_next * ez - z1
        best = min(best, f0, f1)
        # f(u) = f0 + b u + a u^2 on the piece, u in [0, 1]
        a = 2.0 * (f0 - 2.0 * fm + f1)
        b = -3.0 * f0 + 4.0 * fm - f1
        if a > 0.0:
            u = -b / (2.0 * a)
            if 0.0 < u < 1.0:
                best = min(best, f0 + u * (b + a * u))
        t = t_next
        f0 = f1
    return best, True


@jit
def hull_clearance(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    vertices: np.ndarray,
    edges: np.ndarray,
    planes: np.ndarray,
) -> tuple[float, bool]:
    """``(clearance, on_terrain)`` of a hull in world coordinates: ``vertices`` (m, 3), ``edges``
    (e, 2) pairs of vertex indices, ``planes`` (f, 4) ``(n_x, n_y, n_z, d)`` with ``n . p <= d``
    inside and ``n`` unit. ``on_terrain`` is False (and the clearance undefined) when the hull
    reaches over a cell with a nodata corner or beyond the DEM (module docstring)."""
    best = math.inf
    x_lo, x_hi = math.inf, -math.inf
    y_lo, y_hi = math.inf, -math.inf
    for k in range(vertices.shape[0]):
        px, py, pz = vertices[k, 0], vertices[k, 1], vertices[k, 2]
        z, inside = bilinear(heights, x0, y0, dx, dy, px, py)
        if not inside:
            return math.inf, False
        best = min(best, pz - z)
        x_lo, x_hi = min(x_lo, px), max(x_hi, px)
        y_lo, y_hi = min(y_lo, py), max(y_hi, py)
    for e in range(edges.shape[0]):
        a, b = edges[e, 0], edges[e, 1]
        gap, inside = _edge_gap(
            heights,
            x0,
            y0,
            dx,
            dy,
            vertices[a, 0],
            vertices[a, 1],
            vertices[a, 2],
            vertices[b, 0],
            vertices[b, 1],
            vertices[b, 2],
        )
        if not inside:
            return math.inf, False
        best = min(best, gap)
    # grid nodes under the hull: the gap of its lower surface above each
    i_lo = max(math.ceil((x_lo - x0) / dx), 0)
    i_hi = min(math.floor((x_hi - x0) / dx), heights.shape[1] - 1)
    j_lo = max(math.ceil((y_lo - y0) / dy), 0)
    j_hi = min(math.floor((y_hi - y0) / dy), heights.shape[0] - 1)
    for j in range(j_lo, j_hi + 1):
        y = y0 + j * dy
        for i in range(i_lo, i_hi + 1):
            x = x0 + i * dx
            z_lo, z_hi = -math.inf, math.inf
            under = True
            for f in range(planes.shape[0]):
                n_x, n_y, n_z, d = planes[f, 0], planes[f, 1], planes[f, 2], planes[f, 3]
                rest = d - n_x * x - n_y * y
                if n_z < -VERTICAL:
                    z_lo = max(z_lo, rest / n_z)
                elif n_z > VERTICAL:
                    z_hi = min(z_hi, rest / n_z)
                elif rest < 0.0:
                    under = False
                    break
            if not under or z_lo > z_hi:
                continue
            h = heights[j, i]
            if math.isnan(h):
                return math.inf, False
            best = min(best, z_lo - h)
    return best, True


@jit_parallel
def clearances(
    heights: np.ndarray,
    x0: float,
    y0: float,
    dx: float,
    dy: float,
    position: np.ndarray,
    rotation: np.ndarray,
    shape_id: np.ndarray,
    scale: np.ndarray,
    vertices: np.ndarray,
    n_vertices: np.ndarray,
    edges: np.ndarray,
    n_edges: np.ndarray,
    planes: np.ndarray,
    n_planes: np.ndarray,
    world: np.ndarray,
    world_planes: np.ndarray,
    gap: np.ndarray,
    on_terrain: np.ndarray,
) -> None:
    """:func:`hull_clearance` of n rocks into ``gap`` (n,) and ``on_terrain`` (n,): rock k has
    its centre of mass at ``position[k]`` (n, 3), the rotation ``rotation[k]`` (n, 3, 3, body
    to space) and the hull of shape ``shape_id[k]`` scaled by ``scale[k]``; the shapes' tables
    as :class:`Hulls` holds them (padded, with their counts). The rocks go in B blocks of
    consecutive rocks, one thread a block, each block with its scratch hull ``world[b]``
    (B, M, 3: vertices in space) and ``world_planes[b]`` (B, F, 4: face planes in space); a
    rock's numbers do not depend on the block it is in."""
    n = position.shape[0]
    blocks = world.shape[0]
    for b in prange(blocks):
        for k in range(b * n // blocks, (b + 1) * n // blocks):
            s = shape_id[k]
            f = scale[k]
            r = rotation[k]
            hull = world[b]
            hull_planes = world_planes[b]
            for v in range(n_vertices[s]):
                bx, by, bz = f * vertices[s, v, 0], f * vertices[s, v, 1], f * vertices[s, v, 2]
                for a in range(3):
                    hull[v, a] = position[k, a] + r[a, 0] * bx + r[a, 1] * by + r[a, 2] * bz
            for p in range(n_planes[s]):
                nx, ny, nz = planes[s, p, 0], planes[s, p, 1], planes[s, p, 2]
                offset = f * planes[s, p, 3]
                for a in range(3):
                    hull_planes[p, a] = r[a, 0] * nx + r[a, 1] * ny + r[a, 2] * nz
                    offset += hull_planes[p, a] * position[k, a]
                hull_planes[p, 3] = offset
            gap[k], on_terrain[k] = hull_clearance(
                heights,
                x0,
                y0,
                dx,
                dy,
                hull[: n_vertices[s]],
                edges[s, : n_edges[s]],
                hull_planes[: n_planes[s]],
            )


@dataclass(frozen=True, eq=False)
class Hulls:
    """The hulls of an ensemble's rocks, as :func:`clearances` needs them: per shape s its
    body-frame hull ``vertices[s, :n_vertices[s]]`` (S, M, 3), ``edges[s, :n_edges[s]]``
    (S, E, 2: vertex index pairs) and face ``planes[s, :n_planes[s]]`` (S, F, 4: unit outward
    normal and offset, ``n . p <= d`` inside); per rock its ``shape_id`` (n,) and isotropic
    ``scale`` (n,), the arguments of :class:`tumble.rockfall.ensemble.Ensemble` (None: every
    rock is shape 0 at scale 1)."""

    vertices: np.ndarray
    n_vertices: np.ndarray
    edges: np.ndarray
    n_edges: np.ndarray
    planes: np.ndarray
    n_planes: np.ndarray
    shape_id: np.ndarray | None = None
    scale: np.ndarray | None = None

    @classmethod
    def of(cls, shapes: Any, shape_id: Any = None, scale: Any = None) -> Hulls:
        """The hulls of one :class:`~tumble.rockfall.rock.Rock` or a sequence of them."""
        from tumble.bodies.polyhedron import hull_triangles

        rocks: Sequence[Any] = shapes if isinstance(shapes, list | tuple) else (shapes,)
        vertices, edges, planes = [], [], []
        for rock in rocks:
            points = np.ascontiguousarray(rock.vertices, dtype=np.float64)
            index, triangles, normals = hull_triangles(points)
            hull = points[index]
            sides = [triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]]
            pairs = np.unique(np.sort(np.concatenate(sides), axis=1), axis=0)
            offsets = np.einsum("ij,ij->i", normals, hull[triangles[:, 0]])
            vertices.append(hull)
            edges.append(pairs)
            planes.append(np.column_stack([normals, offsets]))
        ids = None if shape_id is None else np.ascontiguousarray(shape_id, dtype=np.int64)
        scales = None if scale is None else np.ascontiguousarray(scale, dtype=np.float64)
        return cls(
            *_padded(vertices, np.nan),
            *_padded(edges, -1),
            *_padded(planes, np.nan),
            ids,
            scales,
        )

    def shape_of(self, k: int) -> tuple[int, float]:
        """Shape index and scale of rock ``k``."""
        s = 0 if self.shape_id is None else int(self.shape_id[k])
        return s, 1.0 if self.scale is None else float(self.scale[k])

    def of_rock(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Body-frame ``(vertices, edges, planes)`` of rock ``k``, scaled."""
        s, factor = self.shape_of(k)
        planes = self.planes[s, : self.n_planes[s]]
        planes = np.column_stack([planes[:, :3], planes[:, 3] * factor])
        vertices = self.vertices[s, : self.n_vertices[s]] * factor
        return vertices, self.edges[s, : self.n_edges[s]], planes

    def radius(self, k: int) -> float:
        """The largest distance of a vertex of rock ``k`` from its centre of mass, m."""
        return float(np.sqrt((self.of_rock(k)[0] ** 2).sum(axis=1).max()))


def _padded(arrays: Sequence[np.ndarray], fill: float) -> tuple[np.ndarray, np.ndarray]:
    """Arrays of equal trailing shape stacked along a first axis, padded with ``fill``, and
    their lengths."""
    counts = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    dtype = np.int64 if isinstance(fill, int) else np.float64
    out = np.full((len(arrays), int(counts.max()), arrays[0].shape[1]), fill, dtype=dtype)
    for s, a in enumerate(arrays):
        out[s, : a.shape[0]] = a
    return np.ascontiguousarray(out), counts


def rock_clearances(
    terrain: Any, hulls: Hulls, first: int, position: np.ndarray, rotation: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(gap, on_terrain)`` of rocks ``first .. first + n - 1`` of ``hulls`` with their centres
    at ``position`` (n, 3) and rotations ``rotation`` (n, 3, 3, body to space)."""
    n = position.shape[0]
    rocks = slice(first, first + n)
    shape_id = np.zeros(n, dtype=np.int64) if hulls.shape_id is None else hulls.shape_id[rocks]
    scale = np.ones(n) if hulls.scale is None else hulls.scale[rocks]
    gap = np.empty(n)
    on_terrain = np.empty(n, dtype=np.bool_)
    blocks = max(1, min(n, 4 * get_threads()))
    clearances(
        terrain.heights,
        float(terrain.x0),
        float(terrain.y0),
        float(terrain.dx),
        float(terrain.dy),
        np.ascontiguousarray(position, dtype=np.float64),
        np.ascontiguousarray(rotation, dtype=np.float64),
        np.ascontiguousarray(shape_id, dtype=np.int64),
        np.ascontiguousarray(scale, dtype=np.float64),
        hulls.vertices,
        hulls.n_vertices,
        hulls.edges,
        hulls.n_edges,
        hulls.planes,
        hulls.n_planes,
        np.empty((blocks, hulls.vertices.shape[1], 3)),
        np.empty((blocks, hulls.planes.shape[1], 4)),
        gap,
        on_terrain,
    )
    return gap, on_terrain


def clearance(
    terrain: Any,
    hulls: Hulls,
    k: int,
    position: np.ndarray,
    rotation: np.ndarray,
) -> tuple[float, bool]:
    """:func:`hull_clearance` of rock ``k`` of ``hulls`` with its centre of mass at
    ``position`` (3,) and the rotation matrix ``rotation`` (3, 3, body to space)."""
    gap, on_terrain = rock_clearances(
        terrain, hulls, k, np.asarray(position)[None, :], np.asarray(rotation)[None, :, :]
    )
    return float(gap[0]), bool(on_terrain[0])
