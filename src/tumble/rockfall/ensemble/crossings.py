"""The crossings table of a run: one row per crossing of a barrier line by a rock.

Built from the crossing rows of the compiled loop (:mod:`tumble.rockfall.step.nets`), in rock order
and, for each rock, in time order. Columns (the names ``crossings.parquet`` carries):

``rock``, ``barrier`` (name), ``t_s``, ``x``, ``y`` (m, DEM coordinates), ``along_m`` (distance
along the barrier line from its first vertex), ``passing_height_m`` (centre of mass above the
terrain, vertical), ``top_height_m`` (highest point of the rock above the terrain),
``velocity_ms``, ``kinetic_energy_kJ`` (translational + rotational), ``rotational_energy_kJ``,
``rotational_velocity_rad_s`` (``|omega|``), ``mass_kg``, ``direction`` (``downslope``: from the
barrier's uphill side, the side the rocks come from, to the other, or for a line judged by
:func:`directions_from_starts` from the side the rock started on; ``upslope``: the other way;
:mod:`tumble.rockfall.barriers`) and ``outcome`` (``passed``, ``caught``, ``overtopped``,
``broke_through``).

:func:`directions_from_starts` judges the direction of the crossings of chosen lines from the
side of the line where each rock started instead (a line between two sources takes the rocks of
both, each from its own side: :mod:`tumble.rockfall.site.barrier_files`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tumble.rockfall.barriers import Barrier, point_sides
from tumble.rockfall.step.nets import (
    N_XCOLS,
    OUTCOMES,
    X_ALONG,
    X_BARRIER,
    X_DIRECTION,
    X_GROUND,
    X_OUTCOME,
    X_T,
    X_TOP,
    X_VX,
    X_WX,
    X_X,
    X_Y,
    X_Z,
)

#: the columns of the crossings table, in order
COLUMNS = (
    "rock",
    "barrier",
    "t_s",
    "x",
    "y",
    "along_m",
    "passing_height_m",
    "top_height_m",
    "velocity_ms",
    "kinetic_energy_kJ",
    "rotational_energy_kJ",
    "rotational_velocity_rad_s",
    "mass_kg",
    "direction",
    "outcome",
)


def crossings_table(
    rock: np.ndarray,
    rows: np.ndarray,
    barriers: Sequence[Barrier],
    mass: np.ndarray,
    inertia: np.ndarray,
) -> dict[str, np.ndarray]:
    """The table of the module docstring from the kernel rows ``rows`` (k, N_XCOLS) of the
    rocks ``rock`` (k,); ``mass`` (n_rocks,) kg and ``inertia`` (n_rocks, 3) kg m^2 of every
    rock of the run."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, N_XCOLS)
    rock = np.asarray(rock, dtype=np.int64)
    order = np.lexsort((rows[:, X_T], rock)) if rock.size else np.zeros(0, dtype=np.int64)
    rock, rows = rock[order], rows[order]
    names = np.array([b.name for b in barriers] or [""], dtype=object)
    v = rows[:, X_VX : X_VX + 3]
    w = rows[:, X_WX : X_WX + 3]
    m = np.asarray(mass, dtype=np.float64)[rock]
    theta = np.asarray(inertia, dtype=np.float64).reshape(-1, 3)[rock]
    rotational = 0.5 * np.einsum("ij,ij->i", theta, w * w)
    translational = 0.5 * m * np.einsum("ij,ij->i", v, v)
    return {
        "rock": rock,
        "barrier": names[rows[:, X_BARRIER].astype(np.int64)].astype(str)
        if rock.size
        else np.zeros(0, dtype=str),
        "t_s": rows[:, X_T],
        "x": rows[:, X_X],
        "y": rows[:, X_Y],
        "along_m": rows[:, X_ALONG],
        "passing_height_m": rows[:, X_Z] - rows[:, X_GROUND],
        "top_height_m": rows[:, X_TOP],
        "velocity_ms": np.linalg.norm(v, axis=1),
        "kinetic_energy_kJ": (translational + rotational) * 1e-3,
        "rotational_energy_kJ": rotational * 1e-3,
        "rotational_velocity_rad_s": np.linalg.norm(w, axis=1),
        "mass_kg": m,
        "direction": np.where(rows[:, X_DIRECTION] > 0, "downslope", "upslope"),
        "outcome": np.array(OUTCOMES)[rows[:, X_OUTCOME].astype(np.int64)]
        if rock.size
        else np.zeros(0, dtype=str),
    }


def directions_from_starts(
    crossings: dict[str, np.ndarray],
    barriers: Sequence[Barrier],
    own_side: Sequence[bool],
    starts: np.ndarray,
) -> dict[str, np.ndarray]:
    """The crossings table with the ``direction`` of every crossing of a barrier ``i`` with
    ``own_side[i]`` judged from the side of its line where the crossing's rock started
    (``starts`` (n_rocks, 2): x, y of every rock's start, indexed by rock): ``downslope`` when the
    rock crosses from that side to the other, ``upslope`` the other way. A rock that started on
    the line (or on the straight extension of an end segment,
    :func:`tumble.rockfall.barriers.point_sides`) keeps the direction from the line's uphill
    side. The other columns are the same arrays."""
    direction = np.asarray(crossings["direction"]).astype(str).copy()
    names = np.asarray(crossings["barrier"]).astype(str)
    rock = np.asarray(crossings["rock"], dtype=np.int64)
    starts = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
    for barrier, own in zip(barriers, own_side, strict=True):
        rows = np.flatnonzero(names == barrier.name)
        if not own or rows.size == 0 or barrier.uphill is None:
            continue
        started = point_sides(barrier.line, starts[rock[rows]])  # +1 left, -1 right, 0 on it
        uphill = 1.0 if barrier.uphill == "left" else -1.0
        # the side each crossing came from: the uphill side for a downslope crossing
        came_from = np.where(direction[rows] == "downslope", uphill, -uphill)
        judged = np.where(came_from == started, "downslope", "upslope")
        direction[rows] = np.where(started == 0.0, direction[rows], judged)
    return {**crossings, "direction": direction}
