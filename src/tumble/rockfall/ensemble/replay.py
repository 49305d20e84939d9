"""Barrier crossings replayed from stored trajectories, without simulating again.

A finished run keeps the trajectories of ``output.trajectories`` of its rocks, one sample every
``output.trajectory_every`` steps (``trajectories.parquet``). :func:`replay_crossings` runs the
crossing test of the simulation (:func:`tumble.rockfall.step.nets.cross_barriers`, the same compiled
function) on each pair of consecutive samples of a rock, as if the pair were one step: the path
of the centre of mass between the two samples is a straight segment and the state at a crossing
is interpolated linearly between them. The result is the crossings table of
:mod:`tumble.rockfall.ensemble.crossings`, so
:func:`tumble.rockfall.hazard.design.barrier_statistics` turns it into the same statistics and
design values as a run with the barriers in it.

How close it comes to the run:

* across the run's own barriers the crossings are those the run recorded: the run keeps, for
  them, the samples before and after every step that crosses one (:func:`crossing_steps`, the
  test of the step) and, where a net acted, two samples astride the crossing that carry the
  state the run recorded there (:func:`crossing_points`; :mod:`tumble.pipeline.trajectories`),
  so the pair replayed is the run's own step, or gives back the run's values exactly;
* with ``trajectory_every = 1`` the samples are the steps of the simulation and the replayed
  crossings are those the run would have recorded for an observation line at the same place (the
  same numbers, up to the round-off of the stored sample times);
* with coarser samples the path between two samples is a chord of the true one: over a sample
  interval ``h`` a rock in free flight sags ``g h^2 / 8`` below it (3 mm for ``h`` = 0.05 s), and a
  rock that bounces inside the interval is missed between its contacts; the replay says which
  interval it used;
* a net replayed on trajectories that were simulated without it acts on the first downslope
  crossing only: the outcome there (caught, overtopped, broke through) and every statistic of
  the first downslope crossing are exact, but what the rock would have done after meeting the
  net is not known, so the rows of a rock after a catch are dropped and the motion below a
  break-through is the unhindered one. The residual hazard below a new net needs a new run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from tumble._jit import jit
from tumble.rockfall.barriers import Barrier, pack_barriers, segment_crossing, with_uphill
from tumble.rockfall.ensemble.crossings import crossings_table
from tumble.rockfall.step.model import S_OMEGA, S_P, S_R, S_V, STATE_SIZE, TRAJECTORY_COLUMNS
from tumble.rockfall.step.nets import N_XCOLS, X_T, cross_barriers, pack_nets
from tumble.rockfall.terrain import Terrain

#: the columns of a trajectory sample that the replay reads, in the state's order
SAMPLE_COLUMNS = ("rock", *TRAJECTORY_COLUMNS)


def _states(samples: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rock, t, states)`` of a trajectory sample, checked: every column present, finite,
    of one length, the rows grouped by rock with increasing time."""
    missing = [name for name in SAMPLE_COLUMNS if name not in samples]
    if missing:
        raise ValueError(f"the trajectory sample lacks the column(s) {', '.join(missing)}")
    n = len(np.asarray(samples["rock"]))
    columns = {}
    for name in SAMPLE_COLUMNS:
        values = np.asarray(samples[name], dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"column {name} of the trajectory sample must have {n} values")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"column {name} of the trajectory sample holds NaN or inf")
        columns[name] = values
    rock = columns["rock"].astype(np.int64)
    if np.any(rock != columns["rock"]) or np.any(rock < 0):
        raise ValueError("column rock of the trajectory sample must hold non-negative integers")
    t = columns["t"]
    same = rock[1:] == rock[:-1]
    if np.any(rock[1:] < rock[:-1]) or np.any(same & (t[1:] <= t[:-1])):
        raise ValueError(
            "the trajectory sample must be sorted by rock and, within a rock, by increasing time"
        )
    states = np.zeros((n, STATE_SIZE))
    states[:, S_R : S_R + 3] = np.column_stack([columns[c] for c in ("x", "y", "z")])
    states[:, S_P : S_P + 4] = np.column_stack([columns[c] for c in ("qw", "qx", "qy", "qz")])
    states[:, S_V : S_V + 3] = np.column_stack([columns[c] for c in ("vx", "vy", "vz")])
    states[:, S_OMEGA : S_OMEGA + 3] = np.column_stack(
        [columns[c] for c in ("omega_x", "omega_y", "omega_z")]
    )
    return rock, t, states


def sample_interval(samples: Mapping[str, np.ndarray]) -> float:
    """The largest time between two consecutive samples of one rock, s (0 for single samples)."""
    rock = np.asarray(samples["rock"])
    t = np.asarray(samples["t"], dtype=np.float64)
    if rock.size < 2:
        return 0.0
    gaps = np.diff(t)[rock[1:] == rock[:-1]]
    return float(gaps.max()) if gaps.size else 0.0


@jit
def _mark_crossing_steps(
    x: np.ndarray,
    y: np.ndarray,
    segments: np.ndarray,
    first: np.ndarray,
    bbox: np.ndarray,
    out: np.ndarray,
) -> int:
    """``out[i] = True`` where the path from sample ``i`` to ``i + 1`` crosses a segment of a
    barrier (:func:`tumble.rockfall.barriers.segment_crossing`, as in
    :func:`tumble.rockfall.step.nets.cross_barriers`); returns how many are marked."""
    marked = 0
    for i in range(x.shape[0] - 1):
        ax = x[i]
        ay = y[i]
        bx = x[i + 1]
        by = y[i + 1]
        lo_x = min(ax, bx)
        hi_x = max(ax, bx)
        lo_y = min(ay, by)
        hi_y = max(ay, by)
        for b in range(bbox.shape[0]):
            if hi_x < bbox[b, 0] or lo_x > bbox[b, 1] or hi_y < bbox[b, 2] or lo_y > bbox[b, 3]:
                continue
            for m in range(first[b], first[b + 1]):
                hit, _, _ = segment_crossing(
                    ax,
                    ay,
                    bx,
                    by,
                    segments[m, 0],
                    segments[m, 1],
                    segments[m, 2],
                    segments[m, 3],
                    m == first[b + 1] - 1,
                )
                if hit:
                    out[i] = True
            if out[i]:
                break
        if out[i]:
            marked += 1
    return marked


def crossing_steps(position: np.ndarray, barriers: Sequence[Barrier]) -> np.ndarray:
    """The indices ``i`` of the consecutive samples ``(i, i + 1)`` of one path whose centre of
    mass crosses a line of ``barriers`` by the test of the step and of the replay (the straight
    segment between them against every segment of every line,
    :func:`tumble.rockfall.barriers.segment_crossing`). ``position`` (n, 2 or 3), m."""
    points = np.asarray(position, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] < 2:
        raise ValueError(f"position must have shape (n, 2) or (n, 3), got {points.shape}")
    out = np.zeros(max(points.shape[0] - 1, 0), dtype=np.bool_)
    if not barriers or out.size == 0:
        return np.flatnonzero(out)
    arrays = pack_barriers(barriers)
    first = np.searchsorted(arrays.barrier_of, np.arange(arrays.n_barriers + 1)).astype(np.int64)
    _mark_crossing_steps(
        np.ascontiguousarray(points[:, 0]),
        np.ascontiguousarray(points[:, 1]),
        np.ascontiguousarray(arrays.segments),
        first,
        np.ascontiguousarray(arrays.bbox),
        out,
    )
    return np.flatnonzero(out)


#: how far (in units in the last place of the larger coordinate) :func:`crossing_points` puts
#: its two points before and after a crossing
CROSSING_ULPS = 64


def crossing_points(
    start: tuple[float, float],
    point: tuple[float, float],
    barriers: Sequence[Barrier],
    segment: int,
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Two points astride the crossing ``point`` (x, y) of a rock coming from ``start`` across
    the packed ``segment`` of ``barriers`` (``X_SEGMENT`` of a crossing row): ``point`` moved
    back and onward along the path by :data:`CROSSING_ULPS` units in the last place of its
    larger coordinate (a few nanometres on a national grid), such that by the test of the step
    (:func:`tumble.rockfall.barriers.segment_crossing`) the path from ``start`` to the first
    does not cross the segment and the path from the first to the second does. The
    interpolated point itself lies on the line only up to round-off, on either side, and a
    rock's path across the line is well defined only over a distance far above round-off.
    None when the crossing is too close to ``start`` for that, or the test disagrees."""
    arrays = pack_barriers(barriers)
    cx, cy, dx, dy = (float(v) for v in arrays.segments[segment])
    last = bool(arrays.last[segment])
    ax, ay = float(start[0]), float(start[1])
    px, py = float(point[0]), float(point[1])
    length = math.hypot(px - ax, py - ay)
    step = CROSSING_ULPS * float(np.spacing(max(abs(px), abs(py), 1.0)))
    if not length > 2.0 * step:
        return None
    ux, uy = (px - ax) / length, (py - ay) / length
    before = (px - step * ux, py - step * uy)
    after = (px + step * ux, py + step * uy)
    if segment_crossing(ax, ay, *before, cx, cy, dx, dy, last)[0]:
        return None
    if not segment_crossing(*before, *after, cx, cy, dx, dy, last)[0]:
        return None
    return before, after


def _round_off_path(
    ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray, ta: np.ndarray, tb: np.ndarray
) -> np.ndarray:
    """True for the pairs of samples whose centre of mass moves no farther than a few times the
    distance :func:`crossing_points` puts between its two points, and that are not such a pair
    (their times are more than one unit in the last place apart)."""
    scale = np.maximum(np.maximum(np.abs(ax), np.abs(ay)), np.maximum(np.abs(bx), np.abs(by)))
    tiny = 4.0 * CROSSING_ULPS * np.spacing(np.maximum(scale, 1.0))
    short = np.hypot(bx - ax, by - ay) <= tiny
    return short & (tb > np.nextafter(ta, np.inf))


def replay_crossings(
    terrain: Terrain,
    barriers: Sequence[Barrier],
    samples: Mapping[str, np.ndarray],
    bodies: np.ndarray,
    vertices: Callable[[int], np.ndarray],
) -> dict[str, np.ndarray]:
    """The crossings table (:func:`tumble.rockfall.ensemble.crossings.crossings_table`) of the
    rocks of ``samples`` across ``barriers`` (module docstring).

    ``samples``: columns :data:`SAMPLE_COLUMNS` (the trajectory sample of a run, sorted by rock
    and time); ``bodies`` (n_rocks, 4): mass (kg) and principal moments of inertia (kg m^2) of
    every rock of the run, indexed by the ``rock`` column; ``vertices(k)``: the hull vertices of
    rock ``k`` in its body frame (m). A barrier without an ``uphill`` side gets the side the
    rocks' first samples lie on (:func:`tumble.rockfall.barriers.with_uphill`)."""
    if not barriers:
        raise ValueError("no barrier to replay: give at least one barrier line")
    rock, t, states = _states(samples)
    bodies = np.ascontiguousarray(bodies, dtype=np.float64)
    if bodies.ndim != 2 or bodies.shape[1] != 4:
        raise ValueError(f"bodies must have shape (n_rocks, 4), got {bodies.shape}")
    if rock.size and rock.max() >= bodies.shape[0]:
        raise ValueError(
            f"the trajectory sample holds rock {int(rock.max())}, but the run has "
            f"{bodies.shape[0]} rocks"
        )
    # a barrier without an uphill side: the side the rocks' first samples lie on
    firsts = np.flatnonzero(np.r_[True, rock[1:] != rock[:-1]])[: rock.size]
    starts = states[firsts, S_R : S_R + 2]
    arrays = pack_barriers(with_uphill(barriers, starts))
    nets = pack_nets(arrays)
    bbox = arrays.bbox
    heights = np.ascontiguousarray(terrain.heights, dtype=np.float64)
    grid = np.array([terrain.x0, terrain.y0, terrain.dx, terrain.dy], dtype=np.float64)

    # pairs of consecutive samples of one rock whose box meets some barrier's box
    a = np.flatnonzero(rock[1:] == rock[:-1])
    ax, ay = states[a, S_R], states[a, S_R + 1]
    bx, by = states[a + 1, S_R], states[a + 1, S_R + 1]
    lo_x, hi_x = np.minimum(ax, bx), np.maximum(ax, bx)
    lo_y, hi_y = np.minimum(ay, by), np.maximum(ay, by)
    near = np.zeros(a.size, dtype=bool)
    for box in bbox:
        near |= (hi_x >= box[0]) & (lo_x <= box[1]) & (hi_y >= box[2]) & (lo_y <= box[3])
    # a path of round-off length crosses nothing: the final state of a rock a net caught lies at
    # the crossing, a few nanometres behind the crossing sample that follows it
    # (crossing_points), on either side of the line; only the pair of crossing samples (one unit
    # in the last place of time apart) crosses over such a distance
    near &= ~_round_off_path(ax, ay, bx, by, t[a], t[a + 1])
    candidates = a[near]

    out_rock: list[np.ndarray] = []
    out_rows: list[np.ndarray] = []
    rows = np.empty((max(4, 2 * arrays.n_segments), N_XCOLS))
    caught_rocks: set[int] = set()
    shape_cache: dict[int, np.ndarray] = {}
    for i in candidates:
        k = int(rock[i])
        if k in caught_rocks:
            continue
        if k not in shape_cache:
            shape_cache.clear()
            shape_cache[k] = np.ascontiguousarray(vertices(k), dtype=np.float64)
        prev = states[i].copy()
        state = states[i + 1].copy()
        n_rows, caught = cross_barriers(
            nets, heights, grid, shape_cache[k], bodies[k], prev, state, 1, t[i + 1] - t[i], rows, 0
        )
        if n_rows > rows.shape[0]:  # more crossings in one interval than rows: grow, redo
            rows = np.empty((2 * n_rows, N_XCOLS))
            n_rows, caught = cross_barriers(
                nets, heights, grid, shape_cache[k], bodies[k], prev, state, 1,
                t[i + 1] - t[i], rows, 0,
            )  # fmt: skip
        if n_rows:
            found = rows[:n_rows].copy()
            found[:, X_T] += t[i]
            out_rows.append(found)
            out_rock.append(np.full(n_rows, k, dtype=np.int64))
        if caught:
            caught_rocks.add(k)
    table_rows = np.concatenate(out_rows) if out_rows else np.empty((0, N_XCOLS))
    table_rock = np.concatenate(out_rock) if out_rock else np.empty(0, dtype=np.int64)
    return crossings_table(table_rock, table_rows, barriers, bodies[:, 0], bodies[:, 1:])
