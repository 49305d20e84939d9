"""Per-cell counts of rocks above given energies, per group of rocks: a generic reduction of a
chunk that an :class:`~tumble.rockfall.ensemble.driver.Ensemble` keeps when it is given count groups
(``count_groups``, one group per rock) and energy levels (``count_levels_kJ``) at construction.

For every group g, level l and DEM cell c, ``n_g(c, E_l)`` is the number of rocks of g whose
maximum kinetic energy in c (over the steps their centre of mass was in the cell) exceeds
``E_l`` kJ; a level None counts every rock that reached the cell. The counts are integers kept
sparse (:func:`exceedance_counts`), and the counts of several chunks add up exactly
(:func:`merge_counts`): the same numbers for any chunking, threads or workers. Hazard zoning
(:mod:`tumble.rockfall.hazard.zoning`) turns them into annual frequencies after the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def exceedance_counts(
    visit_rock: np.ndarray,
    visit_cell: np.ndarray,
    visit_energy_kJ: np.ndarray,
    rock_group: np.ndarray,
    n_groups: int,
    size: int,
    levels: Sequence[float | None],
) -> dict[str, np.ndarray]:
    """The counts ``n_g(c, E)`` of the module docstring, sparse: ``exceed_key`` (sorted,
    ``(level * n_groups + g) * size + c``) and ``exceed_count`` (rocks of group g whose
    maximum energy in cell c exceeds ``levels[level]``, kJ; None counts every visit).

    One row per (rock, cell) with the rock's maximum energy there (kJ, NaN for none);
    ``rock_group[k]`` the group of rock k. Integer counts: the counts of several chunks add up
    (:func:`merge_counts`) to the same numbers in any grouping."""
    rock_group = np.asarray(rock_group, dtype=np.int64)
    group = rock_group[np.asarray(visit_rock, dtype=np.int64)]
    cell = np.asarray(visit_cell, dtype=np.int64)
    energy = np.nan_to_num(np.asarray(visit_energy_kJ, dtype=np.float64), nan=-np.inf)
    keys = []
    for level, threshold in enumerate(levels):
        keep = np.ones(group.size, dtype=bool) if threshold is None else energy > threshold
        keys.append((level * n_groups + group[keep]) * size + cell[keep])
    unique, counts = np.unique(np.concatenate(keys), return_counts=True)
    return {"exceed_key": unique.astype(np.int64), "exceed_count": counts.astype(np.int64)}


def merge_counts(parts: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The sum of several :func:`exceedance_counts` (exact: integers)."""
    empty = np.zeros(0, dtype=np.int64)
    keys = np.concatenate([empty, *(np.asarray(p["exceed_key"], dtype=np.int64) for p in parts)])
    counts = np.concatenate(
        [empty, *(np.asarray(p["exceed_count"], dtype=np.int64) for p in parts)]
    )
    unique, inverse = np.unique(keys, return_inverse=True)
    total = np.zeros(unique.size, dtype=np.int64)
    np.add.at(total, inverse, counts.astype(np.int64))
    return {"exceed_key": unique, "exceed_count": total}
