"""Fingerprints of an ensemble's inputs, by which chunk files are reused: a run resumed, or
the rounds of ``rocks = "auto"``, take a chunk over only when every input it was computed from
is equal.

Each hash is SHA-256 over the dtype, shape and bytes of the input arrays in a fixed order, then
the scalar settings; inputs a run does not have (barriers, forest, a soil table) add nothing, so
runs without them keep their fingerprints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np


def _hash_arrays(digest: Any, arrays: Iterable[Any]) -> None:
    for array in arrays:
        a = np.ascontiguousarray(array)
        digest.update(str((a.dtype.str, a.shape)).encode())
        digest.update(a.data.cast("B") if a.size else b"")  # a.tobytes(), not copied


def run_fingerprint(ensemble: Any) -> str:
    """Hash of every kernel input of ``ensemble``: equal fingerprints give equal results."""
    digest = hashlib.sha256()
    p = ensemble._packed
    arrays = [*p["model"][:5], p["model"].options, p["shape_vertices"], p["shape_counts"]]
    arrays += [ensemble.shape_id, ensemble.scale, p["bodies"], p["states"]]
    if ensemble.barriers:
        arrays += list(p["nets"])
    if ensemble.forest is not None:
        arrays += [*p["forest"], p["diameter"], p["keys"]]
    if ensemble.soils is not None:
        arrays += [*p["soil_table"], ensemble.soil_row]
    _hash_arrays(digest, arrays)
    scalars = (p["n_steps"], p["rest_steps"], ensemble.options.rest_speed, ensemble.sample_every)
    digest.update(repr(scalars).encode())
    return digest.hexdigest()[:32]


def chunk_fingerprint(ensemble: Any, start: int, stop: int) -> str:
    """Hash of every input of the chunk of rocks ``start .. stop - 1``: the shared model and
    those rocks' own rows (initial state, body, shape, groups, release point). Two ensembles
    with equal chunk fingerprints give that chunk equal arrays, whatever their other rocks
    (a run of more rocks whose first ones are the same reuses them)."""
    digest = hashlib.sha256()
    p = ensemble._packed
    rows = slice(int(start), int(stop))
    arrays = [*p["model"][:5], p["model"].options, p["shape_vertices"], p["shape_counts"]]
    arrays += [np.arange(start, stop), ensemble.shape_id[rows], ensemble.scale[rows]]
    arrays += [p["bodies"][rows], p["states"][rows], ensemble.release_ground[rows]]
    for groups in (ensemble.count_groups, ensemble.reach_groups):
        arrays.append(np.zeros(0) if groups is None else groups[rows])
    if ensemble.barriers:
        arrays += list(p["nets"])
    if ensemble.forest is not None:
        arrays += [*p["forest"], p["diameter"][rows], p["keys"][rows]]
    if ensemble.soils is not None:
        arrays += [*p["soil_table"], ensemble.soil_row[rows]]
    _hash_arrays(digest, arrays)
    scalars = (p["n_steps"], p["rest_steps"], ensemble.options.rest_speed, ensemble.sample_every)
    sizes = (ensemble.n_count_groups, ensemble.count_levels_kJ, ensemble.n_reach_groups)
    digest.update(repr((scalars, sizes)).encode())
    return digest.hexdigest()[:32]
