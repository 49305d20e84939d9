"""Barrier lines and nets inside the step: crossings found and interpolated, nets that act.

After every step that starts within ``max(1 m, MAX_SPEED dt)`` of a barrier's bounding box
(:data:`MAX_SPEED` = 500 m/s, far above any rockfall speed), the path of the centre of mass, the
straight segment from its position before the step to its position after, is tested against
every segment of every barrier line
(:func:`tumble.rockfall.barriers.segment_crossing`, a bounding-box test per barrier first). A
crossing at the fraction ``s`` of the step is recorded with the state interpolated linearly
inside the step (time, position, velocity and angular velocity; no nearest sample):

====================  =========================================================================
column                what
====================  =========================================================================
``X_BARRIER``         barrier index
``X_SEGMENT``         segment index (into the packed segments)
``X_T``               time, s
``X_X, X_Y, X_Z``     centre of mass, m
``X_GROUND``          terrain height below the centre of mass, m
``X_TOP``             highest point of the rock above that terrain height, m (hull vertices at
                      the orientation after the step)
``X_V*``, ``X_W*``    velocity (m/s, inertial) and angular velocity (rad/s, body)
``X_DIRECTION``       +1 downslope (from the barrier's uphill side to the other), -1 upslope
``X_OUTCOME``         ``PASSED``, ``CAUGHT``, ``OVERTOPPED`` or ``BROKE_THROUGH``
``X_ALONG``           distance along the barrier line from its first vertex, m
====================  =========================================================================

Which side of a barrier the rocks come from is the barrier's ``uphill`` side, decided before the
run from where the rocks start (:mod:`tumble.rockfall.barriers`), not from the terrain at the
line: a crossing away from the rocks' sources is downslope on a counter-slope, at the foot of a
dam or across a gully as on a plain slope.

A net (a barrier with a height and/or a capacity) acts on downslope crossings only: a rock whose
centre of mass passes above the net's height overtops it and goes on unchanged; otherwise, with
a kinetic energy (translation + rotation) not above the capacity it is caught: it stops at the
crossing point (status ``caught``); with more it breaks through and goes on with its velocity
and angular velocity scaled by ``sqrt((E - C) / E)``, i.e. it leaves the net with its energy
reduced by the capacity ``C`` the net absorbed. A net without a height is taken as high enough
for every rock; one without a capacity holds every rock it intercepts. Back crossings and plain
observation lines never change the motion (outcome ``passed``): a net holds the rocks that
come from its uphill side.
"""

from __future__ import annotations

import math

import numpy as np

from tumble._jit import jit
from tumble.rockfall.barriers import BarrierArrays, segment_crossing
from tumble.rockfall.step.model import S_OMEGA, S_P, S_R, S_V
from tumble.rockfall.step.surface import surface
from tumble.rotation.quaternion import q_rotate

#: columns of a crossing row
X_BARRIER, X_SEGMENT, X_T, X_X, X_Y, X_Z, X_GROUND, X_TOP = range(8)
X_VX, X_VY, X_VZ, X_WX, X_WY, X_WZ, X_DIRECTION, X_OUTCOME, X_ALONG = range(8, 17)
N_XCOLS = 17

#: outcomes of a crossing
PASSED, CAUGHT, OVERTOPPED, BROKE_THROUGH = range(4)
OUTCOMES = ("passed", "caught", "overtopped", "broke_through")


def pack_nets(arrays: BarrierArrays) -> tuple[np.ndarray, ...]:
    """The barrier tuple of the kernels: ``(segments, barrier_of, along, height, capacity_J,
    bbox, first, downhill)``; ``first`` (b + 1,) are the offsets of each barrier's segments,
    ``downhill`` (b,) +1 where the left side of the line is the downslope side, -1 where the
    right side is. ValueError for a barrier whose uphill side is not decided
    (:func:`tumble.rockfall.barriers.with_uphill` decides it)."""
    n_barriers = arrays.height.shape[0]
    first = np.searchsorted(arrays.barrier_of, np.arange(n_barriers + 1)).astype(np.int64)
    if np.any(np.diff(arrays.barrier_of) < 0):
        raise ValueError("the segments of the barriers must be grouped by barrier")
    if np.isnan(arrays.downhill).any():
        b = int(np.argmax(np.isnan(arrays.downhill)))
        raise ValueError(f"barrier {b} has no uphill side: decide it first (with_uphill)")
    return (
        np.ascontiguousarray(arrays.segments, dtype=np.float64).reshape(-1, 4),
        np.ascontiguousarray(arrays.barrier_of, dtype=np.int64),
        np.ascontiguousarray(arrays.along, dtype=np.float64),
        np.ascontiguousarray(arrays.height, dtype=np.float64),
        np.ascontiguousarray(arrays.capacity_J, dtype=np.float64),
        np.ascontiguousarray(arrays.bbox, dtype=np.float64).reshape(-1, 4),
        first,
        np.ascontiguousarray(arrays.downhill, dtype=np.float64),
    )


def no_nets() -> tuple[np.ndarray, ...]:
    """The barrier tuple of a run without barriers."""
    return (
        np.zeros((0, 4)),
        np.zeros(0, dtype=np.int64),
        np.zeros(0),
        np.zeros(0),
        np.zeros(0),
        np.zeros((0, 4)),
        np.zeros(1, dtype=np.int64),
        np.zeros(0),
    )


#: the fastest a rock's centre of mass is assumed ever to move, m/s: a step starting farther than
#: ``MAX_SPEED dt`` (and at least 1 m) from every barrier's box cannot cross a barrier
MAX_SPEED = 500.0


@jit
def step_reach(dt: float) -> float:
    """How far the centre of mass can get in one step: ``max(1 m, MAX_SPEED dt)``."""
    return max(1.0, MAX_SPEED * dt)


@jit(inline="always")
def near_point(bbox: np.ndarray, n_barriers: int, x: float, y: float, reach: float) -> bool:
    """Whether (x, y) lies within ``reach`` of the bounding box of some barrier: only then can
    the coming step cross it, and only then is the state before the step kept."""
    for b in range(n_barriers):
        if (
            x >= bbox[b, 0] - reach
            and x <= bbox[b, 1] + reach
            and y >= bbox[b, 2] - reach
            and y <= bbox[b, 3] + reach
        ):
            return True
    return False


@jit
def cross_barriers(
    nets: tuple[np.ndarray, ...],
    heights: np.ndarray,
    grid: np.ndarray,
    vertices: np.ndarray,
    body: np.ndarray,
    prev: np.ndarray,
    state: np.ndarray,
    step: int,
    dt: float,
    rows: np.ndarray,
    n_rows: int,
) -> tuple[int, bool]:
    """Record the crossings of the step from ``prev`` to ``state`` (the step ``step``, counted
    from 1) into ``rows`` from row ``n_rows`` on (rows beyond the capacity are counted, not
    stored) and let nets act on ``state`` (module docstring). Returns ``(n_rows, caught)``."""
    segments, _, along, net_height, net_capacity, bbox, first, downhill = nets
    n_barriers = bbox.shape[0]
    if n_barriers == 0:
        return n_rows, False
    ax = prev[S_R]
    ay = prev[S_R + 1]
    bx = state[S_R]
    by = state[S_R + 1]
    lo_x = min(ax, bx)
    hi_x = max(ax, bx)
    lo_y = min(ay, by)
    hi_y = max(ay, by)
    capacity = rows.shape[0]
    for b in range(n_barriers):
        if hi_x < bbox[b, 0] or lo_x > bbox[b, 1] or hi_y < bbox[b, 2] or lo_y > bbox[b, 3]:
            continue
        for m in range(first[b], first[b + 1]):
            cx = segments[m, 0]
            cy = segments[m, 1]
            dx = segments[m, 2]
            dy = segments[m, 3]
            hit, s, u = segment_crossing(ax, ay, bx, by, cx, cy, dx, dy, m == first[b + 1] - 1)
            if not hit:
                continue
            # the state inside the step, linear in s
            x = ax + s * (bx - ax)
            y = ay + s * (by - ay)
            z = prev[S_R + 2] + s * (state[S_R + 2] - prev[S_R + 2])
            v0 = prev[S_V] + s * (state[S_V] - prev[S_V])
            v1 = prev[S_V + 1] + s * (state[S_V + 1] - prev[S_V + 1])
            v2 = prev[S_V + 2] + s * (state[S_V + 2] - prev[S_V + 2])
            w0 = prev[S_OMEGA] + s * (state[S_OMEGA] - prev[S_OMEGA])
            w1 = prev[S_OMEGA + 1] + s * (state[S_OMEGA + 1] - prev[S_OMEGA + 1])
            w2 = prev[S_OMEGA + 2] + s * (state[S_OMEGA + 2] - prev[S_OMEGA + 2])
            ground, _, inside = surface(heights, grid[0], grid[1], grid[2], grid[3], x, y)
            if not inside:
                ground = math.nan
            quat = (state[S_P], state[S_P + 1], state[S_P + 2], state[S_P + 3])
            top = -math.inf
            for k in range(vertices.shape[0]):
                d = q_rotate(quat, (vertices[k, 0], vertices[k, 1], vertices[k, 2]))
                top = max(top, d[2])
            energy = 0.5 * body[0] * (v0 * v0 + v1 * v1 + v2 * v2) + 0.5 * (
                body[1] * w0 * w0 + body[2] * w1 * w1 + body[3] * w2 * w2
            )
            # downslope: the path goes from the barrier's uphill side to the other
            left = (bx - ax) * (-(dy - cy)) + (by - ay) * (dx - cx)
            direction = 1.0 if left * downhill[b] > 0.0 else -1.0
            outcome = PASSED
            is_net = not (math.isnan(net_height[b]) and math.isinf(net_capacity[b]))
            if is_net and direction > 0.0:
                height = net_height[b]
                if not math.isnan(height) and z - ground > height:
                    outcome = OVERTOPPED
                elif energy <= net_capacity[b]:
                    outcome = CAUGHT
                else:
                    outcome = BROKE_THROUGH
            if n_rows < capacity:
                r = rows[n_rows]
                r[X_BARRIER] = b
                r[X_SEGMENT] = m
                r[X_T] = (step - 1 + s) * dt
                r[X_X] = x
                r[X_Y] = y
                r[X_Z] = z
                r[X_GROUND] = ground
                r[X_TOP] = z + top - ground
                r[X_VX] = v0
                r[X_VY] = v1
                r[X_VZ] = v2
                r[X_WX] = w0
                r[X_WY] = w1
                r[X_WZ] = w2
                r[X_DIRECTION] = direction
                r[X_OUTCOME] = outcome
                seg_length = math.sqrt((dx - cx) * (dx - cx) + (dy - cy) * (dy - cy))
                r[X_ALONG] = along[m] + u * seg_length
            n_rows += 1
            if outcome == CAUGHT:
                state[S_R] = x
                state[S_R + 1] = y
                state[S_R + 2] = z
                for k in range(3):
                    state[S_V + k] = 0.0
                    state[S_OMEGA + k] = 0.0
                return n_rows, True
            if outcome == BROKE_THROUGH:
                factor = math.sqrt((energy - net_capacity[b]) / energy)
                for k in range(3):
                    state[S_V + k] *= factor
                    state[S_OMEGA + k] *= factor
    return n_rows, False
