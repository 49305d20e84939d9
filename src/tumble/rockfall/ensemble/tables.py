"""The per-rock tables of the ensemble kernel beyond its core arrays: the soil table the rocks
read (one row per soil, a row per rock: :mod:`tumble.rockfall.site.soil_uncertainty`), the
forest inputs and the forest arrays a chunk returns (:mod:`tumble.rockfall.step.trees`), and
their summary (``summary.json["forest"]``), and every rock's hull scaled from its shape's."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tumble.rockfall.ensemble.rasters import nearest_cells
from tumble.rockfall.forest import Forest, no_forest, rock_diameter, rock_keys
from tumble.rockfall.soil import FIELDS, Soil, pack_table
from tumble.rockfall.status import RockStatus
from tumble.rockfall.step.model import STATE_SIZE, initial_states
from tumble.rockfall.step.trees import F_ENERGY, F_IMPACTS

if TYPE_CHECKING:
    from tumble.rockfall.terrain import Terrain


def forest_chunk(fstate: np.ndarray, impact_cell: np.ndarray) -> dict[str, np.ndarray]:
    """The forest arrays of a chunk: per rock ``tree_impacts`` and ``tree_energy_J``, and the
    chunk's impacts per DEM cell (``impact_cell_index``, ``impact_cell_count``) of the first
    :data:`~tumble.rockfall.ensemble.sizes.IMPACT_CAPACITY` impacts of each rock
    (``impacts_unmapped`` counts the others)."""
    impacts = fstate[:, F_IMPACTS].astype(np.int64)
    mapped = impact_cell[impact_cell >= 0]
    cells, count = np.unique(mapped, return_counts=True)
    return {
        "tree_impacts": impacts,
        "tree_energy_J": fstate[:, F_ENERGY].copy(),
        "impact_cell_index": cells.astype(np.int64),
        "impact_cell_count": count.astype(np.int64),
        "impacts_unmapped": np.array([int(impacts.sum()) - int(mapped.size)], dtype=np.int64),
    }


def soil_table(
    terrain: Any,
    model: Any,
    soils: Sequence[Soil] | None,
    soil_row: Any,
    n: int,
) -> tuple[tuple[Soil, ...] | None, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(soils, soil_row, (values, index, rasters))``: the soil table of the kernel, one row per
    soil of ``soils`` with rock k on row ``soil_row[k]``; without ``soils`` the one row of the
    ensemble's soil (``model``) for every rock."""
    if soils is None:
        if soil_row is not None:
            raise ValueError("soil_row needs soils (the table it indexes)")
        table = (model.soil_values[None, :], model.soil_index[None, :], model.soil_rasters)
        return None, np.zeros(n, dtype=np.int64), table
    soils = tuple(soils)
    if not soils or not all(isinstance(s, Soil) for s in soils):
        raise ValueError("soils must be a non-empty sequence of Soil")
    row = np.asarray(soil_row)
    if row.shape != (n,) or not np.issubdtype(row.dtype, np.integer):
        raise ValueError(f"soil_row must be one integer row of soils per rock ({n})")
    if n and (row.min() < 0 or row.max() >= len(soils)):
        raise ValueError(f"soil_row must index the {len(soils)} soils")
    # soil rasters of the terrain replace the fields of every soil, as in pack_model
    rasters = {k: v for k, v in dict(getattr(terrain, "soil", None) or {}).items() if k in FIELDS}
    replaced = tuple(dataclasses.replace(s, **rasters) if rasters else s for s in soils)
    table = pack_table(replaced, model.heights.shape)
    return soils, np.ascontiguousarray(row, dtype=np.int64), table


def forest_tables(
    forest: Forest | None, terrain: Any, volume: np.ndarray, seed: int | None, n: int
) -> dict[str, Any]:
    """The forest inputs of the kernel: the packed stems (``forest``; none without a forest),
    each rock's ``diameter`` (of the sphere of its ``volume``) and random ``keys``."""
    if forest is not None and not isinstance(forest, Forest):
        raise ValueError("forest must be a Forest (tumble.rockfall.forest)")
    if forest is not None and forest.shape != terrain.heights.shape:
        raise ValueError(f"forest is on a grid of {forest.shape}, the DEM is {terrain.shape}")
    return {
        "forest": no_forest() if forest is None else forest.pack(),
        "diameter": np.ascontiguousarray(rock_diameter(volume)),
        "keys": rock_keys(seed, n),
    }


def forest_summary(
    forest: Any,
    impacts: np.ndarray,
    energy: np.ndarray,
    status: np.ndarray,
    position: np.ndarray,
    terrain: Terrain,
    unmapped: int,
) -> dict[str, Any]:
    """``summary.json["forest"]``: the forest (:meth:`tumble.rockfall.forest.Forest.describe`),
    the impacts (total, per rock), the energy the stems took, the rocks that stopped in forest
    cells, and ``warnings`` (taken out by the caller)."""
    stopped = status == int(RockStatus.STOPPED)
    cells = nearest_cells(terrain, position[stopped, 0], position[stopped, 1])
    mask = forest.forest_mask().ravel()
    in_forest = int(np.sum(mask[cells[cells >= 0]]))
    timed_out = status == int(RockStatus.TIMED_OUT)
    out = {
        **forest.describe(),
        "impacts": int(impacts.sum()),
        "rocks_with_impacts": int(np.sum(impacts > 0)),
        "impacts_per_rock_max": int(impacts.max()) if impacts.size else 0,
        "energy_absorbed_kJ": float(energy.sum() * 1e-3),
        "stopped_in_forest": in_forest,
        "stopped_in_forest_fraction": float(in_forest / max(impacts.size, 1)),
        "timed_out_with_impacts": int(np.sum(timed_out & (impacts > 0))),
        "warnings": [],
    }
    if unmapped:
        out["warnings"].append(
            f"forest: {unmapped} tree impacts of rocks with more than 256 impacts are counted "
            "in summary.json and deposits.csv but not mapped in rasters/tree_impacts.tif"
        )
    return out


def rock_hulls(hulls: np.ndarray, shape_id: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Every rock's hull (n, M, 3): ``hulls[shape_id] * scale``, the shapes' hulls (S, M, 3,
    padded with NaN) scaled. Where every rock has the same shape and scale (an ensemble of
    identical rocks), a read-only view of that one hull, the same numbers without n copies."""
    n = shape_id.shape[0]
    if n and np.all(shape_id == shape_id[0]) and np.all(scale == scale[0]):
        one = hulls[shape_id[0]] * scale[0]
        return np.broadcast_to(one, (n, *one.shape))
    return hulls[shape_id] * scale[:, None, None]


#: rocks whose initial states :func:`initial_rock_states` forms at a time (the temporaries of
#: :func:`~tumble.rockfall.step.model.initial_states` then stay in the cache)
STATE_BLOCK = 16384


def initial_rock_states(
    model: Any,
    hulls: np.ndarray,
    shape_id: np.ndarray,
    scale: np.ndarray,
    states: Any,
) -> np.ndarray:
    """:func:`~tumble.rockfall.step.model.initial_states` of every rock (n, STATE_SIZE) of the
    release ``states`` (:class:`~tumble.rockfall.release.ReleaseStates`), with the hulls of
    :func:`rock_hulls`, formed :data:`STATE_BLOCK` rocks at a time: each rock's state
    is formed from its own row alone, so the states are those of one call over all rocks. A
    refused rock raises the error of one call, with its index among all the rocks."""
    position, orientation, velocity, omega = (
        np.asarray(a, dtype=np.float64)
        for a in (states.position, states.orientation, states.velocity, states.omega)
    )
    n = position.shape[0]
    initial = np.empty((n, STATE_SIZE))
    for start in range(0, n, STATE_BLOCK):
        rows = slice(start, min(n, start + STATE_BLOCK))
        try:
            initial[rows] = initial_states(
                model,
                rock_hulls(hulls, shape_id[rows], scale[rows]),
                position[rows],
                orientation[rows],
                velocity[rows],
                omega[rows],
            )
        except ValueError as err:
            message = str(err)
            if start and (found := re.match(r"rock (\d+): ", message)):
                message = f"rock {int(found.group(1)) + start}: {message[found.end() :]}"
            raise ValueError(message) from None
    return initial
