"""The crossings table of a run: one row per crossing of a barrier line by a rock.

Built from the crossing rows of the compiled loop (:mod:`tumble.rockfall.step.nets`), in rock order
and, for each rock, in time order. Columns (the names ``crossings.parquet`` carries):

``rock``, ``barrier`` (name), ``t_s``, ``x``, ``y`` (m, DEM coordinates), ``along_m`` (distance
along the barrier line from its first vertex), ``passing_height_m`` (centre of mass above the
terrain, vertical), ``top_height_m`` (highest point of the rock above the terrain),
``velocity_ms``, ``kinetic_energy_kJ`` (translational + rotational), ``rotational_energy_kJ``,
``rotational_velocity_rad_s`` (``|omega|``), ``mass_kg``, ``direction`` (``downslope``: from the
barrier's uphill side, the side the rocks come from, to the other; ``upslope``: the other way;
:mod:`tumble.rockfall.barriers`) and ``outcome`` (``passed``, ``caught``, ``overtopped``,
``broke_through``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tumble.rockfall.barriers import Barrier
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
