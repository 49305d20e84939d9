"""Runs of ``rocks = "auto"``: the rock counts of the rounds, the chunks a round takes over from
the round before, and the energy-line record of the summary.

A round of ``n`` rocks is the fixed run of ``n`` rocks: its rocks are those a run of ``n`` rocks
simulates (one random stream per rock; with release areas the split of the rocks depends on
``n``), so the numbers of the last round are those of ``tumble rockfall run rocks=n``. A chunk
of the round before is taken over only when all of its inputs are equal
(:meth:`tumble.rockfall.ensemble.Ensemble.chunk_fingerprint`): with one release point every
rock of the round before is reused; with release areas the rocks whose area changed are run
again.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tumble.io import run_folder as layout
from tumble.io.config import RockfallConfig
from tumble.io.results import write_json_atomic
from tumble.rockfall.ensemble.chunks import chunk_path

#: rocks of the first round of an auto run (doubled each round up to max_rocks)
FIRST_ROUND = 200
#: the travel angles of the geometric method (degrees) the report compares with, and its source
GEOMETRIC_RANGE_DEG = (27.0, 35.0)
GEOMETRIC_SOURCE = (
    "Evans & Hungr 1993 (Can. Geotech. J. 30, 620-636): minimum shadow angle 27.5 degrees; "
    "Jaboyedoff & Labiouse 2011 (NHESS 11, 819-828): energy-line angles of 28-35 degrees"
)
#: the lowest reach angle field records show: the empirical minimum shadow angle of Evans &
#: Hungr 1993, measured from the top of the talus to the farthest boulder; the angle from the
#: release point, higher up the cliff, to the same boulder is larger, so a rock at rest below
#: this angle from its release lies beyond every boulder of their records
LOWEST_OBSERVED_DEG = 27.5
LOWEST_OBSERVED_SOURCE = (
    "Evans & Hungr 1993, Can. Geotech. J. 30, 620-636: empirical minimum shadow angle, from the "
    "top of the talus"
)


def auto_rounds(config: RockfallConfig) -> list[int]:
    """Rocks of each round: :data:`FIRST_ROUND`, doubled each round, the last
    ``convergence.max_rocks``."""
    most = int(config.convergence.max_rocks)
    counts = [min(FIRST_ROUND, most)]
    while counts[-1] < most:
        counts.append(min(2 * counts[-1], most))
    return counts


def carry_chunks(
    ensemble: Any,
    out: str | os.PathLike,
    chunk_size: int,
    inputs: dict[str, Any],
    previous: Callable[[int], Any],
) -> int:
    """Make ``out/chunks`` a chunk folder of ``ensemble`` holding the chunks of the run found
    there (of another number of rocks; ``previous(n)`` builds its ensemble) whose inputs are
    equal to this one's; the others are left to compute. Nothing happens without a chunk folder
    or when it already belongs to ``ensemble``. Returns the chunks taken over."""
    out = Path(out)
    folder = out / layout.CHUNKS
    manifest_path = folder / layout.MANIFEST
    if not manifest_path.exists():
        return 0
    manifest = json.loads(manifest_path.read_text())
    fingerprint = ensemble.fingerprint()
    if manifest.get("fingerprint") == fingerprint and manifest.get("n_rocks") == ensemble.n_rocks:
        return 0
    old = previous(int(manifest["n_rocks"]))
    old_size = int(manifest["chunk_size"])
    known = {old.chunk_fingerprint(a, b): i for i, (a, b) in enumerate(old.chunks(old_size))}
    staging = out / f".{layout.CHUNKS}.previous"
    shutil.rmtree(staging, ignore_errors=True)
    os.replace(folder, staging)
    folder.mkdir()
    taken = 0
    for i, (a, b) in enumerate(ensemble.chunks(chunk_size)):
        source = known.get(ensemble.chunk_fingerprint(a, b))
        if source is not None and (staging / chunk_path(out, source).name).exists():
            os.replace(staging / chunk_path(out, source).name, chunk_path(out, i))
            taken += 1
    write_json_atomic(
        manifest_path,
        {
            "fingerprint": fingerprint,
            "n_rocks": ensemble.n_rocks,
            "chunk_size": int(chunk_size),
            "inputs": inputs,
            "sessions": list(manifest.get("sessions", [])),
        },
    )
    shutil.rmtree(staging, ignore_errors=True)
    return taken


#: a rock at rest closer than this to its release point (horizontally) has not really started
NEAR_RELEASE_M = 2.0
#: the share of such rocks above which a run warns
NEAR_RELEASE_SHARE = 0.01


def energy_line_record(result: Any) -> dict[str, Any]:
    """``summary.json["energy_line"]``: the smallest energy-line angle of the map (degrees, over
    every cell a rock reached) and of the rocks' final points (release to stop, over the rocks
    at rest) with their 1st, 5th and 50th percentiles, beside the geometric method's usual range
    and the lowest angle field records show (:data:`LOWEST_OBSERVED_DEG`), with the number of
    rocks at rest below it. A rock at rest within :data:`NEAR_RELEASE_M` of its release has no
    reach to speak of (its angle is that of a few decimetres: ``stopped_near_release`` counts
    it) and is left out."""
    rasters = result.rasters
    name = "energy_line_angle"
    grid = np.asarray(
        rasters.in_window(name) if hasattr(rasters, "in_window") else rasters[name],
        dtype=np.float64,
    )
    angles = np.asarray(result.rocks["energy_line_angle_deg"], dtype=np.float64)
    stopped = np.asarray(result.rocks["status"]) == "stopped"
    started = np.asarray(result.rocks["runout_m"], dtype=np.float64) >= NEAR_RELEASE_M
    at_rest = angles[stopped & started & np.isfinite(angles)]
    percentiles = (
        {f"p{q}": float(np.percentile(at_rest, q)) for q in (1, 5, 50)} if at_rest.size else None
    )
    return {
        "min_angle_deg": float(np.nanmin(grid)) if np.isfinite(grid).any() else None,
        "min_deposit_angle_deg": float(at_rest.min()) if at_rest.size else None,
        "deposit_angle_percentiles_deg": percentiles,
        "rocks_at_rest": int(at_rest.size),
        "beyond_m": NEAR_RELEASE_M,
        "geometric_range_deg": list(GEOMETRIC_RANGE_DEG),
        "geometric_source": GEOMETRIC_SOURCE,
        "lowest_observed_deg": LOWEST_OBSERVED_DEG,
        "lowest_observed_source": LOWEST_OBSERVED_SOURCE,
        "rocks_at_rest_below_lowest_observed": int(np.sum(at_rest < LOWEST_OBSERVED_DEG)),
    }


def energy_line_warning(record: dict[str, Any]) -> str | None:
    """A warning when rocks of the run came to rest below the lowest angle field records show:
    the soil lets them run further than observed rockfalls do."""
    below, total = record["rocks_at_rest_below_lowest_observed"], record["rocks_at_rest"]
    if not below:
        return None
    return (
        f"{below} of the {total} rocks at rest beyond {NEAR_RELEASE_M:g} m of their release "
        f"({100.0 * below / total:.1f} %) stopped below an "
        f"energy-line angle of {LOWEST_OBSERVED_DEG} degrees from their release (smallest "
        f"{record['min_deposit_angle_deg']:.1f} degrees), the lowest reach field records show "
        f"({LOWEST_OBSERVED_SOURCE}): the soil may let rocks run further than observed "
        "rockfalls do; check the soil category, its rolling resistance and its scar layer "
        "(the default medium carries that of Lu et al. 2019, which shortens the reach on real "
        "terrain: docs/reach_and_start.md)"
    )


def near_release_record(result: Any) -> dict[str, Any]:
    """``summary.json["stopped_near_release"]``: the rocks at rest within
    :data:`NEAR_RELEASE_M` of their release point (horizontal run-out), and their share of all
    rocks."""
    status = np.asarray(result.rocks["status"])
    runout = np.asarray(result.rocks["runout_m"], dtype=np.float64)
    near = int(np.sum((status == "stopped") & (runout < NEAR_RELEASE_M)))
    return {
        "within_m": NEAR_RELEASE_M,
        "rocks": near,
        "share": near / status.size if status.size else 0.0,
    }


def near_release_warning(record: dict[str, Any]) -> str | None:
    """A warning when more than :data:`NEAR_RELEASE_SHARE` of the rocks came to rest next to
    their release: a rock that starts sliding on a face collects slippage and, with a scarring
    soil whose mu_max exceeds tan(slope), is held by the soil's friction (docs/reach_and_start.md,
    tumble rockfall soils); field releases of blocks rarely end so."""
    if record["share"] <= NEAR_RELEASE_SHARE:
        return None
    return (
        f"{record['rocks']} rocks ({100.0 * record['share']:.1f} %) came to rest within "
        f"{record['within_m']:g} m of their release point: a rock that slides from its release "
        "is held once the soil's slippage friction reaches tan(slope) (tumble rockfall soils "
        "says below which slope each category holds); check the release height and speed, the "
        "rock shape and the soil category"
    )
