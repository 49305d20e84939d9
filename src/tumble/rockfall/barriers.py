"""Barrier lines and nets: where a fence may stand, as the engine sees it.

A :class:`Barrier` is a named polyline in DEM coordinates (x, y). Without ``height`` and
``capacity`` it is an *observation line* (kind ``"line"``): rocks crossing it are recorded and
fly on. With a height (m) and/or a capacity (kJ) it is a *net* (kind ``"net"``) that acts in the
simulation: a rock reaching it below its height with no more energy than its capacity is caught,
one passing above overtops, one with more energy breaks through.

A line is checked once, when the :class:`Barrier` is made (at least two points, finite, no
repeated consecutive point, not crossing itself); a run's barriers come from its configuration
through :func:`tumble.rockfall.site.barrier_files.barriers_from_config`.

Uphill side. Every barrier has an *uphill* side, ``"left"`` or ``"right"`` of its line seen
along it from its first point to its last: the side the rocks come from. A crossing from the
uphill side to the other (the protected, downslope side) is *downslope*, whatever the slope of
the terrain at the line (a counter-slope, the foot of a dam, the flank of a gully); one the other
way is *upslope*. Nets act on downslope crossings only, and the design values of a fence are
taken over each rock's first downslope crossing. The side is given (``Barrier(uphill=...)``, the
``uphill`` key of a ``[[barrier]]`` table) or decided from where the rocks start:

* the starting points (weighted; :func:`release_shares`) are put on the left or the right of the
  line by the point of the line nearest to each (:func:`point_sides`): on the side of the
  segment there, or at a vertex on the side of the wedge the two segments meeting there make;
  beyond an end of the line, on the side of its end segment extended straight. A point on the
  line, or on such an extension, counts on neither side;
* the side that holds at least :data:`UPHILL_MAJORITY` (two thirds) of the weight is uphill;
  when neither does (the rocks start on both sides of the line), nothing is decided and the
  caller refuses the barrier, asking for ``uphill``.

A run decides from its release as a whole (:meth:`tumble.rockfall.release.Release.footprint`:
the release point, points along a release line, a lattice over each release polygon or area
weighted by its share of the rocks, the cells of a source raster weighted by their values;
:mod:`tumble.rockfall.site.barrier_files` reports the shares and warns about a minority on the
protected side of a net; an observation line decided so judges each crossing from the side its
rock started on, :func:`tumble.rockfall.ensemble.crossings.directions_from_starts`, and takes the
rocks of sources on both sides). A barrier handed to the engine without a side
(``uphill=None``) is decided from the starting points of the rocks that meet it
(:func:`with_uphill`: the ensemble's rocks, the one rock of
:func:`tumble.rockfall.simulate.simulate`, the first sample of each replayed rock).

:func:`pack_barriers` lays all barriers out as flat arrays for the compiled kernels
(:class:`BarrierArrays`), and :func:`segment_crossing` is the kernel's crossing test of one step
of a rock's path against one barrier segment.

Crossing rule. A path ``a -> b`` (one step of the rock's centre of mass projected on the map)
crosses the segment ``c -> d`` at ``a + s (b - a) = c + u (d - c)`` when

* ``0 < s <= 1``: a crossing exactly at the start of a step belongs to the previous step, so a
  rock passing through a line exactly at a step's end point is counted once;
* ``0 <= u < 1``, and ``0 <= u <= 1`` on the last segment of a line: a path through the vertex
  shared by two consecutive segments of one line is counted once (on the segment starting
  there), and a path through the line's end point is counted;
* the path and the segment are not parallel (a path along the line never crosses it, nor does a
  rock standing still).

The tests are decided by the signs of orientation determinants, e.g. on which side of the path
each end of the segment lies: the sign at a shared vertex is computed from the same numbers for
both segments that meet there, so round-off cannot count that crossing twice or miss it. A path
that only grazes a line at a vertex where the line turns back to the same side (a V touched at
its apex) counts as one crossing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from tumble import _check
from tumble._jit import jit

if TYPE_CHECKING:
    pass

#: joules per kilojoule (capacities are given in kJ, kernels work in J)
J_PER_KJ = 1000.0

#: the sides of a barrier line, seen along it from its first point to its last
SIDES = ("left", "right")

#: the share of the starting points (by weight) one side of a line must hold to be its uphill side
UPHILL_MAJORITY = 2.0 / 3.0

#: points classified at a time by :func:`point_sides` (memory: times the number of segments)
_SIDE_BLOCK = 1 << 20


def _frozen(values: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(values)
    out.setflags(write=False)
    return out


def _optional_positive(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a positive number, got {value!r}")
    return _check.positive_number(value, what)


@dataclass(frozen=True, eq=False)
class Barrier:
    """A barrier line or net (module docstring).

    ``name``: non-empty text; ``line``: (n, 2) read-only float64 vertices ``x, y`` in DEM
    coordinates (n >= 2, finite, no repeated consecutive vertex, not crossing itself);
    ``height``: the net's height above the terrain (m) or None; ``capacity``: the energy the net
    takes (kJ) or None; ``uphill``: the side the rocks come from, ``"left"`` or ``"right"`` seen
    along the line, or None to decide it from the rocks' starting points (module docstring).
    ValueError naming the barrier for anything else. Whether the line lies on a DEM is checked by
    :func:`barriers_from_config`, which knows the DEM. Two barriers are equal when their name,
    vertices, height, capacity and uphill side are.
    """

    name: str
    line: np.ndarray
    height: float | None = None
    capacity: float | None = None
    uphill: Literal["left", "right"] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a barrier needs a non-empty name, got {self.name!r}")
        where = f"barrier {self.name!r}"
        try:
            line = np.array(self.line, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: line must be a list of [x, y] points") from None
        if line.size == 0:
            line = line.reshape(0, 2)
        if line.ndim != 2 or line.shape[1] != 2:
            raise ValueError(
                f"{where}: line must be a list of [x, y] points, got shape {line.shape}"
            )
        if line.shape[0] < 2:
            raise ValueError(
                f"{where}: the line has {line.shape[0]} point(s); a line needs at least 2"
            )
        bad = ~np.isfinite(line).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(
                f"{where}: point {k} of the line is not finite ({line[k, 0]}, {line[k, 1]})"
            )
        same = (line[1:] == line[:-1]).all(axis=1)
        if same.any():
            k = int(np.argmax(same))
            raise ValueError(
                f"{where}: points {k} and {k + 1} of the line are the same point "
                f"({line[k, 0]:.6g}, {line[k, 1]:.6g}); remove the repeated point"
            )
        import shapely

        if not shapely.LineString(line).is_simple:
            raise ValueError(
                f"{where}: the line crosses itself; a barrier line must not (split it into "
                "several barriers)"
            )
        object.__setattr__(self, "line", _frozen(line))
        object.__setattr__(self, "height", _optional_positive(self.height, f"{where}: height"))
        object.__setattr__(
            self, "capacity", _optional_positive(self.capacity, f"{where}: capacity")
        )
        if self.uphill is not None and self.uphill not in SIDES:
            raise ValueError(
                f"{where}: uphill must be 'left' or 'right' (seen along the line from its first "
                f"point to its last), got {self.uphill!r}"
            )

    @property
    def kind(self) -> Literal["line", "net"]:
        """``"net"`` when a height or a capacity is given, else ``"line"``."""
        return "net" if self.height is not None or self.capacity is not None else "line"

    @property
    def length(self) -> float:
        """Length of the line on the map (m)."""
        return float(np.hypot(*np.diff(self.line, axis=0).T).sum())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Barrier):
            return NotImplemented
        return (
            self.name == other.name
            and self.height == other.height
            and self.capacity == other.capacity
            and self.uphill == other.uphill
            and np.array_equal(self.line, other.line)
        )

    def __hash__(self) -> int:
        return hash((self.name, self.line.tobytes(), self.height, self.capacity, self.uphill))


def point_sides(line: ArrayLike, points: ArrayLike) -> np.ndarray:
    """The side of the polyline ``line`` (n, 2) on which each of ``points`` (k, 2) lies: +1 left,
    -1 right (seen along the line from its first point to its last), 0 on the line or on the
    straight extension of an end segment. Decided at the point of the line nearest to each point
    (module docstring): the side of that segment; at a vertex joining two segments, the side of
    the wedge they make there; at an end of the line, the side of the end segment extended."""
    line = np.asarray(line, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    start, q = line[:-1], np.diff(line, axis=0)
    m = q.shape[0]
    length2 = np.einsum("ij,ij->i", q, q)
    out = np.zeros(points.shape[0])
    block = max(1, _SIDE_BLOCK // m)
    for first in range(0, points.shape[0], block):
        p = points[first : first + block]
        w = p[:, None, :] - start[None, :, :]  # (k, m, 2)
        u = np.clip(np.einsum("kmj,mj->km", w, q) / length2, 0.0, 1.0)
        gap = w - u[:, :, None] * q[None, :, :]
        j = np.argmin(np.einsum("kmj,kmj->km", gap, gap), axis=1)
        rows = np.arange(p.shape[0])
        uj = u[rows, j]
        # the segment's side: inside it, or beyond an end of the line along its end segment
        side = np.sign(q[j, 0] * w[rows, j, 1] - q[j, 1] * w[rows, j, 0])
        # at a vertex shared by two segments: the wedge between the outgoing and the incoming one
        at_start = (uj == 0.0) & (j > 0)
        at_end = (uj == 1.0) & (j < m - 1)
        vertex = at_start | at_end
        if vertex.any():
            k = np.flatnonzero(vertex)
            incoming = np.where(at_start[k], j[k] - 1, j[k])
            outgoing = incoming + 1
            v = start[outgoing]
            side[k] = _wedge_side(q[incoming], q[outgoing], p[k] - v)
        out[first : first + block] = side
    return out


def _wedge_side(incoming: np.ndarray, outgoing: np.ndarray, w: np.ndarray) -> np.ndarray:
    """+1 when the directions ``w`` from a vertex point into the left wedge of the line there
    (counter-clockwise from the outgoing segment to the reversed incoming one), -1 into the
    right wedge, 0 along either segment."""

    def angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Counter-clockwise angle from a to b in [0, 2 pi)."""
        cross = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
        dot = np.einsum("ij,ij->i", a, b)
        return np.mod(np.arctan2(cross, dot), 2.0 * np.pi)

    to_point = angle(outgoing, w)
    to_back = angle(outgoing, -incoming)
    side = np.where(to_point < to_back, 1.0, -1.0)
    side[(to_point == 0.0) | (to_point == to_back)] = 0.0
    return side


def release_shares(line: ArrayLike, points: ArrayLike, weights: ArrayLike) -> tuple[float, float]:
    """``(left, right)``: the shares of the total ``weights`` (k,) of ``points`` (k, 2) that lie on
    the left and on the right of ``line`` (:func:`point_sides`); points on the line or its
    extensions count on neither side, so the shares may sum to less than 1."""
    weights = np.asarray(weights, dtype=np.float64).reshape(-1)
    total = float(weights.sum())
    if weights.size == 0 or not total > 0.0:
        return 0.0, 0.0
    sides = point_sides(line, points)
    return (
        float(weights[sides > 0].sum() / total),
        float(weights[sides < 0].sum() / total),
    )


def uphill_side(shares: tuple[float, float]) -> Literal["left", "right"] | None:
    """The uphill side from the ``(left, right)`` shares of the starting points: the side holding
    at least :data:`UPHILL_MAJORITY` of them, None when neither does."""
    left, right = shares
    if left >= UPHILL_MAJORITY:
        return "left"
    if right >= UPHILL_MAJORITY:
        return "right"
    return None


def with_uphill(barriers: Sequence[Barrier], starts: ArrayLike) -> tuple[Barrier, ...]:
    """``barriers`` with every missing uphill side decided from the rocks' starting points
    ``starts`` (k, 2 or more: x, y first; or one point), each rock weighing the same (module
    docstring).
    ValueError naming the barrier when the rocks start on both sides of its line."""
    out = []
    points = np.asarray(starts, dtype=np.float64)
    points = (points.reshape(1, -1) if points.ndim == 1 else points)[:, :2]
    for barrier in barriers:
        if barrier.uphill is None:
            shares = release_shares(barrier.line, points, np.ones(points.shape[0]))
            side = uphill_side(shares)
            if side is None and sum(shares) == 0.0:
                raise ValueError(
                    f"barrier {barrier.name!r}: no rock starts off its line (or its straight "
                    "extensions), so which side they come from is not known: give "
                    "uphill='left' or uphill='right'"
                )
            if side is None:
                raise ValueError(
                    f"barrier {barrier.name!r}: the rocks start on both sides of its line "
                    f"({100 * shares[0]:.1f} % on its left, {100 * shares[1]:.1f} % on its "
                    "right, seen from its first point to its last), so which side they come "
                    "from is not clear: give uphill='left' or uphill='right'"
                )
            barrier = Barrier(barrier.name, barrier.line, barrier.height, barrier.capacity, side)
        out.append(barrier)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class BarrierArrays:
    """Every barrier as flat read-only arrays for the compiled kernels (:func:`pack_barriers`).

    With ``m`` segments over all ``b`` barriers, in barrier order and along each line:

    * ``segments`` (m, 4) float64, C-contiguous: ``x0, y0, x1, y1`` of each segment;
    * ``barrier_of`` (m,) int64: the index of the segment's barrier;
    * ``along`` (m,) float64: distance along its barrier's line to the segment's start (m);
    * ``last`` (m,) bool: whether the segment is the last of its line (the one whose end point
      counts, :func:`segment_crossing`);
    * ``height`` (b,) float64: the net's height (m), NaN where none;
    * ``capacity_J`` (b,) float64: the net's capacity in joules, inf where none;
    * ``downhill`` (b,) float64: +1 when the left side of the line is the downslope side
      (``uphill == "right"``), -1 when the right side is (``uphill == "left"``), NaN when the
      side is not decided;
    * ``bbox`` (b, 4) float64: ``x_min, x_max, y_min, y_max`` of each line, for a quick
      rejection of a step whose own box misses it.
    """

    segments: np.ndarray
    barrier_of: np.ndarray
    along: np.ndarray
    last: np.ndarray
    height: np.ndarray
    capacity_J: np.ndarray
    downhill: np.ndarray
    bbox: np.ndarray

    @property
    def n_barriers(self) -> int:
        return int(self.height.shape[0])

    @property
    def n_segments(self) -> int:
        return int(self.segments.shape[0])


def pack_barriers(barriers: Sequence[Barrier]) -> BarrierArrays:
    """The :class:`BarrierArrays` of ``barriers`` (empty arrays of the right shapes for none)."""
    segments, owner, along, last = [], [], [], []
    height = np.full(len(barriers), np.nan)
    capacity = np.full(len(barriers), np.inf)
    downhill = np.full(len(barriers), np.nan)
    bbox = np.empty((len(barriers), 4))
    for i, barrier in enumerate(barriers):
        if not isinstance(barrier, Barrier):
            raise ValueError(f"barriers[{i}] must be a Barrier, got {type(barrier).__name__}")
        line = barrier.line
        n = line.shape[0] - 1
        segments.append(np.hstack([line[:-1], line[1:]]))
        owner.append(np.full(n, i, dtype=np.int64))
        lengths = np.hypot(*np.diff(line, axis=0).T)
        along.append(np.concatenate([[0.0], np.cumsum(lengths)[:-1]]))
        end = np.zeros(n, dtype=np.bool_)
        end[-1] = True
        last.append(end)
        if barrier.height is not None:
            height[i] = barrier.height
        if barrier.capacity is not None:
            capacity[i] = barrier.capacity * J_PER_KJ
        if barrier.uphill is not None:
            downhill[i] = 1.0 if barrier.uphill == "right" else -1.0
        lo, hi = line.min(axis=0), line.max(axis=0)
        bbox[i] = (lo[0], hi[0], lo[1], hi[1])
    return BarrierArrays(
        segments=_frozen(np.concatenate(segments) if segments else np.empty((0, 4))),
        barrier_of=_frozen(np.concatenate(owner) if owner else np.empty(0, dtype=np.int64)),
        along=_frozen(np.concatenate(along) if along else np.empty(0)),
        last=_frozen(np.concatenate(last) if last else np.empty(0, dtype=np.bool_)),
        height=_frozen(height),
        capacity_J=_frozen(capacity),
        downhill=_frozen(downhill),
        bbox=_frozen(bbox),
    )


@jit
def segment_crossing(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    cx: float,
    cy: float,
    dx: float,
    dy: float,
    last: bool = False,
) -> tuple[bool, float, float]:
    """Whether the path ``a -> b`` crosses the segment ``c -> d``: ``(hit, s, u)`` with the
    crossing at ``a + s (b - a) = c + u (d - c)``; ``s`` and ``u`` are NaN without a crossing.

    The rule (module docstring): ``0 < s <= 1``; ``0 <= u < 1``, or ``0 <= u <= 1`` when
    ``last`` (the segment ends its line: :attr:`BarrierArrays.last`); parallel or collinear
    paths and segments never cross. Decided from orientation signs, so that a path through the
    vertex two consecutive segments share is counted exactly once.
    """
    rx = bx - ax
    ry = by - ay
    qx = dx - cx
    qy = dy - cy
    # sides of the segment's ends relative to the path, and of the path's ends relative to the
    # segment (cross products; zero: on the line)
    oc = rx * (cy - ay) - ry * (cx - ax)
    od = rx * (dy - ay) - ry * (dx - ax)
    oa = qx * (ay - cy) - qy * (ax - cx)
    ob = qx * (by - cy) - qy * (bx - cx)
    nan = math.nan
    if oc == 0.0 and od == 0.0:
        return False, nan, nan  # collinear, or a path of zero length
    if oa == 0.0 and ob == 0.0:
        return False, nan, nan  # round-off of a (nearly) collinear pair
    # u in [0, 1): c on the path's line, or c and d on opposite sides; d on it only when last
    if od == 0.0:
        if not last:
            return False, nan, nan
    elif not (oc == 0.0 or (oc > 0.0) != (od > 0.0)):
        return False, nan, nan
    # s in (0, 1]: a off the segment's line, b on it or on the other side
    if oa == 0.0:
        return False, nan, nan
    if not (ob == 0.0 or (oa > 0.0) != (ob > 0.0)):
        return False, nan, nan
    s = min(max(oa / (oa - ob), 0.0), 1.0)
    u = min(max(oc / (oc - od), 0.0), 1.0)
    return True, s, u


def crossings(path: ArrayLike, barriers: Sequence[Barrier]) -> list[tuple[int, int, float, float]]:
    """Every crossing of the polyline ``path`` (k, 2) with ``barriers``, by :func:`segment_crossing`
    (a Python reference, for tests and small cases): ``(step, barrier, s, distance along the
    barrier's line)`` in the order of the path's steps."""
    points = np.asarray(path, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"path must have shape (k, 2), got {points.shape}")
    arrays = pack_barriers(barriers)
    out = []
    for step in range(points.shape[0] - 1):
        ax, ay = points[step]
        bx, by = points[step + 1]
        found = []
        for j in range(arrays.n_segments):
            x0, y0, x1, y1 = arrays.segments[j]
            hit, s, u = segment_crossing(ax, ay, bx, by, x0, y0, x1, y1, bool(arrays.last[j]))
            if hit:
                length = math.hypot(x1 - x0, y1 - y0)
                found.append((s, int(arrays.barrier_of[j]), arrays.along[j] + u * length))
        for s, i, where in sorted(found):
            out.append((step, i, float(s), float(where)))
    return out
